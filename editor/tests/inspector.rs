//! The Inspector's stage parameters from the operators' schemas, driven through AccessKit (no
//! GPU): every declared parameter has a row (absent ones show their default with a Set button),
//! an out-of-range value is an error in place, and a reset to the default is one undoable edit.

mod support;

use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::inspector::params::registry;
use stagecraft_runtime::project::{FieldPath, ParamValue};
use support::{example, harness};

const RECIPE: &str = "street-block";

#[test]
fn stage_parameters_follow_the_operators_schema() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    // A tall window: the Inspector's rows below the fold of an 800-pixel one stay in view.
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let stage = FieldPath::root().field("stages").index(0);
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(DocId::Recipe(RECIPE.into()), stage));
    harness.run_steps(3);

    // Every parameter of `street.block` has its row; the one the file leaves out shows its
    // default and can be set.
    let op = registry().get("street.block", 1).expect("registered");
    assert!(harness
        .query_by_label_contains("Parameters of street.block v1")
        .is_some());
    assert!(harness.query_by_label("Set furniture_zone_m").is_some());
    assert!(harness.query_by_label_contains("1.5 (default)").is_some());
    assert!(op.params.iter().any(|spec| spec.name == "furniture_zone_m"));
    // Values at their default offer no reset.
    assert!(harness.query_by_label("Reset length_m").is_none());

    // An out-of-range value: an error in place, and a reset back to the default.
    let document = harness.state_mut().document_mut().expect("a document");
    let doc = DocId::Recipe(RECIPE.into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("the example has its recipe");
    };
    recipe.stages[0]
        .parameters
        .insert("lanes".into(), ParamValue::Int(9));
    document.apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::field(doc, FieldPath::root().field("stages").index(0)),
        "Set lanes",
    ));
    harness.run_steps(3);
    // In place, beside the widget (the Diagnostics tab's row says it too, with its location).
    assert!(harness
        .query_by_label("parameter `lanes` is 9, out of range")
        .is_some());
    harness.get_by_label("Reset lanes").click();
    harness.run_steps(3);
    let document = harness.state().document().expect("a document");
    let lanes = document.project().recipes[RECIPE].stages[0]
        .parameters
        .get("lanes")
        .cloned();
    assert_eq!(lanes, None, "reset: the operator's default applies");
    // The in-place error goes at once; the Diagnostics tab's row when the background
    // validation of the reset document arrives (on a loaded machine, a few frames later).
    let gone = (0..500).any(|_| {
        harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
        harness
            .query_all_by_label_contains("parameter `lanes` is 9")
            .next()
            .is_none()
    });
    assert!(gone, "the out-of-range diagnostic outlived the reset");
    let document = harness.state().document().expect("a document");
    assert!(document.diagnostics().iter().all(|d| !d.is_error()));
    let undo = document.record().undo_string().unwrap_or_default();
    assert!(undo.contains("lanes"), "the reset is the last edit: {undo}");
}

#[test]
fn an_observer_path_keyframe_is_added_and_undone_as_one_edit() {
    let example = example("street-block");
    let mut harness = rush_at(&example, FieldPath::root().field("observers").index(0));
    // A tall window: the Inspector's rows below the fold of an 800-pixel one stay in view.
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let path_len = |harness: &Editor| rush(harness).observers[0].path.len();
    let before = path_len(&harness);
    assert!(harness.query_by_label_contains("Fade").is_some());
    harness.get_by_label("+ Add path").click();
    harness.run_steps(3);
    assert_eq!(path_len(&harness), before + 1);
    let key = rush(&harness).observers[0]
        .path
        .last()
        .cloned()
        .expect("a keyframe");
    // The example's camera has no path yet: the first keyframe starts at frame 0 where the
    // camera stands.
    assert_eq!(before, 0);
    let eye = rush(&harness).observers[0].position;
    assert_eq!((key.frame, key.position), (0, eye));
    undo(&mut harness);
    assert_eq!(path_len(&harness), before);
}

#[test]
fn an_observer_aim_key_is_added_where_the_camera_looks_and_undone_as_one_edit() {
    let example = example("street-block");
    let mut harness = rush_at(&example, FieldPath::root().field("observers").index(0));
    let observer = |harness: &Editor| rush(harness).observers[0].clone();
    assert!(observer(&harness).aim.is_empty());
    // A tall window: the button sits below the fold of an 800-pixel one.
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    harness.get_by_label("+ Add aim").click();
    harness.run_steps(3);
    let after = observer(&harness);
    // The first key looks where the camera already looks, at frame 0.
    assert_eq!(after.aim.len(), 1);
    let key = &after.aim[0];
    assert_eq!(
        (key.frame, key.yaw_rad, key.pitch_rad),
        (0, after.yaw_rad, after.pitch_rad)
    );
    undo(&mut harness);
    assert!(observer(&harness).aim.is_empty());
}

