//! What panels and reports read of the crossings, computed from the world and never changing
//! it: each crosswalk now (its signal and gate, its agents per phase, its queues), one agent's
//! crossing (its record with lane and queue row, its group), and a per-frame sample of every
//! crossing counter for plots and `stagecraft simulate`.

use super::signals::SignalState;
use crate::sim::state::{CrosswalkAgent, GroupMember};

/// One crosswalk now.
#[derive(Clone, Debug, PartialEq)]
pub struct CrosswalkReport {
    /// Index in the space's crosswalks.
    pub index: u16,
    /// Its id, such as `crosswalk.0`.
    pub id: String,
    /// Its signal's id (empty when the space has no such signal).
    pub signal_id: String,
    /// Its signal's state (phase, time in phase, gate, closures, walk phases).
    pub signal: SignalState,
    /// Agents per phase, in [`CrosswalkPhase::ALL`] order: Approach counts the unbound walkers
    /// whose route crosses it; the others the agents bound to it.
    pub phases: [u64; 6],
    /// Requested or Waiting agents at each side's queue (the queue's occupancy).
    pub queued: [u64; 2],
    /// Queue slots per side.
    pub slots_per_side: u64,
}

/// One agent's crossing as an inspector shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentCrossing {
    /// Its crosswalk record (phase, crosswalk, points, alpha, waiting time, slot, completions).
    pub record: CrosswalkAgent,
    /// The bound crosswalk's id, when bound.
    pub crosswalk_id: Option<String>,
    /// Its crossing lane (`slot % usable lanes`), when bound.
    pub lane: Option<u32>,
    /// Its queue row behind the kerb (`slot / usable lanes`), when bound.
    pub row: Option<u32>,
    /// Its group membership (role, leader, slot, regrouping).
    pub group: GroupMember,
}

/// Every crossing counter of one frame, for plots and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrossingSample {
    /// Agents per crosswalk phase, in [`CrosswalkPhase::ALL`] order.
    pub phases: [u64; 6],
    /// Crossings completed so far.
    pub completed: u64,
    /// Agents queued (Requested or Waiting) at every crosswalk side.
    pub queued: u64,
    /// Queue slots of every crosswalk side.
    pub queue_slots: u64,
    /// Groups with at least two members alive.
    pub groups: u64,
    /// Agents in those groups.
    pub group_members: u64,
    /// Groups with a member regrouping.
    pub regrouping_groups: u64,
    /// Crosswalk queries processed this step.
    pub queries_processed: u64,
    /// Crosswalk queries deferred this step.
    pub queries_deferred: u64,
    /// Waiting windows the liveness guard refreshed so far.
    pub window_refreshes: u64,
    /// Committed crossers the liveness guard cleared so far.
    pub forced_clears: u64,
    /// Committed crossers without progress for a second or more.
    pub stalled_committed: u64,
    /// Longest time a committed crosser went without progress so far, seconds.
    pub max_no_progress_s: f64,
    /// Stuck flags the liveness guard raised so far.
    pub stuck_flags: u64,
    /// Agents flagged stuck now.
    pub stuck_now: u64,
    /// Tier transitions the budgets deferred this step.
    pub deferred_tier_transitions: u64,
    /// Signals whose vehicle gate is open.
    pub gates_open: u64,
}

/// The names of [`CrossingSample::rows`], in order.
pub const CROSSING_SAMPLE_NAMES: [&str; 22] = [
    "approach",
    "requested",
    "waiting",
    "crossing",
    "clearing",
    "completed now",
    "completions",
    "queued",
    "queue slots",
    "groups",
    "group members",
    "regrouping groups",
    "crosswalk processed",
    "crosswalk deferred",
    "window refreshes",
    "forced clears",
    "stalled committed",
    "stuck flags",
    "stuck now",
    "deferred tier transitions",
    "gates open",
    "max no-progress s",
];

impl CrossingSample {
    /// The sample with its names ([`CROSSING_SAMPLE_NAMES`]), counts first, the seconds last.
    pub fn rows(&self) -> [(&'static str, f64); 22] {
        let p = self.phases;
        let values = [
            p[0] as f64,
            p[1] as f64,
            p[2] as f64,
            p[3] as f64,
            p[4] as f64,
            p[5] as f64,
            self.completed as f64,
            self.queued as f64,
            self.queue_slots as f64,
            self.groups as f64,
            self.group_members as f64,
            self.regrouping_groups as f64,
            self.queries_processed as f64,
            self.queries_deferred as f64,
            self.window_refreshes as f64,
            self.forced_clears as f64,
            self.stalled_committed as f64,
            self.stuck_flags as f64,
            self.stuck_now as f64,
            self.deferred_tier_transitions as f64,
            self.gates_open as f64,
            self.max_no_progress_s,
        ];
        let mut rows = [("", 0.0); 22];
        for (row, (name, value)) in rows
            .iter_mut()
            .zip(CROSSING_SAMPLE_NAMES.iter().zip(values))
        {
            *row = (name, value);
        }
        rows
    }
}
