//! Tests of author overrides reaching objects of a subrecipe stage's child run by their nested
//! path (`Override(stage: 10, nested: [1], …)`): applied there exactly, in the stage's cache key,
//! visible in the diff, and reported when they stop applying.

use super::subrecipe_tests::{errors, load, plan_of, MANIFEST};
use super::CompiledPlan;
use crate::content::Product;
use crate::diff::{diff_bundles, Change};
use crate::generate::{
    stage_key_parts, CacheOutcome, CancelToken, ExecutionMode, GenerateRequest, Generated,
    Generator, NoObserver,
};
use crate::identity::{ChildKey, ScatterId};
use crate::overrides::{ConflictReason, Overrides};
use crate::project::LoadedProject;

const SEED: u64 = 5;

fn request(mode: ExecutionMode) -> GenerateRequest {
    GenerateRequest {
        root_seed: SEED,
        mode,
        generation: 0,
    }
}

/// The example with override set `edits` holding `overrides` (RON `Override(…)` entries).
fn with_overrides(overrides: &[String]) -> LoadedProject {
    with_edits(overrides, &[])
}

/// The example with override set `edits` holding `overrides` and `mutations` (RON `Override(…)`
/// and `Mutation(…)` entries).
pub(super) fn with_edits(overrides: &[String], mutations: &[String]) -> LoadedProject {
    let set = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some({SEED}),\n    overrides: [{}],\n    mutations: [{}])\n",
        overrides.join(", "),
        mutations.join(", ")
    );
    let manifest = MANIFEST
        .replace("../../assets", "assets")
        .replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    load(&[
        ("stagecraft.ron", &manifest),
        ("overrides/edits.overrides.ron", &set),
    ])
}

pub(super) fn run(
    generator: &mut Generator,
    plan: &CompiledPlan,
    loaded: &LoadedProject,
    mode: ExecutionMode,
) -> Generated {
    let project = loaded.project.as_ref().expect("loads");
    let overrides = Overrides::of_recipe(project, "street-planting");
    generator
        .generate_with(
            plan,
            &request(mode),
            &overrides,
            &CancelToken::new(),
            &NoObserver,
        )
        .expect("generates")
}

/// The packed ids of the objects stage `stage` publishes, in product order.
pub(super) fn ids(generated: &Generated, stage: u32) -> Vec<u64> {
    match generated.bundle.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => placed
            .objects
            .iter()
            .map(|o| o.placement.id.bits())
            .collect(),
        other => panic!("stage {stage}: {other:?}"),
    }
}

/// The variant of object `id` of stage `stage`.
pub(super) fn variant(generated: &Generated, stage: u32, id: u64) -> Option<u32> {
    match generated.bundle.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => placed
            .objects
            .iter()
            .find(|o| o.placement.id.bits() == id)
            .map(|o| o.placement.variant),
        _ => None,
    }
}

fn delete(stage: u32, nested: &str, target: u64) -> String {
    format!("Override(stage: {stage}, target: {target}, action: Delete, nested: [{nested}])")
}

/// A placement of the main street's child run that the side street's also has (same packed id,
/// drawn under the other instance), so an edit that leaked across instances would show.
pub(super) fn shared_target(plain: &Generated) -> u64 {
    let side = ids(plain, 20);
    ids(plain, 10)
        .into_iter()
        .find(|id| side.contains(id))
        .expect("an id both runs emit")
}

