//! What a world reserves and holds: the agent columns sized to the scenario's capacities up
//! front ([`World::reserve_population`]), and the heap bytes of its per-agent buffers.

use super::world::World;
use crate::sim::state::AgentHandle;

/// The most agent rows [`World`] reserves up front, whatever the scenario's capacities say.
pub const MAX_RESERVED_AGENTS: usize = 1 << 20;

impl World {
    /// Sizes the agent columns and slots for the population the scenario can hold (every
    /// source's capacity and the reuse pool, at most [`MAX_RESERVED_AGENTS`]) exactly, so a
    /// full world does not carry the up-to-2× slack of doubling growth.
    pub(super) fn reserve_population(&mut self) {
        let sources: usize = self
            .config
            .sources
            .iter()
            .map(|s| s.capacity.max(s.target_count) as usize)
            .sum();
        let pool = self.config.scenario.population.pool_capacity as usize;
        let expected = sources.saturating_add(pool).min(MAX_RESERVED_AGENTS);
        self.agents.reserve_exact(expected);
        self.slots.reserve_exact(expected);
        for (births, source) in self.births.iter_mut().zip(&self.config.sources) {
            births.reserve_exact((source.capacity.max(source.target_count) as usize).min(expected));
        }
    }

    /// Heap bytes the world's per-agent buffers hold: agent columns (capacities), slots,
    /// births, the neighbour grid and walking scratch, and Motion's scratch and published
    /// Motion Frames. Owners' texts and the shared configuration are left out.
    pub fn heap_bytes(&self) -> usize {
        self.state_heap_bytes() + self.motion_scratch.heap_bytes()
    }

    /// [`World::heap_bytes`] without Motion's scratch and published frames: the simulation
    /// state and walking buffers.
    pub fn state_heap_bytes(&self) -> usize {
        self.agents.heap_bytes()
            + self.slots.heap_bytes()
            + self
                .births
                .iter()
                .map(|b| b.capacity() * std::mem::size_of::<AgentHandle>())
                .sum::<usize>()
            + self.walk.heap_bytes()
    }
}
