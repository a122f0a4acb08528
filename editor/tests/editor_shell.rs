//! UI tests of the editor shell through AccessKit (no GPU): Inspector edits, undo/redo, save and
//! reopen, external changes, unsaved-changes questions, autosave recovery and diagnostics.

mod support;

use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use stagecraft_editor::app::dialogs::Dialog;
use stagecraft_editor::edits::{DocId, Selection};
use stagecraft_runtime::project::{canonical_text, FieldPath};
use support::{example, harness, snapshot, wait_until};

const SCENARIO: &str = "crosswalk-rush";

fn scenario_name(app: &stagecraft_editor::app::StagecraftApp) -> String {
    app.document()
        .and_then(|d| d.project().scenarios.get(SCENARIO))
        .map(|s| s.name.clone())
        .unwrap_or_default()
}

fn select_scenario(
    harness: &mut egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>,
) {
    harness.get_by_label(&format!("🎬 {SCENARIO}")).click();
    harness.run_steps(2);
    let selected = harness.state().document().map(|d| d.selection().clone());
    assert_eq!(
        selected,
        Some(Selection::doc(DocId::Scenario(SCENARIO.into())))
    );
}

#[test]
fn inspector_edit_undo_redo_save_and_reopen_round_trips_bytes() {
    let example = example("street-block");
    let before = snapshot(&example.dir);
    let mut harness = harness(&example.dir);
    assert!(harness.state().title().starts_with("Street block — "));
    select_scenario(&mut harness);
    let original = scenario_name(harness.state());

    // Typing over several frames into one field is one undo step.
    harness.get_by_label("Name").focus();
    harness.run_steps(2);
    for text in [" at", " dusk"] {
        harness.get_by_label("Name").type_text(text);
        harness.run_steps(2);
    }
    let edited = scenario_name(harness.state());
    assert_ne!(edited, original);
    assert!(edited.contains("at dusk"), "{edited:?}");
    let document = harness.state().document().expect("document");
    assert_eq!(document.record().len(), 1, "typing merges into one step");
    assert!(document.is_dirty());
    assert!(
        harness.state().title().contains('●'),
        "dirty marker in title"
    );

    // Undo restores the value and selects the edited field.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(scenario_name(harness.state()), original);
    let name_field = Selection::field(
        DocId::Scenario(SCENARIO.into()),
        FieldPath::root().field("name"),
    );
    let document = harness.state().document().expect("document");
    assert_eq!(document.selection(), &name_field);
    assert!(!document.is_dirty());

    // Both redo shortcuts.
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert_eq!(scenario_name(harness.state()), edited);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    harness.run_steps(2);
    assert_eq!(scenario_name(harness.state()), edited);

    // Save writes only the scenario, canonically; undo after save makes the document dirty.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let document = harness.state().document().expect("document");
    assert!(!document.is_dirty());
    let expected = canonical_text(&document.project().scenarios[SCENARIO]);
    let after = snapshot(&example.dir);
    let scenario_file = format!("scenarios/{SCENARIO}.scenario.ron");
    assert_eq!(after[&scenario_file], expected.as_bytes());
    for (path, bytes) in &before {
        if *path != scenario_file {
            assert_eq!(&after[path], bytes, "{path} must not change");
        }
    }
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert!(harness.state().document().expect("document").is_dirty());
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert!(!harness.state().document().expect("document").is_dirty());
    drop(harness);

    // Reopen: same documents; saving again changes no byte.
    let mut reopened = support::harness(&example.dir);
    assert_eq!(scenario_name(reopened.state()), edited);
    reopened.key_press_modifiers(Modifiers::COMMAND, Key::S);
    reopened.run_steps(2);
    assert_eq!(snapshot(&example.dir), after);
}

