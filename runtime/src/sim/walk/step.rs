//! One walker's step: connection completion, following, the fan, the executed step and the
//! progress it earns (the order the module documentation of `sim::walk` gives).

use super::body::{clear, SAFETY_DIAMETER_M};
use super::fan::Fan;
use super::follow::{room_behind_m, same_direction, Relative};
use super::ground::{on_walkway, BlockerIndex, Nearby};
use super::progress::{distance, Connection};
use super::{CandidateRejection, WaitReason, WalkDecision, LOOKAHEAD_M, OPPOSING_SCAN_M};
use crate::project::Vec2;
use crate::sim::agents::Agents;
use crate::sim::routes::SimRoute;
use crate::sim::spatial::SpatialGrid;

/// Steps shorter than this are no step, meters.
const MIN_STEP_M: f64 = 1e-9;

/// What every walker's step reads besides the agents.
#[derive(Clone, Copy, Debug)]
pub struct WalkEnv<'a> {
    /// The space's routes.
    pub routes: &'a [SimRoute],
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

/// A neighbour as a walker sees it: current position, observed velocity, facing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Current position, meters.
    pub position: Vec2,
    /// Velocity observed over the last window, meters per second.
    pub velocity: Vec2,
    /// Unit facing.
    pub facing: Vec2,
    /// Squared horizontal distance from the walker when gathered, m².
    pub distance_sq_m2: f64,
}

/// A walker's surroundings, gathered once per step and reused by every candidate (the buffers
/// keep their capacity from walker to walker).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Bodies within the opposing scan.
    pub neighbours: Vec<Neighbour>,
    /// Static blockers within reach of any candidate's prediction.
    pub blockers: Vec<(Vec2, f64)>,
    /// Static blockers within reach of the exit probes too (gathered only when static geometry
    /// blocks the straight candidate).
    pub far_blockers: Vec<(Vec2, f64)>,
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

