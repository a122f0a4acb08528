//! The world's bounded event log: every admission, rejection (with its reason), realization,
//! rollback, retirement (and refusal), pool entry, acquisition, claim, release, transfer refusal,
//! box change and directive, and every stuck flag, recovery and forced crosswalk clear, each
//! with its frame, handle and source.
//!
//! Memory is bounded by a ring per kind ([`EVENTS_PER_KIND`] entries each), so a flood of one
//! kind (rejections while a candidate stays occupied) never evicts the rare ones (a claim, a
//! rollback); what a ring drops is counted. The log is part of the world state: snapshots carry
//! it and the state digest covers it — except the ground position some events carry
//! ([`EventPosition`]), which is presentation only: it is decided by the state the digest
//! already covers, and is left out of the canonical bytes so that digests stay as they were.

use std::collections::VecDeque;

use super::agents::AgentHandle;
use super::knockdown::{KnockdownReason, RecoveryPhase};
use super::liveness::StuckReason;
use super::population::{ClaimRefusal, RetireRefusal, RetireRule, SpawnRejection};
use super::recognition::Recognition;
use super::tasks::TaskChange;
use crate::content::StreamingCell;

/// Entries each kind's ring keeps; older ones are dropped and counted.
pub const EVENTS_PER_KIND: usize = 256;

/// What happened.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum EventKind {
    /// A candidate passed every admission gate.
    Admitted,
    /// A candidate or a demand was refused (the detail says which gate).
    Rejected,
    /// A batch was realized: its peds are attached and its demand is cleared.
    Realized,
    /// A batch failed after partial work and was compensated.
    RolledBack,
    /// A ped left its source (into the pool or destroyed).
    Retired,
    /// A ped the spatial rule would retire was kept (the detail says why).
    RetireRefused,
    /// A ped entered the reuse pool.
    PoolEntered,
    /// A pooled ped was acquired for a new batch.
    Acquired,
    /// A ped was claimed by a script owner (or transferred with permission).
    Claimed,
    /// A claimed ped was released to the ambient population.
    Released,
    /// A claim or release was refused (the detail says why).
    ClaimRefused,
    /// A box was set or cleared, or an invalid box was refused.
    BoxChanged,
    /// A directive was applied (or its target could not be resolved).
    Directive,
    /// A ped was destroyed (explicitly, by pool eviction or by a rollback).
    Destroyed,
    /// A ped panicked at a stimulus and was given a flee exit (the detail says which).
    Panicked,
    /// A ped checked a presented faction on line of sight (the detail says what it saw).
    Recognised,
    /// An agent made no progress past the stuck threshold (the detail says why).
    Stuck,
    /// A stuck agent made progress again.
    Unstuck,
    /// The liveness guard cleared a committed crosser without progress to its exit.
    ForcedClear,
    /// A task transition (the detail has the parent's session, the generation and the reason).
    Task,
    /// A knockdown or recovery transition, a refused knockdown or an intent change during one
    /// (the detail has the session, the phase entered and the reason).
    Knockdown,
    /// An agent left the streaming plan's loaded ring, or came back into it (the detail says
    /// which, with its streaming cell); outside, its tier is demoted one rung.
    Ring,
    /// The liveness guard refreshed the waiting window of a queued walker stalled short of its
    /// waiting point (it waits where it stands; `sim::crossings::stuck`).
    WindowRefresh,
}

/// Every kind, in code order.
pub const EVENT_KINDS: [EventKind; 23] = [
    EventKind::Admitted,
    EventKind::Rejected,
    EventKind::Realized,
    EventKind::RolledBack,
    EventKind::Retired,
    EventKind::RetireRefused,
    EventKind::PoolEntered,
    EventKind::Acquired,
    EventKind::Claimed,
    EventKind::Released,
    EventKind::ClaimRefused,
    EventKind::BoxChanged,
    EventKind::Directive,
    EventKind::Destroyed,
    EventKind::Panicked,
    EventKind::Recognised,
    EventKind::Stuck,
    EventKind::Unstuck,
    EventKind::ForcedClear,
    EventKind::Task,
    EventKind::Knockdown,
    EventKind::Ring,
    EventKind::WindowRefresh,
];

