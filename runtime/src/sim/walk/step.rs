//! One walker's step: connection completion, following, the fan (through the shared
//! `steer` helper, with the walkway as its scene), the executed step and the progress it earns
//! (the order the module documentation of `sim::walk` gives).

use super::body::{BODY_RADIUS_M, SAFETY_DIAMETER_M};
use super::fan::{Fan, FanCandidate};
use super::ground::on_walkway;
use super::neighbours::{gather_walker, Bodies};
use super::progress::{distance, Connection};
use super::steer::{self, check_executed, offset, Choice, Scene};
use super::{LOOKAHEAD_M, ROUTE_CORRIDOR_M};
use crate::project::Vec2;

use crate::sim::config::Obstacle;

use super::rows::WalkRows;
use crate::sim::obstacles::{BlockerIndex, Nearby};
use crate::sim::routes::{RouteSpan, RouteTable, SimRoute};
use crate::sim::spatial::SpatialGrid;
use crate::sim::state::{CandidateRejection, WaitReason, WalkDecision};

pub use super::steer::Neighbour;

/// Steps shorter than this are no step, meters.
const MIN_STEP_M: f64 = 1e-9;
/// Over this distance before its goal a walker's lane narrows onto the connection's line, so
/// it meets the goal; farther away it keeps the lateral offset it walks at, meters.
pub const LANE_TAPER_M: f64 = 4.0;
/// Spacing of the walking lanes across a connection ([`lane_m`]), meters: the route corridor,
/// at least the safety diameter (0.63 m), so opposing walkers one lane apart pass clear.
pub const LANE_SPACING_M: f64 = ROUTE_CORRIDOR_M;
/// With no oncoming body ahead, a walker right of its own path leans back to it at this slope
/// (tan 15°).
pub const YIELD_LEAN: f64 = 0.267_949_192_431_122_7;
const _: () = assert!(LANE_SPACING_M >= SAFETY_DIAMETER_M);
/// A walker whose fan finds no candidate clear of the bodies after this long without progress
/// (its liveness watch) gives way (off its lane: the fan around the direction of its lane, steps
/// back included) or edges ([`EDGE_STEP_FRACTION`]), seconds: at once (after 0.1 s, 3.9 % of the
/// 10,000-walker street stalled at a mean of 0.671 m/s, at once 2.1 % at 0.838 m/s).
pub const YIELD_AFTER_S: f64 = 0.0;
/// A walker bound to a crosswalk (approaching it or walking on from its exit) whose fan finds no
/// candidate clear of the bodies after this long without progress gives way to its left once
/// per step, steps back included, and otherwise waits, seconds (the rule before lanes and
/// edging: the crossing's queue and lanes govern it there).
pub const CROSSING_YIELD_AFTER_S: f64 = 0.5;
/// A walker this close to its lane sideways is in it (it edges rather than gives way), meters.
pub const LANE_TOLERANCE_M: f64 = 0.1;
/// A walker aims at the point of its lane this far ahead, meters: steep enough to reach its
/// lane in about a second from the corridor's edge (with a 1 m aim the approach took about 3 s
/// and 41.6 % of the 1,000-walker street stalled, 34.3 % with this one, before edging).
pub const LANE_AIM_M: f64 = 0.2;
/// Boxed in — no fan candidate clear of the bodies, none when giving way — a walker edges: a step
/// this fraction of its step along the first fan candidate whose executed step passes the
/// physical checks (walkway and corridor, blockers, every body kept a safety diameter away),
/// without the prediction (a whole step left 14.7 % of the 1,000-walker street stalled, half
/// of one 2.7 %).
pub const EDGE_STEP_FRACTION: f64 = 0.5;
/// A walker off its lane whose executed step towards it is refused has stood this long without
/// progress (its liveness watch) before it gives way to the far side: a whole step along the
/// first candidate of the fan around the direction away from its lane whose executed step passes
/// the physical checks, seconds (two steps of 0.05 s; see `docs/flow.md` for the others tried).
pub const FAR_SIDE_AFTER_S: f64 = 0.1;
/// Boxed in with an oncoming body ahead — nothing when giving way, nothing when edging — a
/// walker backs off: a step this fraction of its step along the first candidate of the fan
/// around the way back along its connection whose executed step passes the physical checks, so
/// the two fronts of a knot part and open a gap for one of them to reach its lane.
pub const BACK_OFF_STEP_FRACTION: f64 = 0.5;
/// Leaders slower than this are bodies to pass (the fan and the executed step keep clear of
/// them), not leaders to follow, meters per second.
pub const FOLLOW_MIN_SPEED_M_S: f64 = 0.2;
/// An oncoming body counts for the gathering's `oncoming` reading when it is within this of
/// the walker's line sideways, meters (two safety diameters; walking no longer leans on it).
pub const YIELD_CORRIDOR_M: f64 = 2.0 * SAFETY_DIAMETER_M;