#[test]
fn external_change_reloads_and_own_saves_do_not() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let file = example
        .dir
        .join(format!("scenarios/{SCENARIO}.scenario.ron"));

    // The editor's own save: nothing is reloaded.
    select_scenario(&mut harness);
    harness.get_by_label("Name").focus();
    harness.run_steps(1);
    harness.get_by_label("Name").type_text("!");
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let steps = harness.state().document().expect("document").record().len();
    let reloaded = wait_until(&mut harness, Duration::from_millis(600), |app| {
        app.document().expect("document").record().len() != steps
    });
    assert_eq!(reloaded, None, "an own save must not reload");

    // Another program edits the file: reloaded without asking, still clean.
    let text = std::fs::read_to_string(&file).expect("read");
    let changed = text.replace(&scenario_name(harness.state()), "Renamed elsewhere");
    std::fs::write(&file, changed).expect("write");
    let took = wait_until(&mut harness, Duration::from_secs(3), |app| {
        scenario_name(app) == "Renamed elsewhere"
    });
    let took = took.expect("the external change is reloaded");
    eprintln!("external change reloaded after {} ms", took.as_millis());
    assert!(took < Duration::from_millis(1500), "reload took {took:?}");
    let document = harness.state().document().expect("document");
    assert!(!document.is_dirty());
    assert!(harness.state().dialog().is_none());
}

#[test]
fn invalid_external_change_shows_diagnostics_and_keeps_the_document() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let relative = format!("scenarios/{SCENARIO}.scenario.ron");
    let file = example.dir.join(&relative);
    let good = harness
        .state()
        .document()
        .expect("document")
        .project()
        .scenarios[SCENARIO]
        .clone();
    let broken = "Scenario(\n    schema: 1,\n    id: \"crosswalk-rush\",\n    name: 12,\n";
    std::fs::write(&file, broken).expect("write");
    wait_until(&mut harness, Duration::from_secs(3), |app| {
        app.document()
            .is_some_and(|d| d.held().contains_key(&relative))
    })
    .expect("the broken file is noticed");
    let document = harness.state().document().expect("document");
    assert_eq!(document.project().scenarios[SCENARIO], good);
    assert!(!document.held()[&relative].diagnostics.is_empty());
    harness.run_steps(2);
    // The Diagnostics tab explains it.
    assert!(harness
        .query_by_label_contains("changed on disk and cannot be read")
        .is_some());
    // Saving never overwrites the file someone else is editing.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), broken);
}

const RECIPE: &str = "recipes/street-block.recipe.ron";

/// Breaks the recipe on disk (its last closing parenthesis deleted), waits until the editor holds
/// its last good version, then sets the scatter stage's cell size; returns the broken text and
/// the canonical text of the edited recipe.
fn edit_a_recipe_broken_on_disk(
    harness: &mut egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>,
    dir: &std::path::Path,
) -> (String, String) {
    use stagecraft_editor::edits::{DocValue, ProjectEdit};
    use stagecraft_runtime::project::ParamValue;
    let text = std::fs::read_to_string(dir.join(RECIPE)).expect("read");
    let at = text.rfind(')').expect("a closing parenthesis");
    let broken = format!("{}{}", &text[..at], &text[at + 1..]);
    std::fs::write(dir.join(RECIPE), &broken).expect("write");
    wait_until(harness, Duration::from_secs(3), |app| {
        app.document()
            .is_some_and(|d| d.held().contains_key(RECIPE))
    })
    .expect("the broken file is noticed");
    let document = harness.state_mut().document_mut().expect("document");
    let doc = DocId::Recipe("street-block".into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("the example has the recipe");
    };
    let stage = recipe
        .stages
        .iter_mut()
        .find(|s| s.id == 2)
        .expect("stage 2");
    stage
        .parameters
        .insert("cell_size".into(), ParamValue::Int(250));
    let edited = canonical_text(&recipe);
    let edit = ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::doc(doc),
        "Set cell_size",
    );
    document.apply(edit);
    harness.run_steps(2);
    // The edit's generation shows its own Cancel button while it runs: let it finish, so the
    // dialogs' buttons are the only ones (under load it can outlive a few frames).
    wait_until(harness, Duration::from_secs(30), |app| {
        !app.service().is_busy()
    })
    .expect("the edit's generation settles");
    (broken, edited)
}

