//! The reuse pool: bounded entries that each describe one retirement (type, binding, retired
//! source and source generation, retirement Control frame, observer safety at retirement, saved
//! update flags). Admission runs its read-only checks before any eviction; acquisition matches
//! binding and source (same source: a newer source generation; cross source: safe at retirement
//! and at the destination) and then quarantine (`frame − retiredFrame ≥ 2`, in Control updates).

use crate::sim::state::{AgentHandle, RetireRefusal, Tier};

/// Control updates an entry waits before it may be acquired.
pub const QUARANTINE_FRAMES: u64 = 2;
/// The binding of a ped whose source names no appearance family.
pub const NO_BINDING: u16 = u16::MAX;

/// One retirement, as the pool keeps it.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolEntry {
    /// The ped (its logical entity and handle survive pooling).
    pub handle: AgentHandle,
    /// Entity type code (0 = pedestrian).
    pub entity_type: u8,
    /// Appearance family index ([`NO_BINDING`] for none).
    pub binding: u16,
    /// The source it retired from.
    pub source: u16,
    /// That source's generation when it retired.
    pub source_generation: u32,
    /// The Control frame of its retirement.
    pub retired_frame: u64,
    /// Whether it was offscreen for every valid view when it retired.
    pub safe_at_retirement: bool,
    /// Update flags to restore on acquisition ([`UpdateFlags::bits`]).
    pub saved_flags: u8,
}

impl PoolEntry {
    /// Whether the entry is still in quarantine at Control frame `frame`
    /// (`frame − retiredFrame < QUARANTINE_FRAMES`).
    pub fn in_quarantine(&self, frame: u64) -> bool {
        frame.saturating_sub(self.retired_frame) < QUARANTINE_FRAMES
    }
}

/// The update flags a pool entry saves and acquisition restores: whether the ped's motion was
/// updating and the LOD tier (update cadence) it had when it retired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateFlags {
    /// Whether its motion was updated (bit 0).
    pub motion: bool,
    /// Its applied tier (bits 1–2: the tier's code).
    pub tier: Tier,
}

impl UpdateFlags {
    /// The flags as one byte.
    pub fn bits(self) -> u8 {
        u8::from(self.motion) | self.tier.code() << 1
    }

    /// The flags of a byte (an unknown tier code reads as Stub, the tier new agents start in).
    pub fn from_bits(bits: u8) -> UpdateFlags {
        let tier = Tier::ALL
            .into_iter()
            .find(|t| t.code() == (bits >> 1) & 0b11)
            .unwrap_or(Tier::Stub);
        UpdateFlags {
            motion: bits & 1 == 1,
            tier,
        }
    }
}

/// Why the pool refused an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolRefusal {
    /// The ped already has an entry.
    Duplicate,
    /// The ped is protected (the eligibility reason).
    Protected(RetireRefusal),
    /// The pool has no capacity at all.
    NoCapacity,
}

/// What acquisition found for a destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquire {
    /// Entry at this index is compatible and out of quarantine.
    Ready(usize),
    /// A compatible entry exists but is still in quarantine: the batch waits.
    Quarantined,
    /// No compatible entry: create a new entity.
    NoneCompatible,
}

/// A destination for acquisition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The source acquiring.
    pub source: u16,
    /// Its current generation.
    pub generation: u32,
    /// The binding it needs.
    pub binding: u16,
    /// Whether the admitted candidate is offscreen for every valid view.
    pub safe: bool,
}

/// Whether an entry may serve `dest` by source (before quarantine):
/// `same ∧ retired < current  ∨  ¬same ∧ safeAtRetirement ∧ safeAtDestination`.
pub fn source_eligible(entry: &PoolEntry, dest: &Destination) -> bool {
    if entry.source == dest.source {
        entry.source_generation < dest.generation
    } else {
        entry.safe_at_retirement && dest.safe
    }
}

/// The pool.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pool {
    /// Most entries held.
    pub capacity: u32,
    /// Entries, oldest first.
    pub entries: Vec<PoolEntry>,
}

impl Pool {
    /// An empty pool of `capacity`.
    pub fn new(capacity: u32) -> Pool {
        Pool {
            capacity,
            entries: Vec::new(),
        }
    }

    /// Admits `entry` for a ped whose retirement eligibility is `eligibility`. Read-only checks
    /// (duplicate, protection, capacity zero) come first; only then is the oldest entry evicted
    /// when full — returned so the caller destroys its ped.
    pub fn admit(
        &mut self,
        entry: PoolEntry,
        eligibility: Result<(), RetireRefusal>,
    ) -> Result<Option<PoolEntry>, PoolRefusal> {
        if self.entries.iter().any(|e| e.handle == entry.handle) {
            return Err(PoolRefusal::Duplicate);
        }
        eligibility.map_err(PoolRefusal::Protected)?;
        if self.capacity == 0 {
            return Err(PoolRefusal::NoCapacity);
        }
        let evicted = if self.entries.len() >= self.capacity as usize {
            Some(self.entries.remove(0))
        } else {
            None
        };
        self.entries.push(entry);
        Ok(evicted)
    }

