//! Movement: the replaceable execution of a parent's intent — position, heading, goal, path,
//! corner index, query generation, motion state and blocking timers.
//!
//! `request_goal` starts a new execution (generation + 1, path and progress cleared, a query
//! needed); `accept_path` installs a reply only when it answers the current generation while a
//! query is pending, and only when its endpoint is within [`ENDPOINT_TOLERANCE_M`] of the goal on
//! every axis. Following a path moves along its corner lines in substeps of at most
//! [`MAX_SUBSTEP_S`], each step's distance and heading given by the ped's motion profile
//! ([`super::gait`]: start, loop and goal-stop budgets from the distance curves, turn clips and
//! rate-limited turns); the goal stop ends on the endpoint, and only once its clip has ended
//! does arrival (3D distance ≤ [`ARRIVAL_RADIUS_M`]) publish `Arrived`.

use std::cell::RefCell;

use super::failure;
use super::gait::{wrap_rad, Gait, GaitPhase};
use super::paths::{distance, Obstacle, PathGrid, PathReply};
use crate::project::Vec2;
use crate::sim::config::profiles::{MotionProfile, ProfileTable};
use crate::sim::state::{Canonical, MoveFailure, ReplanCause, StaleReply};
use crate::sim::walk::body::BODY_RADIUS_M;
use crate::sim::walk::fan::Fan;
use crate::sim::walk::neighbours::Bodies;
use crate::sim::walk::steer::{offset, steer, Neighbour, Scene};
use crate::sim::{state::CandidateRejection, walk::LOOKAHEAD_M};

/// A path is accepted only if its endpoint is within this of the goal on every axis, meters.
pub const ENDPOINT_TOLERANCE_M: f64 = 0.15;
/// Arrival: 3D distance from the ped to the goal at most this, meters.
pub const ARRIVAL_RADIUS_M: f64 = 0.15;
/// Longest movement substep, seconds.
pub const MAX_SUBSTEP_S: f64 = 0.05;
/// How far a neighbour may have moved since the neighbour grid bucketed it, meters.
pub(super) const NEIGHBOUR_SLACK_M: f64 = 0.5;

/// What a movement is doing.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum MotionState {
    /// A query is pending (or must be submitted).
    AwaitingPath,
    /// Following its path.
    Walking,
    /// Playing the goal stop clip towards the endpoint.
    Stopping,
    /// Arrived at the goal.
    Arrived,
    /// Failed (the reason is kept).
    Failed,
    /// Suspended by its body (knockdown): no query, no step.
    Suspended,
    /// Closed by a cancel: never walks again.
    Closed,
}

impl MotionState {
    /// A stable small number.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One movement execution.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct Movement {
    /// Position, meters (mirrors the ped's).
    pub position: [f64; 3],
    /// Heading around Z, radians.
    pub heading_rad: f64,
    /// The goal this execution walks to, meters.
    pub goal: [f64; 3],
    /// Path corners, the start first.
    pub path: Vec<[f64; 3]>,
    /// Index of the corner walked towards.
    pub corner: u32,
    /// Query generation.
    pub generation: u32,
    /// Motion state.
    pub state: MotionState,
    /// Whether a query of this generation is pending.
    pub pending: bool,
    /// Whether a query must be submitted for this generation.
    pub needs_query: bool,
    /// Measured speed over the last step (accepted displacement over the step), meters per
    /// second.
    pub speed_m_s: f64,
    /// Time the current step has been blocked, seconds.
    pub blocked_s: f64,
    /// Time without progress towards the current corner, seconds.
    pub no_progress_s: f64,
    /// Closest distance to the current corner so far, meters.
    pub best_corner_m: f64,
    /// Replans of this execution so far.
    pub replans: u32,
    /// Why it failed.
    pub failure: Option<MoveFailure>,
    /// The motion profile's state: phase, clip and cycle time, budgets.
    pub gait: Gait,
}

