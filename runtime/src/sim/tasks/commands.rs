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
//! - an escape (installed when its threat event is processed, `incidents`) replaces an active
//!   rendezvous of its source, keeping the interrupted goal for diagnostics only; with the
//!   escape's `restore_interrupted` it suspends it instead (`preempt`), to come back when the
//!   escape ends;
//! - identity: a command that changes an active task (hold, continue, redirect, stand, cancel)
//!   must come from the task's source and, when it names a session tag, that task's session.
//!
//! A route walker with no directive parent keeps the older behaviour of hold and continue
//! (stop and resume its route walk), so scenarios that pause a walker still do.

use super::movement::Movement;
use super::parent::{DirectiveParent, ParentKind, ParentState};
use super::stops::{StopCause, StopOwner};
use super::Book;
use crate::project::{Vec2, VehicleRelation};
use crate::sim::state::{AgentHandle, AgentState, InstallRefusal, TaskChange};

/// Who a scenario directive's task belongs to when the directive names no source.
pub const SCRIPT_SOURCE: &str = crate::sim::config::DEFAULT_SOURCE;

/// Who issues a task command: its source and the session tag it targets (0: the ped's current
/// task of that source), and the motion profile it names, if any.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Issuer<'a> {
    /// The task source.
    pub source: &'a str,
    /// The session tag targeted (0: any).
    pub session: u32,
    /// The motion profile a route command installs or switches to (`None`: the default for the
    /// task's kind, and a redirect keeps the current one).
    pub profile: Option<ChosenProfile>,
}

/// A motion profile a command names, resolved against the world's table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChosenProfile {
    /// Its index in the world's table.
    pub index: u16,
    /// The speed it steps at, meters per second (the movement's speed at installation).
    pub speed_m_s: f64,
}

impl Issuer<'static> {
    /// The script, targeting no particular session, naming no profile.
    pub const SCRIPT: Issuer<'static> = Issuer {
        source: SCRIPT_SOURCE,
        session: 0,
        profile: None,
    };
}

/// How a new parent is installed: by whom, under which session (`None`: a new one) and whether
/// a lower-priority task it interrupts is suspended to come back (`restore`) or replaced.
/// `profile` is the motion profile the movement walks with (`None`: `gait::profile_for`).
pub(super) struct Installing<'a> {
    pub source: &'a str,
    pub session: Option<u32>,
    pub restore: bool,
    pub profile: Option<u16>,
}

