//! The editor over its one generation service, driven through AccessKit (no GPU): one generation
//! per edit with the Recipe graph and the session showing the same bundle; compile errors in the
//! Diagnostics tab as `stagecraft check` and `generate` print them; a typed number as one undo
//! step that generates once; saving with errors says so; progress with Cancel; the playback
//! shortcuts in the app's table.

mod support;

use std::path::Path;
use std::sync::mpsc::{channel, Sender};
use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::StagecraftApp;
use stagecraft_editor::cli::{check, generate, render_diagnostic, GenerateOptions};
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::diagnostics::row_text;
use stagecraft_editor::panels::{diagnostics_title, Tab};
use stagecraft_editor::service::{GenerationError, GenerationInputs, GenerationService};
use stagecraft_editor::session::fixtures::street_content;
use stagecraft_runtime::project::{Diagnostic, FieldPath, ParamValue};
use support::{example, harness, wait_until};

const RECIPE: &str = "street-block";
const WAIT: Duration = Duration::from_secs(60);

/// Steps until the service is idle with content on show.
fn settle(harness: &mut Harness<'static, StagecraftApp>) {
    let done = wait_until(harness, WAIT, |app| {
        !app.service().is_busy() && app.preview().borrow().session.content().is_some()
    });
    assert!(done.is_some(), "no content within {WAIT:?}");
}

fn session_digest(app: &StagecraftApp) -> Option<String> {
    let preview = app.preview().borrow();
    preview.session.content().map(|c| c.bundle.digest_hex())
}

/// Sets parameter `name` of stage `stage` of the street-block recipe, as one edit.
fn set_parameter(app: &mut StagecraftApp, stage: usize, name: &str, value: ParamValue) {
    let document = app.document_mut().expect("a document");
    let doc = DocId::Recipe(RECIPE.into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("the example has its recipe");
    };
    recipe.stages[stage].parameters.insert(name.into(), value);
    document.apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::doc(doc),
        format!("Set {name}"),
    ));
}

fn parameter(app: &StagecraftApp, stage: usize, name: &str) -> Option<ParamValue> {
    let document = app.document()?;
    document.project().recipes[RECIPE].stages[stage]
        .parameters
        .get(name)
        .cloned()
}

#[test]
fn one_edit_is_one_generation_and_the_graph_shows_the_viewports_bundle() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    settle(&mut harness);
    harness.state_mut().show_tab(Tab::RecipeGraph);
    harness.run_steps(2);
    let started = harness.state().service().generations_started();
    let before = session_digest(harness.state());
    assert!(before.is_some());
    assert_eq!(
        harness.state().panels().recipe_graph.shown_digest(),
        before,
        "the graph shows the session's bundle"
    );

    set_parameter(harness.state_mut(), 0, "length_m", ParamValue::Float(120.0));
    harness.run_steps(1);
    settle(&mut harness);
    harness.run_steps(2);
    let app = harness.state();
    assert_eq!(
        app.service().generations_started(),
        started + 1,
        "one generation"
    );
    let after = session_digest(app);
    assert_ne!(after, before);
    assert_eq!(app.panels().recipe_graph.shown_digest(), after);
    assert!(harness
        .query_by_label_contains(&after.expect("digest")[..12])
        .is_some());

    // Frames without edits start nothing.
    harness.run_steps(10);
    assert_eq!(harness.state().service().generations_started(), started + 1);
}

/// The located text of a diagnostic, for comparing lists.
fn located(d: &Diagnostic) -> (String, u32, u32, String) {
    (d.file.clone(), d.line, d.column, d.message.clone())
}

fn json_located(value: &serde_json::Value) -> (String, u32, u32, String) {
    let text = |key: &str| value[key].as_str().unwrap_or_default().to_owned();
    let number = |key: &str| value[key].as_u64().unwrap_or_default() as u32;
    (
        text("file"),
        number("line"),
        number("column"),
        text("message"),
    )
}

/// Writes a street block with 9 lanes (its schema allows 1..=8) into the example.
fn break_lanes(dir: &Path) {
    let path = dir.join("recipes/street-block.recipe.ron");
    let text = std::fs::read_to_string(&path).expect("recipe");
    let broken = text.replace("\"lanes\": 2,", "\"lanes\": 9,");
    assert_ne!(broken, text);
    std::fs::write(&path, broken).expect("write recipe");
}