impl Movement {
    /// A movement standing at `position` with no goal yet (generation 0).
    pub fn new(position: [f64; 3], heading_rad: f64, speed_m_s: f64) -> Movement {
        Movement {
            position,
            heading_rad,
            goal: position,
            path: Vec::new(),
            corner: 0,
            generation: 0,
            state: MotionState::AwaitingPath,
            pending: false,
            needs_query: false,
            speed_m_s,
            blocked_s: 0.0,
            no_progress_s: 0.0,
            best_corner_m: f64::INFINITY,
            replans: 0,
            failure: None,
            gait: Gait::default(),
        }
    }

    /// Starts a new execution towards `goal`: generation + 1, path and progress cleared, motion
    /// and blocking reset, a query needed. (The caller cancels the outstanding query and clears
    /// the command hold and timed standing, which are not the movement's.)
    pub fn request_goal(&mut self, goal: [f64; 3]) {
        self.goal = goal;
        self.replans = 0;
        self.restart();
    }

    /// A new goal while the ped is out of the movement's control (its body knocked down, a
    /// vehicle relation): kept without a query — generation + 1, path and progress cleared,
    /// suspended — and executed from the actual position when the suspension ends
    /// ([`Movement::resume_from`]).
    pub fn defer_goal(&mut self, goal: [f64; 3]) {
        self.goal = goal;
        self.replans = 0;
        self.generation = self.generation.wrapping_add(1);
        self.path.clear();
        self.corner = 0;
        self.pending = false;
        self.needs_query = false;
        self.failure = None;
        self.state = MotionState::Suspended;
        self.reset_timers();
    }

    /// A new query for the same goal from the current position (replan or resumption).
    fn restart(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.path.clear();
        self.corner = 0;
        self.state = MotionState::AwaitingPath;
        self.pending = true;
        self.needs_query = true;
        self.failure = None;
        self.reset_timers();
    }

    fn reset_timers(&mut self) {
        self.blocked_s = 0.0;
        self.no_progress_s = 0.0;
        self.best_corner_m = f64::INFINITY;
        self.gait.settle();
    }

    /// Installs `reply` if it answers the pending query of this generation.
    pub fn accept_path(&mut self, reply: &PathReply) -> Result<(), StaleReply> {
        if reply.generation != self.generation {
            return Err(StaleReply::GenerationMismatch);
        }
        if !self.pending || self.state == MotionState::Suspended {
            return Err(StaleReply::NothingPending);
        }
        self.pending = false;
        self.needs_query = false;
        let verdict = match &reply.outcome {
            Err(why) => Err(MoveFailure::Query(*why)),
            Ok(found) => match found.points.last() {
                None => Err(MoveFailure::EmptyPath),
                Some(end) if !within_per_axis(*end, self.goal, ENDPOINT_TOLERANCE_M) => {
                    Err(MoveFailure::EndpointOutsideTolerance)
                }
                Some(_) => Ok(found.points.clone()),
            },
        };
        match verdict {
            Ok(points) => {
                self.path = points;
                self.corner = 1;
                self.state = MotionState::Walking;
                self.reset_timers();
            }
            Err(why) => self.fail(why),
        }
        Ok(())
    }

    /// Ends this execution as failed.
    pub fn fail(&mut self, why: MoveFailure) {
        self.state = MotionState::Failed;
        self.failure = Some(why);
        self.pending = false;
        self.needs_query = false;
    }

    /// Replans (a new generation from the current position) or, past the limit, fails.
    pub fn replan(&mut self) -> Result<(), MoveFailure> {
        self.replans += 1;
        if self.replans > failure::MAX_REPLANS {
            self.fail(MoveFailure::ReplansExhausted);
            return Err(MoveFailure::ReplansExhausted);
        }
        self.restart();
        Ok(())
    }