/// What every walker's step reads besides the agents.
#[derive(Clone, Copy, Debug)]
pub struct WalkEnv<'a> {
    /// The space's routes.
    pub routes: &'a [SimRoute],
    /// Every route's points in one flat array (each walker follows the span its columns name).
    pub route_points: &'a RouteTable,
    /// The static blockers.
    pub blockers: &'a BlockerIndex,
    /// The steering fan.
    pub fan: &'a Fan,
    /// Fixed step, seconds.
    pub dt_s: f64,
    /// The most any agent moves in one step, meters (how far a body may be from where the grid
    /// saw it).
    pub max_step_m: f64,
}

/// A walker's surroundings, gathered once per step and reused by every candidate (the buffers
/// keep their capacity from walker to walker).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Bodies within the opposing scan (a task movement's, `steer::gather_neighbours`).
    pub neighbours: Vec<Neighbour>,
    /// The bodies the candidate tests read.
    pub bodies: Bodies,
    /// Static blockers within reach of any candidate's prediction.
    pub blockers: Vec<(Vec2, f64)>,
    /// Static blockers within reach of the exit probes too (gathered only when static geometry
    /// blocks the straight candidate).
    pub far_blockers: Vec<(Vec2, f64)>,
    /// The other footprints (scene objects, barriers, placed obstacles) within reach of any
    /// candidate's prediction.
    pub shapes: Vec<Obstacle>,
    /// The same within reach of the exit probes too.
    pub far_shapes: Vec<Obstacle>,
}

/// How a walker's step uses the avoidance budget (`sim::motion::avoidance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Avoidance {
    /// Processed and updated: the fan chooses, the walker steps.
    Steer,
    /// Processed, not updated this step: the fan chooses and the choice is kept as the
    /// walker's reliable steering; nothing moves.
    SteerOnly,
    /// Updated but deferred: the walker steps along its last reliable steering (its fan angle
    /// applied to the current desired direction), the executed step checked as always.
    Reliable,
}

