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

mod support;
use support::cpu_ms;

#[path = "support/big_bundle.rs"]
mod big_bundle;
use big_bundle::big_bundle;

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