/// Control eligibility: whether the ped may be controlled now — no vehicle relation (a seat,
/// an intent, entering or exiting) and no suspended body (a knockdown). Every command that
/// changes what the ped does checks it; a refused command changes nothing.
pub(super) fn control_checks(
    book: &Book<'_>,
    row: usize,
    handle: AgentHandle,
) -> Result<(), InstallRefusal> {
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
/// another source's active or pending primary task (an active parent, or a queued event's
/// pending slot).
pub(super) fn install_checks(
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
    if book
        .tasks
        .pending_source(handle)
        .is_some_and(|pending| pending != source)
    {
        return Err(InstallRefusal::OtherSourceTask);
    }
    Ok(())
}

/// The identity checks of a command on the ped's active task: the task exists, `issuer` is
/// its source and, when it names a session tag, the task's session is that tag.
fn identity_checks(
    book: &Book<'_>,
    handle: AgentHandle,
    issuer: Issuer<'_>,
) -> Result<(), InstallRefusal> {
    let parent = book
        .tasks
        .active_parent(handle)
        .ok_or(InstallRefusal::NoActiveParent)?;
    if parent.source != issuer.source {
        return Err(InstallRefusal::NotTaskSource);
    }
    if issuer.session != 0 && parent.session != issuer.session {
        return Err(InstallRefusal::SessionMismatch);
    }
    Ok(())
}

/// Installs a new parent of `kind` towards `goal` walking at `speed_m_s`; returns its session.
pub(super) fn install(
    book: &mut Book<'_>,
    (row, handle): (usize, AgentHandle),
    kind: ParentKind,
    (goal, speed_m_s): ([f64; 3], f64),
    how: Installing<'_>,
) -> u32 {
    let session = how.session.unwrap_or(book.tasks.sessions + 1);
    // The new task takes the primary slot: a pending event of this source loses it.
    book.tasks.pending.remove(&handle);
    let old = book
        .tasks
        .active_parent(handle)
        .map(|p| (p.session, p.kind.priority()));
    let mut floor = None;
    if let Some((old_session, old_priority)) = old {
        if how.restore && kind.priority() > old_priority {
            // Asked to: a higher-priority task suspends the active one to restore it later.
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
            book.end_response(
                handle,
                old_session,
                crate::sim::state::PedEventEnd::Replaced,
            );
            book.hand_over_preemption(handle, old_session, session, kind.priority());
        }
    }
    book.tasks.sessions = book.tasks.sessions.max(session);
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
    let profile = how
        .profile
        .unwrap_or_else(|| super::gait::profile_for(&kind));
    movement.gait.switch_profile(profile);
    if let Some(floor) = floor {
        movement.generation = movement.generation.max(floor);
    }
    movement.request_goal(goal);
    let generation = movement.generation;
    book.tasks.parents.insert(
        handle,
        DirectiveParent {
            source: how.source.to_owned(),
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
    session
}

/// Rendezvous at `goal` (already resolved from a scene object at command time) for `issuer`'s
/// source.
pub(super) fn rendezvous(
    book: &mut Book<'_>,
    (row, handle): (usize, AgentHandle),
    goal: [f64; 3],
    issuer: Issuer<'_>,
) {
    if let Err(why) = install_checks(book, row, handle, issuer.source) {
        return refuse(book, handle, why);
    }
    // A named profile: the speed it steps at; else the ped's own (measured from the next step).
    let speed = issuer
        .profile
        .map_or(book.agents.speed_m_s[row], |p| p.speed_m_s);
    let how = Installing {
        source: issuer.source,
        session: None,
        restore: false,
        profile: issuer.profile.map(|p| p.index),
    };
    install(
        book,
        (row, handle),
        ParentKind::Rendezvous,
        (goal, speed),
        how,
    );
    book.agents.state[row] = AgentState::Travelling;
    book.agents.target[row] = Some(Vec2 {
        x: goal[0],
        y: goal[1],
    });
}

/// Hold: a travelling parent waits for a signal; a parentless walker stops its route walk.
/// Refused while the ped may not be controlled (knocked down, a vehicle relation).
pub(super) fn hold(book: &mut Book<'_>, (row, handle): (usize, AgentHandle), issuer: Issuer<'_>) {
    if let Err(why) = control_checks(book, row, handle) {
        return refuse(book, handle, why);
    }
    if book.tasks.active_parent(handle).is_some() {
        if let Err(why) = identity_checks(book, handle, issuer) {
            return refuse(book, handle, why);
        }
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
pub(super) fn resume(book: &mut Book<'_>, (row, handle): (usize, AgentHandle), issuer: Issuer<'_>) {
    if let Err(why) = control_checks(book, row, handle) {
        return refuse(book, handle, why);
    }
    if book.tasks.active_parent(handle).is_some() {
        if let Err(why) = identity_checks(book, handle, issuer) {
            return refuse(book, handle, why);
        }
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
pub(super) fn redirect(
    book: &mut Book<'_>,
    (row, handle): (usize, AgentHandle),
    goal: [f64; 3],
    issuer: Issuer<'_>,
) {
    if let Err(why) = identity_checks(book, handle, issuer) {
        return refuse(book, handle, why);
    }
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
        if let Some(profile) = issuer.profile {
            m.gait.switch_profile(profile.index);
        }
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
pub(super) fn cancel(book: &mut Book<'_>, handle: AgentHandle, issuer: Issuer<'_>) {
    if let Err(why) = identity_checks(book, handle, issuer) {
        return refuse(book, handle, why);
    }
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
    book.end_response(handle, session, crate::sim::state::PedEventEnd::Cancelled);
    // A task this one suspended comes back (its owner releases the suspension); otherwise the
    // ped is an ambient ped again.
    book.end_preemption(handle, session);
    book.end_task(handle);
}

/// Stand: a timed standing of the active parent's movement until `until_frame`. The clock owns
/// it: a `Continue` never releases it, a new goal (redirect, a new task) removes it, and the
/// parent's state does not change (standing is not waiting for a decision).
pub(super) fn stand(
    book: &mut Book<'_>,
    handle: AgentHandle,
    until_frame: u64,
    issuer: Issuer<'_>,
) {
    if let Err(why) = identity_checks(book, handle, issuer) {
        return refuse(book, handle, why);
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

/// The session of the ped's active parent when `issuer` may act on it (its source and, unless
/// 0, its session tag); otherwise the refusal is logged and `None` returned.
pub(super) fn issuer_session(
    book: &mut Book<'_>,
    handle: AgentHandle,
    issuer: Issuer<'_>,
) -> Option<u32> {
    match identity_checks(book, handle, issuer) {
        Ok(()) => book.tasks.active_parent(handle).map(|p| p.session),
        Err(why) => {
            refuse(book, handle, why);
            None
        }
    }
}

pub(super) fn refuse(book: &mut Book<'_>, handle: AgentHandle, why: InstallRefusal) {
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
