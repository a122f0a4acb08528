//! Ped event records: an event (its type, source, session tag, threat and endpoint) is a record
//! of its own with a lifecycle Queued → Active → Ended, separate from the task its response
//! starts (the tasks specification's "Queuing an event and starting its response are separate").
//! The records and their table live here; queuing, processing and cleanup are
//! `sim::tasks::incidents`.

use super::agents::{AgentHandle, Canonical};
use super::tasks::InstallRefusal;
use std::collections::BTreeMap;

/// What an event is.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum PedEventType {
    /// A threat: its response is an escape task.
    Threat,
    /// An incident (`QueueEvent`): current for a duration, no task.
    Incident,
}

impl PedEventType {
    /// `threat` or `incident` (as a `ClearEvents` directive names it).
    pub fn name(self) -> &'static str {
        match self {
            PedEventType::Threat => "threat",
            PedEventType::Incident => "incident",
        }
    }

    /// The type named `name`.
    pub fn from_name(name: &str) -> Option<PedEventType> {
        [PedEventType::Threat, PedEventType::Incident]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

/// The response an event type maps to (the event-to-task mapping).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum PedResponse {
    /// An escape task (a safety parent).
    Escape,
    /// No task: the event is only current for its duration.
    None,
}

/// Where an event is in its lifecycle.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum PedEventState {
    /// Queued: waits for the next Tasks update (the full intelligence update) to process it.
    Queued,
    /// Active: current; a threat's escape runs.
    Active,
    /// Ended (see [`PedEventEnd`]).
    Ended,
}

/// Why an event ended.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum PedEventEnd {
    /// Its response completed (the escape arrived beyond the safe distance).
    Completed,
    /// Its response's movement failed (the failure was consumed).
    Failed,
    /// Its response was cancelled.
    Cancelled,
    /// A new task replaced its response.
    Replaced,
    /// Processing refused it (no response was started).
    Refused(InstallRefusal),
    /// A cleanup (by type, source or tag) ended it.
    Cleaned,
    /// An incident's duration ran out.
    Expired,
}

/// One event.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct PedEvent {
    /// Its id (unique in the world, from 1, in queuing order).
    pub id: u32,
    /// The ped it is for.
    pub handle: AgentHandle,
    /// Its type.
    pub kind: PedEventType,
    /// Who queued it (the directive's source).
    pub source: String,
    /// Its session tag: the session its response task runs under.
    pub tag: u32,
    /// The threat, meters (a threat event; zero otherwise).
    pub threat: [f64; 3],
    /// Safe distance from the threat, meters.
    pub safe_distance_m: f64,
    /// The endpoint its response installs, meters (selected or supplied at queuing).
    pub endpoint: [f64; 3],
    /// Whether the endpoint was supplied rather than selected.
    pub supplied_endpoint: bool,
    /// Whether the task its response interrupts comes back when it ends.
    pub restore_interrupted: bool,
    /// How long an incident is current, frames.
    pub duration_frames: u64,
    /// Where it is in its lifecycle.
    pub state: PedEventState,
    /// Why it ended.
    pub end: Option<PedEventEnd>,
    /// The frame it was queued at.
    pub queued_frame: u64,
    /// The frame it became active at.
    pub active_frame: Option<u64>,
    /// The frame it ended at.
    pub ended_frame: Option<u64>,
    /// The goal of the task its response interrupted (kept for diagnostics; restored only with
    /// `restore_interrupted`).
    pub interrupted_goal: Option<[f64; 3]>,
    /// The motion profile its escape runs with, by index in the world's table (`None`: the
    /// running profile).
    #[serde(default)]
    pub profile: Option<u16>,
}

impl PedEvent {
    /// Whether it is still queued or active.
    pub fn is_live(&self) -> bool {
        self.state != PedEventState::Ended
    }

    /// Whether it matches a cleanup filter (`None` / 0 match anything).
    pub fn matches(&self, kind: Option<PedEventType>, source: Option<&str>, tag: u32) -> bool {
        kind.is_none_or(|k| k == self.kind)
            && source.is_none_or(|s| s == self.source)
            && (tag == 0 || tag == self.tag)
    }

    fn end_at(&mut self, frame: u64, end: PedEventEnd) {
        self.state = PedEventState::Ended;
        self.end = Some(end);
        self.ended_frame = Some(frame);
    }
}

/// Ended events a ped keeps for diagnostics (the oldest ended one goes first).
pub const ENDED_KEPT_PER_PED: usize = 8;

/// Why a mapping was not registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IncompatibleMapping {
    /// The response already registered.
    pub registered: PedResponse,
}

/// Every ped's events and the event-to-task mapping.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct PedEvents {
    /// The records, in id order (live ones and a few ended ones per ped).
    pub records: Vec<PedEvent>,
    /// The last id given.
    pub last_id: u32,
    /// The event-to-task mapping registered so far.
    pub mapping: BTreeMap<PedEventType, PedResponse>,
}

