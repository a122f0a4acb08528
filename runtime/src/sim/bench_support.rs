//! Benchmark worlds, behind the `bench-support` feature (and in the runtime's own tests): crowds
//! placed without the population phase — a long street-block variant filled with N walkers at
//! once ([`long_street_world`], with a rendezvous each [`directed_street_world`], and with an
//! observer for mixed tiers, [`observed_street_world`]), the motion benchmark's counter-flow street
//! ([`two_way_street_world`]) — placing one walker at a route distance, and the step with a hook
//! around the publication. The application never builds any of it.
use std::sync::Arc;

use super::config::CompiledScenario;
use super::crossings::{CrosswalkAgent, GroupMember, Liveness};
use super::motion::panic::NO_EXIT;
use super::motion::scale;
use super::motion::tiers::stable_hash;

use super::space::{SimSpace, StaticBlocker};
use super::walk::body::SAFETY_DIAMETER_M;
use super::world::{build_world, World};
use crate::ops::street_block::{build_street_block, StreetBlockParams, SIDEWALKS};
use crate::project::{
    Directive, DirectiveCommand, MotionSettings, Observer, PopulationKind, PopulationSource,
    Scenario, Target, Vec2, Vec3, VehicleRelation,
};
use crate::sim::state::AgentHandle;
use crate::sim::state::AgentId;
use crate::sim::state::AgentRow;
use crate::sim::state::AgentState;
use crate::sim::state::Tier;
use crate::sim::state::WalkDecision;

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
    long_street(walkers, seed, Vec::new(), false)
}

/// [`long_street_world`] where, at frame 1, every walker gets a rendezvous 15 m ahead on its
/// own walkway (its lateral offset kept, clamped inside the block): `walkers` peds under active
/// directives at once, for the task benchmarks (`runtime/benches/tasks.rs`).
pub fn directed_street_world(walkers: usize, seed: u64) -> Option<World> {
    long_street(walkers, seed, Vec::new(), true)
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
                ..Default::default()
            })
        })
        .collect()
}

/// [`long_street_world`] with `observers`, and (when `directed`) a rendezvous per walker.
fn long_street(
    walkers: usize,
    seed: u64,
    observers: Vec<Observer>,
    directed: bool,
) -> Option<World> {
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
    let counts = [walkers.div_ceil(2), walkers / 2];
    let directives = |space: &SimSpace| {
        if directed {
            rendezvous_directives(space, walkers, seed)
        } else {
            Vec::new()
        }
    };
    let mut world = street_world(
        &params,
        counts,
        furniture(&params),
        observers,
        directives,
        seed,
    )?;
    for walker in 0..walkers {
        let (source, distance_m, direction, speed, lateral_m) = walker_at(walker, seed);
        let route = world.config.sources[source].route;
        world.place_walker(source, route, distance_m, direction, speed, lateral_m)?;
    }
    // A frame per placed walker before the first step (frame count == agent count).
    world.publish_motion_frames();
    Some(world)
}

/// The world of a street block with `blockers`, one source per sidewalk with the given
/// targets, `observers`, and every walker running the steering fan every step.
fn street_world(
    params: &StreetBlockParams,
    counts: [usize; 2],
    blockers: Vec<StaticBlocker>,
    observers: Vec<Observer>,
    directives: impl FnOnce(&SimSpace) -> Vec<Directive>,
    seed: u64,
) -> Option<World> {
    let block = build_street_block(params).ok()?;
    let mut space = SimSpace::from_street_blocks(&[&block]).ok()?;
    space.blockers = blockers;
    let space = Arc::new(space);
    let scenario = Scenario {
        id: "long-street".into(),
        recipe: "long-street".into(),
        fixed_step_s: 0.05,
        duration_frames: 600,
        observers,
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
        directives: directives(&space),
        // Every walker runs the steering fan every step (the benchmarks measure exactly that).
        motion: MotionSettings {
            avoidance_budget: None,
            ..MotionSettings::default()
        },
        ..Scenario::default()
    };
    let scenario = Arc::new(CompiledScenario::compile(&scenario).ok()?);
    build_world(&space, &scenario, seed).ok()
}

/// Length of [`two_way_street_world`]'s block, meters.
pub const TWO_WAY_STREET_M: f64 = 200.0;

