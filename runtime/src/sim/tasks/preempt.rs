//! Preemption: a higher-priority task installed over an active lower one (an escape over a
//! rendezvous, [`ParentKind::priority`](super::parent::ParentKind::priority)) suspends it instead
//! of replacing it. The lower parent and its movement are set aside with their intent; the ped
//! carries a [`StopCause::HigherPriorityTask`] owned by the higher task's session, which holds
//! every movement but that task's own. Only that owner releases it: when the higher task ends
//! (completed or cancelled) the lower task comes back with its goal, session, counts and command
//! hold, and replans from where the ped stands (a new generation, never the old path).

use super::parent::ParentState;
use super::stops::{StopCause, StopOwner};
use super::{Book, SuspendedTask};
use crate::sim::state::{log_task, AgentHandle, AgentState, TaskChange};

impl Book<'_> {
    /// Sets the ped's active parent and its movement aside under the task of `by_session`
    /// (about to be installed); returns the set-aside movement's generation, below which the
    /// new movement's generations must not start (so no reply of the old task can install), or
    /// `None` when there is nothing to set aside (no parent with a movement).
    pub(super) fn preempt(&mut self, handle: AgentHandle, by_session: u32) -> Option<u32> {
        if !self.tasks.movements.contains_key(&handle) {
            return None;
        }
        let parent = self.tasks.parents.remove(&handle)?;
        let source = self.source(handle);
        self.tasks.service.cancel(handle);
        let mut movement = self.tasks.movements.remove(&handle)?;
        // Entering suspension invalidates the query (generation + 1); an unfinished execution
        // keeps its need of a path for when it is restored.
        movement.suspend();
        let own = StopOwner::Directive {
            session: parent.session,
        };
        let command_hold = self
            .tasks
            .release_stop(handle, StopCause::CommandHold, own)
            .ok()
            .map(|()| own);
        self.tasks.release_timed_standing(handle);
        let floor = movement.generation;
        log_task(
            self.events,
            self.frame,
            handle,
            source,
            parent.session,
            floor,
            TaskChange::Preempted,
        );
        self.tasks.suspended.insert(
            handle,
            SuspendedTask {
                parent,
                movement,
                command_hold,
            },
        );
        self.tasks.set_stop(
            handle,
            StopCause::HigherPriorityTask,
            StopOwner::Task {
                session: by_session,
            },
        );
        Some(floor)
    }

    /// The active task of `from_session` is replaced by a new one of `to_session` and priority
    /// `priority`: a suspended task it outranks stays suspended under the new owner; otherwise
    /// the suspended task is superseded too (its parent is logged as replaced and dropped).
    pub(super) fn hand_over_preemption(
        &mut self,
        handle: AgentHandle,
        from_session: u32,
        to_session: u32,
        priority: u8,
    ) {
        let from = StopOwner::Task {
            session: from_session,
        };
        if self
            .tasks
            .release_stop(handle, StopCause::HigherPriorityTask, from)
            .is_err()
        {
            return;
        }
        let outranks = self
            .tasks
            .suspended
            .get(&handle)
            .is_some_and(|held| priority > held.parent.kind.priority());
        if outranks {
            let to = StopOwner::Task {
                session: to_session,
            };
            self.tasks
                .set_stop(handle, StopCause::HigherPriorityTask, to);
        } else if let Some(held) = self.tasks.suspended.remove(&handle) {
            let source = self.source(handle);
            let (session, generation) = (held.parent.session, held.movement.generation);
            log_task(
                self.events,
                self.frame,
                handle,
                source,
                session,
                generation,
                TaskChange::Replaced,
            );
        }
    }

    /// The task of `session` ended (completed or cancelled): if it holds a lower task
    /// suspended, its owner releases the suspension and the lower task is restored, replanning
    /// from the ped's position to its retained goal (unless the body is suspended, whose
    /// release replans it instead).
    pub(super) fn end_preemption(&mut self, handle: AgentHandle, session: u32) {
        let owner = StopOwner::Task { session };
        if self
            .tasks
            .release_stop(handle, StopCause::HigherPriorityTask, owner)
            .is_err()
        {
            return;
        }
        let Some(held) = self.tasks.suspended.remove(&handle) else {
            return;
        };
        let floor = self
            .tasks
            .movements
            .get(&handle)
            .map_or(0, |m| m.generation);
        let mut movement = held.movement;
        movement.generation = movement.generation.max(floor);
        let row = self.row(handle);
        let body_down = self
            .tasks
            .stops_of(handle)
            .owner(StopCause::BodySuspension)
            .is_some();
        if let (Some(row), false) = (row, body_down) {
            let p = self.agents.position[row];
            let facing = self.agents.facing[row];
            movement.resume_from([p.x, p.y, movement.position[2]], facing.y.atan2(facing.x));
        }
        let generation = movement.generation;
        let parent = held.parent;
        let (state, goal) = (parent.state, parent.goal);
        self.tasks.parents.insert(handle, parent);
        self.tasks.movements.insert(handle, movement);
        if let Some(hold) = held.command_hold {
            self.tasks.set_stop(handle, StopCause::CommandHold, hold);
        }
        if let (Some(row), false) = (row, body_down) {
            self.agents.state[row] = match state {
                ParentState::WaitingForSignal => {
                    self.agents.resume[row] = AgentState::Travelling;
                    AgentState::Holding
                }
                ParentState::Travelling => AgentState::Travelling,
                _ => AgentState::Arrived,
            };
            self.agents.target[row] = Some(crate::project::Vec2 {
                x: goal[0],
                y: goal[1],
            });
        }
        self.log(handle, generation, TaskChange::Restored);
    }
}
