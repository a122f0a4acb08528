//! Tests of world mutations reaching placements of a subrecipe stage's child run by their nested
//! path (`Mutation(stage: 10, nested: [1], …)`): a harvest or regrow applies to that one
//! placement and not to its twin in the other run, serial = parallel, a mutation that stops
//! applying is reported and warned, and a path below a stage that is no subrecipe is located.

use super::subrecipe_override_tests::{ids, run, shared_target, variant, with_edits};
use super::subrecipe_tests::{errors, load, plan_of};
use crate::generate::{ExecutionMode, Generated, Generator};
use crate::identity::ScatterId;
use crate::overrides::ConflictReason;

fn mutation(stage: u32, nested: &str, target: u64, harvested: bool, ordinal: u32) -> String {
    format!(
        "Mutation(stage: {stage}, target: {target}, harvested: {harvested}, ordinal: {ordinal}, nested: [{nested}])"
    )
}

/// The example generated without edits.
fn plain() -> Generated {
    let loaded = load(&[]);
    let plan = plan_of(&loaded, "street-planting");
    run(&mut Generator::new(), &plan, &loaded, ExecutionMode::Serial)
}

/// The example generated with `mutations`, serially and in parallel (asserted equal).
fn mutated(mutations: &[String]) -> Generated {
    let loaded = with_edits(&[], mutations);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    let plan = plan_of(&loaded, "street-planting");
    let serial = run(&mut Generator::new(), &plan, &loaded, ExecutionMode::Serial);
    let parallel = run(
        &mut Generator::new(),
        &plan,
        &loaded,
        ExecutionMode::Parallel,
    );
    assert_eq!(parallel.bundle, serial.bundle, "serial = parallel");
    assert_eq!(parallel.bundle.digest(), serial.bundle.digest());
    serial
}

#[test]
fn a_harvest_inside_the_child_run_removes_exactly_that_placement() {
    let plain = plain();
    let target = shared_target(&plain);
    let edited = mutated(&[mutation(10, "1", target, true, 0)]);
    let expected: Vec<u64> = ids(&plain, 10)
        .into_iter()
        .filter(|id| *id != target)
        .collect();
    assert_eq!(ids(&edited, 10), expected);
    assert_eq!(ids(&edited, 10).len(), 20);
    // The twin of the side street's run stays, and every other stage is as without the edit.
    assert_eq!(ids(&edited, 20), ids(&plain, 20));
    let digest = |g: &Generated, s: u32| g.bundle.stage(s).map(|r| r.digest);
    for stage in [1, 2, 20] {
        assert_eq!(digest(&edited, stage), digest(&plain, stage), "{stage}");
    }
    assert_ne!(digest(&edited, 10), digest(&plain, 10));
    let outcomes: Vec<_> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.stage, o.target, o.action, o.result.clone()))
        .collect();
    assert_eq!(outcomes, [(10, target, "Harvest", Ok(()))]);

    // The same harvest on the side street's run removes the twin there instead.
    let side = mutated(&[mutation(20, "1", target, true, 0)]);
    assert_eq!(ids(&side, 10), ids(&plain, 10));
    assert_eq!(ids(&side, 20).len(), ids(&plain, 20).len() - 1);
    assert!(!ids(&side, 20).contains(&target));
}

