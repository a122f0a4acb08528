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

fn select(harness: &mut Editor, path: FieldPath) {
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(doc(), path));
    harness.run_steps(4);
}

/// What each `Motion profile` combo shows, in order (the first source's first).
fn shown(harness: &Editor) -> Vec<String> {
    harness
        .query_all_by_role_and_label(Role::ComboBox, "Motion profile")
        .map(|node| node.value().unwrap_or_default())
        .collect()
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
    select(&mut harness, source_profile_path());
    let shown_before = shown(&harness);
    assert_eq!(
        shown_before.first().map(String::as_str),
        Some("(default)"),
        "None is shown as the default: {shown_before:?}"
    );

    // The standard profiles are offered (street-block has no motion documents of its own); the
    // viewport's legend also says `walking`, so the list's entries are counted by difference.
    let count = |harness: &Editor, label: &str| harness.query_all_by_label(label).count();
    let closed = ["walking", "running"].map(|l| count(&harness, l));
    open_first_combo(&mut harness);
    let open = ["walking", "running"].map(|l| count(&harness, l));
    assert_eq!([open[0] - closed[0], open[1] - closed[1]], [1, 1]);
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
    let shown_now = shown(&harness);
    assert_eq!(
        shown_now.first().map(String::as_str),
        Some("⚠ sprint (unknown)"),
        "the closed combo shows the unknown id: {shown_now:?}"
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
        1,
        "its list entry"
    );
    assert_eq!(harness.query_all_by_label("running").count(), 1);
    harness.run_steps(3);
    assert_eq!(scenario(&harness), given, "the unknown id is kept");
    let record = harness.state().document().expect("a document").record();
    assert_eq!(record.undo_string(), edits, "no edit was recorded");
}

#[test]
fn a_route_directive_picks_its_profile_in_the_same_combo() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let before = scenario(&harness);
    let index = before
        .directives
        .iter()
        .position(|d| d.command.is_route())
        .expect("the courier's Rendezvous");
    assert_eq!(before.directives[index].motion_profile, None);
    let at = FieldPath::root()
        .field("directives")
        .index(index)
        .field("motion_profile");
    select(&mut harness, at);
    assert_eq!(
        shown(&harness),
        ["(default)"],
        "only the selected item is open"
    );
    open_first_combo(&mut harness);
    harness.get_by_label("running").click();
    harness.run_steps(3);
    let after = scenario(&harness);
    assert_eq!(
        after.directives[index].motion_profile.as_deref(),
        Some("running")
    );
    assert_eq!(shown(&harness), ["running"]);
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(3);
    assert_eq!(scenario(&harness), before, "one undo restores it");
}
