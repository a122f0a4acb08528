//! A value per agent, found in constant time by the writer thread for every row it writes: agent
//! ids are a source index and a birth ordinal counting up from 0, so each source keeps a vector
//! indexed by ordinal. Ordinals past [`DENSE_ORDINALS`] (never seen in practice) go to an ordered
//! map, so a strange id costs a lookup, never memory in proportion to its value. Nothing iterates
//! the slots: the order of the rows written is the world's.

use std::collections::BTreeMap;

use stagecraft_runtime::sim::AgentId;

/// Ordinals below this have a slot in their source's vector.
pub const DENSE_ORDINALS: u32 = 1 << 20;

/// A value of type `T` for each agent id, `T::default()` for an agent never seen.
#[derive(Debug, Clone, Default)]
pub struct AgentSlots<T> {
    /// Per source index, the values by ordinal (grown on demand).
    dense: Vec<Vec<T>>,
    /// Agents whose ordinal is past [`DENSE_ORDINALS`], by packed id.
    sparse: BTreeMap<u64, T>,
}

impl<T: Copy + Default> AgentSlots<T> {
    /// The value of agent `id`, created as `T::default()` when it has none yet.
    pub fn get_mut(&mut self, id: AgentId) -> &mut T {
        let ordinal = id.ordinal();
        if ordinal >= DENSE_ORDINALS {
            return self.sparse.entry(id.bits()).or_default();
        }
        let source = id.source();
        if source >= self.dense.len() {
            self.dense.resize_with(source + 1, Vec::new);
        }
        let slots = &mut self.dense[source];
        let index = ordinal as usize;
        if index >= slots.len() {
            let grown = (index + 1).next_power_of_two().min(DENSE_ORDINALS as usize);
            slots.resize(grown.max(index + 1), T::default());
        }
        &mut slots[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_has_its_own_value_dense_or_sparse() {
        let mut slots = AgentSlots::<u32>::default();
        let ids = [
            AgentId::new(0, 0),
            AgentId::new(0, 5),
            AgentId::new(3, 5),
            AgentId::new(3, DENSE_ORDINALS),
            AgentId::new(3, u32::MAX),
        ];
        for (value, id) in (10..).zip(ids) {
            assert_eq!(*slots.get_mut(id), 0);
            *slots.get_mut(id) = value;
        }
        let values: Vec<u32> = ids.iter().map(|&id| *slots.get_mut(id)).collect();
        assert_eq!(values, [10, 11, 12, 13, 14]);
        // Only the dense ordinals take vector slots: 6 in source 0 (ordinals 0..=5 rounded up
        // to 8), none past the dense range.
        assert_eq!(slots.dense[0].len(), 8);
        assert_eq!(slots.dense[3].len(), 8);
        assert_eq!(slots.sparse.len(), 2);
        assert_eq!(*slots.get_mut(AgentId::new(1, 2)), 0);
    }
}
