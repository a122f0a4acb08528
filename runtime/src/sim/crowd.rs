//! Crowds placed without the population phase, for benchmarks and walking tests: a long
//! street-block variant filled with N walkers at once ([`long_street_world`]), placing one walker
//! at a route distance, and the heap bytes a world holds.

use std::sync::Arc;

use super::agents::{AgentHandle, AgentId, AgentRow, AgentState};
use super::motion::scale;
use super::scenario::CompiledScenario;
use super::space::{SimSpace, StaticBlocker};
use super::walk::WalkDecision;
use super::world::{build_world, World};
use crate::ops::street_block::{build_street_block, StreetBlockParams, SIDEWALKS};
use crate::project::{
    Directive, DirectiveCommand, PopulationKind, PopulationSource, Scenario, Target, Vec2, Vec3,
};

/// Meters of each sidewalk per walker in [`long_street_world`] (0.5 walkers per meter of
/// sidewalk, about one per 5 m² of its 2.5 m walkway).
pub const STREET_SPACING_M: f64 = 2.0;
/// Mean walking speed of the crowd, meters per second.
pub const STREET_WALK_SPEED_M_S: f64 = 1.4;
/// Meters between the crossings (and between the street furniture blockers are placed at).
const CROSSING_SPACING_M: f64 = 100.0;
const FURNITURE_SPACING_M: f64 = 10.0;

/// A world on a straight street block long enough for `walkers` (each sidewalk gets half, one
/// per [`STREET_SPACING_M`]), every walker placed at once and walking: spread across the walkway,
/// about a third heading west against the others, speeds within ±10 % of 1.4 m/s, and a
/// street-furniture blocker every 10 m in each furniture zone. Both sources' targets equal the
/// walkers placed, so the population phase adds none. Deterministic in `walkers` and `seed`.
///
/// This is the benchmark's crowd (`runtime/benches/population.rs`); the application never calls
/// it. `None` when the block cannot be built (no walkers, or more than the indices hold).
pub fn long_street_world(walkers: usize, seed: u64) -> Option<World> {
    street_world(walkers, seed, false)
}

/// [`long_street_world`] where, at frame 1, every walker gets a rendezvous 15 m ahead on its
/// own walkway (its lateral offset kept, clamped inside the block): `walkers` peds under active
/// directives at once, for the task benchmarks (`runtime/benches/tasks.rs`).
pub fn directed_street_world(walkers: usize, seed: u64) -> Option<World> {
    street_world(walkers, seed, true)
}

/// Where walker `walker` stands: `(source, distance, direction, speed, lateral)`.
fn walker_at(walker: usize, seed: u64) -> (usize, f64, i8, f64, f64) {
    let (source, k) = (walker % 2, walker / 2);
    // Golden-ratio sequences spread speed and lateral offset without a random stream.
    let golden = (k as f64 * 0.618_033_988_75 + seed as f64 * 0.1).fract();
    let direction = if (k * 7 + source) % 3 == 0 { -1 } else { 1 };
    let distance_m = (k as f64 + 0.5) * STREET_SPACING_M;
    let speed = STREET_WALK_SPEED_M_S * (0.9 + 0.2 * golden);
    let lateral_m = ((k as f64 * 0.754_877_666).fract() - 0.5) * 1.6;
    (source, distance_m, direction, speed, lateral_m)
}

/// One rendezvous directive per walker, 15 m ahead of where it is placed.
fn rendezvous_directives(space: &SimSpace, walkers: usize, seed: u64) -> Vec<Directive> {
    (0..walkers)
        .filter_map(|walker| {
            let (source, distance_m, direction, _, lateral_m) = walker_at(walker, seed);
            let route = &space.routes[usize::from(space.route_index(SIDEWALKS[source])?)];
            let ahead =
                (distance_m + 15.0 * f64::from(direction)).clamp(1.0, route.length_m() - 1.0);
            let (on_line, along) = route.sample(ahead);
            Some(Directive {
                frame: 1,
                target: Target::Handle {
                    index: u32::try_from(walker).ok()?,
                    generation: 0,
                },
                command: DirectiveCommand::Rendezvous {
                    goal: Vec3 {
                        x: on_line.x - along.y * lateral_m,
                        y: on_line.y + along.x * lateral_m,
                        z: 0.0,
                    },
                },
            })
        })
        .collect()
}