#[test]
fn a_delete_inside_the_child_run_removes_exactly_that_object() {
    let plain_loaded = load(&[]);
    let plan = plan_of(&plain_loaded, "street-planting");
    let plain = run(
        &mut Generator::new(),
        &plan,
        &plain_loaded,
        ExecutionMode::Serial,
    );
    let target = shared_target(&plain);
    let loaded = with_overrides(&[delete(10, "1", target)]);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    let plan = plan_of(&loaded, "street-planting");
    let edited = run(&mut Generator::new(), &plan, &loaded, ExecutionMode::Serial);
    let parallel = run(
        &mut Generator::new(),
        &plan,
        &loaded,
        ExecutionMode::Parallel,
    );
    assert_eq!(parallel.bundle, edited.bundle);

    // Exactly that object of the main street's run is gone; the side street's twin stays.
    let expected: Vec<u64> = ids(&plain, 10)
        .into_iter()
        .filter(|id| *id != target)
        .collect();
    assert_eq!(ids(&edited, 10), expected);
    assert_eq!(ids(&edited, 10).len(), 20);
    assert_eq!(ids(&edited, 20), ids(&plain, 20));
    let digest = |g: &Generated, s: u32| g.bundle.stage(s).map(|r| r.digest);
    for stage in [1, 2, 20] {
        assert_eq!(
            digest(&edited, stage),
            digest(&plain, stage),
            "stage {stage}"
        );
    }
    assert_ne!(digest(&edited, 10), digest(&plain, 10));
    assert_ne!(edited.bundle.digest(), plain.bundle.digest());

    // Reported as applied, as stage 10's.
    let outcomes: Vec<_> = edited.bundle.edit_outcomes().collect();
    assert_eq!(outcomes.len(), 1);
    assert_eq!(
        (outcomes[0].stage, outcomes[0].target, outcomes[0].action),
        (10, target, "Delete")
    );
    assert_eq!(outcomes[0].result, Ok(()));
    assert!(outcomes[0].found_base.is_some());

    // The diff names exactly that object, removed from stage 10.
    let diff = diff_bundles(&plain.bundle, &edited.bundle);
    let rows: Vec<(u32, ChildKey, bool)> = diff
        .entries()
        .map(|e| {
            let object = e.object().expect("a side");
            (
                object.stage,
                object.key.clone(),
                e.change == Change::Removed,
            )
        })
        .collect();
    let key = ChildKey::Scatter(ScatterId::from_bits(target).expect("packed"));
    assert_eq!(rows, [(10, key.clone(), true)]);
    // Its nested identity: the child instance of stage 10.
    let identity = plain.bundle.identity(10, &key).expect("identity");
    assert_eq!(
        identity.recipe_instance.0,
        "street-planting/10:sidewalk-props"
    );
}

#[test]
fn the_stage_key_holds_its_child_runs_edits_and_a_warm_run_hits_the_cache() {
    let plain_loaded = load(&[]);
    let plain_plan = plan_of(&plain_loaded, "street-planting");
    let plain = run(
        &mut Generator::new(),
        &plain_plan,
        &plain_loaded,
        ExecutionMode::Serial,
    );
    let target = shared_target(&plain);
    let loaded = with_overrides(&[delete(10, "1", target)]);
    let plan = plan_of(&loaded, "street-planting");
    let project = loaded.project.as_ref().expect("loads");
    let overrides = Overrides::of_recipe(project, "street-planting");
    let upstream = |id: u32| plain.bundle.stage(id).map(|s| s.digest);
    let key = |stage: u32, overrides: &Overrides| {
        let compiled = plan.stage(stage).expect("stage");
        stage_key_parts(&plan, compiled, SEED, overrides, &upstream).expect("parts")
    };
    let (edited, none) = (key(10, &overrides), key(10, &Overrides::none()));
    assert!(edited.edits.is_some());
    assert_eq!(none.edits, None);
    assert_ne!(edited.key(), none.key());
    // The side street's stage is keyed as without the edit.
    assert_eq!(key(20, &overrides).key(), key(20, &Overrides::none()).key());
    // Another target, another key.
    let other = with_overrides(&[delete(10, "1", ids(&plain, 10)[0])]);
    let other = Overrides::of_recipe(other.project.as_ref().expect("loads"), "street-planting");
    assert_ne!(key(10, &other).key(), edited.key());

    // A warm run of the edited project is served from the cache, stage 10 included.
    let mut generator = Generator::new();
    let cold = run(&mut generator, &plan, &loaded, ExecutionMode::Serial);
    assert_eq!(cold.report.hits(), 0);
    let warm = run(&mut generator, &plan, &loaded, ExecutionMode::Serial);
    assert!(warm
        .report
        .stages
        .iter()
        .all(|s| s.cache == CacheOutcome::Hit));
    assert_eq!(warm.bundle, cold.bundle);
}

