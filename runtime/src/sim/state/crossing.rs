//! Crossing records every phase reads: the per-agent crosswalk state machine's phase and
//! column, group membership and the signal phase (their rules live in `sim::crossings`).

use crate::project::Vec2;

use super::agents::Canonical;

/// No crosswalk bound (the `crosswalk` index of an unbound agent).
pub const NO_CROSSWALK: u16 = u16::MAX;

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

/// An agent's part in a group.
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
pub enum GroupRole {
    /// Not in a group.
    #[default]
    Alone,
    /// The group's first member: the others keep their slots behind it.
    Leader,
    /// Keeps formation slot `slot` behind the leader.
    Follower,
}

/// One agent's group membership (the `group` agent column).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupMember {
    /// Whether the assignment has been made (the first crossings phase after its birth).
    pub assigned: bool,
    /// Its role.
    pub role: GroupRole,
    /// Birth ordinal of the group's leader within its source.
    pub leader_ordinal: u32,
    /// Formation slot (0 for the leader).
    pub slot: u8,
    /// Its own walking speed, which formation corrections scale, m/s.
    pub base_speed_m_s: f64,
    /// Farther than [`REGROUP_M`](crate::sim::crossings::groups::REGROUP_M) from its slot, on the leader's heading.
    pub regrouping: bool,
}

impl Canonical for GroupMember {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.assigned.write_canonical(bytes);
        bytes.push(self.role as u8);
        self.leader_ordinal.write_canonical(bytes);
        bytes.push(self.slot);
        self.base_speed_m_s.write_canonical(bytes);
        self.regrouping.write_canonical(bytes);
    }
}

/// What a signal shows.
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
pub enum SignalPhase {
    /// Vehicles may pass (the gate is open unless someone still occupies the crossing).
    #[default]
    VehicleGreen,
    /// Nobody may start: vehicles stop, pedestrians wait (before and after the walk phase).
    AllStop,
    /// Pedestrians may start crossing; vehicles stop.
    PedestrianCrossing,
}

impl SignalPhase {
    /// A stable small number for digests.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A short name for panels.
    pub fn name(self) -> &'static str {
        match self {
            SignalPhase::VehicleGreen => "vehicle green",
            SignalPhase::AllStop => "all stop",
            SignalPhase::PedestrianCrossing => "pedestrian crossing",
        }
    }
}
