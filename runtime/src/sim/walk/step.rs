//! One walker's step: connection completion, following, the fan (through the shared
//! `steer` helper, with the walkway as its scene), the executed step and the progress it earns
//! (the order the module documentation of `sim::walk` gives).

use super::body::SAFETY_DIAMETER_M;
use super::fan::Fan;
use super::ground::on_walkway;
use super::neighbours::{gather_walker, Bodies};
use super::progress::{distance, Connection};
use super::steer::{self, check_executed, offset, Choice, Scene};
use super::LOOKAHEAD_M;
use crate::project::Vec2;

use crate::sim::config::Obstacle;

use crate::sim::obstacles::{BlockerIndex, Nearby};
use crate::sim::routes::{RouteSpan, RouteTable, SimRoute};
use crate::sim::spatial::SpatialGrid;
use crate::sim::state::{Agents, CandidateRejection, WaitReason, WalkDecision};

pub use super::steer::Neighbour;

/// Steps shorter than this are no step, meters.
const MIN_STEP_M: f64 = 1e-9;
/// Over this distance before its goal a walker's lane narrows onto the connection's line, so
/// it meets the goal; farther away it keeps the lateral offset it walks at, meters.
pub const LANE_TAPER_M: f64 = 4.0;
/// While an oncoming body is ahead within the opposing scan, the walker's desired direction
/// leans this far towards its own left (the side the fan's positive preference passes on), so
/// opposing streams part into lanes before they meet: tan of the lean, 15°.
pub const YIELD_LEAN: f64 = 0.267_949_192_431_122_7;
/// A walker whose fan finds no candidate clear of the bodies after this long without progress
/// (its liveness watch) gives way: it tries the fan around its left-hand direction once, steps
/// back included, seconds.
pub const YIELD_AFTER_S: f64 = 0.5;
/// Leaders slower than this are bodies to pass (the fan and the executed step keep clear of
/// them), not leaders to follow, meters per second.
pub const FOLLOW_MIN_SPEED_M_S: f64 = 0.2;
/// An oncoming body counts for the lean when it is within this of the walker's line sideways,
/// meters (two safety diameters).
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

