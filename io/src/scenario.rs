//! A scenario's world, built one way for every caller: the editor's session, `stagecraft
//! simulate` and Python's `Simulation`. The scenario's recipe is generated at the manifest's
//! seed **with the recipe's override sets** (as `generate`, `cook`, `export` and the editor's
//! preview generate it), the runtime turns the products into the simulation's space
//! ([`SimSpace::from_products`]) and builds the world ([`build_world`]) — so after the same frames
//! every caller reports the same state digest.
//!
//! The editor's session takes its content from the generation service (which applies the same
//! override sets through [`recipe_overrides`]) and builds its world with [`world_over`]; the
//! command line and Python go through [`ScenarioContent::generate`].

use std::collections::BTreeMap;
use std::sync::Arc;

use stagecraft_runtime::generate::{
    CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, Generator, NoObserver,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::{AssetFamily, Diagnostic, LoadedProject, Project, Scenario};
use stagecraft_runtime::recipe::compile_project_recipe;
use stagecraft_runtime::sim::config::profiles::ProfileTable;
pub use stagecraft_runtime::sim::scenario::profiles::compile_profiles;
use stagecraft_runtime::sim::{build_world, CompiledScenario, SimSpace, World};
use thiserror::Error;

/// Why a scenario's content or world could not be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScenarioError {
    /// The project, or the scenario's recipe in it, could not be read.
    #[error("the scenario's recipe `{recipe}` could not be read")]
    RecipeUnreadable {
        /// The recipe.
        recipe: String,
    },
    /// The recipe does not compile.
    #[error("the recipe `{recipe}` does not compile")]
    RecipeErrors {
        /// The recipe.
        recipe: String,
        /// The compiler's diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
    /// The generation failed (its message names the failing stage).
    #[error("recipe {recipe}: {message}")]
    Generate {
        /// The recipe.
        recipe: String,
        /// What failed.
        message: String,
    },
    /// The content cannot be simulated or the scenario cannot become a world.
    #[error("{0}")]
    World(String),
    /// The project has no scenario by that id.
    #[error("the project has no scenario `{id}`; its scenarios: {}", known_list(.known))]
    Unknown {
        /// The id asked for.
        id: String,
        /// The project's scenario ids, sorted.
        known: Vec<String>,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "(none)".to_owned()
    } else {
        known.join(", ")
    }
}

/// The scenario `id` of `project`, or an error that lists the project's scenarios (the message
/// `stagecraft simulate` and Python's `Simulation` give).
pub fn find_scenario<'p>(project: &'p Project, id: &str) -> Result<&'p Scenario, ScenarioError> {
    project
        .scenarios
        .get(id)
        .ok_or_else(|| ScenarioError::Unknown {
            id: id.to_owned(),
            known: project.scenarios.keys().cloned().collect(),
        })
}

/// The override sets a generation of recipe `recipe` applies: every set of the project naming
/// it, in id order (the runtime's [`Overrides::of_recipe`]; sets bound to another seed apply
/// nothing and are reported by `check`).
pub fn recipe_overrides(project: &Project, recipe: &str) -> Overrides {
    Overrides::of_recipe(project, recipe)
}

/// The content a scenario runs over, and the space the runtime made of it.
#[derive(Debug, Clone)]
pub struct ScenarioContent {
    /// The scenario's recipe as generated (overrides applied).
    pub bundle: Arc<GeneratedBundle>,
    /// The simulation's space of that content.
    pub space: Arc<SimSpace>,
    /// The scenario.
    pub scenario: Scenario,
    /// The seed of the world (the manifest's root seed).
    pub seed: u64,
    /// The motion profiles of the project (`*.motion.ron` over the standard ones).
    pub profiles: ProfileTable,
}

impl ScenarioContent {
    /// Compiles the scenario's recipe of `loaded` (with `registry`'s operators), generates it at
    /// the manifest's seed with the recipe's override sets, and builds the simulation's space.
    pub fn generate(
        loaded: &LoadedProject,
        scenario: &Scenario,
        registry: &Registry,
    ) -> Result<ScenarioContent, ScenarioError> {
        let recipe = &scenario.recipe;
        let unreadable = || ScenarioError::RecipeUnreadable {
            recipe: recipe.clone(),
        };
        let project = loaded.project.as_ref().ok_or_else(unreadable)?;
        let outcome = compile_project_recipe(loaded, recipe, registry).ok_or_else(unreadable)?;
        let Some(plan) = outcome.plan else {
            return Err(ScenarioError::RecipeErrors {
                recipe: recipe.clone(),
                diagnostics: outcome.diagnostics,
            });
        };
        let seed = project.manifest.root_seed;
        let request = GenerateRequest {
            root_seed: seed,
            mode: ExecutionMode::Parallel,
            generation: 0,
        };
        let overrides = recipe_overrides(project, recipe);
        let generated = Generator::new()
            .generate_with(
                &plan,
                &request,
                &overrides,
                &CancelToken::new(),
                &NoObserver,
            )
            .map_err(|error| ScenarioError::Generate {
                recipe: recipe.clone(),
                message: error.to_string(),
            })?;
        let space = space_of(&generated.bundle, &project.families).map_err(ScenarioError::World)?;
        Ok(ScenarioContent {
            bundle: generated.bundle,
            space: Arc::new(space),
            scenario: scenario.clone(),
            seed,
            profiles: compile_profiles(&project.motions),
        })
    }

    /// A fresh world of the scenario at frame 0 (each call builds a new one).
    pub fn world(&self) -> Result<World, ScenarioError> {
        world_with_profiles(&self.space, &self.scenario, self.seed, &self.profiles)
            .map_err(ScenarioError::World)
    }
}

/// The simulation's space of `bundle`'s products with the collision sizes of `families`, or why
/// the content cannot be simulated.
pub fn space_of(
    bundle: &GeneratedBundle,
    families: &BTreeMap<String, AssetFamily>,
) -> Result<SimSpace, String> {
    SimSpace::from_products(bundle.products(), families).map_err(|e| {
        format!(
            "the content of `{}` cannot be simulated: {e}",
            bundle.recipe_id
        )
    })
}

/// The world of `scenario` over `space`, seeded with `seed`, at frame 0.
pub fn world_over(space: &Arc<SimSpace>, scenario: &Scenario, seed: u64) -> Result<World, String> {
    world_with_profiles(space, scenario, seed, &ProfileTable::standard())
}

/// [`world_over`] with the task peds' motion `profiles` (a project's, [`compile_profiles`]).
pub fn world_with_profiles(
    space: &Arc<SimSpace>,
    scenario: &Scenario,
    seed: u64,
    profiles: &ProfileTable,
) -> Result<World, String> {
    let mut compiled = CompiledScenario::compile(scenario).map_err(|e| e.to_string())?;
    compiled.motion.profiles = profiles.clone();
    build_world(space, &Arc::new(compiled), seed).map_err(|e| e.to_string())
}