#[test]
fn saving_an_edit_to_a_file_broken_on_disk_asks_and_keep_both_writes_a_side_file() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let (broken, edited) = edit_a_recipe_broken_on_disk(&mut harness, &example.dir);

    // Ctrl+S writes nothing over the broken file and says why; the edit stays unsaved.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Unwritable { then: None, .. })
    ));
    assert!(harness
        .query_by_label_contains("recipes/street-block.recipe.edited.ron")
        .is_some());
    assert!(harness.state().document().expect("document").is_dirty());
    assert!(
        harness.state().title().contains('●'),
        "{}",
        harness.state().title()
    );
    harness.get_by_label("Cancel").click();
    harness.run_steps(2);
    assert!(harness.state().dialog().is_none());
    assert!(harness.state().title().contains('●'));
    let (autosave, _) =
        stagecraft_editor::document::autosave::read(&example.dir).expect("an autosave");
    assert_eq!(
        autosave.files.get(RECIPE),
        Some(&edited),
        "the autosave holds the edit"
    );

    // Quitting asks; Save asks again about the broken file; Keep both writes it aside, then quits.
    request_close(&mut harness);
    harness.step();
    assert!(sent(&harness, &egui::ViewportCommand::CancelClose));
    harness.run_steps(2);
    harness.get_by_label("Save").click();
    harness.step();
    assert!(!sent(&harness, &egui::ViewportCommand::Close), "not yet");
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Unwritable { then: Some(_), .. })
    ));
    // The dialog that replaced the question is laid out anew before it takes clicks.
    harness.run_steps(3);
    harness.get_by_label("Keep both").click();
    harness.step();
    assert!(sent(&harness, &egui::ViewportCommand::Close));
    let read = |file: &str| std::fs::read_to_string(example.dir.join(file)).expect("read");
    assert_eq!(read("recipes/street-block.recipe.edited.ron"), edited);
    assert_eq!(read(RECIPE), broken);
}

#[test]
fn quitting_with_an_edit_to_a_file_broken_on_disk_can_overwrite_it() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let (_, edited) = edit_a_recipe_broken_on_disk(&mut harness, &example.dir);
    request_close(&mut harness);
    harness.step();
    harness.run_steps(2);
    harness.get_by_label("Save").click();
    harness.run_steps(4);
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Unwritable { then: Some(_), .. })
    ));
    harness.get_by_label("Overwrite").click();
    harness.step();
    assert!(sent(&harness, &egui::ViewportCommand::Close));
    let on_disk = std::fs::read_to_string(example.dir.join(RECIPE)).expect("read");
    assert_eq!(on_disk, edited);
    assert!(!harness.state().document().expect("document").is_dirty());
}

#[test]
fn closing_with_unsaved_changes_asks() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    select_scenario(&mut harness);
    harness.get_by_label("Name").focus();
    harness.run_steps(1);
    harness.get_by_label("Name").type_text("?");
    harness.run_steps(2);
    request_close(&mut harness);
    harness.step();
    assert!(sent(&harness, &egui::ViewportCommand::CancelClose));
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Unsaved { .. })
    ));
    harness.run_steps(2);
    harness.get_by_label("Discard changes").click();
    harness.step();
    assert!(sent(&harness, &egui::ViewportCommand::Close));
}

#[test]
fn conflicting_external_change_asks_and_load_from_disk_is_undoable() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let file = example
        .dir
        .join(format!("scenarios/{SCENARIO}.scenario.ron"));
    select_scenario(&mut harness);
    harness.get_by_label("Name").focus();
    harness.run_steps(1);
    harness.get_by_label("Name").type_text(" (mine)");
    harness.run_steps(2);
    let mine = scenario_name(harness.state());
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("Crosswalk rush hour", "Theirs")).expect("write");
    wait_until(&mut harness, Duration::from_secs(3), |app| {
        matches!(app.dialog(), Some(Dialog::DiskConflict { .. }))
    })
    .expect("the conflict is asked about");
    assert_eq!(scenario_name(harness.state()), mine);
    harness.run_steps(1);
    harness.get_by_label("Load from disk").click();
    harness.run_steps(2);
    assert_eq!(scenario_name(harness.state()), "Theirs");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(scenario_name(harness.state()), mine);
}