#[test]
fn a_regrow_inside_the_child_run_draws_that_placements_variant() {
    let plain = plain();
    let target = shared_target(&plain);
    let edited = mutated(&[mutation(10, "1", target, false, 1)]);
    // The placement stands where it stood, with the regrow's variant; the twin keeps its own.
    assert_eq!(ids(&edited, 10), ids(&plain, 10));
    assert_eq!(variant(&edited, 20, target), variant(&plain, 20, target));
    let outcomes: Vec<_> = edited.bundle.edit_outcomes().collect();
    assert_eq!(outcomes.len(), 1);
    let o = outcomes[0];
    assert_eq!((o.stage, o.target, o.action), (10, target, "Regrow"));
    assert_eq!(o.result, Ok(()));
    let drawn = variant(&edited, 10, target).expect("placed");
    assert_eq!(o.regrow, Some((1, drawn)));
    // Drawn under the child run's seed (domain 6 at the packed id), from the child's stage base.
    let base = edited
        .bundle
        .stage(10)
        .and_then(|s| s.provenance.nested.as_deref())
        .and_then(|run| run.stage(1))
        .and_then(|s| s.provenance.edit_base.clone())
        .expect("the child scatter stage's base");
    let id = ScatterId::from_bits(target).expect("packed");
    assert_eq!(crate::overrides::regrow_variant(&base, id, 1), Some(drawn));
    assert_ne!(base.seed, SEED_OF_ROOT, "the child run's own seed");
}

const SEED_OF_ROOT: u64 = 5;

#[test]
fn a_mutation_that_stops_applying_inside_a_child_run_is_reported() {
    let plain = plain();
    let target = shared_target(&plain);
    let mut key = ScatterId::from_bits(target).expect("packed").unpack();
    key.candidate = 0;
    key.cell_x = 400;
    let absent = key.pack().bits();
    let loaded = with_edits(
        &[],
        &[
            mutation(10, "7", target, true, 0),
            mutation(10, "1", absent, true, 0),
        ],
    );
    let edited = run(
        &mut Generator::new(),
        &plan_of(&loaded, "street-planting"),
        &loaded,
        ExecutionMode::Serial,
    );
    assert_eq!(ids(&edited, 10), ids(&plain, 10), "nothing applied");
    let outcomes: Vec<(usize, u32, &str, Result<(), ConflictReason>)> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.edit.index, o.stage, o.action, o.result.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (0, 10, "Harvest", Err(ConflictReason::UnsupportedStage)),
            (1, 10, "Harvest", Err(ConflictReason::TargetGone)),
        ]
    );
    let warnings = crate::overrides::diagnose::check_overrides(
        &loaded,
        &crate::ops::registry::Registry::standard(),
    );
    let found: Vec<(String, String)> = warnings
        .iter()
        .map(|d| (d.path.to_string(), d.message.clone()))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "mutations[0]");
    assert!(
        found[0]
            .1
            .contains("(stage 10) does not apply (unsupported-stage)"),
        "{found:?}"
    );
    assert_eq!(found[1].0, "mutations[1]");
    assert!(
        found[1]
            .1
            .contains("(stage 10) does not apply (target-gone)"),
        "{found:?}"
    );
}

#[test]
fn a_mutations_nested_path_below_a_stage_that_is_no_subrecipe_is_a_located_error() {
    let loaded = with_edits(&[], &[mutation(1, "1", 1 << 48, true, 0)]);
    assert_eq!(
        errors(&loaded),
        ["overrides/edits.overrides.ron:3:98 mutations[0].nested: mutation has a nested path below stage 1, which is not a subrecipe stage of recipe `street-planting`"]
    );
}

#[test]
fn a_mutation_without_a_path_keeps_its_bytes_and_the_bundle_digest() {
    let plain = plain();
    // A harvest of the recipe's own stage 1 (a street block, not a scatter stage): unsupported,
    // and written without `nested`.
    let loaded = with_edits(
        &[],
        &["Mutation(stage: 1, target: 7, harvested: true)".to_owned()],
    );
    let project = loaded.project.as_ref().expect("loads");
    let text = crate::project::canonical_text(&project.overrides["edits"]);
    assert!(!text.contains("nested"), "{text}");
    let edited = run(
        &mut Generator::new(),
        &plan_of(&loaded, "street-planting"),
        &loaded,
        ExecutionMode::Serial,
    );
    // Stage 10's child run sees no edit: its product and digest are the plain ones.
    assert_eq!(
        edited.bundle.stage(10).map(|s| s.digest),
        plain.bundle.stage(10).map(|s| s.digest)
    );
}
