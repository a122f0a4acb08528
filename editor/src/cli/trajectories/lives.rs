//! Trajectory ids for analysis tools: one id per continuous presence of an agent. A ped that
//! leaves the scene (pooled) and is readmitted later keeps its Stagecraft id but reappears
//! elsewhere; under one trajectory id that gap would read as a jump of tens of metres in one
//! sample, which PedPy turns into an absurd speed. So each return after an absence starts a new
//! trajectory id (in order of first appearance: deterministic), and the agent's own id is kept
//! beside it. Looked up once per row, so kept in [`AgentSlots`] (constant time).

use stagecraft_runtime::sim::AgentId;

use super::agent_slots::AgentSlots;

/// The trajectory id of each agent's current presence.
#[derive(Debug, Default)]
pub struct TrajectoryLives {
    /// Per agent: (trajectory id, 1 + the last sample it was seen in), `(0, 0)` when never seen.
    last_seen: AgentSlots<(i64, u64)>,
    /// Trajectory ids handed out so far (ids start at 1).
    handed_out: i64,
}

impl TrajectoryLives {
    /// The trajectory id of agent `agent_bits` seen in sample `sample` (samples counted by the
    /// run's sampling interval): the same id as in the previous sample, or a new one when the
    /// agent is new or was absent from the sample before.
    pub fn id_of(&mut self, agent_bits: u64, sample: u64) -> i64 {
        let (id, after_last) = self.last_seen.get_mut(AgentId::from_bits(agent_bits));
        // Seen in the sample before: `after_last` (last + 1) is this sample.
        if *after_last != 0 && *after_last == sample {
            *after_last = sample.saturating_add(1);
            return *id;
        }
        self.handed_out += 1;
        *id = self.handed_out;
        *after_last = sample.saturating_add(1);
        self.handed_out
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
