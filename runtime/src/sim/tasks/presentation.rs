//! What a task ped shows (presentation only, population-lifecycle "Animation reads movement
//! rather than driving population" and "Add presentation interpolation after logical
//! motion"): per step, a [`TaskFrame`] with the clip, phase and clip time its motion profile
//! plays, and a gait filtered from the *measured* logical displacement — the speed over a
//! [`SPEED_WINDOW_S`] window, a [`GAIT_HOLD_S`] hold before the walking / standing state
//! switches, asymmetric blends ([`START_BLEND_S`] into walking, [`STOP_BLEND_S`] out of it), and
//! a walk-cycle phase that advances only while the ped moves. Nothing here feeds back into the
//! simulation: frames are not state (snapshots and digests leave them out; a restore starts the
//! filters afresh).

use std::collections::{BTreeMap, VecDeque};

use super::gait::GaitPhase;
use super::TaskState;
use crate::sim::config::profiles::ProfileTable;
use crate::sim::motion::frames::ClipFrame;
use crate::sim::state::{AgentHandle, AgentId, Agents, Slots};

/// Blend time into walking, seconds.
pub const START_BLEND_S: f64 = 0.16;
/// Blend time out of walking, seconds.
pub const STOP_BLEND_S: f64 = 0.22;
/// The speed-measurement window, seconds.
pub const SPEED_WINDOW_S: f64 = 0.1;
/// How long a new walking / standing reading must last before the gait switches, seconds.
pub const GAIT_HOLD_S: f64 = 0.08;
/// Below this measured speed the ped stands, meters per second.
pub const STANDING_BELOW_M_S: f64 = 0.05;

/// The gait filter of one ped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GaitView {
    /// The samples inside the window: (seconds, meters), newest last.
    window: VecDeque<(f64, f64)>,
    /// Speed over the window, meters per second.
    pub measured_m_s: f64,
    /// The filtered state: walking (true) or standing.
    pub walking: bool,
    /// How long the reading has disagreed with `walking`, seconds.
    pending_s: f64,
    /// Walk blend weight, 0 standing .. 1 walking.
    pub blend: f64,
    /// Walk-cycle phase 0..1 (advanced by measured distance, never at rest).
    pub cycle: f64,
}

impl GaitView {
    /// One observation: the ped moved `moved_m` in `dt_s`; `stride_m` is one walk cycle.
    pub fn observe(&mut self, dt_s: f64, moved_m: f64, stride_m: f64) {
        self.window.push_back((dt_s, moved_m.max(0.0)));
        while self.window.len() > 1
            && self.window.iter().skip(1).map(|s| s.0).sum::<f64>() >= SPEED_WINDOW_S - 1e-9
        {
            self.window.pop_front();
        }
        let (time, distance) = self
            .window
            .iter()
            .fold((0.0, 0.0), |(t, d), s| (t + s.0, d + s.1));
        self.measured_m_s = if time > 0.0 { distance / time } else { 0.0 };
        let reading = self.measured_m_s > STANDING_BELOW_M_S;
        if reading == self.walking {
            self.pending_s = 0.0;
        } else {
            self.pending_s += dt_s;
            if self.pending_s + 1e-9 >= GAIT_HOLD_S {
                self.walking = reading;
                self.pending_s = 0.0;
            }
        }
        self.blend = if self.walking {
            (self.blend + dt_s / START_BLEND_S).min(1.0)
        } else {
            (self.blend - dt_s / STOP_BLEND_S).max(0.0)
        };
        if self.walking && reading && stride_m > 0.0 {
            self.cycle = (self.cycle + self.measured_m_s * dt_s / stride_m).fract();
        }
    }
}

/// The filtered gait a frame shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GaitShown {
    /// Speed over the window, meters per second.
    pub measured_m_s: f64,
    /// Walking (true) or standing, after the hold.
    pub walking: bool,
    /// Walk blend weight, 0 standing .. 1 walking.
    pub blend: f64,
    /// Walk-cycle phase 0..1.
    pub cycle: f64,
}

impl GaitView {
    /// What a frame shows of this filter.
    pub fn shown(&self) -> GaitShown {
        GaitShown {
            measured_m_s: self.measured_m_s,
            walking: self.walking,
            blend: self.blend,
            cycle: self.cycle,
        }
    }
}

/// What one task ped shows this step.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskFrame {
    /// The ped.
    pub id: AgentId,
    /// Its motion profile's index in the world's table (`ProfileTable::get`).
    pub profile: u16,
    /// The clip its phase plays (`idle`, `turn`, `start`, `loop`, `stop`).
    pub clip: &'static str,
    /// The phase.
    pub phase: GaitPhase,
    /// Time in the clip, seconds (the loop: its cycle time).
    pub clip_time_s: f64,
    /// The clip, its phase 0..1 and time as the ped's Motion Frame shows them.
    pub motion_clip: ClipFrame,
    /// Logical heading, radians.
    pub heading_rad: f64,
    /// The gait filtered from measured speed.
    pub gait: GaitShown,
}

