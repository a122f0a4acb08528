//! The scenario runtime: a fixed-step world of pedestrians walking the routes of a pedestrian
//! space, driven by a scenario's sources and directives, with snapshots and checkpoints.
//!
//! A world is built in the runtime from generated content and a compiled scenario:
//! [`SimSpace::from_products`] turns a bundle's products into the space (routes, crosswalks with
//! their sides and waiting points, signals, portals, lanes, props as static blockers; with the
//! scenario's scene objects and barriers they are the world's obstacle set, `sim::obstacles`),
//! [`CompiledScenario::compile`] turns a scenario document into runtime types with diagnostics,
//! and [`build_world`] joins them. The editor and `stagecraft simulate` call exactly these.
//!
//! One [`World::step`] advances one frame through fixed phases — Control (one observation, the
//! cycle clocks), Population (vehicle cycles, then ped cycles: retirement, spillover, demands,
//! admission, realization), Tasks (directives due this frame, path replies, parents),
//! Crossings (signals, crosswalk binding and crossing, the vehicle gate), Motion (walking, the
//! liveness guard, task movements, path answers, gated vehicles),
//! Commit (staged births and removals, counters) — so the same scenario,
//! routes and seed always give the same state, whether stepped straight through or restored from
//! a [`Snapshot`].
//!
//! ## Layers
//! Bottom first. A module names only modules of lower layers (never its own layer's peers,
//! never a layer above); `tests/tests/sim_layers.rs` checks every production file against
//! this list, and a module missing from it fails that test.
//! 1. geometry — `spatial`, `routes`, `problems`
//! 2. content — `space`
//! 3. state — `state`
//! 4. configuration — `config`
//! 5. compiler — `scenario`
//! 6. observation — `observers`
//! 7. camera — `camera`
//! 8. scene — `obstacles`
//! 9. walking — `walk`
//! 10. crossings — `crossings`
//! 11. motion — `motion`
//! 12. population — `population`
//! 13. knockdown — `knockdown`
//! 14. tasks — `tasks`
//! 15. world — `world`
//! 16. tools — `snapshot`, `history`, `trajectory`, `capacity`, `bench_support`, `flow`
//! 17. checkpoints — `timeline`
//! 18. estimates — `budget`

#[cfg(any(test, feature = "bench-support"))]
mod bench_support;
pub mod budget;
pub mod camera;
mod capacity;
pub mod config;
pub mod crossings;
pub mod flow;
mod history;
pub mod knockdown;
pub mod motion;
pub mod observers;
pub mod obstacles;
pub mod population;
pub mod problems;
mod routes;
pub mod scenario;
mod snapshot;
pub mod space;
pub mod spatial;
pub mod state;
pub use state::{events, slots};
pub mod tasks;
mod timeline;
pub mod trajectory;
pub mod walk;
mod world;

#[cfg(any(test, feature = "bench-support"))]
pub use bench_support::{
    banded_digests, directed_street_world, long_street_world, observed_street_world,
    two_way_street_of, two_way_street_world, STREET_SPACING_M, STREET_WALK_SPEED_M_S,
    TWO_WAY_STREET_M,
};
pub use budget::{SimEstimate, MAX_SIM_WORK};
pub use camera::CameraObserver;
pub use config::{
    BarrierSpec, Command, CompiledScenario, CrossingSettings, DirectiveSpec, DirectiveTarget,
    HazardSpec, MotionConfig, ObserverKey, ObserverSpec, Obstacle, PopulationParams,
    SceneObjectSpec, SimBox, SourceConfig, SourceSpec, VehicleSourceSpec, WorldConfig,
};
pub use crossings::{
    AgentCrossing, CrossingSample, CrossingStats, CrossingsState, CrosswalkReport, SignalState,
    CROSSING_SAMPLE_NAMES,
};
pub use flow::{FlowReport, FlowWatch};
pub use history::{CounterHistory, MAX_HISTORY_FRAMES};
pub use motion::frames::{
    AgentTags, AnimationParams, ClipFrame, FrameGroup, FrameVec2, MotionClip, MotionFrame,
};
pub use motion::publish::{Frames, MotionFrames};
pub use motion::why::{TierCause, TierWhy};
pub use motion::MotionCounters;
pub use observers::{Observation, ObserverState, View};
pub use obstacles::{ObstacleOrigin, ObstacleSet, SceneObstacle};
pub use population::{
    Boxes, CandidateMark, FrameSpawnReport, PlaceOutcome, PopulationState, SourceStatus,
    SpawnReport,
};
pub use problems::{SimBuildError, SimDiagnostic, SimProblem};
pub use routes::{
    RouteConnection, RouteError, RoutePath, RoutePoint, RouteSpan, RouteTable, SimRoute,
    DEFAULT_ROUTE_WIDTH_M,
};
pub use snapshot::file::{
    read_header as read_snapshot_header, SnapshotEncodeError, SnapshotFileError, SnapshotHeader,
    SNAPSHOT_FORMAT_VERSION, SNAPSHOT_MAGIC,
};
pub use snapshot::{Snapshot, SnapshotError};
pub use space::{
    SimCrosswalk, SimCrosswalkSide, SimHlod, SimLane, SimPortal, SimSignal, SimSpace, SimStreaming,
    SpaceBuildError, StaticBlocker,
};
pub use state::agents::{AgentHandle, AgentId, AgentRow, AgentState, Agents, Canonical};
pub use state::events::{Event, EventDetail, EventKind, EventLog, EventPosition, RemovalCause};
pub use state::slots::{SlotError, Slots};
pub use state::Counters;
pub use state::InstallRefusal;
pub use state::MoveFailure;
pub use state::TaskChange;
pub use state::Tier;
pub use state::{CandidateRejection, WaitReason, WalkDecision};
pub use state::{ClaimRefusal, RetireRefusal, RetireRule, SpawnRejection};
pub use state::{
    CrosswalkAgent, CrosswalkPhase, GroupMember, GroupRole, Liveness, SignalPhase, StuckReason,
};
pub use tasks::movement::{MotionState, Movement};
pub use tasks::parent::{DirectiveParent, ParentKind, ParentState};
pub use tasks::stops::{StopCause, StopCauses, StopOwner};
pub use tasks::TaskState;
pub use timeline::{Timeline, CHECKPOINT_INTERVAL_FRAMES, MAX_CHECKPOINTS};
pub use trajectory::{TrajectoryColumns, TrajectoryRow};
pub use world::{build_world, AgentDetail, World, RECENT_CANDIDATES};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod build_tests;

#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod flow_tests;
#[cfg(test)]
mod parallel_tests;
#[cfg(test)]
mod scene_tests;
#[cfg(test)]
mod schema_tests;
