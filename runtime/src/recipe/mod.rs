//! Recipes → compiled plans, and the one rulebook for structural recipe rules: operator
//! resolution, typed ports, parameter schemas, operators' rules across their inputs, topological
//! order, capacity ceilings, with diagnostics naming the stage and the field.
//!
//! Dependencies run one way: [`limits`] and [`report`] at the bottom; [`structure`] and [`bind`]
//! on them; [`seal`] on those; [`compile`] on all of them, with [`subrecipe`] beside it (the two
//! call each other: a subrecipe stage compiles its child); [`check`] (a loaded project) on top.
//! [`compile`] works on one recipe; [`compile_project_recipe`] and [`check_project`] apply it to a
//! loaded project, placing diagnostics on the recipe file's lines.

pub mod bind;
pub mod budget;
mod check;
pub mod compile;
mod libraries;
pub mod limits;
pub mod plan;
mod report;
mod scope_flow;
pub mod scope_manifest;
mod seal;
mod structure;
pub mod subrecipe;
pub mod subrecipe_output;

pub use bind::{bind_ports, source_kind};
pub use check::{
    check_project, check_scenario_run, compile_project_recipe, compile_recipe_of, load_and_check,
    published_lanes, published_routes,
};
pub use compile::{compile, compile_in, compile_with, family_data, CompileOutcome, ProjectDocs};
pub use limits::{
    MAX_EDGES, MAX_PLAN_OBJECTS, MAX_STAGES, MAX_STAGE_CANDIDATES, MAX_SUBRECIPE_DEPTH,
    SUPPORTED_ADDRESS_SCHEMAS,
};
pub use plan::{BoundInput, CompiledPlan, CompiledStage, InputSource, Subrecipe};
pub use report::RecipeSource;
pub use scope_manifest::{scope_manifest, ScopeEntry, ScopeManifest};
pub use structure::find_cycle;

#[cfg(test)]
mod subrecipe_materialize_tests;
#[cfg(test)]
mod subrecipe_mutation_tests;
#[cfg(test)]
mod subrecipe_output_tests;
#[cfg(test)]
mod subrecipe_override_tests;
#[cfg(test)]
mod subrecipe_rebase_tests;
#[cfg(test)]
mod subrecipe_tests;
#[cfg(test)]
mod tests;