/// Kinds added after the log's first layout: their ring is written only once it has ever held
/// an event, so worlds that never had one keep their digests.
const LATER_KINDS: usize = 14;

impl EventKind {
    /// A stable small number (index into [`EVENT_KINDS`]).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A short lowercase name for logs and JSON.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Admitted => "admitted",
            EventKind::Rejected => "rejected",
            EventKind::Realized => "realized",
            EventKind::RolledBack => "rolled back",
            EventKind::Retired => "retired",
            EventKind::RetireRefused => "retire refused",
            EventKind::PoolEntered => "pool entered",
            EventKind::Acquired => "acquired",
            EventKind::Claimed => "claimed",
            EventKind::Released => "released",
            EventKind::ClaimRefused => "claim refused",
            EventKind::BoxChanged => "box changed",
            EventKind::Directive => "directive",
            EventKind::Destroyed => "destroyed",
            EventKind::Panicked => "panicked",
            EventKind::Recognised => "recognised",
            EventKind::Stuck => "stuck",
            EventKind::Unstuck => "unstuck",
            EventKind::ForcedClear => "forced clear",
            EventKind::Task => "task",
            EventKind::Knockdown => "knockdown",
            EventKind::Ring => "ring",
            EventKind::WindowRefresh => "window refresh",
        }
    }
}

/// Which box a box event is about.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum BoxSlot {
    /// The no-spawn box.
    NoSpawn,
    /// The no-removal box.
    NoRemoval,
}

/// What a box event did.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum BoxChange {
    /// The slot now holds a new box.
    Set,
    /// The slot was emptied.
    Cleared,
    /// The box given was not finite or had min > max; the slot kept its box.
    Refused,
}

/// Why a ped was destroyed (the detail of a `Destroyed` event).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum RemovalCause {
    /// An explicit `Destroy` directive.
    Explicit,
    /// Evicted from a full reuse pool to make room for a newer entry.
    Evicted,
    /// Retired while the pool refused it.
    PoolRefused,
    /// A batch's rollback removed it.
    RolledBack,
}

impl RemovalCause {
    /// The cause in words.
    pub fn describe(self) -> &'static str {
        match self {
            RemovalCause::Explicit => "destroyed explicitly by a directive",
            RemovalCause::Evicted => "evicted from the full reuse pool",
            RemovalCause::PoolRefused => "retired while the reuse pool refused it",
            RemovalCause::RolledBack => "removed by a batch's rollback",
        }
    }
}

/// Why a directive's target could not be resolved.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum Unresolved {
    /// The source has not created that many peds yet.
    NotBorn,
    /// The handle is stale (the ped was destroyed) or names no slot.
    Stale,
    /// No ambient ped exists to be the nearest one.
    NoAmbient,
    /// The directive names an observer, family or ped that this world does not have.
    Missing,
}

/// The detail of an event.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum EventDetail {
    /// Nothing more to say.
    None,
    /// The gate that refused a candidate or demand.
    Rejection(SpawnRejection),
    /// Why a ped was not retired.
    Refusal(RetireRefusal),
    /// Why a claim or release was refused.
    Claim(ClaimRefusal),
    /// A batch: how many peds it had, and how many of them were reused from the pool.
    Batch {
        /// Peds in the batch.
        items: u32,
        /// Of which reused.
        reused: u32,
    },
    /// A rollback: whether compensation completed (false = `RollbackFailed`) and how many items
    /// were undone.
    Rollback {
        /// Whether every compensation step succeeded.
        complete: bool,
        /// Items compensated (in reverse order).
        undone: u32,
    },
    /// Retirement: the rule that took the ped from its source, and where it went — into the
    /// pool or destroyed (the pool refused it, or an explicit destroy).
    Retirement {
        /// True when the ped entered the pool.
        pooled: bool,
        /// Which rule retired it.
        rule: RetireRule,
    },
    /// Why a ped was destroyed.
    Removal(RemovalCause),
    /// A box slot change.
    Box(BoxSlot, BoxChange),
    /// A directive by its index in the scenario's list; `unresolved` when its target was not
    /// found (the directive did nothing).
    Directive {
        /// Index in the scenario's directive list.
        index: u32,
        /// Why the target could not be resolved, if it could not.
        unresolved: Option<Unresolved>,
    },
    /// A panic: the exit the ped flees to (`motion::panic::NO_EXIT` for none), its arrival
    /// estimate and its panic level afterwards.
    Flee {
        /// Index of the exit (scenario exits, then portals).
        exit: u16,
        /// Estimated arrival, milliseconds from now.
        arrival_ms: u32,
        /// Panic level × 1000.
        panic_milli: u16,
    },
    /// A line-of-sight check: what the ped recognised.
    Recognition(Recognition),
    /// Why an agent is stuck.
    Stuck(StuckReason),
    /// A task transition.
    Task {
        /// The directive parent's session (0: none).
        session: u32,
        /// The movement's generation (0: none).
        generation: u32,
        /// What happened, with its reason.
        change: TaskChange,
    },
    /// A knockdown event: its session (`u32::MAX` for a refused knockdown), the recovery phase
    /// entered (none when the phase did not change) and the reason.
    Knockdown {
        /// The knockdown session.
        session: u32,
        /// The phase entered, if the phase changed.
        phase: Option<RecoveryPhase>,
        /// Why.
        reason: KnockdownReason,
    },
    /// The streaming ring: whether the agent is now outside the loaded ring, and its streaming
    /// cell (none for a position without one).
    Ring {
        /// True when it left the ring, false when it came back.
        outside: bool,
        /// Its streaming cell.
        cell: Option<StreamingCell>,
    },
}

