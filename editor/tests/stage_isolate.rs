//! Lock-and-isolate of a stage's inputs in the editor, driven through kittest on the
//! street-block example: the select-and-place stage isolated with its inputs frozen re-runs on an
//! edit of its own parameters, ignores an upstream edit (saying so), edits stay undoable, and
//! releasing draws the live content, equal to a full generation of the edited project.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::actions::Action;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::command::StageCommand;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::Tab;
use stagecraft_editor::viewport::LayerKind;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::ParamValue;
use stagecraft_runtime::recipe::{compile, RecipeSource};
use support::{example, wait_until};

const RECIPE: &str = "street-block";

/// The editor on a copy of street-block with the Viewport in front, `isolate` passed as
/// `--isolate`, once the content is generated and the stage isolated (with the copy).
fn open(isolate: Option<u32>) -> (Harness<'static, StagecraftApp>, support::Example) {
    let example = example(RECIPE);
    let args = RunArgs {
        project: Some(example.dir.clone()),
        tab: Some(Tab::Viewport),
        isolate,
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    settle(&mut harness);
    (harness, example)
}

/// Runs frames until the service is idle with content (and any isolated re-run taken).
fn settle(harness: &mut Harness<'static, StagecraftApp>) {
    harness.run_steps(2);
    let ready = wait_until(harness, Duration::from_secs(120), |app| {
        let preview = app.preview().borrow();
        preview.session.content().is_some() && !app.service().is_busy()
    });
    assert!(ready.is_some(), "street-block was generated");
    harness.run_steps(3);
}

/// (digest of stage 3 in the live content, digest of the isolated output, objects drawn).
fn digests(harness: &Harness<'static, StagecraftApp>) -> ([u8; 32], Option<[u8; 32]>, usize) {
    let preview = harness.state().preview().borrow();
    let content = preview.session.content().expect("content");
    let live = content.stage(3).expect("stage 3").digest;
    let isolated = preview
        .inspect
        .isolated()
        .map(|i| i.output.stages[0].digest);
    let drawn = preview.scene.layer(LayerKind::Placements).picks.len();
    (live, isolated, drawn)
}

/// Sets parameter `name` of stage `stage` of the recipe to `value`, as one undoable edit.
fn set_param(harness: &mut Harness<'static, StagecraftApp>, stage: u32, name: &str, value: i64) {
    let document = harness.state_mut().document_mut().expect("document");
    let doc = DocId::Recipe(RECIPE.into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("the example has the recipe");
    };
    let found = recipe
        .stages
        .iter_mut()
        .find(|s| s.id == stage)
        .expect("stage");
    found.parameters.insert(name.into(), ParamValue::Int(value));
    document.apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::doc(doc),
        format!("Set {name}"),
    ));
    settle(harness);
}

/// The bundle digest and stage 3's digest of a full generation of the document's project now.
fn full_generation(harness: &Harness<'static, StagecraftApp>) -> ([u8; 32], [u8; 32]) {
    let project = harness.state().document().expect("document").project();
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    let source = RecipeSource {
        file: "recipe",
        tree: None,
    };
    let plan = compile(
        &project.recipes[RECIPE],
        &project.families,
        &registry,
        source,
    )
    .plan
    .expect("compiles");
    let overrides = Overrides::of_recipe(project, RECIPE);
    let bundle =
        stagecraft_editor::cook::generate_plan(&plan, project.manifest.root_seed, &overrides)
            .expect("generates");
    (bundle.digest(), bundle.stage(3).expect("3").digest)
}

