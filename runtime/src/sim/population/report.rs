//! Read APIs for panels and reports: per-source status (target, ambient, mission, attached,
//! pending, pooled, quarantined) and the "why did nothing spawn" summary (which gate rejected,
//! how many times, and what would unblock it).

use super::{Demand, SpawnRejection, SPAWN_REJECTIONS};
use crate::project::Vec2;

/// One source's numbers at the current frame; each is distinct, never a sum of the others.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceStatus {
    /// The source's id.
    pub id: String,
    /// How many it aims to keep.
    pub target: u32,
    /// How many attached peds it may host.
    pub capacity: u32,
    /// Ambient members (Mission peds excluded).
    pub ambient: u64,
    /// Members claimed by a script.
    pub mission: u64,
    /// The members its target counts: ambient members for an ambient source, every attached
    /// ped for a mission source.
    pub members: u64,
    /// Attached peds (what capacity counts: ambient and mission).
    pub attached: u64,
    /// The pending demand, if any.
    pub pending: Option<Demand>,
    /// Pool entries retired from this source.
    pub pooled: u64,
    /// Of which still in quarantine.
    pub quarantined: u64,
    /// New entities created so far.
    pub created: u64,
    /// Pooled entities readmitted so far.
    pub reused: u64,
    /// Current source generation.
    pub generation: u32,
}

/// Why a source did not spawn: its rejections by gate, most frequent first.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnReport {
    /// The source's status.
    pub status: SourceStatus,
    /// `(gate, times)` for every gate that rejected at least once, most frequent first (ties
    /// in gate order).
    pub rejections: Vec<(SpawnRejection, u64)>,
    /// The last rejection and its frame.
    pub last: Option<(u64, SpawnRejection)>,
}

impl SpawnReport {
    /// Sorts a per-gate table into the report's order.
    pub fn ranked(table: &[u64]) -> Vec<(SpawnRejection, u64)> {
        let mut ranked: Vec<(SpawnRejection, u64)> = SPAWN_REJECTIONS
            .iter()
            .zip(table)
            .filter(|(_, n)| **n > 0)
            .map(|(r, n)| (*r, *n))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }

    /// The answer in words: which gate rejected, how many times, and what would unblock it.
    pub fn text(&self) -> String {
        let s = &self.status;
        if s.pending.is_none() && s.ambient >= u64::from(s.target) {
            return format!(
                "`{}` is at its target ({} of {})",
                s.id, s.ambient, s.target
            );
        }
        match self.rejections.first() {
            None => format!("`{}` has not been given a cycle yet", s.id),
            Some((reason, times)) => format!(
                "`{}` is short ({} of {}): rejected {times} times by {reason:?}; needs {}",
                s.id,
                s.members,
                s.target,
                reason.remedy()
            ),
        }
    }
}

/// One spawn candidate a step drew and put through admission: where it stood and what the gates
/// said. Batch-wide refusals (no valid view, capacity, quarantine) draw nothing and so have no mark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateMark {
    /// Index of the source that drew it.
    pub source: u16,
    /// Ground position of its feet root, meters.
    pub position: Vec2,
    /// `None`: admitted; otherwise the gate that refused it.
    pub rejection: Option<SpawnRejection>,
}
