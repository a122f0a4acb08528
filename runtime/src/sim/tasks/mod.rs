//! Tasks: directive parents (persistent intent) and their movements (replaceable execution),
//! stop causes with owners, the path service, escape selection and failure handed to the upper
//! layer — the tasks-and-directives specification, as state sets keyed by agent handle.
//!
//! One file per mechanism: `parent` (intent), `movement` (execution), `paths` (the path
//! service), `commands` (installation and identity checks — source, session tag — hold,
//! continue, redirect, cancel, each checking control eligibility), `incidents` (ped events:
//! queuing, processing at the next Tasks update, the escape a threat starts, cleanup by type,
//! source or tag), `control` (the
//! body's and the vehicle relation's suspension of a running movement, commands while knocked
//! down), `escape` (candidate selection), `failure` (blocking, replans, consuming a failure
//! once), `stops` (stop causes), `directives` (the directives due this frame and their targets).
//!
//! Within one update: the Tasks phase applies the directives due, then accepts the replies the
//! path service produced in the previous Motion phase (a reply whose generation is not the
//! current one, or that finds nothing pending, is stale and never installs), then submits the
//! queries movements need, then lets parents consume results. The Motion phase steps movements
//! after the walkers, submits the queries replans need, answers queued queries, and lets parents
//! consume arrivals and failures again. Every transition is logged as an `EventKind::Task` with
//! the parent's session, the movement's generation and the reason.

use crate::sim::state::{
    agents::ambient_state, AgentHandle, AgentState, Agents, Canonical, EventLog, MoveFailure,
    PedEventEnd, PedEvents, Slots, TaskChange, TaskHold, TaskLedger,
};

pub mod commands;
mod control;
mod directives;
pub mod escape;
pub mod failure;
pub mod gait;
pub mod incidents;
pub mod movement;
pub mod parent;
pub mod paths;
mod preempt;
pub mod presentation;
pub mod stops;

#[cfg(test)]
mod event_tests;
#[cfg(test)]
mod stall_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub(in crate::sim) use directives::{frame_zero_directives, tasks_phase};

use self::escape::EscapeReport;
use self::movement::{advance, MotionState, MoveEnv, Movement, StepOutcome};
use self::parent::{DirectiveParent, ParentKind, ParentState};
use self::paths::{write_handle, PathGrid, PathQuery};
use self::stops::{ReleaseRefusal, StopCause, StopCauses, StopOwner};
use crate::project::Vec2;

use crate::sim::config::WorldConfig;

use crate::sim::walk::steer::gather_neighbours;
use crate::sim::walk::WalkState;

/// A lower-priority task a higher one suspended: its parent and movement as they were, and its
/// command hold (owned by its session) set aside so that it never holds the higher task.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct SuspendedTask {
    /// The suspended parent (its state unchanged).
    pub parent: DirectiveParent,
    /// Its movement as it was when suspended.
    pub movement: Movement,
    /// Its command hold, restored with it.
    pub command_hold: Option<StopOwner>,
}

/// Every task set of a world (world state: snapshots carry it and the digest covers it).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TaskState {
    /// Directive parents by ped.
    pub parents: BTreeMap<AgentHandle, DirectiveParent>,
    /// Movements by ped.
    pub movements: BTreeMap<AgentHandle, Movement>,
    /// Stop causes by ped (entries with no cause are removed).
    pub stops: BTreeMap<AgentHandle, StopCauses>,
    /// The path service's queue and mailbox.
    pub service: paths::PathService,
    /// The last escape selection of each ped (the overlay's candidates).
    pub escapes: BTreeMap<AgentHandle, EscapeReport>,
    /// Sessions started so far (the next one is this + 1).
    pub sessions: u32,
    /// Lower-priority tasks suspended by a higher-priority one, by ped (the higher task owns
    /// the ped's [`StopCause::HigherPriorityTask`] and is the only one that releases it).
    pub suspended: BTreeMap<AgentHandle, SuspendedTask>,
    /// Every ped's events (queued, active and a few ended ones) and the event-to-task mapping.
    pub events: PedEvents,
    /// Pending primary slots: the queued threat event (by id) that holds the ped's primary slot
    /// until it is processed.
    pub pending: BTreeMap<AgentHandle, u32>,
    /// Readmitted peds whose closed movement (kept for diagnostics) no longer writes their
    /// position or heading, until a new task of theirs is active.
    #[serde(default)]
    pub relinquished: std::collections::BTreeSet<AgentHandle>,
}

