//! The agent slot allocator: generational handles over dense rows, a free list of released slots,
//! and a generation bump on every release, so a stale handle never reaches a slot's new occupant.
//!
//! Slots and rows are distinct: a handle names a slot, which maps to the row of the agent columns
//! that currently holds the agent. Removing a row moves the last row into its place
//! ([`Slots::release`] takes the moved row into account), so the columns stay dense while every
//! handle stays valid. Released slots are reused oldest first; the order is part of the state.

use std::collections::VecDeque;

use thiserror::Error;

use super::agents::AgentHandle;

/// Why a handle was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum SlotError {
    /// The handle's slot was released (or reused) since the handle was made.
    #[error("handle {index}:{generation} is stale")]
    Stale {
        /// The slot.
        index: u32,
        /// The handle's generation.
        generation: u32,
    },
    /// More slots than a handle can index.
    #[error("no slot left (at most 2^32 agents)")]
    Full,
}

/// Slot state: generation, row of the occupant, and the free list.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Slots {
    /// Current generation of each slot.
    generation: Vec<u32>,
    /// Row of each slot's occupant, `None` while the slot is free.
    row: Vec<Option<u32>>,
    /// Slot of each row (the inverse of `row`).
    slot_of_row: Vec<u32>,
    /// Released slots, oldest first.
    free: VecDeque<u32>,
    /// Whether any slot was ever released (until then slot = row and every generation is 0).
    released_any: bool,
}

impl Slots {
    /// Makes room for `additional` more slots and rows, exactly (no doubling).
    pub fn reserve_exact(&mut self, additional: usize) {
        self.generation.reserve_exact(additional);
        self.row.reserve_exact(additional);
        self.slot_of_row.reserve_exact(additional);
    }

    /// Occupied slots (= rows).
    pub fn len(&self) -> usize {
        self.slot_of_row.len()
    }

    /// Slots ever made (occupied and free).
    pub fn slot_count(&self) -> usize {
        self.generation.len()
    }

    /// True when no slot is occupied.
    pub fn is_empty(&self) -> bool {
        self.slot_of_row.is_empty()
    }

    /// A slot for a new agent appended as the last row: the oldest released slot (its generation
    /// already bumped) or a new one.
    pub fn allocate(&mut self) -> Result<AgentHandle, SlotError> {
        let row = u32::try_from(self.slot_of_row.len()).map_err(|_| SlotError::Full)?;
        let index = match self.free.pop_front() {
            Some(index) => index,
            None => {
                let index = u32::try_from(self.generation.len()).map_err(|_| SlotError::Full)?;
                self.generation.push(0);
                self.row.push(None);
                index
            }
        };
        self.row[index as usize] = Some(row);
        self.slot_of_row.push(index);
        Ok(AgentHandle {
            index,
            generation: self.generation[index as usize],
        })
    }

    /// The row of a current handle.
    pub fn resolve(&self, handle: AgentHandle) -> Option<usize> {
        let slot = handle.index as usize;
        if self.generation.get(slot) != Some(&handle.generation) {
            return None;
        }
        self.row
            .get(slot)
            .copied()
            .flatten()
            .map(|row| row as usize)
    }

    /// The handle of the agent in `row`.
    pub fn handle_of(&self, row: usize) -> Option<AgentHandle> {
        let index = *self.slot_of_row.get(row)?;
        Some(AgentHandle {
            index,
            generation: self.generation[index as usize],
        })
    }

    /// Releases `handle`'s slot (bumping its generation) for an agent removed by a swap-remove of
    /// its row: returns the row, whose place the last row now takes.
    pub fn release(&mut self, handle: AgentHandle) -> Result<usize, SlotError> {
        let stale = SlotError::Stale {
            index: handle.index,
            generation: handle.generation,
        };
        let row = self.resolve(handle).ok_or(stale)?;
        let slot = handle.index as usize;
        self.generation[slot] = self.generation[slot].wrapping_add(1);
        self.row[slot] = None;
        self.free.push_back(handle.index);
        self.released_any = true;
        self.slot_of_row.swap_remove(row);
        if let Some(&moved) = self.slot_of_row.get(row) {
            self.row[moved as usize] = Some(row as u32);
        }
        Ok(row)
    }

