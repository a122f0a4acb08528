//! The Population tab: per source its target, ambient, mission, attached, pending, pooled and
//! quarantined counts; the cycle debt of each population type; the answer to "why did nothing
//! spawn here at this frame" in words, per source for the current Timeline frame (which gate
//! rejected, how many times, where along the source's route its candidates stood, what would
//! unblock it), with the run's totals under it; the current frame's lifecycle events with their
//! reasons; and the lifecycle counters plotted over the simulated frames.
//!
//! Everything is read from the session's world (`World::source_statuses`, `frame_spawn_report`,
//! `spawn_report`, `cycle_debt`, `events`) and the timeline's counters history; the tab never
//! edits anything.

use std::collections::BTreeSet;

use egui::{RichText, Ui};
use stagecraft_runtime::sim::{Counters, Event, EventDetail, SpawnReport, World};

use super::timeline_plot::{series_plot, SeriesPlot};
use super::{Command, Panel};
use crate::document::Document;
pub use crate::text::handle_text;
use crate::viewport::SharedPreview;

/// The Population tab.
pub struct PopulationPanel {
    preview: SharedPreview,
    /// Plot series the user switched off.
    hidden: BTreeSet<&'static str>,
    /// Where the plot's curves were drawn last frame, screen points.
    pub shown_plots: Vec<egui::Rect>,
}

impl PopulationPanel {
    /// A Population tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        PopulationPanel {
            preview,
            hidden: BTreeSet::new(),
            shown_plots: Vec::new(),
        }
    }
}

/// An event's reason or payload in words.
pub fn detail_text(detail: &EventDetail) -> String {
    match detail {
        EventDetail::None => String::new(),
        EventDetail::Rejection(reason) => reason.describe().to_owned(),
        EventDetail::Refusal(refusal) => format!("{refusal:?}"),
        EventDetail::Claim(refusal) => format!("{refusal:?}"),
        EventDetail::Batch { items, reused } => format!("batch of {items}, {reused} reused"),
        EventDetail::Rollback { complete, undone } => {
            if *complete {
                format!("{undone} item(s) compensated in reverse")
            } else {
                format!("RollbackFailed after {undone} item(s)")
            }
        }
        EventDetail::Retirement { pooled, rule } => {
            let to = if *pooled {
                "into the reuse pool"
            } else {
                "destroyed"
            };
            format!("{to}: {}", rule.describe())
        }
        EventDetail::Removal(cause) => cause.describe().to_owned(),
        EventDetail::Box(slot, change) => format!("{slot:?} box {change:?}"),
        EventDetail::Directive { index, unresolved } => match unresolved {
            None => format!("directive {index}"),
            Some(why) => format!("directive {index}: target not resolved ({why:?})"),
        },
        EventDetail::Flee {
            exit,
            arrival_ms,
            panic_milli,
        } => format!(
            "panic {:.2}, fleeing to exit {exit}, arriving in {:.1} s",
            f64::from(*panic_milli) / 1000.0,
            f64::from(*arrival_ms) / 1000.0
        ),
        EventDetail::Recognition(r) => format!("recognised {r:?}"),
        EventDetail::Stuck(reason) => reason.name().to_owned(),
        EventDetail::Task {
            session,
            generation,
            change,
        } => format!("task session {session}, generation {generation}: {change:?}"),
        EventDetail::Knockdown {
            session,
            phase,
            reason,
        } => match phase {
            Some(phase) => format!("knockdown {session}: {} ({reason:?})", phase.name()),
            None => format!("knockdown {session}: {reason:?}"),
        },
        EventDetail::Ring { outside, cell } => {
            let place = cell.map_or_else(
                || "no cell".to_owned(),
                |c| format!("cell ({}, {})", c.x, c.y),
            );
            if *outside {
                format!("left the loaded ring at {place}: demoted one tier")
            } else {
                format!("back in the loaded ring at {place}")
            }
        }
    }
}

/// One line for an event: "frame 40 · claimed · #3.0 · courier · …".
pub fn event_text(world: &World, event: &Event) -> String {
    let source = event
        .source
        .and_then(|s| world.config().sources.get(usize::from(s)))
        .map_or(String::new(), |s| format!(" · {}", s.id));
    let handle = event
        .handle
        .map_or(String::new(), |h| format!(" · {}", handle_text(h)));
    let detail = detail_text(&event.detail);
    let detail = if detail.is_empty() {
        detail
    } else {
        format!(" · {detail}")
    };
    format!(
        "frame {} · {}{handle}{source}{detail}",
        event.frame,
        event.kind.name()
    )
}

