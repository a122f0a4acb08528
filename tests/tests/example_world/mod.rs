//! The world of one scenario of an example project, at frame 0: the project loaded and checked,
//! and the world built by `stagecraft_io::scenario` — the one constructor the editor's session,
//! `stagecraft simulate` and Python's `Simulation` share (shared by the scenario tests).

use stagecraft_io::scenario::ScenarioContent;
use stagecraft_io::sources::open_project;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::recipe::check_project;
use stagecraft_runtime::sim::World;
use stagecraft_tests::example_project;

/// Scenario `scenario` of example `project`, whose recipe is `recipe`, at frame 0.
pub fn example_world(project: &str, recipe: &str, scenario: &str) -> World {
    let registry = Registry::standard();
    let (_, loaded) = open_project(&example_project(project), &registry).expect("readable");
    assert_eq!(check_project(&loaded, &registry), Vec::new());
    let document = loaded.project.as_ref().expect("loads");
    let scenario = &document.scenarios[scenario];
    assert_eq!(scenario.recipe, recipe);
    ScenarioContent::generate(&loaded, scenario, &registry)
        .expect("generates")
        .world()
        .expect("world")
}