#[test]
fn every_directive_command_has_its_kind_and_a_population_command_shows_its_fields() {
    use stagecraft_editor::panels::inspector::scenario::{
        command_kind, command_options, new_command,
    };
    use stagecraft_runtime::project::{DirectiveCommand, DIRECTIVE_SCHEMA};
    // Each kind of the runtime's directive table makes a command of that kind, and no two
    // kinds share a label.
    let options = command_options();
    assert_eq!(options.len(), DIRECTIVE_SCHEMA.len());
    for (kind, label) in &options {
        let command = new_command(kind, &DirectiveCommand::Hold);
        assert_eq!(command_kind(&command), *kind, "{label}");
    }
    let mut labels: Vec<&str> = options.iter().map(|(_, label)| *label).collect();
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels.len(), options.len());
    // A box command switched to another box command keeps its box.
    let spawn_box = new_command("SetNoSpawnBox", &DirectiveCommand::Hold);
    let removal_box = new_command("SetNoRemovalBox", &spawn_box);
    let (
        DirectiveCommand::SetNoSpawnBox { bounds: a },
        DirectiveCommand::SetNoRemovalBox { bounds: b },
    ) = (&spawn_box, &removal_box)
    else {
        panic!("box commands: {spawn_box:?}, {removal_box:?}");
    };
    assert_eq!(a, b);

    // The example's first directive fades the camera: the Inspector names it and shows its
    // observer and fade, no longer a bare "population command".
    let example = example("street-block");
    let harness = rush_at(&example, FieldPath::root().field("directives").index(0));
    assert!(harness
        .query_by_label_contains("0: frame 60 · world · Set observer fade")
        .is_some());
    assert!(harness
        .query_by_label_contains("population command")
        .is_none());
    // Its rows: the observer it changes (a picker over the scenario's observers) and the fade.
    assert!(harness.query_by_label("Observer").is_some());
    assert!(harness.query_by_label("Fade").is_some());
}

#[test]
fn a_box_edit_that_would_invert_the_box_is_refused_with_a_message_and_changes_nothing() {
    let example = example("street-block");
    let mut harness = rush_at(&example, FieldPath::root().field("no_spawn_box"));
    let spawn_box = |harness: &Editor| rush(harness).no_spawn_box;
    let before = spawn_box(&harness).expect("the example has a no-spawn box");
    assert_eq!((before.min.y, before.max.y), (-3.5, 3.5));
    // The max y typed below the min y (a drag value has no label: it is found by its value).
    let max_y = || egui_kittest::kittest::by().value("y 3.50 m");
    harness.get(max_y()).click();
    harness.run_steps(2);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.event(egui::Event::Text("-9".into()));
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);
    assert_eq!(
        spawn_box(&harness),
        Some(before),
        "the box keeps its bounds"
    );
    assert!(harness
        .query_by_label("refused: the no spawn box's min y -3.50 m would pass its max y -9.00 m")
        .is_some());
    let undo = harness
        .state()
        .document()
        .expect("a document")
        .record()
        .undo_string()
        .unwrap_or_default();
    assert!(
        !undo.contains("no_spawn_box"),
        "no edit was recorded: {undo}"
    );
}

/// The editor under test.
type Editor = egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>;

/// Undoes the last edit (there must be one) and lets the editor draw it.
fn undo(harness: &mut Editor) {
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(2);
}

/// The `crosswalk-rush` scenario as the editor's document holds it now.
fn rush(harness: &Editor) -> stagecraft_runtime::project::Scenario {
    harness
        .state()
        .document()
        .expect("a document")
        .project()
        .scenarios["crosswalk-rush"]
        .clone()
}

/// The editor on `example` with the `crosswalk-rush` scenario's field `path` selected.
fn rush_at(example: &support::Example, path: FieldPath) -> Editor {
    let mut harness = harness(&example.dir);
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(
            DocId::Scenario("crosswalk-rush".into()),
            path,
        ));
    harness.run_steps(3);
    harness
}

#[test]
fn an_observers_validity_and_population_center_are_edited_in_the_inspector() {
    let example = example("street-block");
    let mut harness = rush_at(&example, FieldPath::root().field("observers").index(0));
    // A tall window: the Inspector's rows below the fold of an 800-pixel one stay in view.
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let camera = |harness: &Editor| rush(harness).observers[0].clone();
    let before = camera(&harness);
    assert_eq!((before.valid, before.center), (true, None));
    // Clearing validity, then setting the center (it starts at the eye): two edits.
    let checkbox = |label| {
        egui_kittest::kittest::by()
            .role(egui::accesskit::Role::CheckBox)
            .label(label)
    };
    harness.get(checkbox("Valid")).click();
    harness.run_steps(3);
    assert!(!camera(&harness).valid);
    // The pointer leaves the first checkbox before the second is clicked.
    harness.hover_at(egui::pos2(1.0, 1.0));
    harness.run_steps(3);
    harness.get(checkbox("Center")).click();
    harness.run_steps(3);
    assert_eq!(camera(&harness).center, Some(before.position));
    let document = harness.state_mut().document_mut().expect("a document");
    assert!(document.undo());
    harness.run_steps(2);
    let after_undo = camera(&harness);
    // Undo takes back the center only: each change is its own edit.
    assert_eq!((after_undo.valid, after_undo.center), (false, None));
}