fn sources_ui(ui: &mut Ui, world: &World) {
    egui::Grid::new("population-sources")
        .striped(true)
        .num_columns(8)
        .show(ui, |ui| {
            for title in [
                "source",
                "target",
                "ambient",
                "mission",
                "attached",
                "pending",
                "pooled",
                "quarantined",
            ] {
                ui.label(RichText::new(title).strong());
            }
            ui.end_row();
            for status in world.source_statuses() {
                ui.label(&status.id);
                ui.label(status.target.to_string());
                ui.label(status.ambient.to_string());
                ui.label(status.mission.to_string());
                ui.label(format!("{} / {}", status.attached, status.capacity));
                ui.label(status.pending.map_or("—".to_owned(), |d| {
                    format!("batch {} ({} attempts)", d.batch, d.attempts)
                }));
                ui.label(status.pooled.to_string());
                ui.label(status.quarantined.to_string());
                ui.end_row();
            }
        });
}

/// The line under a source's answer for this frame: the run's totals, secondary.
pub fn lifetime_text(report: &SpawnReport) -> String {
    let mut text = format!("over the run: {}", report.text());
    if let Some((frame, reason)) = report.last {
        text.push_str(&format!(" (last at frame {frame}: {})", reason.describe()));
    }
    text
}

fn why_ui(ui: &mut Ui, world: &World) {
    for index in 0..world.config().sources.len() {
        let (Some(now), Some(lifetime)) =
            (world.frame_spawn_report(index), world.spawn_report(index))
        else {
            continue;
        };
        let colour = if now.rejected() > 0 {
            ui.visuals().warn_fg_color
        } else {
            ui.visuals().text_color()
        };
        ui.colored_label(colour, now.text());
        ui.indent(("population-lifetime", index), |ui| {
            ui.weak(lifetime_text(&lifetime));
        });
    }
}

/// This frame's lifecycle events, every one a row of the tab's text column (which scrolls to
/// the last), with the count of events the bounded log dropped.
fn events_ui(ui: &mut Ui, world: &World) {
    let events = world.events().at_frame(world.frame());
    if events.is_empty() {
        ui.weak(format!("No lifecycle events at frame {}.", world.frame()));
    }
    for event in &events {
        ui.label(event_text(world, event));
    }
    let dropped = world.events().dropped_total();
    if dropped > 0 {
        ui.weak(format!(
            "{dropped} older event(s) dropped from the bounded log"
        ));
    }
}

fn plot_ui(
    ui: &mut Ui,
    history: &[(u64, Counters)],
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> egui::Rect {
    let names = Counters::default().population_rows().map(|(name, _)| name);
    let sample = |(f, c): &(u64, Counters)| {
        let values = c.population_rows().map(|(_, v)| v as f64);
        (*f, values.to_vec())
    };
    let plot = SeriesPlot {
        id: "population-counters",
        names: &names,
        first_colour: 0,
        y_label: "count",
    };
    series_plot(ui, plot, history, sample, frame, hidden)
}

impl Panel for PopulationPanel {
    fn title(&self) -> &'static str {
        "Population"
    }

    fn ui(&mut self, ui: &mut Ui, _document: &Document, _out: &mut Vec<Command>) {
        let preview = self.preview.borrow();
        let session = &preview.session;
        let Some(world) = session.world() else {
            ui.weak(
                session
                    .problem()
                    .unwrap_or("No scenario is running: add one to see its population."),
            );
            return;
        };
        let mut shown = Vec::new();
        let history = session.timeline().map(|t| t.history());
        super::plot_beside::text_beside_plots(
            ui,
            "population-text",
            TEXT_SHARE,
            &mut self.hidden,
            |ui, _| text_ui(ui, world),
            |ui, hidden| {
                if let Some(history) = history {
                    shown = vec![plot_ui(ui, history, world.frame(), hidden)];
                }
            },
        );
        drop(preview);
        self.shown_plots = shown;
    }
}

/// The share of the tab's width its counts, reasons and events take; the plot gets the rest.
const TEXT_SHARE: f32 = 0.55;

/// The tab's text column: the cycle debt, the sources, why (not) spawning, this frame's events.
fn text_ui(ui: &mut Ui, world: &World) {
    let (ped_debt, vehicle_debt) = world.cycle_debt();
    ui.label(format!(
        "Frame {} · cycle debt: peds {ped_debt:.3}, vehicles {vehicle_debt:.3} · {} vehicles",
        world.frame(),
        world.counters().vehicles
    ));
    sources_ui(ui, world);
    ui.separator();
    ui.label(RichText::new(format!("Why (not) spawning at frame {}", world.frame())).strong());
    why_ui(ui, world);
    ui.separator();
    ui.label(RichText::new("Events this frame").strong());
    events_ui(ui, world);
}
