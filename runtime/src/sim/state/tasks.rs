//! Task records shared with the event log, the population and the knockdowns: task changes and
//! their reasons, task holds, install and release refusals and incident changes (the rules live
//! in `sim::tasks`), the task event the knockdowns log too, and [`TaskLedger`], what the phases
//! below the tasks ask of them.

use super::agents::AgentHandle;
use super::events::{EventDetail, EventKind, EventLog};

/// What happened to a task (the detail of an `EventKind::Task` event).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum TaskChange {
    /// A parent was installed (a rendezvous or an escape started).
    Installed,
    /// A command was refused.
    Refused(InstallRefusal),
    /// A path query was queued.
    PathQueued,
    /// A reply was installed: the movement walks.
    PathInstalled,
    /// A reply was stale and dropped.
    Stale(StaleReply),
    /// The movement replanned.
    Replanned(ReplanCause),
    /// The movement failed.
    MoveFailed(MoveFailure),
    /// The parent consumed a failure (failure count + 1, → AwaitingDecision).
    FailureConsumed,
    /// The movement arrived.
    Arrived,
    /// The parent completed.
    Completed,
    /// Hold: → WaitingForSignal.
    Held,
    /// Continue: → Travelling.
    Continued,
    /// Redirect: a new goal and generation, the same session.
    Redirected,
    /// Cancel: the parent and its movement closed.
    Cancelled,
    /// An active parent of the same source was replaced by a new task.
    Replaced,
    /// The body was suspended (knockdown).
    Suspended,
    /// The body was released; the movement replans from its actual position.
    Resumed,
    /// A `Stand` began a timed standing (until its deadline frame).
    Standing,
    /// The clock released a timed standing.
    StandingEnded,
    /// A higher-priority task was installed over this one: it is suspended, intent kept.
    Preempted,
    /// The higher-priority task ended and released its suspension: this one replans from the
    /// ped's position to its retained goal.
    Restored,
    /// The ped's event changed (queued, started or ended; see [`incidents`](crate::sim::tasks::incidents)).
    Incident(IncidentChange),
}

impl TaskChange {
    /// Stable small numbers for digests: the variant, then its reason (0 when it has none).
    pub fn codes(self) -> (u8, u8) {
        match self {
            TaskChange::Installed => (0, 0),
            TaskChange::Refused(r) => (1, r as u8),
            TaskChange::PathQueued => (2, 0),
            TaskChange::PathInstalled => (3, 0),
            TaskChange::Stale(r) => (4, r as u8),
            TaskChange::Replanned(c) => (5, c as u8),
            TaskChange::MoveFailed(f) => {
                let (kind, detail) = f.code();
                (6, kind << 4 | detail)
            }
            TaskChange::FailureConsumed => (7, 0),
            TaskChange::Arrived => (8, 0),
            TaskChange::Completed => (9, 0),
            TaskChange::Held => (10, 0),
            TaskChange::Continued => (11, 0),
            TaskChange::Redirected => (12, 0),
            TaskChange::Cancelled => (13, 0),
            TaskChange::Replaced => (14, 0),
            TaskChange::Suspended => (15, 0),
            TaskChange::Resumed => (16, 0),
            TaskChange::Standing => (17, 0),
            TaskChange::StandingEnded => (18, 0),
            TaskChange::Preempted => (19, 0),
            TaskChange::Restored => (20, 0),
            TaskChange::Incident(c) => (21, c as u8),
        }
    }
}

/// What of a ped's tasks and events keeps population from retiring it, in the order the
/// population specification checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskHold {
    /// A submitted task not yet executing: its movement waits for a path, or it is suspended
    /// under a higher-priority task that is itself no longer active.
    Pending,
    /// An active directive parent (travelling, waiting for a signal, awaiting a decision).
    Active,
    /// A current event.
    CurrentEvent,
    /// An event candidate waiting for the next Tasks update.
    QueuedEvent,
}

/// Why a stop cause's release was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReleaseRefusal {
    /// The cause is not set.
    NotSet,
    /// Someone else owns it.
    NotOwner,
}

/// What the population and the knockdowns ask of the task sets, which live above them
/// (`sim::tasks::TaskState` implements it): the phases below the tasks are generic over it, so
/// they name no task module and the calls stay statically dispatched.
pub trait TaskLedger {
    /// What keeps the ped from retirement, if anything (in [`TaskHold`]'s order).
    fn hold_of(&self, handle: AgentHandle) -> Option<TaskHold>;

    /// The session of the ped's directive parent (0 without one).
    fn session_of(&self, handle: AgentHandle) -> u32;

    /// A pooled ped was acquired for readmission: what its ended tasks left behind (a closed
    /// movement kept for diagnostics) gives up position and heading authority, so the ped is
    /// attached, and walks, at its newly admitted candidate.
    fn relinquish(&mut self, handle: AgentHandle);