    /// The first entry that can serve `dest` at Control frame `frame`, skipping `taken`.
    pub fn find(&self, dest: &Destination, frame: u64, taken: &[usize]) -> Acquire {
        let mut quarantined = false;
        for (index, entry) in self.entries.iter().enumerate() {
            if taken.contains(&index) || entry.binding != dest.binding || entry.entity_type != 0 {
                continue;
            }
            if !source_eligible(entry, dest) {
                continue;
            }
            if !entry.in_quarantine(frame) {
                return Acquire::Ready(index);
            }
            quarantined = true;
        }
        if quarantined {
            Acquire::Quarantined
        } else {
            Acquire::NoneCompatible
        }
    }

    /// Removes and returns the entries at `indices` (any order), in the order given.
    pub fn take(&mut self, indices: &[usize]) -> Vec<PoolEntry> {
        let taken: Vec<PoolEntry> = indices.iter().map(|i| self.entries[*i]).collect();
        let mut sorted = indices.to_vec();
        sorted.sort_unstable();
        for index in sorted.into_iter().rev() {
            self.entries.remove(index);
        }
        taken
    }

    /// Puts an acquired entry back (a rollback), keeping its quarantine record; false when the
    /// pool has no room for it.
    pub fn restore(&mut self, entry: PoolEntry) -> bool {
        if self.entries.len() >= self.capacity as usize {
            return false;
        }
        self.entries.push(entry);
        true
    }

    /// Entries still in quarantine at `frame`.
    pub fn quarantined(&self, frame: u64) -> usize {
        self.entries
            .iter()
            .filter(|e| e.in_quarantine(frame))
            .count()
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.capacity.to_le_bytes());
        bytes.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for e in &self.entries {
            bytes.extend_from_slice(&e.handle.index.to_le_bytes());
            bytes.extend_from_slice(&e.handle.generation.to_le_bytes());
            bytes.push(e.entity_type);
            bytes.extend_from_slice(&e.binding.to_le_bytes());
            bytes.extend_from_slice(&e.source.to_le_bytes());
            bytes.extend_from_slice(&e.source_generation.to_le_bytes());
            bytes.extend_from_slice(&e.retired_frame.to_le_bytes());
            bytes.push(u8::from(e.safe_at_retirement));
            bytes.push(e.saved_flags);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: u32, source: u16, generation: u32, frame: u64, safe: bool) -> PoolEntry {
        PoolEntry {
            handle: AgentHandle {
                index,
                generation: 0,
            },
            entity_type: 0,
            binding: NO_BINDING,
            source,
            source_generation: generation,
            retired_frame: frame,
            safe_at_retirement: safe,
            saved_flags: 1,
        }
    }

    fn dest(source: u16, generation: u32, safe: bool) -> Destination {
        Destination {
            source,
            generation,
            binding: NO_BINDING,
            safe,
        }
    }

    #[test]
    fn quarantine_needs_two_control_frames() {
        let mut pool = Pool::new(4);
        assert_eq!(pool.admit(entry(1, 0, 0, 10, true), Ok(())), Ok(None));
        let d = dest(0, 1, true);
        assert_eq!(pool.find(&d, 10, &[]), Acquire::Quarantined);
        assert_eq!(pool.find(&d, 11, &[]), Acquire::Quarantined);
        assert_eq!(pool.find(&d, 12, &[]), Acquire::Ready(0));
        assert_eq!(pool.quarantined(11), 1);
        assert_eq!(pool.quarantined(12), 0);
    }

    #[test]
    fn same_source_needs_a_newer_generation_and_cross_source_needs_safety_twice() {
        let mut pool = Pool::new(4);
        pool.admit(entry(1, 0, 3, 0, false), Ok(()))
            .expect("admitted");
        assert_eq!(
            pool.find(&dest(0, 3, true), 9, &[]),
            Acquire::NoneCompatible
        );
        assert_eq!(pool.find(&dest(0, 4, false), 9, &[]), Acquire::Ready(0));
        // Unsafe at retirement: no other source may take it, however safe the destination.
        assert_eq!(
            pool.find(&dest(1, 0, true), 9, &[]),
            Acquire::NoneCompatible
        );
        let mut pool = Pool::new(4);
        pool.admit(entry(2, 0, 3, 0, true), Ok(()))
            .expect("admitted");
        assert_eq!(
            pool.find(&dest(1, 0, false), 9, &[]),
            Acquire::NoneCompatible
        );
        assert_eq!(pool.find(&dest(1, 0, true), 9, &[]), Acquire::Ready(0));
    }

    #[test]
    fn admission_checks_before_evicting_anything() {
        let mut pool = Pool::new(1);
        pool.admit(entry(1, 0, 0, 0, true), Ok(()))
            .expect("admitted");
        let before = pool.clone();
        assert_eq!(
            pool.admit(entry(2, 0, 0, 1, true), Err(RetireRefusal::Mission)),
            Err(PoolRefusal::Protected(RetireRefusal::Mission))
        );
        assert_eq!(
            pool.admit(entry(1, 0, 0, 1, true), Ok(())),
            Err(PoolRefusal::Duplicate)
        );
        assert_eq!(pool, before, "a refused admission evicted nothing");
        let evicted = pool
            .admit(entry(3, 0, 0, 1, true), Ok(()))
            .expect("admitted");
        assert_eq!(
            evicted.map(|e| e.handle.index),
            Some(1),
            "full: the oldest goes"
        );
        assert!(
            !pool.restore(entry(4, 0, 0, 1, true)),
            "no room to restore into"
        );
    }
}
