//! Renaming a recipe or a scenario in the Project tab (F2, or "Rename…" in a row's menu): every
//! reference follows in one undo step, a clash is refused with its reason, and saving writes the
//! new files and removes the old one.

mod support;

use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, Selection};
use support::{example, harness};

const OLD: &str = "street-block";
const NEW: &str = "main-street";

fn read(dir: &std::path::Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_default()
}

#[test]
fn a_recipe_renamed_with_f2_updates_every_reference_in_one_undo_step_and_saves_its_files() {
    use stagecraft_editor::panels::recipe_graph::GraphLayout;
    let example = example("street-block");
    let dir = example.dir.clone();
    let mut layout = GraphLayout::default();
    let positions = [("stage-1".to_owned(), [10.0, 20.0])].into_iter().collect();
    layout.recipes.insert(OLD.to_owned(), positions);
    layout.save(&dir).expect("layout");
    let mut harness = harness(&dir);
    let document = harness.state_mut().document_mut().expect("a document");
    let before = document.project().clone();
    let warnings_before = document.diagnostics().len();
    let steps_before = document.record().len();
    document.select(Selection::doc(DocId::Recipe(OLD.into())));
    harness.run_steps(2);

    harness.key_press(egui::Key::F2);
    harness.run_steps(2);
    // The whole old name is selected: typing replaces it.
    harness
        .get_by_label(&format!("Rename recipe {OLD} to"))
        .type_text(NEW);
    harness.run_steps(1);
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);

    let document = harness.state().document().expect("a document");
    let project = document.project();
    assert_eq!(project.manifest.recipes, vec![NEW.to_owned()]);
    assert_eq!(project.recipes.keys().collect::<Vec<_>>(), vec![NEW]);
    assert_eq!(project.recipes[NEW].id, NEW);
    assert_eq!(project.recipes[NEW].stages, before.recipes[OLD].stages);
    for id in ["crosswalk-rush", "panic-flee"] {
        assert_eq!(project.scenarios[id].recipe, NEW, "scenario {id}");
    }
    assert_eq!(project.overrides["street-block-edits"].recipe, NEW);
    assert_eq!(document.record().len(), steps_before + 1, "one undo step");
    assert_eq!(
        document.selection(),
        &Selection::doc(DocId::Recipe(NEW.into()))
    );
    // The old file on disk is neither "not listed" nor "unreadable": the save removes it.
    assert_eq!(
        document.dropped_files(),
        vec![format!("recipes/{OLD}.recipe.ron")]
    );
    assert_eq!(
        document.diagnostics().len(),
        warnings_before,
        "{:?}",
        document.diagnostics()
    );
    assert!(harness.query_by_label("Unreadable files").is_none());
    assert!(harness
        .query_by_label_contains(&format!("🔧 {NEW}"))
        .is_some());
    // The recipe graph's node positions (editor state, by id) follow the recipe.
    let layout = GraphLayout::load(&dir);
    assert_eq!(layout.recipes[NEW]["stage-1"], [10.0, 20.0]);

    // Undo restores every document (and selects the old name).
    let document = harness.state_mut().document_mut().expect("a document");
    assert!(document.undo());
    assert_eq!(document.project(), &before);
    assert_eq!(
        document.selection(),
        &Selection::doc(DocId::Recipe(OLD.into()))
    );
    assert!(document.dropped_files().is_empty());

    // Redo and save: the new files are written, the old one removed; the folder opens as renamed.
    assert!(document.redo());
    let report = document.save().expect("saves");
    assert_eq!(report.removed, vec![format!("recipes/{OLD}.recipe.ron")]);
    assert!(!dir.join(format!("recipes/{OLD}.recipe.ron")).exists());
    assert!(read(&dir, &format!("recipes/{NEW}.recipe.ron")).contains(&format!("id: \"{NEW}\"")));
    assert!(read(&dir, "stagecraft.ron").contains(&format!("\"{NEW}\"")));
    for file in [
        "scenarios/crosswalk-rush.scenario.ron",
        "scenarios/panic-flee.scenario.ron",
        "overrides/street-block-edits.overrides.ron",
    ] {
        assert!(
            read(&dir, file).contains(&format!("recipe: \"{NEW}\"")),
            "{file}"
        );
    }
    let renamed = document.project().clone();
    let reopened = stagecraft_editor::document::Document::open(&dir).expect("opens");
    assert_eq!(reopened.project(), &renamed);
    assert_eq!(reopened.diagnostics().len(), warnings_before);

    // Undo after the save and save again: the old names come back on disk, the new file goes.
    assert!(document.undo());
    let report = document.save().expect("saves");
    assert_eq!(report.removed, vec![format!("recipes/{NEW}.recipe.ron")]);
    assert!(!dir.join(format!("recipes/{NEW}.recipe.ron")).exists());
    let reopened = stagecraft_editor::document::Document::open(&dir).expect("opens");
    assert_eq!(reopened.project(), &before);
}

