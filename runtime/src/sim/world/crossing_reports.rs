//! The world's crossing reports: every crosswalk's counts, one agent's crossing, the frame's
//! crossing counters (the records live in `sim::crossings::report`).

use super::World;
use crate::sim::crossings::queue::{side_slots, usable_lanes};
use crate::sim::crossings::{AgentCrossing, CrossingSample, CrosswalkReport};
use crate::sim::state::{AgentId, CrosswalkPhase};

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
                let crosses = self
                    .built
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
