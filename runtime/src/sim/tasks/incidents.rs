//! Ped events and their responses: queuing an event and starting its response are separate
//! steps (the tasks specification's "How an event establishes persistent escape intent").
//!
//! - **Queuing** (a directive: `Escape` queues a threat, `QueueEvent` an incident) checks the
//!   inputs (finite), the ped's existing responses (a queued threat holds the pending primary
//!   slot: a second one is refused; another source's active response refuses it), the
//!   event-to-task mapping (absent → registered, incompatible → refused, never overwritten) and,
//!   for a threat, its endpoint — supplied, or selected by the escape policy — strictly beyond
//!   safe + 0.15 m from the threat. Success records the event Queued with the directive's
//!   source and a new session tag, and takes the ped's pending primary slot.
//! - **Processing** (the next Tasks update, the full intelligence update): an incident becomes
//!   current (Active) and ends after its duration; a threat is checked again — identity (still
//!   the ped's queued event), the pending slot (still naming it), suppression (pooled, body
//!   suspended), the vehicle relation, another source's active task — and then installs its
//!   escape under the event's tag (start count 1): the interrupted task's goal is kept in the
//!   event for diagnostics and not restored, unless the directive asked `restore_interrupted`.
//! - **Ending**: the escape's completion, consumed failure, cancel or replacement ends its event
//!   (matched by type, source and tag, never all of a ped's events); `ClearEvents` ends the
//!   events matching a type, source and tag, cancelling an active threat's escape.
//!
//! Queued and current events protect the ped from retirement; population never clears them.

use super::commands::{self, Installing};
use super::escape;
use super::gait;
use super::parent::ParentKind;
use super::paths::PathGrid;
use super::Book;
use crate::project::Vec2;
use crate::sim::config::profiles::ProfileTable;
use crate::sim::state::{
    log_task, AgentHandle, AgentState, IncidentChange, InstallRefusal, PedEvent, PedEventEnd,
    PedEventState, PedEventType, PedResponse, TaskChange,
};
use crate::sim::walk::body::BODY_RADIUS_M;

/// What an `Escape` directive queues.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThreatSpec {
    /// The threat, meters.
    pub threat: Vec2,
    /// Safe distance, meters.
    pub safe_distance_m: f64,
    /// A supplied endpoint (`None`: selected).
    pub endpoint: Option<Vec2>,
    /// Whether the interrupted task comes back when the escape ends.
    pub restore_interrupted: bool,
    /// The motion profile the escape runs with (`None`: running).
    pub profile: Option<u16>,
}

fn blank_event(handle: AgentHandle, kind: PedEventType, source: &str, frame: u64) -> PedEvent {
    PedEvent {
        id: 0,
        handle,
        kind,
        source: source.to_owned(),
        tag: 0,
        threat: [0.0; 3],
        safe_distance_m: 0.0,
        endpoint: [0.0; 3],
        supplied_endpoint: false,
        restore_interrupted: false,
        duration_frames: 1,
        state: PedEventState::Queued,
        end: None,
        queued_frame: frame,
        active_frame: None,
        ended_frame: None,
        interrupted_goal: None,
        profile: None,
    }
}

