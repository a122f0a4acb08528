//! The Motion tab: the Motion phase of the shown frame — motion updated and skipped, avoidance
//! processed and deferred, agents per tier, forced Full, the crowd governor's estimate against its
//! budget — plotted over the simulated frames, and the Motion Frame of the agent selected in the
//! Viewport.
//!
//! Everything is read from the session's world (`World::motion_counters`, `motion_frames`) and the
//! timeline's motion history; the tab never edits anything.

use std::collections::BTreeSet;

use egui::{RichText, Ui};
use stagecraft_runtime::sim::{AgentId, MotionCounters, MotionFrame, World};

use super::timeline_plot::{series_plot, SeriesPlot};
use super::{Command, Panel};
use crate::document::Document;
use crate::viewport::picking::PickId;
use crate::viewport::SharedPreview;

/// The Motion tab.
pub struct MotionPanel {
    preview: SharedPreview,
    /// Plot series the user switched off.
    hidden: BTreeSet<&'static str>,
    /// Where the plots' curves were drawn last frame, screen points.
    pub shown_plots: Vec<egui::Rect>,
}

impl MotionPanel {
    /// A Motion tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        MotionPanel {
            preview,
            hidden: BTreeSet::new(),
            shown_plots: Vec::new(),
        }
    }

    /// The plot series the user switched off, by name.
    pub fn hidden_series(&self) -> &BTreeSet<&'static str> {
        &self.hidden
    }
}

/// The counters of one frame in words.
pub fn counters_text(c: &MotionCounters) -> String {
    let ring = if c.outside_ring > 0 || c.ring_demotions > 0 {
        format!(
            " · outside the streaming ring {} (requests demoted {})",
            c.outside_ring, c.ring_demotions
        )
    } else {
        String::new()
    };
    format!(
        "motion updated {} · skipped {} · avoidance processed {} · deferred {} · \
         Full {} / Simulated {} / Stub {} · forced Full {} · governor {:.3} of {:.1} ms · frames {}{ring}",
        c.updated,
        c.skipped,
        c.avoidance_processed,
        c.avoidance_deferred,
        c.tiers[0],
        c.tiers[1],
        c.tiers[2],
        c.forced_full,
        c.governor_estimate_ms,
        c.governor_budget_ms,
        c.frames,
    )
}

/// One agent's Motion Frame in words, one line per field group.
pub fn frame_text(frame: &MotionFrame) -> Vec<String> {
    let a = &frame.animation;
    vec![
        format!(
            "agent {}:{} · {:?} · tier {:?} ({}) · {}",
            frame.id.source(),
            frame.id.ordinal(),
            frame.behaviour,
            frame.tier,
            frame.tier.crowd_name(),
            if frame.updated {
                "updated this step"
            } else {
                "held (skipped this step)"
            },
        ),
        format!(
            "at ({:.2}, {:.2}) m · velocity ({:.2}, {:.2}) m/s · towards ({:.2}, {:.2})",
            frame.location.x,
            frame.location.y,
            frame.velocity.x,
            frame.velocity.y,
            frame.route_target.x,
            frame.route_target.y,
        ),
        format!(
            "speed {:.2} m/s · facing {:.1}° · desired {:.1}° · turn {:.1}° · {}{}",
            a.speed_m_s,
            a.facing_yaw_rad.to_degrees(),
            a.desired_yaw_rad.to_degrees(),
            a.turn_delta_rad.to_degrees(),
            if a.moving { "moving" } else { "standing" },
            if a.turning { ", turning" } else { "" },
        ),
        format!(
            "panic {:.2} · simulation frame {} · fixed steps {}",
            frame.panic, frame.sim_frame, frame.fixed_steps
        ),
    ]
}

fn selected_ui(ui: &mut Ui, world: &World, selected: Option<&PickId>) {
    let Some(PickId::Agent { id }) = selected else {
        ui.weak("Select an agent in the Viewport to see its Motion Frame.");
        return;
    };
    let id = AgentId::from_bits(*id);
    match world.motion_frame(id) {
        Some(frame) => {
            for line in frame_text(&frame) {
                ui.label(line);
            }
        }
        None => {
            ui.weak("The selected agent has no Motion Frame at this frame.");
        }
    }
}

