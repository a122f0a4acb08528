//! Knockdowns wired into today's world: the `Knockdown` directive (refused for pooled peds,
//! peds already down and peds with a vehicle intent), the body suspension (the ped's state
//! becomes `KnockedDown`, which no walker moves; the physics anchor is its position), task
//! directives that arrive meanwhile (they change the retained intent, never the suspension), the
//! recovery step at the start of the Tasks phase and the resume. Every transition goes to the
//! event log with its session and reason.

use super::physics::standing_blocked;
use super::{KnockdownRequest, Knockdowns, RecoveryEnv, Resume};
use crate::project::{Vec2, VehicleRelation};

use crate::sim::config::WorldConfig;
use crate::sim::events::{EventDetail, EventKind};
use crate::sim::population::{live_row, Sets};
use crate::sim::routes::SimRoute;
use crate::sim::spatial::closest_on_segment;
use crate::sim::state::agents::ambient_state;
use crate::sim::state::log_task;
use crate::sim::state::AgentHandle;
use crate::sim::state::AgentState;
use crate::sim::state::KnockdownReason;
use crate::sim::state::RecoveryPhase;
use crate::sim::state::TaskChange;
use crate::sim::state::TaskLedger;
use crate::sim::walk::body::SAFETY_DIAMETER_M;

/// A supporting point may lie this far outside a walkway's edge and still project onto it,
/// meters (the specification's projection error).
pub const PROJECTION_TOLERANCE_M: f64 = 0.5;

/// Whether `point` projects onto the pedestrian space: within half a route's walkway width
/// plus [`PROJECTION_TOLERANCE_M`] of its polyline.
pub fn walkable(routes: &[SimRoute], point: Vec2) -> bool {
    routes.iter().any(|route| {
        let reach = route.width_m() * 0.5 + PROJECTION_TOLERANCE_M;
        route
            .points()
            .windows(2)
            .any(|s| segment_distance_m(s[0], s[1], point) <= reach)
    })
}

fn segment_distance_m(a: Vec2, b: Vec2, p: Vec2) -> f64 {
    let c = closest_on_segment(p, a, b);
    (p.x - c.x).hypot(p.y - c.y)
}

fn log<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    handle: AgentHandle,
    session: u32,
    phase: Option<RecoveryPhase>,
    reason: KnockdownReason,
) {
    let source = live_row(sets.slots, sets.agents, handle).map(|r| sets.agents.source[r]);
    let detail = EventDetail::Knockdown {
        session,
        phase,
        reason,
    };
    sets.events.push(
        sets.frame,
        EventKind::Knockdown,
        Some(handle),
        source,
        detail,
    );
}

/// A cancel for a knocked-down ped: its retained intent ends (it stays still after recovery),
/// logged with its session.
pub(in crate::sim) fn cancel_retained<T: TaskLedger>(
    knock: &mut Knockdowns,
    sets: &mut Sets<'_, T>,
    handle: AgentHandle,
) {
    if let Some(session) = knock.cancel_intent(handle) {
        log(
            sets,
            handle,
            session,
            None,
            KnockdownReason::IntentCancelled,
        );
    }
}

/// The `Knockdown` directive on row `row`.
pub(in crate::sim) fn knock_down_row<T: TaskLedger>(
    knock: &mut Knockdowns,
    sets: &mut Sets<'_, T>,
    row: usize,
    impulse_n_s: [f64; 3],
) {
    let Some(handle) = sets.slots.handle_of(row) else {
        return;
    };
    let agents = &*sets.agents;
    let refusal = if agents.pooled[row] {
        Some(KnockdownReason::RefusedPooled)
    } else if knock.is_down(handle) || agents.state[row] == AgentState::KnockedDown {
        Some(KnockdownReason::RefusedAlreadyDown)
    } else if agents.vehicle[row] != VehicleRelation::None {
        Some(KnockdownReason::RefusedVehicleIntent)
    } else {
        None
    };
    if let Some(why) = refusal {
        log(sets, handle, u32::MAX, None, why);
        return;
    }
    let request = KnockdownRequest {
        handle,
        position: agents.position[row],
        facing: agents.facing[row],
        velocity_m_s: agents.velocity_m_s[row],
        impulse_n_s,
        intent: agents.state[row],
    };
    let session = knock.knock_down(sets.scene.current(), request);
    sets.agents.state[row] = AgentState::KnockedDown;
    let phase = Some(RecoveryPhase::Simulating);
    log(sets, handle, session, phase, KnockdownReason::Impulse);
}

