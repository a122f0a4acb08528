//! JSON export benchmark: a 1 km² bundle (1 m lattice, 3 m cells, one candidate each: about
//! 90,000 scatter placements with their rejected candidates, and as many placed objects) as the
//! JSON document of `stagecraft export --format json` (`export::json::bundle_json_text`), and
//! the document alone (`bundle_json`, before printing).

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::{cook_recipe, CookedManifest};
use stagecraft_runtime::export::json::{bundle_json, bundle_json_text};
use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{load_project, ProjectSources};
use stagecraft_runtime::recipe::compile_project_recipe;

mod support;
use support::cpu_ms;

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

fn big_bundle(seed: u64) -> GeneratedBundle {
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

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let bundle = big_bundle(1);
    let manifest = CookedManifest {
        project: "Big".to_owned(),
        root_seed: 1,
        families: Default::default(),
        overrides: Default::default(),
        recipes: vec![cook_recipe(&bundle).0],
    };
    let products: Vec<Product> = bundle.stages.iter().map(|s| (*s.product).clone()).collect();
    let text = bundle_json_text(&manifest, &products).expect("exports");
    println!(
        "{} objects: {} bytes of JSON",
        bundle.object_count(),
        text.len()
    );
    let document = cpu_ms(5, || {
        black_box(bundle_json(&manifest, &products).expect("exports"));
    });
    let whole = cpu_ms(5, || {
        black_box(bundle_json_text(&manifest, &products).expect("exports"));
    });
    println!("CPU time per call: document {document:?} ms, document and text {whole:?} ms");
    let mut group = c.benchmark_group("export-json");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(6));
    group.bench_function("document-100k", |bench| {
        bench.iter(|| black_box(bundle_json(&manifest, &products)))
    });
    group.bench_function("text-100k", |bench| {
        bench.iter(|| black_box(bundle_json_text(&manifest, &products)))
    });
    group.finish();
    c.final_summary();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
