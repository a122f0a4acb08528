//! The Diff tab on the subrecipe examples (street-planting, sidewalk-outputs): the document is
//! compiled with the project's recipes, as the generation service compiles it, so comparing with
//! another seed generates the child runs too. The counts are checked against the saved side read
//! as `stagecraft diff` reads it.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::panels::diff::DiffPanel;
use stagecraft_runtime::diff::BundleDiff;
use support::example;

type State = support::PanelState<DiffPanel>;

fn diff_tab(dir: &std::path::Path) -> Harness<'static, State> {
    support::read_only_panel(
        dir,
        egui::vec2(900.0, 600.0),
        3,
        "the Diff tab never edits the project",
        DiffPanel::new,
    )
}

/// Compares with `seed` through the tab's buttons and returns the diff, or the panel's error.
fn compare_with_seed(
    harness: &mut Harness<'static, State>,
    seed: u64,
) -> Result<BundleDiff, String> {
    harness.get_by_label("Seed").click();
    harness.run_steps(1);
    harness.state_mut().panel.seed = seed;
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let panel = &harness.state().panel;
    match (&panel.result, &panel.error) {
        (Some(result), _) => Ok(result.diff.clone()),
        (None, Some(error)) => Err(error.clone()),
        (None, None) => Err("no comparison".to_owned()),
    }
}

/// Checks the saved state and the root seed are identical to the preview; returns the number
/// of objects and the diff against seed 99.
fn check(name: &str, root_seed: u64) -> (u64, BundleDiff) {
    let example = example(name);
    let mut harness = diff_tab(&example.dir);
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let saved = harness
        .state()
        .panel
        .result
        .as_ref()
        .expect("compared")
        .diff
        .clone();
    assert!(saved.is_empty(), "{:?}", saved.counts);
    let objects = saved.counts.unchanged;
    let same = compare_with_seed(&mut harness, root_seed).expect("the root seed generates");
    assert!(same.is_empty(), "{:?}", same.counts);
    assert_eq!(same.counts.unchanged, objects);
    let other = compare_with_seed(&mut harness, 99).expect("seed 99 generates");
    (objects, other)
}

/// Every object of the preview (B) is added, moved, changed or unchanged against seed 99's.
fn assert_b_side_is(objects: u64, diff: &BundleDiff) {
    let c = diff.counts;
    assert_eq!(
        c.added + c.moved + c.changed + c.unchanged,
        objects,
        "{c:?}"
    );
}

#[test]
fn street_planting_compares_with_another_seed_through_its_subrecipes() {
    let (objects, other) = check("street-planting", 5);
    assert_eq!(objects, 71);
    assert_b_side_is(objects, &other);
    let c = other.counts;
    assert_eq!(
        (c.added, c.removed, c.moved, c.changed, c.unchanged),
        (22, 21, 14, 0, 35)
    );
}

#[test]
fn sidewalk_outputs_compares_with_another_seed_through_its_subrecipe() {
    let (objects, other) = check("sidewalk-outputs", 7);
    assert_eq!(objects, 69);
    assert_b_side_is(objects, &other);
    let c = other.counts;
    assert_eq!(
        (c.added, c.removed, c.moved, c.changed, c.unchanged),
        (21, 24, 30, 0, 18)
    );
}
