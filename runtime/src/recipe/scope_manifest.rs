//! The scope manifest of a recipe instance: for each stage of a compiled plan, its locality, its
//! level of the world hierarchy (regional, cell, object), the
//! packed address scopes `(room, layer)` its objects' identities take and the random domains it
//! draws from. The compiler already refuses two stages packing one scope, so the manifest is
//! collision-checked; it is what `stagecraft check --json` reports per recipe.

use super::plan::CompiledPlan;

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
}

/// The scope manifest of one recipe instance, stages in execution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeManifest {
    /// The recipe instance.
    pub recipe: String,
    /// The address schema its stages draw under.
    pub address_schema: u32,
    /// One entry per stage of the plan.
    pub stages: Vec<ScopeEntry>,
}

/// The scope manifest of `plan`.
pub fn scope_manifest(plan: &CompiledPlan) -> ScopeManifest {
    ScopeManifest {
        recipe: plan.recipe_id().to_owned(),
        address_schema: plan.address_schema(),
        stages: plan
            .stages()
            .iter()
            .map(|stage| {
                let operator = stage.operator();
                ScopeEntry {
                    stage: stage.id(),
                    operator: operator.id,
                    locality: operator.locality.name(),
                    data_scope: operator.data_scope.works_at.name(),
                    scopes: stage.scopes().to_vec(),
                    domains: operator.domains.iter().map(|d| d.id()).collect(),
                }
            })
            .collect(),
    }
}
