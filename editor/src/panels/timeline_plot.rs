//! The Timeline's counter plot: every counter the runtime publishes over the simulated frames,
//! one qualitative colour per series, a column of toggles beside the plot that is also its
//! legend (so no legend box covers the curves and the plot keeps the tab's height), and an
//! x-axis spanning the scenario from frame 0.

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

/// The plot widget is never shorter than this, points (the tab scrolls instead when its body is
/// shorter; the default layout's lower strip is taller, tested)…
pub const MIN_PLOT_HEIGHT: f32 = 164.0;

/// …so the area the curves are drawn in, above the x axis and its label (about 44 points),
/// keeps at least this much: five y-axis labels 24 points apart.
pub const MIN_CURVES_HEIGHT: f32 = 120.0;

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
    /// Where the curves were last drawn, screen points.
    pub shown_rect: Option<egui::Rect>,
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

/// The plot and its toggles (also its legend) beside it, filling the height left in `ui`.
pub fn counts_plot_ui(ui: &mut Ui, session: &Session, state: &mut PlotState) {
    let Some(timeline) = session.timeline() else {
        return;
    };
    let names = series_names();
    let history = timeline.history();
    // Long runs are thinned to about PLOT_POINTS points per line; the last frame is always kept.
    let stride = history.len() / PLOT_POINTS + 1;
    let end_frame = (session.last_frame() as f64).max(MIN_SPAN_FRAMES);
    let mut drawn = 0;
    let legend = Legend {
        id: "timeline-counts",
        names: &names,
        first_colour: 0,
    };
    let hidden = &mut state.hidden;
    let response = beside_legend(ui, legend, hidden, |ui, size, hidden| {
        Plot::new("timeline-counts")
            .width(size.x)
            .height(size.y)
            .allow_scroll(false)
            .x_axis_label("frame")
            .y_axis_label("count")
            .include_x(0.0)
            .include_x(end_frame)
            .include_y(0.0)
            .include_y(1.0)
            .show(ui, |plot| {
                for (index, name) in names.iter().enumerate() {
                    if hidden.contains(name) {
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
            })
    });
    let bounds = response.transform.bounds();
    state.shown_x = Some((bounds.min()[0], bounds.max()[0]));
    state.shown_height = response.response.rect.height();
    state.shown_rect = Some(response.response.rect);
    state.drawn_series = drawn;
}

/// The series a legend column lists: its id, names and the palette index of the first.
#[derive(Clone, Copy, Debug)]
struct Legend<'a> {
    id: &'a str,
    names: &'a [&'static str],
    first_colour: usize,
}

/// A plot and its legend column side by side in the width left in `ui`, as tall as the height
/// left (at least [`MIN_PLOT_HEIGHT`]): `draw` gets the plot's size and the hidden series.
fn beside_legend<R>(
    ui: &mut Ui,
    legend: Legend<'_>,
    hidden: &mut BTreeSet<&'static str>,
    draw: impl FnOnce(&mut Ui, egui::Vec2, &BTreeSet<&'static str>) -> R,
) -> R {
    let legend_w = legend_width(ui, legend.names);
    let height = ui.available_height().max(MIN_PLOT_HEIGHT);
    ui.horizontal_top(|ui| {
        let spacing = ui.spacing().item_spacing.x;
        let plot_w = (ui.available_width() - legend_w - spacing).max(64.0);
        let drawn = ui
            .allocate_ui(egui::vec2(plot_w, height), |ui| {
                draw(ui, egui::vec2(plot_w, height), hidden)
            })
            .inner;
        ui.allocate_ui(egui::vec2(legend_w, height), |ui| {
            egui::ScrollArea::vertical()
                .id_salt((legend.id, "legend"))
                .max_height(height)
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    toggles_ui(ui, legend.names, hidden, legend.first_colour);
                });
        });
        drawn
    })
    .inner
}

/// The width of a legend column listing `names`, points.
fn legend_width(ui: &Ui, names: &[&'static str]) -> f32 {
    let widest = names
        .iter()
        .flat_map(|name| [format!("● {name}"), format!("╌ {name}")])
        .map(|text| {
            egui::WidgetText::from(RichText::new(text).small())
                .into_galley(
                    ui,
                    Some(egui::TextWrapMode::Extend),
                    f32::INFINITY,
                    egui::TextStyle::Small,
                )
                .size()
                .x
        })
        .fold(0.0, f32::max);
    // The selectable label's padding and the scroll bar.
    widest + 2.0 * ui.spacing().button_padding.x + 14.0
}

/// Whether palette index `index` repeats an earlier series' hue (its line is dashed).
fn repeats_hue(index: usize) -> bool {
    index >= palette::CATEGORIES.len()
}

/// One toggle per series, one per row, in its colour (palette index `first_colour` + its index;
/// a dashed mark where the hue repeats): a click shows or hides it.
fn toggles_ui(
    ui: &mut Ui,
    names: &[&'static str],
    hidden: &mut BTreeSet<&'static str>,
    first_colour: usize,
) {
    ui.vertical(|ui| {
        ui.spacing_mut().item_spacing.y = 1.0;
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
                .add(egui::Button::new(text).frame(false))
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
/// to about [`PLOT_POINTS`] per line), with a line at the shown `frame`: the Population, Motion
/// and Crossings tabs' counter plots. As in the Timeline, a column of toggles beside the plot is
/// its legend, so no legend box covers the curves; `hidden` holds the series the user switched
/// off. Returns where the curves were drawn.
pub fn series_plot<S>(
    ui: &mut Ui,
    plot: SeriesPlot<'_>,
    history: &[S],
    sample: impl Fn(&S) -> (u64, Vec<f64>),
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> egui::Rect {
    let stride = history.len() / PLOT_POINTS + 1;
    let samples: Vec<(u64, Vec<f64>)> = history.iter().step_by(stride).map(sample).collect();
    let legend = Legend {
        id: plot.id,
        names: plot.names,
        first_colour: plot.first_colour,
    };
    beside_legend(ui, legend, hidden, |ui, size, hidden| {
        Plot::new(plot.id)
            .width(size.x)
            .height(size.y)
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
            })
            .response
            .rect
    })
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