/// The motion benchmark's counter-flow street: a 200 m block whose walkways are widened until
/// there is at most one walker per m², each sidewalk holding half the walkers on a jittered
/// grid (no two closer than the safety diameter), each walker heading east or west by a seeded
/// coin (50 / 50), all at about 1.4 m/s, no
/// observer (so every agent is Full) and avoidance unlimited. Every walker walks its sidewalk's
/// route along a path of its own where it was placed (its `path_offset_m`, as the motion
/// specification's demo gives each walker a route at its own lateral offset), so its route
/// corridor is ±0.65 m of where it stands, wherever that is on the walkway (before the own
/// paths the corridor was the middle 1.3 m of the walkway for all of them: on the 25 m walkways
/// of 10,000 walkers nearly all started outside it). Deterministic in its arguments; `None`
/// when the block cannot be built.
pub fn two_way_street_world(walkers: usize, seed: u64) -> Option<World> {
    two_way_street_of(walkers, TWO_WAY_STREET_M, seed)
}

/// [`two_way_street_world`] on a block `length_m` long (at least 20 m; `None` shorter): the
/// same crowd at the same density on a shorter street, for the flow regression test.
pub fn two_way_street_of(walkers: usize, length_m: f64, seed: u64) -> Option<World> {
    if length_m.is_nan() || length_m < 20.0 {
        return None;
    }
    let per_side = walkers.div_ceil(2).max(1);
    let walkway_m = (per_side as f64 / length_m).ceil().max(2.5);
    let params = StreetBlockParams {
        length_m,
        road_width_m: 7.0,
        sidewalk_width_m: walkway_m + 1.0,
        furniture_zone_m: 1.0,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    };
    let counts = [walkers.div_ceil(2), walkers / 2];
    // The placement grid: `columns` along the street, `rows` across it.
    let grid = |count: usize| {
        let columns = ((count as f64 * length_m / walkway_m).sqrt().ceil() as usize).max(1);
        (columns, count.div_ceil(columns).max(1))
    };
    let mut world = street_world(
        &params,
        counts,
        Vec::new(),
        Vec::new(),
        |_| Vec::new(),
        seed,
    )?;
    for (source, count) in counts.into_iter().enumerate() {
        let (columns, rows_here) = grid(count);
        let mut placed: Vec<(f64, f64)> = Vec::with_capacity(count);
        for k in 0..count {
            let draw = |dim: u64| {
                let bits = splitmix(seed ^ (source as u64) << 40 ^ (k as u64) << 2 ^ dim);
                (bits >> 11) as f64 / (1u64 << 53) as f64
            };
            let cell = (k, columns, rows_here);
            let (along, lateral_m) = jittered_spot(cell, (length_m, walkway_m), draw, &placed);
            placed.push((along, lateral_m));
            let direction = if draw(2) < 0.5 { -1 } else { 1 };
            let speed = STREET_WALK_SPEED_M_S * (0.9 + 0.2 * draw(3));
            let route = world.config.sources[source].route;
            world.place_walker(source, route, along, direction, speed, lateral_m)?;
        }
    }
    world.publish_motion_frames();
    Some(world)
}

/// [`long_street_world`] with an observer over the origin whose ranges keep everyone and the
/// default avoidance budget: the agents around the observer are Full or Simulated, the rest of
/// the street Stub (the mixed-tier bench). Its configuration digest is the unbudgeted street's
/// (the budget is set after the world is built); benches never restore across the two.
pub fn observed_street_world(walkers: usize, seed: u64) -> Option<World> {
    let observer = Observer {
        position: crate::project::Vec3 {
            x: 0.0,
            y: 0.0,
            z: 10.0,
        },
        retain_radius_m: 1e9,
        remove_radius_m: 1e9,
        far_m: 1e9,
        ..Observer::with_defaults("camera".into())
    };
    let mut world = long_street(walkers, seed, vec![observer], false)?;
    // The default avoidance budget: the mixed-tier bench measures the budgeted step.
    let mut scenario = (*world.config.scenario).clone();
    scenario.motion.avoidance_budget = MotionSettings::default().avoidance_budget;
    let mut config = (*world.config).clone();
    config.scenario = Arc::new(scenario);
    world.config = Arc::new(config);
    Some(world)
}

/// Where the `k`th walker of a sidewalk stands on the placement grid (`cell`: `k`, the grid's
/// columns and rows) of a street `length_m` long with walkways `walkway_m` wide:
/// `(along, lateral)` meters, its cell's centre jittered by the seeded `draw`s 0 and 1, the
/// jitter shrinking until the body is a safety diameter from its `placed` neighbours (cell
/// centres are farther apart than that).
fn jittered_spot(
    (k, columns, rows): (usize, usize, usize),
    (length_m, walkway_m): (f64, f64),
    draw: impl Fn(u64) -> f64,
    placed: &[(f64, f64)],
) -> (f64, f64) {
    let (c, r) = (k % columns, k / columns);
    let (jitter_along, jitter_across) = (draw(0) - 0.5, draw(1) - 0.5);
    let at = |spread: f64| {
        let along = (c as f64 + 0.5 + spread * jitter_along) / columns as f64 * length_m;
        let across = (r as f64 + 0.5 + spread * jitter_across) / rows as f64 - 0.5;
        (along, across * (walkway_m - 0.8))
    };
    let apart = |(along, lateral): (f64, f64)| {
        [1, columns + 1, columns, columns.saturating_sub(1)]
            .iter()
            .filter_map(|&back| k.checked_sub(back).and_then(|j| placed.get(j)))
            .all(|&(a, l)| (a - along).hypot(l - lateral) >= SAFETY_DIAMETER_M)
    };
    [0.6, 0.3, 0.15]
        .into_iter()
        .map(at)
        .find(|&p| apart(p))
        .unwrap_or_else(|| at(0.0))
}