#[test]
fn an_isolated_stage_follows_its_edits_not_upstream_ones_until_released() {
    let (mut harness, _example) = open(None);
    let (original, _, all_drawn) = digests(&harness);
    harness
        .state_mut()
        .perform(Action::Stage(StageCommand::ToggleIsolate(3)));
    settle(&mut harness);
    let frozen_at = {
        let preview = harness.state().preview().borrow();
        let isolated = preview.inspect.isolated().expect("isolated");
        assert_eq!(isolated.stage(), 3);
        assert_eq!(isolated.frozen.inputs().len(), 1);
        // Only stage 3 is drawn: its objects, no street surfaces.
        assert!(preview.scene.layer(LayerKind::Content).triangles.is_empty());
        isolated.frozen.short_digest()
    };
    assert_eq!(digests(&harness), (original, Some(original), all_drawn));
    let note = format!("isolated: stage 3 · inputs frozen at {frozen_at}");
    assert!(harness.query_by_label(&note).is_some(), "{note}");

    // The stage's own parameter: its output re-runs (the live content follows too).
    set_param(&mut harness, 3, "scale_max", 1500);
    let (live, isolated, drawn) = digests(&harness);
    assert_ne!(live, original);
    assert_eq!(isolated, Some(live));
    assert_eq!(drawn, all_drawn);
    let scaled = live;

    // An upstream edit: the live content moves on, the isolated output keeps the frozen input.
    set_param(&mut harness, 2, "cell_size", 250);
    let (live, isolated, _) = digests(&harness);
    assert_ne!(live, scaled);
    assert_eq!(isolated, Some(scaled));
    {
        // That is the re-run of this very edit (a cache hit: same stage, same frozen inputs).
        let app = harness.state();
        let revision = app.document().expect("document").revision();
        let latest = app.service().latest().expect("a generation");
        assert_eq!(latest.key.revision, revision);
        let run = latest.isolated.as_ref().expect("re-ran the isolated stage");
        let bundle = run.result.as_ref().expect("ran");
        assert_eq!((run.stage, bundle.stages[0].digest), (3, scaled));
        assert!(run.cache_hit);
    }
    let stale = format!("{note} · upstream changed since freezing (stage 2)");
    assert!(harness.query_by_label(&stale).is_some(), "{stale}");
    harness.state_mut().show_tab(Tab::RecipeGraph);
    harness.run_steps(3);
    let marks = harness.state().panels().recipe_graph.stage_marks.clone();
    let mark = marks.isolated.expect("marked");
    assert_eq!((mark.stage, mark.upstream_changed), (3, true));
    assert_eq!(marks.beyond, vec![1, 2]);
    assert!(harness
        .query_by_label_contains("upstream changed since freezing (stage 2)")
        .is_some());
    harness.state_mut().show_tab(Tab::Viewport);

    // Undo reaches the document as ever: the upstream edit undone, the stale note goes.
    harness.state_mut().perform(Action::Undo);
    settle(&mut harness);
    assert_eq!(digests(&harness).0, scaled);
    assert!(harness.query_by_label(&note).is_some(), "{note}");
    harness.state_mut().perform(Action::Redo);
    settle(&mut harness);

    // Release: the live content is drawn again, equal to a full generation of the edits.
    harness.get_by_label("Release").click();
    settle(&mut harness);
    let (full_bundle, full_stage) = full_generation(&harness);
    let preview = harness.state().preview().borrow();
    assert!(preview.inspect.isolated().is_none());
    let content = preview.session.content().expect("content");
    assert_eq!(content.bundle.digest(), full_bundle);
    assert_eq!(content.stage(3).expect("3").digest, full_stage);
    assert!(!preview.scene.layer(LayerKind::Content).triangles.is_empty());
}

/// `--isolate 2` isolates the scatter at start; F9 releases it and isolates the stage the
/// stepping cursor is on.
#[test]
fn isolate_at_start_and_f9() {
    let (mut harness, _example) = open(Some(2));
    {
        let preview = harness.state().preview().borrow();
        assert_eq!(preview.inspect.isolated().map(|i| i.stage()), Some(2));
    }
    harness.key_press(egui::Key::F9);
    harness.run_steps(2);
    assert!(harness
        .state()
        .preview()
        .borrow()
        .inspect
        .isolated()
        .is_none());
    harness.key_press(egui::Key::F10);
    harness.key_press(egui::Key::F9);
    harness.run_steps(2);
    let preview = harness.state().preview().borrow();
    assert_eq!(preview.inspect.step(), Some(1));
    assert_eq!(preview.inspect.isolated().map(|i| i.stage()), Some(1));
    assert!(preview
        .inspect
        .isolated()
        .expect("1")
        .frozen
        .inputs()
        .is_empty());
}

/// A stage rewired away from its frozen input says why its re-run failed and keeps its last
/// output drawn.
#[test]
fn a_rewired_isolated_stage_reports_its_port() {
    let (mut harness, _example) = open(Some(3));
    let (_, before, _) = digests(&harness);
    let document = harness.state_mut().document_mut().expect("document");
    let doc = DocId::Recipe(RECIPE.into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("recipe");
    };
    // A second scatter (its own room) that stage 3 now reads.
    let mut second = recipe.stages[1].clone();
    second.id = 4;
    second.parameters.insert("room".into(), ParamValue::Int(2));
    recipe.stages.push(second);
    // Stage 2, read by no stage now, stays an output (an unused stage is not run).
    recipe.outputs.push(2);
    recipe.outputs.sort_unstable();
    let stage3 = recipe.stages.iter_mut().find(|s| s.id == 3).expect("3");
    for input in &mut stage3.inputs {
        if *input == stagecraft_runtime::project::StageInput::Stage(2) {
            *input = stagecraft_runtime::project::StageInput::Stage(4);
        }
    }
    document.apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::doc(doc),
        "Rewire",
    ));
    settle(&mut harness);
    let preview = harness.state().preview().borrow();
    let isolated = preview.inspect.isolated().expect("still isolated");
    assert_eq!(
        isolated.problem.as_deref(),
        Some(
            "stage 3: invalid-input (at `placements`): port `placements` reads stage 4, whose \
             product was not frozen (frozen: stage 2); release and isolate again"
        )
    );
    assert_eq!(Some(isolated.output.stages[0].digest), before);
}
