//! The Diff tab driven through kittest: the preview against the saved state (identical), against
//! another seed (objects added and removed, counts toggled), and against a cooked bundle;
//! clicking an entry selects its object and asks the Viewport to frame it.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::panels::diff::{Against, DiffPanel};
use stagecraft_editor::viewport::DiffMarkKind;
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

#[test]
fn the_saved_state_is_identical_and_another_seed_adds_and_removes_objects() {
    let example = example("pine-clearing");
    let mut harness = diff_tab(&example.dir);
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let result = harness.state().panel.result.as_ref().expect("compared");
    assert!(result.diff.is_empty(), "{:?}", result.diff.counts);
    assert!(
        result.diff.counts.unchanged > 100,
        "{:?}",
        result.diff.counts
    );
    assert!(harness
        .query_by_label_contains("The two generations are identical.")
        .is_some());

    harness.get_by_label("Seed").click();
    harness.run_steps(1);
    harness.state_mut().panel.seed = 99;
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let counts = harness
        .state()
        .panel
        .result
        .as_ref()
        .expect("compared")
        .diff
        .counts;
    assert!(counts.added > 0 && counts.removed > 0, "{counts:?}");
    let marks = harness.state().preview.borrow().diff_marks.len() as u64;
    assert!(marks > 0 && marks <= counts.added + counts.removed + counts.moved + counts.changed);

    // Hiding "removed" hides its marks too.
    harness
        .get_by_label_contains(&format!("removed {}", counts.removed))
        .click();
    harness.run_steps(2);
    let removed_marks = harness
        .state()
        .preview
        .borrow()
        .diff_marks
        .iter()
        .filter(|m| m.kind == DiffMarkKind::Removed)
        .count();
    assert_eq!(removed_marks, 0);

    // Each row names the asset (family/variant) and the position, read here from the products.
    let (added_row, removed_row) = first_rows(&harness);
    assert!(
        added_row.starts_with("added · alpine-trees/"),
        "{added_row}"
    );
    assert!(
        removed_row.starts_with("removed · alpine-trees/"),
        "{removed_row}"
    );
    assert!(
        harness.query_by_label(&added_row).is_some(),
        "the list shows {added_row}"
    );
    harness
        .get_by_label_contains(&format!("removed {}", counts.removed))
        .click();
    harness.run_steps(2);
    assert!(
        harness.query_by_label(&removed_row).is_some(),
        "the list shows {removed_row}"
    );

    // Clicking an added entry selects its object and asks for framing.
    harness.get_by_label(&added_row).click();
    harness.run_steps(2);
    let preview = harness.state().preview.borrow();
    assert!(preview.selected.is_some(), "the entry's object is selected");
    assert!(
        preview.frame_request.is_some(),
        "and the Viewport is asked to frame it"
    );
}

#[test]
fn a_missing_bundle_folder_is_a_clear_error() {
    let example = example("pine-clearing");
    let mut harness = diff_tab(&example.dir);
    harness.get_by_label("Cooked bundle").click();
    harness.run_steps(1);
    harness.state_mut().panel.bundle_path =
        example.dir.join("no-such-bundle").display().to_string();
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let error = harness.state().panel.error.clone().expect("an error");
    assert!(error.contains("no-such-bundle"), "{error}");
    assert!(harness.state().panel.result.is_none());
    assert_eq!(harness.state().panel.against, Against::Bundle);
}

#[test]
fn a_cook_of_the_same_project_is_identical_to_the_preview() {
    let example = example("pine-clearing");
    let out = example.dir.join("cooked");
    let cooked = support::stagecraft(&[
        "cook",
        example.dir.to_str().expect("utf-8 path"),
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    assert!(
        cooked.status.success(),
        "{}",
        String::from_utf8_lossy(&cooked.stderr)
    );
    let mut harness = diff_tab(&example.dir);
    harness.get_by_label("Cooked bundle").click();
    harness.run_steps(1);
    harness.state_mut().panel.bundle_path = out.display().to_string();
    harness.get_by_label("Compare").click();
    harness.run_steps(2);
    let panel = &harness.state().panel;
    assert_eq!(panel.error, None);
    let result = panel.result.as_ref().expect("compared");
    assert!(result.diff.is_empty(), "{:?}", result.diff.counts);
    assert!(result.diff.counts.unchanged > 100);
}

/// The expected rows of the first added and the first removed entry, written from the products
/// of each side: `family/variant` from the stage's variant list, the position to 2 decimals, the
/// identity in hex.
fn first_rows(harness: &Harness<'static, State>) -> (String, String) {
    use stagecraft_runtime::content::Product;
    use stagecraft_runtime::diff::Change;
    let result = harness.state().panel.result.as_ref().expect("compared");
    let preview = harness.state().preview.borrow();
    let content = preview.session.content().expect("generated");
    let row = |change: Change, variants: &dyn Fn(u32) -> (String, Vec<String>)| {
        let entry = result
            .diff
            .entries()
            .find(|e| e.change == change)
            .expect("an entry of the kind");
        let object = entry.object().expect("an object");
        let (family, ids) = variants(object.stage);
        let variant = &ids[object.variant.expect("a placement") as usize];
        let at = object.position_m.expect("placed");
        let stagecraft_runtime::identity::ChildKey::Scatter(id) = object.key else {
            panic!("a scatter key");
        };
        format!(
            "{} · {family}/{variant} · ({:.2}, {:.2}) m · stage {} · {:#018x}",
            change.name(),
            at.x,
            at.y,
            object.stage,
            id.bits()
        )
    };
    // Both sides generate the same families: the preview's products name them.
    let variants = |stage: u32| {
        let (_, product) = content
            .bundle
            .products()
            .find(|(s, _)| *s == stage)
            .expect("the stage");
        match product {
            Product::Placements(p) => (p.family.clone(), p.variant_ids.clone()),
            Product::PlacedObjects(p) => (p.family.clone(), p.variant_ids.clone()),
            _ => panic!("a placing stage"),
        }
    };
    (
        row(Change::Added, &variants),
        row(Change::Removed, &variants),
    )
}