    /// Body suspension begins: the query is invalidated (generation + 1) and nothing moves;
    /// an unfinished execution keeps its need of a path for when the body is released.
    pub fn suspend(&mut self) {
        if matches!(
            self.state,
            MotionState::Arrived | MotionState::Failed | MotionState::Closed
        ) {
            return;
        }
        self.generation = self.generation.wrapping_add(1);
        self.path.clear();
        self.corner = 0;
        self.pending = false;
        self.needs_query = false;
        self.state = MotionState::Suspended;
        self.reset_timers();
    }

    /// Body suspension ends at `position`: replan from there to the retained goal.
    pub fn resume_from(&mut self, position: [f64; 3], heading_rad: f64) {
        if self.state != MotionState::Suspended {
            return;
        }
        self.position = position;
        self.heading_rad = heading_rad;
        self.restart();
    }

    /// Closes the execution (a cancel): the generation moves on so no reply can install, and
    /// nothing moves again.
    pub fn close(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.path.clear();
        self.corner = 0;
        self.pending = false;
        self.needs_query = false;
        self.state = MotionState::Closed;
        self.reset_timers();
    }

    /// 3D distance to the goal, meters.
    pub fn distance_to_goal_m(&self) -> f64 {
        let d: f64 = (0..3)
            .map(|i| (self.position[i] - self.goal[i]).powi(2))
            .sum();
        d.sqrt()
    }
}

/// Whether `a` is within `tolerance` of `b` on every axis.
pub fn within_per_axis(a: [f64; 3], b: [f64; 3], tolerance: f64) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= tolerance)
}

/// What a movement's step reads besides the movement.
pub(super) struct MoveEnv<'a> {
    /// The walkable grid.
    pub grid: &'a PathGrid,
    /// Obstacles the body meets that navigation does not know.
    pub unknown: &'a [Obstacle],
    /// The bodies around the ped (gathered by `steer::gather_neighbours` before the step).
    pub neighbours: &'a [Neighbour],
    /// The buffers of the candidate tests (reused from ped to ped).
    pub bodies: &'a RefCell<Bodies>,
    /// The steering fan walkers use.
    pub fan: &'a Fan,
    /// Fixed step, seconds.
    pub dt_s: f64,
    /// The world's motion profiles.
    pub profiles: &'a ProfileTable,
}

/// What one step of a movement did that its parent or the log should hear about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepOutcome {
    /// Nothing notable.
    Quiet,
    /// It replanned for this reason.
    Replanned(ReplanCause),
    /// It failed.
    Failed(MoveFailure),
    /// It arrived.
    Arrived,
}

/// Advances a movement by one fixed step, in substeps of at most [`MAX_SUBSTEP_S`]. `stopped`
/// is true while any stop cause holds the ped: nothing translates and no blocking time accrues
/// (waiting on a command is not being stuck), while a ped that was under way plays its stop
/// tail (a pose change without translation).
pub(super) fn advance(m: &mut Movement, env: &MoveEnv<'_>, stopped: bool) -> StepOutcome {
    let profile = env.profiles.get(m.gait.profile);
    let substeps = (env.dt_s / MAX_SUBSTEP_S).ceil().max(1.0) as u32;
    let sub_dt = env.dt_s / f64::from(substeps);
    if stopped || !matches!(m.state, MotionState::Walking | MotionState::Stopping) {
        for _ in 0..substeps {
            m.gait.hold(profile, sub_dt);
        }
        m.speed_m_s = 0.0;
        return StepOutcome::Quiet;
    }
    let mut moved_m = 0.0;
    for _ in 0..substeps {
        let (outcome, moved) = substep(m, env, profile, sub_dt);
        moved_m += moved;
        if outcome != StepOutcome::Quiet {
            m.speed_m_s = moved_m / env.dt_s;
            return outcome;
        }
    }
    m.speed_m_s = moved_m / env.dt_s;
    StepOutcome::Quiet
}

