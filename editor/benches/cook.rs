//! Benchmarks of cooking (`stagecraft cook`, `verify`, `diff`), on disk in a temp folder:
//!
//! - cold cook of each example (empty cache; target ≤ 1 s) and warm cook (every stage a verified
//!   hit, pine-clearing's override-named stages included; target ≤ 100 ms, pine-clearing with its
//!   overrides ≤ 20 ms), bundle written each time;
//! - cold cook of a 1 km² scatter (1 m lattice, 3 m cells, one candidate each, exclusion radius
//!   1 lattice unit: about 110,000 placements);
//! - the identity diff of two 100,000-placement bundles (target ≤ 50 ms);
//! - verify throughput of that bundle (target ≥ 500 MB/s).

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stagecraft_editor::cook::{
    compile_all, cook_project, generate_plan, read_bundle, CookOptions, DEFAULT_BUDGET_BYTES,
};
use stagecraft_editor::service::StageObserver;
use stagecraft_runtime::diff::diff_bundles;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cook(project: &Path, out: &Path, cache: &Path) {
    let options = CookOptions {
        out: Some(out.to_owned()),
        cache: Some(cache.to_owned()),
        seed: None,
        shard: None,
        budget_bytes: DEFAULT_BUDGET_BYTES,
        force: false,
        ..CookOptions::default()
    };
    cook_project(project, &options, &|_, plan| StageObserver::new(plan)).expect("cooks");
}

const BIG_FAMILY: &str = "AssetFamily(schema: 1, id: \"dots\", name: \"Dots\", variants: [
    Variant(id: \"a\", weight: 1, exclusion_radius: 1, collision_radius_m: 0.1, height_m: 1.0, shape: Box, colour: (1, 2, 3)),
    Variant(id: \"b\", weight: 1, exclusion_radius: 1, collision_radius_m: 0.1, height_m: 1.0, shape: Box, colour: (1, 2, 3)),
])\n";

/// A project with one 1 km² scatter (1 m lattice) and select-and-place.
fn big_project(root: &Path, seed: u64) -> PathBuf {
    let dir = root.join(format!("big-{seed}"));
    fs::create_dir_all(dir.join("recipes")).expect("mkdir");
    fs::create_dir_all(dir.join("assets")).expect("mkdir");
    fs::write(dir.join("assets/dots.family.ron"), BIG_FAMILY).expect("family");
    fs::write(
        dir.join("stagecraft.ron"),
        format!("Manifest(schema: 2, name: \"Big\", root_seed: {seed}, asset_paths: [\"assets\"], recipes: [\"big\"])\n"),
    )
    .expect("manifest");
    fs::write(
        dir.join("recipes/big.recipe.ron"),
        "Recipe(schema: 1, id: \"big\", address_schema: 1, inputs: {\"family\": Family(\"dots\")}, stages: [
            Stage(id: 1, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], parameters: {
                \"cell_size\": 3, \"candidates_per_cell\": 1, \"lattice_unit_m\": 1.0, \"region\": (0, 0, 1000, 1000), \"room\": 1, \"layer\": 0}),
            Stage(id: 2, operator: \"environment.select-and-place\", algorithm: 1, inputs: [1], parameters: {
                \"scale_min\": 900, \"scale_max\": 1100, \"scale_unit\": 0.001}),
        ], outputs: [2])\n",
    )
    .expect("recipe");
    dir
}

fn examples(c: &mut Criterion) {
    let temp = tempfile::tempdir().expect("temp");
    let mut group = c.benchmark_group("cook");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for name in ["pine-clearing", "street-block", "tactical-mission"] {
        let project = repo().join("projects").join(name);
        let out = temp.path().join(format!("{name}-out"));
        let mut n = 0;
        group.bench_function(format!("cold/{name}"), |b| {
            b.iter(|| {
                n += 1;
                cook(
                    &project,
                    &out,
                    &temp.path().join(format!("{name}-cold-{n}")),
                );
            })
        });
        let warm = temp.path().join(format!("{name}-warm"));
        cook(&project, &out, &warm);
        group.bench_function(format!("warm/{name}"), |b| {
            b.iter(|| cook(&project, &out, &warm))
        });
    }
    group.finish();
}

fn big(c: &mut Criterion) {
    let temp = tempfile::tempdir().expect("temp");
    let a = big_project(temp.path(), 1);
    let mut group = c.benchmark_group("cook-1km2");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    let out = temp.path().join("big-out");
    let mut n = 0;
    group.bench_function("cold/100k-placements", |b| {
        b.iter(|| {
            n += 1;
            cook(&a, &out, &temp.path().join(format!("big-cold-{n}")));
        })
    });
    let read = read_bundle(&out).expect("verifies");
    let placed = read.manifest.recipes[0].stages[1].elements;
    println!(
        "1 km² scatter: {placed} placements, bundle {} bytes",
        read.bytes_read
    );
    group.throughput(Throughput::Bytes(read.bytes_read));
    group.bench_function("verify", |b| {
        b.iter(|| read_bundle(&out).expect("verifies"))
    });
    group.finish();

    let b_project = big_project(temp.path(), 2);
    let bundle = |p: &Path| {
        let compiled = compile_all(p, &|_| Ok(())).expect("compiles");
        generate_plan(
            &compiled.plans[0].1,
            compiled.root_seed,
            &compiled.overrides_of(&compiled.plans[0].0),
        )
        .expect("generates")
    };
    let (x, y) = (bundle(&a), bundle(&b_project));
    let mut group = c.benchmark_group("diff");
    group.sample_size(10);
    let counts = diff_bundles(&x, &y).counts;
    println!("diff of two 1 km² bundles: {counts:?}");
    group.bench_function("100k-vs-100k", |b| b.iter(|| diff_bundles(&x, &y)));
    group.finish();
}

criterion_group!(benches, examples, big);
criterion_main!(benches);

/// The editor binary's allocator (see `editor/src/main.rs`), so the figures are the product's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
