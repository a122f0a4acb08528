//! Walking along routes with local avoidance (the seed's formal Sidewalk adapter): routes commit
//! movement, avoidance only suggests steering.
//!
//! One walker's step, in order: complete its connection if it stands at the goal (`progress`);
//! buy a physical step with its route budget; shorten it behind a same-direction leader that
//! is moving (`follow`; one standing still is a body to pass); aim along its lane — it keeps
//! the lateral offset it walks at, keeps left (leaning back to the line from right of it, and
//! further left while an oncoming body is ahead, the side the fan's +0.03 passes on), and
//! narrows onto the line over the last 4 m before the goal; then the shared steering helper
//! (`steer`, also the task movements') tries the fan best first (`fan`) — each candidate must
//! stay on the walkway, respect the connection's longitudinal bounds, clear static blockers
//! (with a forward exit for a sidestep when static geometry blocks the straight way, `ground`),
//! pass the predicted body test against every neighbour at another heading within the opposing
//! scan (`body`), and its shorter executed step must clear every body, so a refused step never
//! hides a safe candidate behind it. Progress is the longitudinal projection of the accepted
//! displacement. With no safe candidate the walker waits: no progress, no position change —
//! except that after 0.5 s blocked by bodies it gives way once per step through the same fan
//! around its left-hand direction (a step back allowed, never any progress for it), so two
//! walkers face to face part instead of waiting for each other for ever. Every outcome is a
//! [`WalkDecision`] with its reason.
//!
//! Walkers update in row order and read their neighbours' current positions, so a step is
//! checked against bodies that already moved this step and is seen by those that move later.

pub mod body;
pub mod fan;
pub mod follow;
pub mod ground;
pub mod neighbours;
pub mod progress;
pub mod steer;
mod step;

#[cfg(test)]
mod tests;

pub use step::{walk_agent, Avoidance, Neighbour, Scratch, WalkEnv};

use super::agents::Canonical;
use super::spatial::SpatialGrid;
use fan::Fan;

/// Lookahead distance of a candidate's predicted endpoint, meters.
pub const LOOKAHEAD_M: f64 = 1.0;
/// Bodies within this horizontal distance are a walker's neighbours, meters.
pub const OPPOSING_SCAN_M: f64 = 2.5;
/// The route corridor: a walker's lateral offset from its route's line stays within this
/// whatever its avoidance, lane keeping or group corrections ask (the walkway's width bounds it
/// further where narrower), meters (motion seed: 65 cm).
pub const ROUTE_CORRIDOR_M: f64 = 0.65;
/// Window over which a body's velocity is observed, seconds.
pub const VELOCITY_WINDOW_S: f64 = 0.2;
/// Cell of the neighbour grid, meters: 0.7 × the opposing scan. A walker's scan reaches about
/// four grid rows, one run of slots each; smaller cells hug its disc closer but hand out more,
/// shorter runs, and each run costs about as much as a block of bodies (at 1.25 m the two-way
/// street stepped about 5 % slower), while larger ones file too many bodies beyond the disc
/// (the neighbours found, and so every decision, are the same whatever the cell).
pub const NEIGHBOUR_CELL_M: f64 = 0.7 * OPPOSING_SCAN_M;

/// Why a steering candidate (or the executed step) was refused.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum CandidateRejection {
    /// The body would leave the walkway.
    OffWalkway,
    /// It would move backward along the connection.
    ReverseProjection,
    /// It would pass the connection's end.
    BeyondEnd,
    /// It would end inside the end band too far sideways from the goal.
    FarFromGoal,
    /// The swept body touches a static blocker.
    StaticBlocker,
    /// A sidestep whose way forward along the route is blocked.
    NoForwardExit,
    /// The predicted body test fails against a neighbour.
    BodyConflict,
}

