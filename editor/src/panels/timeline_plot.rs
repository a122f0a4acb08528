//! The Timeline's counter plot: every counter the runtime publishes over the simulated frames,
//! one qualitative colour per series, a row of toggles above the plot that is also its legend
//! (so no legend box covers the curves), and an x-axis spanning the scenario from frame 0.

use std::collections::BTreeSet;

use egui::{Color32, RichText, Ui};
use egui_plot::{Line, LineStyle, Plot, PlotPoints, VLine};

use crate::session::Session;
use crate::viewport::palette;
use stagecraft_runtime::sim::Counters;

/// Points per counter line in the plot, at most (about).
const PLOT_POINTS: usize = 2_000;

/// The x-axis never spans fewer frames than this, so a run at frame 0 still has a readable axis.
const MIN_SPAN_FRAMES: f64 = 20.0;

/// The plot widget is never shorter than this, points (the tab scrolls instead when the
/// controls and lists above leave less)…
pub const MIN_PLOT_HEIGHT: f32 = 160.0;

/// …so the area the curves are drawn in, above the x axis, keeps at least this much: tall
/// enough for y-axis labels.
pub const MIN_CURVES_HEIGHT: f32 = 140.0;

/// What the plot remembers between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotState {
    /// Series the user switched off, by counter name.
    pub hidden: BTreeSet<&'static str>,
    /// The x range the plot showed last, frames.
    pub shown_x: Option<(f64, f64)>,
    /// How many series it drew last.
    pub drawn_series: usize,
    /// The height of the area the curves were last drawn in, points.
    pub shown_height: f32,
}

/// The colour of counter series `index`: the qualitative category palette (Tableau 10), so
/// neighbouring series never share a hue.
pub fn series_colour(index: usize) -> Color32 {
    let c = palette::category(index);
    Color32::from_rgb(c.r, c.g, c.b)
}

/// The counter names, in their fixed order.
pub fn series_names() -> [&'static str; 10] {
    Counters::default().rows().map(|(name, _)| name)
}

/// The toggles (also the legend) and the plot.
pub fn counts_plot_ui(ui: &mut Ui, session: &Session, state: &mut PlotState) {
    let Some(timeline) = session.timeline() else {
        return;
    };
    let names = series_names();
    toggles_ui(ui, &names, &mut state.hidden, 0);
    let history = timeline.history();
    // Long runs are thinned to about PLOT_POINTS points per line; the last frame is always kept.
    let stride = history.len() / PLOT_POINTS + 1;
    let end_frame = (session.last_frame() as f64).max(MIN_SPAN_FRAMES);
    let mut drawn = 0;
    let response = Plot::new("timeline-counts")
        .min_size(egui::vec2(64.0, MIN_PLOT_HEIGHT))
        .allow_scroll(false)
        .x_axis_label("frame")
        .y_axis_label("count")
        .include_x(0.0)
        .include_x(end_frame)
        .include_y(0.0)
        .include_y(1.0)
        .show(ui, |plot| {
            for (index, name) in names.iter().enumerate() {
                if state.hidden.contains(name) {
                    continue;
                }
                let points: PlotPoints<'_> = history
                    .iter()
                    .enumerate()
                    .filter(|(entry, _)| entry % stride == 0 || entry + 1 == history.len())
                    .map(|(_, (frame, counters))| {
                        [(frame + 1) as f64, counters.rows()[index].1 as f64]
                    })
                    .collect();
                plot.line(
                    Line::new(*name, points)
                        .color(series_colour(index))
                        .width(1.5),
                );
                drawn += 1;
            }
            plot.vline(
                VLine::new("current frame", timeline.frame() as f64)
                    .stroke(egui::Stroke::new(1.5, Color32::WHITE)),
            );
        });
    let bounds = response.transform.bounds();
    state.shown_x = Some((bounds.min()[0], bounds.max()[0]));
    state.shown_height = response.response.rect.height();
    state.drawn_series = drawn;
}

