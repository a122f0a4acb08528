//! What panels and reports read of the crossings, computed from the world and never changing
//! it: each crosswalk now (its signal and gate, its agents per phase, its queues), one agent's
//! crossing (its record with lane and queue row, its group), and a per-frame sample of every
//! crossing counter for plots and `stagecraft simulate`.

use super::queue::{side_slots, usable_lanes};
use super::signals::SignalState;
use crate::sim::state::{AgentId, CrosswalkAgent, CrosswalkPhase, GroupMember};
use crate::sim::world::World;

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

impl World {
    /// Every crosswalk of the space now, in space order.
    pub fn crosswalk_reports(&self) -> Vec<CrosswalkReport> {
        let config = &*self.config;
        let settings = &config.scenario.crossings;
        let mut reports: Vec<CrosswalkReport> = config
            .space
            .crosswalks
            .iter()
            .enumerate()
            .map(|(index, c)| CrosswalkReport {
                index: u16::try_from(index).unwrap_or(u16::MAX),
                id: c.id.clone(),
                signal_id: config
                    .space
                    .signals
                    .get(usize::from(c.signal))
                    .map_or_else(String::new, |s| s.id.clone()),
                signal: self
                    .crossings
                    .signals
                    .get(usize::from(c.signal))
                    .copied()
                    .unwrap_or_default(),
                phases: [0; 6],
                queued: [0; 2],
                slots_per_side: u64::from(side_slots(c, settings.lanes, settings.queue_rows)),
            })
            .collect();
        let agents = &self.agents;
        for row in 0..agents.len() {
            if agents.pooled[row] {
                continue;
            }
            let c = &agents.crosswalk[row];
            if let Some(report) = reports.get_mut(usize::from(c.crosswalk)) {
                report.phases[usize::from(c.phase.code())] += 1;
                if c.phase.demands() {
                    report.queued[usize::from(c.entry_side & 1)] += 1;
                }
            } else if c.phase == CrosswalkPhase::Approach {
                let crosses = config
                    .crossing_index
                    .routes
                    .get(usize::from(agents.route[row]));
                for crossing in crosses.into_iter().flatten() {
                    if let Some(report) = reports.get_mut(usize::from(crossing.crosswalk)) {
                        report.phases[0] += 1;
                    }
                }
            }
        }
        reports
    }

    /// The crossing of the live agent `id`.
    pub fn agent_crossing(&self, id: AgentId) -> Option<AgentCrossing> {
        let row = self.row_of_id(id)?;
        let record = self.agents.crosswalk[row];
        let crosswalk = self
            .config
            .space
            .crosswalks
            .get(usize::from(record.crosswalk));
        let lanes =
            crosswalk.map(|c| usable_lanes(self.config.scenario.crossings.lanes, c.width_m));
        Some(AgentCrossing {
            record,
            crosswalk_id: crosswalk.map(|c| c.id.clone()),
            lane: lanes.map(|l| u32::from(record.slot) % l),
            row: lanes.map(|l| u32::from(record.slot) / l),
            group: self.agents.group[row],
        })
    }

    /// Every crossing counter of this frame.
    pub fn crossing_sample(&self) -> CrossingSample {
        let stats = &self.crossings.stats;
        let (mut queued, mut queue_slots) = (0, 0);
        let settings = &self.config.scenario.crossings;
        for c in &self.config.space.crosswalks {
            queue_slots += 2 * u64::from(side_slots(c, settings.lanes, settings.queue_rows));
        }
        for (row, c) in self.agents.crosswalk.iter().enumerate() {
            if c.phase.demands() && !self.agents.pooled[row] {
                queued += 1;
            }
        }
        CrossingSample {
            phases: stats.phases,
            completed: stats.completed,
            queued,
            queue_slots,
            groups: stats.groups,
            group_members: stats.group_members,
            regrouping_groups: stats.regrouping_groups,
            queries_processed: stats.queries_processed,
            queries_deferred: stats.queries_deferred,
            window_refreshes: stats.window_refreshes,
            forced_clears: stats.forced_clears,
            stalled_committed: stats.stalled_committed,
            max_no_progress_s: stats.max_no_progress_s,
            stuck_flags: stats.stuck_flags,
            stuck_now: stats.stuck_now,
            deferred_tier_transitions: self.motion.counters.deferred_transitions,
            gates_open: self
                .crossings
                .signals
                .iter()
                .filter(|s| s.gate_open)
                .count() as u64,
        }
    }
}
