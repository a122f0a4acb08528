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

impl SourceStatus {
    /// Whether the source has fewer of the members its target counts than its target (a
    /// mission source counts every attached ped, an ambient one its ambient members).
    pub fn is_short(&self) -> bool {
        self.members < u64::from(self.target)
    }
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
        if s.pending.is_none() && !s.is_short() {
            return format!(
                "`{}` is at its target ({} of {})",
                s.id, s.members, s.target
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

#[cfg(test)]
mod tests {
    use super::*;

    fn status(target: u32, ambient: u64, mission: u64, members: u64) -> SourceStatus {
        SourceStatus {
            id: "s".into(),
            target,
            capacity: 8,
            ambient,
            mission,
            members,
            attached: ambient + mission,
            pending: None,
            pooled: 0,
            quarantined: 0,
            created: ambient + mission,
            reused: 0,
            generation: 0,
        }
    }

    #[test]
    fn a_source_is_at_its_target_by_the_members_its_target_counts() {
        // A mission source of three attached (claimed) peds has no ambient member and is full.
        let mission = SpawnReport {
            status: status(3, 0, 3, 3),
            rejections: Vec::new(),
            last: None,
        };
        assert!(!mission.status.is_short());
        assert_eq!(mission.text(), "`s` is at its target (3 of 3)");
        // An ambient source whose two members include a claimed one is one short.
        let ambient = SpawnReport {
            status: status(2, 1, 1, 1),
            rejections: SpawnReport::ranked(&[0, 4]),
            last: None,
        };
        assert!(ambient.status.is_short());
        assert_eq!(
            ambient.text(),
            format!(
                "`s` is short (1 of 2): rejected 4 times by {:?}; needs {}",
                SPAWN_REJECTIONS[1],
                SPAWN_REJECTIONS[1].remedy()
            )
        );
    }
}
