//! Trajectory ids for analysis tools: one id per continuous presence of an agent. A ped that
//! leaves the scene (pooled) and is readmitted later keeps its Stagecraft id but reappears
//! elsewhere; under one trajectory id that gap would read as a jump of tens of metres in one
//! sample, which PedPy turns into an absurd speed. So each return after an absence starts a new
//! trajectory id (in order of first appearance: deterministic), and the agent's own id is kept
//! beside it.

use std::collections::BTreeMap;

/// The trajectory id of each agent's current presence.
#[derive(Debug, Default)]
pub struct TrajectoryLives {
    /// Agent id bits → (trajectory id, the last sample it was seen in).
    last_seen: BTreeMap<u64, (i64, u64)>,
    /// Trajectory ids handed out so far (ids start at 1).
    handed_out: i64,
}

impl TrajectoryLives {
    /// The trajectory id of agent `agent_bits` seen in sample `sample` (samples counted by the
    /// run's sampling interval): the same id as in the previous sample, or a new one when the
    /// agent is new or was absent from the sample before.
    pub fn id_of(&mut self, agent_bits: u64, sample: u64) -> i64 {
        match self.last_seen.get_mut(&agent_bits) {
            Some((id, last)) if last.checked_add(1) == Some(sample) => {
                *last = sample;
                *id
            }
            _ => {
                self.handed_out += 1;
                self.last_seen.insert(agent_bits, (self.handed_out, sample));
                self.handed_out
            }
        }
    }

    /// How many trajectory ids were handed out.
    pub fn count(&self) -> i64 {
        self.handed_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_keeps_its_id_while_present_and_gets_a_new_one_after_an_absence() {
        let mut lives = TrajectoryLives::default();
        assert_eq!(lives.id_of(70, 0), 1);
        assert_eq!(lives.id_of(71, 0), 2);
        assert_eq!(lives.id_of(70, 1), 1);
        // 71 is absent from sample 1: its return in sample 2 is a new trajectory.
        assert_eq!(lives.id_of(70, 2), 1);
        assert_eq!(lives.id_of(71, 2), 3);
        assert_eq!(lives.id_of(71, 3), 3);
        assert_eq!(lives.count(), 3);
    }
}