/// One substep: the turn clip, or a rate-limited turn and then the profile's distance along
/// the path. Returns what happened and the accepted displacement, meters.
fn substep(m: &mut Movement, env: &MoveEnv<'_>, p: &MotionProfile, dt: f64) -> (StepOutcome, f64) {
    if m.gait.phase == GaitPhase::Turn {
        turn_clip(m, p, dt);
        return (StepOutcome::Quiet, 0.0);
    }
    if let Some(&corner) = m.path.get(m.corner as usize) {
        if !turn_towards(m, p, ground(corner), dt) {
            return (StepOutcome::Quiet, 0.0);
        }
    }
    if matches!(m.gait.phase, GaitPhase::Idle | GaitPhase::HoldTail) {
        m.gait.enter(GaitPhase::Start, 0.0);
    }
    let remaining = remaining_route_m(m);
    if m.gait.phase != GaitPhase::Stop && remaining <= p.stop.total_m() {
        m.gait.begin_stop(p, remaining);
        m.state = MotionState::Stopping;
    }
    let clip_before = m.gait.clip_time_s;
    let (want_m, time_s) = m.gait.propose(p, dt);
    let (moved, blocked) = follow(m, env, want_m, p.speed_m_s);
    let stop_done = m
        .gait
        .commit(p, moved, if blocked { clip_before } else { time_s });
    if stop_done {
        return (finish_stop(m, env.grid), moved);
    }
    (judge(m, dt, blocked), moved)
}

/// Plays the turn clip: the heading follows the clip's progress times the actual difference;
/// at its end the ped starts.
fn turn_clip(m: &mut Movement, p: &MotionProfile, dt: f64) {
    let (heading, done) = m.gait.turn_step(p, dt);
    m.heading_rad = wrap_rad(heading);
    m.gait.budget_m = 0.0;
    m.gait.proposed_m = 0.0;
    m.gait.accepted_m = 0.0;
    if done {
        m.gait.enter(GaitPhase::Start, 0.0);
    }
}

/// Turns the heading towards `target`: a difference beyond the profile's threshold begins the
/// turn clip (outside a goal stop); a smaller one turns by at most the rate limit. False when
/// this substep only rotates (the turn clip, or still misaligned beyond `align_deg`).
fn turn_towards(m: &mut Movement, p: &MotionProfile, target: Vec2, dt: f64) -> bool {
    let here = ground(m.position);
    if distance(here, target) <= 1e-9 {
        return true;
    }
    let desired = (target.y - here.y).atan2(target.x - here.x);
    let diff = wrap_rad(desired - m.heading_rad);
    if diff.abs() > p.turn_clip_above_deg.to_radians() && m.gait.phase != GaitPhase::Stop {
        m.gait.begin_turn(m.heading_rad, diff);
        turn_clip(m, p, dt);
        return false;
    }
    let limit = p.turn_rate_deg_s.to_radians() * dt;
    let turn = diff.clamp(-limit, limit);
    m.heading_rad = wrap_rad(m.heading_rad + turn);
    (diff - turn).abs() <= p.align_deg.to_radians()
}

/// The route left: to the current corner, then corner to corner to the end, meters.
pub fn remaining_route_m(m: &Movement) -> f64 {
    let start = (m.corner as usize).min(m.path.len());
    let mut from = ground(m.position);
    let mut total = 0.0;
    for corner in &m.path[start..] {
        let to = ground(*corner);
        total += distance(from, to);
        from = to;
    }
    total
}

/// Moves up to `want_m` along the path through the steering helper, passing corners. Returns
/// the accepted displacement and whether the step was refused (blocked).
fn follow(m: &mut Movement, env: &MoveEnv<'_>, want_m: f64, speed_m_s: f64) -> (f64, bool) {
    let mut left = want_m;
    let mut moved = 0.0;
    while left > 1e-12 {
        let Some(&corner) = m.path.get(m.corner as usize) else {
            break;
        };
        let (here, target) = (ground(m.position), ground(corner));
        let remaining = distance(here, target);
        let stride = left.min(remaining);
        let Some(next) = steered_step(env, here, target, remaining, stride, speed_m_s) else {
            return (moved, true);
        };
        moved += distance(here, next);
        left -= stride;
        m.position = [next.x, next.y, m.position[2]];
        if distance(next, target) > 1e-9 {
            break;
        }
        m.corner += 1;
        m.best_corner_m = f64::INFINITY;
        m.no_progress_s = 0.0;
    }
    (moved, false)
}

