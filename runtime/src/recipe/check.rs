//! The rulebook applied to a loaded project: every recipe compiled with diagnostics on its file,
//! every scenario compiled by the simulation (its runtime rules), and the rules that need
//! operators across documents (the routes a scenario's sources walk and the lanes its vehicle
//! sources drive are those the recipe's operators publish). `stagecraft check`, the editor and
//! `generate` all read their diagnostics from here, so they show the same ones.

use std::collections::{BTreeMap, BTreeSet};

use super::compile::{compile, compile_in, CompileOutcome, ProjectDocs};
use super::report::{RecipeSource, Reporter};
use crate::ops::registry::Registry;
use crate::project::node::Node;
use crate::project::{
    classify, load_project, recipe_file, scenario_file, AssetFamily, Diagnostic, DocKind,
    FieldPath, LoadedProject, Project, ProjectSources, Recipe, RecipeInput, Scenario,
};
use crate::sim::config::CompiledScenario;
use crate::sim::problems::SimProblem;
use crate::sim::SimEstimate;

/// Compiles recipe `id` of a loaded project, with diagnostics on its file; `None` when the
/// project or the recipe could not be read.
pub fn compile_project_recipe(
    loaded: &LoadedProject,
    id: &str,
    registry: &Registry,
) -> Option<CompileOutcome> {
    compile_recipe_of(loaded.project.as_ref()?, Some(&loaded.trees), id, registry)
}

/// Compiles recipe `id` of `project` with the project's recipes (so its `subrecipe` stages
/// compile), placing diagnostics on the syntax `trees` when given; `None` without that recipe.
pub fn compile_recipe_of(
    project: &Project,
    trees: Option<&BTreeMap<String, Node>>,
    id: &str,
    registry: &Registry,
) -> Option<CompileOutcome> {
    let recipe = project.recipes.get(id)?;
    let file = recipe_file(id);
    let source = RecipeSource {
        file: &file,
        tree: trees.and_then(|trees| trees.get(&file)),
    };
    let docs = ProjectDocs {
        families: &project.families,
        libraries: &project.chunk_libraries,
        recipes: Some(&project.recipes),
        trees,
    };
    Some(compile_in(recipe, docs, registry, source))
}

/// The rulebook's diagnostics for a loaded project (none of them are in `loaded.diagnostics`):
/// the compiler's for every recipe, and the routes of every scenario. Sorted.
///
/// A recipe is not compiled while its own file has an error from reading it (the id does not
/// match the file name), or while a family it reads is in a file that could not be read: those
/// diagnostics explain the problem, and compiling would only report the family as missing.
pub fn check_project(loaded: &LoadedProject, registry: &Registry) -> Vec<Diagnostic> {
    let Some(project) = loaded.project.as_ref() else {
        return Vec::new();
    };
    let unreadable_families: BTreeSet<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| classify(&d.file))
        .filter(|(kind, id)| *kind == DocKind::Family && !project.families.contains_key(id))
        .map(|(_, id)| id)
        .collect();
    let mut found: Vec<Diagnostic> = Vec::new();
    let mut published: BTreeMap<&str, Published> = BTreeMap::new();
    let mut scopes = ProjectScopes::default();
    for (id, recipe) in &project.recipes {
        let file = recipe_file(id);
        let reads_unreadable = recipe.inputs.values().any(|input| {
            matches!(input, RecipeInput::Family(family) if unreadable_families.contains(family))
        });
        if reads_unreadable || loaded.diagnostics_of(&file).any(Diagnostic::is_error) {
            continue;
        }
        if let Some(outcome) = compile_project_recipe(loaded, id, registry) {
            if let Some(plan) = &outcome.plan {
                let ids = Published {
                    routes: plan.routes(),
                    lanes: plan.lanes(),
                };
                published.insert(id.as_str(), ids);
                found.extend(scopes.claim(id, recipe, plan, loaded));
            }
            found.extend(outcome.diagnostics);
        }
    }
    for (id, scenario) in &project.scenarios {
        let file = scenario_file(id);
        let source = RecipeSource {
            file: &file,
            tree: loaded.trees.get(&file),
        };
        found.extend(check_runtime_rules(
            scenario,
            scenario.duration_frames,
            registry.memory_budget_bytes(),
            source,
        ));
        // A recipe that did not compile has its own diagnostics; its routes are unknown.
        if let Some(ids) = published.get(scenario.recipe.as_str()) {
            found.extend(check_routes(scenario, &ids.routes, source));
            found.extend(check_lanes(scenario, &ids.lanes, source));
        }
    }
    found.sort();
    found
}

/// The packed scopes the project's recipes claim, recipe by recipe in id order, so a scope two
/// recipes pack is reported at the second one.
#[derive(Default)]
struct ProjectScopes {
    claimed: BTreeMap<(u32, u32), (String, u32)>,
}

