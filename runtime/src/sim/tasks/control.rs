//! Control eligibility where directives meet the body and the vehicle relation: a knockdown or
//! a blocking vehicle relation suspends a running task's movement (a `Suspended` task event),
//! a command given to a knocked-down ped changes only what the command itself accepted (a
//! refused command leaves the retained intent as it was), and an explicit destroy is logged as
//! the ped's retirement with its rule.

use crate::project::VehicleRelation;
use crate::sim::knockdown::phase::cancel_retained;
use crate::sim::knockdown::Knockdowns;
use crate::sim::state::{
    log_task, AgentHandle, AgentState, EventDetail, EventKind, EventPosition, RemovalCause,
    TaskChange,
};
use crate::sim::{population::destroy, state::RetireRule};

use super::TaskSets as Sets;

fn log_change(sets: &mut Sets<'_>, row: usize, handle: AgentHandle, change: (TaskChange, u32)) {
    let source = Some(sets.agents.source[row]);
    let session = sets.tasks.session_of(handle);
    let (change, generation) = change;
    log_task(
        sets.events,
        sets.frame,
        handle,
        source,
        session,
        generation,
        change,
    );
}

/// `SetVehicleRelation`: a blocking relation takes the ped out of its task movement's control
/// until the relation is none again (the parent stays active meanwhile).
pub(super) fn set_vehicle_relation(
    sets: &mut Sets<'_>,
    row: usize,
    handle: Option<AgentHandle>,
    relation: VehicleRelation,
) {
    sets.agents.vehicle[row] = relation;
    let Some(handle) = handle else { return };
    let blocking = relation != VehicleRelation::None;
    let (p, f) = (sets.agents.position[row], sets.agents.facing[row]);
    let position = [p.x, p.y, 0.0];
    let changed = sets
        .tasks
        .relate_vehicle(handle, blocking, position, f.y.atan2(f.x));
    if let Some(change) = changed {
        log_change(sets, row, handle, change);
    }
}

/// After a `Knockdown`: the body suspends the ped's task movement until its recovery releases
/// it.
pub(super) fn suspend_knocked_down(
    sets: &mut Sets<'_>,
    knock: &Knockdowns,
    row: usize,
    handle: AgentHandle,
) {
    let Some(session) = knock.session(handle) else {
        return;
    };
    if let Some(generation) = sets.tasks.suspend_body(handle, session) {
        log_change(sets, row, handle, (TaskChange::Suspended, generation));
    }
}

/// A task command for a knocked-down ped (`apply` runs it): the command checks control
/// eligibility itself (a refused command changes nothing; a redirect is kept without a query
/// until the body recovers). The state it resumes with after recovery is the state the command
/// left, and a cancel ends the retained intent.
pub(super) fn command_while_down(
    sets: &mut Sets<'_>,
    knock: &mut Knockdowns,
    (row, handle): (usize, AgentHandle),
    intent: AgentState,
    cancel: bool,
    apply: &mut dyn FnMut(&mut Sets<'_>),
) {
    sets.agents.state[row] = intent;
    apply(sets);
    let changed = sets.agents.state[row];
    sets.agents.state[row] = AgentState::KnockedDown;
    if cancel {
        cancel_retained(knock, sets, handle);
    } else if changed != intent {
        knock.set_intent(handle, changed);
    }
}

/// `Destroy`: a member leaves its source by an explicit destroy, and its retirement says so.
pub(super) fn destroy_explicitly(sets: &mut Sets<'_>, row: usize, handle: AgentHandle) {
    let source = Some(sets.agents.source[row]);
    if !sets.agents.pooled[row] {
        let detail = EventDetail::Retirement {
            pooled: false,
            rule: RetireRule::ExplicitDestroy,
        };
        let at = Some(EventPosition::of(sets.agents.position[row]));
        sets.events.push_at(
            sets.frame,
            EventKind::Retired,
            Some(handle),
            source,
            detail,
            at,
        );
    }
    destroy(sets, handle, source, RemovalCause::Explicit);
}
