//! A task ped's motion state as its motion profile drives it (tasks-and-directives, "How motion
//! data constrains path execution and step distance", "Starting and stopping derive budgets
//! from distance curves", "Goal stopping differs from command stopping"): the profile, the
//! phase (idle, turn, start, loop, stop, hold tail), clip time, cycle time and motion serial,
//! with the last step's budget, proposal and accepted distance for the Provenance tab.
//!
//! - Start and goal stop take the curve distance of the proposed clip time, shortened by the
//!   12-step binary search to the budget `speed × dt` ([`budgeted_step`]); the loop takes the
//!   whole budget and advances its cycle by the accepted distance only.
//! - A goal stop begins when the remaining route enters the stop clip's authored distance; its
//!   scale is remaining over authored, so the clip ends on the endpoint.
//! - A command stop (any stop cause while moving) plays the stop tail: from the clip time where
//!   the remaining stop distance is ~0, pose only, no translation.
//! - A heading change beyond the profile's threshold plays the turn clip (rotation only, the
//!   clip's normalized progress times the actual difference); a smaller one is rate-limited, and
//!   a step still misaligned beyond `align_deg` only rotates. The heading never jumps.

use crate::sim::config::profiles::{
    advance_cycle, budgeted_step, play_rate, BudgetedStep, MotionProfile,
};
use crate::sim::motion::frames::{ClipFrame, MotionClip};
use crate::sim::state::Canonical;

use super::parent::ParentKind;

/// Index of the standard walking profile in every table.
pub const WALKING_INDEX: u16 = 0;
/// Index of the standard running profile in every table.
pub const RUNNING_INDEX: u16 = 1;

/// The phase of a task ped's motion.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
)]
pub enum GaitPhase {
    /// Standing (settled).
    #[default]
    Idle,
    /// Playing the turn clip: rotation without translation.
    Turn,
    /// Playing the start clip.
    Start,
    /// Looping.
    Loop,
    /// Playing the goal stop clip, scaled to the remaining route.
    Stop,
    /// Playing the stop tail after a command stop: pose change without translation.
    HoldTail,
}

impl GaitPhase {
    /// A stable small number.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Whether the ped is under way (a command stop then plays the stop tail).
    pub fn moving(self) -> bool {
        matches!(self, GaitPhase::Start | GaitPhase::Loop | GaitPhase::Stop)
    }

    /// The clip the phase plays.
    pub fn clip(self) -> &'static str {
        match self {
            GaitPhase::Idle => "idle",
            GaitPhase::Turn => "turn",
            GaitPhase::Start => "start",
            GaitPhase::Loop => "loop",
            GaitPhase::Stop | GaitPhase::HoldTail => "stop",
        }
    }

    /// The clip as a Motion Frame names it (the stop tail of a command stop is `Hold`).
    pub fn motion_clip(self) -> MotionClip {
        match self {
            GaitPhase::Idle => MotionClip::Idle,
            GaitPhase::Turn => MotionClip::Turn,
            GaitPhase::Start => MotionClip::Start,
            GaitPhase::Loop => MotionClip::Loop,
            GaitPhase::Stop => MotionClip::Stop,
            GaitPhase::HoldTail => MotionClip::Hold,
        }
    }
}

/// The profile a new task of `kind` walks with: escape runs, everything else walks.
pub fn profile_for(kind: &ParentKind) -> u16 {
    match kind {
        ParentKind::Escape { .. } => RUNNING_INDEX,
        ParentKind::Rendezvous => WALKING_INDEX,
    }
}

/// A task ped's motion state (world state: the digest covers it).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Gait {
    /// Index of its profile in the world's table.
    pub profile: u16,
    /// Phase.
    pub phase: GaitPhase,
    /// Time in the phase's clip, seconds.
    pub clip_time_s: f64,
    /// Time in the loop cycle, seconds.
    pub cycle_time_s: f64,
    /// Motion serial: + 1 at every phase change.
    pub serial: u32,
    /// The goal stop's scale (remaining over authored distance).
    pub stop_scale: f64,
    /// Heading when the turn clip began, radians.
    pub turn_from_rad: f64,
    /// The turn the clip performs, radians (signed).
    pub turn_by_rad: f64,
    /// The last substep's budget `speed × dt`, meters.
    pub budget_m: f64,
    /// The last substep's proposed distance, meters.
    pub proposed_m: f64,
    /// The last substep's accepted displacement, meters.
    pub accepted_m: f64,
    /// Whether the last start or stop proposal was shortened by the binary search.
    pub searched: bool,
}

impl Gait {
    /// Where in its clip the gait is, for the Motion Frame: the clip, the time in it (the loop:
    /// its cycle time) and that time over the clip's duration (0 while idle).
    pub fn clip_frame(&self, p: &MotionProfile) -> ClipFrame {
        let (time_s, duration_s) = match self.phase {
            GaitPhase::Idle => (0.0, 0.0),
            GaitPhase::Turn => (self.clip_time_s, p.turn.progress.duration_s),
            GaitPhase::Start => (self.clip_time_s, p.start.duration_s),
            GaitPhase::Loop => (self.cycle_time_s, p.cycle.duration_s),
            GaitPhase::Stop | GaitPhase::HoldTail => (self.clip_time_s, p.stop.duration_s),
        };
        let phase = if duration_s > 0.0 {
            (time_s / duration_s).clamp(0.0, 1.0)
        } else {
            0.0
        };
        ClipFrame {
            clip: self.phase.motion_clip(),
            phase: phase as f32,
            time_s: time_s as f32,
        }
    }