/// The fan's choice: the candidate's angle and direction.
struct Choice {
    angle_deg: i8,
    direction: Vec2,
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
    let Some(route) = env.routes.get(agents.route[row] as usize) else {
        return WalkDecision::Waiting(WaitReason::NoBudget);
    };
    let here = agents.position[row];
    let Some(mut connection) = Connection::of(route, agents.distance_m[row], agents.direction[row])
    else {
        return WalkDecision::Waiting(WaitReason::NoBudget);
    };
    let mut previous = connection.previous_progress(agents.distance_m[row]);
    if connection.completed(here, previous) {
        if steer_only {
            return WalkDecision::Idle;
        }
        match connection.next(route) {
            Some(next) => {
                connection = next;
                previous = 0.0;
                agents.distance_m[row] = next.start_distance_m;
            }
            None => {
                agents.direction[row] = -agents.direction[row];
                agents.facing[row] = scale(connection.axis, -1.0);
                return WalkDecision::TurnedBack;
            }
        }
    }
    if !steer_only {
        agents.goal[row] = connection.goal;
    }
    let budget = agents.speed_m_s[row] * env.dt_s;
    let full_step_m = connection.requested_step_m(budget);
    if full_step_m <= MIN_STEP_M {
        return WalkDecision::Waiting(WaitReason::NoBudget);
    }
    gather_neighbours(env, grid, agents, row, full_step_m, &mut scratch.neighbours);
    // A candidate's prediction reaches one lookahead (its exit probe, when needed, one more).
    env.blockers
        .gather(here, LOOKAHEAD_M, &mut scratch.blockers);
    let (neighbours, blockers) = (&scratch.neighbours[..], Nearby(&scratch.blockers));
    let far_blockers = &mut scratch.far_blockers;
    let step_m = followed_step_m(&connection, here, full_step_m, neighbours)
        .min(distance(here, connection.goal));
    if step_m <= MIN_STEP_M {
        return WalkDecision::Waiting(WaitReason::NoRoomBehindLeader);
    }
    let width_m = route.width_m();
    let horizon_s = LOOKAHEAD_M / agents.speed_m_s[row];
    let around = Around {
        fan: env.fan,
        connection: &connection,
        width_m,
        neighbours,
        blockers,
        index: env.blockers,
    };
    let choice = if avoidance == Avoidance::Reliable {
        reliable(
            env.fan,
            agents.steer_deg[row],
            desired_direction(&connection, here),
        )
    } else {
        match choose(&around, far_blockers, here, step_m, horizon_s) {
            Ok(choice) => choice,
            Err(straight) => return WalkDecision::Waiting(WaitReason::NoSafeCandidate(straight)),
        }
    };
    agents.steer_deg[row] = choice.angle_deg;
    if steer_only {
        return WalkDecision::Idle;
    }
    let endpoint = offset(here, choice.direction, step_m);
    if let Err(reason) = check_executed(&around, here, endpoint) {
        return WalkDecision::Waiting(WaitReason::StepRejected(reason));
    }
    let accepted = connection.accepted_cost(endpoint, previous, budget);
    agents.distance_m[row] = connection.distance_at(previous + accepted);
    agents.position[row] = endpoint;
    agents.facing[row] = choice.direction;
    match (choice.angle_deg, step_m < full_step_m) {
        (0, false) => WalkDecision::Straight,
        (0, true) => WalkDecision::Following,
        (angle, _) => WalkDecision::Steered(angle),
    }
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

/// Every other body within the opposing scan of the walker, at its current position.
fn gather_neighbours(
    env: &WalkEnv<'_>,
    grid: &SpatialGrid,
    agents: &Agents,
    row: usize,
    step_m: f64,
    scratch: &mut Vec<Neighbour>,
) {
    scratch.clear();
    let here = agents.position[row];
    let reach = OPPOSING_SCAN_M.max(SAFETY_DIAMETER_M + step_m);
    let (velocities, facings) = (&agents.velocity_m_s, &agents.facing);
    grid.for_each_point_near(here, reach + env.max_step_m, |other, position| {
        let (dx, dy) = (position.x - here.x, position.y - here.y);
        let distance_sq_m2 = dx * dx + dy * dy;
        let other = other as usize;
        if distance_sq_m2 <= reach * reach && other != row {
            scratch.push(Neighbour {
                position,
                velocity: velocities[other],
                facing: facings[other],
                distance_sq_m2,
            });
        }
    });
}

/// The step left behind the nearest constraining same-direction leader.
fn followed_step_m(
    connection: &Connection,
    here: Vec2,
    full_step_m: f64,
    neighbours: &[Neighbour],
) -> f64 {
    neighbours
        .iter()
        .filter(|n| same_direction(n.facing, connection.axis))
        .filter_map(|n| room_behind_m(Relative::of(here, connection.axis, n.position), full_step_m))
        .fold(full_step_m, f64::min)
}

/// What a walker's candidates are checked against.
struct Around<'a> {
    fan: &'a Fan,
    connection: &'a Connection,
    width_m: f64,
    neighbours: &'a [Neighbour],
    blockers: Nearby<'a>,
    index: &'a BlockerIndex,
}

/// The best safe fan candidate, or the reason the straight one was refused.
fn choose(
    around: &Around<'_>,
    far_blockers: &mut Vec<(Vec2, f64)>,
    here: Vec2,
    step_m: f64,
    horizon_s: f64,
) -> Result<Choice, CandidateRejection> {
    let Around {
        fan,
        connection,
        width_m,
        neighbours,
        mut blockers,
        index,
    } = *around;
    let desired = desired_direction(connection, here);
    let mut straight = CandidateRejection::BodyConflict;
    let mut needs_exit = None;
    for candidate in &fan.candidates {
        let direction = candidate.direction(desired);
        let predicted = offset(here, direction, LOOKAHEAD_M);
        let step_end = offset(here, direction, step_m);
        let verdict = if !on_walkway(connection, width_m, here, step_end) {
            Err(CandidateRejection::OffWalkway)
        } else {
            connection
                .check_endpoint(here, step_end)
                .and_then(|()| blockers.check(here, predicted, needs_exit))
                .and_then(|()| bodies_clear(connection, here, predicted, horizon_s, neighbours))
        };
        match verdict {
            Ok(()) => {
                return Ok(Choice {
                    angle_deg: candidate.angle_deg,
                    direction,
                })
            }
            Err(reason) if candidate.angle_deg == 0 => {
                straight = reason;
                // Static geometry blocks the straight way: a sidestep must open a way forward.
                if matches!(
                    reason,
                    CandidateRejection::StaticBlocker | CandidateRejection::OffWalkway
                ) {
                    needs_exit = Some((connection.axis, LOOKAHEAD_M));
                    index.gather(here, 2.0 * LOOKAHEAD_M, far_blockers);
                    blockers = Nearby(far_blockers);
                }
            }
            Err(_) => {}
        }
    }
    Err(straight)
}

