//! Tests of materializing edits of a subrecipe child run's objects (`nested: [1]`): after the
//! child recipe's lattice changes, a moved and locked placement of the main street's run becomes
//! one authored `Add` with the same stage and nested path, read off the child run's own base, and
//! the rebased set makes that object in that run only (the side street's run is unchanged).

use std::collections::BTreeMap;

use super::subrecipe_override_tests::{ids, shared_target};
use super::subrecipe_rebase_tests::{
    child_base, edit, generate, loaded, moved_child, report_of, sets,
};
use super::subrecipe_tests::{load, CHILD};
use crate::content::Product;
use crate::generate::Generated;
use crate::identity::ScatterId;
use crate::overrides::{rebase, Decision, EditList, EditRef, Overrides};
use crate::project::canonical_text;
use crate::project::schema::{OverrideAction, Vec2};

/// The child scatter stage's `lattice_unit_m`.
const UNIT_M: f64 = 0.01;

/// Lattice x, y and variant of object `id` of stage `stage`.
fn placed(generated: &Generated, stage: u32, id: u64) -> Option<(i64, i64, u32)> {
    match generated.bundle.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => placed
            .objects
            .iter()
            .find(|o| o.placement.id.bits() == id)
            .map(|o| (o.placement.x, o.placement.y, o.placement.variant)),
        _ => None,
    }
}

/// A move (to where another placement of the run stands) and a migrated lock of one placement
/// of the main street's run, kept by a rebase on the original child. Returns the set's text, the
/// target and the move's lattice position.
fn authored() -> (String, u64, (i64, i64)) {
    let plain = generate(&load(&[]), &Overrides::default());
    let target = shared_target(&plain);
    // Where another placement of the run in the target's layer (its sidewalk) stands.
    let layer = |id: u64| ScatterId::from_bits(id).map(|s| s.unpack().layer).ok();
    let spot = ids(&plain, 10)
        .into_iter()
        .find(|id| *id != target && layer(*id) == layer(target))
        .and_then(|id| placed(&plain, 10, id))
        .expect("another placement");
    let (x_m, y_m) = (spot.0 as f64 * UNIT_M, spot.1 as f64 * UNIT_M);
    let text = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: {target}, action: Move(position: ({x_m:?}, {y_m:?})), nested: [1]), Override(stage: 10, target: {target}, action: LockSelection(variant: \"\"), nested: [1])])\n"
    );
    let original = loaded(CHILD, &text);
    let kept = rebase(&sets(&original)[0], &report_of(&original), &BTreeMap::new())
        .expect("both edits apply on the original child");
    (canonical_text(&kept), target, (spot.0, spot.1))
}

#[test]
fn a_materialized_nested_move_and_lock_is_one_add_made_in_the_child_run() {
    let (text, target, spot) = authored();
    let original = loaded(CHILD, &text);
    let OverrideAction::LockSelection { variant } = &sets(&original)[0].overrides[1].action else {
        panic!("a lock");
    };
    let variant = variant.clone();
    assert!(
        !variant.is_empty(),
        "the kept lock records the run's variant"
    );

    let moved = loaded(&moved_child(), &text);
    let report = report_of(&moved);
    assert!(
        report
            .entries
            .iter()
            .all(|e| e.standing.name() != "applies"),
        "the lattice moved the target"
    );
    let decisions: BTreeMap<EditRef, Decision> = [0, 1]
        .into_iter()
        .map(|i| (edit(EditList::Override, i), Decision::Materialize))
        .collect();
    let next = rebase(&sets(&moved)[0], &report, &decisions).expect("materializes");
    assert_eq!(next.overrides.len(), 1, "one object for both edits");
    let add = &next.overrides[0];
    let (x_m, y_m) = (spot.0 as f64 * UNIT_M, spot.1 as f64 * UNIT_M);
    assert_eq!(
        (add.stage, add.nested.clone(), &add.action),
        (
            10,
            vec![1],
            &OverrideAction::Add {
                variant: variant.clone(),
                position: Vec2 { x: x_m, y: y_m },
            }
        )
    );
    let id = ScatterId::from_bits(add.target).expect("packed");
    assert!(id.is_authored(), "an identity of the authored space");
    assert_ne!(
        add.target, target,
        "a fresh identity, not the generated target's"
    );
    assert_eq!(add.base, "");

    // The rebased set makes the object in the main street's run, at the recorded spot with the
    // recorded variant; the side street's run is as without edits.
    let rebased = loaded(&moved_child(), &canonical_text(&next));
    let project = rebased.project.as_ref().expect("loads");
    let plain = generate(&rebased, &Overrides::default());
    let edited = generate(&rebased, &Overrides::of_recipe(project, "street-planting"));
    let outcomes: Vec<_> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.edit.to_string(), o.stage, o.target, o.result.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [("edits:overrides[0]".to_owned(), 10, add.target, Ok(()))]
    );
    let mut expected = ids(&plain, 10);
    expected.push(add.target);
    expected.sort_unstable();
    let mut made = ids(&edited, 10);
    made.sort_unstable();
    assert_eq!(made, expected);
    let base_variants = child_base(&edited).variant_ids;
    let (x, y, v) = placed(&edited, 10, add.target).expect("made in the run");
    assert_eq!((x, y), spot);
    assert_eq!(base_variants[v as usize], variant);
    assert_eq!(ids(&edited, 20), ids(&plain, 20));
    assert_eq!(placed(&edited, 20, add.target), None);
    assert_eq!(
        report_of(&rebased).count("applies"),
        1,
        "it applies as made"
    );
}