    /// Heap bytes held (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.generation.capacity() * 4
            + self.row.capacity() * std::mem::size_of::<Option<u32>>()
            + self.slot_of_row.capacity() * 4
            + self.free.capacity() * 4
    }

    /// Whether every occupied slot agrees with its row and every free slot is free.
    pub fn is_consistent(&self, rows: usize) -> bool {
        let occupied =
            self.slot_of_row.iter().enumerate().all(|(row, slot)| {
                self.row.get(*slot as usize).copied().flatten() == Some(row as u32)
            });
        let free = self
            .free
            .iter()
            .all(|slot| matches!(self.row.get(*slot as usize), Some(None)));
        let counted = self.slot_of_row.len() + self.free.len() == self.generation.len();
        self.slot_of_row.len() == rows && occupied && free && counted
    }

    /// Canonical bytes of the slot state. A world that never released a slot writes nothing: its
    /// slots are implied by its rows (slot = row, generation 0), so its state digest is the one
    /// it had before slots existed.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        if !self.released_any {
            return;
        }
        bytes.extend_from_slice(b"SLOTS001");
        bytes.extend_from_slice(&(self.generation.len() as u64).to_le_bytes());
        for (generation, row) in self.generation.iter().zip(&self.row) {
            bytes.extend_from_slice(&generation.to_le_bytes());
            bytes.extend_from_slice(&row.map_or(u32::MAX, |r| r).to_le_bytes());
        }
        bytes.extend_from_slice(&(self.free.len() as u64).to_le_bytes());
        for slot in &self.free {
            bytes.extend_from_slice(&slot.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allocate(slots: &mut Slots) -> AgentHandle {
        slots.allocate().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn released_slots_are_reused_oldest_first_with_a_new_generation() {
        let mut slots = Slots::default();
        let [a, b, c] = [(); 3].map(|()| allocate(&mut slots));
        assert_eq!((a.index, b.index, c.index), (0, 1, 2));
        assert_eq!(slots.release(a), Ok(0));
        // The last row (c) moved into row 0.
        assert_eq!(slots.resolve(c), Some(0));
        assert_eq!(slots.resolve(a), None);
        assert_eq!(slots.release(b), Ok(1));
        let d = allocate(&mut slots);
        assert_eq!(
            d,
            AgentHandle {
                index: 0,
                generation: 1
            }
        );
        assert_eq!(slots.resolve(d), Some(1));
        assert_eq!(slots.handle_of(1), Some(d));
        let e = allocate(&mut slots);
        assert_eq!((e.index, e.generation), (1, 1));
        assert!(slots.is_consistent(3));
    }

    #[test]
    fn a_stale_handle_is_refused_and_changes_nothing() {
        let mut slots = Slots::default();
        let a = allocate(&mut slots);
        assert_eq!(slots.release(a), Ok(0));
        let before = slots.clone();
        assert_eq!(
            slots.release(a),
            Err(SlotError::Stale {
                index: 0,
                generation: 0
            })
        );
        assert_eq!(slots, before);
        let reused = allocate(&mut slots);
        assert_eq!(
            slots.resolve(a),
            None,
            "the old handle never reaches the new occupant"
        );
        assert_eq!(slots.resolve(reused), Some(0));
    }

    #[test]
    fn slot_bytes_are_empty_until_a_release() {
        let mut slots = Slots::default();
        let a = allocate(&mut slots);
        allocate(&mut slots);
        let mut bytes = Vec::new();
        slots.write_canonical(&mut bytes);
        assert!(bytes.is_empty());
        assert_eq!(slots.release(a), Ok(0));
        slots.write_canonical(&mut bytes);
        // Tag, 2 slots × (generation, row), 1 free slot.
        assert_eq!(bytes.len(), 8 + 8 + 2 * 8 + 8 + 4);
    }
}
