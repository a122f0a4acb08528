//! The cache entries a cook stores for the stages of a recipe, decided once the recipe has run
//! and written afterwards: at once by a cook without a bundle, or by a whole cook while its bundle
//! folder is staged ([`super::swap::write_bundle_alongside`]): once the bundle's product files
//! are written, while the disk syncs them. The stages' key records are set in stage order once
//! every entry is stored; a failure fails the cook before its bundle is swapped in, as when the
//! entries were stored first.

use std::collections::BTreeSet;

use anyhow::Context as _;
use rayon::prelude::*;
use stagecraft_runtime::cook::{CookedStage, KeyRecord};

use super::driver::{CookReport, StageCook, StageOutcome};
use super::store::DiskCache;

/// One stage's part in the cache, decided after its recipe ran.
#[derive(Debug, Clone)]
pub struct PendingStore {
    /// Recipe id.
    pub recipe: String,
    /// Stage id.
    pub stage: u32,
    /// Operator id.
    pub operator: String,
    /// Hit, miss (stored) or dependency.
    pub outcome: StageOutcome,
    /// Its key record.
    pub record: KeyRecord,
    /// Whether this cook owns the stage (its key is recorded as the stage's last).
    pub mine: bool,
    /// Its product file's manifest entry.
    pub entry: CookedStage,
    /// The index of its product file among the files the entries are stored from.
    pub file: usize,
    /// Generated objects.
    pub elements: u64,
}

impl PendingStore {
    /// Whether its product goes into the cache (a miss).
    fn stores(&self) -> bool {
        matches!(self.outcome, StageOutcome::Miss(_))
    }
}

/// Stores the entries of the misses among `pending` from `files` (path, bytes) on the current
/// rayon pool, then records the keys of the owned stages in order; which were stored. The first
/// failure in `pending`'s order is the one reported.
pub fn store_pending(
    cache: &DiskCache,
    pending: &[PendingStore],
    files: &[(String, Vec<u8>)],
) -> anyhow::Result<Vec<bool>> {
    let stored: Vec<anyhow::Result<bool>> = pending
        .par_iter()
        .map(|p| {
            if p.stores() {
                let (_, bytes) = files
                    .get(p.file)
                    .context("a stored stage has no product file")?;
                cache.store(&p.record, &p.entry, bytes)?;
            }
            Ok(p.stores())
        })
        .collect();
    let mut flags = Vec::with_capacity(pending.len());
    for (p, stored) in pending.iter().zip(stored) {
        flags.push(stored?);
        if p.mine {
            cache
                .set_last(&p.record)
                .context("cannot record the stage's key")?;
        }
    }
    Ok(flags)
}

/// Counts `pending`, stored as `stored` says, in `report` and its keys in `in_use`.
pub fn record_pending(
    pending: Vec<PendingStore>,
    stored: &[bool],
    report: &mut CookReport,
    in_use: &mut BTreeSet<String>,
) {
    for (p, stored) in pending.into_iter().zip(stored) {
        in_use.insert(p.record.key.clone());
        report.stages.push(StageCook {
            recipe: p.recipe,
            stage: p.stage,
            operator: p.operator,
            outcome: p.outcome,
            stored: *stored,
            elements: p.elements,
            bytes: p.entry.bytes,
        });
    }
}
