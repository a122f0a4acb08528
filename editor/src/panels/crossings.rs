//! The Crossings tab: per crosswalk its signal phase with the time in phase, the vehicle gate,
//! its agents per phase (Approach, Requested, Waiting, Crossing, Clearing, Completed) and queue
//! occupancy; the crossings' counters (completions, groups, members, regrouping, crosswalk
//! queries processed and deferred, the liveness guard's counters, deferred tier transitions);
//! and every counter plotted over the simulated frames.
//!
//! Everything is read from the session's world (`World::crosswalk_reports`,
//! `World::crossing_sample`) and the timeline's crossing history; the tab never edits anything.

use std::collections::BTreeSet;

use egui::{RichText, Ui};
use stagecraft_runtime::sim::{
    CrossingSample, CrosswalkPhase, CrosswalkReport, SignalPhase, World, CROSSING_SAMPLE_NAMES,
};

use super::timeline_plot::{series_plot, SeriesPlot};
use super::{Command, Panel};
use crate::document::Document;
use crate::viewport::SharedPreview;

/// The Crossings tab.
pub struct CrossingsPanel {
    preview: SharedPreview,
    /// Plot series the user switched off.
    hidden: BTreeSet<&'static str>,
    /// Where the plots' curves were drawn last frame, screen points.
    pub shown_plots: Vec<egui::Rect>,
}

impl CrossingsPanel {
    /// A Crossings tab over the shared preview; the plot starts with the phase counts shown.
    pub fn new(preview: SharedPreview) -> Self {
        // Counts that are usually flat stay off until asked for, so the phases read clearly.
        let hidden = ["queue slots", "completions", "stuck flags"]
            .into_iter()
            .collect();
        CrossingsPanel {
            preview,
            hidden,
            shown_plots: Vec::new(),
        }
    }
}

/// One crosswalk's signal in words: phase, time in phase, gate, closures and walk phases.
pub fn signal_text(report: &CrosswalkReport) -> String {
    let s = &report.signal;
    let next = match s.phase {
        SignalPhase::AllStop if s.walk_next => " (walk phase next)",
        SignalPhase::AllStop => " (clearance: green once nobody crosses)",
        _ => "",
    };
    format!(
        "{} · signal {}: {}{next} for {:.2} s · gate {} · closures {} · walk phases {}",
        report.id,
        report.signal_id,
        s.phase.name(),
        s.elapsed_s,
        if s.gate_open { "open" } else { "closed" },
        s.gate_closures,
        s.walk_phases,
    )
}

/// One crosswalk's agents per phase and its queues in words.
pub fn phases_text(report: &CrosswalkReport) -> String {
    let counts: Vec<String> = CrosswalkPhase::ALL
        .iter()
        .zip(report.phases)
        .map(|(phase, n)| format!("{} {n}", phase.name()))
        .collect();
    format!(
        "{} · queues {} / {} and {} / {} slots",
        counts.join(" · "),
        report.queued[0],
        report.slots_per_side,
        report.queued[1],
        report.slots_per_side,
    )
}

/// The crossing counters of one frame in words, one line per concern.
pub fn sample_text(s: &CrossingSample) -> Vec<String> {
    vec![
        format!(
            "completions {} · queued {} of {} slots · gates open {}",
            s.completed, s.queued, s.queue_slots, s.gates_open
        ),
        format!(
            "groups {} · members {} · regrouping {}",
            s.groups, s.group_members, s.regrouping_groups
        ),
        format!(
            "crosswalk queries processed {} · deferred {}",
            s.queries_processed, s.queries_deferred
        ),
        format!(
            "liveness: window refreshes {} · forced clears {} · stalled committed {} · \
             max no-progress {:.2} s · stuck now {} · stuck flags {}",
            s.window_refreshes,
            s.forced_clears,
            s.stalled_committed,
            s.max_no_progress_s,
            s.stuck_now,
            s.stuck_flags
        ),
        format!("deferred tier transitions {}", s.deferred_tier_transitions),
    ]
}