/// The recovery of `update` releases the body suspension: the task layer replans an active
/// parent from where the body lies (a `Resumed` task event); a cancelled intent has no active
/// parent, so nothing is restored.
fn release_task<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    row: usize,
    update: &super::KnockdownUpdate,
) {
    let (p, h) = (update.anchor, update.heading);
    let at = [p.x, p.y, 0.0];
    let released = sets
        .tasks
        .release_body(update.handle, update.session, at, h.y.atan2(h.x));
    if let Ok(Some(generation)) = released {
        let session = sets.tasks.session_of(update.handle);
        let source = Some(sets.agents.source[row]);
        let (frame, change) = (sets.frame, TaskChange::Resumed);
        log_task(
            sets.events,
            frame,
            update.handle,
            source,
            session,
            generation,
            change,
        );
    }
}

/// Advances every knocked-down body and recovery by one fixed step (the start of the Tasks
/// phase, before this frame's directives): peds that left the world lose their bodies, anchors
/// become positions, transitions are logged, and a completed recovery resumes the retained
/// intent from the actual position (or leaves a cancelled ped standing).
pub(in crate::sim) fn knockdown_phase<T: TaskLedger>(
    config: &WorldConfig,
    knock: &mut Knockdowns,
    sets: &mut Sets<'_, T>,
) {
    if knock.never_used() {
        return;
    }
    let gone: Vec<AgentHandle> = knock
        .handles()
        .filter(|h| live_row(sets.slots, sets.agents, *h).is_none_or(|row| sets.agents.pooled[row]))
        .collect();
    for handle in gone {
        if let Some(session) = knock.forget(handle) {
            log(sets, handle, session, None, KnockdownReason::BodyRemoved);
        }
    }
    let updates = {
        let agents = &*sets.agents;
        let slots = &*sets.slots;
        let routes = &config.space.routes;
        let walkable = |p: Vec2| walkable(routes, p);
        let ped_in_the_way = |handle: AgentHandle, p: Vec2| {
            let own = slots.resolve(handle);
            (0..agents.len()).any(|row| {
                let q = agents.position[row];
                Some(row) != own
                    && !agents.pooled[row]
                    && (q.x - p.x).hypot(q.y - p.y) < SAFETY_DIAMETER_M
            })
        };
        let obstacles = sets.scene.current();
        let standing_blocked = |feet: [f64; 3]| standing_blocked(obstacles, feet);
        let env = RecoveryEnv {
            walkable: &walkable,
            ped_in_the_way: &ped_in_the_way,
            standing_blocked: &standing_blocked,
        };
        knock.sync_obstacles(obstacles);
        knock.step(config.fixed_step_s, &env)
    };
    for update in updates {
        let Some(row) = live_row(sets.slots, sets.agents, update.handle) else {
            continue;
        };
        sets.agents.position[row] = update.anchor;
        sets.agents.facing[row] = update.heading;
        if let Some(t) = update.transition {
            log(sets, update.handle, update.session, Some(t.to), t.reason);
        }
        if update.resume.is_some() {
            release_task(sets, row, &update);
        }
        match update.resume {
            Some(Resume::Intent(intent)) => sets.agents.state[row] = intent,
            // The intent ended meanwhile: the ped is an ambient ped again, never the cancelled
            // task's traveller.
            Some(Resume::Ended) => {
                sets.agents.state[row] = ambient_state(sets.agents, row);
                sets.agents.target[row] = None;
            }
            None => {}
        }
    }
}
