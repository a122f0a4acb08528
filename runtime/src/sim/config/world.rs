//! The world's configuration: the compiled scenario over its space with every source resolved
//! (routes and lanes to indices), the seed and the configuration digest a snapshot must match.

use std::sync::Arc;

use super::scenario::CompiledScenario;
use crate::project::PopulationKind;
use crate::sim::routes::{RouteSpan, RouteTable, SimRoute};
use crate::sim::space::SimSpace;

/// One population source as the world runs it: its compiled spec with the route resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceConfig {
    /// The source's id.
    pub id: String,
    /// Ambient or Mission.
    pub kind: PopulationKind,
    /// Index of its route in the space.
    pub route: u16,
    /// Where its route's points lie in the flat route-point table (`WorldConfig::route_points`).
    pub route_span: RouteSpan,
    /// How many agents it keeps alive.
    pub target_count: u32,
    /// Mean walking speed, meters per second.
    pub walk_speed_m_s: f64,
    /// Attached peds (ambient and mission) it may host.
    pub capacity: u32,
    /// Peds one demand creates at once.
    pub batch_size: u32,
    /// Appearance family index its peds need (`population::NO_BINDING` for none).
    pub binding: u16,
    /// Authored candidate progresses, meters (empty: drawn).
    pub candidates_m: Vec<f64>,
    /// The removal multiplier every admission applies.
    pub removal_multiplier: f64,
    /// The relevance its peds are born with (the scenario's default).
    pub relevance: f64,
    /// Whether its peds stop at their route's goal (otherwise they turn back).
    pub stops_at_route_end: bool,
    /// Whether its peds are classified law enforcement (the cops removal scale).
    pub law_enforcement: bool,
}

/// One vehicle source as the world runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct VehicleSourceConfig {
    /// The source's id.
    pub id: String,
    /// Index of its lane in the space.
    pub lane: u16,
    /// Vehicles it keeps on the lane.
    pub target_count: u32,
    /// Driving speed, meters per second.
    pub speed_m_s: f64,
}

/// Everything that decides a world's evolution besides its state (the indices a world builds
/// once from it — obstacle set, crossing index, path grid — are the world's, `sim::world`).
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Fixed step, seconds.
    pub fixed_step_s: f64,
    /// Root seed of the population domain.
    pub seed: u64,
    /// The content the world runs on.
    pub space: Arc<SimSpace>,
    /// The compiled scenario.
    pub scenario: Arc<CompiledScenario>,
    /// Population sources, in scenario order, with their routes resolved.
    pub sources: Vec<SourceConfig>,
    /// Vehicle sources, in scenario order, with their lanes resolved.
    pub vehicle_sources: Vec<VehicleSourceConfig>,
    /// Every route's points in one flat array; each agent's columns hold its route's span.
    pub route_points: Arc<RouteTable>,
    /// BLAKE3 of the canonical bytes of seed, space and scenario: what a snapshot must match.
    pub digest: [u8; 32],
}

impl WorldConfig {
    /// The routes, in the order agents and sources index them.
    pub fn routes(&self) -> &[SimRoute] {
        &self.space.routes
    }
}