impl PedEvents {
    /// Whether no event was ever queued.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.last_id == 0 && self.mapping.is_empty()
    }

    /// Registers `kind → response`: an absent mapping is registered, the same one accepted, an
    /// incompatible one refused (never overwritten).
    pub fn register(
        &mut self,
        kind: PedEventType,
        response: PedResponse,
    ) -> Result<(), IncompatibleMapping> {
        match self.mapping.get(&kind) {
            Some(&registered) if registered != response => Err(IncompatibleMapping { registered }),
            Some(_) => Ok(()),
            None => {
                self.mapping.insert(kind, response);
                Ok(())
            }
        }
    }

    /// Adds a queued record (its id is given here) and returns the id.
    pub fn push(&mut self, mut event: PedEvent) -> u32 {
        self.last_id += 1;
        event.id = self.last_id;
        event.state = PedEventState::Queued;
        let id = event.id;
        self.records.push(event);
        id
    }

    /// The record of id `id`.
    pub fn get(&self, id: u32) -> Option<&PedEvent> {
        self.records.iter().find(|e| e.id == id)
    }

    /// The record of id `id`, mutably.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut PedEvent> {
        self.records.iter_mut().find(|e| e.id == id)
    }

    /// The ped's events, oldest first.
    pub fn of(&self, handle: AgentHandle) -> impl Iterator<Item = &PedEvent> {
        self.records.iter().filter(move |e| e.handle == handle)
    }

    /// The ped's live event of type `kind` in state `state`, if any.
    pub fn live_of(
        &self,
        handle: AgentHandle,
        kind: PedEventType,
        state: PedEventState,
    ) -> Option<&PedEvent> {
        self.of(handle).find(|e| e.kind == kind && e.state == state)
    }

    /// Whether the ped has a queued event.
    pub fn has_queued(&self, handle: AgentHandle) -> bool {
        self.of(handle).any(|e| e.state == PedEventState::Queued)
    }

    /// Whether the ped has an active (current) event.
    pub fn has_current(&self, handle: AgentHandle) -> bool {
        self.of(handle).any(|e| e.state == PedEventState::Active)
    }

    /// Ends event `id` at `frame` for `end` (nothing if it already ended); returns whether it
    /// ended now.
    pub fn end(&mut self, id: u32, frame: u64, end: PedEventEnd) -> bool {
        let Some(event) = self.get_mut(id).filter(|e| e.is_live()) else {
            return false;
        };
        event.end_at(frame, end);
        true
    }

    /// Ends every live event matching the filter (see [`PedEvent::matches`]); returns the ended
    /// ones' (id, handle, state before), in id order.
    pub fn end_matching(
        &mut self,
        filter: (Option<PedEventType>, Option<&str>, u32),
        frame: u64,
        end: PedEventEnd,
    ) -> Vec<(u32, AgentHandle, PedEventState)> {
        let (kind, source, tag) = filter;
        let mut ended = Vec::new();
        for event in &mut self.records {
            if event.is_live() && event.matches(kind, source, tag) {
                ended.push((event.id, event.handle, event.state));
                event.end_at(frame, end);
            }
        }
        ended
    }

    /// Drops the records of peds `live` says are gone, and all but the last
    /// [`ENDED_KEPT_PER_PED`] ended records of each ped.
    pub fn prune(&mut self, live: impl Fn(&AgentHandle) -> bool) {
        self.records.retain(|e| live(&e.handle));
        let mut ended: BTreeMap<AgentHandle, usize> = BTreeMap::new();
        for e in self.records.iter().filter(|e| !e.is_live()) {
            *ended.entry(e.handle).or_default() += 1;
        }
        self.records.retain(|e| {
            if e.is_live() {
                return true;
            }
            let count = ended.get_mut(&e.handle).expect("counted above");
            let keep = *count <= ENDED_KEPT_PER_PED;
            *count -= 1;
            keep
        });
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.last_id.write_canonical(bytes);
        (self.mapping.len() as u64).write_canonical(bytes);
        for (kind, response) in &self.mapping {
            bytes.extend_from_slice(&[*kind as u8, *response as u8]);
        }
        (self.records.len() as u64).write_canonical(bytes);
        for e in &self.records {
            e.write_canonical(bytes);
        }
    }
}

