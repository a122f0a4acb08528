//! The `motion_profile` of a population source (and of a route directive) is picked in a combo of
//! the known profiles (`street-block`'s `crosswalk-rush`): picking `running` is one undoable edit,
//! and an id that names no profile stays shown, marked unknown, and is kept.

mod support;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_runtime::project::{FieldPath, Scenario};
use support::{example, harness};

type Editor = egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>;

const ID: &str = "crosswalk-rush";

fn doc() -> DocId {
    DocId::Scenario(ID.into())
}

fn scenario(harness: &Editor) -> Scenario {
    harness
        .state()
        .document()
        .expect("a document")
        .project()
        .scenarios[ID]
        .clone()
}

fn source_profile_path() -> FieldPath {
    FieldPath::root()
        .field("sources")
        .index(0)
        .field("motion_profile")
}

fn select_source_profile(harness: &mut Editor) {
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(doc(), source_profile_path()));
    harness.run_steps(4);
}

/// Opens the first `Motion profile` combo (the first source's: sources come before directives).
fn open_first_combo(harness: &mut Editor) {
    harness
        .query_all_by_role_and_label(Role::ComboBox, "Motion profile")
        .next()
        .expect("a motion profile combo")
        .click();
    harness.run_steps(2);
}

#[test]
fn picking_running_on_a_source_is_one_edit_and_undone_back_to_the_default() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let before = scenario(&harness);
    assert_eq!(before.sources[0].motion_profile, None);
    select_source_profile(&mut harness);
    assert!(
        harness.query_all_by_label("(default)").count() >= 1,
        "None is shown as the default"
    );
    open_first_combo(&mut harness);
    // The standard profiles are offered (street-block has no motion documents of its own).
    assert_eq!(harness.query_all_by_label("walking").count(), 1);
    harness.get_by_label("running").click();
    harness.run_steps(3);
    let after = scenario(&harness);
    assert_eq!(after.sources[0].motion_profile.as_deref(), Some("running"));
    let mut expected = before.clone();
    expected.sources[0].motion_profile = Some("running".into());
    assert_eq!(after, expected, "nothing else changed");
    let undo = harness
        .state()
        .document()
        .expect("a document")
        .record()
        .undo_string()
        .unwrap_or_default();
    assert!(undo.contains("sources[0].motion_profile"), "{undo}");
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(3);
    assert_eq!(scenario(&harness).sources[0].motion_profile, None);
    assert_eq!(scenario(&harness), before, "one undo restores the scenario");
}

#[test]
fn an_unknown_profile_id_stays_shown_and_is_kept() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let mut given = scenario(&harness);
    given.sources[0].motion_profile = Some("sprint".into());
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Scenario(given.clone())),
        Selection::field(doc(), source_profile_path()),
        "Name an unknown profile",
    ));
    let edits = document.record().undo_string();
    harness.run_steps(4);
    assert_eq!(
        harness.query_all_by_label("⚠ sprint (unknown)").count(),
        1,
        "the closed combo shows the unknown id"
    );
    // Check reports it at the field.
    let located = harness
        .state()
        .document()
        .expect("a document")
        .diagnostics()
        .iter()
        .any(|d| d.path == source_profile_path() && d.message.contains("`sprint`"));
    assert!(located, "a located error");
    // Opening the combo lists it too (selected), and drawing never rewrites it.
    open_first_combo(&mut harness);
    assert_eq!(
        harness.query_all_by_label("⚠ sprint (unknown)").count(),
        2,
        "the combo and its list entry"
    );
    harness.run_steps(3);
    assert_eq!(scenario(&harness), given, "the unknown id is kept");
    let record = harness.state().document().expect("a document").record();
    assert_eq!(record.undo_string(), edits, "no edit was recorded");
}
