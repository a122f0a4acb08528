//! A walker's decision each step and its reasons (the walking itself lives in `sim::walk`).

use super::agents::Canonical;

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
