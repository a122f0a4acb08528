//! The scenario runtime: a fixed-step world of pedestrians walking the routes of a pedestrian
//! space, driven by a scenario's sources and directives, with snapshots and checkpoints.
//!
//! One [`World::step`] advances one frame through fixed phases — Control (population births),
//! Tasks (directives due this frame), Motion (walking), Commit (counters) — so the same scenario,
//! routes and seed always give the same state, whether stepped straight through or restored from
//! a [`Snapshot`].

mod agents;
mod routes;
mod snapshot;
mod timeline;
mod world;

pub use agents::{AgentHandle, AgentState, Agents};
pub use routes::{RouteError, SimRoute};
pub use snapshot::{Snapshot, SnapshotError};
pub use timeline::{Timeline, CHECKPOINT_INTERVAL_FRAMES};
pub use world::{Counters, SimError, SpawnRejection, World, WorldConfig};

#[cfg(test)]
mod tests;