impl Canonical for PedEvent {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.id.write_canonical(bytes);
        self.handle.index.write_canonical(bytes);
        self.handle.generation.write_canonical(bytes);
        bytes.push(self.kind as u8);
        bytes.extend_from_slice(self.source.as_bytes());
        bytes.push(0);
        self.tag.write_canonical(bytes);
        for v in self.threat.iter().chain(&self.endpoint) {
            v.write_canonical(bytes);
        }
        self.safe_distance_m.write_canonical(bytes);
        bytes.extend_from_slice(&[
            u8::from(self.supplied_endpoint),
            u8::from(self.restore_interrupted),
            self.state as u8,
        ]);
        self.duration_frames.write_canonical(bytes);
        let end = self.end.map_or((255, 0), |end| match end {
            PedEventEnd::Refused(why) => (5, why as u8),
            other => (end_code(other), 0),
        });
        bytes.extend_from_slice(&[end.0, end.1]);
        self.queued_frame.write_canonical(bytes);
        for frame in [self.active_frame, self.ended_frame] {
            frame.map_or(u64::MAX, |f| f).write_canonical(bytes);
        }
        match self.interrupted_goal {
            Some(goal) => {
                bytes.push(1);
                for v in goal {
                    v.write_canonical(bytes);
                }
            }
            None => bytes.push(0),
        }
        // Only when named, so events of directives that name no profile keep their bytes.
        if let Some(profile) = self.profile {
            bytes.push(0xd6);
            bytes.extend_from_slice(&profile.to_le_bytes());
        }
    }
}

fn end_code(end: PedEventEnd) -> u8 {
    match end {
        PedEventEnd::Completed => 0,
        PedEventEnd::Failed => 1,
        PedEventEnd::Cancelled => 2,
        PedEventEnd::Replaced => 3,
        PedEventEnd::Cleaned => 4,
        PedEventEnd::Refused(_) => 5,
        PedEventEnd::Expired => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(handle: AgentHandle, kind: PedEventType, source: &str, tag: u32) -> PedEvent {
        PedEvent {
            id: 0,
            handle,
            kind,
            source: source.into(),
            tag,
            threat: [0.0; 3],
            safe_distance_m: 0.0,
            endpoint: [0.0; 3],
            supplied_endpoint: false,
            restore_interrupted: false,
            duration_frames: 1,
            state: PedEventState::Queued,
            end: None,
            queued_frame: 0,
            active_frame: None,
            ended_frame: None,
            interrupted_goal: None,
            profile: None,
        }
    }

    #[test]
    fn an_absent_mapping_is_registered_and_an_incompatible_one_refused_not_overwritten() {
        let mut events = PedEvents::default();
        assert_eq!(
            events.register(PedEventType::Threat, PedResponse::Escape),
            Ok(())
        );
        assert_eq!(
            events.register(PedEventType::Threat, PedResponse::Escape),
            Ok(())
        );
        assert_eq!(
            events.register(PedEventType::Threat, PedResponse::None),
            Err(IncompatibleMapping {
                registered: PedResponse::Escape
            })
        );
        assert_eq!(
            events.mapping.get(&PedEventType::Threat),
            Some(&PedResponse::Escape)
        );
    }

    #[test]
    fn cleanup_by_type_source_or_tag_ends_only_the_matching_events() {
        let a = AgentHandle::first(1);
        let b = AgentHandle::first(2);
        let mut events = PedEvents::default();
        events.push(event(a, PedEventType::Threat, "script", 1));
        events.push(event(a, PedEventType::Incident, "script", 2));
        events.push(event(b, PedEventType::Threat, "alarm", 3));
        events.push(event(b, PedEventType::Threat, "alarm", 4));
        let by_tag = events.end_matching((None, None, 4), 7, PedEventEnd::Cleaned);
        assert_eq!(by_tag, [(4, b, PedEventState::Queued)]);
        let by_source = events.end_matching((None, Some("alarm"), 0), 8, PedEventEnd::Cleaned);
        assert_eq!(by_source, [(3, b, PedEventState::Queued)]);
        let by_type = events.end_matching(
            (Some(PedEventType::Incident), None, 0),
            9,
            PedEventEnd::Cleaned,
        );
        assert_eq!(by_type, [(2, a, PedEventState::Queued)]);
        let live: Vec<u32> = events
            .records
            .iter()
            .filter(|e| e.is_live())
            .map(|e| e.id)
            .collect();
        assert_eq!(live, [1]);
        assert_eq!(events.get(4).and_then(|e| e.ended_frame), Some(7));
        assert!(!events.end(4, 10, PedEventEnd::Completed), "ended once");
        assert_eq!(
            events.get(4).and_then(|e| e.end),
            Some(PedEventEnd::Cleaned)
        );
    }

    #[test]
    fn pruning_keeps_live_events_and_the_last_eight_ended_ones_per_ped() {
        let a = AgentHandle::first(1);
        let mut events = PedEvents::default();
        for tag in 1..=12 {
            events.push(event(a, PedEventType::Incident, "script", tag));
        }
        for id in 1..=11 {
            events.end(id, u64::from(id), PedEventEnd::Expired);
        }
        events.prune(|_| true);
        let kept: Vec<u32> = events.records.iter().map(|e| e.id).collect();
        assert_eq!(kept, [4, 5, 6, 7, 8, 9, 10, 11, 12]);
        events.prune(|h| *h != a);
        assert!(events.records.is_empty());
        assert_eq!(events.last_id, 12, "ids are never reused");
    }
}
