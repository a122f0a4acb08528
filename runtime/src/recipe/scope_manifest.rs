//! The scope manifest of a recipe instance: for each stage of a compiled plan, its locality, its
//! level of the world hierarchy (regional, cell, object), the
//! packed address scopes `(room, layer)` its objects' identities take and the random domains it
//! draws from. The compiler already refuses two stages packing one scope, so the manifest is
//! collision-checked; it is what `stagecraft check --json` reports per recipe.
//!
//! A `subrecipe` stage draws nothing itself: its child run does, under the child's own instance
//! (`<parent instance>/<stage id>:<child id>`) and a seed derived from it, so the same packed
//! scopes in two uses of one subrecipe never collide. Its entry holds the child run's manifest
//! (`subrecipe`), built the same way, so every scope and domain a recipe instance draws from,
//! at any depth, is in its manifest, nested under the stage that runs it, in execution order.
//! A child stage reading what its user binds (a scatter over the user's street block, one layer
//! per sidewalk) gets its scopes from the outline of the bound product, as in the user's plan.

use std::collections::BTreeMap;

use super::plan::{CompiledPlan, CompiledStage, InputSource};
use super::subrecipe::nested_instance;
use crate::ops::registry::{InputOutline, Outline};

/// One stage's entry of a [`ScopeManifest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeEntry {
    /// The stage id.
    pub stage: u32,
    /// Its operator id.
    pub operator: &'static str,
    /// The operator's locality contract (`object-local`, …).
    pub locality: &'static str,
    /// The level of the world hierarchy it works at (`regional`, `cell` or `object`; see
    /// `recipe::scope_flow`).
    pub data_scope: &'static str,
    /// The packed `(room, layer)` scopes its objects' identities use.
    pub scopes: Vec<(u32, u32)>,
    /// The random domains it draws from, by id (1 placement, 2 variant, 3 transform, …).
    pub domains: Vec<u32>,
    /// For a `subrecipe` stage, the manifest of the child run it holds (`None` otherwise).
    pub subrecipe: Option<Box<ScopeManifest>>,
}

/// The scope manifest of one recipe instance, stages in execution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeManifest {
    /// The recipe instance (the recipe's id at the root, `<parent>/<stage>:<child>` below).
    pub recipe: String,
    /// The address schema its stages draw under.
    pub address_schema: u32,
    /// One entry per stage of the plan.
    pub stages: Vec<ScopeEntry>,
}

/// The scope manifest of `plan`, with its subrecipe stages' child runs folded in.
pub fn scope_manifest(plan: &CompiledPlan) -> ScopeManifest {
    manifest_of(plan, plan.recipe_id().to_owned(), &BTreeMap::new())
}

/// The outlines of the products a run's user binds to its `Product(…)` inputs, by input name.
type BoundOutlines<'p> = BTreeMap<&'p str, &'p Outline>;

/// The manifest of `plan` run as instance `instance`, given the outlines its user binds.
fn manifest_of(plan: &CompiledPlan, instance: String, bound: &BoundOutlines<'_>) -> ScopeManifest {
    let stages = plan
        .stages()
        .iter()
        .map(|stage| {
            let operator = stage.operator();
            // A `subrecipe.output` stage's run is its running stage's, folded in there.
            let runs = stage.subrecipe().filter(|sub| sub.run_by.is_none());
            let subrecipe = runs.map(|sub| {
                let child = nested_instance(&instance, stage.id(), &sub.recipe_id);
                let given: BoundOutlines<'_> = sub
                    .binds
                    .iter()
                    .zip(stage.inputs())
                    .filter_map(|(name, input)| {
                        Some((name.as_str(), outline_of(plan, &input.source, bound)?))
                    })
                    .collect();
                Box::new(manifest_of(&sub.plan, child, &given))
            });
            ScopeEntry {
                stage: stage.id(),
                operator: operator.id,
                locality: operator.locality.name(),
                data_scope: operator.data_scope.works_at.name(),
                scopes: scopes_of(plan, stage, bound),
                domains: operator.domains.iter().map(|d| d.id()).collect(),
                subrecipe,
            }
        })
        .collect();
    ScopeManifest {
        recipe: instance,
        address_schema: plan.address_schema(),
        stages,
    }
}

/// The outline of what `source` reads in `plan`: a stage's, or what the user bound.
fn outline_of<'p>(
    plan: &'p CompiledPlan,
    source: &InputSource,
    bound: &BoundOutlines<'p>,
) -> Option<&'p Outline> {
    match source {
        InputSource::Stage(id) => plan.stage(*id).map(CompiledStage::outline),
        InputSource::Outer { input } => bound.get(input.as_str()).copied(),
        InputSource::Family { .. } => None,
    }
}

/// `stage`'s scopes: as sealed, or, when it reads what the user binds, from those outlines.
fn scopes_of(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    bound: &BoundOutlines<'_>,
) -> Vec<(u32, u32)> {
    let reads_outer = stage
        .inputs()
        .iter()
        .any(|b| matches!(b.source, InputSource::Outer { .. }));
    if !reads_outer || stage.subrecipe().is_some() {
        return stage.scopes().to_vec();
    }
    let inputs: Vec<(&'static str, InputOutline<'_>)> = stage
        .inputs()
        .iter()
        .filter_map(|b| match &b.source {
            InputSource::Family { family, .. } => Some((b.port, InputOutline::Family(family))),
            source => outline_of(plan, source, bound).map(|o| (b.port, InputOutline::Product(o))),
        })
        .collect();
    (stage.operator().scopes)(stage.params(), &inputs)
}
