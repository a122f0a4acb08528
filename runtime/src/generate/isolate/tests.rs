//! Tests of isolated re-runs against frozen inputs on the synthetic street recipe.

use super::*;
use crate::generate::tests::{plan, request, street_text, PLACE, SCATTER};
use crate::generate::{run_plan, NoObserver};

fn full(plan: &CompiledPlan, cache: &mut StageCache) -> Generated {
    let req = request(ExecutionMode::Serial);
    run_plan(plan, &req, cache, &CancelToken::new(), &NoObserver).expect("full")
}

fn isolated(
    plan: &CompiledPlan,
    frozen: &FrozenInputs,
    cache: &mut StageCache,
) -> Result<Generated, GenerateError> {
    let req = request(ExecutionMode::Parallel);
    let (none, cancel) = (Overrides::none(), CancelToken::new());
    run_isolated(plan, &req, &none, frozen, cache, &cancel, &NoObserver)
}

use crate::generate::ExecutionMode;

/// Each stage re-run alone on a cold cache against its frozen inputs is the full run's stage,
/// byte for byte, with the full run's cache key; on the full run's cache it is a hit.
#[test]
fn an_isolated_stage_is_the_full_runs_stage_byte_for_byte() {
    let plan = plan(&street_text(SCATTER, PLACE));
    let mut warm = StageCache::default();
    let generated = full(&plan, &mut warm);
    for stage in [1, 2, 3] {
        let frozen = FrozenInputs::freeze(&generated.bundle, stage).expect("freezes");
        let expected_inputs: Vec<u32> = generated
            .bundle
            .stage(stage)
            .expect("s")
            .dependencies
            .clone();
        assert_eq!(
            frozen
                .inputs()
                .iter()
                .map(|(id, _)| *id)
                .collect::<Vec<_>>(),
            expected_inputs
        );
        let mut cold = StageCache::default();
        let run = isolated(&plan, &frozen, &mut cold).expect("runs");
        assert_eq!(run.report.ran(), vec![stage]);
        let expected = generated.bundle.isolated(stage).expect("stage");
        assert_eq!(*run.bundle, expected);
        assert_eq!(run.bundle.digest(), expected.digest());
        assert_eq!(
            run.bundle.stages[0].product.canonical_bytes(),
            expected.stages[0].product.canonical_bytes()
        );
        assert_eq!(cold.len(), 1, "only the isolated stage is cached");
        let hit = isolated(&plan, &frozen, &mut warm).expect("hit");
        assert_eq!(hit.report.hits(), 1);
        assert_eq!(*hit.bundle, expected);
    }
    assert!(FrozenInputs::freeze(&generated.bundle, 9).is_none());
}

/// Editing the isolated stage's parameter changes its output (as a full run of the edited
/// recipe makes it); editing an upstream stage does not reach it, and is reported as changed.
#[test]
fn the_isolated_stage_follows_its_own_edits_and_not_upstream_ones() {
    let before = plan(&street_text(SCATTER, PLACE));
    let mut cache = StageCache::default();
    let generated = full(&before, &mut cache);
    let frozen = FrozenInputs::freeze(&generated.bundle, 3).expect("freezes");
    assert_eq!(
        frozen.inputs(),
        vec![(2, generated.bundle.stage(2).expect("2").digest)]
    );
    assert_eq!(frozen.short_digest().len(), 8);
    assert!(frozen.changed_upstream(&generated.bundle).is_empty());
    let original = generated.bundle.stage(3).expect("3").digest;
    // The isolated stage's own parameter.
    let scaled = plan(&street_text(
        SCATTER,
        "\"scale_min\": 500, \"scale_max\": 700",
    ));
    let run = isolated(&scaled, &frozen, &mut cache).expect("runs");
    assert_ne!(run.bundle.stages[0].digest, original);
    let edited_full = full(&scaled, &mut cache);
    assert_eq!(*run.bundle, edited_full.bundle.isolated(3).expect("3"));
    // An upstream edit: the scatter draws more candidates; stage 3 keeps its frozen input.
    let denser = plan(&street_text(
        "\"cell_size\": 300, \"candidates_per_cell\": 4",
        PLACE,
    ));
    let live = full(&denser, &mut cache);
    assert_ne!(live.bundle.stage(3).expect("3").digest, original);
    assert_eq!(frozen.changed_upstream(&live.bundle), vec![2]);
    let run = isolated(&denser, &frozen, &mut cache).expect("runs");
    assert_eq!(run.bundle.stages[0].digest, original);
    // The same stage record and bundle digest (the recipe text, hence its source digest, moved).
    let kept = generated.bundle.isolated(3).expect("3");
    assert_eq!(run.bundle.stages, kept.stages);
    assert_eq!(run.bundle.digest(), kept.digest());
    // Another freeze of the same products has the same digest; of other products, another.
    let again = FrozenInputs::freeze(&generated.bundle, 3).expect("again");
    assert_eq!(again.digest(), frozen.digest());
    let other = FrozenInputs::freeze(&live.bundle, 3).expect("other");
    assert_ne!(other.digest(), frozen.digest());
}