/// Steps the walker in `row` of `agents` (a view of the walking columns, `WalkRows`: the
/// world's, a range of them, or a band's copies; `row` indexes it and `grid` alike) and
/// returns what it decided (with [`Avoidance::SteerOnly`] it only refreshes the walker's
/// reliable steering and returns [`WalkDecision::Idle`]). `bound`: it is bound to a crosswalk
/// (its `crosswalk` column; the caller reads it, so the view need not hold that column) and
/// walks by the crossing rule.
pub fn walk_agent(
    env: &WalkEnv<'_>,
    grid: &SpatialGrid,
    scratch: &mut Scratch,
    agents: &mut WalkRows<'_>,
    row: usize,
    avoidance: Avoidance,
    bound: bool,
) -> WalkDecision {
    let steer_only = avoidance == Avoidance::SteerOnly;
    let (connection, previous, width_m) = match current_connection(env, agents, row, steer_only) {
        Ok(current) => current,
        Err(decision) => return decision,
    };
    let own_m = own_path_m(agents, row);
    let here = agents.position[row];
    let budget = agents.speed_m_s[row] * env.dt_s;
    let full_step_m = connection.requested_step_m(budget);
    if full_step_m <= MIN_STEP_M {
        return WalkDecision::Waiting(WaitReason::NoBudget);
    }
    let reading = gather_surroundings(env, grid, scratch, agents, row, &connection, full_step_m);
    let bodies = &mut scratch.bodies;
    let step_m = reading.followed_step_m.min(distance(here, connection.goal));
    if step_m <= MIN_STEP_M {
        return WalkDecision::Waiting(WaitReason::NoRoomBehindLeader);
    }
    // A walker bound to a crosswalk (approaching it, or walking on from its exit kerb) walks as
    // before lanes and edging: the crossing's queue and lanes govern it there.
    let (desired, to_lane_m) = if bound {
        let desired = crossing_direction(&connection, width_m, here, reading.oncoming);
        (desired, 0.0)
    } else {
        desired_direction(&connection, (width_m, own_m), here, reading.oncoming)
    };
    let mut scene = Walkway {
        connection: &connection,
        width_m,
        own_m,
        near: &scratch.blockers,
        far: &mut scratch.far_blockers,
        near_shapes: &scratch.shapes,
        far_shapes: &mut scratch.far_shapes,
        use_far: false,
        index: env.blockers,
        here,
        needs_exit: None,
        yielding: false,
        backing: false,
        oncoming: reading.oncoming,
    };
    let reliable_step = avoidance == Avoidance::Reliable;
    let choice = if reliable_step {
        reliable(env.fan, agents.steer_deg[row], desired)
    } else {
        match steer::steer(env.fan, bodies, &mut scene, here, desired, step_m) {
            Ok(choice) => choice,
            Err(rejection) => {
                let how = (desired, to_lane_m, bound);
                let step = (step_m, previous, budget);
                let why = (rejection, steer_only);
                return stopped(env.fan, bodies, &mut scene, agents, row, how, step, why);
            }
        }
    };
    agents.steer_deg[row] = choice.angle_deg;
    if steer_only {
        return WalkDecision::Idle;
    }
    let endpoint = offset(here, choice.direction, step_m);
    // The fan's choice already passed its executed step; a reliable one is checked here.
    if reliable_step {
        if let Err(reason) = check_executed(bodies, &scene, here, endpoint) {
            return WalkDecision::Waiting(WaitReason::StepRejected(reason));
        }
    }
    move_to(&connection, agents, row, endpoint, (previous, budget));
    agents.facing[row] = choice.direction;
    match (choice.angle_deg, step_m < full_step_m) {
        (0, false) => WalkDecision::Straight,
        (0, true) => WalkDecision::Following,
        (angle, _) => WalkDecision::Steered(angle),
    }
}

/// A walker with no fan candidate (`rejection` the straight one's reason). Blocked by bodies,
/// it gives way or edges (`how`: its desired direction, how far its lane is to its left and
/// whether it is bound to a crosswalk): a free walker after [`YIELD_AFTER_S`] — off its lane it
/// gives way towards it, in its lane it edges, and when that finds nothing either with an
/// oncoming body ahead it backs off ([`back_off`]); a walker bound to a crosswalk after
/// [`CROSSING_YIELD_AFTER_S`] gives way to its left once and otherwise waits (the rule before
/// lanes and edging). Otherwise it waits, facing its route's way (a crossing walker: where it
/// wants to go), so its neighbours read its heading (following or predicting) from its route,
/// not from its last sidestep or the way to its lane. `step` is the step's length, the progress
/// made before it and the step's budget, meters.
#[allow(clippy::too_many_arguments)]
fn stopped(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &mut Walkway<'_>,
    agents: &mut WalkRows<'_>,
    row: usize,
    (desired, to_lane_m, crossing): (Vec2, f64, bool),
    step: (f64, f64, f64),
    (rejection, steer_only): (CandidateRejection, bool),
) -> WalkDecision {
    let still_s = agents.liveness[row].still_s;
    if !steer_only && rejection == CandidateRejection::BodyConflict {
        if crossing && still_s >= CROSSING_YIELD_AFTER_S {
            return give_way(fan, bodies, scene, agents, row, (desired, 1.0, false), step);
        }
        if !crossing && still_s >= YIELD_AFTER_S {
            let decision = if to_lane_m.abs() > LANE_TOLERANCE_M {
                let side = to_lane_m.signum();
                give_way(fan, bodies, scene, agents, row, (desired, side, true), step)
            } else {
                edge(fan, bodies, scene, agents, row, desired, step)
            };
            return match decision {
                WalkDecision::Waiting(_) if scene.oncoming => {
                    back_off(fan, bodies, scene, agents, row, step).unwrap_or(decision)
                }
                decision => decision,
            };
        }
    }
    if !steer_only {
        agents.facing[row] = if crossing {
            desired
        } else {
            scene.connection.axis
        };
    }
    WalkDecision::Waiting(WaitReason::NoSafeCandidate(rejection))
}