/// Everything the tab shows of `world` as text (the plot aside).
pub fn world_text(world: &World) -> Vec<String> {
    let mut lines = Vec::new();
    for report in world.crosswalk_reports() {
        lines.push(signal_text(&report));
        lines.push(phases_text(&report));
    }
    lines.extend(sample_text(&world.crossing_sample()));
    lines
}

/// How many of the sample's rows are counts (the rest, max no-progress, are seconds).
const COUNT_SERIES: usize = CROSSING_SAMPLE_NAMES.len() - 1;

fn plot_ui(
    ui: &mut Ui,
    history: &[(u64, CrossingSample)],
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> Vec<egui::Rect> {
    let width = ui.available_width();
    ui.horizontal_top(|ui| {
        let first = ui.allocate_ui(egui::vec2(width * 0.6, ui.available_height()), |ui| {
            let counts = ("crossing-counts", 0..COUNT_SERIES, "agents / queries");
            counters_plot(ui, counts, history, frame, hidden)
        });
        let seconds = ("crossing-seconds", COUNT_SERIES..COUNT_SERIES + 1, "s");
        let second = counters_plot(ui, seconds, history, frame, hidden);
        vec![first.inner, second]
    })
    .inner
}

fn counters_plot(
    ui: &mut Ui,
    (id, series, y_label): (&str, std::ops::Range<usize>, &str),
    history: &[(u64, CrossingSample)],
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> egui::Rect {
    let plot = SeriesPlot {
        id,
        names: &CROSSING_SAMPLE_NAMES[series.clone()],
        first_colour: series.start,
        y_label,
    };
    let sample = |(f, s): &(u64, CrossingSample)| {
        (*f, s.rows()[series.clone()].iter().map(|r| r.1).collect())
    };
    ui.vertical(|ui| series_plot(ui, plot, history, sample, frame, hidden))
        .inner
}

impl Panel for CrossingsPanel {
    fn title(&self) -> &'static str {
        "Crossings"
    }

    fn ui(&mut self, ui: &mut Ui, _document: &Document, _out: &mut Vec<Command>) {
        let preview = self.preview.borrow();
        let session = &preview.session;
        let Some(world) = session.world() else {
            ui.weak(
                session
                    .problem()
                    .unwrap_or("No scenario is running: add one to see its crossings."),
            );
            return;
        };
        let mut shown = Vec::new();
        let history = session.timeline().map(|t| t.crossing_history());
        super::plot_beside::text_beside_plots(
            ui,
            "crossings-text",
            TEXT_SHARE,
            &mut self.hidden,
            |ui, _| text_ui(ui, world),
            |ui, hidden| {
                if let Some(history) = history {
                    shown = plot_ui(ui, history, world.frame(), hidden);
                }
            },
        );
        drop(preview);
        self.shown_plots = shown;
    }
}

/// The share of the tab's width the signals, phases and counters take; the plots get the rest.
const TEXT_SHARE: f32 = 0.36;

/// The tab's text column: each crosswalk's signal and phases, then the crossing counters.
fn text_ui(ui: &mut Ui, world: &World) {
    ui.label(format!("Frame {}", world.frame()));
    let reports = world.crosswalk_reports();
    if reports.is_empty() {
        ui.weak("The content has no crosswalk.");
    }
    for report in &reports {
        ui.label(RichText::new(signal_text(report)).strong());
        ui.label(phases_text(report));
    }
    ui.separator();
    for line in sample_text(&world.crossing_sample()) {
        ui.label(line);
    }
}

/// A test world: twelve crossers on the demo's crosswalk (a window of twelve holds one group of
/// three), with the hazard vehicle.
#[cfg(test)]
pub(crate) fn crossing_world() -> World {
    crate::session::fixtures::crossing_world(12, 900)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::sim::SignalState;

    fn world() -> World {
        crossing_world()
    }

    #[test]
    fn the_view_reads_the_runtimes_counters_every_frame() {
        let mut w = world();
        let mut seen = [false; 6];
        let mut completed_before = 0;
        for _ in 0..900 {
            w.step();
            let reports = w.crosswalk_reports();
            assert_eq!(reports.len(), 1);
            let report = &reports[0];
            let stats = w.crossings().stats;
            // The bound phases are the runtime's own phase counters; Approach counts every
            // other crosser alive now (all routes cross the one crosswalk), this step's
            // newborns included (the runtime counted before they were committed).
            assert_eq!(report.phases[1..], stats.phases[1..], "frame {}", w.frame());
            let counters = w.counters();
            assert_eq!(
                report.phases.iter().sum::<u64>(),
                counters.alive - counters.pooled,
                "frame {}",
                w.frame()
            );
            assert_eq!(report.signal, w.crossings().signals[0]);
            assert_eq!(
                report.queued[0] + report.queued[1],
                stats.phases[1] + stats.phases[2]
            );
            assert_eq!(report.slots_per_side, 6, "two lanes × three rows");
            let sample = w.crossing_sample();
            assert_eq!(sample.phases, stats.phases);
            assert_eq!(sample.completed, stats.completed);
            assert_eq!(
                (
                    sample.groups,
                    sample.group_members,
                    sample.regrouping_groups
                ),
                (stats.groups, stats.group_members, stats.regrouping_groups)
            );
            assert_eq!(
                (sample.queries_processed, sample.queries_deferred),
                (stats.queries_processed, stats.queries_deferred)
            );
            assert_eq!(
                sample.deferred_tier_transitions,
                w.motion_counters().deferred_transitions
            );
            assert_eq!(sample.queue_slots, 12);
            let text = world_text(&w);
            let s = &report.signal;
            let gate = if s.gate_open { "open" } else { "closed" };
            assert!(
                text[0].starts_with(&format!(
                    "crosswalk.0 · signal signal.0: {}",
                    s.phase.name()
                )) && text[0].contains(&format!(" for {:.2} s · gate {gate} ·", s.elapsed_s)),
                "{}",
                text[0]
            );
            let p = report.phases;
            assert!(text[1].starts_with(&format!(
                "approach {} · requested {} · waiting {} · crossing {} · clearing {} · \
                 completed {} · queues",
                p[0], p[1], p[2], p[3], p[4], p[5]
            )));
            assert_eq!(
                text[2],
                format!(
                    "completions {} · queued {} of 12 slots · gates open {}",
                    stats.completed,
                    p[1] + p[2],
                    u64::from(s.gate_open)
                )
            );
            assert!(stats.completed >= completed_before);
            completed_before = stats.completed;
            for (flag, n) in seen.iter_mut().zip(stats.phases) {
                *flag |= n > 0;
            }
        }
        assert_eq!(seen, [true; 6], "a full crossing cycle shows in the view");
        assert!(completed_before > 0);
        assert_eq!(w.crossing_sample().group_members, 3, "one group of three");
    }

    #[test]
    fn a_signal_reads_with_its_phase_time_and_gate() {
        let report = CrosswalkReport {
            index: 0,
            id: "crosswalk.0".into(),
            signal_id: "signal.0".into(),
            signal: SignalState {
                phase: SignalPhase::AllStop,
                elapsed_s: 1.25,
                walk_next: false,
                gate_open: false,
                gate_closures: 3,
                walk_phases: 2,
            },
            phases: [4, 0, 1, 2, 0, 1],
            queued: [1, 0],
            slots_per_side: 6,
        };
        assert_eq!(
            signal_text(&report),
            "crosswalk.0 · signal signal.0: all stop (clearance: green once nobody crosses) for \
             1.25 s · gate closed · closures 3 · walk phases 2"
        );
        assert_eq!(
            phases_text(&report),
            "approach 4 · requested 0 · waiting 1 · crossing 2 · clearing 0 · completed 1 · \
             queues 1 / 6 and 0 / 6 slots"
        );
    }
}