#[test]
fn compile_errors_read_the_same_in_check_generate_and_the_diagnostics_tab() {
    let example = example("street-block");
    break_lanes(&example.dir);

    let mut out = Vec::new();
    assert_eq!(check(&example.dir, true, &mut out).expect("check runs"), 1);
    let report: serde_json::Value = serde_json::from_slice(&out).expect("json");
    let from_check: Vec<_> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(json_located)
        .collect();
    assert!(
        from_check.iter().any(|d| d.3.contains("lanes")),
        "{from_check:?}"
    );

    let mut harness = harness(&example.dir);
    harness.run_steps(2);
    let document = harness.state().document().expect("opens");
    let from_editor: Vec<_> = document.diagnostics().iter().map(located).collect();
    assert_eq!(
        from_editor, from_check,
        "the Diagnostics tab's data is check's"
    );
    let errors: Vec<Diagnostic> = document
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    for diagnostic in &errors {
        assert!(
            harness
                .query_by_label_contains(&row_text(diagnostic))
                .is_some(),
            "the Diagnostics tab shows {}",
            row_text(diagnostic)
        );
    }

    // `check` and `generate` print the same rendered diagnostics for it.
    let mut checked = Vec::new();
    check(&example.dir, false, &mut checked).expect("check runs");
    // `generate` refuses with a located error whose human form (stderr) carries the diagnostics.
    let error = generate(
        &example.dir,
        &GenerateOptions {
            recipe: Some(RECIPE),
            ..GenerateOptions::default()
        },
        &mut Vec::new(),
    )
    .expect_err("generate refuses a project with errors");
    let refusal = stagecraft_editor::cli::error::CliError::of(&error);
    assert_eq!(refusal.exit_code, 1);
    let generated = refusal.human().into_bytes();
    let (checked, generated) = (
        String::from_utf8(checked).expect("text"),
        String::from_utf8(generated).expect("text"),
    );
    let source = std::fs::read_to_string(example.dir.join("recipes/street-block.recipe.ron"))
        .expect("recipe");
    for diagnostic in &errors {
        let rendered = render_diagnostic(diagnostic, Some(&source));
        assert!(checked.contains(&rendered), "check:\n{checked}");
        assert!(generated.contains(&rendered), "generate:\n{generated}");
    }
}

#[test]
fn a_compile_error_shows_in_diagnostics_the_frame_the_edit_is_validated() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    settle(&mut harness);
    set_parameter(harness.state_mut(), 0, "lanes", ParamValue::Int(9));
    harness.step();
    let document = harness.state().document().expect("a document");
    let error = document
        .diagnostics()
        .iter()
        .find(|d| d.is_error() && d.message.contains("lanes"))
        .cloned()
        .expect("the out-of-range parameter is an error at once");
    assert!(error.line > 0 && error.column > 0, "located: {error:?}");
    harness.step();
    assert!(harness.query_by_label_contains(&row_text(&error)).is_some());

    // Saved, the file gives `check` the same diagnostic, line and column included.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let mut out = Vec::new();
    check(&example.dir, true, &mut out).expect("check runs");
    let report: serde_json::Value = serde_json::from_slice(&out).expect("json");
    let from_check: Vec<_> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(json_located)
        .collect();
    assert!(from_check.contains(&located(&error)), "{from_check:?}");
}

#[test]
fn saving_with_errors_says_so_in_the_status_line_and_the_badge() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.run_steps(2);
    let title = |harness: &Harness<'static, StagecraftApp>| {
        let app = harness.state();
        diagnostics_title(
            app.document().expect("a document"),
            app.panels().diagnostics.tally,
        )
    };
    assert_eq!(title(&harness), "Diagnostics");
    set_parameter(harness.state_mut(), 0, "lanes", ParamValue::Int(9));
    harness.run_steps(2);
    assert_eq!(
        title(&harness),
        "Diagnostics (1)",
        "unsaved: not yet on disk"
    );
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let (status, is_error) = harness.state().status().expect("a status");
    assert!(status.contains("the saved project has 1 error"), "{status}");
    assert!(is_error);
    assert!(harness
        .query_by_label_contains("the saved project has 1 error")
        .is_some());
    assert_eq!(title(&harness), "Diagnostics (1) · saved with 1 error");
}