/// Where the walker in `row`'s own path lies from its route's line, to the left of its
/// walking direction, meters.
#[inline]
fn own_path_m(agents: &WalkRows<'_>, row: usize) -> f64 {
    agents.path_offset_m[row] * f64::from(agents.direction[row])
}

/// `connection` moved `own_m` to its left: the same connection along the walker's own path
/// (the route's line moved sideways, as the specification's demo gives each walker a path of its own
/// lateral offset). Unchanged for a walker whose own path is the route's line.
#[inline]
fn along_own_path(connection: Connection, own_m: f64) -> Connection {
    if own_m == 0.0 {
        return connection;
    }
    let left = rotate_left(connection.axis);
    Connection {
        start: offset(connection.start, left, own_m),
        goal: offset(connection.goal, left, own_m),
        ..connection
    }
}

/// The connection the walker in `row` walks (along its own path), the progress it had made along it and its
/// route's width; a completed connection hands over to the next one (or the walker turns back,
/// or completes its route: the `Err` decision, as is a walker without a route or budget).
#[inline]
fn current_connection(
    env: &WalkEnv<'_>,
    agents: &mut WalkRows<'_>,
    row: usize,
    steer_only: bool,
) -> Result<(Connection, f64, f64), WalkDecision> {
    let Some(route) = env.routes.get(agents.route[row] as usize) else {
        return Err(WalkDecision::Waiting(WaitReason::NoBudget));
    };
    let span = RouteSpan {
        offset: agents.route_offset[row],
        len: agents.route_len[row],
    };
    let Some(path) = env.route_points.path_of(agents.route[row], span) else {
        return Err(WalkDecision::Waiting(WaitReason::NoBudget));
    };
    let here = agents.position[row];
    let own_m = own_path_m(agents, row);
    let Some(mut connection) = Connection::of(path, agents.distance_m[row], agents.direction[row])
        .map(|c| along_own_path(c, own_m))
    else {
        return Err(WalkDecision::Waiting(WaitReason::NoBudget));
    };
    let mut previous = connection.previous_progress(agents.distance_m[row]);
    if connection.completed(here, previous) {
        if steer_only {
            return Err(WalkDecision::Idle);
        }
        match connection.next(path) {
            Some(next) => {
                connection = along_own_path(next, own_m);
                previous = 0.0;
                agents.distance_m[row] = next.start_distance_m;
            }
            None if agents.stops_at_route_end[row] => return Err(WalkDecision::Completed),
            None => {
                agents.direction[row] = -agents.direction[row];
                agents.facing[row] = scale(connection.axis, -1.0);
                return Err(WalkDecision::TurnedBack);
            }
        }
    }
    if !steer_only {
        agents.goal[row] = connection.goal;
    }
    Ok((connection, previous, route.width_m()))
}

