//! The Recipe graph draws a subrecipe node's inputs as pins with their wires (kittest, no GPU):
//! one pin per `binds` entry, typed by the child's `Product(…)` input, an empty pin binding an
//! unbound child input (stage input and bind name in one undoable edit), disconnecting removes
//! both, and a `subrecipe.output` node's pin takes only a `subrecipe` stage. Every edit saves a
//! recipe `stagecraft check` accepts.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::recipe_graph::interop::GraphNode;
use stagecraft_editor::panels::recipe_graph::{stage_selection, RecipeGraphPanel};
use stagecraft_editor::panels::Panel as _;
use stagecraft_runtime::project::{ParamValue, StageInput};
use support::{drag, example, stagecraft, Example};

struct State {
    document: Document,
    panel: RecipeGraphPanel,
}

/// The graph of recipe `recipe` (shown by selecting its stage 1).
fn graph(example: &Example, recipe: &str) -> Harness<'static, State> {
    let document = Document::open(&example.dir).expect("example opens");
    let state = State {
        document,
        panel: RecipeGraphPanel::default(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 700.0))
        .build_ui_state(
            |ui, state: &mut State| {
                let mut out = Vec::new();
                state.panel.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    let shown = harness.state().document.project().recipes[recipe].clone();
    let first = stage_selection(recipe, &shown, 1).expect("stage 1");
    harness.state_mut().document.select(first);
    // Fitting settles within a few frames.
    harness.run_steps(8);
    harness
}

/// The centres of the pin circles of stage `node` on its right edge (`output`) or left edge,
/// top to bottom.
fn pins(harness: &Harness<'_, State>, node: u32, output: bool) -> Vec<egui::Pos2> {
    let (_, rect) = harness
        .state()
        .panel
        .node_screen_rects()
        .iter()
        .find(|(n, _)| *n == GraphNode::Stage(node))
        .cloned()
        .unwrap_or_else(|| panic!("stage {node} is drawn"));
    let edge = if output { rect.right() } else { rect.left() };
    let mut found: Vec<egui::Pos2> = harness
        .output()
        .shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::Circle(circle) => Some(circle.center),
            _ => None,
        })
        .filter(|c| (c.x - edge).abs() < 24.0 && rect.y_range().contains(c.y))
        .collect();
    found.sort_by(|a, b| a.y.total_cmp(&b.y));
    found
}

/// Drags a wire from stage `from`'s output to input pin `port` of stage `to`.
fn wire(harness: &mut Harness<'_, State>, from: u32, to: u32, port: usize) {
    let source = pins(harness, from, true)[0];
    let target = pins(harness, to, false)[port];
    drag(harness, source, target, 8);
    harness.run_steps(2);
}

/// Right-clicks input pin `port` of stage `stage` (drops its wire).
fn unwire(harness: &mut Harness<'_, State>, stage: u32, port: usize) {
    let at = pins(harness, stage, false)[port];
    let button = |pressed| egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Secondary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    harness.event(button(true));
    harness.run_steps(1);
    harness.event(button(false));
    harness.run_steps(3);
}

/// Stage `stage`'s inputs and `binds` in the document.
fn stage_of(
    harness: &Harness<'_, State>,
    recipe: &str,
    stage: u32,
) -> (Vec<StageInput>, Vec<String>) {
    let stage = harness.state().document.project().recipes[recipe]
        .stages
        .iter()
        .find(|s| s.id == stage)
        .cloned()
        .expect("the stage");
    let binds = match stage.parameters.get("binds") {
        Some(ParamValue::List(items)) => items
            .iter()
            .map(|item| match item {
                ParamValue::Str(name) => name.clone(),
                other => format!("{other:?}"),
            })
            .collect(),
        _ => Vec::new(),
    };
    (stage.inputs, binds)
}