/// The population's sets as the Tasks phase holds them: with the task sets themselves.
pub(in crate::sim) type TaskSets<'a> = crate::sim::population::Sets<'a, TaskState>;

impl TaskLedger for TaskState {
    #[inline]
    fn hold_of(&self, handle: AgentHandle) -> Option<TaskHold> {
        TaskState::hold_of(self, handle)
    }

    #[inline]
    fn session_of(&self, handle: AgentHandle) -> u32 {
        TaskState::session_of(self, handle)
    }

    fn relinquish(&mut self, handle: AgentHandle) {
        if self.movements.contains_key(&handle) && self.active_parent(handle).is_none() {
            self.relinquished.insert(handle);
        }
    }

    #[inline]
    fn release_body(
        &mut self,
        handle: AgentHandle,
        recovery_session: u32,
        position: [f64; 3],
        heading_rad: f64,
    ) -> Result<Option<u32>, ReleaseRefusal> {
        TaskState::release_body(self, handle, recovery_session, position, heading_rad)
    }
}

impl TaskState {
    /// Whether the ped's tasks keep it from retirement: an active directive parent.
    pub fn protects(&self, handle: AgentHandle) -> bool {
        self.active_parent(handle).is_some()
    }

    /// What keeps the ped from retirement, if anything: a pending or active task first, then a
    /// current event, then a queued event candidate.
    pub fn hold_of(&self, handle: AgentHandle) -> Option<TaskHold> {
        if self.active_parent(handle).is_some() {
            let waiting = self
                .movements
                .get(&handle)
                .is_some_and(|m| m.state == MotionState::AwaitingPath);
            return Some(if waiting {
                TaskHold::Pending
            } else {
                TaskHold::Active
            });
        }
        if self.suspended.contains_key(&handle) {
            return Some(TaskHold::Pending);
        }
        if self.events.has_current(handle) {
            return Some(TaskHold::CurrentEvent);
        }
        self.events
            .has_queued(handle)
            .then_some(TaskHold::QueuedEvent)
    }

    /// The source of the queued event holding the ped's pending primary slot, if any.
    pub fn pending_source(&self, handle: AgentHandle) -> Option<&str> {
        let id = *self.pending.get(&handle)?;
        self.events.get(id).map(|e| e.source.as_str())
    }

    /// The ped's directive parent, if it is still active (not completed or cancelled).
    pub fn active_parent(&self, handle: AgentHandle) -> Option<&DirectiveParent> {
        self.parents.get(&handle).filter(|p| p.state.is_active())
    }

    /// The ped's stop causes.
    pub fn stops_of(&self, handle: AgentHandle) -> StopCauses {
        self.stops.get(&handle).copied().unwrap_or_default()
    }

    /// Whether a stop cause holds the ped's running movement (see [`StopCauses::hold_running`]:
    /// a higher-priority task's suspension never holds that task itself).
    pub fn holds_movement(&self, handle: AgentHandle) -> bool {
        let running = self.parents.get(&handle).map(|p| p.session);
        self.stops
            .get(&handle)
            .is_some_and(|s| s.hold_running(running))
    }

    /// Whether no task exists at all (such a world's digest is what it was before tasks).
    pub fn is_empty(&self) -> bool {
        self.suspended.is_empty()
            && self.parents.is_empty()
            && self.movements.is_empty()
            && self.stops.is_empty()
            && self.service.is_idle()
            && self.service.answered == 0
            && self.escapes.is_empty()
            && self.sessions == 0
            && self.events.is_empty()
            && self.pending.is_empty()
    }

    fn set_stop(&mut self, handle: AgentHandle, cause: StopCause, owner: StopOwner) {
        self.stops.entry(handle).or_default().set(cause, owner);
    }

    fn release_stop(
        &mut self,
        handle: AgentHandle,
        cause: StopCause,
        owner: StopOwner,
    ) -> Result<(), ReleaseRefusal> {
        let stops = self.stops.get_mut(&handle).ok_or(ReleaseRefusal::NotSet)?;
        let released = stops.release(cause, owner);
        if !stops.any() {
            self.stops.remove(&handle);
        }
        released
    }

