//! `stagecraft generate` of a scatter at 1, 4 and 16 km², single thread (issue: the seams):
//! the scatter stage's time as the command reports it against the kernel's own time for the
//! same layer in the same run (target ratio ≤ 1.5), and the command's peak resident memory
//! (target ≤ 16 MiB per km²).
//!
//! The layer is the kernel bench's forest (`runtime/benches/scatter.rs`): 1 cm lattice, 4 m
//! cells, 2 candidates per cell, three variants of exclusion radius 1, 1.5 and 3 m (weights
//! 5 : 3 : 1) and a 6 m path across the middle, on a square of the given area. Each size runs
//! the real binary seven times (`generate --serial --json`, which reports its stage times and
//! its peak resident memory) alternating with seven warm runs of the kernel; medians are printed. Not a criterion
//! bench: it measures whole processes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use stagecraft_runtime::ops::scatter::{
    region_cells, scatter, Rect, ScatterParams, ScatterVariant,
};

/// Lattice units per meter (1 cm lattice).
const UNITS_PER_M: i64 = 100;

const FAMILY: &str = "AssetFamily(schema: 1, id: \"forest\", name: \"Forest\", variants: [
    Variant(id: \"small\", weight: 5, exclusion_radius: 100, collision_radius_m: 0.3, height_m: 4.0, shape: Box, colour: (40, 120, 60)),
    Variant(id: \"medium\", weight: 3, exclusion_radius: 150, collision_radius_m: 0.5, height_m: 8.0, shape: Box, colour: (40, 100, 50)),
    Variant(id: \"large\", weight: 1, exclusion_radius: 300, collision_radius_m: 1.0, height_m: 14.0, shape: Box, colour: (30, 80, 40)),
])\n";

/// The square side of `km2` square kilometres, lattice units.
fn side_units(km2: u32) -> i64 {
    (f64::from(km2).sqrt() * 1_000.0) as i64 * UNITS_PER_M
}

/// The path across the middle of a square of side `side`, lattice units.
fn path_across(side: i64) -> Rect {
    Rect::new(
        0,
        side / 2 - 3 * UNITS_PER_M,
        side,
        side / 2 + 3 * UNITS_PER_M,
    )
}

/// A project whose one recipe is the forest on `km2` square kilometres.
fn project(root: &Path, km2: u32) -> PathBuf {
    let dir = root.join(format!("forest-{km2}"));
    fs::create_dir_all(dir.join("recipes")).expect("mkdir");
    fs::create_dir_all(dir.join("assets")).expect("mkdir");
    fs::write(dir.join("assets/forest.family.ron"), FAMILY).expect("family");
    fs::write(
        dir.join("stagecraft.ron"),
        "Manifest(schema: 2, name: \"Forest\", root_seed: 1549426194, asset_paths: [\"assets\"], recipes: [\"forest\"])\n",
    )
    .expect("manifest");
    let side = side_units(km2);
    let path = path_across(side);
    fs::write(
        dir.join("recipes/forest.recipe.ron"),
        format!(
            "Recipe(schema: 1, id: \"forest\", address_schema: 1, inputs: {{\"family\": Family(\"forest\")}}, stages: [
                Stage(id: 1, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], parameters: {{
                    \"cell_size\": 400, \"candidates_per_cell\": 2, \"lattice_unit_m\": 0.01,
                    \"region\": (0, 0, {side}, {side}), \"keep_outs\": [({}, {}, {}, {})], \"room\": 1, \"layer\": 0}}),
            ], outputs: [1])\n",
            path.min_x, path.min_y, path.max_x, path.max_y
        ),
    )
    .expect("recipe");
    dir
}

/// The scatter stage's milliseconds and the peak resident MiB of one `generate` run.
fn generate_once(dir: &Path) -> (f64, f64) {
    let output = Command::new(env!("CARGO_BIN_EXE_stagecraft"))
        .args(["generate", "--serial", "--json"])
        .arg(dir)
        .output()
        .expect("stagecraft runs");
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    let stage_ms = report["recipes"][0]["stages"][0]["ms"]
        .as_f64()
        .expect("the scatter stage's time");
    let peak_mib = report["peak_resident_mib"].as_f64().unwrap_or(f64::NAN);
    (stage_ms, peak_mib)
}

/// The kernel's milliseconds for one run of the same layer.
fn kernel_ms(km2: u32) -> f64 {
    let side = side_units(km2);
    let variant = |weight: u32, radius: i64| ScatterVariant {
        weight,
        exclusion_radius: radius,
    };
    let params = ScatterParams {
        cell_size: 4 * UNITS_PER_M,
        candidates_per_cell: 2,
        region: Rect::new(0, 0, side, side),
        keep_outs: vec![path_across(side)],
        variants: vec![variant(5, 100), variant(3, 150), variant(1, 300)],
        room: 1,
        layer: 0,
    };
    let cells = region_cells(&params).expect("a valid layer");
    let start = Instant::now();
    let output = scatter(&params, 0x5ca7_7e12, cells).expect("scatter");
    std::hint::black_box(output.placements.len());
    start.elapsed().as_secs_f64() * 1e3
}

/// Runs of the command and of the kernel per size.
const RUNS: usize = 7;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The editor binary's allocator, as `stagecraft` itself uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter that skips this bench.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with("--") && !"generate_scale".contains(a.as_str()))
    {
        return;
    }
    let temp = tempfile::tempdir().expect("temp dir");
    for km2 in [1, 4, 16] {
        let dir = project(temp.path(), km2);
        // The kernel once before timing it, so its median is of warm runs; then the command and
        // the kernel alternate, so a machine whose speed drifts slows both alike.
        kernel_ms(km2);
        let (mut runs, mut kernel_runs) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            runs.push(generate_once(&dir));
            kernel_runs.push(kernel_ms(km2));
        }
        let stage = median(runs.iter().map(|r| r.0).collect());
        let peak = median(runs.iter().map(|r| r.1).collect());
        let kernel = median(kernel_runs);
        println!(
            "{km2} km²: generate's scatter stage {stage:.1} ms, kernel {kernel:.1} ms, ratio {:.2}; \
             peak resident {peak:.1} MiB ({:.1} MiB per km²)",
            stage / kernel,
            peak / f64::from(km2),
        );
    }
}
