//! The nested-rebase fixture the CLI test and the Rebase dialog's kittest share: the
//! street-planting example with a delete and a harvest of two placements of the main street's
//! child run (`stage: 10, nested: [1]`), their base revisions recorded by `stagecraft rebase
//! --write`, then the subrecipe's lattice moved (cells of 250 instead of 300 units) so neither
//! target stands where it did.

use std::path::Path;

use stagecraft_editor::document::Document;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::generate::{
    CancelToken, ExecutionMode, GenerateRequest, Generator, NoObserver,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::recipe::compile_recipe_of;

use super::{stagecraft, stdout};

/// A placement both child runs emit (the harvest's target).
pub const HARVESTED: u64 = 0x0001_0100_fff9_fffe;

/// The packed ids of the objects stage `stage` of the project at `dir` publishes without edits.
pub fn placements(dir: &Path, stage: u32) -> Vec<u64> {
    placed(dir, stage)
        .into_iter()
        .map(|(id, _, _)| id)
        .collect()
}

/// The packed id and lattice position of each object stage `stage` of the project at `dir`
/// publishes without edits.
pub fn placed(dir: &Path, stage: u32) -> Vec<(u64, i64, i64)> {
    let document = Document::open(dir).expect("opens");
    let plan = compile_recipe_of(
        document.project(),
        None,
        "street-planting",
        &Registry::standard(),
    )
    .and_then(|outcome| outcome.plan)
    .expect("compiles");
    let request = GenerateRequest {
        root_seed: 5,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let generated = Generator::new()
        .generate(&plan, &request, &CancelToken::new(), &NoObserver)
        .expect("generates");
    match generated.bundle.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => placed
            .objects
            .iter()
            .map(|o| (o.placement.id.bits(), o.placement.x, o.placement.y))
            .collect(),
        other => panic!("stage {stage}: {other:?}"),
    }
}

/// Writes the fixture into the example copy at `dir` and returns the deleted placement's id.
pub fn write_moved_fixture(dir: &Path) -> u64 {
    let deleted = placements(dir, 10)
        .into_iter()
        .find(|id| *id != HARVESTED)
        .expect("another placement");
    let set = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: {deleted}, action: Delete, nested: [1])],\n    mutations: [Mutation(stage: 10, target: {HARVESTED}, harvested: true, nested: [1])])\n"
    );
    record_then_move_lattice(dir, &set);
    deleted
}

/// Writes the override set `edits` (the text `set`) into the example copy at `dir` and lists it
/// in the manifest, records its edits' bases with `stagecraft rebase --write`, then moves the
/// subrecipe's lattice (cells of 250 instead of 300 units).
pub fn record_then_move_lattice(dir: &Path, set: &str) {
    std::fs::create_dir_all(dir.join("overrides")).expect("folder");
    std::fs::write(dir.join("overrides/edits.overrides.ron"), set).expect("set");
    let manifest = std::fs::read_to_string(dir.join("stagecraft.ron"))
        .expect("manifest")
        .replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    std::fs::write(dir.join("stagecraft.ron"), manifest).expect("manifest");
    let dir_text = dir.display().to_string();
    let kept = stagecraft(&["rebase", &dir_text, "--write"]);
    assert!(kept.status.success(), "{}", stdout(&kept));
    let child = dir.join("recipes/sidewalk-props.recipe.ron");
    let text = std::fs::read_to_string(&child).expect("child");
    let moved = text.replace("\"cell_size\": 300,", "\"cell_size\": 250,");
    assert_ne!(moved, text, "the fixture moves the lattice");
    std::fs::write(&child, moved).expect("child");
}