/// Blocking and progress timers after a moving substep; past their limits, a replan.
fn judge(m: &mut Movement, dt: f64, blocked: bool) -> StepOutcome {
    if blocked {
        m.blocked_s += dt;
    } else {
        m.blocked_s = 0.0;
    }
    if let Some(&corner) = m.path.get(m.corner as usize) {
        let now = distance(ground(m.position), ground(corner));
        if now < m.best_corner_m - 1e-6 {
            m.best_corner_m = now;
            m.no_progress_s = 0.0;
        } else {
            m.no_progress_s += dt;
        }
    }
    match failure::judge(m.blocked_s, m.no_progress_s) {
        None => StepOutcome::Quiet,
        Some(cause) => match m.replan() {
            Ok(()) => StepOutcome::Replanned(cause),
            Err(why) => StepOutcome::Failed(why),
        },
    }
}

/// The goal stop's clip has ended: arrived when within [`ARRIVAL_RADIUS_M`] of the goal (and
/// no route is left); otherwise walk on — to the rest of the route, or, when the accepted
/// endpoint was not close enough in 3D, towards the goal as far as the walkable grid reaches
/// ([`walk_on_target`]: a goal just off the grid, its endpoint projected, is approached to its
/// edge instead of stepping off it, which would block the stop forever). When that leaves
/// nothing to walk while still outside the radius, the execution fails
/// (`EndpointOutsideTolerance`) instead of replaying empty stops.
fn finish_stop(m: &mut Movement, grid: &PathGrid) -> StepOutcome {
    let left = remaining_route_m(m);
    if left <= 1e-3 && m.distance_to_goal_m() <= ARRIVAL_RADIUS_M {
        m.corner = m.path.len() as u32;
        m.state = MotionState::Arrived;
        m.gait.enter(GaitPhase::Idle, 0.0);
        return StepOutcome::Arrived;
    }
    if left <= 1e-3 {
        let target = walk_on_target(grid, ground(m.position), ground(m.goal));
        let z = m.position[2];
        let reaches = (0..2)
            .map(|i| [target.x, target.y][i] - m.goal[i])
            .chain([z - m.goal[2]])
            .map(|d| d * d)
            .sum::<f64>()
            .sqrt()
            <= ARRIVAL_RADIUS_M;
        if !reaches || distance(ground(m.position), target) <= 1e-3 {
            m.fail(MoveFailure::EndpointOutsideTolerance);
            m.gait.enter(GaitPhase::Idle, 0.0);
            return StepOutcome::Failed(MoveFailure::EndpointOutsideTolerance);
        }
        m.path.push([target.x, target.y, z]);
        m.corner = m.path.len() as u32 - 1;
    }
    m.state = MotionState::Walking;
    m.gait.enter(GaitPhase::Start, 0.0);
    StepOutcome::Quiet
}