    /// Releases a timed standing (a new goal request removes it; the clock is its owner).
    fn release_timed_standing(&mut self, handle: AgentHandle) {
        if let Some(owner @ StopOwner::Clock { .. }) =
            self.stops_of(handle).owner(StopCause::TimedStanding)
        {
            let _ = self.release_stop(handle, StopCause::TimedStanding, owner);
        }
    }

    /// Whether the ped is out of its movement's control: its body is suspended (knocked down)
    /// or a vehicle relation holds it. A command that needs control is refused meanwhile; a
    /// redirect is kept without a query until control returns.
    pub fn out_of_control(&self, handle: AgentHandle) -> bool {
        let stops = self.stops_of(handle);
        stops.owner(StopCause::BodySuspension).is_some()
            || stops.owner(StopCause::VehicleRelation).is_some()
    }

    /// The session of the ped's parent (0 without one).
    pub fn session_of(&self, handle: AgentHandle) -> u32 {
        self.parents.get(&handle).map_or(0, |p| p.session)
    }

    /// Suspends the movement of the ped's active parent under `cause` (owned by `owner`): the
    /// outstanding query is cancelled and invalidated (generation + 1), nothing moves, the
    /// parent keeps its intent and stays active. Returns the movement's generation when an
    /// active parent's movement was suspended (a `Suspended` task event).
    fn suspend_control(
        &mut self,
        handle: AgentHandle,
        cause: StopCause,
        owner: StopOwner,
    ) -> Option<u32> {
        self.set_stop(handle, cause, owner);
        self.service.cancel(handle);
        let active = self.protects(handle);
        let m = self.movements.get_mut(&handle)?;
        m.suspend();
        (active && m.state == MotionState::Suspended).then_some(m.generation)
    }

    /// Releases `cause` (by `owner`); once nothing keeps the ped out of control, an active
    /// parent's movement replans from `position` to its retained goal. Returns the new
    /// generation when it resumed (a `Resumed` task event).
    fn release_control(
        &mut self,
        handle: AgentHandle,
        cause: StopCause,
        owner: StopOwner,
        position: [f64; 3],
        heading_rad: f64,
    ) -> Result<Option<u32>, ReleaseRefusal> {
        self.release_stop(handle, cause, owner)?;
        if self.out_of_control(handle) || !self.protects(handle) {
            return Ok(None);
        }
        let Some(m) = self.movements.get_mut(&handle) else {
            return Ok(None);
        };
        if m.state != MotionState::Suspended {
            return Ok(None);
        }
        m.resume_from(position, heading_rad);
        Ok(Some(m.generation))
    }

    /// Body suspension begins (for the knockdown module only): walking stops, the outstanding
    /// query is cancelled and invalidated; the parent keeps its intent. Returns the generation
    /// of the active parent's suspended movement, if any.
    pub fn suspend_body(&mut self, handle: AgentHandle, recovery_session: u32) -> Option<u32> {
        let owner = StopOwner::Knockdown {
            session: recovery_session,
        };
        self.suspend_control(handle, StopCause::BodySuspension, owner)
    }

    /// Body suspension ends at `position` (for the knockdown module only, with the session that
    /// suspended it): unless a vehicle relation still holds it, an active parent's movement
    /// replans from there to its retained goal; a cancelled intent is never restored. Returns
    /// the resumed movement's generation, if one resumed.
    pub fn release_body(
        &mut self,
        handle: AgentHandle,
        recovery_session: u32,
        position: [f64; 3],
        heading_rad: f64,
    ) -> Result<Option<u32>, ReleaseRefusal> {
        let owner = StopOwner::Knockdown {
            session: recovery_session,
        };
        let cause = StopCause::BodySuspension;
        self.release_control(handle, cause, owner, position, heading_rad)
    }

    /// The ped's vehicle relation changed: a blocking one (`blocking`: seated, intent, entering
    /// or exiting) suspends an active parent's movement, the parent staying active; the
    /// relation back to none releases it and the movement replans from `position`. Returns the
    /// task change to log with the movement's generation.
    pub fn relate_vehicle(
        &mut self,
        handle: AgentHandle,
        blocking: bool,
        position: [f64; 3],
        heading_rad: f64,
    ) -> Option<(TaskChange, u32)> {
        let cause = StopCause::VehicleRelation;
        let held = self.stops_of(handle).owner(cause).is_some();
        match (blocking, held) {
            (true, false) if self.protects(handle) => self
                .suspend_control(handle, cause, StopOwner::Relation)
                .map(|g| (TaskChange::Suspended, g)),
            (false, true) => self
                .release_control(handle, cause, StopOwner::Relation, position, heading_rad)
                .ok()
                .flatten()
                .map(|g| (TaskChange::Resumed, g)),
            _ => None,
        }
    }