/// Gathers the walker's surroundings into `scratch`: the bodies its candidates test (returning
/// what the grid read of its leader and oncoming bodies) and the static blockers and shapes
/// within one lookahead (a candidate's prediction reaches that far; its exit probe, when
/// needed, one more).
#[inline]
fn gather_surroundings(
    env: &WalkEnv<'_>,
    grid: &SpatialGrid,
    scratch: &mut Scratch,
    agents: &WalkRows<'_>,
    row: usize,
    connection: &Connection,
    full_step_m: f64,
) -> super::neighbours::Reading {
    let here = agents.position[row];
    let horizon_s = LOOKAHEAD_M / agents.speed_m_s[row];
    let reading = gather_walker(
        grid,
        row,
        here,
        connection.axis,
        horizon_s,
        full_step_m,
        env.max_step_m,
        &mut scratch.bodies,
    );
    env.blockers
        .gather(here, LOOKAHEAD_M, &mut scratch.blockers);
    env.blockers
        .gather_shapes(here, LOOKAHEAD_M, &mut scratch.shapes);
    reading
}

/// A walker stuck behind bodies gives way to the side `side` (+1 its left, −1 its right),
/// earning what progress the step makes and facing `desired`. A free walker (`edges`: off its
/// lane, which lies that side) first takes a whole step along the first candidate of the fan
/// around that side whose executed step passes the physical checks ([`first_clear_step`]:
/// every fan candidate already failed the prediction; never a step back along its connection)
/// or, none clear and still for [`FAR_SIDE_AFTER_S`], of the fan around the far side (away from
/// its lane: its lane's side is packed, and the step opens the room its neighbours need).
/// Then, as a walker bound to a crosswalk does, it steers through that fan with the prediction,
/// steps back included; a free walker finding nothing edges ([`edge`]), one bound to a crosswalk
/// waits. `step` is the step's length, the progress made before it and the step's budget,
/// meters.
#[inline]
fn give_way(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &mut Walkway<'_>,
    agents: &mut WalkRows<'_>,
    row: usize,
    (desired, side, edges): (Vec2, f64, bool),
    (step_m, previous, budget): (f64, f64, f64),
) -> WalkDecision {
    let (connection, here) = (scene.connection, scene.here);
    scene.yielding = true;
    let aside = scale(rotate_left(connection.axis), side);
    let executed = if edges {
        let far_side = agents.liveness[row].still_s >= FAR_SIDE_AFTER_S;
        first_clear_step(&fan.candidates, bodies, scene, aside, step_m).or_else(|| {
            let away = scale(aside, -1.0);
            far_side
                .then(|| first_clear_step(&fan.candidates, bodies, scene, away, step_m))
                .flatten()
        })
    } else {
        None
    };
    let choice = executed.map(Ok).unwrap_or_else(|| {
        steer::steer(fan, bodies, scene, here, aside, step_m)
            .map(|choice| (choice.angle_deg, offset(here, choice.direction, step_m)))
    });
    match choice {
        Ok((angle_deg, endpoint)) => {
            move_to(connection, agents, row, endpoint, (previous, budget));
            agents.facing[row] = desired;
            WalkDecision::Yielded(angle_deg)
        }
        Err(_) if edges => {
            let step = (step_m, previous, budget);
            edge(fan, bodies, scene, agents, row, desired, step)
        }
        Err(_) => {
            agents.facing[row] = desired;
            WalkDecision::Waiting(WaitReason::NoSafeCandidate(
                CandidateRejection::BodyConflict,
            ))
        }
    }
}

/// A boxed-in walker edges: [`EDGE_STEP_FRACTION`] of its step along the first candidate of
/// the fan around `desired`, or else of the fan's 25°–90° candidates around the opposite way,
/// whose executed step passes the physical checks ([`first_clear_step`]: the specification's
/// check of "the actual submitted step", without the prediction, which every candidate failed),
/// earning what progress it makes; it waits when none does. Those checks never let a step go
/// back along the connection, so the second fan only adds the forward directions on the far
/// side of a `desired` turned towards its lane. Either way it faces its route's way. The
/// reported angle is the candidate's around the fan's direction.
fn edge(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &Walkway<'_>,
    agents: &mut WalkRows<'_>,
    row: usize,
    desired: Vec2,
    (step_m, previous, budget): (f64, f64, f64),
) -> WalkDecision {
    let connection = scene.connection;
    agents.facing[row] = connection.axis;
    let edge_m = step_m * EDGE_STEP_FRACTION;
    let opposite = scale(desired, -1.0);
    let clear = first_clear_step(&fan.candidates, bodies, scene, desired, edge_m)
        .or_else(|| first_clear_step(&fan.candidates[1..], bodies, scene, opposite, edge_m));
    match clear {
        Some((angle_deg, endpoint)) => {
            move_to(connection, agents, row, endpoint, (previous, budget));
            WalkDecision::Yielded(angle_deg)
        }
        None => WalkDecision::Waiting(WaitReason::NoSafeCandidate(
            CandidateRejection::BodyConflict,
        )),
    }
}

