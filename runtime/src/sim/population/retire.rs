//! Retirement: a read-only eligibility check that returns a reason, the same at estimate and at
//! commit, in the population specification's order: Mission, pooled, occupancy (a vehicle seat, a
//! crosswalk transaction), vehicle intent, entry/exit, a pending or active task population does
//! not own, a current event, a queued event candidate, then the no-removal box. Then the spatial
//! rule by horizontal distance `d` to each valid view's population center: `d ≤ Rout` retains;
//! `Rout < d ≤ Rin` removes only when aggressive cleanup is allowed and every view, valid or
//! not, shows the ped offscreen (a missing view is no evidence); `d > Rin` is removable. Any
//! view requiring retention wins; no valid view never authorizes removal. The per-ped
//! multiplier scales the removal distances only, applied last; before it, a qualifying ped (a
//! suppress-cleanup request, which also disables the intermediate band, or an ordinary or task
//! extra-distance flag: `extra`) has them scaled by the scale its classification selects —
//! cops for law enforcement, special (1.6 by default) otherwise, never both.

use crate::project::{PopulationKind, VehicleRelation};
use crate::sim::observers::Observation;
use crate::sim::spatial::hypot_at_most;
use crate::sim::state::{AgentState, Agents, RetireRefusal, RetireRule, TaskHold};

use super::boxes::Boxes;

/// Removal distances are multiplied by this while cleanup is suppressed (the default special
/// removal scale; `population.special_removal_scale` sets it).
pub const SUPPRESS_CLEANUP_MULTIPLIER: f64 = crate::project::DEFAULT_SPECIAL_REMOVAL_SCALE;

/// Read-only eligibility of row `row`; population may clear only its own default task
/// (walking its route), so any other task protects the ped; `hold` is what the task sets hold
/// it with ([`crate::sim::tasks::TaskState::hold_of`]).
pub fn eligibility(
    agents: &Agents,
    row: usize,
    boxes: &Boxes,
    hold: Option<TaskHold>,
) -> Result<(), RetireRefusal> {
    if agents.kind[row] == PopulationKind::Mission {
        return Err(RetireRefusal::Mission);
    }
    if agents.pooled[row] {
        return Err(RetireRefusal::Pooled);
    }
    if agents.vehicle[row] == VehicleRelation::Seated {
        return Err(RetireRefusal::VehicleSeat);
    }
    if agents.crosswalk[row].phase.forces_full() {
        return Err(RetireRefusal::CrosswalkTransaction);
    }
    match agents.vehicle[row] {
        VehicleRelation::Intent => return Err(RetireRefusal::VehicleIntent),
        VehicleRelation::Entering | VehicleRelation::Exiting => {
            return Err(RetireRefusal::EntryExit)
        }
        VehicleRelation::None | VehicleRelation::Seated => {}
    }
    match hold {
        Some(TaskHold::Pending) => return Err(RetireRefusal::PendingTask),
        Some(TaskHold::Active) => return Err(RetireRefusal::DirectiveTask),
        _ => {}
    }
    // Walking its route, or standing after it (a finished walk, a finished or cancelled
    // task) is the population's default; holding, travelling, fleeing or lying knocked down is
    // not.
    if !matches!(agents.state[row], AgentState::Walking | AgentState::Arrived) {
        return Err(RetireRefusal::NonDefaultTask);
    }
    match hold {
        Some(TaskHold::CurrentEvent) => return Err(RetireRefusal::CurrentEvent),
        Some(TaskHold::QueuedEvent) => return Err(RetireRefusal::QueuedEvent),
        _ => {}
    }
    let p = agents.position[row];
    if boxes.protects([p.x, p.y, 0.0]) {
        return Err(RetireRefusal::NoRemovalBox);
    }
    Ok(())
}

/// The spatial rule for a ped at `feet_m`: the rule that removes it, or why it stays.
/// `world_multiplier` is 1 or the removal scale the ped's classification selects (see
/// `RemovalScales::select`); `ped_multiplier` applies last.
pub fn spatial(
    observation: &Observation,
    feet_m: [f64; 3],
    world_multiplier: f64,
    ped_multiplier: f64,
    aggressive: bool,
) -> Result<RetireRule, RetireRefusal> {
    if !observation.any_valid() {
        return Err(RetireRefusal::NoValidView);
    }
    let mut in_band = false;
    for view in observation.valid() {
        let scale = world_multiplier * ped_multiplier;
        let (r_out, r_in) = (view.retain_radius_m * scale, view.remove_radius_m * scale);
        // `view.horizontal_distance_m(feet_m)` against each radius, exactly, without the
        // library `hypot` away from the radii (this runs for every ped each cycle).
        let (dx, dy) = (feet_m[0] - view.center_m[0], feet_m[1] - view.center_m[1]);
        if hypot_at_most(dx, dy, r_out) {
            return Err(RetireRefusal::WithinRetainRadius);
        }
        in_band |= hypot_at_most(dx, dy, r_in);
    }
    if in_band {
        if !aggressive {
            return Err(RetireRefusal::CleanupDisabledInBand);
        }
        if observation.valid().any(|view| view.sees_ped(feet_m)) {
            return Err(RetireRefusal::OnscreenInBand);
        }
        // No valid view sees it: only an invalid view can keep it from being offscreen for all.
        if !observation.all_valid() {
            return Err(RetireRefusal::UnobservedInBand);
        }
        return Ok(RetireRule::Band);
    }
    Ok(RetireRule::Range)
}