/// Where on the ground an event happened, meters: the candidate's feet root for an admission,
/// a refused candidate and a realization, the ped's position for a retirement and a refused
/// retirement. Presentation only: outside the canonical bytes and the digest.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default)]
pub struct EventPosition {
    /// East, meters.
    pub x_m: f64,
    /// North, meters.
    pub y_m: f64,
}

impl EventPosition {
    /// The position of a ground point.
    pub fn of(point: crate::project::Vec2) -> EventPosition {
        EventPosition {
            x_m: point.x,
            y_m: point.y,
        }
    }
}

/// Positions compare by their bits, so a log equals itself (NaN included) and a restored log
/// equals the one it was taken from.
impl PartialEq for EventPosition {
    fn eq(&self, other: &Self) -> bool {
        self.x_m.to_bits() == other.x_m.to_bits() && self.y_m.to_bits() == other.y_m.to_bits()
    }
}

impl Eq for EventPosition {}

/// One logged event.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Position in the whole log (ascending, never reused): orders events across kinds.
    pub seq: u64,
    /// The frame it happened in.
    pub frame: u64,
    /// What happened.
    pub kind: EventKind,
    /// The ped it concerns, if any.
    pub handle: Option<AgentHandle>,
    /// The population source it concerns, if any.
    pub source: Option<u16>,
    /// Reason or payload.
    pub detail: EventDetail,
    /// Where it happened, for the kinds that say (presentation only, outside the digest).
    pub position: Option<EventPosition>,
}

/// The bounded log: one ring per kind and a dropped counter per kind.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct EventLog {
    rings: Vec<VecDeque<Event>>,
    dropped: Vec<u64>,
    next_seq: u64,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog {
            rings: vec![VecDeque::new(); EVENT_KINDS.len()],
            dropped: vec![0; EVENT_KINDS.len()],
            next_seq: 0,
        }
    }
}

impl EventLog {
    /// Appends an event; the oldest of its kind is dropped (and counted) when the ring is full.
    pub fn push(
        &mut self,
        frame: u64,
        kind: EventKind,
        handle: Option<AgentHandle>,
        source: Option<u16>,
        detail: EventDetail,
    ) {
        self.push_at(frame, kind, handle, source, detail, None);
    }

    /// [`EventLog::push`] of an event that happened at `position` on the ground.
    pub fn push_at(
        &mut self,
        frame: u64,
        kind: EventKind,
        handle: Option<AgentHandle>,
        source: Option<u16>,
        detail: EventDetail,
        position: Option<EventPosition>,
    ) {
        let ring = &mut self.rings[kind.code() as usize];
        if ring.len() == EVENTS_PER_KIND {
            ring.pop_front();
            self.dropped[kind.code() as usize] += 1;
        }
        ring.push_back(Event {
            seq: self.next_seq,
            frame,
            kind,
            handle,
            source,
            detail,
            position,
        });
        self.next_seq += 1;
    }

