//! The Inspector page of a motion profile (`<asset path>/<id>.motion.ron`): every field in the
//! order and with the labels, units, ranges and defaults of the runtime's schema
//! (`project::MOTION_DOCUMENT`, the one `check` validates against and `docs/format.md` prints):
//! the speeds and turn parameters as numbers with a reset to their default, and for each clip
//! its duration, a summary of its 121 samples, a "Make monotone" action (the running maximum the
//! runtime applies anyway) and a plot of the sampled curve against clip time.

use egui::{Response, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};
use stagecraft_runtime::project::schema::motion::Clip;
use stagecraft_runtime::project::{FieldSchema, MotionProfileDoc, SectionSchema, MOTION_DOCUMENT};

use super::form::Form;
use super::schema_rows::schema_help;

/// Height of one clip's curve plot, points.
pub const CURVE_PLOT_HEIGHT: f32 = 110.0;

/// Draws the page of `profile`, field by field as the schema lists them.
pub fn motion_profile_ui(form: &mut Form<'_>, ui: &mut Ui, profile: &mut MotionProfileDoc) {
    let [root, clip_section] = MOTION_DOCUMENT.sections else {
        return;
    };
    for field in root.fields {
        if field.name == "id" {
            form.read_only_ui(ui, "id", field.help, &profile.id);
        } else if let Some(value) = profile.number_mut(field.name) {
            form.schema_number_ui(ui, field, value);
        } else if let Some(clip) = profile.clip_mut(field.name) {
            form.field(field.name, |form| {
                clip_ui(form, ui, field, clip_section, clip)
            });
        }
    }
}

/// One clip: its heading, duration, samples and curve.
fn clip_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    field: &FieldSchema,
    section: &SectionSchema,
    clip: &mut Clip,
) {
    ui.add_space(6.0);
    ui.label(RichText::new(field.label).strong())
        .on_hover_text(field.help);
    form.schema_number_ui(ui, section.get("duration_s"), &mut clip.duration_s);
    let samples = section.get("samples");
    let summary = samples_summary(clip, field.unit);
    form.field("samples", |form| {
        let help = schema_help(samples);
        form.labelled_row_here_ui(ui, "samples", samples.label, &help, |ui| {
            samples_row(ui, &summary, &mut clip.samples)
        })
    });
    let id = form.path().to_string();
    curve_plot(ui, &id, clip, field.unit);
}

/// The samples row: the summary, and "Make monotone" while a sample falls below the running
/// maximum (its click is the row's change).
/// The button goes under the summary, so a narrow Inspector still shows it whole.
fn samples_row(ui: &mut Ui, summary: &str, samples: &mut [f64]) -> Response {
    ui.vertical(|ui| {
        let mut response = ui.label(RichText::new(summary).monospace());
        if !is_monotone(samples) {
            let button = ui.small_button("Make monotone").on_hover_text(
                "Replace each sample by the running maximum (what the runtime uses).",
            );
            if button.clicked() {
                make_monotone(samples);
                response = button;
                response.mark_changed();
            }
        }
        response
    })
    .inner
}

/// `121 samples · 0.000 → 1.234 m` (first to last), or the count alone when there are none.
pub fn samples_summary(clip: &Clip, unit: &str) -> String {
    let count = clip.samples.len();
    match (clip.samples.first(), clip.samples.last()) {
        (Some(first), Some(last)) => {
            let unit = if unit.is_empty() { "" } else { unit };
            format!("{count} samples · {first:.3} → {last:.3} {unit}")
                .trim_end()
                .to_owned()
        }
        _ => format!("{count} samples"),
    }
}

/// Whether no sample is below one before it.
pub fn is_monotone(samples: &[f64]) -> bool {
    samples.windows(2).all(|pair| pair[1] >= pair[0])
}

/// Each sample replaced by the running maximum up to it.
pub fn make_monotone(samples: &mut [f64]) {
    let mut most = f64::NEG_INFINITY;
    for sample in samples {
        most = most.max(*sample);
        *sample = most;
    }
}

/// The points of a clip's curve: sample `i` at `i × duration / (n − 1)` seconds.
pub fn curve_points(clip: &Clip) -> Vec<[f64; 2]> {
    let intervals = clip.samples.len().saturating_sub(1).max(1) as f64;
    clip.samples
        .iter()
        .enumerate()
        .map(|(i, v)| [i as f64 * clip.duration_s / intervals, *v])
        .collect()
}

/// The clip's curve over clip time, `id` naming the plot.
fn curve_plot(ui: &mut Ui, id: &str, clip: &Clip, unit: &str) {
    let label = if unit.is_empty() { "turn" } else { unit };
    Plot::new(format!("motion-curve {id}"))
        .height(CURVE_PLOT_HEIGHT)
        .allow_scroll(false)
        .allow_drag(false)
        .allow_zoom(false)
        .x_axis_label("s")
        .y_axis_label(label)
        .show(ui, |plot| {
            let points: PlotPoints<'_> = curve_points(clip).into();
            plot.line(Line::new(format!("{id} curve"), points));
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(samples: Vec<f64>) -> Clip {
        Clip {
            duration_s: 2.0,
            samples,
        }
    }

    #[test]
    fn the_curve_spreads_the_samples_over_the_duration() {
        let points = curve_points(&clip(vec![0.0, 0.5, 2.0]));
        assert_eq!(points, vec![[0.0, 0.0], [1.0, 0.5], [2.0, 2.0]]);
    }

    #[test]
    fn make_monotone_applies_the_running_maximum() {
        let mut samples = vec![0.0, 0.4, 0.3, 0.9, 0.8];
        assert!(!is_monotone(&samples));
        make_monotone(&mut samples);
        assert_eq!(samples, vec![0.0, 0.4, 0.4, 0.9, 0.9]);
        assert!(is_monotone(&samples));
    }

    #[test]
    fn the_summary_gives_the_count_and_the_ends() {
        assert_eq!(
            samples_summary(&clip(vec![0.0, 0.25, 1.5]), "m"),
            "3 samples · 0.000 → 1.500 m"
        );
        assert_eq!(samples_summary(&clip(vec![]), "m"), "0 samples");
        assert_eq!(
            samples_summary(&clip(vec![0.0, 1.0]), ""),
            "2 samples · 0.000 → 1.000"
        );
    }
}
