//! Task commands with exactly the specification's state changes, each refusal an
//! [`InstallRefusal`]:
//!
//! - rendezvous / escape install a parent after the installation checks (pooled, vehicle intent,
//!   occupancy, entry/exit, body suspension, another source's active parent); an active parent of
//!   the same source is replaced (a new task, a new session);
//! - hold: Travelling → WaitingForSignal, sets the command hold; goal, path and generation stay;
//! - continue: only from WaitingForSignal; clears only the command hold, → Travelling;
//! - redirect: cancels the query, snapshots a new goal, generation + 1, command count + 1, the
//!   same session, → Travelling (also from AwaitingDecision, keeping the failure count);
//! - cancel: closes only this parent and its matching movement (a task it suspended comes back);
//! - stand: a timed standing until a deadline frame, released by the clock (never by continue);
//! - an escape over an active rendezvous suspends it (`preempt`) rather than replacing it.
//!
//! A route walker with no directive parent keeps the older behaviour of hold and continue
//! (stop and resume its route walk), so scenarios that pause a walker still do.

use super::escape;
use super::movement::Movement;
use super::parent::{DirectiveParent, ParentKind, ParentState};
use super::paths::PathGrid;
use super::stops::{StopCause, StopOwner};
use super::Book;
use crate::project::{Vec2, VehicleRelation};
use crate::sim::motion::FLEE_SPEED_M_S;
use crate::sim::state::{AgentHandle, AgentState, InstallRefusal, TaskChange};
use crate::sim::walk::body::BODY_RADIUS_M;

/// Who a scenario directive's task belongs to (every scenario directive is the script's).
pub const SCRIPT_SOURCE: &str = "script";

/// Control eligibility: whether the ped may be controlled now — no vehicle relation (a seat,
/// an intent, entering or exiting) and no suspended body (a knockdown). Every command that
/// changes what the ped does checks it; a refused command changes nothing.
fn control_checks(book: &Book<'_>, row: usize, handle: AgentHandle) -> Result<(), InstallRefusal> {
    match book.agents.vehicle[row] {
        VehicleRelation::None => {}
        VehicleRelation::Seated => return Err(InstallRefusal::Occupancy),
        VehicleRelation::Intent => return Err(InstallRefusal::VehicleIntent),
        VehicleRelation::Entering | VehicleRelation::Exiting => {
            return Err(InstallRefusal::EntryExit)
        }
    }
    if book
        .tasks
        .stops_of(handle)
        .owner(StopCause::BodySuspension)
        .is_some()
    {
        return Err(InstallRefusal::BodySuspended);
    }
    Ok(())
}

/// The installation checks of a new primary task from `source`: control eligibility, then
/// another source's active task.
fn install_checks(
    book: &Book<'_>,
    row: usize,
    handle: AgentHandle,
    source: &str,
) -> Result<(), InstallRefusal> {
    control_checks(book, row, handle)?;
    if let Some(parent) = book.tasks.parents.get(&handle) {
        if parent.state.is_active() && parent.source != source {
            return Err(InstallRefusal::OtherSourceTask);
        }
    }
    Ok(())
}

/// Installs a new parent of `kind` towards `goal` walking at `speed_m_s`.
fn install(
    book: &mut Book<'_>,
    row: usize,
    handle: AgentHandle,
    kind: ParentKind,
    goal: [f64; 3],
    speed_m_s: f64,
) {
    let session = book.tasks.sessions + 1;
    let old = book
        .tasks
        .active_parent(handle)
        .map(|p| (p.session, p.kind.priority()));
    let mut floor = None;
    if let Some((old_session, old_priority)) = old {
        if kind.priority() > old_priority {
            // A higher-priority task suspends the active one instead of replacing it.
            floor = book.preempt(handle, session);
        }
        if floor.is_none() {
            let generation = book.generation(handle);
            let _ = book.tasks.release_stop(
                handle,
                StopCause::CommandHold,
                StopOwner::Directive {
                    session: old_session,
                },
            );
            if let Some(old) = book.tasks.parents.get_mut(&handle) {
                old.state = ParentState::Cancelled;
            }
            book.log(handle, generation, TaskChange::Replaced);
            book.hand_over_preemption(handle, old_session, session, kind.priority());
        }
    }
    book.tasks.sessions = session;
    book.tasks.service.cancel(handle);
    // RequestGoal removes the timed standing (its clock's release).
    book.tasks.release_timed_standing(handle);
    let p = book.agents.position[row];
    let facing = book.agents.facing[row];
    let movement = book
        .tasks
        .movements
        .entry(handle)
        .or_insert_with(|| Movement::new([p.x, p.y, 0.0], facing.y.atan2(facing.x), speed_m_s));
    movement.position = [p.x, p.y, 0.0];
    movement.speed_m_s = speed_m_s;
    movement
        .gait
        .switch_profile(super::gait::profile_for(&kind));
    if let Some(floor) = floor {
        movement.generation = movement.generation.max(floor);
    }
    movement.request_goal(goal);
    let generation = movement.generation;
    book.tasks.parents.insert(
        handle,
        DirectiveParent {
            source: super::commands::SCRIPT_SOURCE.to_owned(),
            session,
            kind,
            goal,
            commands: 1,
            failures: 0,
            state: ParentState::Travelling,
            last_failure: None,
            last_child_generation: generation,
        },
    );
    book.log(handle, generation, TaskChange::Installed);
}

