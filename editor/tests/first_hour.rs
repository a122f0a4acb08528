//! Issue 10's editor defects, each driven the way a new user hits it: an autosave that outlives
//! an undo (on the real file system), state leaking from one project into the next, glyphs the
//! loaded fonts cannot draw, an idle editor that keeps repainting, and the Inspector's list
//! buttons at a small window size.

mod support;

use std::time::{Duration, Instant};

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::document::{autosave, Document};
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::viewport::PickId;
use support::{example, harness, wait_until};

const SCENARIO: &str = "crosswalk-rush";

/// An edit renaming the street block's scenario.
fn rename(document: &Document, name: &str) -> ProjectEdit {
    let doc = DocId::Scenario(SCENARIO.into());
    let Some(DocValue::Scenario(mut scenario)) = document.get(&doc) else {
        panic!("the example has the scenario");
    };
    scenario.name = name.to_owned();
    ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Scenario(scenario)),
        Selection::doc(doc),
        "Rename",
    )
}

#[test]
fn an_autosave_follows_the_document_and_goes_when_undo_reaches_the_save_point() {
    let example = example("street-block");
    let file = autosave::path(&example.dir);
    let mut document = Document::open(&example.dir).expect("opens");
    document.autosave_interval = Duration::ZERO;
    let now = Instant::now();

    document.apply(rename(&document, "First"));
    assert!(document.autosave_if_due(now).expect("writes"));
    let (saved, _) = autosave::read(&example.dir).expect("autosave on disk");
    assert!(saved.files.values().any(|text| text.contains("First")));

    // A second edit replaces the autosaved state with the current one.
    document.apply(rename(&document, "Second"));
    assert!(document.autosave_if_due(now).expect("writes"));
    let (saved, _) = autosave::read(&example.dir).expect("autosave on disk");
    assert!(saved.files.values().any(|text| text.contains("Second")));
    assert!(!saved.files.values().any(|text| text.contains("First")));

    // Undoing back to the saved state removes the autosave at once.
    assert!(document.undo() && document.undo());
    assert!(!document.is_dirty());
    assert!(!document.autosave_if_due(now).expect("no write"));
    assert!(!file.exists(), "the autosave of undone edits is gone");
    let reopened = Document::open(&example.dir).expect("reopens");
    assert_eq!(
        autosave::recovery(&example.dir, &reopened.project().canonical_files()),
        None
    );
}

#[test]
fn undoing_an_autosaved_edit_in_the_editor_offers_no_recovery_on_reopen() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let app = harness.state_mut();
    let document = app.document_mut().expect("document");
    document.autosave_interval = Duration::ZERO;
    let edit = rename(document, "Undone later");
    document.apply(edit);
    harness.run_steps(3);
    assert!(autosave::path(&example.dir).is_file(), "autosave written");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(3);
    assert!(!harness.state().document().expect("document").is_dirty());
    drop(harness);

    let reopened = support::harness(&example.dir);
    assert!(
        reopened.state().dialog().is_none(),
        "no recovery of an undone edit"
    );
}

#[test]
fn opening_another_project_resets_the_selection_and_frames_its_content() {
    let street = example("street-block");
    let pines = example("pine-clearing");
    let mut harness = harness(&street.dir);
    let ready = |app: &stagecraft_editor::app::StagecraftApp| {
        let preview = app.preview().borrow();
        preview.session.content().is_some() && !preview.session.is_generating()
    };
    assert!(wait_until(&mut harness, Duration::from_secs(60), ready).is_some());
    harness.run_steps(2);
    let street_camera = harness.state().panels().viewport.camera.clone();
    harness.state().preview().borrow_mut().selected = Some(PickId::Agent { id: 1 << 32 });
    harness.run_steps(1);

    harness.state_mut().open_project(&pines.dir);
    assert_eq!(harness.state().preview().borrow().selected, None);
    let opened = |app: &stagecraft_editor::app::StagecraftApp| {
        let preview = app.preview().borrow();
        ready(app)
            && preview
                .session
                .content()
                .is_some_and(|c| c.recipe() != "street-block")
    };
    assert!(wait_until(&mut harness, Duration::from_secs(60), opened).is_some());
    harness.run_steps(3);
    let app = harness.state();
    let camera = &app.panels().viewport.camera;
    let bounds = app
        .preview()
        .borrow()
        .scene
        .content_bounds()
        .expect("the forest has bounds");
    let centre = bounds.center();
    assert!(
        (camera.target.x - centre.x).abs() < 1.0 && (camera.target.y - centre.y).abs() < 1.0,
        "the camera looks at the new content: {:?} vs {centre:?}",
        camera.target
    );
    assert_ne!(camera, &street_camera, "the camera was framed again");
    assert!(harness
        .query_by_label_contains("not alive at this frame")
        .is_none());
}

