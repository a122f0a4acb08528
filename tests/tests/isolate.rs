//! Lock-and-isolate of a stage's inputs on the example projects: each stage of street-block and
//! pine-clearing (with its author overrides) re-run alone against its frozen inputs, on a cold
//! cache, makes the product bytes and digest of a full generation.

use std::path::Path;

use stagecraft_editor::project_io::load_dir;
use stagecraft_runtime::generate::{
    run_isolated, run_plan_with, CancelToken, ExecutionMode, FrozenInputs, GenerateRequest,
    NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::recipe::{compile, RecipeSource};

/// (stage, ran, product digest equal, product bytes equal) for every stage of `recipe` of
/// example `project`.
fn isolated_stages(project: &str, recipe: &str) -> Vec<(u32, Vec<u32>, bool, bool)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(project);
    let (_, loaded) = load_dir(&dir).expect("readable");
    let project = loaded.project.expect("loads");
    let source = RecipeSource {
        file: "recipe",
        tree: None,
    };
    let registry = Registry::standard();
    let plan = compile(
        &project.recipes[recipe],
        &project.families,
        &registry,
        source,
    )
    .plan
    .expect("compiles");
    let overrides = Overrides::of_recipe(&project, recipe);
    let request = GenerateRequest {
        root_seed: project.manifest.root_seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let cancel = CancelToken::new();
    let mut cache = StageCache::default();
    let full = run_plan_with(
        &plan,
        &request,
        &overrides,
        &mut cache,
        &cancel,
        &NoObserver,
    )
    .expect("generates");
    full.bundle
        .stages
        .iter()
        .map(|record| {
            let frozen = FrozenInputs::freeze(&full.bundle, record.stage).expect("freezes");
            let mut cold = StageCache::default();
            let serial = GenerateRequest {
                mode: ExecutionMode::Serial,
                ..request
            };
            let run = run_isolated(
                &plan,
                &serial,
                &overrides,
                &frozen,
                &mut cold,
                &cancel,
                &NoObserver,
            )
            .expect("runs");
            let alone = &run.bundle.stages[0];
            assert_eq!(
                *run.bundle,
                full.bundle.isolated(record.stage).expect("stage")
            );
            (
                record.stage,
                run.report.ran(),
                alone.digest == record.digest,
                alone.product.canonical_bytes() == record.product.canonical_bytes(),
            )
        })
        .collect()
}

#[test]
fn street_block_stages_rerun_alone_equal_the_full_run() {
    assert_eq!(
        isolated_stages("street-block", "street-block"),
        [
            (1, vec![1], true, true),
            (2, vec![2], true, true),
            (3, vec![3], true, true)
        ]
    );
}

#[test]
fn pine_clearing_stages_with_overrides_rerun_alone_equal_the_full_run() {
    assert_eq!(
        isolated_stages("pine-clearing", "pine-clearing"),
        [
            (1001, vec![1001], true, true),
            (1002, vec![1002], true, true)
        ]
    );
}
