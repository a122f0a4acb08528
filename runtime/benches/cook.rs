//! Cooking benchmarks over bytes, on a 1 km² scatter (1 m lattice, 3 m cells, one candidate
//! each, exclusion radius 1 lattice unit: about 90,000 placements and as many placed objects):
//!
//! - the identity diff of two such bundles (different seeds; target ≤ 50 ms);
//! - verifying the cooked product files (`cook::check_product`: file digest, header, decoding,
//!   canonical re-encoding, product digest), serial (target ≥ 500 MB/s).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use stagecraft_runtime::cook::{check_product, cook_recipe};
use stagecraft_runtime::diff::diff_bundles;
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
    let (a, b) = (big_bundle(1), big_bundle(2));
    let objects = cpu_ms(10, || {
        black_box(stagecraft_runtime::diff::bundle_objects(&a));
    });
    let (oa, ob) = (
        stagecraft_runtime::diff::bundle_objects(&a),
        stagecraft_runtime::diff::bundle_objects(&b),
    );
    let merge = cpu_ms(10, || {
        black_box(stagecraft_runtime::diff::diff_objects(
            oa.clone(),
            ob.clone(),
        ));
    });
    let whole = cpu_ms(10, || {
        black_box(diff_bundles(&a, &b));
    });
    println!("CPU time per call: objects of one bundle {objects:?} ms, diff of the objects (copying them in) {merge:?} ms, whole diff {whole:?} ms");
    let counts = diff_bundles(&a, &b).counts;
    println!(
        "diff of two 1 km² bundles ({} objects each): {counts:?}",
        a.object_count()
    );
    let mut group = c.benchmark_group("diff");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    group.bench_function("100k-vs-100k", |bench| {
        bench.iter(|| black_box(diff_bundles(&a, &b)))
    });
    group.bench_function("identical-100k", |bench| {
        bench.iter(|| black_box(diff_bundles(&a, &a)))
    });
    group.finish();

    let (recipe, files) = cook_recipe(&a);
    let bytes: u64 = files.iter().map(|(_, f)| f.len() as u64).sum();
    println!("cooked product files: {bytes} bytes");
    let check_all = || {
        for (stage, (_, file)) in recipe.stages.iter().zip(&files) {
            black_box(check_product(stage, file).expect("valid"));
        }
    };
    if let Some(ms) = cpu_ms(10, check_all) {
        println!(
            "CPU time per verify: {ms:.2} ms = {:.0} MB/s",
            bytes as f64 / 1e6 / (ms / 1e3)
        );
    }
    let mut group = c.benchmark_group("verify");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("check-products", |bench| {
        bench.iter(|| {
            for (stage, (_, file)) in recipe.stages.iter().zip(&files) {
                black_box(check_product(stage, file).expect("valid"));
            }
        })
    });
    group.finish();
    c.final_summary();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
