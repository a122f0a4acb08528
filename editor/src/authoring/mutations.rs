//! World mutations authored on placements: the harvested list and one committed regrow (the
//! ordinal advances exactly once, as `CONTRACTS.md`'s "regrow" line fixes it). Harvesting itself
//! is an object action (`author_object` with `ObjectAction::Harvest`). A placement of a
//! subrecipe stage's child run is named by its `nested` path, as overrides name it.

use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::overrides::{regrow as regrow_mutation, MutationSite, RegrowError};
use stagecraft_runtime::project::{FieldPath, Mutation, Project};

use super::{commit, AuthoringRefusal};
use crate::edits::ProjectEdit;

/// A harvested placement of a recipe's sets, which can be regrown.
#[derive(Clone, Debug, PartialEq)]
pub struct Harvested {
    /// The set holding the mutation.
    pub set: String,
    /// Where the placement is: its stage (a subrecipe stage for a child run's), nested path and
    /// packed identity.
    pub site: MutationSite,
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
                    site: MutationSite {
                        stage: m.stage,
                        nested: m.nested.clone(),
                        target: m.target,
                    },
                    ordinal: m.ordinal,
                })
        })
        .collect()
}

/// The edit that commits one regrow of the harvested placement at `site` in set `set`: its
/// ordinal advances exactly once (`CONTRACTS.md`, the "regrow" line); an ordinal that would pass
/// `u32::MAX` is refused and the placement stays harvested.
pub fn regrow(
    project: &Project,
    set: &str,
    site: &MutationSite,
) -> Result<ProjectEdit, AuthoringRefusal> {
    let mut next = project
        .overrides
        .get(set)
        .cloned()
        .ok_or(AuthoringRefusal::NotHarvested)?;
    let index = next
        .mutations
        .iter()
        .rposition(|m| site.names(m))
        .ok_or(AuthoringRefusal::NotHarvested)?;
    let ordinal = regrow_mutation(&mut next.mutations[index]).map_err(|e| match e {
        RegrowError::NotHarvested => AuthoringRefusal::NotHarvested,
        RegrowError::OrdinalExhausted => AuthoringRefusal::OrdinalExhausted,
    })?;
    let target = site.target;
    let id = ScatterId::from_bits(target).map_or_else(|_| target.to_string(), |id| id.to_string());
    let path = FieldPath::root().field("mutations").index(index);
    let label = format!("Regrow {id} (ordinal {ordinal})");
    Ok(commit(project, next, false, path, label))
}
