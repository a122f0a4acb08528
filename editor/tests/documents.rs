//! UI tests of the document commands: new from the template, open by typed path, save as,
//! the unsaved-changes question before opening, and drags merging into one undo step.

mod support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use stagecraft_editor::app::dialogs::Dialog;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::document::Document;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_runtime::project::has_errors;
use support::{example, harness};

const SCENARIO: &str = "crosswalk-rush";

fn empty_editor() -> Harness<'static, StagecraftApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(|cc| StagecraftApp::new(cc, RunArgs::default()));
    harness.run_steps(2);
    harness
}

fn type_into(harness: &mut Harness<'static, StagecraftApp>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.run_steps(1);
    harness.get_by_label(label).type_text(text);
    harness.run_steps(2);
}

#[test]
fn new_project_from_the_template_is_written_and_opened() {
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().join("fresh");
    let mut harness = empty_editor();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::N);
    harness.run_steps(2);
    assert!(matches!(harness.state().dialog(), Some(Dialog::New { .. })));
    type_into(&mut harness, "Folder", &dir.display().to_string());
    harness.get_by_label("Create").click();
    harness.run_steps(3);
    let document = harness.state().document().expect("the new project is open");
    assert_eq!(document.dir(), dir);
    assert_eq!(document.name(), "New project");
    assert!(!document.is_dirty());
    assert!(
        !has_errors(document.diagnostics()),
        "{:?}",
        document.diagnostics()
    );
    assert!(dir.join("stagecraft.ron").is_file());
    assert!(harness.state().title().starts_with("New project — "));
}

#[test]
fn open_by_typed_path_and_ask_before_discarding_edits() {
    let example = example("street-block");
    let mut harness = empty_editor();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::O);
    harness.run_steps(2);
    type_into(&mut harness, "Folder", &example.dir.display().to_string());
    harness.get_by_label("Open").click();
    harness.run_steps(3);
    assert_eq!(
        harness.state().document().map(|d| d.dir().to_path_buf()),
        Some(example.dir.clone())
    );
    assert_eq!(
        harness.state().persisted().recent.first(),
        Some(&example.dir)
    );

    // An unsaved edit: opening asks first, and Cancel keeps everything.
    harness.get_by_label(&format!("🎬 {SCENARIO}")).click();
    harness.run_steps(2);
    type_into(&mut harness, "Name", "!");
    harness.key_press(Key::Escape);
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::O);
    harness.run_steps(2);
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Unsaved { .. })
    ));
    harness.get_by_label("Cancel").click();
    harness.run_steps(2);
    assert!(harness.state().dialog().is_none());
    assert!(harness.state().document().expect("document").is_dirty());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::O);
    harness.run_steps(2);
    harness.get_by_label("Discard changes").click();
    harness.run_steps(2);
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Open { .. })
    ));
}

#[test]
fn save_as_writes_the_project_into_another_folder() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    harness.run_steps(2);
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::SaveAs { .. })
    ));
    type_into(&mut harness, "Folder", "-copy");
    harness.get_by_label("Save").click();
    harness.run_steps(2);
    let copy = example.dir.with_file_name("street-block-copy");
    let document = harness.state().document().expect("document");
    assert_eq!(document.dir(), copy);
    assert!(!document.is_dirty());
    for file in [
        "stagecraft.ron",
        "recipes/street-block.recipe.ron",
        "scenarios/crosswalk-rush.scenario.ron",
    ] {
        assert_eq!(
            std::fs::read(copy.join(file)).expect("copied"),
            std::fs::read(example.dir.join(file)).expect("original"),
            "{file}"
        );
    }
}

