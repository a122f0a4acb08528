//! Signalled crosswalks over the one set of agents: the per-agent crosswalk state machine
//! (`crosswalk`), queue slots, lanes and the 10 m query grid (`queue`), signals (`signals`), the
//! vehicle gate and what it holds back (`gate`), groups (`groups`) and the liveness guard with
//! stuck flags (`stuck`); `phase` runs them in a fixed order each step.
//!
//! Within a step the crossings run before walking: signals advance on the demand they see,
//! walkers bind to a crosswalk through budgeted grid queries, bound walkers move to their queue
//! slot and across, and the gate is set from the signal and this step's occupancy — so a crosser
//! who enters this step closes the gate before any vehicle moves. The liveness guard runs after
//! walking, on the positions walking produced.

pub mod crosswalk;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod gate;
pub mod groups;
mod phase;
pub mod queue;
pub mod report;
pub mod signals;
pub mod stuck;

#[cfg(test)]
mod liveness_tests;
#[cfg(test)]
mod tests;

pub use crate::sim::state::{
    CrosswalkAgent, CrosswalkPhase, GroupMember, GroupRole, Liveness, SignalPhase, StuckReason,
    NO_CROSSWALK,
};
pub use gate::{HazardState, HAZARD_SAFETY_RADIUS_M, HAZARD_WRAP_X_M};
pub use phase::{crossings_phase, follow_swap_remove, liveness_phase, CrossingSets};
pub use queue::{CrossingIndex, RouteCrossing, QUEUE_ROW_SPACING_M};
pub use report::{AgentCrossing, CrossingSample, CrosswalkReport, CROSSING_SAMPLE_NAMES};
pub use signals::gate_open;
pub use signals::SignalState;

use crate::sim::config::CrossingSettings;

/// What the crossings derive from their settings (the settings are compiled configuration,
/// `sim::config`; these rules use the queue's constants).
impl CrossingSettings {
    /// Queue slots per crosswalk side.
    pub fn capacity(&self) -> u16 {
        let lanes = self.lanes.clamp(queue::LANES_RANGE.0, queue::LANES_RANGE.1);
        u16::try_from(lanes * self.queue_rows.max(1)).unwrap_or(u16::MAX)
    }

    /// How far before a kerb the grid must find a crosswalk: the entry range, or the queue
    /// when it is longer, meters.
    pub fn reach_m(&self) -> f64 {
        self.entry_range_m
            .max(QUEUE_ROW_SPACING_M * f64::from(self.queue_rows.max(1) + 1))
    }
}

/// Counters of the crossings; each distinct, never a sum of others.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct CrossingStats {
    /// Crossings completed so far (forced clears not included).
    pub completed: u64,
    /// Waiting windows the liveness guard refreshed so far: queued walkers stalled short of
    /// their waiting point that it let wait where they stood (see `stuck`).
    #[serde(default)]
    pub window_refreshes: u64,
    /// Committed crossers cleared by the liveness guard so far (zero in the examples).
    pub forced_clears: u64,
    /// Committed crossers without progress for a second or more, now.
    pub stalled_committed: u64,
    /// Longest time a committed crosser went without progress so far, seconds.
    pub max_no_progress_s: f64,
    /// Crosswalk queries processed in the last step.
    pub queries_processed: u64,
    /// Crosswalk queries deferred in the last step.
    pub queries_deferred: u64,
    /// Crosswalk queries processed so far.
    pub queries_processed_total: u64,
    /// Crosswalk queries deferred so far.
    pub queries_deferred_total: u64,
    /// Agent-steps held short of a full queue so far.
    pub queue_full_steps: u64,
    /// Agents per crosswalk phase now, in [`CrosswalkPhase::ALL`] order.
    pub phases: [u64; 6],
    /// Agents flagged stuck now.
    pub stuck_now: u64,
    /// Stuck flags raised so far.
    pub stuck_flags: u64,
    /// Groups with at least two members alive now.
    pub groups: u64,
    /// Agents in those groups now.
    pub group_members: u64,
    /// Groups with a member regrouping now.
    pub regrouping_groups: u64,
}

impl CrossingStats {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        let counts = [
            self.completed,
            self.forced_clears,
            self.stalled_committed,
            self.max_no_progress_s.to_bits(),
            self.queries_processed,
            self.queries_deferred,
            self.queries_processed_total,
            self.queries_deferred_total,
            self.queue_full_steps,
            self.stuck_now,
            self.stuck_flags,
            self.groups,
            self.group_members,
            self.regrouping_groups,
        ];
        for value in counts.iter().chain(&self.phases) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
    }
}

/// The crossings' part of the world state: signals, the hazard, counters and the query cursor.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CrossingsState {
    /// One per signal of the space, in its order.
    pub signals: Vec<SignalState>,
    /// The hazard vehicle, when the scenario has one.
    pub hazard: Option<HazardState>,
    /// Counters.
    pub stats: CrossingStats,
    /// The row the next step's crosswalk queries start at.
    pub query_cursor: u32,
}

impl CrossingsState {
    /// The state at the start of a world with `signals` signals.
    pub fn new(signals: usize, settings: &CrossingSettings) -> CrossingsState {
        CrossingsState {
            signals: vec![SignalState::new(); signals],
            hazard: settings
                .hazard
                .map(|h| HazardState::new(h.y_m, h.speed_m_s)),
            stats: CrossingStats::default(),
            query_cursor: 0,
        }
    }

    /// Whether this state fits a world with `signals` signals and these settings.
    pub fn fits(&self, signals: usize, settings: &CrossingSettings) -> bool {
        self.signals.len() == signals && self.hazard.is_some() == settings.hazard.is_some()
    }

    /// Whether the gate of signal `signal` is open (a missing signal holds nothing back).
    pub fn gate_open(&self, signal: u16) -> bool {
        self.signals
            .get(usize::from(signal))
            .is_none_or(|s| s.gate_open)
    }

    /// Canonical bytes (part of the state digest).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(b"CROSS001");
        bytes.extend_from_slice(&(self.signals.len() as u64).to_le_bytes());
        for signal in &self.signals {
            signal.write_canonical(bytes);
        }
        match &self.hazard {
            Some(h) => {
                bytes.push(1);
                h.write_canonical(bytes);
            }
            None => bytes.push(0),
        }
        self.stats.write_canonical(bytes);
        bytes.extend_from_slice(&self.query_cursor.to_le_bytes());
        // Added after the first layout: written only once a window was refreshed, so worlds
        // where none was keep their digests (as the event log's later kinds).
        if self.stats.window_refreshes > 0 {
            bytes.extend_from_slice(b"WINDOWS1");
            bytes.extend_from_slice(&self.stats.window_refreshes.to_le_bytes());
        }
    }
}
