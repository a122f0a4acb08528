//! The Tasks phase: the directives due this frame, in file order. A directive's target (a
//! birth ordinal, a handle, the nearest ambient ped to a point, or the world) is resolved
//! deterministically; an unresolvable target is recorded in the event log with its reason and
//! does nothing. Ped commands change the ped's task or ownership; world commands change the
//! boxes, requests, observers and families.

use super::agents::{AgentState, Agents};
use super::events::{BoxChange, BoxSlot, EventDetail, EventKind, Unresolved};
use super::knockdown::phase::{knock_down_row, knockdown_phase, retained_command};
use super::knockdown::Knockdowns;
use super::population::{claim, destroy, live_row, release, ClaimRefusal, Sets};
use super::scenario::{Command, DirectiveSpec, DirectiveTarget};
use super::world::WorldConfig;
use crate::project::PopulationKind;

/// Tasks: advance the knocked-down bodies and their recoveries (so a recovered ped's intent
/// resumes before Motion), then apply the directives due this frame, in file order.
pub(super) fn tasks_phase(config: &WorldConfig, sets: &mut Sets<'_>, knock: &mut Knockdowns) {
    knockdown_phase(config, knock, sets);
    let directives = &config.scenario.directives;
    let frame = sets.frame;
    let start = directives.partition_point(|d| d.frame < frame);
    for directive in directives[start..].iter().take_while(|d| d.frame == frame) {
        let outcome = match directive.target {
            DirectiveTarget::World => world_command(sets, &directive.command).map(|()| None),
            target => resolve(sets, target).map(Some),
        };
        match outcome {
            Ok(row) => {
                sets.counters.directives_applied += 1;
                log_directive(sets, directive, row, None);
                if let Some(row) = row {
                    ped_command(config, sets, knock, row, directive);
                }
            }
            Err(why) => {
                sets.counters.directives_missed += 1;
                log_directive(sets, directive, None, Some(why));
            }
        }
    }
}

fn log_directive(
    sets: &mut Sets<'_>,
    directive: &DirectiveSpec,
    row: Option<usize>,
    unresolved: Option<Unresolved>,
) {
    let handle = row.and_then(|r| sets.slots.handle_of(r));
    let source = row.map(|r| sets.agents.source[r]);
    let detail = EventDetail::Directive {
        index: directive.index,
        unresolved,
    };
    sets.events
        .push(sets.frame, EventKind::Directive, handle, source, detail);
}

/// The row a ped target names now.
fn resolve(sets: &Sets<'_>, target: DirectiveTarget) -> Result<usize, Unresolved> {
    match target {
        DirectiveTarget::Born { source, ordinal } => {
            let handle = sets
                .births
                .get(usize::from(source))
                .and_then(|b| b.get(ordinal as usize))
                .ok_or(Unresolved::NotBorn)?;
            live_row(sets.slots, sets.agents, *handle).ok_or(Unresolved::Stale)
        }
        DirectiveTarget::Handle(handle) => {
            live_row(sets.slots, sets.agents, handle).ok_or(Unresolved::Stale)
        }
        DirectiveTarget::NearestAmbient { x_bits, y_bits } => {
            nearest_ambient(sets, f64::from_bits(x_bits), f64::from_bits(y_bits))
        }
        DirectiveTarget::World => Err(Unresolved::Missing),
    }
}

/// The unpooled ambient ped nearest (horizontally) to `(x, y)`; ties go to the lower slot.
fn nearest_ambient(sets: &Sets<'_>, x: f64, y: f64) -> Result<usize, Unresolved> {
    let agents = &*sets.agents;
    (0..agents.len())
        .filter(|r| !agents.pooled[*r] && agents.kind[*r] == PopulationKind::Ambient)
        .filter_map(|r| {
            let p = agents.position[r];
            let slot = sets.slots.handle_of(r)?.index;
            Some(((p.x - x).hypot(p.y - y), slot, r))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, _, r)| r)
        .ok_or(Unresolved::NoAmbient)
}

