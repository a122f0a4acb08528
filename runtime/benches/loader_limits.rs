//! Benchmark: reading pathological project files at the 1 MiB size limit stays linear — many map
//! keys, many unknown fields, many wrong-type entries, many duplicate keys, deep nesting repeated,
//! one huge string — through `load_project` and the recipe compiler's `check_project`.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;
use stagecraft_runtime::project::*;
use stagecraft_runtime::recipe::check_project;

const MANIFEST: &str =
    "Manifest(\n    schema: 2,\n    name: \"p\",\n    root_seed: 1,\n    recipes: [\"r\"],\n)\n";

/// Repeats `item` (numbered by `{}`) between `head` and `tail` until the text nears 1 MiB.
fn fill(head: &str, item: &str, tail: &str) -> String {
    let mut text = head.to_owned();
    let mut index = 0usize;
    loop {
        let next = item.replace("{}", &index.to_string());
        if text.len() + next.len() + tail.len() > MAX_SOURCE_BYTES {
            break;
        }
        text.push_str(&next);
        index += 1;
    }
    text.push_str(tail);
    text
}

fn recipe(inputs: &str) -> String {
    format!("Recipe(schema: 1, id: \"r\", address_schema: 1, stages: [Stage(id: 1, operator: \"street.block\", algorithm: 1)], outputs: [1], inputs: {{{inputs}}})\n")
}

/// (name, manifest text, recipe text) of each pattern.
fn patterns() -> Vec<(&'static str, String, String)> {
    let plain_recipe = recipe("");
    vec![
        (
            "inputs-map-distinct-keys",
            MANIFEST.to_owned(),
            fill(
                "Recipe(schema: 1, id: \"r\", address_schema: 1, stages: [Stage(id: 1, operator: \"street.block\", algorithm: 1, inputs: [\"k0\"])], outputs: [1], inputs: {",
                "\"k{}\": Value(1), ",
                "})\n",
            ),
        ),
        (
            "manifest-unknown-fields",
            fill("Manifest(schema: 2, name: \"p\", root_seed: 1, recipes: [\"r\"], ", "f{}: 1, ", ")\n"),
            plain_recipe.clone(),
        ),
        (
            "wrong-type-entries",
            fill("Manifest(schema: 2, name: \"p\", root_seed: 1, recipes: [\"r\"], scenarios: [", "{}, ", "])\n"),
            plain_recipe.clone(),
        ),
        (
            "duplicate-keys",
            MANIFEST.to_owned(),
            fill(
                "Recipe(schema: 1, id: \"r\", address_schema: 1, stages: [], outputs: [1], inputs: {",
                "\"k\": Value({}), ",
                "})\n",
            ),
        ),
        (
            "nesting-repeated",
            MANIFEST.to_owned(),
            fill(
                "Recipe(schema: 1, id: \"r\", address_schema: 1, stages: [Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {\"p\": [",
                "[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]], ",
                "]})], outputs: [1])\n",
            ),
        ),
        (
            "one-huge-string",
            MANIFEST.to_owned(),
            fill("Recipe(schema: 1, id: \"r\", label: \"", "x", "\", address_schema: 1, stages: [], outputs: [1])\n"),
        ),
    ]
}

fn load_and_check(manifest: &str, recipe: &str) -> usize {
    let mut sources = ProjectSources::default();
    sources
        .files
        .insert(MANIFEST_FILE.to_owned(), manifest.to_owned());
    sources
        .files
        .insert("recipes/r.recipe.ron".to_owned(), recipe.to_owned());
    let loaded = load_project(&sources);
    let compiled = check_project(&loaded, &Registry::standard());
    loaded.diagnostics.len() + compiled.len()
}

fn bench_patterns(c: &mut Criterion) {
    let mut group = c.benchmark_group("loader_limits");
    group.sample_size(10);
    for (name, manifest, recipe) in patterns() {
        let bytes = (manifest.len() + recipe.len()) as u64;
        let diagnostics = load_and_check(&manifest, &recipe);
        println!("{name}: {bytes} bytes, {diagnostics} diagnostics");
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(name, |b| {
            b.iter(|| black_box(load_and_check(&manifest, &recipe)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_patterns);
criterion_main!(benches);