/// Saves, and returns the saved text of stage `stage` (from its `id:` line to the next stage's)
/// and `stagecraft check`'s verdict on the project.
fn saved(
    harness: &mut Harness<'_, State>,
    example: &Example,
    file: &str,
    stage: u32,
) -> (String, String) {
    harness.state_mut().document.save().expect("saves");
    let text = std::fs::read_to_string(example.dir.join(file)).expect("recipe");
    let start = text.find(&format!("id: {stage},")).expect("the stage");
    let end = text[start..]
        .find("Stage(")
        .map_or(text.len(), |e| start + e);
    let check = stagecraft(&["check", example.dir.to_str().expect("utf-8")]);
    let verdict = String::from_utf8_lossy(&check.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_owned();
    (text[start..end].to_owned(), verdict)
}

const CLEAN: &str = "0 errors, 0 warnings";

#[test]
fn a_subrecipe_input_pin_is_wired_disconnected_and_rebound_as_undoable_edits() {
    const RECIPE: &str = "street-planting";
    const FILE: &str = "recipes/street-planting.recipe.ron";
    let example = example(RECIPE);
    let mut harness = graph(&example, RECIPE);
    // Both subrecipe stages show their `block` pin, wired from the block each reads.
    let wires = harness.state().panel.wires();
    assert!(
        wires.contains(&(GraphNode::Stage(1), GraphNode::Stage(10), 0)),
        "{wires:?}"
    );
    assert!(
        wires.contains(&(GraphNode::Stage(2), GraphNode::Stage(20), 0)),
        "{wires:?}"
    );
    assert_eq!(harness.query_all_by_label("block").count(), 2);
    assert_eq!(
        pins(&harness, 10, false).len(),
        1,
        "one bind, nothing unbound"
    );
    let steps = harness.state().document.record().len();

    // Dropping the wire removes the stage input and its bind name, as one edit.
    unwire(&mut harness, 10, 0);
    assert_eq!(stage_of(&harness, RECIPE, 10), (vec![], vec![]));
    assert_eq!(harness.state().document.record().len(), steps + 1);
    let wires = harness.state().panel.wires();
    assert!(
        !wires.iter().any(|(_, to, _)| *to == GraphNode::Stage(10)),
        "{wires:?}"
    );
    // The child's `block` is now unbound: the node offers an empty pin for it.
    assert!(harness.query_all_by_label("+ input").next().is_some());
    let (text, _) = saved(&mut harness, &example, FILE, 10);
    assert!(
        text.contains("inputs: [],") && text.contains("\"binds\": [],"),
        "{text}"
    );

    // Undo puts both back.
    assert!(harness.state_mut().document.undo());
    harness.run_steps(3);
    assert_eq!(
        stage_of(&harness, RECIPE, 10),
        (vec![StageInput::Stage(1)], vec!["block".to_owned()])
    );
    assert!(harness.state().panel.wires().contains(&(
        GraphNode::Stage(1),
        GraphNode::Stage(10),
        0
    )));

    // Disconnected again, then wired into the empty pin: input and bind name come back in one
    // edit, and the project checks clean.
    unwire(&mut harness, 10, 0);
    let steps = harness.state().document.record().len();
    wire(&mut harness, 1, 10, 0);
    assert_eq!(
        stage_of(&harness, RECIPE, 10),
        (vec![StageInput::Stage(1)], vec!["block".to_owned()])
    );
    assert_eq!(harness.state().document.record().len(), steps + 1);
    assert!(harness
        .query_all_by_label_contains("Refused")
        .next()
        .is_none());
    let (text, verdict) = saved(&mut harness, &example, FILE, 10);
    assert!(
        text.contains("inputs: [\n                1,\n            ],")
            && text.contains("\"binds\": [\n                    \"block\",\n                ],"),
        "{text}"
    );
    assert!(verdict.ends_with(CLEAN), "{verdict}");
}

#[test]
fn a_subrecipe_output_pin_takes_only_a_subrecipe_stage() {
    const RECIPE: &str = "sidewalk-outputs";
    const FILE: &str = "recipes/sidewalk-outputs.recipe.ron";
    let example = example(RECIPE);
    let mut harness = graph(&example, RECIPE);
    // Stage 11 shows its wire from the run it republishes.
    let wires = harness.state().panel.wires();
    assert!(
        wires.contains(&(GraphNode::Stage(10), GraphNode::Stage(11), 0)),
        "{wires:?}"
    );
    assert!(
        wires.contains(&(GraphNode::Stage(1), GraphNode::Stage(10), 0)),
        "{wires:?}"
    );
    assert!(harness.query_all_by_label("run*").next().is_some());
    let steps = harness.state().document.record().len();

    // A street block is no run: refused, saying why, nothing changes.
    wire(&mut harness, 1, 11, 0);
    assert!(
        harness
            .query_all_by_label(
                "Refused: the port takes a subrecipe stage (the run it republishes), not stage 1 (street.block)."
            )
            .next()
            .is_some(),
        "the refusal is shown"
    );
    assert_eq!(stage_of(&harness, RECIPE, 11).0, [StageInput::Stage(10)]);
    assert_eq!(harness.state().document.record().len(), steps);

    // Dropped and wired again: one edit each, the saved recipe checks clean.
    unwire(&mut harness, 11, 0);
    assert_eq!(stage_of(&harness, RECIPE, 11).0, []);
    assert_eq!(harness.state().document.record().len(), steps + 1);
    wire(&mut harness, 10, 11, 0);
    assert_eq!(stage_of(&harness, RECIPE, 11).0, [StageInput::Stage(10)]);
    assert_eq!(harness.state().document.record().len(), steps + 2);
    let (text, verdict) = saved(&mut harness, &example, FILE, 11);
    assert!(
        text.contains("inputs: [\n                10,\n            ],"),
        "{text}"
    );
    assert!(verdict.ends_with(CLEAN), "{verdict}");
    // Undo takes the wire back off.
    assert!(harness.state_mut().document.undo());
    harness.run_steps(3);
    assert_eq!(stage_of(&harness, RECIPE, 11).0, []);
}