/// Whether palette index `index` repeats an earlier series' hue (its line is dashed).
fn repeats_hue(index: usize) -> bool {
    index >= palette::CATEGORIES.len()
}

/// One toggle per series, in its colour (palette index `first_colour` + its index; a dashed
/// mark where the hue repeats): a click shows or hides it.
fn toggles_ui(
    ui: &mut Ui,
    names: &[&'static str],
    hidden: &mut BTreeSet<&'static str>,
    first_colour: usize,
) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (index, name) in names.iter().enumerate() {
            let shown = !hidden.contains(name);
            let colour = if shown {
                series_colour(first_colour + index)
            } else {
                ui.visuals().weak_text_color()
            };
            let mark = if repeats_hue(first_colour + index) {
                "╌"
            } else {
                "●"
            };
            let text = RichText::new(format!("{mark} {name}"))
                .color(colour)
                .small();
            if ui
                .selectable_label(shown, text)
                .on_hover_text(if shown {
                    "Hide this series"
                } else {
                    "Show this series"
                })
                .clicked()
            {
                if shown {
                    hidden.insert(name);
                } else {
                    hidden.remove(name);
                }
            }
        }
    });
}

/// What a counter plot of the Population and Motion tabs draws: its id, the series' names, the
/// palette index of the first series and the y axis's label.
#[derive(Clone, Copy, Debug)]
pub struct SeriesPlot<'a> {
    /// The plot's egui id.
    pub id: &'a str,
    /// The series, in their fixed order.
    pub names: &'a [&'static str],
    /// The palette index of the first series (so two plots of one tab never share a colour).
    pub first_colour: usize,
    /// The y axis's label, such as `agents` or `ms`.
    pub y_label: &'a str,
}

/// A plot of the named series over frames (each sample a frame and one value per name, thinned
/// to about [`PLOT_POINTS`] per line), with a line at the shown `frame`: the Population and
/// Motion tabs' counter plots. As in the Timeline, a row of toggles above the plot is its legend,
/// so no legend box covers the curves; `hidden` holds the series the user switched off.
pub fn series_plot<S>(
    ui: &mut Ui,
    plot: SeriesPlot<'_>,
    history: &[S],
    sample: impl Fn(&S) -> (u64, Vec<f64>),
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) {
    toggles_ui(ui, plot.names, hidden, plot.first_colour);
    let stride = history.len() / PLOT_POINTS + 1;
    let samples: Vec<(u64, Vec<f64>)> = history.iter().step_by(stride).map(sample).collect();
    Plot::new(plot.id)
        .min_size(egui::vec2(64.0, MIN_PLOT_HEIGHT))
        .allow_scroll(false)
        .x_axis_label("frame")
        .y_axis_label(plot.y_label)
        .include_x(0.0)
        .include_y(0.0)
        .show(ui, |drawn| {
            for (series, name) in plot.names.iter().enumerate() {
                if hidden.contains(name) {
                    continue;
                }
                let points: PlotPoints = samples
                    .iter()
                    .map(|(f, values)| [*f as f64, values.get(series).copied().unwrap_or(0.0)])
                    .collect();
                // The palette has ten hues: later series repeat one, dashed.
                let style = if repeats_hue(plot.first_colour + series) {
                    LineStyle::dashed_loose()
                } else {
                    LineStyle::Solid
                };
                let colour = series_colour(plot.first_colour + series);
                drawn.line(Line::new(*name, points).color(colour).style(style));
            }
            drawn.vline(VLine::new("", frame as f64).color(Color32::from_gray(160)));
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_colours_are_distinct_and_not_grey() {
        let colours: Vec<Color32> = (0..series_names().len()).map(series_colour).collect();
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[i + 1..] {
                assert_ne!(a, b);
            }
            let spread = a.r().max(a.g()).max(a.b()) - a.r().min(a.g()).min(a.b());
            assert!(spread > 8 || i == 9, "series {i} is grey: {a:?}");
        }
    }
}