    /// Sequence number of the newest event of `kind` ever logged (`None` before the first).
    pub fn latest_seq(&self, kind: EventKind) -> Option<u64> {
        self.rings[kind.code() as usize].back().map(|e| e.seq)
    }

    /// Events of `frame` still held, in the order they happened.
    pub fn at_frame(&self, frame: u64) -> Vec<Event> {
        self.filtered(|e| e.frame == frame)
    }

    /// Events of frames `first..=last` still held, in the order they happened.
    pub fn in_frames(&self, first: u64, last: u64) -> Vec<Event> {
        self.filtered(|e| (first..=last).contains(&e.frame))
    }

    /// Events about `handle` still held, in the order they happened (a ped's lifecycle).
    pub fn for_handle(&self, handle: AgentHandle) -> Vec<Event> {
        self.filtered(|e| e.handle == Some(handle))
    }

    /// Every event still held, in the order they happened.
    pub fn all(&self) -> Vec<Event> {
        self.filtered(|_| true)
    }

    /// Events of one kind still held, oldest first.
    pub fn of_kind(&self, kind: EventKind) -> impl DoubleEndedIterator<Item = &Event> {
        self.rings[kind.code() as usize].iter()
    }

    /// Events of `kind` dropped so far.
    pub fn dropped(&self, kind: EventKind) -> u64 {
        self.dropped[kind.code() as usize]
    }

    /// Events dropped so far, every kind.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// Events logged so far (held and dropped).
    pub fn logged_total(&self) -> u64 {
        self.next_seq
    }

    /// Whether the rings and counters agree with each other (a restore preflight).
    pub fn is_consistent(&self) -> bool {
        self.rings.len() == EVENT_KINDS.len()
            && self.dropped.len() == EVENT_KINDS.len()
            && self.rings.iter().enumerate().all(|(code, ring)| {
                ring.len() <= EVENTS_PER_KIND
                    && ring.iter().all(|e| e.kind.code() as usize == code)
                    && ring.iter().all(|e| e.seq < self.next_seq)
            })
    }

    fn filtered(&self, keep: impl Fn(&Event) -> bool) -> Vec<Event> {
        let mut events: Vec<Event> = self
            .rings
            .iter()
            .flatten()
            .filter(|e| keep(e))
            .copied()
            .collect();
        events.sort_by_key(|e| e.seq);
        events
    }

    /// Canonical bytes of the log (for the state digest).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(b"EVENTS01");
        bytes.extend_from_slice(&self.next_seq.to_le_bytes());
        for (code, (ring, dropped)) in self.rings.iter().zip(&self.dropped).enumerate() {
            if code >= LATER_KINDS && ring.is_empty() && *dropped == 0 {
                continue;
            }
            bytes.extend_from_slice(&dropped.to_le_bytes());
            bytes.extend_from_slice(&(ring.len() as u64).to_le_bytes());
            for event in ring {
                write_event(event, bytes);
            }
        }
    }
}

