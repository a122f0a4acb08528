//! The Tasks phase: the directives due this frame, in file order, then the path replies, the
//! queries and the parents' consumption of results (see `sim::tasks`). A directive's target (a
//! birth ordinal, a handle, the nearest ambient ped to a point, or the world) is resolved
//! deterministically; an unresolvable target is recorded in the event log with its reason and
//! does nothing. Ped commands change the ped's task or ownership; world commands change the
//! boxes, requests, observers, families and the physical scene's obstacles.

use super::{commands, control, Book, TaskSets as Sets};
use crate::project::{PopulationKind, Vec2};
use crate::sim::config::WorldConfig;
use crate::sim::config::{Command, DirectiveSpec, DirectiveTarget};
use crate::sim::events::{BoxChange, BoxSlot, EventDetail, EventKind, Unresolved};
use crate::sim::knockdown::phase::{knock_down_row, knockdown_phase};
use crate::sim::knockdown::Knockdowns;
use crate::sim::motion::disguise::{self, recognise};
use crate::sim::motion::panic::{apply_stimulus, PanicState};
use crate::sim::population::{claim, live_row, release, ClaimRefusal};
use crate::sim::tasks::paths::PathGrid;

/// Tasks: drop the tasks of peds that are gone, release due standings, apply the directives due
/// this frame in file order, accept the path replies, submit the queries movements need, and let
/// parents consume their movements' results.
pub(in crate::sim) fn tasks_phase(
    config: &WorldConfig,
    paths: &PathGrid,
    sets: &mut Sets<'_>,
    panic: &mut PanicState,
    knock: &mut Knockdowns,
) {
    // Knocked-down bodies and their recoveries first, so a recovered ped's task replans before
    // this frame's directives and Motion.
    knockdown_phase(config, knock, sets);
    sets.tasks.prune(sets.slots, sets.agents.len());
    let frame = sets.frame;
    let ended: Vec<crate::sim::AgentHandle> = sets
        .tasks
        .stops
        .iter_mut()
        .filter_map(|(handle, stops)| stops.tick(frame).then_some(*handle))
        .collect();
    sets.tasks.stops.retain(|_, s| s.any());
    let mut book = Book {
        tasks: sets.tasks,
        agents: sets.agents,
        slots: sets.slots,
        events: sets.events,
        frame,
    };
    for handle in ended {
        let generation = book.generation(handle);
        book.log(handle, generation, super::TaskChange::StandingEnded);
    }
    // The full intelligence update: each ped's task extra-distance flag resets before it (a
    // pooled or knocked-down ped's update is suppressed or partial and keeps it) and the task
    // that asked reasserts it; incidents end or become current, queued threats are processed
    // (their escapes start).
    task_flags(&mut book, &mut sets.state.extra);
    book.process_events(&config.scenario.motion.profiles);
    apply_directives(config, paths, sets, panic, knock);
    let mut book = Book {
        tasks: sets.tasks,
        agents: sets.agents,
        slots: sets.slots,
        events: sets.events,
        frame,
    };
    book.accept_replies();
    book.submit_queries();
    book.consume_results();
}

/// The task extra-distance flags at the full task update (see `sim::population::extra`).
fn task_flags(book: &mut Book<'_>, extra: &mut crate::sim::population::ExtraDistance) {
    if extra.task.is_empty() && extra.task_asks.is_empty() {
        return;
    }
    let (agents, slots, tasks) = (&*book.agents, book.slots, &*book.tasks);
    let full = |handle| {
        live_row(slots, agents, handle).is_some_and(|row| {
            !agents.pooled[row] && agents.state[row] != crate::sim::state::AgentState::KnockedDown
        })
    };
    let active = |handle, session| {
        tasks
            .active_parent(handle)
            .is_some_and(|p| p.session == session)
    };
    extra.full_task_update(full, active);
}

/// The directives of frame 0, in file order, before the first step's control phase (`sets.frame`
/// is 0): the world as built has taken no step, so they act from the start — a frame-0
/// `PausePopulation` pauses the first step's cycles. Steps only ever apply their own frame's
/// directives, so without this a frame-0 directive never applied.
pub(in crate::sim) fn frame_zero_directives(
    config: &WorldConfig,
    paths: &PathGrid,
    sets: &mut Sets<'_>,
    panic: &mut PanicState,
    knock: &mut Knockdowns,
) {
    debug_assert_eq!(sets.frame, 0);
    apply_directives(config, paths, sets, panic, knock);
}

