//! Realization of a batch: preview resources (the source's appearance family must be available;
//! checked before the candidates are drawn and admitted) → claim the candidates → per item acquire from the pool (a compatible entry in
//! quarantine defers the whole batch) or create → attach at the admitted progress → commit the
//! whole batch. On a failure the failed item restores or removes itself, earlier items are
//! compensated in reverse (reused → back to the pool, new → removal request), the candidate
//! claims are released, and an incomplete cleanup reports `RollbackFailed`. Only a fully
//! attached batch clears the demand.

use super::{fresh_row, Acquire, Candidate, Destination, PoolEntry, Sets, UpdateFlags, NO_BINDING};
use crate::sim::config::WorldConfig;
use crate::sim::observers::Observation;
use crate::sim::state::TaskLedger;
use crate::sim::state::{
    AgentHandle, AgentId, AgentRow, EventDetail, EventKind, EventPosition, RemovalCause,
    SpawnRejection,
};

/// One attached item, with what undoing it needs.
enum Attached {
    /// A new entity (staged birth).
    New(AgentHandle),
    /// A pooled entity readmitted: its entry and its row before acquisition.
    Reused {
        row: usize,
        entry: PoolEntry,
        before: Box<AgentRow>,
    },
}

/// The resource preview, before any candidate is drawn or admitted: the source's appearance
/// family must be available. A batch blocked on resources is never admitted (no `Admitted`
/// event, no new use of the source), only refused with `ResourcesNotReady`.
pub(super) fn preview<T: TaskLedger>(
    config: &WorldConfig,
    sets: &Sets<'_, T>,
    source: usize,
) -> Result<(), SpawnRejection> {
    let binding = config.sources[source].binding;
    let available = |family: u16| {
        sets.state
            .families_available
            .get(usize::from(family))
            .copied()
            .unwrap_or(false)
    };
    if binding != NO_BINDING && !available(binding) {
        return Err(SpawnRejection::ResourcesNotReady);
    }
    Ok(())
}

/// Realizes `candidates` for `source` (its resources previewed); on success the demand is
/// cleared and the batch recorded.
pub(super) fn realize<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
    source: usize,
    candidates: &[Candidate],
) -> Result<(), SpawnRejection> {
    let binding = config.sources[source].binding;
    let plan = plan_acquisitions(observation, sets, source, binding, candidates)?;
    let ordinal = sets.state.batches;
    sets.state.batches += 1;
    let fault = config
        .scenario
        .population
        .fault
        .filter(|f| f.batch == ordinal);
    let taken: Vec<usize> = plan.iter().flatten().copied().collect();
    let mut entries = sets.state.pool.take(&taken).into_iter();
    let mut attached: Vec<Attached> = Vec::with_capacity(candidates.len());
    for (item, (candidate, reuse)) in candidates.iter().zip(&plan).enumerate() {
        let entry = reuse.and_then(|_| entries.next());
        let done = attach(config, sets, source, candidate, entry);
        let failed = fault.is_some_and(|f| f.item as usize == item);
        match done {
            Some(done) if !failed => attached.push(done),
            outcome => {
                let fail_restore = fault.is_some_and(|f| f.fail_restore);
                // The failed item first undoes itself, then the earlier ones in reverse.
                let own = outcome.is_none_or(|d| undo(sets, d, fail_restore));
                let mut complete = own;
                let undone = attached.len() as u32 + 1;
                for earlier in attached.into_iter().rev() {
                    complete = undo(sets, earlier, fail_restore) && complete;
                }
                // The candidate claims (the call-local list) are dropped with this frame.
                let detail = EventDetail::Rollback { complete, undone };
                sets.events.push(
                    sets.frame,
                    EventKind::RolledBack,
                    None,
                    Some(source as u16),
                    detail,
                );
                sets.state.stats.rollbacks += 1;
                if !complete {
                    sets.state.stats.rollbacks_failed += 1;
                    return Err(SpawnRejection::RollbackFailed);
                }
                return Err(SpawnRejection::AttachFailed);
            }
        }
    }
    commit(sets, source, attached, candidates);
    Ok(())
}

/// For each item, the pool entry it will reuse (`None`: create). A compatible entry still in
/// quarantine defers the whole batch before anything is done.
fn plan_acquisitions<T: TaskLedger>(
    observation: &Observation,
    sets: &Sets<'_, T>,
    source: usize,
    binding: u16,
    candidates: &[Candidate],
) -> Result<Vec<Option<usize>>, SpawnRejection> {
    let mut taken = Vec::new();
    let mut plan = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let dest = Destination {
            source: source as u16,
            generation: sets.state.sources[source].generation,
            binding,
            safe: observation.offscreen_for_all(candidate.feet_m()),
        };
        match sets
            .state
            .pool
            .find(&dest, sets.state.control_frame, &taken)
        {
            Acquire::Ready(index) => {
                taken.push(index);
                plan.push(Some(index));
            }
            Acquire::Quarantined => return Err(SpawnRejection::PoolQuarantine),
            Acquire::NoneCompatible => plan.push(None),
        }
    }
    Ok(plan)
}