/// The canonical bytes of one event; its position is presentation and is not written.
fn write_event(e: &Event, bytes: &mut Vec<u8>) {
    bytes.extend_from_slice(&e.seq.to_le_bytes());
    bytes.extend_from_slice(&e.frame.to_le_bytes());
    bytes.push(e.kind.code());
    match e.handle {
        Some(h) => {
            bytes.push(1);
            bytes.extend_from_slice(&h.index.to_le_bytes());
            bytes.extend_from_slice(&h.generation.to_le_bytes());
        }
        None => bytes.push(0),
    }
    bytes.extend_from_slice(&e.source.map_or(u32::MAX, u32::from).to_le_bytes());
    let (code, a, b): (u8, u32, u32) = match e.detail {
        EventDetail::None => (0, 0, 0),
        EventDetail::Rejection(r) => (1, r as u32, 0),
        EventDetail::Refusal(r) => (2, r as u32, 0),
        EventDetail::Claim(r) => (3, r as u32, 0),
        EventDetail::Batch { items, reused } => (4, items, reused),
        EventDetail::Rollback { complete, undone } => (5, u32::from(complete), undone),
        EventDetail::Retirement { pooled, rule } => (6, u32::from(pooled), u32::from(rule.code())),
        EventDetail::Removal(cause) => (15, cause as u32, 0),
        EventDetail::Box(slot, change) => (7, slot as u32, change as u32),
        EventDetail::Directive { index, unresolved } => {
            (8, index, unresolved.map_or(u32::MAX, |u| u as u32))
        }
        EventDetail::Flee {
            exit,
            arrival_ms,
            panic_milli,
        } => (
            9,
            u32::from(exit) | u32::from(panic_milli) << 16,
            arrival_ms,
        ),
        EventDetail::Recognition(r) => (10, r as u32, 0),
        EventDetail::Stuck(reason) => (11, u32::from(reason.code()), 0),
        EventDetail::Task {
            session,
            generation,
            ..
        } => (12, session, generation),
        EventDetail::Knockdown {
            session,
            phase,
            reason,
        } => {
            let phase = phase.map_or(0xff, |p| u32::from(p.code()));
            (13, session, phase << 8 | u32::from(reason.code()))
        }
        EventDetail::Ring { cell, .. } => {
            let (x, y) = cell.map_or((0, 0), |c| (c.x, c.y));
            (14, x as u32, y as u32)
        }
    };
    bytes.push(code);
    bytes.extend_from_slice(&a.to_le_bytes());
    bytes.extend_from_slice(&b.to_le_bytes());
    if let EventDetail::Task { change, .. } = e.detail {
        let (variant, reason) = change.codes();
        bytes.push(variant);
        bytes.push(reason);
    }
    if let EventDetail::Ring { outside, cell } = e.detail {
        bytes.push(u8::from(outside) | u8::from(cell.is_some()) << 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_ring_drops_its_oldest_and_counts_it_without_touching_other_kinds() {
        let mut log = EventLog::default();
        log.push(
            1,
            EventKind::Claimed,
            Some(AgentHandle::first(7)),
            Some(0),
            EventDetail::None,
        );
        for frame in 0..(EVENTS_PER_KIND as u64 + 5) {
            log.push(
                frame,
                EventKind::Rejected,
                None,
                Some(1),
                EventDetail::Rejection(SpawnRejection::OccupiedByPed),
            );
        }
        assert_eq!(log.dropped(EventKind::Rejected), 5);
        assert_eq!(log.dropped(EventKind::Claimed), 0);
        assert_eq!(log.dropped_total(), 5);
        assert_eq!(log.of_kind(EventKind::Rejected).count(), EVENTS_PER_KIND);
        assert_eq!(
            log.of_kind(EventKind::Rejected).next().map(|e| e.frame),
            Some(5)
        );
        assert_eq!(
            log.for_handle(AgentHandle::first(7)).len(),
            1,
            "the rare claim survives the flood"
        );
        assert_eq!(log.logged_total(), EVENTS_PER_KIND as u64 + 6);
        assert!(log.is_consistent());
    }

    #[test]
    fn queries_by_frame_and_handle_are_in_the_order_events_happened() {
        let mut log = EventLog::default();
        log.push(
            3,
            EventKind::Retired,
            Some(AgentHandle::first(1)),
            Some(0),
            EventDetail::None,
        );
        log.push(
            3,
            EventKind::PoolEntered,
            Some(AgentHandle::first(1)),
            Some(0),
            EventDetail::None,
        );
        log.push(4, EventKind::Admitted, None, Some(0), EventDetail::None);
        log.push(
            9,
            EventKind::Acquired,
            Some(AgentHandle::first(1)),
            Some(0),
            EventDetail::None,
        );
        let kinds: Vec<EventKind> = log.at_frame(3).iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventKind::Retired, EventKind::PoolEntered]);
        let life: Vec<u64> = log
            .for_handle(AgentHandle::first(1))
            .iter()
            .map(|e| e.frame)
            .collect();
        assert_eq!(life, [3, 3, 9]);
        assert_eq!(log.in_frames(4, 9).len(), 2);
        let mut a = Vec::new();
        log.write_canonical(&mut a);
        log.push(
            9,
            EventKind::Acquired,
            Some(AgentHandle::first(2)),
            Some(0),
            EventDetail::None,
        );
        let mut b = Vec::new();
        log.write_canonical(&mut b);
        assert_ne!(a, b);
    }
}