#[test]
fn save_as_keeps_edits_to_shared_families() {
    let example = example("street-block");
    let mut document = Document::open(&example.dir).expect("opens");
    let doc = DocId::Family("street-props".into());
    let Some(DocValue::Family(mut family, file)) = document.get(&doc) else {
        panic!("the example has the shared family street-props");
    };
    assert!(file.starts_with(".."), "{file} is outside the project");
    family.name = "Street props (edited)".into();
    let edit = ProjectEdit::replace(
        doc,
        Some(DocValue::Family(family, file.clone())),
        Selection::default(),
        "Set label",
    );
    document.apply(edit);
    let copy = example.dir.with_file_name("street-block-copy");
    let written = document.save_as(&copy).expect("saves");
    assert!(written.contains(&file), "{written:?}");
    let shared = std::fs::read_to_string(example.dir.join(&file)).expect("shared family");
    assert!(shared.contains("Street props (edited)"), "{shared}");
    assert!(!document.is_dirty());
    // The copy opens with the edited family.
    let reopened = Document::open(&copy).expect("the copy opens");
    assert_eq!(
        reopened.project().families["street-props"].name,
        "Street props (edited)"
    );
}

#[test]
fn save_as_refuses_a_folder_from_which_shared_families_would_be_lost() {
    let example = example("street-block");
    let mut document = Document::open(&example.dir).expect("opens");
    // `../../assets` from two levels deeper names another folder.
    let deeper = example.temp.path().join("a/b/c/street-block");
    let error = document.save_as(&deeper).expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("`../../assets`"), "{error}");
    assert!(!deeper.exists(), "nothing written");
    assert_eq!(document.dir(), example.dir);
    // At the same depth the shared folder is the same one, so Save As goes ahead.
    let beside = example.dir.with_file_name("street-block-copy");
    assert!(document.save_as(&beside).is_ok());
    let reopened = Document::open(&beside).expect("the copy opens");
    assert_eq!(reopened.project().families.len(), 2);
}

#[test]
fn a_slider_drag_is_one_undo_step() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let step_of = |app: &StagecraftApp| {
        app.document()
            .map(|d| d.project().scenarios[SCENARIO].fixed_step_s)
            .unwrap_or_default()
    };
    let before = step_of(harness.state());
    let drag = |harness: &mut Harness<'static, StagecraftApp>| {
        let centre = harness.get_by_label("Fixed step").rect().center();
        harness.hover_at(centre);
        harness.drag_at(centre);
        harness.step();
        for dx in [10.0, 20.0, 30.0, 40.0] {
            harness.hover_at(centre + egui::vec2(dx, 0.0));
            harness.step();
        }
        harness.drop_at(centre + egui::vec2(40.0, 0.0));
        harness.run_steps(3);
    };
    drag(&mut harness);
    let after_first = step_of(harness.state());
    assert!(after_first > before, "{before} → {after_first}");
    assert_eq!(
        harness.state().document().expect("document").record().len(),
        1
    );
    drag(&mut harness);
    assert!(step_of(harness.state()) > after_first);
    assert_eq!(
        harness.state().document().expect("document").record().len(),
        2
    );
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(step_of(harness.state()), after_first);
}

#[test]
fn a_file_that_is_not_utf8_opens_the_project_and_is_listed_as_unreadable() {
    let example = example("street-block");
    let recipe = example.dir.join("recipes/street-block.recipe.ron");
    let mut bytes = std::fs::read(&recipe).expect("recipe");
    bytes.insert(20, 0xE9);
    std::fs::write(&recipe, &bytes).expect("write");
    let mut harness = harness(&example.dir);
    harness.run_steps(3);
    let document = harness.state().document().expect("the project opens");
    let diagnostic = document
        .diagnostics()
        .iter()
        .find(|d| d.file == "recipes/street-block.recipe.ron")
        .expect("a diagnostic on the file");
    assert_eq!(
        diagnostic.message,
        "the file is not UTF-8 text: byte 0xE9 is not valid UTF-8"
    );
    assert!(diagnostic.line >= 1 && diagnostic.column >= 1);
    harness.get_by_label("⛔ recipes/street-block.recipe.ron");
}