#[test]
fn a_clashing_scenario_name_is_refused_with_its_reason_and_changes_nothing() {
    use stagecraft_editor::panels::timeline_marks::Bookmarks;
    let example = example("street-block");
    let mut bookmarks = Bookmarks::default();
    bookmarks.add("panic-flee", "the fall", 120);
    bookmarks.save(&example.dir).expect("bookmarks");
    let mut harness = harness(&example.dir);
    let document = harness.state_mut().document_mut().expect("a document");
    let steps_before = document.record().len();
    document.select(Selection::doc(DocId::Scenario("panic-flee".into())));
    harness.run_steps(2);
    harness.key_press(egui::Key::F2);
    harness.run_steps(2);
    harness
        .get_by_label("Rename scenario panic-flee to")
        .type_text("crosswalk-rush");
    harness.run_steps(2);
    assert!(harness
        .query_by_label(
            "the project already has scenario crosswalk-rush \
             (scenarios/crosswalk-rush.scenario.ron); choose another name"
        )
        .is_some());
    harness.key_press(egui::Key::Enter);
    harness.run_steps(2);
    let document = harness.state().document().expect("a document");
    assert_eq!(document.record().len(), steps_before, "nothing applied");
    assert!(document.project().scenarios.contains_key("panic-flee"));

    // A free name renames the scenario and its manifest entry.
    harness
        .get_by_label("Rename scenario panic-flee to")
        .type_text("-2");
    harness.run_steps(1);
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);
    let project = harness.state().document().expect("a document").project();
    assert_eq!(
        project.manifest.scenarios,
        vec!["crosswalk-rush".to_owned(), "crosswalk-rush-2".to_owned()]
    );
    assert_eq!(project.scenarios["crosswalk-rush-2"].id, "crosswalk-rush-2");
    // The scenario's bookmarks (editor state, by id) follow it; the old id's stay for an undo.
    let saved = Bookmarks::load(&example.dir);
    assert_eq!(saved.scenarios["crosswalk-rush-2"][0].name, "the fall");
    assert_eq!(saved.scenarios["crosswalk-rush-2"][0].frame, 120);
    assert_eq!(saved.scenarios["panic-flee"][0].frame, 120);
}

#[test]
fn a_rename_can_be_renamed_back_before_saving_and_then_nothing_is_removed() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let before = harness
        .state()
        .document()
        .expect("a document")
        .project()
        .clone();
    for (from, to) in [(OLD, NEW), (NEW, OLD)] {
        let document = harness.state_mut().document_mut().expect("a document");
        document.select(Selection::doc(DocId::Recipe(from.into())));
        harness.run_steps(2);
        harness.key_press(egui::Key::F2);
        harness.run_steps(2);
        harness
            .get_by_label(&format!("Rename recipe {from} to"))
            .type_text(to);
        harness.run_steps(1);
        harness.key_press(egui::Key::Enter);
        harness.run_steps(3);
    }
    let document = harness.state_mut().document_mut().expect("a document");
    assert_eq!(document.project(), &before);
    assert!(document.dropped_files().is_empty());
    let report = document.save().expect("saves");
    assert!(report.removed.is_empty(), "{report:?}");
    assert!(example
        .dir
        .join(format!("recipes/{OLD}.recipe.ron"))
        .is_file());
}

#[test]
fn rename_from_a_rows_menu_renames_an_override_set() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    harness
        .get_by_label_contains("✏ street-block-edits")
        .scroll_to_me();
    harness.run_steps(2);
    harness
        .get_by_label_contains("✏ street-block-edits")
        .click_secondary();
    harness.run_steps(2);
    harness.get_by_label("Rename…").click();
    harness.run_steps(2);
    harness
        .get_by_label("Rename override set street-block-edits to")
        .type_text("edits");
    harness.run_steps(1);
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);
    let project = harness.state().document().expect("a document").project();
    assert_eq!(project.manifest.overrides, vec!["edits".to_owned()]);
    assert_eq!(project.overrides["edits"].id, "edits");
    assert_eq!(project.overrides["edits"].recipe, OLD);
}