/// The executed step from `here` to `endpoint`, checked again: walkway, static blockers, and
/// the bodies at their current positions (the swept test with zero neighbour velocity).
fn check_executed(
    around: &Around<'_>,
    here: Vec2,
    endpoint: Vec2,
) -> Result<(), CandidateRejection> {
    if !on_walkway(around.connection, around.width_m, here, endpoint) {
        return Err(CandidateRejection::OffWalkway);
    }
    around.connection.check_endpoint(here, endpoint)?;
    around.blockers.check(here, endpoint, None)?;
    // A body farther than the safety diameter plus the step cannot be touched by it.
    let (dx, dy) = (endpoint.x - here.x, endpoint.y - here.y);
    let reach = SAFETY_DIAMETER_M + (dx * dx + dy * dy).sqrt();
    for n in around
        .neighbours
        .iter()
        .filter(|n| n.distance_sq_m2 <= reach * reach)
    {
        if !body_clear(here, endpoint, n.position, Vec2::default(), 0.0) {
            return Err(CandidateRejection::BodyConflict);
        }
    }
    Ok(())
}

/// The predicted body test of a candidate against every neighbour at another heading
/// (same-direction bodies are the following rule's; the executed step still checks them).
fn bodies_clear(
    connection: &Connection,
    here: Vec2,
    predicted: Vec2,
    horizon_s: f64,
    neighbours: &[Neighbour],
) -> Result<(), CandidateRejection> {
    for n in neighbours {
        if same_direction(n.facing, connection.axis) {
            continue;
        }
        if !body_clear(here, predicted, n.position, n.velocity, horizon_s) {
            return Err(CandidateRejection::BodyConflict);
        }
    }
    Ok(())
}

/// The seed's body test on the ground plane (z = 0 for every walker). A pair that already
/// overlaps (bodies placed by something other than a walking step) passes only a candidate
/// that does not bring the walker closer, so overlapping bodies can always separate.
fn body_clear(here: Vec2, endpoint: Vec2, other: Vec2, velocity: Vec2, horizon_s: f64) -> bool {
    let now_sq = (here.x - other.x).powi(2) + (here.y - other.y).powi(2);
    if now_sq < SAFETY_DIAMETER_M * SAFETY_DIAMETER_M {
        let then_sq = (endpoint.x - other.x).powi(2) + (endpoint.y - other.y).powi(2);
        return then_sq >= now_sq;
    }
    clear(
        [here.x, here.y, 0.0],
        [endpoint.x, endpoint.y, 0.0],
        [other.x, other.y, 0.0],
        [velocity.x, velocity.y, 0.0],
        horizon_s,
    )
}

/// Towards the point one lookahead ahead on the connection's line (its goal near the end), so
/// a walker pushed aside returns to its route; the axis when already there.
fn desired_direction(connection: &Connection, here: Vec2) -> Vec2 {
    let along = connection.along_m(here).clamp(0.0, connection.length_m);
    let carrot = offset(
        connection.start,
        connection.axis,
        (along + LOOKAHEAD_M).min(connection.length_m),
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

fn offset(p: Vec2, direction: Vec2, length_m: f64) -> Vec2 {
    Vec2 {
        x: p.x + direction.x * length_m,
        y: p.y + direction.y * length_m,
    }
}

fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
}