    /// Switches to profile `index` (escape: running); the phase carries on.
    pub fn switch_profile(&mut self, index: u16) {
        self.profile = index;
    }

    /// Enters `phase` at clip time `clip_time_s` (serial + 1).
    pub fn enter(&mut self, phase: GaitPhase, clip_time_s: f64) {
        self.phase = phase;
        self.clip_time_s = clip_time_s;
        self.serial = self.serial.wrapping_add(1);
    }

    /// Settles (a new query, a suspension): standing, the profile kept.
    pub fn settle(&mut self) {
        if self.phase != GaitPhase::Idle {
            self.enter(GaitPhase::Idle, 0.0);
        }
        self.budget_m = 0.0;
        self.proposed_m = 0.0;
        self.accepted_m = 0.0;
    }

    /// A command stop: a moving ped plays the stop tail from its start, pose only; then idles.
    pub fn hold(&mut self, p: &MotionProfile, dt_s: f64) {
        if self.phase.moving() || self.phase == GaitPhase::Turn {
            self.enter(GaitPhase::HoldTail, p.stop_tail_start_s());
        }
        self.budget_m = 0.0;
        self.proposed_m = 0.0;
        self.accepted_m = 0.0;
        if self.phase == GaitPhase::HoldTail {
            let rate = play_rate(p.speed_m_s, p.reference_speed_m_s);
            self.clip_time_s = p.stop.duration_s.min(self.clip_time_s + dt_s * rate);
            if self.clip_time_s >= p.stop.duration_s {
                self.enter(GaitPhase::Idle, 0.0);
            }
        }
    }

    /// Advances the turn clip by `dt_s`; returns the heading and whether the turn is done.
    pub fn turn_step(&mut self, p: &MotionProfile, dt_s: f64) -> (f64, bool) {
        self.clip_time_s = p.turn.progress.duration_s.min(self.clip_time_s + dt_s);
        let progress = p.turn.progress_at(self.clip_time_s);
        let done = self.clip_time_s >= p.turn.progress.duration_s;
        let heading = self.turn_from_rad + self.turn_by_rad * if done { 1.0 } else { progress };
        (heading, done)
    }

    /// Begins the turn clip from `heading_rad` by `by_rad`.
    pub fn begin_turn(&mut self, heading_rad: f64, by_rad: f64) {
        self.turn_from_rad = heading_rad;
        self.turn_by_rad = by_rad;
        self.enter(GaitPhase::Turn, 0.0);
    }

    /// Begins the goal stop with `remaining_m` of route left.
    pub fn begin_stop(&mut self, p: &MotionProfile, remaining_m: f64) {
        let authored = p.stop.total_m();
        self.stop_scale = if authored > 0.0 {
            (remaining_m / authored).max(0.0)
        } else {
            0.0
        };
        self.enter(GaitPhase::Stop, 0.0);
    }

    /// The distance this substep proposes for the current phase (start, loop or stop), and the
    /// clip time it would reach (loop: unchanged).
    pub fn propose(&mut self, p: &MotionProfile, dt_s: f64) -> (f64, f64) {
        let speed = p.speed_m_s;
        let reference = p.reference_speed_m_s;
        let step = match self.phase {
            GaitPhase::Start => {
                budgeted_step(&p.start, self.clip_time_s, dt_s, speed, reference, 1.0)
            }
            GaitPhase::Stop => budgeted_step(
                &p.stop,
                self.clip_time_s,
                dt_s,
                speed,
                reference,
                self.stop_scale,
            ),
            _ => {
                let budget_m = speed.max(0.0) * dt_s;
                BudgetedStep {
                    time_s: self.clip_time_s,
                    distance_m: budget_m,
                    budget_m,
                    proposed_m: budget_m,
                    searched: false,
                }
            }
        };
        self.budget_m = step.budget_m;
        self.proposed_m = step.proposed_m;
        self.searched = step.searched;
        (step.distance_m, step.time_s)
    }

    /// Commits a substep that moved `accepted_m` with the clip at `time_s`: the start clip
    /// hands over to the loop when it ends; the loop's cycle advances by the accepted distance.
    /// Returns true when the goal stop clip has ended.
    pub fn commit(&mut self, p: &MotionProfile, accepted_m: f64, time_s: f64) -> bool {
        self.accepted_m = accepted_m;
        match self.phase {
            GaitPhase::Start => {
                self.clip_time_s = time_s;
                if time_s >= p.start.duration_s {
                    self.enter(GaitPhase::Loop, 0.0);
                }
                false
            }
            GaitPhase::Loop => {
                self.cycle_time_s = advance_cycle(
                    self.cycle_time_s,
                    accepted_m,
                    p.reference_speed_m_s,
                    p.cycle.duration_s,
                );
                false
            }
            GaitPhase::Stop => {
                self.clip_time_s = time_s;
                time_s >= p.stop.duration_s
            }
            _ => false,
        }
    }
}

impl Canonical for Gait {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.profile.to_le_bytes());
        bytes.push(self.phase.code());
        for v in [
            self.clip_time_s,
            self.cycle_time_s,
            self.stop_scale,
            self.turn_from_rad,
            self.turn_by_rad,
        ] {
            v.write_canonical(bytes);
        }
        self.serial.write_canonical(bytes);
    }
}

/// `angle` wrapped into (−π, π].
pub fn wrap_rad(angle: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let a = angle.rem_euclid(tau);
    if a > std::f64::consts::PI {
        a - tau
    } else {
        a
    }
}

#[cfg(test)]
#[path = "gait_tests.rs"]
mod tests;