/// A boxed-in walker with an oncoming body ahead backs off: [`BACK_OFF_STEP_FRACTION`] of its
/// step along the first candidate of the fan around the way back along its connection whose
/// executed step passes the physical checks ([`first_clear_step`], the step back allowed),
/// earning no progress and still facing its route's way; `None` when no such step is clear.
/// Both fronts of a knot (two opposite lane queues, each front walker inside the other
/// heading's lane, see `docs/flow.md`) back off, which opens the gap one of them needs to
/// reach its lane.
fn back_off(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &mut Walkway<'_>,
    agents: &mut WalkRows<'_>,
    row: usize,
    (step_m, previous, budget): (f64, f64, f64),
) -> Option<WalkDecision> {
    let back = scale(scene.connection.axis, -1.0);
    scene.backing = true;
    let back_m = step_m * BACK_OFF_STEP_FRACTION;
    let clear = first_clear_step(&fan.candidates, bodies, scene, back, back_m);
    scene.backing = false;
    let (angle_deg, endpoint) = clear?;
    move_to(scene.connection, agents, row, endpoint, (previous, budget));
    Some(WalkDecision::Yielded(angle_deg))
}

/// The first of `candidates` around `around` whose executed step of `step_m` from where the
/// scene's walker stands passes the scene's checks (walkway and corridor, the connection's
/// bounds, blockers) and keeps every body a safety diameter away (`check_executed`): its angle
/// and the step's endpoint.
fn first_clear_step(
    candidates: &[FanCandidate],
    bodies: &mut Bodies,
    scene: &Walkway<'_>,
    around: Vec2,
    step_m: f64,
) -> Option<(i8, Vec2)> {
    let here = scene.here;
    candidates.iter().find_map(|candidate| {
        let endpoint = offset(here, candidate.direction(around), step_m);
        check_executed(bodies, scene, here, endpoint)
            .is_ok()
            .then_some((candidate.angle_deg, endpoint))
    })
}

/// Moves the walker in `row` to `endpoint`, earning the progress the step makes along
/// `connection` (`previous` made before it, within the step's `budget`, meters).
#[inline]
fn move_to(
    connection: &Connection,
    agents: &mut WalkRows<'_>,
    row: usize,
    endpoint: Vec2,
    (previous, budget): (f64, f64),
) {
    let accepted = connection.accepted_cost(endpoint, previous, budget);
    agents.distance_m[row] = connection.distance_at(previous + accepted);
    agents.position[row] = endpoint;
}

/// The walker's last reliable steering: the fan candidate of `angle_deg` (straight when the
/// fan has no such angle) around `desired`.
fn reliable(fan: &Fan, angle_deg: i8, desired: Vec2) -> Choice {
    let candidate = fan
        .candidates
        .iter()
        .find(|c| c.angle_deg == angle_deg)
        .unwrap_or(&fan.candidates[0]);
    Choice {
        angle_deg: candidate.angle_deg,
        direction: candidate.direction(desired),
    }
}