#[test]
fn a_typed_number_is_one_undo_step_and_one_generation() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    // A tall window: the Inspector's rows below the fold of an 800-pixel one stay in view.
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let stage = Selection::field(
        DocId::Recipe(RECIPE.into()),
        FieldPath::root().field("stages").index(0),
    );
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(stage);
    harness.run_steps(3);
    settle(&mut harness);
    let started = harness.state().service().generations_started();
    assert_eq!(
        parameter(harness.state(), 0, "length_m"),
        Some(ParamValue::Float(80.0))
    );

    // Click the field (its text is selected), type 120 and press Enter.
    harness.get_by_label("Length").click();
    harness.run_steps(2);
    harness.get_by_label("Length").type_text("12");
    harness.run_steps(2);
    // Half typed: nothing entered the document, its undo record or the service.
    assert_eq!(
        parameter(harness.state(), 0, "length_m"),
        Some(ParamValue::Float(80.0))
    );
    assert!(!harness.state().document().expect("doc").is_dirty());
    harness.get_by_label("Length").type_text("0");
    harness.key_press(Key::Enter);
    harness.run_steps(2);
    assert_eq!(
        parameter(harness.state(), 0, "length_m"),
        Some(ParamValue::Float(120.0))
    );
    settle(&mut harness);
    assert_eq!(
        harness.state().service().generations_started(),
        started + 1,
        "the committed value generates once; no half-typed value does"
    );

    // One undo step back to the value before typing.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(
        parameter(harness.state(), 0, "length_m"),
        Some(ParamValue::Float(80.0))
    );
    let document = harness.state().document().expect("doc");
    assert!(!document.record().can_undo(), "it was one step");
    assert!(!document.is_dirty());
}

/// The editor over a service whose generator waits for a go-ahead per run.
fn gated_harness(dir: &Path) -> (Harness<'static, StagecraftApp>, Sender<()>) {
    let (go, gate) = channel::<()>();
    let service = GenerationService::custom_background(move |inputs: &GenerationInputs| {
        gate.recv_timeout(Duration::from_secs(30))
            .map_err(|_| GenerationError::Other("no go-ahead".into()))?;
        Ok(street_content(&inputs.recipe.id))
    });
    (support::harness_with_service(dir, service), go)
}

#[test]
fn a_long_generation_shows_progress_and_cancel_keeps_the_content() {
    let example = example("street-block");
    let (mut harness, go) = gated_harness(&example.dir);
    assert!(harness
        .query_by_label_contains("Generating street-block")
        .is_some());
    go.send(()).expect("generator alive");
    settle(&mut harness);
    let before = session_digest(harness.state());

    set_parameter(harness.state_mut(), 0, "length_m", ParamValue::Float(150.0));
    harness.run_steps(2);
    assert!(harness.state().service().is_busy());
    assert!(harness
        .query_by_label_contains("Generating street-block")
        .is_some());
    harness.get_by_label("Cancel").click();
    harness.run_steps(2);
    assert!(!harness.state().service().is_busy());
    assert!(harness.query_by_label("Cancel").is_none());
    go.send(()).expect("generator alive");
    std::thread::sleep(Duration::from_millis(100));
    harness.run_steps(3);
    assert_eq!(
        session_digest(harness.state()),
        before,
        "the previous content stays"
    );
    let (status, _) = harness.state().status().expect("a status");
    assert!(status.contains("cancelled"), "{status}");
}

#[test]
fn playback_shortcuts_live_in_the_apps_table() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let ready = wait_until(&mut harness, WAIT, |app| {
        app.preview().borrow().session.timeline().is_some()
    });
    assert!(ready.is_some(), "a world is built");
    let frame = |harness: &Harness<'static, StagecraftApp>| {
        harness.state().preview().borrow().session.frame()
    };
    harness.key_press(Key::Period);
    harness.run_steps(1);
    harness.key_press(Key::Period);
    harness.run_steps(1);
    assert_eq!(frame(&harness), 2);
    harness.key_press(Key::Comma);
    harness.run_steps(1);
    assert_eq!(frame(&harness), 1);
    harness.key_press(Key::Space);
    harness.run_steps(4);
    assert!(harness.state().preview().borrow().session.playing);
    harness.key_press(Key::Space);
    harness.run_steps(1);
    assert!(!harness.state().preview().borrow().session.playing);
}

#[test]
fn a_failed_generation_shows_in_the_diagnostics_tab() {
    use stagecraft_runtime::generate::{FailureKind, GenerateError};
    let example = example("street-block");
    let service = GenerationService::custom(|_: &GenerationInputs| {
        Err(GenerationError::Generate(GenerateError::request(
            FailureKind::InvalidInput,
            "a variant is wider than the scatter's cells",
        )))
    });
    let mut harness = support::harness_with_service(&example.dir, service);
    harness.run_steps(1);
    assert!(harness
        .query_by_label_contains("generating recipe street-block failed")
        .is_some());
    // The cause, in the Diagnostics tab (the Timeline says it too: it has no world).
    assert!(harness
        .query_all_by_label_contains("a variant is wider than the scatter's cells")
        .next()
        .is_some());
    assert!(harness
        .query_by_label_contains("The project is valid")
        .is_none());
}