impl ProjectScopes {
    /// Claims the scopes of `plan` (recipe `id`), each stage in file order: a scope another recipe
    /// claimed first is an error at the stage's `room` (or `layer`), naming that recipe's stage.
    fn claim(
        &mut self,
        id: &str,
        recipe: &Recipe,
        plan: &super::CompiledPlan,
        loaded: &LoadedProject,
    ) -> Vec<Diagnostic> {
        let file = recipe_file(id);
        let mut r = Reporter::new(RecipeSource {
            file: &file,
            tree: loaded.trees.get(&file),
        });
        for (index, authored) in recipe.stages.iter().enumerate() {
            let Some(stage) = plan.stages().iter().find(|s| s.id() == authored.id) else {
                continue;
            };
            let first = stage
                .scopes()
                .iter()
                .find_map(|scope| self.claimed.get(scope).map(|owner| (*scope, owner.clone())));
            if let Some((scope, (recipe_id, stage_id))) = first {
                r.error(
                    super::seal::scope_path(index, authored),
                    super::seal::scope_collision(
                        authored.id,
                        scope,
                        &format!("stage {stage_id} of recipe `{recipe_id}`"),
                    ),
                    "a `room` or `layer` no other scatter stage of the project packs",
                );
            }
            for scope in stage.scopes() {
                self.claimed
                    .entry(*scope)
                    .or_insert_with(|| (id.to_owned(), authored.id));
            }
        }
        r.finish()
    }
}

/// What a compiled recipe's stages publish that a scenario names, by their operators' outlines.
struct Published {
    routes: BTreeSet<String>,
    lanes: BTreeSet<String>,
}

/// Reads a project and applies the whole rulebook: [`load_project`]'s diagnostics and
/// [`check_project`]'s, merged and sorted.
pub fn load_and_check(sources: &ProjectSources, registry: &Registry) -> LoadedProject {
    let mut loaded = load_project(sources);
    let checked = check_project(&loaded, registry);
    loaded.diagnostics.extend(checked);
    loaded.diagnostics.sort();
    loaded
}

/// The route ids `recipe`'s stages publish, as their operators declare; empty when the recipe does
/// not compile.
pub fn published_routes(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
) -> BTreeSet<String> {
    let source = RecipeSource {
        file: "",
        tree: None,
    };
    compile(recipe, families, registry, source)
        .plan
        .map(|plan| plan.routes())
        .unwrap_or_default()
}

/// The vehicle lane ids `recipe`'s stages publish (what a vehicle source may drive); empty when
/// the recipe does not compile.
pub fn published_lanes(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
) -> BTreeSet<String> {
    let source = RecipeSource {
        file: "",
        tree: None,
    };
    compile(recipe, families, registry, source)
        .plan
        .map(|plan| plan.lanes())
        .unwrap_or_default()
}

/// The rulebook's diagnostics of a run of `frames` frames of scenario `id` (its compiler's
/// problems, then its work and memory estimate against `registry`'s memory budget), on the
/// scenario's file: what `stagecraft simulate --frames` checks before it runs. Empty when the
/// project has no such scenario.
pub fn check_scenario_run(
    loaded: &LoadedProject,
    id: &str,
    frames: u64,
    registry: &Registry,
) -> Vec<Diagnostic> {
    let Some(scenario) = loaded.project.as_ref().and_then(|p| p.scenarios.get(id)) else {
        return Vec::new();
    };
    let file = scenario_file(id);
    let source = RecipeSource {
        file: &file,
        tree: loaded.trees.get(&file),
    };
    check_runtime_rules(scenario, frames, registry.memory_budget_bytes(), source)
}

/// The simulation's own rules of a scenario (its compiler's, the one place they are written):
/// every problem that would stop `simulate` or the Timeline from building the world, at its
/// field; then its estimate for a run of `frames` frames (`sim::budget`) against the work
/// ceiling and `memory_budget_bytes`.
fn check_runtime_rules(
    scenario: &Scenario,
    frames: u64,
    memory_budget_bytes: u64,
    source: RecipeSource<'_>,
) -> Vec<Diagnostic> {
    let problems = match CompiledScenario::compile(scenario) {
        Ok(compiled) => SimEstimate::of(&compiled, frames).problems(&compiled, memory_budget_bytes),
        Err(refused) => refused.diagnostics,
    };
    let mut r = Reporter::new(source);
    for diagnostic in problems {
        r.error(
            diagnostic.path,
            diagnostic.problem.to_string(),
            diagnostic.problem.expected(),
        );
    }
    r.finish()
}

fn check_routes(
    scenario: &Scenario,
    published: &BTreeSet<String>,
    source: RecipeSource<'_>,
) -> Vec<Diagnostic> {
    let mut r = Reporter::new(source);
    let known: Vec<&str> = published.iter().map(String::as_str).collect();
    for (index, population) in scenario.sources.iter().enumerate() {
        if published.contains(&population.route) {
            continue;
        }
        r.error(
            FieldPath::root()
                .field("sources")
                .index(index)
                .field("route"),
            format!(
                "source `{}` names the missing route `{}`",
                population.id, population.route
            ),
            format!(
                "a route of recipe `{}`: {}",
                scenario.recipe,
                if known.is_empty() {
                    "(it publishes none)".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        );
    }
    r.finish()
}

/// Every vehicle source drives a lane the recipe publishes: the rule the world's builder applies
/// (`SimProblem::MissingLane`, in its words), known here from the operators' outlines.
fn check_lanes(
    scenario: &Scenario,
    published: &BTreeSet<String>,
    source: RecipeSource<'_>,
) -> Vec<Diagnostic> {
    let mut r = Reporter::new(source);
    for (index, vehicles) in scenario.vehicle_sources.iter().enumerate() {
        if published.contains(&vehicles.lane) {
            continue;
        }
        let problem = SimProblem::MissingLane {
            source_id: vehicles.id.clone(),
            lane: vehicles.lane.clone(),
            known: published.iter().cloned().collect(),
        };
        let path = FieldPath::root()
            .field("vehicle_sources")
            .index(index)
            .field("lane");
        r.error(path, problem.to_string(), problem.expected());
    }
    r.finish()
}