/// A walker's scene: its connection's walkway and bounds, and the static blockers — with a
/// forward exit for a sidestep once static geometry refused the straight candidate.
struct Walkway<'a> {
    /// The connection along the walker's own path.
    connection: &'a Connection,
    width_m: f64,
    /// Where the own path lies from the route's line, to the connection's left, meters.
    own_m: f64,
    near: &'a [(Vec2, f64)],
    far: &'a mut Vec<(Vec2, f64)>,
    near_shapes: &'a [Obstacle],
    far_shapes: &'a mut Vec<Obstacle>,
    use_far: bool,
    index: &'a BlockerIndex,
    here: Vec2,
    needs_exit: Option<(Vec2, f64)>,
    /// Giving way: steps may go backward along the connection (they earn no progress).
    yielding: bool,
    /// Backing off: executed steps may go backward along the connection too.
    backing: bool,
    /// An oncoming body is ahead (the gathering's reading).
    oncoming: bool,
}

impl Walkway<'_> {
    #[inline]
    fn blockers(&self) -> Nearby<'_> {
        if self.use_far {
            Nearby {
                circles: self.far,
                shapes: self.far_shapes,
            }
        } else {
            Nearby {
                circles: self.near,
                shapes: self.near_shapes,
            }
        }
    }
}

impl Scene for Walkway<'_> {
    #[inline]
    fn candidate(
        &self,
        here: Vec2,
        step_end: Vec2,
        predicted: Vec2,
    ) -> Result<(), CandidateRejection> {
        if !on_walkway(self.connection, self.width_m, self.own_m, here, step_end) {
            return Err(CandidateRejection::OffWalkway);
        }
        match self.connection.check_endpoint(here, step_end) {
            Err(CandidateRejection::ReverseProjection) if self.yielding => {}
            verdict => verdict?,
        }
        self.blockers().check(here, predicted, self.needs_exit)
    }

    fn straight_refused(&mut self, reason: CandidateRejection) {
        // Static geometry blocks the straight way: a sidestep must open a way forward.
        if matches!(
            reason,
            CandidateRejection::StaticBlocker | CandidateRejection::OffWalkway
        ) {
            self.needs_exit = Some((self.connection.axis, LOOKAHEAD_M));
            self.index.gather(self.here, 2.0 * LOOKAHEAD_M, self.far);
            self.index
                .gather_shapes(self.here, 2.0 * LOOKAHEAD_M, self.far_shapes);
            self.use_far = true;
        }
    }

    #[inline]
    fn step(&self, here: Vec2, endpoint: Vec2) -> Result<(), CandidateRejection> {
        if !on_walkway(self.connection, self.width_m, self.own_m, here, endpoint) {
            return Err(CandidateRejection::OffWalkway);
        }
        match self.connection.check_endpoint(here, endpoint) {
            Err(CandidateRejection::ReverseProjection) if self.backing => {}
            verdict => verdict?,
        }
        self.blockers().check(here, endpoint, None)
    }
}

/// Where a walker bound to a crosswalk wants to go (the rule before lanes): towards the point
/// one lookahead ahead at the lateral offset it walks at, kept inside the route corridor on the
/// walkway — keeping left: from right of the line it leans [`YIELD_LEAN`] back towards it, and
/// while an oncoming body is ahead that much further left — narrowing onto the connection's
/// line over the last [`LANE_TAPER_M`] so it meets its goal; the axis when already there.
fn crossing_direction(connection: &Connection, width_m: f64, here: Vec2, oncoming: bool) -> Vec2 {
    let along = connection.along_m(here).clamp(0.0, connection.length_m);
    let carrot_along = (along + LOOKAHEAD_M).min(connection.length_m);
    let lean = YIELD_LEAN * (carrot_along - along);
    let limit = super::ground::lateral_limit_m(width_m);
    let lateral = connection.lateral_m(here);
    let mut lane = if lateral < 0.0 {
        (lateral + lean).min(0.0)
    } else {
        lateral
    };
    if oncoming {
        lane = lane.max(lateral + lean);
    }
    let keep = ((connection.length_m - carrot_along) / LANE_TAPER_M).min(1.0);
    towards(
        connection,
        here,
        carrot_along,
        lane.clamp(-limit, limit) * keep,
    )
}

