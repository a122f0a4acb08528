//! World mutations of scatter placements: harvest (a tombstone keyed by the packed scatter scope)
//! and regrow, exactly as `CONTRACTS.md`'s sampling convention fixes it.
//!
//! The k-th regrowth of a harvested placement (ordinal k ≥ 1, advanced exactly once per committed
//! regrow) takes variant `sample_bounded(total_weight)` at (regrow domain 6, scope = packed id,
//! event = k, dimension 0), mapped through the cumulative weights. An ordinal that would pass
//! `u32::MAX` fails the regrow and leaves the placement harvested. Mutations apply after every
//! author override; a placement's position never changes by regrowing. A mutation with a
//! `nested` path reaches a placement of a subrecipe stage's child run the way an override does
//! (`Overrides::child`), and is applied there by the same rules under the child run's seed.

use thiserror::Error;

use super::base::StageBase;
use super::{ConflictReason, Edit, EditOutcome, StageEdits};
use crate::content::ScatterProduct;
use crate::identity::ScatterId;
use crate::project::schema::Mutation;
use crate::rng::{sample_bounded, Address, Domain, DomainKey};

/// Dimension of the regrow variant draw.
pub const REGROW_DIMENSION: u16 = 0;

/// A regrow cannot be committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RegrowError {
    /// The placement is not harvested.
    #[error("the placement is not harvested")]
    NotHarvested,
    /// The next ordinal would pass `u32::MAX`; the placement stays harvested.
    #[error("the regrow ordinal would pass {}", u32::MAX)]
    OrdinalExhausted,
}

/// Where a placement is, for a mutation: the stage a mutation names, the `nested` path below it
/// (empty for the recipe's own stage) and the placement's packed identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationSite {
    /// The stage (a subrecipe stage when `nested` is not empty).
    pub stage: u32,
    /// The child stage ids below `stage` down to the scatter stage that emitted the placement.
    pub nested: Vec<u32>,
    /// The placement's packed scatter identity.
    pub target: u64,
}

impl MutationSite {
    /// Whether `m` names this placement (stage, path and identity alike).
    pub fn names(&self, m: &Mutation) -> bool {
        m.stage == self.stage && m.nested == self.nested && m.target == self.target
    }
}

/// Records a harvest of the placement at `site`: the mutation's tombstone. Returns the index of
/// the mutation that holds it (an earlier one of the same placement, or the one appended).
pub fn harvest(mutations: &mut Vec<Mutation>, site: &MutationSite, base: String) -> usize {
    match mutations.iter().position(|m| site.names(m)) {
        Some(index) => {
            mutations[index].harvested = true;
            index
        }
        None => {
            mutations.push(Mutation {
                stage: site.stage,
                target: site.target,
                base,
                harvested: true,
                ordinal: 0,
                nested: site.nested.clone(),
            });
            mutations.len() - 1
        }
    }
}

/// Commits one regrow of a harvested placement: the ordinal advances exactly once. Returns the new
/// ordinal; on an error nothing changes (the placement stays harvested).
pub fn regrow(mutation: &mut Mutation) -> Result<u32, RegrowError> {
    if !mutation.harvested {
        return Err(RegrowError::NotHarvested);
    }
    let ordinal = mutation
        .ordinal
        .checked_add(1)
        .ok_or(RegrowError::OrdinalExhausted)?;
    mutation.ordinal = ordinal;
    mutation.harvested = false;
    Ok(ordinal)
}

/// The variant index of regrowth `ordinal` of placement `id` (`None` when the draw is exhausted
/// or the family has no weight).
pub fn regrow_variant(base: &StageBase, id: ScatterId, ordinal: u32) -> Option<u32> {
    let key = DomainKey::new(base.seed, Domain::Regrow);
    let total = base.total_weight()?;
    let address = Address::new(id.bits(), ordinal, REGROW_DIMENSION);
    let v = sample_bounded(&key, address, total).ok()?;
    Some(base.variant_of(v))
}

/// Applies the stage's bound mutations after its overrides, in edit order; a later mutation of
/// the same placement supersedes an earlier one.
pub(super) fn apply_mutations(
    product: &mut ScatterProduct,
    base: &StageBase,
    edits: &StageEdits,
    outcomes: &mut [EditOutcome],
) {
    let mut last: Vec<(u64, usize)> = edits
        .edits
        .iter()
        .enumerate()
        .filter_map(|(i, (_, edit, _))| match edit {
            Edit::Mutation(m) => Some((m.target, i)),
            Edit::Override(_) => None,
        })
        .collect();
    last.sort_unstable();
    let mut harvested = Vec::new();
    for (index, (_, edit, _)) in edits.edits.iter().enumerate() {
        let Edit::Mutation(m) = edit else { continue };
        if outcomes[index].result.is_err() {
            continue;
        }
        let at = last.partition_point(|(t, _)| *t <= m.target);
        if let Some(&(target, winner)) = at.checked_sub(1).and_then(|i| last.get(i)) {
            if target == m.target && winner != index {
                let by = outcomes[winner].edit.clone();
                outcomes[index].result = Err(ConflictReason::Superseded { by });
                continue;
            }
        }
        outcomes[index].result = apply_one(product, base, m, &mut outcomes[index], &mut harvested);
    }
    super::apply::remove_placements(product, &harvested);
}

fn apply_one(
    product: &mut ScatterProduct,
    base: &StageBase,
    m: &Mutation,
    outcome: &mut EditOutcome,
    harvested: &mut Vec<ScatterId>,
) -> Result<(), ConflictReason> {
    let id = ScatterId::from_bits(m.target).map_err(|_| ConflictReason::TargetGone)?;
    if let Some(found) = &outcome.found_base {
        if !m.base.is_empty() && &m.base != found {
            return Err(ConflictReason::BaseRevisionMismatch {
                expected: m.base.clone(),
                found: found.clone(),
            });
        }
    }
    let placement = super::apply::placement_mut(product, id).ok_or(ConflictReason::TargetGone)?;
    if m.harvested {
        harvested.push(id);
        return Ok(());
    }
    let Some(variant) = regrow_variant(base, id, m.ordinal) else {
        harvested.push(id);
        return Err(ConflictReason::RegrowFailed);
    };
    placement.variant = variant;
    outcome.regrow = Some((m.ordinal, variant));
    Ok(())
}
