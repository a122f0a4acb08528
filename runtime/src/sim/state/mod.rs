//! The bottom layer of the simulation's state: the agent columns, slots and handles, the event
//! log, the world's counters and every element type that more than one phase shares (tiers,
//! walk decisions, crossing and group records, the progress watch, refusal and rejection enums,
//! knockdown and task records, vehicle rows). It imports nothing above it: only the base
//! modules (`spatial`, `routes`, `space`, `problems`) and crate-level value types.

pub mod agents;
pub mod body;
pub mod counters;
pub mod crossing;
pub mod events;
pub mod knockdown;
pub mod liveness;
pub mod ped_events;
pub mod population;
pub mod recognition;
pub mod slots;
pub mod tasks;
pub mod tier;
pub mod walking;

pub use agents::{AgentHandle, AgentId, AgentRow, AgentState, Agents, Canonical};
pub use counters::Counters;
pub use crossing::{
    CrosswalkAgent, CrosswalkPhase, GroupMember, GroupRole, SignalPhase, NO_CROSSWALK,
};
pub use events::{
    BoxChange, BoxSlot, Event, EventDetail, EventKind, EventLog, EventPosition, RemovalCause,
    Unresolved, EVENTS_PER_KIND, EVENT_KINDS,
};
pub use knockdown::{KnockdownReason, RecoveryPhase};
pub(in crate::sim) use liveness::restart_watch;
pub use liveness::{
    quiet_watches, watch, Liveness, StuckReason, Verdict, WatchColumns, PROGRESS_M,
};
pub use ped_events::{PedEvent, PedEventEnd, PedEventState, PedEventType, PedEvents, PedResponse};
pub use population::{ClaimRefusal, RetireRefusal, RetireRule, SpawnRejection, Vehicles};
pub use recognition::Recognition;
pub use slots::{SlotError, Slots};
pub(in crate::sim) use tasks::log_task;
pub use tasks::{
    IncidentChange, InstallRefusal, MoveFailure, PathFailure, ReleaseRefusal, ReplanCause,
    StaleReply, TaskChange, TaskHold, TaskLedger,
};
pub use tier::Tier;
pub use walking::{CandidateRejection, WaitReason, WalkDecision};
