//! The world of one scenario of an example project, at frame 0: the project loaded and checked,
//! its recipe generated serially at the manifest's seed, and the simulation built from the
//! generated content (shared by the scenario tests).

use std::sync::Arc;

use stagecraft_editor::project_io::load_dir;
use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::recipe::{check_project, compile_project_recipe};
use stagecraft_runtime::sim::{build_world, CompiledScenario, SimSpace, World};
use stagecraft_tests::example_project;

/// Scenario `scenario` of example `project`, whose recipe is `recipe`, at frame 0.
pub fn example_world(project: &str, recipe: &str, scenario: &str) -> World {
    let (_, loaded) = load_dir(&example_project(project)).expect("readable");
    let registry = Registry::standard();
    assert_eq!(check_project(&loaded, &registry), Vec::new());
    let document = loaded.project.as_ref().expect("loads");
    let outcome = compile_project_recipe(&loaded, recipe, &registry).expect("recipe");
    let request = GenerateRequest {
        root_seed: document.manifest.root_seed,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let generated = run_plan(
        &outcome.plan.expect("compiles"),
        &request,
        &mut StageCache::default(),
        &CancelToken::new(),
        &NoObserver,
    )
    .expect("generates");
    let space = SimSpace::from_products(generated.bundle.products(), &document.families)
        .expect("simulable");
    let compiled = CompiledScenario::compile(&document.scenarios[scenario]).expect("compiles");
    build_world(
        &Arc::new(space),
        &Arc::new(compiled),
        document.manifest.root_seed,
    )
    .expect("world")
}