#[test]
fn a_new_stage_s_operator_is_picked_from_the_registry_with_its_defaults_in_one_edit() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    let doc = DocId::Recipe(RECIPE.into());
    let document = harness.state_mut().document_mut().expect("a document");
    let before = document.project().recipes[RECIPE].clone();
    let steps_before = document.record().len();
    document.select(Selection::doc(doc.clone()));
    harness.run_steps(3);

    // The add control is a menu of the registry's operators, each with its summary.
    harness.get_by_label("+ Add stage ▾").click();
    harness.run_steps(2);
    for op in registry().operators() {
        assert!(
            harness
                .query_by_label(&format!("{} v{}", op.id, op.algorithm))
                .is_some(),
            "{} is offered",
            op.id
        );
    }
    harness.get_by_label("environment.scatter v1").click();
    harness.run_steps(3);

    let document = harness.state().document().expect("a document");
    let recipe = &document.project().recipes[RECIPE];
    assert_eq!(recipe.stages.len(), before.stages.len() + 1);
    let stage = recipe.stages.last().expect("the new stage");
    let op = registry()
        .get("environment.scatter", 1)
        .expect("registered");
    assert_eq!(stage.operator, "environment.scatter");
    assert_eq!(stage.algorithm, 1);
    assert_eq!(stage.label, op.summary);
    assert_eq!(
        stage.id,
        before.stages.iter().map(|s| s.id).max().unwrap_or(0) + 1
    );
    let mut defaults: Vec<&str> = op
        .params
        .iter()
        .filter(|spec| spec.default.value().is_some())
        .map(|spec| spec.name)
        .collect();
    defaults.sort_unstable();
    assert_eq!(
        stage
            .parameters
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        defaults
    );
    assert_eq!(document.record().len(), steps_before + 1, "one edit");
    let document = harness.state_mut().document_mut().expect("a document");
    assert!(document.undo());
    assert_eq!(document.project().recipes[RECIPE], before);
}

#[test]
fn a_stage_s_operator_is_switched_in_a_combo_of_the_registry_s_operators() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    let stage = FieldPath::root().field("stages").index(0);
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(DocId::Recipe(RECIPE.into()), stage));
    harness.run_steps(3);
    // The operator is a combo (no text field to mistype in).
    harness
        .get_by_role_and_label(egui::accesskit::Role::ComboBox, "Operator")
        .click();
    harness.run_steps(2);
    harness.get_by_label("streaming.plan v1").click();
    harness.run_steps(3);
    let document = harness.state().document().expect("a document");
    let stage = &document.project().recipes[RECIPE].stages[0];
    let op = registry().get("streaming.plan", 1).expect("registered");
    assert_eq!(
        (stage.operator.as_str(), stage.algorithm),
        ("streaming.plan", 1)
    );
    let mut defaults: Vec<&str> = op
        .params
        .iter()
        .filter(|spec| spec.default.value().is_some())
        .map(|spec| spec.name)
        .collect();
    defaults.sort_unstable();
    assert_eq!(
        stage
            .parameters
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        defaults,
        "another operator starts at its own defaults"
    );
}

/// A parameter the stage leaves out shows the value its chosen preset gives it (not the schema
/// default), and a value the stage gives resets to it in one undoable edit.
#[test]
fn an_absent_parameter_shows_its_presets_value() {
    let example = example("tactical-mission");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let doc = DocId::Recipe("tactical-mission".into());
    let select = |harness: &mut Editor, index: usize| {
        harness
            .state_mut()
            .document_mut()
            .expect("a document")
            .select(Selection::field(
                doc.clone(),
                FieldPath::root().field("stages").index(index),
            ));
        harness.run_steps(3);
    };
    // The mission stage takes graph PCG_Tactical: a 6-cell-wide grid (the schema default is 8).
    select(&mut harness, 0);
    assert!(harness.query_by_label("6 (preset PCG_Tactical)").is_some());
    assert!(harness.query_by_label("5 (preset PCG_Tactical)").is_some());
    assert!(harness.query_by_label_contains("8 (default)").is_none());
    // The streaming stage takes profile Paris: 50 m cells (default 100) and 6 MB per cell; its
    // own budget (24 MB) is authored and resets to the profile's 96.
    select(&mut harness, 1);
    assert!(harness.query_by_label("50 (preset Paris)").is_some());
    assert!(harness.query_by_label("6 (preset Paris)").is_some());
    assert!(harness.query_by_label("Set cell_size_m").is_some());
    let stage = |harness: &Editor| {
        harness
            .state()
            .document()
            .expect("a document")
            .project()
            .recipes["tactical-mission"]
            .stages[1]
            .parameters
            .clone()
    };
    harness.get_by_label("Reset hlod_budget_mb").click();
    harness.run_steps(3);
    assert_eq!(stage(&harness).get("hlod_budget_mb"), None);
    // Now absent, the budget shows the profile's 96 MB.
    assert!(harness.query_by_label("96 (preset Paris)").is_some());
    undo(&mut harness);
    assert_eq!(
        stage(&harness).get("hlod_budget_mb"),
        Some(&ParamValue::Int(24)),
        "one undoable edit"
    );
}
