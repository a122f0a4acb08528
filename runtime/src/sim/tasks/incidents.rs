//! Ped events (incidents), as far as retirement needs them: a `QueueEvent` directive queues an
//! event candidate; the next Tasks update (the next full intelligence update) makes it the ped's
//! current event, which ends after its duration. A queued candidate and a current event each
//! protect the ped from retirement (the population specification: "current events and active
//! candidates awaiting the next full intelligence update also protect the entity"); population
//! never clears them, it waits for the Tasks phase to.

use std::collections::BTreeMap;

use super::paths::write_handle;
use crate::sim::state::{AgentHandle, Canonical, IncidentChange, Slots};

/// Every ped's queued candidate and current event.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Incidents {
    /// Queued candidates: how many frames each lasts once current.
    pub queued: BTreeMap<AgentHandle, u64>,
    /// Current events: the frame each ends at (it is current while `frame < end`).
    pub current: BTreeMap<AgentHandle, u64>,
}

impl Incidents {
    /// Whether no ped has a candidate or an event.
    pub fn is_empty(&self) -> bool {
        self.queued.is_empty() && self.current.is_empty()
    }

    /// Queues a candidate lasting `frames` (a second candidate before the update replaces the
    /// first: one candidate per ped).
    pub fn queue(&mut self, handle: AgentHandle, frames: u64) {
        self.queued.insert(handle, frames.max(1));
    }

    /// The Tasks update at `frame`: current events whose end has come end, then the queued
    /// candidates become current (a new event replaces a current one). Returns the changes in
    /// handle order, endings first.
    pub fn update(&mut self, frame: u64) -> Vec<(AgentHandle, IncidentChange)> {
        let mut changes = Vec::new();
        self.current.retain(|handle, end| {
            let ongoing = frame < *end;
            if !ongoing {
                changes.push((*handle, IncidentChange::Ended));
            }
            ongoing
        });
        for (handle, frames) in std::mem::take(&mut self.queued) {
            self.current.insert(handle, frame.saturating_add(frames));
            changes.push((handle, IncidentChange::Started));
        }
        changes
    }

    /// Whether the ped has a current event.
    pub fn has_current(&self, handle: AgentHandle) -> bool {
        self.current.contains_key(&handle)
    }

    /// Whether the ped has a queued candidate.
    pub fn has_queued(&self, handle: AgentHandle) -> bool {
        self.queued.contains_key(&handle)
    }

    /// Drops the entries of peds that no longer exist.
    pub fn prune(&mut self, slots: &Slots, rows: usize) {
        let live = |h: &AgentHandle| slots.resolve(*h).is_some_and(|r| r < rows);
        self.queued.retain(|h, _| live(h));
        self.current.retain(|h, _| live(h));
    }

    /// Whether every handle is a live row (a restore preflight).
    pub fn is_consistent(&self, slots: &Slots, rows: usize) -> bool {
        let live = |h: &AgentHandle| slots.resolve(*h).is_some_and(|r| r < rows);
        self.queued.keys().all(live) && self.current.keys().all(live)
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        for map in [&self.queued, &self.current] {
            (map.len() as u64).write_canonical(bytes);
            for (handle, value) in map {
                write_handle(*handle, bytes);
                value.write_canonical(bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_becomes_current_at_the_next_update_and_ends_after_its_frames() {
        let mut incidents = Incidents::default();
        incidents.queue(AgentHandle::first(3), 4);
        assert!(incidents.has_queued(AgentHandle::first(3)));
        assert!(!incidents.has_current(AgentHandle::first(3)));
        assert_eq!(
            incidents.update(10),
            vec![(AgentHandle::first(3), IncidentChange::Started)]
        );
        assert_eq!(incidents.current.get(&AgentHandle::first(3)), Some(&14));
        assert!(!incidents.has_queued(AgentHandle::first(3)));
        for frame in 11..14 {
            assert!(incidents.update(frame).is_empty(), "frame {frame}");
            assert!(incidents.has_current(AgentHandle::first(3)));
        }
        assert_eq!(
            incidents.update(14),
            vec![(AgentHandle::first(3), IncidentChange::Ended)]
        );
        assert!(incidents.is_empty());
    }

    #[test]
    fn a_zero_frame_candidate_still_lasts_one_update() {
        let mut incidents = Incidents::default();
        incidents.queue(AgentHandle::first(1), 0);
        incidents.update(5);
        assert_eq!(incidents.current.get(&AgentHandle::first(1)), Some(&6));
        let mut bytes = Vec::new();
        incidents.write_canonical(&mut bytes);
        // queued count 0, current count 1, handle (index, generation), end frame.
        assert_eq!(bytes.len(), 8 + 8 + 8 + 8);
    }
}