/// Steps the walker in `row` and returns what it decided (with [`Avoidance::SteerOnly`] it
/// only refreshes the walker's reliable steering and returns [`WalkDecision::Idle`]).
pub fn walk_agent(
    env: &WalkEnv<'_>,
    grid: &SpatialGrid,
    scratch: &mut Scratch,
    agents: &mut Agents,
    row: usize,
    avoidance: Avoidance,
) -> WalkDecision {
    let steer_only = avoidance == Avoidance::SteerOnly;
    let (connection, previous, width_m) = match current_connection(env, agents, row, steer_only) {
        Ok(current) => current,
        Err(decision) => return decision,
    };
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
    let desired = desired_direction(&connection, width_m, here, reading.oncoming);
    let mut scene = Walkway {
        connection: &connection,
        width_m,
        near: &scratch.blockers,
        far: &mut scratch.far_blockers,
        near_shapes: &scratch.shapes,
        far_shapes: &mut scratch.far_shapes,
        use_far: false,
        index: env.blockers,
        here,
        needs_exit: None,
        yielding: false,
    };
    let reliable_step = avoidance == Avoidance::Reliable;
    let choice = if reliable_step {
        reliable(env.fan, agents.steer_deg[row], desired)
    } else {
        match steer::steer(env.fan, bodies, &mut scene, here, desired, step_m) {
            Ok(choice) => choice,
            Err(CandidateRejection::BodyConflict)
                if !steer_only && agents.liveness[row].still_s >= YIELD_AFTER_S =>
            {
                let step = (step_m, previous, budget);
                return give_way(env.fan, bodies, &mut scene, agents, row, desired, step);
            }
            Err(straight) => {
                // A waiting walker faces where it wants to go, so its neighbours read its heading
                // (following or predicting) from its route, not from its last sidestep.
                if !steer_only {
                    agents.facing[row] = desired;
                }
                return WalkDecision::Waiting(WaitReason::NoSafeCandidate(straight));
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

/// The connection the walker in `row` walks, the progress it had made along it and its
/// route's width; a completed connection hands over to the next one (or the walker turns back,
/// or completes its route: the `Err` decision, as is a walker without a route or budget).
#[inline]
fn current_connection(
    env: &WalkEnv<'_>,
    agents: &mut Agents,
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
    let Some(mut connection) = Connection::of(path, agents.distance_m[row], agents.direction[row])
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
                connection = next;
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
    agents: &Agents,
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

/// A walker stuck behind bodies gives way: the fan around its left-hand direction, steps back
/// included. It steps (earning what progress the step makes) or waits, facing `desired`.
/// `step` is the step's length, the progress made before it and the step's budget, meters.
#[inline]
fn give_way(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &mut Walkway<'_>,
    agents: &mut Agents,
    row: usize,
    desired: Vec2,
    (step_m, previous, budget): (f64, f64, f64),
) -> WalkDecision {
    let (connection, here) = (scene.connection, scene.here);
    scene.yielding = true;
    let left = rotate_left(connection.axis);
    match steer::steer(fan, bodies, scene, here, left, step_m) {
        Ok(choice) => {
            let endpoint = offset(here, choice.direction, step_m);
            move_to(connection, agents, row, endpoint, (previous, budget));
            agents.facing[row] = desired;
            WalkDecision::Yielded(choice.angle_deg)
        }
        Err(_) => {
            agents.facing[row] = desired;
            WalkDecision::Waiting(WaitReason::NoSafeCandidate(
                CandidateRejection::BodyConflict,
            ))
        }
    }
}

/// Moves the walker in `row` to `endpoint`, earning the progress the step makes along
/// `connection` (`previous` made before it, within the step's `budget`, meters).
#[inline]
fn move_to(
    connection: &Connection,
    agents: &mut Agents,
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
    connection: &'a Connection,
    width_m: f64,
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
}

impl Walkway<'_> {
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
    fn candidate(
        &self,
        here: Vec2,
        step_end: Vec2,
        predicted: Vec2,
    ) -> Result<(), CandidateRejection> {
        if !on_walkway(self.connection, self.width_m, here, step_end) {
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

    fn step(&self, here: Vec2, endpoint: Vec2) -> Result<(), CandidateRejection> {
        if !on_walkway(self.connection, self.width_m, here, endpoint) {
            return Err(CandidateRejection::OffWalkway);
        }
        self.connection.check_endpoint(here, endpoint)?;
        self.blockers().check(here, endpoint, None)
    }
}

/// Where a walker wants to go: towards the point one lookahead ahead at the lateral offset it
/// walks at (its lane, kept inside the route corridor on the walkway) — keeping left: from right of the line it leans
/// [`YIELD_LEAN`] back towards it, and while an oncoming body is ahead it leans that much
/// further left (the side the fan's positive preference passes on) — the lane narrowing onto the connection's line over the last
/// [`LANE_TAPER_M`] so it meets its goal; the axis when already there.
fn desired_direction(connection: &Connection, width_m: f64, here: Vec2, oncoming: bool) -> Vec2 {
    let along = connection.along_m(here).clamp(0.0, connection.length_m);
    let carrot_along = (along + LOOKAHEAD_M).min(connection.length_m);
    let ahead_m = carrot_along - along;
    let limit = super::ground::lateral_limit_m(width_m);
    let lateral = connection.lateral_m(here);
    let lean = YIELD_LEAN * ahead_m;
    // Keep left: from right of the line it leans back to the line, and past oncoming bodies
    // further left; otherwise it keeps the lateral offset it walks at.
    let mut lane = if lateral < 0.0 {
        (lateral + lean).min(0.0)
    } else {
        lateral
    };
    if oncoming {
        lane = lane.max(lateral + lean);
    }
    let keep = ((connection.length_m - carrot_along) / LANE_TAPER_M).min(1.0);
    let lane = lane.clamp(-limit, limit) * keep;
    let left = rotate_left(connection.axis);
    let carrot = offset(
        offset(connection.start, connection.axis, carrot_along),
        left,
        lane,
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
