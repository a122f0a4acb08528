//! The per-agent crosswalk state machine: Approach → Requested → Waiting → Crossing → Clearing
//! (at 95 %) → Completed → Approach (after leaving the entry range), with everything the
//! machine needs saved on the agent (entry, exit, waiting point, alpha, waiting time, lane,
//! queue slot, completions), so it runs and restores without any presentation.

use crate::project::Vec2;
use crate::sim::agents::Canonical;

/// No crosswalk bound (the `crosswalk` index of an unbound agent).
pub const NO_CROSSWALK: u16 = u16::MAX;
/// A crosser enters Clearing at this crossing fraction (seed: 95 %).
pub const CLEARING_ALPHA: f64 = 0.95;
/// A controlled walker is at its target within this distance, meters.
pub const AT_TARGET_M: f64 = 0.02;

/// Where an agent stands in one crosswalk transaction.
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
)]
pub enum CrosswalkPhase {
    /// Walking its route; not (or no longer) bound to a crossing transaction.
    #[default]
    Approach,
    /// Just bound to a crosswalk: demand is formed this step (counts as waiting).
    Requested,
    /// Standing at its queue slot until pedestrians may cross.
    Waiting,
    /// Committed and crossing: the conflict zone is occupied, the gate is closed.
    Crossing,
    /// Committed, past 95 % of the crossing: still occupying, still closing the gate.
    Clearing,
    /// The transaction ended at the exit; back to Approach after leaving the entry range.
    Completed,
}

impl CrosswalkPhase {
    /// Every phase, in code order.
    pub const ALL: [CrosswalkPhase; 6] = [
        CrosswalkPhase::Approach,
        CrosswalkPhase::Requested,
        CrosswalkPhase::Waiting,
        CrosswalkPhase::Crossing,
        CrosswalkPhase::Clearing,
        CrosswalkPhase::Completed,
    ];

    /// A stable small number for digests and colours.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A short name for panels and logs.
    pub fn name(self) -> &'static str {
        match self {
            CrosswalkPhase::Approach => "approach",
            CrosswalkPhase::Requested => "requested",
            CrosswalkPhase::Waiting => "waiting",
            CrosswalkPhase::Crossing => "crossing",
            CrosswalkPhase::Clearing => "clearing",
            CrosswalkPhase::Completed => "completed",
        }
    }

    /// Committed to the crossing and occupying the conflict zone (closes the vehicle gate).
    pub fn occupies(self) -> bool {
        matches!(self, CrosswalkPhase::Crossing | CrosswalkPhase::Clearing)
    }

    /// Forms or keeps pedestrian demand (Requested and Waiting).
    pub fn demands(self) -> bool {
        matches!(self, CrosswalkPhase::Requested | CrosswalkPhase::Waiting)
    }

    /// Forced Full by the tiers (Requested, Waiting, Crossing, Clearing).
    pub fn forces_full(self) -> bool {
        self.demands() || self.occupies()
    }
}

/// One agent's crosswalk state (the `crosswalk` agent column).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct CrosswalkAgent {
    /// The phase.
    pub phase: CrosswalkPhase,
    /// Index of the bound crosswalk in the space ([`NO_CROSSWALK`] when unbound).
    pub crosswalk: u16,
    /// The entry side (0 or 1) chosen on binding: the nearer one.
    pub entry_side: u8,
    /// Entry kerb point plus the lateral offset, meters.
    pub entry: Vec2,
    /// Exit kerb point plus the lateral offset, meters.
    pub exit: Vec2,
    /// Where the agent waits: `entry − direction × queue distance`, meters.
    pub waiting: Vec2,
    /// Crossing fraction from entry (0) to exit (1), by projection.
    pub alpha: f64,
    /// Seconds spent in Requested and Waiting in this transaction.
    pub waiting_s: f64,
    /// Lateral offset of its crossing lane (to the right of its crossing direction), meters.
    pub lateral_m: f64,
    /// Distance of its queue row behind the entry, meters.
    pub queue_m: f64,
    /// Queue slot: `slot % lanes` is the lane, `slot / lanes` the row.
    pub slot: u16,
    /// Route distance of the exit kerb, where walking resumes, meters.
    pub exit_distance_m: f64,
    /// Route direction when it bound (a turn-back while Completed ends the transaction).
    pub bound_direction: i8,
    /// Crossings this agent completed.
    pub completed: u32,
    /// Held this step short of a full queue (walking does not move it).
    pub held: bool,
}

impl Default for CrosswalkAgent {
    fn default() -> Self {
        CrosswalkAgent {
            phase: CrosswalkPhase::Approach,
            crosswalk: NO_CROSSWALK,
            entry_side: 0,
            entry: Vec2::default(),
            exit: Vec2::default(),
            waiting: Vec2::default(),
            alpha: 0.0,
            waiting_s: 0.0,
            lateral_m: 0.0,
            queue_m: 0.0,
            slot: 0,
            exit_distance_m: 0.0,
            bound_direction: 0,
            completed: 0,
            held: false,
        }
    }
}