/// SplitMix64: a stateless mixer for the benchmark crowds' jitter (no random stream).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        let span = self.config.route_points.span(route)?;
        let position = Vec2 {
            x: on_line.x - along.y * lateral_m,
            y: on_line.y + along.x * lateral_m,
        };
        let (stops_at_route_end, kind, removal_multiplier) = self.source_traits(source);
        let births = self.births.get_mut(source)?;
        let handle = self.slots.allocate().ok()?;
        let ordinal = u32::try_from(births.len()).ok()?;
        let id = AgentId::new(u16::try_from(source).ok()?, ordinal);
        self.agents.push(AgentRow {
            id: id.bits(),
            generation: handle.generation,
            source: source as u16,
            route,
            route_offset: span.offset,
            route_len: span.len,
            stops_at_route_end,
            distance_m,
            speed_m_s,
            position,
            facing: scale(along, f64::from(direction)),
            safe_distance_m: 0.0,
            path_offset_m: lateral_m,
            direction,
            state: AgentState::Walking,
            resume: AgentState::Walking,
            kind,
            target: None,
            owner: None,
            steps: 0,
            pooled: false,
            removal_multiplier,
            vehicle: VehicleRelation::None,
            source_generation: 0,
            velocity_m_s: Vec2::default(),
            window_origin: position,
            window_steps: 0,
            walk_decision: WalkDecision::Idle,
            schedule_hash: stable_hash(id),
            tier: Tier::Stub,
            skipped_steps: 0,
            updated: false,
            steer_deg: 0,
            goal: position,
            relevance: self.config.scenario.motion.default_relevance,
            panic: 0.0,
            flee_exit: NO_EXIT,
            compromised: false,
            crosswalk: CrosswalkAgent::default(),
            liveness: Liveness::at(position),
            group: GroupMember::default(),
        });
        births.push(handle);
        self.counters.births += 1;
        self.counters.alive = self.agents.len() as u64;
        Some(handle)
    }

    /// What a walker of source `source` inherits from it: whether it stops at its route's end,
    /// its population kind and its removal multiplier (an ambient walker's defaults without
    /// such a source).
    fn source_traits(&self, source: usize) -> (bool, PopulationKind, f64) {
        let source = self.config.sources.get(source);
        (
            source.is_some_and(|s| s.stops_at_route_end),
            source.map_or(PopulationKind::Ambient, |s| s.kind),
            source.map_or(1.0, |s| s.removal_multiplier),
        )
    }

    /// [`World::step`], calling `mark` right before the Motion Frames are published and right
    /// after. Kept because a bench needs a hook inside the step: the motion benchmark
    /// (`runtime/benches/motion.rs`) times the publication of real steps, the rows each step
    /// changed; [`World::publish_motion_frames`] called again after a step republishes rows the
    /// step already published, a different (smaller) amount of work.
    pub fn step_marking_publication(&mut self, mark: &mut dyn FnMut()) {
        self.step_before_publication();
        mark();
        self.publish_motion_frames();
        mark();
    }
}

/// The state digest after each of `steps` steps of `world` on a pool of `threads` threads,
/// banding any number of rows (`None`: the serial walking loop whatever the pool), and the most
/// bands any step ran in: what the thread-count tests compare (`sim::motion::parallel`).
pub fn banded_digests(
    mut world: World,
    steps: u64,
    threads: Option<usize>,
) -> (Vec<[u8; 32]>, usize) {
    world.set_min_rows_per_band(Some(if threads.is_some() { 1 } else { usize::MAX }));
    let Ok(pool) = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(1))
        .build()
    else {
        return (Vec::new(), 0);
    };
    pool.install(|| {
        let mut most = 0;
        let digests = (0..steps)
            .map(|_| {
                world.step();
                most = most.max(world.walk_bands());
                world.state_digest()
            })
            .collect();
        (digests, most)
    })
}