/// A world command (boxes, requests, observers, families).
fn world_command(sets: &mut Sets<'_>, command: &Command) -> Result<(), Unresolved> {
    let state = &mut *sets.state;
    match command {
        Command::SetBox { slot, bounds } => {
            let change = match state.boxes.set(*slot, *bounds) {
                Ok(()) => BoxChange::Set,
                Err(_) => BoxChange::Refused,
            };
            box_event(sets, *slot, change);
        }
        Command::ClearBox { slot } => {
            state.boxes.clear(*slot);
            box_event(sets, *slot, BoxChange::Cleared);
        }
        Command::SuppressCleanup => state.suppress_requested = true,
        Command::ForcedInit { duration_s } => {
            // A refused duration is a compile error; a world-side refusal changes nothing.
            let _ = state.startup.request_forced_init(*duration_s);
        }
        Command::InstantFill => state.startup.request_instant_fill(),
        Command::SetObserverFade { observer, fade } => {
            let o = state
                .observers
                .get_mut(*observer as usize)
                .ok_or(Unresolved::Missing)?;
            o.fade = fade.clamp(0.0, 1.0);
        }
        Command::SetObserverValid { observer, valid } => {
            let o = state
                .observers
                .get_mut(*observer as usize)
                .ok_or(Unresolved::Missing)?;
            o.valid = *valid;
        }
        Command::SetFamilyAvailable { family, available } => {
            let f = state
                .families_available
                .get_mut(*family as usize)
                .ok_or(Unresolved::Missing)?;
            *f = *available;
        }
        // A ped command given to the world has no ped to act on.
        _ => return Err(Unresolved::Missing),
    }
    Ok(())
}

fn box_event(sets: &mut Sets<'_>, slot: BoxSlot, change: BoxChange) {
    let detail = EventDetail::Box(slot, change);
    sets.events
        .push(sets.frame, EventKind::BoxChanged, None, None, detail);
}

/// A ped command on row `row`.
fn ped_command(
    config: &WorldConfig,
    sets: &mut Sets<'_>,
    knock: &mut Knockdowns,
    row: usize,
    directive: &DirectiveSpec,
) {
    let handle = sets.slots.handle_of(row);
    let source = Some(sets.agents.source[row]);
    let frame = sets.frame;
    match &directive.command {
        Command::Claim {
            owner,
            allow_transfer,
        } => {
            let (kind, detail) = match claim(sets.agents, row, owner, *allow_transfer) {
                Ok(_) => (EventKind::Claimed, EventDetail::None),
                Err(why) => (EventKind::ClaimRefused, EventDetail::Claim(why)),
            };
            sets.events.push(frame, kind, handle, source, detail);
        }
        Command::Release { owner } => {
            let (kind, detail) = match release(sets.agents, row, owner) {
                Ok(()) => (EventKind::Released, EventDetail::None),
                Err(why) => (EventKind::ClaimRefused, EventDetail::Claim(why)),
            };
            sets.events.push(frame, kind, handle, source, detail);
        }
        Command::Destroy => {
            if let Some(handle) = handle {
                destroy(sets, handle, source);
            }
        }
        Command::SetRemovalMultiplier { multiplier } => {
            sets.agents.removal_multiplier[row] = *multiplier;
        }
        Command::SetVehicleIntent { intent } => sets.agents.vehicle_intent[row] = *intent,
        Command::Knockdown { impulse_n_s } => {
            knock_down_row(config, knock, sets, row, *impulse_n_s);
        }
        command if sets.agents.pooled[row] => {
            // A pooled ped runs no task; record the refusal rather than waking it.
            let _ = command;
            let detail = EventDetail::Claim(ClaimRefusal::Pooled);
            sets.events
                .push(frame, EventKind::ClaimRefused, handle, source, detail);
        }
        command => {
            // A knocked-down ped's task directives change its retained intent only.
            if !retained_command(knock, sets, row, command, task_command) {
                task_command(sets.agents, row, command);
            }
        }
    }
}

/// A task command (rendezvous, hold, continue, redirect, cancel, escape).
fn task_command(agents: &mut Agents, row: usize, command: &Command) {
    match command {
        Command::Rendezvous { goal } | Command::Redirect { goal } => {
            agents.target[row] = Some(*goal);
            agents.state[row] = AgentState::Travelling;
        }
        Command::Hold if agents.state[row] != AgentState::Holding => {
            agents.resume[row] = agents.state[row];
            agents.state[row] = AgentState::Holding;
        }
        Command::Continue if agents.state[row] == AgentState::Holding => {
            agents.state[row] = agents.resume[row];
        }
        Command::Cancel => {
            agents.target[row] = None;
            agents.state[row] = AgentState::Arrived;
        }
        Command::Escape {
            threat,
            safe_distance_m,
        } => {
            agents.target[row] = Some(*threat);
            agents.safe_distance_m[row] = *safe_distance_m;
            agents.state[row] = AgentState::Fleeing;
        }
        // A repeated hold, a continue without a hold, and world commands (which resolve
        // against the world, never a ped) change nothing.
        _ => {}
    }
}