    /// Drops the tasks of peds that no longer exist (destroyed or recycled slots).
    fn prune(&mut self, slots: &Slots, rows: usize) {
        let live = |h: &AgentHandle| slots.resolve(*h).is_some_and(|r| r < rows);
        self.parents.retain(|h, _| live(h));
        self.movements.retain(|h, _| live(h));
        self.stops.retain(|h, _| live(h));
        self.escapes.retain(|h, _| live(h));
        self.suspended.retain(|h, _| live(h));
        self.events.prune(live);
        self.pending.retain(|h, _| live(h));
        self.relinquished.retain(live);
        self.service.queue.retain(|q| live(&q.handle));
        self.service.replies.retain(|r| live(&r.handle));
    }

    /// Canonical bytes; nothing at all while no task ever existed.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        if self.is_empty() {
            return;
        }
        bytes.extend_from_slice(b"TASKS001");
        self.sessions.write_canonical(bytes);
        (self.parents.len() as u64).write_canonical(bytes);
        for (handle, parent) in &self.parents {
            write_handle(*handle, bytes);
            parent.write_canonical(bytes);
        }
        (self.movements.len() as u64).write_canonical(bytes);
        for (handle, movement) in &self.movements {
            write_handle(*handle, bytes);
            movement.write_canonical(bytes);
        }
        (self.stops.len() as u64).write_canonical(bytes);
        for (handle, stops) in &self.stops {
            write_handle(*handle, bytes);
            stops.write_canonical(bytes);
        }
        self.service.write_canonical(bytes);
        (self.escapes.len() as u64).write_canonical(bytes);
        for (handle, report) in &self.escapes {
            write_handle(*handle, bytes);
            (report.candidates.len() as u64).write_canonical(bytes);
            (report.selected.map_or(u64::MAX, |s| s as u64)).write_canonical(bytes);
        }
        // Written only when some task is suspended, so worlds without preemption keep the
        // bytes they had before it existed.
        if !self.suspended.is_empty() {
            bytes.extend_from_slice(b"SUSPEND1");
            (self.suspended.len() as u64).write_canonical(bytes);
            for (handle, held) in &self.suspended {
                write_handle(*handle, bytes);
                held.parent.write_canonical(bytes);
                held.movement.write_canonical(bytes);
                let hold = held.command_hold.map_or(u64::MAX, |o| match o {
                    StopOwner::Directive { session } => u64::from(session),
                    _ => u64::MAX - 1,
                });
                hold.write_canonical(bytes);
            }
        }
        // Likewise only once some ped had an event.
        if !self.events.is_empty() || !self.pending.is_empty() {
            bytes.extend_from_slice(b"PEDEVNT1");
            self.events.write_canonical(bytes);
            (self.pending.len() as u64).write_canonical(bytes);
            for (handle, id) in &self.pending {
                write_handle(*handle, bytes);
                id.write_canonical(bytes);
            }
        }
        // Likewise only once a readmitted ped's closed movement gave up its authority.
        if !self.relinquished.is_empty() {
            bytes.extend_from_slice(b"RELINQ01");
            (self.relinquished.len() as u64).write_canonical(bytes);
            for handle in &self.relinquished {
                write_handle(*handle, bytes);
            }
        }
    }

    /// Whether every handle the sets name is a live row of `slots` (a restore preflight).
    pub fn is_consistent(&self, slots: &Slots, rows: usize) -> bool {
        let live = |h: &AgentHandle| slots.resolve(*h).is_some_and(|r| r < rows);
        self.parents.keys().all(live)
            && self.movements.keys().all(live)
            && self.stops.keys().all(live)
            && self.suspended.keys().all(live)
            && self.events.records.iter().all(|e| live(&e.handle))
            && self.pending.keys().all(live)
            && self.relinquished.iter().all(live)
            && self.service.queue.iter().all(|q| live(&q.handle))
    }
}

/// What the task bookkeeping between phases reads and changes.
pub(super) struct Book<'a> {
    pub tasks: &'a mut TaskState,
    pub agents: &'a mut Agents,
    pub slots: &'a Slots,
    pub events: &'a mut EventLog,
    pub frame: u64,
}

