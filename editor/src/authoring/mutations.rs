//! World mutations authored on placements: the harvested list and one committed regrow (the
//! ordinal advances exactly once, as `CONTRACTS.md`'s "regrow" line fixes it). Harvesting itself
//! is an object action (`author_object` with `ObjectAction::Harvest`).

use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::overrides::{regrow as regrow_mutation, RegrowError};
use stagecraft_runtime::project::{FieldPath, Mutation, Project};

use super::{commit, AuthoringRefusal};
use crate::edits::ProjectEdit;

/// A harvested placement of a recipe's sets, which can be regrown.
#[derive(Clone, Debug, PartialEq)]
pub struct Harvested {
    /// The set holding the mutation.
    pub set: String,
    /// The scatter stage.
    pub stage: u32,
    /// The placement's packed identity.
    pub target: u64,
    /// The ordinal of its last committed regrow (0: never regrown).
    pub ordinal: u32,
}

/// The harvested placements of `recipe`'s sets, sets by id, each in written order.
pub fn harvested(project: &Project, recipe: &str) -> Vec<Harvested> {
    project
        .overrides
        .values()
        .filter(|set| set.recipe == recipe)
        .flat_map(|set| {
            set.mutations
                .iter()
                .filter(|m| m.harvested)
                .map(|m: &Mutation| Harvested {
                    set: set.id.clone(),
                    stage: m.stage,
                    target: m.target,
                    ordinal: m.ordinal,
                })
        })
        .collect()
}

/// The edit that commits one regrow of harvested placement `target` of `stage` in set `set`: its
/// ordinal advances exactly once (`CONTRACTS.md`, the "regrow" line); an ordinal that would pass
/// `u32::MAX` is refused and the placement stays harvested.
pub fn regrow(
    project: &Project,
    set: &str,
    stage: u32,
    target: u64,
) -> Result<ProjectEdit, AuthoringRefusal> {
    let mut next = project
        .overrides
        .get(set)
        .cloned()
        .ok_or(AuthoringRefusal::NotHarvested)?;
    let index = next
        .mutations
        .iter()
        .rposition(|m| m.stage == stage && m.target == target)
        .ok_or(AuthoringRefusal::NotHarvested)?;
    let ordinal = regrow_mutation(&mut next.mutations[index]).map_err(|e| match e {
        RegrowError::NotHarvested => AuthoringRefusal::NotHarvested,
        RegrowError::OrdinalExhausted => AuthoringRefusal::OrdinalExhausted,
    })?;
    let id = ScatterId::from_bits(target).map_or_else(|_| target.to_string(), |id| id.to_string());
    let path = FieldPath::root().field("mutations").index(index);
    let label = format!("Regrow {id} (ordinal {ordinal})");
    Ok(commit(project, next, false, path, label))
}
