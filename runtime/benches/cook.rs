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

mod support;
use support::cpu_ms;

#[path = "support/big_bundle.rs"]
mod big_bundle;
use big_bundle::big_bundle;

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
