//! The two extra-distance retirement flags, each reset in its own phase (population
//! specification, "Task flags reset at task-update boundaries"):
//!
//! - the **ordinary** flag: a script asks for it (`ExtendRemovalDistance(task: false)`); the next
//!   pedestrian Control update consumes the requests into this update's flags and resets the
//!   previous ones, so without reassertion it lapses after one update;
//! - the **task** flag: set by a ped's active primary task that asked for it
//!   (`ExtendRemovalDistance(task: true)`) and reset only before a full task update of that ped;
//!   a pooled ped (task updates suppressed) or a knocked-down ped (only its body is updated: a
//!   partial update) keeps it. The full update then lets the asking task reassert it while that
//!   task (the same session) is still the ped's active primary task; a task that ended no longer
//!   does, so its flag lasts until the ped's next full task update.
//!
//! A flagged ped qualifies for a removal scale, as does every ped while a suppress-cleanup request
//! holds; [`RemovalScales::select`](crate::sim::config::RemovalScales::select) picks the cops or
//! the special scale by its classification.

use crate::sim::state::AgentHandle;

/// The flags and the tasks that assert them. Every list is sorted by handle.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtraDistance {
    /// Ordinary-flag requests since the last Control update.
    pub requested: Vec<AgentHandle>,
    /// This update's ordinary flags (consumed from the requests at Control).
    pub ordinary: Vec<AgentHandle>,
    /// Task flags.
    pub task: Vec<AgentHandle>,
    /// The primary tasks that assert a task flag: `(ped, session of the task)`.
    pub task_asks: Vec<(AgentHandle, u32)>,
}

fn insert(list: &mut Vec<AgentHandle>, handle: AgentHandle) {
    if let Err(at) = list.binary_search(&handle) {
        list.insert(at, handle);
    }
}

fn contains(list: &[AgentHandle], handle: AgentHandle) -> bool {
    list.binary_search(&handle).is_ok()
}

impl ExtraDistance {
    /// Whether nothing is flagged or asked.
    pub fn is_empty(&self) -> bool {
        self.requested.is_empty()
            && self.ordinary.is_empty()
            && self.task.is_empty()
            && self.task_asks.is_empty()
    }

    /// A script asks for the ordinary flag of `handle` (for the next Control update).
    pub fn request(&mut self, handle: AgentHandle) {
        insert(&mut self.requested, handle);
    }

    /// Pedestrian Control: the ordinary flags reset and this update's are the requests.
    pub fn control_update(&mut self) {
        self.ordinary = std::mem::take(&mut self.requested);
    }

    /// The active primary task of `handle` (session `session`) asks for the task flag: it is set
    /// now and reasserted at each full task update while that task stays active.
    pub fn ask_task(&mut self, handle: AgentHandle, session: u32) {
        let ask = (handle, session);
        if let Err(at) = self.task_asks.binary_search(&ask) {
            self.task_asks.insert(at, ask);
        }
        insert(&mut self.task, handle);
    }

    /// The task update: for each ped whose update is full (`full`), its task flag resets and,
    /// when the task that asked is still its active primary task (`active(ped, session)`), is
    /// asserted again; an ask whose task is no longer active is dropped. Peds whose update is
    /// partial or suppressed keep their flag and their asks.
    pub fn full_task_update(
        &mut self,
        full: impl Fn(AgentHandle) -> bool,
        active: impl Fn(AgentHandle, u32) -> bool,
    ) {
        self.task.retain(|h| !full(*h));
        let mut reasserted = Vec::new();
        self.task_asks.retain(|&(handle, session)| {
            if !full(handle) {
                return true;
            }
            let keeps = active(handle, session);
            if keeps {
                reasserted.push(handle);
            }
            keeps
        });
        for handle in reasserted {
            insert(&mut self.task, handle);
        }
    }

    /// Whether `handle` has either flag now.
    pub fn flagged(&self, handle: AgentHandle) -> bool {
        contains(&self.ordinary, handle) || contains(&self.task, handle)
    }

    /// Forgets a destroyed ped.
    pub fn forget(&mut self, handle: AgentHandle) {
        self.requested.retain(|h| *h != handle);
        self.ordinary.retain(|h| *h != handle);
        self.task.retain(|h| *h != handle);
        self.task_asks.retain(|(h, _)| *h != handle);
    }

    /// Canonical bytes: nothing while empty (worlds that never flag anyone keep their bytes).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        if self.is_empty() {
            return;
        }
        bytes.extend_from_slice(b"EXTRADI1");
        for list in [&self.requested, &self.ordinary, &self.task] {
            bytes.extend_from_slice(&(list.len() as u64).to_le_bytes());
            for h in list {
                bytes.extend_from_slice(&h.index.to_le_bytes());
                bytes.extend_from_slice(&h.generation.to_le_bytes());
            }
        }
        bytes.extend_from_slice(&(self.task_asks.len() as u64).to_le_bytes());
        for (h, session) in &self.task_asks {
            bytes.extend_from_slice(&h.index.to_le_bytes());
            bytes.extend_from_slice(&h.generation.to_le_bytes());
            bytes.extend_from_slice(&session.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(index: u32) -> AgentHandle {
        AgentHandle {
            index,
            generation: 0,
        }
    }

    #[test]
    fn the_ordinary_flag_lives_one_control_update_unless_reasserted() {
        let mut extra = ExtraDistance::default();
        extra.request(h(1));
        assert!(
            !extra.flagged(h(1)),
            "a request acts from the next Control update"
        );
        extra.control_update();
        assert!(extra.flagged(h(1)));
        // A task update does not touch the ordinary flag.
        extra.full_task_update(|_| true, |_, _| false);
        assert!(extra.flagged(h(1)));
        extra.control_update();
        assert!(!extra.flagged(h(1)), "not reasserted: reset at Control");
        assert!(extra.is_empty());
    }

    #[test]
    fn the_task_flag_resets_only_at_a_full_task_update_and_its_task_reasserts_it() {
        let mut extra = ExtraDistance::default();
        extra.ask_task(h(2), 7);
        assert!(extra.flagged(h(2)));
        // Control never resets the task flag.
        extra.control_update();
        extra.control_update();
        assert!(extra.flagged(h(2)));
        // A partial or suppressed update keeps it, even though the task has ended.
        extra.full_task_update(|_| false, |_, _| false);
        assert!(extra.flagged(h(2)));
        assert_eq!(extra.task_asks, [(h(2), 7)]);
        // A full update while session 7 is still active: reset, then reasserted.
        extra.full_task_update(|_| true, |handle, session| handle == h(2) && session == 7);
        assert!(extra.flagged(h(2)));
        // Another session is now active: reset and not reasserted, the ask dropped.
        extra.full_task_update(|_| true, |_, session| session == 8);
        assert!(!extra.flagged(h(2)));
        assert!(extra.is_empty());
    }
}