#[test]
fn lock_and_replace_inside_the_child_run_set_the_variant() {
    let plain_loaded = load(&[]);
    let plan = plan_of(&plain_loaded, "street-planting");
    let plain = run(
        &mut Generator::new(),
        &plan,
        &plain_loaded,
        ExecutionMode::Serial,
    );
    let target = shared_target(&plain);
    let before = variant(&plain, 10, target).expect("variant");
    // Variants of street-props: bench 0, bin 1, lamp 2, planter 3.
    let names = ["bench", "bin", "lamp", "planter"];
    let other = (before + 1) % 4;
    let replace = format!(
        "Override(stage: 10, target: {target}, action: Replace(variant: \"{}\"), nested: [1])",
        names[other as usize]
    );
    let loaded = with_overrides(&[replace]);
    let edited = run(
        &mut Generator::new(),
        &plan_of(&loaded, "street-planting"),
        &loaded,
        ExecutionMode::Serial,
    );
    assert_eq!(variant(&edited, 10, target), Some(other));
    assert_eq!(variant(&edited, 20, target), variant(&plain, 20, target));
    let outcomes: Vec<_> = edited.bundle.edit_outcomes().collect();
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0].result, Ok(()));

    let lock = format!(
        "Override(stage: 20, target: {target}, action: LockSelection(variant: \"{}\"), nested: [1])",
        names[before as usize]
    );
    let loaded = with_overrides(&[lock]);
    let locked = run(
        &mut Generator::new(),
        &plan_of(&loaded, "street-planting"),
        &loaded,
        ExecutionMode::Serial,
    );
    assert_eq!(variant(&locked, 20, target), Some(before));
    assert_eq!(ids(&locked, 10), ids(&plain, 10));
    let outcomes: Vec<_> = locked.bundle.edit_outcomes().collect();
    assert_eq!((outcomes[0].stage, &outcomes[0].result), (20, &Ok(())));
}

#[test]
fn an_edit_that_stops_applying_inside_a_child_run_is_reported() {
    let plain_loaded = load(&[]);
    let plan = plan_of(&plain_loaded, "street-planting");
    let plain = run(
        &mut Generator::new(),
        &plan,
        &plain_loaded,
        ExecutionMode::Serial,
    );
    let target = shared_target(&plain);
    // Deleted twice over: by a path to a stage the child lacks, and to an object gone.
    let gone = ScatterId::from_bits(target).expect("packed");
    let mut key = gone.unpack();
    key.candidate = 0;
    key.cell_x = 400;
    let absent = key.pack().bits();
    let loaded = with_overrides(&[delete(10, "7", target), delete(10, "1", absent)]);
    let edited = run(
        &mut Generator::new(),
        &plan_of(&loaded, "street-planting"),
        &loaded,
        ExecutionMode::Serial,
    );
    assert_eq!(ids(&edited, 10), ids(&plain, 10), "nothing applied");
    let outcomes: Vec<(usize, u32, Result<(), ConflictReason>)> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.edit.index, o.stage, o.result.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (0, 10, Err(ConflictReason::UnsupportedStage)),
            (1, 10, Err(ConflictReason::TargetGone)),
        ]
    );
    // `check` warns at each entry of the overrides file.
    let warnings = crate::overrides::diagnose::check_overrides(
        &loaded,
        &crate::ops::registry::Registry::standard(),
    );
    let found: Vec<(u32, String)> = warnings
        .iter()
        .map(|d| (d.line, d.message.clone()))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0]
            .1
            .contains("(stage 10) does not apply (unsupported-stage)"),
        "{found:?}"
    );
    assert!(
        found[1]
            .1
            .contains("(stage 10) does not apply (target-gone)"),
        "{found:?}"
    );
}

#[test]
fn a_nested_path_below_a_stage_that_is_no_subrecipe_is_a_located_error() {
    let loaded = with_overrides(&[delete(1, "1", 1 << 48)]);
    assert_eq!(
        errors(&loaded),
        ["overrides/edits.overrides.ron:2:85 overrides[0].nested: override has a nested path below stage 1, which is not a subrecipe stage of recipe `street-planting`"]
    );
    // Written only when given: a set without nested paths keeps its canonical text.
    let project = loaded.project.as_ref().expect("loads");
    let text = crate::project::canonical_text(&project.overrides["edits"]);
    assert!(
        text.contains("nested: [\n                1,\n            ],"),
        "{text}"
    );
    let plain = with_overrides(&["Override(stage: 10, target: 1, action: Delete)".to_owned()]);
    let text =
        crate::project::canonical_text(&plain.project.as_ref().expect("loads").overrides["edits"]);
    assert!(!text.contains("nested"), "{text}");
}