/// The task frames of the last step and the filters behind them, by ped.
#[derive(Clone, Debug, Default)]
pub struct TaskFrames {
    views: BTreeMap<AgentHandle, (GaitView, [f64; 2])>,
    frames: Vec<TaskFrame>,
    /// The row of each frame's ped, in frame order.
    rows: Vec<u32>,
}

impl TaskFrames {
    /// The frames of the last step, in handle order.
    pub fn frames(&self) -> &[TaskFrame] {
        &self.frames
    }

    /// Each frame's row and Motion Frame clip (what `World::step` lays over the Motion Frames).
    pub fn clips(&self) -> impl Iterator<Item = (u32, ClipFrame)> + '_ {
        self.rows
            .iter()
            .zip(&self.frames)
            .map(|(row, f)| (*row, f.motion_clip))
    }

    /// Forgets every filter (after a restore).
    pub fn reset(&mut self) {
        *self = TaskFrames::default();
    }

    /// Publishes this step's frames from the movements (after the step).
    pub fn publish(
        &mut self,
        tasks: &TaskState,
        agents: &Agents,
        slots: &Slots,
        profiles: &ProfileTable,
        dt_s: f64,
    ) {
        self.frames.clear();
        self.rows.clear();
        let live = |h: &AgentHandle| slots.resolve(*h).filter(|r| *r < agents.len());
        self.views
            .retain(|h, _| tasks.movements.contains_key(h) && live(h).is_some());
        for (handle, m) in &tasks.movements {
            let Some(row) = live(handle) else {
                continue;
            };
            let profile = profiles.get(m.gait.profile);
            let here = [m.position[0], m.position[1]];
            let (view, last) = self
                .views
                .entry(*handle)
                .or_insert_with(|| (GaitView::default(), here));
            let moved = (here[0] - last[0]).hypot(here[1] - last[1]);
            *last = here;
            let stride_m = profile.reference_speed_m_s * profile.cycle.duration_s;
            view.observe(dt_s, moved, stride_m);
            let clip_time_s = match m.gait.phase {
                GaitPhase::Loop => m.gait.cycle_time_s,
                _ => m.gait.clip_time_s,
            };
            self.frames.push(TaskFrame {
                id: AgentId::from_bits(agents.id[row]),
                profile: m.gait.profile,
                clip: m.gait.phase.clip(),
                phase: m.gait.phase,
                clip_time_s,
                motion_clip: m.gait.clip_frame(profile),
                heading_rad: m.heading_rad,
                gait: view.shown(),
            });
            self.rows.push(row as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 0.05;

    #[test]
    fn the_gait_switches_after_the_hold_and_blends_asymmetrically() {
        let mut view = GaitView::default();
        view.observe(DT, 0.0, 1.54);
        assert!(!view.walking);
        // 1.4 m/s from now on: the 0.1 s window reads 0.7 m/s, then 1.4 m/s.
        view.observe(DT, 0.07, 1.54);
        assert!((view.measured_m_s - 0.7).abs() < 1e-12);
        assert!(!view.walking, "0.05 s is within the 0.08 s hold");
        view.observe(DT, 0.07, 1.54);
        assert!((view.measured_m_s - 1.4).abs() < 1e-12);
        assert!(view.walking, "0.10 s ≥ the 0.08 s hold");
        // Into walking at 1 / 0.16 s.
        assert!((view.blend - DT / START_BLEND_S).abs() < 1e-12);
        let cycle = view.cycle;
        assert!((cycle - 1.4 * DT / 1.54).abs() < 1e-12);
        for _ in 0..3 {
            view.observe(DT, 0.07, 1.54);
        }
        assert_eq!(view.blend, 1.0);
        // Stopping: the window still reads 0.7 m/s, then 0; two readings later it stands.
        view.observe(DT, 0.0, 1.54);
        assert!(view.walking);
        view.observe(DT, 0.0, 1.54);
        assert!(view.walking, "within the hold");
        let cycle = view.cycle;
        view.observe(DT, 0.0, 1.54);
        assert!(!view.walking);
        assert_eq!(view.cycle, cycle, "the walk cycle does not advance at rest");
        // Out of walking at 1 / 0.22 s.
        assert!((view.blend - (1.0 - DT / STOP_BLEND_S)).abs() < 1e-12);
    }

    #[test]
    fn a_short_flicker_within_the_hold_does_not_switch() {
        let mut view = GaitView::default();
        for _ in 0..4 {
            view.observe(DT, 0.07, 1.54);
        }
        assert!(view.walking);
        // One still step: the window reads 0.7 m/s — still moving.
        view.observe(DT, 0.0, 1.54);
        view.observe(DT, 0.07, 1.54);
        assert!(view.walking);
        assert_eq!(view.pending_s, 0.0);
    }
}