impl CandidateRejection {
    /// A stable small number for digests.
    pub fn code(self) -> u8 {
        match self {
            CandidateRejection::OffWalkway => 0,
            CandidateRejection::ReverseProjection => 1,
            CandidateRejection::BeyondEnd => 2,
            CandidateRejection::FarFromGoal => 3,
            CandidateRejection::StaticBlocker => 4,
            CandidateRejection::NoForwardExit => 5,
            CandidateRejection::BodyConflict => 6,
        }
    }
}

/// Why a walker kept its position this step.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum WaitReason {
    /// Its route budget buys no distance (zero speed or a degenerate connection).
    NoBudget,
    /// A same-direction leader leaves no room ahead.
    NoRoomBehindLeader,
    /// No fan candidate is safe; the straight one was refused for this reason.
    NoSafeCandidate(CandidateRejection),
    /// The chosen candidate's shorter executed step was refused.
    StepRejected(CandidateRejection),
}

/// What a walker did in its last Motion phase.
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
pub enum WalkDecision {
    /// It was not walking (holding, travelling, arrived, fleeing), or not stepped yet.
    #[default]
    Idle,
    /// Straight along the desired direction with its full budget.
    Straight,
    /// Straight, its step shortened behind a same-direction leader.
    Following,
    /// Along a fan candidate other than 0° (the angle, degrees).
    Steered(i8),
    /// It completed its connection: turned back at the route's end (no step this time).
    TurnedBack,
    /// Blocked by bodies for a while, it gave way along a fan candidate around its left-hand
    /// direction (the angle, degrees), earning no progress.
    Yielded(i8),
    /// It kept its position.
    Waiting(WaitReason),
    /// It stands at its route's goal: its walk is complete (a source that stops at the route's
    /// end).
    Completed,
}

impl WalkDecision {
    /// `(kind, detail)`: stable small numbers for digests and colours.
    pub fn code(self) -> (u8, u8) {
        match self {
            WalkDecision::Idle => (0, 0),
            WalkDecision::Straight => (1, 0),
            WalkDecision::Following => (2, 0),
            WalkDecision::Steered(angle) => (3, angle as u8),
            WalkDecision::TurnedBack => (4, 0),
            WalkDecision::Waiting(WaitReason::NoBudget) => (5, 0),
            WalkDecision::Waiting(WaitReason::NoRoomBehindLeader) => (6, 0),
            WalkDecision::Waiting(WaitReason::NoSafeCandidate(r)) => (7, r.code()),
            WalkDecision::Waiting(WaitReason::StepRejected(r)) => (8, r.code()),
            WalkDecision::Yielded(angle) => (9, angle as u8),
            WalkDecision::Completed => (10, 0),
        }
    }

    /// Whether the walker kept its position.
    pub fn is_waiting(self) -> bool {
        matches!(self, WalkDecision::Waiting(_))
    }
}

impl Canonical for WalkDecision {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        let (kind, detail) = self.code();
        bytes.extend_from_slice(&[kind, detail]);
    }
}

/// What the Motion phase keeps between steps for walking: derived data and scratch buffers,
/// never state (a snapshot does not hold it; it is rebuilt from the agents and the space).
#[derive(Clone, Debug, Default)]
pub struct WalkState {
    /// Neighbour grid over the agents' positions at the start of the phase.
    pub(in crate::sim) grid: SpatialGrid,
    /// Surroundings of the walker being stepped.
    pub(in crate::sim) scratch: Scratch,
    /// The steering fan.
    pub(in crate::sim) fan: Fan,
}

impl WalkState {
    /// Heap bytes held by the grid and scratch buffers.
    pub fn heap_bytes(&self) -> usize {
        self.grid.heap_bytes()
            + self.scratch.neighbours.capacity() * std::mem::size_of::<Neighbour>()
            + self.scratch.bodies.heap_bytes()
            + (self.scratch.blockers.capacity() + self.scratch.far_blockers.capacity())
                * std::mem::size_of::<(crate::project::Vec2, f64)>()
            + (self.scratch.shapes.capacity() + self.scratch.far_shapes.capacity())
                * std::mem::size_of::<crate::sim::config::Obstacle>()
    }
}