/// Where a walker wants to go: towards the point [`LANE_AIM_M`] ahead in its lane — while an
/// oncoming body is ahead, the lane of its heading ([`lane_m`]); otherwise the offset it walks
/// at, leaning back to its path from right of it — the lane narrowing onto its own path's line
/// over the last [`LANE_TAPER_M`] so it meets its goal; the axis when already there.
/// `connection` runs along its own path, `own_m` to the left of its route's line. Also returns
/// how far its lane is to its left, meters.
fn desired_direction(
    connection: &Connection,
    (width_m, own_m): (f64, f64),
    here: Vec2,
    oncoming: bool,
) -> (Vec2, f64) {
    let along = connection.along_m(here).clamp(0.0, connection.length_m);
    let carrot_along = (along + LANE_AIM_M).min(connection.length_m);
    let lateral = connection.lateral_m(here);
    // Its lane is taken from the route's line (the lanes are the walkway's, shared by every
    // walker of the route) inside its corridor on the walkway, or where it stands when outside
    // (the walkway check lets it keep its offset or move back in).
    let walkway = (width_m / 2.0 - BODY_RADIUS_M).max(0.0);
    let low = (own_m - ROUTE_CORRIDOR_M)
        .max(-walkway)
        .min(lateral + own_m);
    let high = (own_m + ROUTE_CORRIDOR_M).min(walkway).max(lateral + own_m);
    let lane = if oncoming {
        lane_m(lateral + own_m, low, high) - own_m
    } else if lateral < 0.0 {
        // No oncoming body: from right of its path it leans back to it, else keeps its offset.
        (lateral + YIELD_LEAN * (carrot_along - along)).min(0.0)
    } else {
        lateral
    };
    let keep = ((connection.length_m - carrot_along) / LANE_TAPER_M).min(1.0);
    let lane = lane * keep;
    let to_lane_m = lane - lateral;
    (towards(connection, here, carrot_along, lane), to_lane_m)
}

/// The direction from `here` to the point `along_m` along `connection` and `lane_m` to its
/// left; the axis when already there.
fn towards(connection: &Connection, here: Vec2, along_m: f64, lane_m: f64) -> Vec2 {
    let left = rotate_left(connection.axis);
    let carrot = offset(
        offset(connection.start, connection.axis, along_m),
        left,
        lane_m,
    );
    let (dx, dy) = (carrot.x - here.x, carrot.y - here.y);
    let length = (dx * dx + dy * dy).sqrt();
    if length > MIN_STEP_M {
        Vec2 {
            x: dx / length,
            y: dy / length,
        }
    } else {
        connection.axis
    }
}

/// The lane a walker at `lateral_m` from its route's line keeps, as an offset from that line
/// within `low_m ..= high_m`, meters. Keeping left, the lanes of its heading lie
/// [`LANE_SPACING_M`] / 2 to the left of the line plus whole multiples of twice the spacing, the
/// opposite heading's between them: each lane is one spacing from the next, the opposite
/// heading's, so opposing walkers in neighbouring lanes pass clear of the body test, and the
/// nearest lane of its heading is never farther than one spacing, the route corridor. It keeps
/// the nearest of them inside the bounds (the bound nearest to it when none is inside).
pub fn lane_m(lateral_m: f64, low_m: f64, high_m: f64) -> f64 {
    let period = 2.0 * LANE_SPACING_M;
    let first = 0.5 * LANE_SPACING_M;
    let k = ((lateral_m - first) / period).round();
    let mut best: Option<f64> = None;
    for lane in [k, k - 1.0, k + 1.0].map(|k| first + k * period) {
        let inside = (low_m..=high_m).contains(&lane);
        if inside && best.is_none_or(|b| (lane - lateral_m).abs() < (b - lateral_m).abs()) {
            best = Some(lane);
        }
    }
    best.unwrap_or_else(|| (first + k * period).clamp(low_m, high_m.max(low_m)))
}

/// `v` turned 90° counter-clockwise (to the left).
fn rotate_left(v: Vec2) -> Vec2 {
    Vec2 { x: -v.y, y: v.x }
}

fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
}