/// How many of the motion counters are counts of agents (the governor's demotions the last); the
/// rest (the governor's estimate and budget) are milliseconds and get their own plot, so neither
/// scale flattens the other.
const COUNT_SERIES: usize = 13;

fn plot_ui(
    ui: &mut Ui,
    history: &[(u64, MotionCounters)],
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> Vec<egui::Rect> {
    let width = ui.available_width();
    ui.horizontal_top(|ui| {
        let first = ui.allocate_ui(egui::vec2(width * 0.58, ui.available_height()), |ui| {
            let counts = ("motion-counts", 0..COUNT_SERIES, "agents");
            counters_plot(ui, counts, history, frame, hidden)
        });
        let all = MotionCounters::default().rows().len();
        let times = ("motion-governor", COUNT_SERIES..all, "ms");
        let second = counters_plot(ui, times, history, frame, hidden);
        vec![first.inner, second]
    })
    .inner
}

/// One plot of the motion counters `series` (id, the rows' range, the y axis's label).
fn counters_plot(
    ui: &mut Ui,
    (id, series, y_label): (&str, std::ops::Range<usize>, &str),
    history: &[(u64, MotionCounters)],
    frame: u64,
    hidden: &mut BTreeSet<&'static str>,
) -> egui::Rect {
    let names = MotionCounters::default().rows().map(|(name, _)| name);
    let plot = SeriesPlot {
        id,
        names: &names[series.clone()],
        first_colour: 0,
        y_label,
    };
    let sample = |(f, c): &(u64, MotionCounters)| {
        (*f, c.rows()[series.clone()].iter().map(|r| r.1).collect())
    };
    ui.vertical(|ui| series_plot(ui, plot, history, sample, frame, hidden))
        .inner
}

impl Panel for MotionPanel {
    fn title(&self) -> &'static str {
        "Motion"
    }

    fn ui(&mut self, ui: &mut Ui, _document: &Document, _out: &mut Vec<Command>) {
        let preview = self.preview.borrow();
        let session = &preview.session;
        let Some(world) = session.world() else {
            ui.weak(
                session
                    .problem()
                    .unwrap_or("No scenario is running: add one to see its motion."),
            );
            return;
        };
        let selected = preview.selected.as_ref();
        let mut shown = Vec::new();
        let history = session.timeline().map(|t| t.motion_history());
        super::plot_beside::text_beside_plots(
            ui,
            "motion-text",
            TEXT_SHARE,
            &mut self.hidden,
            |ui, _| {
                ui.label(format!("Frame {}", world.frame()));
                ui.label(counters_text(&world.motion_counters()));
                ui.separator();
                ui.label(RichText::new("Selected agent").strong());
                selected_ui(ui, world, selected);
            },
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

/// The share of the tab's width the counters and the selected agent take; the plots get the
/// rest.
const TEXT_SHARE: f32 = 0.3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counters_read_as_the_seed_names_them() {
        let c = MotionCounters {
            updated: 28,
            skipped: 72,
            avoidance_processed: 100,
            tiers: [12, 12, 76],
            governor_estimate_ms: 0.9,
            governor_budget_ms: 8.0,
            frames: 100,
            ..MotionCounters::default()
        };
        assert_eq!(
            counters_text(&c),
            "motion updated 28 · skipped 72 · avoidance processed 100 · deferred 0 · Full 12 / \
             Simulated 12 / Stub 76 · forced Full 0 · governor 0.900 of 8.0 ms · frames 100"
        );
        let ringed = MotionCounters {
            outside_ring: 3,
            ring_demotions: 2,
            ..c
        };
        assert!(counters_text(&ringed)
            .ends_with("frames 100 · outside the streaming ring 3 (requests demoted 2)"));
    }
}