/// Rendezvous at `goal` (already resolved from a scene object at command time).
pub(super) fn rendezvous(book: &mut Book<'_>, row: usize, handle: AgentHandle, goal: [f64; 3]) {
    if let Err(why) = install_checks(book, row, handle, SCRIPT_SOURCE) {
        return refuse(book, handle, why);
    }
    let speed = book.agents.speed_m_s[row];
    install(book, row, handle, ParentKind::Rendezvous, goal, speed);
    book.agents.state[row] = AgentState::Travelling;
    book.agents.target[row] = Some(Vec2 {
        x: goal[0],
        y: goal[1],
    });
}

/// Hold: a travelling parent waits for a signal; a parentless walker stops its route walk.
/// Refused while the ped may not be controlled (knocked down, a vehicle relation).
pub(super) fn hold(book: &mut Book<'_>, row: usize, handle: AgentHandle) {
    if let Err(why) = control_checks(book, row, handle) {
        return refuse(book, handle, why);
    }
    let Some(parent) = book.tasks.active_parent(handle) else {
        if book.agents.state[row] != AgentState::Holding {
            book.agents.resume[row] = book.agents.state[row];
            book.agents.state[row] = AgentState::Holding;
        }
        return;
    };
    if parent.state != ParentState::Travelling {
        return refuse(book, handle, InstallRefusal::WrongState);
    }
    let session = parent.session;
    book.tasks.set_stop(
        handle,
        StopCause::CommandHold,
        StopOwner::Directive { session },
    );
    if let Some(parent) = book.tasks.parents.get_mut(&handle) {
        parent.state = ParentState::WaitingForSignal;
        parent.commands += 1;
    }
    book.agents.resume[row] = AgentState::Travelling;
    book.agents.state[row] = AgentState::Holding;
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Held);
}

/// Continue: only from WaitingForSignal, releasing only the command hold; refused while the
/// ped may not be controlled.
pub(super) fn resume(book: &mut Book<'_>, row: usize, handle: AgentHandle) {
    if let Err(why) = control_checks(book, row, handle) {
        return refuse(book, handle, why);
    }
    let Some(parent) = book.tasks.active_parent(handle) else {
        if book.agents.state[row] == AgentState::Holding {
            book.agents.state[row] = book.agents.resume[row];
        }
        return;
    };
    if parent.state != ParentState::WaitingForSignal {
        return refuse(book, handle, InstallRefusal::WrongState);
    }
    let owner = StopOwner::Directive {
        session: parent.session,
    };
    let _ = book
        .tasks
        .release_stop(handle, StopCause::CommandHold, owner);
    if let Some(parent) = book.tasks.parents.get_mut(&handle) {
        parent.state = ParentState::Travelling;
        parent.commands += 1;
    }
    book.agents.state[row] = AgentState::Travelling;
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Continued);
}

/// Redirect to `goal`: a new execution in the same session. While the ped is out of control
/// (knocked down, a vehicle relation) the new goal is kept without a query, and executed from
/// the ped's actual position when control returns.
pub(super) fn redirect(book: &mut Book<'_>, row: usize, handle: AgentHandle, goal: [f64; 3]) {
    let Some(parent) = book.tasks.active_parent(handle) else {
        return refuse(book, handle, InstallRefusal::NoActiveParent);
    };
    let session = parent.session;
    book.tasks.service.cancel(handle);
    // RequestGoal removes the command hold and timed standing (their owners' releases).
    let _ = book.tasks.release_stop(
        handle,
        StopCause::CommandHold,
        StopOwner::Directive { session },
    );
    book.tasks.release_timed_standing(handle);
    let p = book.agents.position[row];
    let deferred = book.tasks.out_of_control(handle);
    if let Some(m) = book.tasks.movements.get_mut(&handle) {
        m.position = [p.x, p.y, m.position[2]];
        if deferred {
            m.defer_goal(goal);
        } else {
            m.request_goal(goal);
        }
    }
    if let Some(parent) = book.tasks.parents.get_mut(&handle) {
        parent.goal = goal;
        parent.commands += 1;
        parent.state = ParentState::Travelling;
    }
    book.agents.state[row] = match book.tasks.parents.get(&handle).map(|p| p.kind) {
        Some(ParentKind::Escape { .. }) => AgentState::Fleeing,
        _ => AgentState::Travelling,
    };
    book.agents.target[row] = Some(Vec2 {
        x: goal[0],
        y: goal[1],
    });
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Redirected);
}