/// Where a walk-on from `here` towards `goal` ends: the goal itself when it is walkable (or the
/// ped already stands off the grid), else the last walkable point of the straight segment,
/// found by bisection (the step test refuses a step from a walkable cell onto an unwalkable one).
pub(super) fn walk_on_target(grid: &PathGrid, here: Vec2, goal: Vec2) -> Vec2 {
    if grid.is_walkable(goal) || !grid.is_walkable(here) {
        return goal;
    }
    let at = |t: f64| Vec2 {
        x: here.x + (goal.x - here.x) * t,
        y: here.y + (goal.y - here.y) * t,
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        if grid.is_walkable(at(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(lo)
}

/// The step of `stride` towards `target` through the walkers' steering helper: straight when
/// that is safe (reaching the corner exactly when it is within the stride), else the best safe
/// fan candidate around the straight way (a sidestep around bodies); `None` when nothing is
/// safe or static geometry blocks the straight way (a task ped does not slide along walls: it
/// waits, and its blocking timers decide a replan).
fn steered_step(
    env: &MoveEnv<'_>,
    here: Vec2,
    target: Vec2,
    remaining: f64,
    stride: f64,
    speed_m_s: f64,
) -> Option<Vec2> {
    if remaining <= 1e-12 || stride <= 0.0 || speed_m_s <= 0.0 {
        return Some(here);
    }
    let desired = Vec2 {
        x: (target.x - here.x) / remaining,
        y: (target.y - here.y) / remaining,
    };
    let mut bodies = env.bodies.borrow_mut();
    bodies.fill(
        env.neighbours,
        here,
        desired,
        LOOKAHEAD_M / speed_m_s,
        stride,
    );
    let mut scene = PathScene {
        grid: env.grid,
        unknown: env.unknown,
        static_block: false,
    };
    let choice = steer(env.fan, &mut bodies, &mut scene, here, desired, stride).ok()?;
    if choice.angle_deg == 0 && remaining <= stride + 1e-12 {
        return Some(target);
    }
    Some(offset(here, choice.direction, stride))
}

/// A task ped's scene: the walkable grid (a body already off it may move) and the obstacles
/// navigation does not know (a step may not bring the body within its radius of one, closer
/// than it was). Once static geometry refuses the straight way no sidestep is offered.
struct PathScene<'a> {
    grid: &'a PathGrid,
    unknown: &'a [Obstacle],
    static_block: bool,
}

impl Scene for PathScene<'_> {
    fn candidate(
        &self,
        here: Vec2,
        step_end: Vec2,
        _predicted: Vec2,
    ) -> Result<(), CandidateRejection> {
        if self.static_block {
            return Err(CandidateRejection::NoForwardExit);
        }
        self.step(here, step_end)
    }

    fn straight_refused(&mut self, reason: CandidateRejection) {
        self.static_block = matches!(
            reason,
            CandidateRejection::OffWalkway | CandidateRejection::StaticBlocker
        );
    }

    fn step(&self, here: Vec2, next: Vec2) -> Result<(), CandidateRejection> {
        if !self.grid.is_walkable(next) && self.grid.is_walkable(here) {
            return Err(CandidateRejection::OffWalkway);
        }
        let touches = |o: &Obstacle| {
            o.clearance_m(next) < BODY_RADIUS_M && o.clearance_m(next) < o.clearance_m(here)
        };
        if self.unknown.iter().any(touches) {
            return Err(CandidateRejection::StaticBlocker);
        }
        Ok(())
    }
}

fn ground(p: [f64; 3]) -> Vec2 {
    Vec2 { x: p[0], y: p[1] }
}

impl Canonical for Movement {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        for v in self.position.iter().chain(&self.goal) {
            v.write_canonical(bytes);
        }
        self.heading_rad.write_canonical(bytes);
        super::paths::write_points(&self.path, bytes);
        self.corner.write_canonical(bytes);
        self.generation.write_canonical(bytes);
        bytes.push(self.state.code());
        self.pending.write_canonical(bytes);
        self.needs_query.write_canonical(bytes);
        self.speed_m_s.write_canonical(bytes);
        self.blocked_s.write_canonical(bytes);
        self.no_progress_s.write_canonical(bytes);
        self.best_corner_m.write_canonical(bytes);
        self.replans.write_canonical(bytes);
        let (kind, detail) = self.failure.map_or((255, 0), MoveFailure::code);
        bytes.extend_from_slice(&[kind, detail]);
        self.gait.write_canonical(bytes);
    }
}
