//! [`build_world`]: a world from a space and a compiled scenario — the sources' routes and the
//! vehicle sources' lanes resolved (each missing one a diagnostic), the configuration digest,
//! the indices built once, and the empty state of frame 0.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Built, World};
use crate::content::encode::ByteWriter;
use crate::project::FieldPath;
use crate::sim::config::{CompiledScenario, SourceConfig, VehicleSourceConfig, WorldConfig};
use crate::sim::crossings::{CrossingIndex, CrossingsState};
use crate::sim::knockdown::Knockdowns;
use crate::sim::motion::clock::WallClock;
use crate::sim::motion::{MotionScratch, MotionState};
use crate::sim::observers::Observation;
use crate::sim::obstacles::{ObstacleSet, SceneState};
use crate::sim::population::{PopulationState, Staged, NO_BINDING};
use crate::sim::problems::{SimBuildError, SimDiagnostic, SimProblem};
use crate::sim::routes::RouteTable;
use crate::sim::space::SimSpace;
use crate::sim::state::{Agents, Counters, EventLog, Slots};
use crate::sim::tasks::{build_paths, TaskState};
use crate::sim::walk::WalkState;

/// Builds the world of `scenario` over `space`, seeded with `seed`: the one way a world is made
/// (the editor and `stagecraft simulate` both come here). Every source's route is resolved
/// against the space; the error lists every source whose route the space does not have.
pub fn build_world(
    space: &Arc<SimSpace>,
    scenario: &Arc<CompiledScenario>,
    seed: u64,
) -> Result<World, SimBuildError> {
    let route_points = Arc::new(RouteTable::new(&space.routes));
    let mut diagnostics = Vec::new();
    let sources = source_configs(space, scenario, &route_points, &mut diagnostics);
    let vehicle_sources = vehicle_sources(space, scenario, &mut diagnostics);
    if !diagnostics.is_empty() {
        return Err(SimBuildError {
            scenario: scenario.id.clone(),
            diagnostics,
        });
    }
    let mut w = ByteWriter::tagged(b"SIMCFG01");
    w.u64(seed);
    space.write_canonical(&mut w);
    scenario.write_canonical(&mut w);
    let obstacles = Arc::new(ObstacleSet::of_scene(space, scenario));
    let paths = build_paths(space, &obstacles);
    let built = Arc::new(Built {
        crossing_index: CrossingIndex::new(space, scenario.crossings.reach_m()),
        obstacles,
        paths,
    });
    let config = Arc::new(WorldConfig {
        fixed_step_s: scenario.fixed_step_s,
        seed,
        space: Arc::clone(space),
        scenario: Arc::clone(scenario),
        sources,
        vehicle_sources,
        route_points,
        digest: w.digest(),
    });
    let mut world = empty_world(config, built);
    world.reserve_population();
    Ok(world)
}

/// The world of `config` at frame 0: no agents, every state set empty.
fn empty_world(config: Arc<WorldConfig>, built: Arc<Built>) -> World {
    World {
        scene: SceneState::new(&built.obstacles),
        built,
        pop: PopulationState::new(&config),
        crossings: CrossingsState::new(config.space.signals.len(), &config.scenario.crossings),
        births: vec![Vec::new(); config.sources.len()],
        config,
        frame: 0,
        agents: Agents::default(),
        slots: Slots::default(),
        counters: Counters::default(),
        last_rejections: Vec::new(),
        last_candidates: Vec::new(),
        recent_candidates: VecDeque::new(),
        walk: WalkState::default(),
        motion: MotionState::default(),
        motion_scratch: MotionScratch::default(),
        task_frames: Default::default(),
        wall_clock: WallClock::default(),
        knock: Knockdowns::default(),
        events: EventLog::default(),
        staged: Staged::default(),
        observation: Observation::default(),
        tasks: TaskState::default(),
        crossing_rows: Vec::new(),
        crossing_rows_tracked: false,
        crossing_marks: Vec::new(),
        camera: None,
    }
}

/// The ped sources with their routes resolved; a missing route is a diagnostic.
fn source_configs(
    space: &SimSpace,
    scenario: &CompiledScenario,
    route_points: &RouteTable,
    diagnostics: &mut Vec<SimDiagnostic>,
) -> Vec<SourceConfig> {
    let mut sources = Vec::with_capacity(scenario.sources.len());
    for (index, source) in scenario.sources.iter().enumerate() {
        let Some(route) = space.route_index(&source.route) else {
            diagnostics.push(SimDiagnostic {
                path: FieldPath::root()
                    .field("sources")
                    .index(index)
                    .field("route"),
                problem: SimProblem::MissingRoute {
                    source_id: source.id.clone(),
                    route: source.route.clone(),
                    known: space.route_ids().map(str::to_owned).collect(),
                },
            });
            continue;
        };
        sources.push(SourceConfig {
            id: source.id.clone(),
            kind: source.kind,
            route,
            target_count: source.target_count,
            walk_speed_m_s: source.walk_speed_m_s,
            capacity: source.capacity,
            batch_size: source.batch_size.max(1),
            binding: source.family.unwrap_or(NO_BINDING),
            candidates_m: source.candidates_m.clone(),
            removal_multiplier: source.removal_multiplier,
            relevance: scenario.motion.default_relevance,
            route_span: route_points.span(route).unwrap_or_default(),
            stops_at_route_end: source.stops_at_route_end,
            law_enforcement: source.law_enforcement,
        });
    }
    sources
}

/// The vehicle sources with their lanes resolved; a missing lane is a diagnostic.
fn vehicle_sources(
    space: &SimSpace,
    scenario: &CompiledScenario,
    diagnostics: &mut Vec<SimDiagnostic>,
) -> Vec<VehicleSourceConfig> {
    let mut resolved = Vec::with_capacity(scenario.vehicle_sources.len());
    for (index, source) in scenario.vehicle_sources.iter().enumerate() {
        let lane = space
            .lanes
            .iter()
            .position(|l| l.id == source.lane)
            .and_then(|i| u16::try_from(i).ok());
        let Some(lane) = lane else {
            diagnostics.push(SimDiagnostic {
                path: FieldPath::root()
                    .field("vehicle_sources")
                    .index(index)
                    .field("lane"),
                problem: SimProblem::MissingLane {
                    source_id: source.id.clone(),
                    lane: source.lane.clone(),
                    known: space.lanes.iter().map(|l| l.id.clone()).collect(),
                },
            });
            continue;
        };
        resolved.push(VehicleSourceConfig {
            id: source.id.clone(),
            lane,
            target_count: source.target_count,
            speed_m_s: source.speed_m_s,
        });
    }
    resolved
}