impl Book<'_> {
    fn row(&self, handle: AgentHandle) -> Option<usize> {
        self.slots
            .resolve(handle)
            .filter(|r| *r < self.agents.len())
    }

    fn source(&self, handle: AgentHandle) -> Option<u16> {
        self.row(handle).map(|r| self.agents.source[r])
    }

    fn session(&self, handle: AgentHandle) -> u32 {
        self.tasks.parents.get(&handle).map_or(0, |p| p.session)
    }

    fn log(&mut self, handle: AgentHandle, generation: u32, change: TaskChange) {
        let (source, session) = (self.source(handle), self.session(handle));
        crate::sim::state::log_task(
            self.events,
            self.frame,
            handle,
            source,
            session,
            generation,
            change,
        );
    }

    /// Installs or drops the replies in the mailbox, in answer order.
    pub fn accept_replies(&mut self) {
        for reply in std::mem::take(&mut self.tasks.service.replies) {
            let Some(m) = self.tasks.movements.get_mut(&reply.handle) else {
                continue;
            };
            let change = match m.accept_path(&reply) {
                Err(why) => TaskChange::Stale(why),
                Ok(()) => match m.failure {
                    Some(why) => TaskChange::MoveFailed(why),
                    None => TaskChange::PathInstalled,
                },
            };
            self.log(reply.handle, reply.generation, change);
        }
    }

    /// Queues a query for every movement that needs one (not while its body is suspended),
    /// starting at the ped's current position.
    pub fn submit_queries(&mut self) {
        let wanted: Vec<AgentHandle> = self
            .tasks
            .movements
            .iter()
            .filter(|(_, m)| m.needs_query)
            .map(|(h, _)| *h)
            .collect();
        for handle in wanted {
            let Some(row) = self.row(handle) else {
                continue;
            };
            let p = self.agents.position[row];
            let Some(m) = self.tasks.movements.get_mut(&handle) else {
                continue;
            };
            m.position = [p.x, p.y, m.position[2]];
            m.needs_query = false;
            let query = PathQuery {
                handle,
                generation: m.generation,
                start: m.position,
                goal: m.goal,
            };
            let generation = m.generation;
            self.tasks.service.submit(query);
            self.log(handle, generation, TaskChange::PathQueued);
        }
    }

    /// Parents consume their movements' results: an arrival completes a rendezvous (an escape
    /// only when actually safe), a failure is consumed once.
    pub fn consume_results(&mut self) {
        let handles: Vec<AgentHandle> = self.tasks.parents.keys().copied().collect();
        for handle in handles {
            let Some(m) = self.tasks.movements.get(&handle) else {
                continue;
            };
            let (state, generation, failure, position) =
                (m.state, m.generation, m.failure, m.position);
            let Some(parent) = self.tasks.parents.get_mut(&handle) else {
                continue;
            };
            parent.last_child_generation = generation;
            match state {
                MotionState::Arrived if parent.state == ParentState::Travelling => {
                    let safe = match parent.kind {
                        ParentKind::Rendezvous => true,
                        ParentKind::Escape {
                            threat,
                            safe_distance_m,
                            ..
                        } => {
                            (position[0] - threat[0]).hypot(position[1] - threat[1])
                                > safe_distance_m
                        }
                    };
                    let session = parent.session;
                    if safe {
                        parent.state = ParentState::Completed;
                        self.log(handle, generation, TaskChange::Completed);
                        self.end_response(handle, session, PedEventEnd::Completed);
                        self.end_preemption(handle, session);
                        self.end_task(handle);
                    } else if failure::consume(parent, MoveFailure::UnsafeAtArrival) {
                        self.set_agent_state(handle, AgentState::Arrived);
                        self.log(handle, generation, TaskChange::FailureConsumed);
                        self.end_response(handle, session, PedEventEnd::Failed);
                    }
                }
                MotionState::Failed => {
                    let why = failure.unwrap_or(MoveFailure::EmptyPath);
                    let session = parent.session;
                    if failure::consume(parent, why) {
                        self.set_agent_state(handle, AgentState::Arrived);
                        self.log(handle, generation, TaskChange::FailureConsumed);
                        self.end_response(handle, session, PedEventEnd::Failed);
                    }
                }
                _ => {}
            }
        }
    }

    fn set_agent_state(&mut self, handle: AgentHandle, state: AgentState) {
        if let Some(row) = self.row(handle) {
            self.agents.state[row] = state;
        }
    }

    /// The ped's task ended: unless a task it had suspended came back (and is active again),
    /// the ped is an ordinary ambient ped again ([`ambient_state`]) with no goal.
    pub(super) fn end_task(&mut self, handle: AgentHandle) {
        if self.tasks.active_parent(handle).is_some() {
            return;
        }
        if let Some(row) = self.row(handle) {
            self.agents.state[row] = ambient_state(self.agents, row);
            self.agents.target[row] = None;
        }
    }
}