impl CrosswalkAgent {
    /// Whether the crossings move this agent this step instead of walking (bound and not yet
    /// completed, or held short of a full queue).
    pub fn controls_motion(&self) -> bool {
        self.held || self.phase.forces_full()
    }

    /// Whether it is bound to a crosswalk.
    pub fn is_bound(&self) -> bool {
        self.crosswalk != NO_CROSSWALK
    }

    /// Ends the transaction and unbinds, keeping the completion count.
    pub fn unbind(&mut self) {
        *self = CrosswalkAgent {
            completed: self.completed,
            ..CrosswalkAgent::default()
        };
    }

    /// The crossing fraction of `p`: its projection on entry → exit over the crossing length.
    pub fn alpha_of(&self, p: Vec2) -> f64 {
        let (dx, dy) = (self.exit.x - self.entry.x, self.exit.y - self.entry.y);
        let length_sq = dx * dx + dy * dy;
        if length_sq <= 0.0 {
            return 1.0;
        }
        ((p.x - self.entry.x) * dx + (p.y - self.entry.y) * dy) / length_sq
    }
}

impl Canonical for CrosswalkAgent {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.phase.code());
        self.crosswalk.write_canonical(bytes);
        bytes.push(self.entry_side);
        for v in [self.entry, self.exit, self.waiting] {
            v.write_canonical(bytes);
        }
        for f in [
            self.alpha,
            self.waiting_s,
            self.lateral_m,
            self.queue_m,
            self.exit_distance_m,
        ] {
            f.write_canonical(bytes);
        }
        self.slot.write_canonical(bytes);
        self.bound_direction.write_canonical(bytes);
        self.completed.write_canonical(bytes);
        self.held.write_canonical(bytes);
    }
}

/// Moves `from` towards `to` by at most `stride_m`; returns the new point.
pub fn step_towards(from: Vec2, to: Vec2, stride_m: f64) -> Vec2 {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let distance = dx.hypot(dy);
    if distance <= stride_m || distance <= AT_TARGET_M {
        return to;
    }
    Vec2 {
        x: from.x + dx / distance * stride_m,
        y: from.y + dy / distance * stride_m,
    }
}

/// Distance between two points, meters.
pub fn distance_m(a: Vec2, b: Vec2) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// The point of polyline `points` closest to `p`: `(offset_m, along_m)`, its distance from `p`
/// and its distance along the polyline from the first point (the first segment wins a tie);
/// `None` when no segment has a length.
pub fn closest_on_polyline(points: &[Vec2], p: Vec2) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    let mut start_m = 0.0;
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let length = dx.hypot(dy);
        if length > 0.0 {
            let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / (length * length)).clamp(0.0, 1.0);
            let off = (p.x - a.x - dx * t).hypot(p.y - a.y - dy * t);
            if best.is_none_or(|(d, _)| off < d) {
                best = Some((off, start_m + t * length));
            }
        }
        start_m += length;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_that_force_full_are_the_four_transaction_phases() {
        let forced: Vec<&str> = CrosswalkPhase::ALL
            .iter()
            .filter(|p| p.forces_full())
            .map(|p| p.name())
            .collect();
        assert_eq!(forced, ["requested", "waiting", "crossing", "clearing"]);
        let occupying: Vec<&str> = CrosswalkPhase::ALL
            .iter()
            .filter(|p| p.occupies())
            .map(|p| p.name())
            .collect();
        assert_eq!(occupying, ["crossing", "clearing"]);
    }

    #[test]
    fn alpha_is_the_projection_on_entry_to_exit() {
        let agent = CrosswalkAgent {
            entry: Vec2 { x: 0.0, y: -3.5 },
            exit: Vec2 { x: 0.0, y: 3.5 },
            ..CrosswalkAgent::default()
        };
        assert_eq!(agent.alpha_of(Vec2 { x: 0.3, y: 0.0 }), 0.5);
        assert!((agent.alpha_of(Vec2 { x: 0.0, y: 3.15 }) - 0.95).abs() < 1e-12);
        assert!(agent.alpha_of(Vec2 { x: 0.0, y: -4.25 }) < 0.0);
    }

    #[test]
    fn unbinding_keeps_only_the_completion_count() {
        let mut agent = CrosswalkAgent {
            phase: CrosswalkPhase::Completed,
            crosswalk: 2,
            completed: 3,
            slot: 4,
            ..CrosswalkAgent::default()
        };
        agent.unbind();
        assert_eq!(
            agent,
            CrosswalkAgent {
                completed: 3,
                ..CrosswalkAgent::default()
            }
        );
    }
}