#[test]
fn autosave_is_offered_for_recovery_on_open() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    if let Some(document) = harness.state_mut().document_mut() {
        document.autosave_interval = Duration::ZERO;
    }
    select_scenario(&mut harness);
    harness.get_by_label("Name").focus();
    harness.run_steps(1);
    harness.get_by_label("Name").type_text(" recovered");
    harness.run_steps(3);
    let autosave = example.dir.join(".stagecraft/autosave/session.json");
    assert!(autosave.is_file(), "autosave written");
    let edited = scenario_name(harness.state());
    drop(harness);

    let mut reopened = support::harness(&example.dir);
    assert!(matches!(
        reopened.state().dialog(),
        Some(Dialog::Recovery(_))
    ));
    reopened.get_by_label("Recover").click();
    reopened.run_steps(2);
    assert_eq!(scenario_name(reopened.state()), edited);
    assert!(reopened.state().document().expect("document").is_dirty());
}

#[test]
fn clicking_a_diagnostic_selects_the_field() {
    let example = example("street-block");
    let file = example
        .dir
        .join(format!("scenarios/{SCENARIO}.scenario.ron"));
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(
        &file,
        text.replace("fixed_step_s: 0.05", "fixed_step_s: 2.0"),
    )
    .expect("write");
    let mut harness = harness(&example.dir);
    harness.run_steps(2);
    // The Diagnostics row (the Timeline says the same: the scenario cannot run).
    harness
        .get_by_label_contains("fixed_step_s  — fixed step 2 s is out of range")
        .click();
    harness.run_steps(2);
    let selection = harness
        .state()
        .document()
        .expect("document")
        .selection()
        .clone();
    assert_eq!(
        selection,
        Selection::field(
            DocId::Scenario(SCENARIO.into()),
            FieldPath::root().field("fixed_step_s")
        )
    );
}

/// Every selection the Project tree offers: each document and each item of its lists.
fn every_selection(project: &stagecraft_runtime::project::Project) -> Vec<Selection> {
    let items = |doc: DocId, field: &str, count: usize| {
        (0..count)
            .map(|i| Selection::field(doc.clone(), FieldPath::root().field(field).index(i)))
            .chain(std::iter::once(Selection::doc(doc.clone())))
            .collect::<Vec<_>>()
    };
    let mut all = vec![Selection::doc(DocId::Manifest)];
    for (id, recipe) in &project.recipes {
        all.extend(items(
            DocId::Recipe(id.clone()),
            "stages",
            recipe.stages.len(),
        ));
    }
    for (id, scenario) in &project.scenarios {
        let doc = DocId::Scenario(id.clone());
        all.extend(items(doc.clone(), "observers", scenario.observers.len()));
        all.extend(items(doc.clone(), "sources", scenario.sources.len()));
        all.extend(items(doc, "directives", scenario.directives.len()));
    }
    for (id, set) in &project.overrides {
        all.extend(items(
            DocId::Overrides(id.clone()),
            "overrides",
            set.overrides.len(),
        ));
    }
    for (id, family) in &project.families {
        all.extend(items(
            DocId::Family(id.clone()),
            "variants",
            family.variants.len(),
        ));
    }
    all
}

#[test]
fn viewing_every_document_of_every_example_changes_nothing() {
    let projects = support::repo_root().join("projects");
    let mut names: Vec<String> = std::fs::read_dir(&projects)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.push("template-only".to_owned());
    for name in names {
        let example = example(&name);
        let mut harness = harness(&example.dir);
        let project = harness
            .state()
            .document()
            .expect("document")
            .project()
            .clone();
        for selection in every_selection(&project) {
            harness
                .state_mut()
                .perform(stagecraft_editor::app::actions::Action::Select(
                    selection.clone(),
                ));
            harness.run_steps(3);
            let document = harness.state().document().expect("document");
            assert_eq!(
                document.record().len(),
                0,
                "{name}: showing {selection:?} made an edit: {:?}",
                document.record().undo_string()
            );
        }
    }
}

fn request_close(
    harness: &mut egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>,
) {
    harness
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
}

fn sent(
    harness: &egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>,
    command: &egui::ViewportCommand,
) -> bool {
    harness
        .output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .is_some_and(|viewport| viewport.commands.contains(command))
}
