//! The reuse pool: bounded entries that each describe one retirement (type, binding, retired
//! source and source generation, retirement Control frame, observer safety at retirement, saved
//! update flags). Admission runs its read-only checks before any eviction; acquisition matches
//! binding and source (same source: a newer source generation; cross source: safe at retirement
//! and at the destination) and then quarantine (`frame − retiredFrame ≥ 2`, in Control updates).
//!
//! Each entry also carries its admission serial (the pool's running count of admissions: which
//! retirement this is) and the entity's reset version (how many pooled-state resets the entity
//! has had: each admission and each rollback restore applies one). A [`PoolTicket`] names an
//! entry by handle, serial and version, so a reference kept across an acquisition, a later
//! retirement of the same entity or a restore is detected as stale ([`Pool::resolve`]) instead of
//! silently naming the entity's newer entry.

use std::collections::BTreeMap;

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
    /// The pool's admission serial of this retirement (1 for the pool's first admission);
    /// assigned by [`Pool::admit`], kept by a rollback restore.
    #[serde(default)]
    pub serial: u64,
    /// The entity's reset version: pooled-state resets it has had, this one included (1 at its
    /// first retirement); assigned by [`Pool::admit`], bumped by [`Pool::restore`].
    #[serde(default)]
    pub reset_version: u32,
}

/// A reference to one pool entry: its entity, admission serial and reset version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolTicket {
    /// The entity.
    pub handle: AgentHandle,
    /// The admission serial the reference was taken at.
    pub serial: u64,
    /// The reset version the reference was taken at.
    pub reset_version: u32,
}

/// Why a [`PoolTicket`] no longer names an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleTicket {
    /// The entity has no entry: it was acquired (or destroyed) since.
    NotPooled,
    /// The entity is pooled again, by a later retirement (another serial).
    Readmitted {
        /// The serial of its current entry.
        serial: u64,
    },
    /// The same retirement, but the entity was reset again since (a rollback restore).
    Reset {
        /// Its current reset version.
        reset_version: u32,
    },
}

impl PoolEntry {
    /// A reference to this entry.
    pub fn ticket(&self) -> PoolTicket {
        PoolTicket {
            handle: self.handle,
            serial: self.serial,
            reset_version: self.reset_version,
        }
    }

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
    /// Admissions so far (the last serial given).
    #[serde(default)]
    pub admissions: u64,
    /// Each entity's reset version (entities ever pooled and not destroyed since).
    #[serde(default)]
    pub resets: BTreeMap<AgentHandle, u32>,
}

impl Pool {
    /// An empty pool of `capacity`.
    pub fn new(capacity: u32) -> Pool {
        Pool {
            capacity,
            entries: Vec::new(),
            admissions: 0,
            resets: BTreeMap::new(),
        }
    }

    /// Gives `entry` the next admission serial and its entity's next reset version.
    fn stamp(&mut self, entry: &mut PoolEntry) {
        self.admissions += 1;
        entry.serial = self.admissions;
        entry.reset_version = self.bump_reset(entry.handle);
    }

    /// One more pooled-state reset of `handle`: its new reset version.
    fn bump_reset(&mut self, handle: AgentHandle) -> u32 {
        let version = self.resets.entry(handle).or_insert(0);
        *version = version.saturating_add(1);
        *version
    }

    /// Forgets a destroyed entity (its entry, if any, and its reset version).
    pub fn forget(&mut self, handle: AgentHandle) {
        self.entries.retain(|e| e.handle != handle);
        self.resets.remove(&handle);
    }

    /// The index of the entry `ticket` names, or why it names none any more.
    pub fn resolve(&self, ticket: PoolTicket) -> Result<usize, StaleTicket> {
        let (index, entry) = self
            .entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.handle == ticket.handle)
            .ok_or(StaleTicket::NotPooled)?;
        if entry.serial != ticket.serial {
            return Err(StaleTicket::Readmitted {
                serial: entry.serial,
            });
        }
        if entry.reset_version != ticket.reset_version {
            return Err(StaleTicket::Reset {
                reset_version: entry.reset_version,
            });
        }
        Ok(index)
    }

    /// Admits `entry` for a ped whose retirement eligibility is `eligibility`. Read-only checks
    /// (duplicate, protection, capacity zero) come first; only then is the oldest entry evicted
    /// when full — returned so the caller destroys its ped — and the entry stamped with its
    /// serial and reset version.
    pub fn admit(
        &mut self,
        mut entry: PoolEntry,
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
        self.stamp(&mut entry);
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

    /// Puts an acquired entry back (a rollback), keeping its quarantine record and serial and
    /// applying the pooled-state reset again (its reset version goes up); false when the pool
    /// has no room for it.
    pub fn restore(&mut self, mut entry: PoolEntry) -> bool {
        if self.entries.len() >= self.capacity as usize {
            return false;
        }
        entry.reset_version = self.bump_reset(entry.handle);
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

    /// Canonical bytes. The serials and reset versions are not written: both follow from the
    /// hashed history (a serial is the count of pool entries made, `PopulationStats::pool_entries`;
    /// a reset version counts the entity's `PoolEntered` events and rollback restores), and
    /// leaving them out keeps the digests of worlds that pooled peds before they existed.
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
            serial: 0,
            reset_version: 0,
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

    #[test]
    fn each_admission_gets_a_serial_and_each_reset_a_version_so_stale_tickets_show() {
        let mut pool = Pool::new(4);
        pool.admit(entry(7, 0, 0, 0, true), Ok(()))
            .expect("admitted");
        pool.admit(entry(8, 0, 0, 0, true), Ok(()))
            .expect("admitted");
        let first = pool.entries[0];
        assert_eq!((first.serial, first.reset_version), (1, 1));
        assert_eq!(
            (pool.entries[1].serial, pool.entries[1].reset_version),
            (2, 1)
        );
        let ticket = first.ticket();
        assert_eq!(pool.resolve(ticket), Ok(0));
        // Acquired: the ticket names nothing.
        let taken = pool.take(&[0]);
        assert_eq!(pool.resolve(ticket), Err(StaleTicket::NotPooled));
        // A rollback restore keeps the serial but is a second reset.
        assert!(pool.restore(taken[0]));
        let restored = pool.entries[1];
        assert_eq!((restored.serial, restored.reset_version), (1, 2));
        assert_eq!(
            pool.resolve(ticket),
            Err(StaleTicket::Reset { reset_version: 2 })
        );
        assert_eq!(pool.resolve(restored.ticket()), Ok(1));
        // Acquired again and retired again later: a new serial, a third reset.
        let taken = pool.take(&[1]);
        pool.admit(taken[0], Ok(())).expect("admitted");
        let again = pool.entries[1];
        assert_eq!((again.serial, again.reset_version), (3, 3));
        assert_eq!(
            pool.resolve(restored.ticket()),
            Err(StaleTicket::Readmitted { serial: 3 })
        );
        // Destroyed: its version is forgotten, a new entity in the slot starts at 1 again.
        pool.forget(again.handle);
        assert_eq!(pool.resolve(again.ticket()), Err(StaleTicket::NotPooled));
        assert!(!pool.resets.contains_key(&again.handle));
        // A refused admission stamps nothing.
        let before = pool.admissions;
        let refused = pool.admit(entry(9, 0, 0, 0, true), Err(RetireRefusal::Mission));
        assert!(refused.is_err());
        assert_eq!(pool.admissions, before);
    }
}