fn street_world(walkers: usize, seed: u64, directed: bool) -> Option<World> {
    let per_side = walkers.div_ceil(2).max(1);
    let length_m = (per_side as f64 * STREET_SPACING_M).max(CROSSING_SPACING_M * 2.0);
    let params = StreetBlockParams {
        length_m,
        road_width_m: 7.0,
        sidewalk_width_m: 4.0,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: u32::try_from((length_m / CROSSING_SPACING_M) as u64)
            .ok()?
            .saturating_sub(1)
            .max(1),
        crosswalk_width_m: 4.0,
    };
    let block = build_street_block(&params).ok()?;
    let mut space = SimSpace::from_street_blocks(&[&block]).ok()?;
    space.blockers = furniture(&params);
    let space = Arc::new(space);
    let counts = [walkers.div_ceil(2), walkers / 2];
    let scenario = Scenario {
        id: "long-street".into(),
        recipe: "long-street".into(),
        fixed_step_s: 0.05,
        duration_frames: 600,
        sources: SIDEWALKS
            .iter()
            .zip(counts)
            .map(|(route, count)| PopulationSource {
                id: (*route).to_owned(),
                kind: PopulationKind::Ambient,
                route: (*route).to_owned(),
                target_count: count as u32,
                walk_speed_m_s: STREET_WALK_SPEED_M_S,
                ..PopulationSource::default()
            })
            .collect(),
        directives: if directed {
            rendezvous_directives(&space, walkers, seed)
        } else {
            Vec::new()
        },
        ..Scenario::default()
    };
    let scenario = Arc::new(CompiledScenario::compile(&scenario).ok()?);
    let mut world = build_world(&space, &scenario, seed).ok()?;
    for walker in 0..walkers {
        let (source, distance_m, direction, speed, lateral_m) = walker_at(walker, seed);
        let route = world.config.sources[source].route;
        world.place_walker(source, route, distance_m, direction, speed, lateral_m)?;
    }
    Some(world)
}

/// Street furniture in both furniture zones: a 0.4 m post every 10 m.
fn furniture(params: &StreetBlockParams) -> Vec<StaticBlocker> {
    let zone_y = params.road_width_m / 2.0 + params.furniture_zone_m / 2.0;
    let count = (params.length_m / FURNITURE_SPACING_M) as u32;
    (0..count)
        .flat_map(|i| {
            let x = -params.length_m / 2.0 + (f64::from(i) + 0.5) * FURNITURE_SPACING_M;
            [zone_y, -zone_y].map(|y| (x, y))
        })
        .enumerate()
        .map(|(index, (x, y))| StaticBlocker {
            stage: 0,
            index: index as u32,
            position: Vec2 { x, y },
            radius_m: 0.4,
            height_m: 1.0,
        })
        .collect()
}

impl World {
    /// Places a walker of source `source` on `route` at `distance_m`, `lateral_m` to the left
    /// of the route line, heading `direction` (+1 towards the route's end) at `speed_m_s`: the
    /// birth the population phase would make, without its draws. `None` when no slot is left
    /// or an index is out of range.
    pub(super) fn place_walker(
        &mut self,
        source: usize,
        route: u16,
        distance_m: f64,
        direction: i8,
        speed_m_s: f64,
        lateral_m: f64,
    ) -> Option<AgentHandle> {
        let (on_line, along) = self
            .config
            .space
            .routes
            .get(usize::from(route))?
            .sample(distance_m);
        let position = Vec2 {
            x: on_line.x - along.y * lateral_m,
            y: on_line.y + along.x * lateral_m,
        };
        let births = self.births.get_mut(source)?;
        let handle = self.slots.allocate().ok()?;
        let ordinal = u32::try_from(births.len()).ok()?;
        self.agents.push(AgentRow {
            id: AgentId::new(u16::try_from(source).ok()?, ordinal).bits(),
            generation: handle.generation,
            source: source as u16,
            route,
            distance_m,
            speed_m_s,
            position,
            facing: scale(along, f64::from(direction)),
            safe_distance_m: 0.0,
            direction,
            state: AgentState::Walking,
            resume: AgentState::Walking,
            kind: self
                .config
                .sources
                .get(source)
                .map_or(PopulationKind::Ambient, |s| s.kind),
            target: None,
            owner: None,
            steps: 0,
            pooled: false,
            removal_multiplier: self
                .config
                .sources
                .get(source)
                .map_or(1.0, |s| s.removal_multiplier),
            vehicle_intent: false,
            source_generation: 0,
            velocity_m_s: Vec2::default(),
            window_origin: position,
            window_steps: 0,
            walk_decision: WalkDecision::Idle,
        });
        births.push(handle);
        self.counters.births += 1;
        self.counters.alive = self.agents.len() as u64;
        Some(handle)
    }

    /// Heap bytes the world's state and walking buffers hold: agent columns (capacities), slots,
    /// births, the neighbour grid and scratch. Owners' texts and the shared configuration are
    /// left out.
    pub fn heap_bytes(&self) -> usize {
        self.agents.heap_bytes()
            + self.slots.heap_bytes()
            + self
                .births
                .iter()
                .map(|b| b.capacity() * std::mem::size_of::<AgentHandle>())
                .sum::<usize>()
            + self.walk.heap_bytes()
    }
}