/// The directives due this frame, in file order.
fn apply_directives(
    config: &WorldConfig,
    paths: &PathGrid,
    sets: &mut Sets<'_>,
    panic: &mut PanicState,
    knock: &mut Knockdowns,
) {
    let directives = &config.scenario.directives;
    let frame = sets.frame;
    let start = directives.partition_point(|d| d.frame < frame);
    for directive in directives[start..].iter().take_while(|d| d.frame == frame) {
        let outcome = match directive.target {
            DirectiveTarget::World => {
                world_command(config, sets, panic, &directive.command).map(|()| None)
            }
            target => resolve(sets, target).map(Some),
        };
        match outcome {
            Ok(row) => {
                sets.counters.directives_applied += 1;
                log_directive(sets, directive, row, None);
                if let Some(row) = row {
                    ped_command((config, paths), sets, knock, row, directive);
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
fn world_command(
    config: &WorldConfig,
    sets: &mut Sets<'_>,
    panic: &mut PanicState,
    command: &Command,
) -> Result<(), Unresolved> {
    if let Command::ClearEvents { kind, source, tag } = command {
        let mut book = Book {
            tasks: sets.tasks,
            agents: sets.agents,
            slots: sets.slots,
            events: sets.events,
            frame: sets.frame,
        };
        book.clear_events((*kind, source.as_deref(), *tag));
        return Ok(());
    }
    if let Command::Panic {
        center,
        radius_m,
        strength,
    } = command
    {
        let log = (&*sets.slots, &mut *sets.events, sets.frame);
        apply_stimulus(
            config,
            (*center, *radius_m, *strength),
            sets.agents,
            panic,
            log,
        );
        return Ok(());
    }
    match command {
        Command::PlaceObstacle { id, footprint } => {
            sets.scene.place(id, *footprint);
            return Ok(());
        }
        // Nothing of that id is in the scene now (removed already, or not placed yet).
        Command::RemoveObstacle { id } => {
            return if sets.scene.remove(id) {
                Ok(())
            } else {
                Err(Unresolved::Missing)
            };
        }
        _ => {}
    }
    world_state_command(config, sets, command)
}

/// A world command on the world's state (boxes, requests, observers, families).
fn world_state_command(
    config: &WorldConfig,
    sets: &mut Sets<'_>,
    command: &Command,
) -> Result<(), Unresolved> {
    let frame = sets.frame;
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
        Command::PausePopulation { duration_s } => {
            let frames = duration_frames(*duration_s, config.fixed_step_s);
            state.pause_until(frame.saturating_add(frames));
        }
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
    (config, paths): (&WorldConfig, &PathGrid),
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
                control::destroy_explicitly(sets, row, handle);
            }
        }
        Command::SetRemovalMultiplier { multiplier } => {
            sets.agents.removal_multiplier[row] = *multiplier;
        }
        Command::ExtendRemovalDistance { task } => {
            let Some(handle) = handle else { return };
            extend_removal_distance(sets, handle, *task, directive);
        }
        Command::SetVehicleRelation { relation } => {
            control::set_vehicle_relation(sets, row, handle, *relation);
        }
        Command::SetRelevance { relevance } => sets.agents.relevance[row] = *relevance,
        Command::LineOfSight {
            presented,
            factions,
        } => {
            let recognition = recognise(factions, presented);
            disguise::apply(sets.agents, row, recognition);
            let detail = EventDetail::Recognition(recognition);
            sets.events
                .push(frame, EventKind::Recognised, handle, source, detail);
        }
        Command::Knockdown { impulse_n_s } => {
            knock_down_row(knock, sets, row, *impulse_n_s);
            if let Some(handle) = handle {
                control::suspend_knocked_down(sets, knock, row, handle);
            }
        }
        command if sets.agents.pooled[row] => {
            // A pooled ped runs no task; record the refusal rather than waking it.
            let _ = command;
            let detail = EventDetail::Claim(ClaimRefusal::Pooled);
            sets.events
                .push(frame, EventKind::ClaimRefused, handle, source, detail);
        }
        _ => {
            let Some(handle) = handle else { return };
            task_command_unless_down((config, paths), sets, knock, (row, handle), directive);
        }
    }
}

/// `ExtendRemovalDistance`: the ordinary flag is requested for the next Control update; the
/// task flag is asked by the ped's active primary task, when the directive's source (and session
/// tag, unless 0) may act on it — otherwise the refusal is logged and nothing is asked.
fn extend_removal_distance(
    sets: &mut Sets<'_>,
    handle: crate::sim::AgentHandle,
    task: bool,
    directive: &DirectiveSpec,
) {
    if !task {
        sets.state.extra.request(handle);
        return;
    }
    let mut book = Book {
        tasks: sets.tasks,
        agents: sets.agents,
        slots: sets.slots,
        events: sets.events,
        frame: sets.frame,
    };
    let issuer = commands::Issuer {
        source: &directive.source,
        session: directive.session,
        profile: None,
    };
    if let Some(session) = commands::issuer_session(&mut book, handle, issuer) {
        sets.state.extra.ask_task(handle, session);
    }
}

/// A task command on a ped that is not pooled: run now, or (knocked down) as the knockdown's
/// intent says.
fn task_command_unless_down(
    (config, paths): (&WorldConfig, &PathGrid),
    sets: &mut Sets<'_>,
    knock: &mut Knockdowns,
    (row, handle): (usize, crate::sim::AgentHandle),
    directive: &DirectiveSpec,
) {
    match knock.intent(handle) {
        Some(intent) => {
            let mut apply = |sets: &mut Sets<'_>| {
                task_command((config, paths), sets, (row, handle), directive);
            };
            let cancel = matches!(directive.command, Command::Cancel);
            control::command_while_down(sets, knock, (row, handle), intent, cancel, &mut apply);
        }
        None => task_command((config, paths), sets, (row, handle), directive),
    }
}

/// A task command (rendezvous, hold, continue, stand, redirect, cancel) or an event (escape,
/// queued event), issued by the directive's source for its session tag.
fn task_command(
    (config, paths): (&WorldConfig, &PathGrid),
    sets: &mut Sets<'_>,
    (row, handle): (usize, crate::sim::AgentHandle),
    directive: &DirectiveSpec,
) {
    let command = &directive.command;
    let escape = matches!(command, Command::Escape { .. });
    let issuer = commands::Issuer {
        source: &directive.source,
        session: directive.session,
        profile: chosen_profile(config, sets.agents, row, directive, escape),
    };
    let at = (row, handle);
    let object_goal = |object: u16, offset: [f64; 3]| {
        config
            .scenario
            .objects
            .get(usize::from(object))
            .map(|o| o.transform_point(offset))
    };
    let mut book = Book {
        tasks: sets.tasks,
        agents: sets.agents,
        slots: sets.slots,
        events: sets.events,
        frame: sets.frame,
    };
    let point = |goal: Vec2| [goal.x, goal.y, 0.0];
    match command {
        Command::Rendezvous { goal } => commands::rendezvous(&mut book, at, point(*goal), issuer),
        Command::RendezvousWith { object, offset } => {
            // The object's transform is read now: the goal is a snapshot at command time.
            if let Some(goal) = object_goal(*object, *offset) {
                commands::rendezvous(&mut book, at, goal, issuer);
            }
        }
        Command::Redirect { goal } => commands::redirect(&mut book, at, point(*goal), issuer),
        Command::RedirectTo { object, offset } => {
            if let Some(goal) = object_goal(*object, *offset) {
                commands::redirect(&mut book, at, goal, issuer);
            }
        }
        Command::Hold => commands::hold(&mut book, at, issuer),
        Command::Continue => commands::resume(&mut book, at, issuer),
        Command::Stand { duration_s } => {
            let frames = duration_frames(*duration_s, config.fixed_step_s);
            let until_frame = book.frame.saturating_add(frames);
            commands::stand(&mut book, handle, until_frame, issuer);
        }
        Command::Cancel => commands::cancel(&mut book, handle, issuer),
        Command::QueueEvent { duration_s } => {
            let frames = duration_frames(*duration_s, config.fixed_step_s);
            book.queue_incident(handle, &directive.source, frames);
        }
        Command::Escape {
            threat,
            safe_distance_m,
            endpoint,
            restore_interrupted,
        } => {
            let spec = super::incidents::ThreatSpec {
                threat: *threat,
                safe_distance_m: *safe_distance_m,
                endpoint: *endpoint,
                restore_interrupted: *restore_interrupted,
                profile: issuer.profile.map(|p| p.index),
            };
            book.queue_threat(paths, at, spec, &directive.source);
        }
        // World commands resolve against the world, never a ped.
        _ => {}
    }
}

/// The motion profile a route command names: the directive's, else (not for an escape, which
/// runs) the ped's source's; `None` when neither names one the world's table has (`check`
/// reports an unknown name).
fn chosen_profile(
    config: &WorldConfig,
    agents: &crate::sim::state::Agents,
    row: usize,
    directive: &DirectiveSpec,
    escape: bool,
) -> Option<commands::ChosenProfile> {
    let table = &config.scenario.motion.profiles;
    let source = || {
        let index = usize::from(*agents.source.get(row)?);
        config
            .scenario
            .sources
            .get(index)?
            .motion_profile
            .as_deref()
    };
    let name = match directive.motion_profile.as_deref() {
        Some(name) => Some(name),
        None if !escape => source(),
        None => None,
    }?;
    let index = table.index_of(name)?;
    Some(commands::ChosenProfile {
        index,
        speed_m_s: table.get(index).speed_m_s,
    })
}

/// A directive duration in frames: at least one, rounded up (a whole number of steps stays that
/// number despite rounding; a compiled duration is finite, in (0, 3600] s).
fn duration_frames(duration_s: f64, fixed_step_s: f64) -> u64 {
    (duration_s / fixed_step_s - 1e-9).ceil().max(1.0) as u64
}