/// The tasks' part of the Motion phase: every movement steps (in handle order, after the
/// walkers), the queries replans need are queued, the path service answers, and parents
/// consume arrivals and failures.
pub(in crate::sim) fn motion(
    config: &WorldConfig,
    paths: &PathGrid,
    book: &mut Book<'_>,
    walk: &mut WalkState,
    obstacles: &crate::sim::obstacles::ObstacleSet,
) {
    let WalkState {
        grid, scratch, fan, ..
    } = walk;
    let handles: Vec<AgentHandle> = book.tasks.movements.keys().copied().collect();
    if handles.is_empty() {
        // Nothing moves: only the path service and the parents below have work.
        book.submit_queries();
        book.tasks.service.answer(paths);
        book.consume_results();
        return;
    }
    let unknown: Vec<paths::Obstacle> = obstacles.unknown_to_navigation().copied().collect();
    let bodies = std::cell::RefCell::new(std::mem::take(&mut scratch.bodies));
    for handle in handles {
        let Some(row) = book.row(handle) else {
            continue;
        };
        if book.agents.pooled[row] {
            continue;
        }
        // A closed task's movement (its parent completed or cancelled, the ped readmitted or
        // not) has no authority left: it is kept for diagnostics but no longer writes the ped's
        // position or heading, which belong to the ped's own walking again. A new active task
        // ends a readmitted ped's relinquished mark.
        if book.tasks.active_parent(handle).is_none() {
            continue;
        }
        book.tasks.relinquished.remove(&handle);
        let stopped = book.tasks.holds_movement(handle);
        let p = book.agents.position[row];
        gather_neighbours(
            grid,
            book.agents,
            row,
            0.0,
            movement::NEIGHBOUR_SLACK_M,
            &mut scratch.neighbours,
        );
        let env = MoveEnv {
            grid: paths,
            unknown: &unknown,
            neighbours: &scratch.neighbours,
            bodies: &bodies,
            fan,
            dt_s: config.fixed_step_s,
            profiles: &config.scenario.motion.profiles,
        };
        let Some(m) = book.tasks.movements.get_mut(&handle) else {
            continue;
        };
        m.position = [p.x, p.y, m.position[2]];
        let outcome = advance(m, &env, stopped);
        let (position, heading, generation) = (m.position, m.heading_rad, m.generation);
        let now = Vec2 {
            x: position[0],
            y: position[1],
        };
        let facing = Vec2 {
            x: heading.cos(),
            y: heading.sin(),
        };
        if now != p || facing != book.agents.facing[row] {
            book.agents.position[row] = now;
            book.agents.facing[row] = facing;
            grid.update(row, now, facing);
        }
        let change = match outcome {
            StepOutcome::Quiet => None,
            StepOutcome::Replanned(cause) => Some(TaskChange::Replanned(cause)),
            StepOutcome::Failed(why) => Some(TaskChange::MoveFailed(why)),
            StepOutcome::Arrived => Some(TaskChange::Arrived),
        };
        if let Some(change) = change {
            book.log(handle, generation, change);
        }
    }
    scratch.bodies = bodies.into_inner();
    book.submit_queries();
    book.tasks.service.answer(paths);
    book.consume_results();
}

/// The paths a world's tasks walk on, built once from its space and the frame-0 obstacles
/// known to navigation (props, scene objects, barriers authored in navigation).
pub(in crate::sim) fn build_paths(
    space: &crate::sim::space::SimSpace,
    obstacles: &crate::sim::obstacles::ObstacleSet,
) -> PathGrid {
    let known: Vec<paths::Obstacle> = obstacles.known_to_navigation().copied().collect();
    PathGrid::new(&space.routes, &known)
}