    /// Ends the body suspension the knockdown of `recovery_session` set, replanning an active
    /// parent's movement from `position`; returns the resumed movement's generation, if one
    /// resumed.
    fn release_body(
        &mut self,
        handle: AgentHandle,
        recovery_session: u32,
        position: [f64; 3],
        heading_rad: f64,
    ) -> Result<Option<u32>, ReleaseRefusal>;
}

/// Why a task command was refused.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum InstallRefusal {
    /// Another source's active or pending primary task holds the ped.
    OtherSourceTask,
    /// The ped occupies a vehicle seat (`SetVehicleRelation(relation: Seated)`).
    Occupancy,
    /// The ped intends to enter or leave a vehicle.
    VehicleIntent,
    /// The ped is entering or leaving a vehicle (`Entering` or `Exiting`).
    EntryExit,
    /// The body is suspended (knocked down).
    BodySuspended,
    /// The command needs an active parent and there is none (none, completed or cancelled).
    NoActiveParent,
    /// The parent is not in a state this command accepts.
    WrongState,
    /// The command names a scene object the scenario does not have.
    UnknownObject,
    /// No escape candidate qualified: no response was started (not a failure).
    EscapeNotAccepted,
    /// The selected escape goal is not beyond safe + 0.15 m from the threat.
    EscapeGoalTooClose,
    /// The ped already has a queued event response (its pending primary slot is taken).
    ResponsePending,
    /// Processing: the event is no longer the ped's queued event (identity).
    EventIdentity,
    /// Processing: the ped's pending primary slot no longer names the event.
    PendingSlot,
    /// Processing: the ped's tasks are suppressed (it is pooled).
    Suppressed,
    /// The event type maps to another response (the mapping is never overwritten).
    IncompatibleMapping,
    /// The command names a session tag the ped's task does not have.
    SessionMismatch,
    /// The command's source does not own the ped's task.
    NotTaskSource,
    /// An input (threat, endpoint, safe distance) is not finite.
    NonFiniteInput,
}

/// What a Tasks update did to one ped's event.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum IncidentChange {
    /// A directive queued a candidate.
    Queued,
    /// The candidate became the current event.
    Started,
    /// The current event ended.
    Ended,
}

/// Why a movement failed.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum MoveFailure {
    /// The path service found no path.
    Query(PathFailure),
    /// The reply had no points.
    EmptyPath,
    /// The path's endpoint is farther than [`ENDPOINT_TOLERANCE_M`](crate::sim::tasks::movement::ENDPOINT_TOLERANCE_M) from the goal on some axis.
    EndpointOutsideTolerance,
    /// More replans than [`MAX_REPLANS`](crate::sim::tasks::failure::MAX_REPLANS).
    ReplansExhausted,
    /// An escape arrived no farther than the safe distance from its threat.
    UnsafeAtArrival,
}

impl MoveFailure {
    /// `(kind, detail)`: stable small numbers.
    pub fn code(self) -> (u8, u8) {
        match self {
            MoveFailure::Query(why) => (0, why.code()),
            MoveFailure::EmptyPath => (1, 0),
            MoveFailure::EndpointOutsideTolerance => (2, 0),
            MoveFailure::ReplansExhausted => (3, 0),
            MoveFailure::UnsafeAtArrival => (4, 0),
        }
    }
}

/// Why a reply was not installed.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum StaleReply {
    /// It answers another generation.
    GenerationMismatch,
    /// No query is pending.
    NothingPending,
}

/// Why a movement replanned.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum ReplanCause {
    /// Its step was blocked longer than [`BLOCKED_REPLAN_S`](crate::sim::tasks::failure::BLOCKED_REPLAN_S).
    Blocked,
    /// It made no progress for longer than [`NO_PROGRESS_REPLAN_S`](crate::sim::tasks::failure::NO_PROGRESS_REPLAN_S).
    NoProgress,
    /// The body was released after a suspension (replanned from its actual position).
    Resumed,
}

/// Why a query found no path.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum PathFailure {
    /// The start is farther than [`MAX_PROJECTION_M`](crate::sim::tasks::paths::MAX_PROJECTION_M) from any walkable cell.
    StartOffGrid,
    /// The goal is farther than [`MAX_PROJECTION_M`](crate::sim::tasks::paths::MAX_PROJECTION_M) from any walkable cell.
    GoalOffGrid,
    /// Start and goal are not connected.
    NoPath,
    /// The search expanded [`MAX_EXPANSIONS`](crate::sim::tasks::paths::MAX_EXPANSIONS) nodes without reaching the goal.
    ExpansionLimit,
    /// A coordinate is not finite.
    NonFinite,
}

impl PathFailure {
    /// A stable small number for digests.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// Logs one task transition.
pub(in crate::sim) fn log_task(
    events: &mut EventLog,
    frame: u64,
    handle: AgentHandle,
    source: Option<u16>,
    session: u32,
    generation: u32,
    change: TaskChange,
) {
    let detail = EventDetail::Task {
        session,
        generation,
        change,
    };
    events.push(frame, EventKind::Task, Some(handle), source, detail);
}
