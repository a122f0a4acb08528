//! Recipes → compiled plans: operator resolution, typed ports, parameter schemas, topological
//! order, capacity ceilings, with diagnostics naming the stage and the field.
//!
//! [`compile`] works on one recipe; [`compile_project_recipe`] and [`check_project`] apply it to a
//! loaded project, placing diagnostics on the recipe file's lines.

pub mod compile;
pub mod plan;
mod seal;

pub use compile::{
    compile, family_data, CompileOutcome, RecipeSource, MAX_PLAN_OBJECTS, MAX_STAGE_CANDIDATES,
    SUPPORTED_ADDRESS_SCHEMAS,
};
pub use plan::{BoundInput, CompiledPlan, CompiledStage, InputSource};

use crate::ops::registry::Registry;
use crate::project::{recipe_file, Diagnostic, LoadedProject};

/// Compiles recipe `id` of a loaded project, with diagnostics on its file; `None` when the
/// project or the recipe could not be read.
pub fn compile_project_recipe(
    loaded: &LoadedProject,
    id: &str,
    registry: &Registry,
) -> Option<CompileOutcome> {
    let project = loaded.project.as_ref()?;
    let recipe = project.recipes.get(id)?;
    let file = recipe_file(id);
    let source = RecipeSource {
        file: &file,
        tree: loaded.trees.get(&file),
    };
    Some(compile(recipe, &project.families, registry, source))
}

/// The compiler's diagnostics for every recipe of a project that has no error of its own yet
/// (so structural problems already reported by validation are not repeated), without those the
/// project's diagnostics already hold. Sorted.
pub fn check_project(loaded: &LoadedProject, registry: &Registry) -> Vec<Diagnostic> {
    let Some(project) = loaded.project.as_ref() else {
        return Vec::new();
    };
    let mut found: Vec<Diagnostic> = Vec::new();
    for id in project.recipes.keys() {
        let file = recipe_file(id);
        if loaded.diagnostics_of(&file).any(Diagnostic::is_error) {
            continue;
        }
        if let Some(outcome) = compile_project_recipe(loaded, id, registry) {
            found.extend(
                outcome
                    .diagnostics
                    .into_iter()
                    .filter(|d| !loaded.diagnostics.contains(d)),
            );
        }
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests;