impl Book<'_> {
    fn log_event(&mut self, handle: AgentHandle, tag: u32, change: TaskChange) {
        let source = self.source(handle);
        let generation = self.generation(handle);
        log_task(
            self.events,
            self.frame,
            handle,
            source,
            tag,
            generation,
            change,
        );
    }

    fn new_tag(&mut self) -> u32 {
        self.tasks.sessions += 1;
        self.tasks.sessions
    }

    /// `QueueEvent`: queues an incident lasting `frames` once current (an incident still
    /// queued for the ped is replaced: one candidate per ped).
    pub(super) fn queue_incident(&mut self, handle: AgentHandle, source: &str, frames: u64) {
        let events = &mut self.tasks.events;
        if events
            .register(PedEventType::Incident, PedResponse::None)
            .is_err()
        {
            return commands::refuse(self, handle, InstallRefusal::IncompatibleMapping);
        }
        let earlier: Vec<u32> = events
            .of(handle)
            .filter(|e| e.kind == PedEventType::Incident && e.state == PedEventState::Queued)
            .map(|e| e.id)
            .collect();
        for id in earlier {
            events.end(id, self.frame, PedEventEnd::Replaced);
        }
        let tag = self.new_tag();
        let mut event = blank_event(handle, PedEventType::Incident, source, self.frame);
        event.tag = tag;
        event.duration_frames = frames.max(1);
        self.tasks.events.push(event);
        self.log_event(handle, tag, TaskChange::Incident(IncidentChange::Queued));
    }

    /// `Escape`: queues a threat event after the queuing checks; the next Tasks update
    /// processes it. A refusal is logged and changes nothing.
    pub(super) fn queue_threat(
        &mut self,
        paths: &PathGrid,
        (row, handle): (usize, AgentHandle),
        spec: ThreatSpec,
        source: &str,
    ) {
        match self.threat_endpoint(paths, (row, handle), spec, source) {
            Err(why) => commands::refuse(self, handle, why),
            Ok((endpoint, supplied)) => {
                let tag = self.new_tag();
                let mut event = blank_event(handle, PedEventType::Threat, source, self.frame);
                event.tag = tag;
                event.threat = [spec.threat.x, spec.threat.y, 0.0];
                event.safe_distance_m = spec.safe_distance_m;
                event.endpoint = endpoint;
                event.supplied_endpoint = supplied;
                event.restore_interrupted = spec.restore_interrupted;
                event.profile = spec.profile;
                let id = self.tasks.events.push(event);
                self.tasks.pending.insert(handle, id);
                self.log_event(handle, tag, TaskChange::Incident(IncidentChange::Queued));
            }
        }
    }

    /// The queuing checks of a threat and its endpoint (supplied or selected).
    fn threat_endpoint(
        &mut self,
        paths: &PathGrid,
        (row, handle): (usize, AgentHandle),
        spec: ThreatSpec,
        source: &str,
    ) -> Result<([f64; 3], bool), InstallRefusal> {
        let finite = [spec.threat.x, spec.threat.y, spec.safe_distance_m]
            .into_iter()
            .chain(spec.endpoint.iter().flat_map(|e| [e.x, e.y]))
            .all(f64::is_finite);
        if !finite {
            return Err(InstallRefusal::NonFiniteInput);
        }
        if self.tasks.pending.contains_key(&handle) {
            return Err(InstallRefusal::ResponsePending);
        }
        let other_active = self
            .tasks
            .events
            .live_of(handle, PedEventType::Threat, PedEventState::Active)
            .is_some_and(|e| e.source != source);
        if other_active {
            return Err(InstallRefusal::OtherSourceTask);
        }
        self.tasks
            .events
            .register(PedEventType::Threat, PedResponse::Escape)
            .map_err(|_| InstallRefusal::IncompatibleMapping)?;
        let (goal, supplied) = match spec.endpoint {
            Some(e) => ([e.x, e.y, 0.0], true),
            None => (self.select_endpoint(paths, (row, handle), spec)?, false),
        };
        let from_threat = (goal[0] - spec.threat.x).hypot(goal[1] - spec.threat.y);
        if from_threat <= spec.safe_distance_m + escape::QUEUING_MARGIN_M {
            return Err(InstallRefusal::EscapeGoalTooClose);
        }
        Ok((goal, supplied))
    }

    /// The escape selection policy's endpoint (its report kept for the overlay).
    fn select_endpoint(
        &mut self,
        paths: &PathGrid,
        (row, handle): (usize, AgentHandle),
        spec: ThreatSpec,
    ) -> Result<[f64; 3], InstallRefusal> {
        let agents = &*self.agents;
        let occupied = |p: Vec2| {
            (0..agents.len()).any(|r| {
                r != row
                    && !agents.pooled[r]
                    && (agents.position[r].x - p.x).hypot(agents.position[r].y - p.y)
                        < 2.0 * BODY_RADIUS_M
            })
        };
        let report = escape::select(
            paths,
            agents.position[row],
            agents.facing[row],
            spec.threat,
            spec.safe_distance_m,
            &occupied,
        );
        let endpoint = report.endpoint();
        self.tasks.escapes.insert(handle, report);
        endpoint.ok_or(InstallRefusal::EscapeNotAccepted)
    }

    /// The full intelligence update: current incidents whose duration ran out end, queued
    /// incidents become current, then queued threats are processed in queuing order.
    pub(super) fn process_events(&mut self, profiles: &ProfileTable) {
        let frame = self.frame;
        let mut changes: Vec<(AgentHandle, u32, IncidentChange)> = Vec::new();
        for e in &mut self.tasks.events.records {
            if e.kind != PedEventType::Incident {
                continue;
            }
            let due = e
                .active_frame
                .is_some_and(|at| frame >= at.saturating_add(e.duration_frames));
            if e.state == PedEventState::Active && due {
                e.state = PedEventState::Ended;
                e.end = Some(PedEventEnd::Expired);
                e.ended_frame = Some(frame);
                changes.push((e.handle, e.tag, IncidentChange::Ended));
            }
        }
        // A new incident replaces the ped's current one.
        let starting: Vec<(u32, AgentHandle)> = self
            .tasks
            .events
            .records
            .iter()
            .filter(|e| e.kind == PedEventType::Incident && e.state == PedEventState::Queued)
            .map(|e| (e.id, e.handle))
            .collect();
        for (id, handle) in starting {
            let events = &mut self.tasks.events;
            let current: Vec<u32> = events
                .of(handle)
                .filter(|e| e.kind == PedEventType::Incident && e.state == PedEventState::Active)
                .map(|e| e.id)
                .collect();
            for old in current {
                events.end(old, frame, PedEventEnd::Replaced);
            }
            if let Some(e) = events.get_mut(id) {
                e.state = PedEventState::Active;
                e.active_frame = Some(frame);
                changes.push((handle, e.tag, IncidentChange::Started));
            }
        }
        for (handle, tag, change) in changes {
            self.log_event(handle, tag, TaskChange::Incident(change));
        }
        let threats: Vec<u32> = self
            .tasks
            .events
            .records
            .iter()
            .filter(|e| e.kind == PedEventType::Threat && e.state == PedEventState::Queued)
            .map(|e| e.id)
            .collect();
        for id in threats {
            self.process_threat(id, profiles);
        }
    }

    /// The processing checks of a queued threat, in the specification's order.
    fn threat_checks(&self, event: &PedEvent) -> Result<usize, InstallRefusal> {
        let handle = event.handle;
        let row = self.row(handle).ok_or(InstallRefusal::EventIdentity)?;
        if event.state != PedEventState::Queued {
            return Err(InstallRefusal::EventIdentity);
        }
        if self.tasks.pending.get(&handle) != Some(&event.id) {
            return Err(InstallRefusal::PendingSlot);
        }
        if self.agents.pooled[row] {
            return Err(InstallRefusal::Suppressed);
        }
        commands::install_checks(self, row, handle, &event.source)?;
        Ok(row)
    }

    /// Processes queued threat `id`: refused (the event ends, no response) or its escape is
    /// installed under the event's tag and the event becomes Active.
    fn process_threat(&mut self, id: u32, profiles: &ProfileTable) {
        let Some(event) = self.tasks.events.get(id).cloned() else {
            return;
        };
        let handle = event.handle;
        let checked = self.threat_checks(&event);
        if self.tasks.pending.get(&handle) == Some(&id) {
            self.tasks.pending.remove(&handle);
        }
        let row = match checked {
            Ok(row) => row,
            Err(why) => {
                self.tasks
                    .events
                    .end(id, self.frame, PedEventEnd::Refused(why));
                commands::refuse(self, handle, why);
                let ended = TaskChange::Incident(IncidentChange::Ended);
                return self.log_event(handle, event.tag, ended);
            }
        };
        let interrupted = self.tasks.active_parent(handle).map(|p| p.goal);
        let kind = ParentKind::Escape {
            threat: event.threat,
            safe_distance_m: event.safe_distance_m,
            start_count: 1,
        };
        // Escape runs: the event's profile, else the running one; the movement starts at the
        // speed that profile steps at.
        let profile = event.profile.unwrap_or(gait::RUNNING_INDEX);
        let how = Installing {
            source: &event.source,
            session: Some(event.tag),
            restore: event.restore_interrupted,
            profile: Some(profile),
        };
        let goal = event.endpoint;
        let speed_m_s = profiles.get(profile).speed_m_s;
        commands::install(self, (row, handle), kind, (goal, speed_m_s), how);
        if let Some(e) = self.tasks.events.get_mut(id) {
            e.state = PedEventState::Active;
            e.active_frame = Some(self.frame);
            e.interrupted_goal = interrupted;
        }
        self.agents.state[row] = AgentState::Fleeing;
        self.agents.safe_distance_m[row] = event.safe_distance_m;
        self.agents.target[row] = Some(Vec2 {
            x: event.threat[0],
            y: event.threat[1],
        });
        let started = TaskChange::Incident(IncidentChange::Started);
        self.log_event(handle, event.tag, started);
    }

    /// The response of the ped's task of `session` ended: its threat event (matched by type,
    /// the ped and the tag) ends for `end`.
    pub(super) fn end_response(&mut self, handle: AgentHandle, session: u32, end: PedEventEnd) {
        let id = self
            .tasks
            .events
            .of(handle)
            .find(|e| e.kind == PedEventType::Threat && e.tag == session && e.is_live())
            .map(|e| e.id);
        if let Some(id) = id {
            self.tasks.events.end(id, self.frame, end);
            let ended = TaskChange::Incident(IncidentChange::Ended);
            self.log_event(handle, session, ended);
        }
    }

    /// `ClearEvents`: ends the live events matching `filter` (type, source, tag; `None` / 0 match
    /// any); a queued threat frees its pending slot, an active threat's escape is cancelled
    /// (by its own source and session). Returns how many ended.
    pub(super) fn clear_events(
        &mut self,
        filter: (Option<PedEventType>, Option<&str>, u32),
    ) -> usize {
        let ended = self
            .tasks
            .events
            .end_matching(filter, self.frame, PedEventEnd::Cleaned);
        for &(id, handle, state) in &ended {
            let Some(event) = self.tasks.events.get(id).cloned() else {
                continue;
            };
            if self.tasks.pending.get(&handle) == Some(&id) {
                self.tasks.pending.remove(&handle);
            }
            self.log_event(
                handle,
                event.tag,
                TaskChange::Incident(IncidentChange::Ended),
            );
            let running = self
                .tasks
                .active_parent(handle)
                .is_some_and(|p| p.session == event.tag);
            if event.kind == PedEventType::Threat && state == PedEventState::Active && running {
                let issuer = commands::Issuer {
                    source: &event.source,
                    session: event.tag,
                    profile: None,
                };
                commands::cancel(self, handle, issuer);
            }
        }
        ended.len()
    }
}