/// Cancel: closes this parent and its movement when their goals agree; nothing for a parent
/// already completed or cancelled.
pub(super) fn cancel(book: &mut Book<'_>, handle: AgentHandle) {
    let Some(parent) = book.tasks.active_parent(handle) else {
        return refuse(book, handle, InstallRefusal::NoActiveParent);
    };
    let (session, goal) = (parent.session, parent.goal);
    let matching = book
        .tasks
        .movements
        .get(&handle)
        .is_some_and(|m| m.goal == goal);
    if matching {
        book.tasks.service.cancel(handle);
        if let Some(m) = book.tasks.movements.get_mut(&handle) {
            m.close();
        }
    }
    let _ = book.tasks.release_stop(
        handle,
        StopCause::CommandHold,
        StopOwner::Directive { session },
    );
    if let Some(parent) = book.tasks.parents.get_mut(&handle) {
        parent.state = ParentState::Cancelled;
        parent.commands += 1;
    }
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Cancelled);
    // A task this one suspended comes back (its owner releases the suspension); otherwise the
    // ped is an ambient ped again.
    book.end_preemption(handle, session);
    book.end_task(handle);
}

/// Stand: a timed standing of the active parent's movement until `until_frame`. The clock owns
/// it: a `Continue` never releases it, a new goal (redirect, a new task) removes it, and the
/// parent's state does not change (standing is not waiting for a decision).
pub(super) fn stand(book: &mut Book<'_>, handle: AgentHandle, until_frame: u64) {
    if book.tasks.active_parent(handle).is_none() {
        return refuse(book, handle, InstallRefusal::NoActiveParent);
    }
    book.tasks.set_stop(
        handle,
        StopCause::TimedStanding,
        StopOwner::Clock { until_frame },
    );
    if let Some(parent) = book.tasks.parents.get_mut(&handle) {
        parent.commands += 1;
    }
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Standing);
}

/// Escape from `threat`: select an endpoint, check it for queuing, install the response.
pub(super) fn escape(
    paths: &PathGrid,
    book: &mut Book<'_>,
    row: usize,
    handle: AgentHandle,
    threat: Vec2,
    safe_distance_m: f64,
) {
    if let Err(why) = install_checks(book, row, handle, SCRIPT_SOURCE) {
        return refuse(book, handle, why);
    }
    let agents = &*book.agents;
    let occupied = |p: Vec2| {
        (0..agents.len()).any(|r| {
            r != row
                && !agents.pooled[r]
                && (agents.position[r].x - p.x).hypot(agents.position[r].y - p.y)
                    < 2.0 * BODY_RADIUS_M
        })
    };
    let start = agents.position[row];
    let report = escape::select(
        paths,
        start,
        agents.facing[row],
        threat,
        safe_distance_m,
        &occupied,
    );
    let endpoint = report.endpoint();
    book.tasks.escapes.insert(handle, report);
    let Some(goal) = endpoint else {
        return refuse(book, handle, InstallRefusal::EscapeNotAccepted);
    };
    let from_threat = (goal[0] - threat.x).hypot(goal[1] - threat.y);
    if from_threat <= safe_distance_m + escape::QUEUING_MARGIN_M {
        return refuse(book, handle, InstallRefusal::EscapeGoalTooClose);
    }
    let kind = ParentKind::Escape {
        threat: [threat.x, threat.y, 0.0],
        safe_distance_m,
        start_count: 1,
    };
    install(book, row, handle, kind, goal, FLEE_SPEED_M_S);
    book.agents.state[row] = AgentState::Fleeing;
    book.agents.safe_distance_m[row] = safe_distance_m;
    book.agents.target[row] = Some(threat);
}

fn refuse(book: &mut Book<'_>, handle: AgentHandle, why: InstallRefusal) {
    let generation = book.generation(handle);
    book.log(handle, generation, TaskChange::Refused(why));
}

impl Book<'_> {
    /// The ped's movement generation (0 without one).
    pub(super) fn generation(&self, handle: AgentHandle) -> u32 {
        self.tasks
            .movements
            .get(&handle)
            .map_or(0, |m| m.generation)
    }
}
