//! The benchmarks' big bundle: a 1 km² scatter (1 m lattice, 3 m cells, one candidate each,
//! exclusion radius 1 lattice unit: about 90,000 placements and as many placed objects), shared
//! by the cooking and JSON export benchmarks (`#[path]`-included by each).

use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{load_project, ProjectSources};
use stagecraft_runtime::recipe::compile_project_recipe;

const FAMILY: &str = "AssetFamily(schema: 1, id: \"dots\", name: \"Dots\", variants: [
    Variant(id: \"a\", weight: 1, exclusion_radius: 1, collision_radius_m: 0.1, height_m: 1.0, shape: Box, colour: (1, 2, 3)),
    Variant(id: \"b\", weight: 1, exclusion_radius: 1, collision_radius_m: 0.1, height_m: 1.0, shape: Box, colour: (1, 2, 3)),
])\n";

const RECIPE: &str = "Recipe(schema: 1, id: \"big\", address_schema: 1, inputs: {\"family\": Family(\"dots\")}, stages: [
    Stage(id: 1, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], parameters: {
        \"cell_size\": 3, \"candidates_per_cell\": 1, \"lattice_unit_m\": 1.0, \"region\": (0, 0, 1000, 1000), \"room\": 1, \"layer\": 0}),
    Stage(id: 2, operator: \"environment.select-and-place\", algorithm: 1, inputs: [1], parameters: {
        \"scale_min\": 900, \"scale_max\": 1100, \"scale_unit\": 0.001}),
], outputs: [2])\n";

/// The big bundle generated at root seed `seed`.
pub fn big_bundle(seed: u64) -> GeneratedBundle {
    let mut sources = ProjectSources::default();
    let manifest = "Manifest(schema: 2, name: \"Big\", root_seed: 1, asset_paths: [\"assets\"], recipes: [\"big\"])\n";
    sources
        .files
        .insert("stagecraft.ron".to_owned(), manifest.to_owned());
    sources
        .files
        .insert("recipes/big.recipe.ron".to_owned(), RECIPE.to_owned());
    sources
        .files
        .insert("assets/dots.family.ron".to_owned(), FAMILY.to_owned());
    let loaded = load_project(&sources);
    let outcome = compile_project_recipe(&loaded, "big", &Registry::standard()).expect("recipe");
    let plan = outcome
        .plan
        .unwrap_or_else(|| panic!("{:?}", outcome.diagnostics));
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let generated = run_plan(
        &plan,
        &request,
        &mut StageCache::new(0),
        &CancelToken::new(),
        &NoObserver,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (*generated.bundle).clone()
}