/// A rewired stage is refused at its port: it reads a stage whose product was not frozen, or
/// its port takes another kind than the frozen product.
#[test]
fn a_rewired_stage_is_a_located_error() {
    let base = plan(&street_text(SCATTER, PLACE));
    let mut cache = StageCache::default();
    let generated = full(&base, &mut cache);
    let frozen = FrozenInputs::freeze(&generated.bundle, 3).expect("freezes");
    let recipe = |stages: &str| {
        format!(
            "Recipe(schema: 1, id: \"street\", address_schema: 1, \
             inputs: {{\"props\": Family(\"props\")}}, stages: [{stages}], outputs: [3])"
        )
    };
    // Stage 3 now reads stage 4, a second scatter.
    let rewired_text = recipe(
        "Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {}),
         Stage(id: 2, operator: \"environment.scatter\", algorithm: 1, inputs: [1, \"props\"],
               parameters: {\"cell_size\": 300}),
         Stage(id: 4, operator: \"environment.scatter\", algorithm: 1, inputs: [1, \"props\"],
               parameters: {\"cell_size\": 300, \"room\": 2}),
         Stage(id: 3, operator: \"environment.select-and-place\", algorithm: 1, inputs: [4],
               parameters: {})",
    );
    let rewired = plan(&rewired_text.replace("outputs: [3]", "outputs: [2, 3]"));
    let error = isolated(&rewired, &frozen, &mut cache).expect_err("rewired");
    assert_eq!(error.failures.len(), 1);
    let failure = &error.failures[0];
    assert_eq!(
        (failure.stage, failure.kind, failure.field.as_deref()),
        (Some(3), FailureKind::InvalidInput, Some("placements"))
    );
    assert_eq!(
        failure.message,
        "port `placements` reads stage 4, whose product was not frozen (frozen: stage 2); \
         release and isolate again"
    );
    // Stage 3 is now a scatter over stage 2, now the street block: its `areas` port takes a
    // StreetBlock, the frozen stage 2 is Placements.
    let retyped = plan(&recipe(
        "Stage(id: 2, operator: \"street.block\", algorithm: 1, parameters: {}),
         Stage(id: 3, operator: \"environment.scatter\", algorithm: 1, inputs: [2, \"props\"],
               parameters: {\"cell_size\": 300})",
    ));
    let error = isolated(&retyped, &frozen, &mut cache).expect_err("retyped");
    assert_eq!(error.failures.len(), 1);
    assert_eq!(error.failures[0].field.as_deref(), Some("areas"));
    assert_eq!(
        error.failures[0].message,
        "port `areas` takes a StreetBlock, but the frozen input from stage 2 is a Placements; \
         release and isolate again"
    );
    // The stage gone, or another recipe.
    let gone = plan(
        &recipe("Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {})")
            .replace("outputs: [3]", "outputs: [1]"),
    );
    let error = isolated(&gone, &frozen, &mut cache).expect_err("gone");
    assert_eq!(
        error.failures[0].to_string(),
        "stage 3: invalid-input: stage 3 is no longer in recipe `street`: release its isolation"
    );
    let mut elsewhere = frozen.clone();
    elsewhere.recipe = "elsewhere".to_owned();
    let error = isolated(&base, &elsewhere, &mut cache).expect_err("other recipe");
    assert_eq!(error.failures[0].stage, None);
    assert!(error.failures[0]
        .message
        .contains("frozen for recipe `elsewhere`"));
}