/// Attaches one item at its admitted progress: a reused ped relinquishes its old route and
/// position authority (a closed movement of its ended tasks stops writing its position and
/// heading; its row is rebuilt from the source's defaults, keeping only its identity); a new one
/// takes a slot and is staged. `None` when no slot is left.
fn attach<T: TaskLedger>(
    config: &WorldConfig,
    sets: &mut Sets<'_, T>,
    source: usize,
    candidate: &Candidate,
    entry: Option<PoolEntry>,
) -> Option<Attached> {
    let spec = &config.sources[source];
    let generation = sets.state.sources[source].generation;
    match entry {
        Some(entry) => {
            let row = super::live_row(sets.slots, sets.agents, entry.handle)?;
            // Old position authority first: a closed movement its ended tasks left behind
            // writes nothing from now on (the reuse stall's attachment fix).
            sets.tasks.relinquish(entry.handle);
            let before = sets.agents.row(row);
            let id = AgentId::from_bits(before.id);
            let mut fresh = fresh_row(source, spec, generation, id, before.generation, candidate);
            fresh.steps = before.steps;
            // Restoration uses the saved update flags: the reused ped resumes the update
            // cadence it retired with (a new ped starts at Stub).
            fresh.tier = UpdateFlags::from_bits(entry.saved_flags).tier;
            sets.agents.set_row(row, fresh);
            Some(Attached::Reused {
                row,
                entry,
                before: Box::new(before),
            })
        }
        None => {
            let handle = sets.slots.allocate().ok()?;
            let new_items = sets
                .staged
                .births
                .iter()
                .filter(|(_, r)| r.source as usize == source)
                .count();
            let ordinal = sets.births[source].len() + new_items;
            let id = AgentId::new(source as u16, ordinal as u32);
            let row = fresh_row(source, spec, generation, id, handle.generation, candidate);
            sets.staged.births.push((handle, row));
            Some(Attached::New(handle))
        }
    }
}

/// Undoes one attached item: a reused ped gets its old row back and returns to the pool with
/// its quarantine record (or, when that fails, is removed: incomplete); a new one is removed.
fn undo<T: TaskLedger>(sets: &mut Sets<'_, T>, item: Attached, fail_restore: bool) -> bool {
    match item {
        Attached::New(handle) => {
            super::destroy(sets, handle, None, RemovalCause::RolledBack);
            true
        }
        Attached::Reused { row, entry, before } => {
            sets.agents.set_row(row, *before);
            if !fail_restore && sets.state.pool.restore(entry) {
                return true;
            }
            let cause = RemovalCause::RolledBack;
            super::destroy(sets, entry.handle, Some(entry.source), cause);
            false
        }
    }
}

/// The whole batch attached: clear the demand, record the spillover, publish the births (each
/// `Realized` event at its candidate's position: `attached` is in `candidates`' order).
fn commit<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    source: usize,
    attached: Vec<Attached>,
    candidates: &[Candidate],
) {
    let items = attached.len() as u32;
    let reused = attached
        .iter()
        .filter(|a| matches!(a, Attached::Reused { .. }))
        .count() as u32;
    let state = &mut *sets.state;
    state.sources[source].pending = None;
    state.sources[source].created += u64::from(items - reused);
    state.sources[source].reused += u64::from(reused);
    state.ped_spillover.record_batch(items);
    state.stats.batches_realized += 1;
    sets.counters.births += u64::from(items - reused);
    let detail = EventDetail::Batch { items, reused };
    for (item, candidate) in attached.into_iter().zip(candidates) {
        let handle = match item {
            Attached::New(handle) => {
                sets.births[source].push(handle);
                handle
            }
            Attached::Reused { entry, .. } => {
                let acquired = EventDetail::None;
                sets.events.push(
                    sets.frame,
                    EventKind::Acquired,
                    Some(entry.handle),
                    Some(source as u16),
                    acquired,
                );
                entry.handle
            }
        };
        sets.events.push_at(
            sets.frame,
            EventKind::Realized,
            Some(handle),
            Some(source as u16),
            detail,
            Some(EventPosition::of(candidate.position)),
        );
    }
}
