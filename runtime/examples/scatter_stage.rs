//! The scatter stage through the generator against the kernel alone, on a generated square forest
//! of `side` km (1 → 1 km², 2 → 4 km², 4 → 16 km²) at 4 m cells, 2 candidates per cell, the
//! kernel bench's family and path keep-out. Prints both medians and their ratio; `stage-once` runs
//! one generation only, for peak-memory measurements with `/usr/bin/time -v`.
//!
//! `cargo run --release -p stagecraft-runtime --example scatter_stage -- SIDE_KM [compare|stage-once|kernel-once]`

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::ops::scatter::{
    region_cells, scatter, Rect, ScatterParams, ScatterVariant,
};
use stagecraft_runtime::project::{load_project, ProjectSources};
use stagecraft_runtime::recipe::compile_project_recipe;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SEED: u64 = 0x5ca7_7e12;

fn sources(side_km: i64) -> ProjectSources {
    let edge = side_km * 100_000;
    let path = (edge / 2 - 300, edge / 2 + 300);
    let manifest = "Manifest(schema: 2, name: \"forest\", root_seed: 1555398162, asset_paths: [\"assets\"], recipes: [\"forest\"], scenarios: [], overrides: [])\n";
    let family = "AssetFamily(schema: 1, id: \"trees\", name: \"\", variants: [
        Variant(id: \"small\", weight: 5, exclusion_radius: 100, collision_radius_m: 0.3, height_m: 4.0),
        Variant(id: \"mid\", weight: 3, exclusion_radius: 150, collision_radius_m: 0.4, height_m: 8.0),
        Variant(id: \"big\", weight: 1, exclusion_radius: 300, collision_radius_m: 0.6, height_m: 14.0),
    ])\n";
    let recipe = format!(
        "Recipe(schema: 1, id: \"forest\", address_schema: 1, inputs: {{\"family\": Family(\"trees\")}}, stages: [
        Stage(id: 1, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], parameters: {{
            \"candidates_per_cell\": 2, \"cell_size\": 400, \"lattice_unit_m\": 0.01,
            \"region\": (0, 0, {edge}, {edge}), \"keep_outs\": [(0, {}, {edge}, {})]}}),
    ], outputs: [1])\n",
        path.0, path.1
    );
    let files: BTreeMap<String, String> = [
        ("stagecraft.ron".to_owned(), manifest.to_owned()),
        ("assets/trees.family.ron".to_owned(), family.to_owned()),
        ("recipes/forest.recipe.ron".to_owned(), recipe),
    ]
    .into_iter()
    .collect();
    ProjectSources {
        files,
        ..ProjectSources::default()
    }
}

fn kernel_params(side_km: i64) -> ScatterParams {
    let edge = side_km * 100_000;
    let variant = |weight, exclusion_radius| ScatterVariant {
        weight,
        exclusion_radius,
    };
    ScatterParams {
        cell_size: 400,
        candidates_per_cell: 2,
        region: Rect::new(0, 0, edge, edge),
        keep_outs: vec![Rect::new(0, edge / 2 - 300, edge, edge / 2 + 300)],
        variants: vec![variant(5, 100), variant(3, 150), variant(1, 300)],
        room: 1,
        layer: 0,
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let side_km: i64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let mode = args.get(2).map_or("compare", String::as_str);
    let loaded = load_project(&sources(side_km));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let outcome = compile_project_recipe(&loaded, "forest", &Registry::standard());
    let plan = outcome
        .and_then(|o| o.plan)
        .unwrap_or_else(|| panic!("the forest recipe compiles"));
    let request = GenerateRequest {
        root_seed: SEED,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let stage = || {
        let start = Instant::now();
        let generated = run_plan(
            &plan,
            &request,
            &mut StageCache::new(0),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        (start.elapsed(), generated.bundle.object_count())
    };
    let params = kernel_params(side_km);
    let kernel = || {
        let start = Instant::now();
        let cells = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
        let output = scatter(&params, SEED, cells).unwrap_or_else(|e| panic!("{e}"));
        (start.elapsed(), output.placements.len() as u64)
    };
    match mode {
        "stage-once" => {
            let (time, objects) = stage();
            println!("stage: {time:?} ({objects} objects)");
        }
        "kernel-once" => println!("kernel: {:?}", kernel().0),
        _ => {
            let runs = 5;
            let kernel_times: Vec<Duration> = (0..runs).map(|_| kernel().0).collect();
            let stage_times: Vec<Duration> = (0..runs).map(|_| stage().0).collect();
            let (k, s) = (median(kernel_times), median(stage_times));
            println!(
                "{} km²: kernel {:.2} ms, stage {:.2} ms, ratio {:.2} ({} placements)",
                side_km * side_km,
                k.as_secs_f64() * 1e3,
                s.as_secs_f64() * 1e3,
                s.as_secs_f64() / k.as_secs_f64(),
                kernel().1
            );
        }
    }
}