#[test]
fn the_idle_editor_stops_repainting() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let settled = |app: &stagecraft_editor::app::StagecraftApp| {
        let preview = app.preview().borrow();
        preview.session.world().is_some() && !preview.session.is_generating()
    };
    assert!(wait_until(&mut harness, Duration::from_secs(60), settled).is_some());
    harness.run_steps(5);
    // With no input, no playback and nothing in the background, a frame asks for no other
    // frame at once (kittest's `run` stops when no immediate repaint is requested).
    match harness.try_run() {
        Ok(steps) => assert!(steps <= 3, "{steps} frames"),
        Err(error) => panic!("the idle editor keeps repainting: {error}"),
    }
}

/// The list buttons (move up, move down, remove) of the open scenario's observers, sources and
/// directives, with the right edge of the Inspector column.
fn list_buttons_inside_the_inspector(size: egui::Vec2) {
    let example = example("street-block");
    let mut harness = egui_kittest::Harness::builder()
        .with_size(size)
        .build_eframe({
            let dir = example.dir.clone();
            move |cc| {
                stagecraft_editor::app::StagecraftApp::new(
                    cc,
                    stagecraft_editor::app::RunArgs {
                        project: Some(dir),
                        ..Default::default()
                    },
                )
            }
        });
    harness.run_steps(4);
    harness.get_by_label(&format!("🎬 {SCENARIO}")).click();
    harness.run_steps(3);
    // The Viewport toolbar starts just right of the Inspector column.
    let column_right = harness.get_by_label("Top-down").rect().left();
    let mut checked = 0;
    for label in ["🗑", "⬇", "⬆"] {
        for button in harness.query_all_by_label(label) {
            let rect = button.rect();
            assert!(
                rect.right() <= column_right + 0.5 && rect.left() >= 0.0,
                "{label} at {rect:?} is clipped (the column ends at {column_right}) at {size:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 6, "found {checked} list buttons");
}

#[test]
fn the_inspector_list_buttons_are_not_clipped_at_1100_by_700() {
    list_buttons_inside_the_inspector(egui::vec2(1100.0, 700.0));
}

#[test]
fn the_editor_stays_usable_at_1280_by_720() {
    list_buttons_inside_the_inspector(egui::vec2(1280.0, 720.0));
}

/// A project whose recipes include a subrecipe (which cannot run alone) opens on the recipe its
/// manifest lists, in the Inspector, the preview and the Recipe graph alike; sorted by id, the
/// subrecipe (`sidewalk-layout`) would come first and fail to generate.
#[test]
fn a_project_with_a_subrecipe_opens_on_the_recipe_its_manifest_lists() {
    let example = example("sidewalk-outputs");
    let mut harness = harness(&example.dir);
    let app = harness.state();
    let document = app.document().expect("a project is open");
    assert_eq!(
        document.project().recipes.keys().next().map(String::as_str),
        Some("sidewalk-layout"),
        "the premise: the subrecipe sorts first"
    );
    assert_eq!(
        document.selection().doc,
        Some(DocId::Recipe("sidewalk-outputs".into()))
    );
    let generated = |app: &stagecraft_editor::app::StagecraftApp| {
        let preview = app.preview().borrow();
        preview.session.content().is_some() && !preview.session.is_generating()
    };
    assert!(wait_until(&mut harness, Duration::from_secs(60), generated).is_some());
    let preview = harness.state().preview().borrow();
    let content = preview.session.content().expect("generated");
    assert_eq!(content.recipe(), "sidewalk-outputs");
    assert_eq!(preview.session.problem(), None);
}
