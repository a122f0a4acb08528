//! The Recipe graph wires a subrecipe node's output like any typed output (kittest, no GPU): its
//! pin is typed by what the compiled child publishes, a compatible wire is one undoable edit
//! that the saved recipe holds, an incompatible one is refused with the reason, and a subrecipe
//! whose child is unknown leaves the pin untyped, saying why.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::recipe_graph::interop::GraphNode;
use stagecraft_editor::panels::recipe_graph::{stage_selection, RecipeGraphPanel};
use stagecraft_editor::panels::Panel as _;
use stagecraft_runtime::project::StageInput;
use support::{drag, example, Example};

const PARENT: &str = "street-planting";
const PARENT_FILE: &str = "recipes/street-planting.recipe.ron";
const CHILD_FILE: &str = "recipes/sidewalk-props.recipe.ron";
const CHILD_PATH: &str = "\"recipe\": \"recipes/sidewalk-props.recipe.ron\",";

/// Stage 30: a select-and-place with its placements port free.
const PLACE: &str = "        Stage(
            id: 30,
            label: \"Place\",
            operator: \"environment.select-and-place\",
            algorithm: 1,
            inputs: [],
            parameters: {},
        ),
    ],
    outputs: [";

/// The street-planting example with its child publishing its scatter (1) beside its placement
/// (2), stage 10 publishing the scatter's Placements and stage 20 (`stage_20`'s `recipe` line)
/// the PlacedObjects, and stage 30 added.
fn project(stage_20: &str) -> Example {
    let example = example(PARENT);
    let edit = |file: &str, change: &dyn Fn(&str) -> String| {
        let path = example.dir.join(file);
        let text = std::fs::read_to_string(&path).expect("example file");
        std::fs::write(&path, change(&text)).expect("write");
    };
    edit(CHILD_FILE, &|text| {
        text.replace(
            "outputs: [\n        2,",
            "outputs: [\n        1,\n        2,",
        )
    });
    edit(PARENT_FILE, &|text| {
        let parts: Vec<&str> = text.split(CHILD_PATH).collect();
        assert_eq!(parts.len(), 3, "two subrecipe stages");
        format!(
            "{}\"output\": 1, {CHILD_PATH}{}\"output\": 2, {stage_20}{}",
            parts[0], parts[1], parts[2]
        )
        .replacen("    ],\n    outputs: [", PLACE, 1)
    });
    example
}

struct State {
    document: Document,
    panel: RecipeGraphPanel,
}

fn graph(example: &Example) -> Harness<'static, State> {
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
    // The graph shows the recipe of the selection.
    let recipe = harness.state().document.project().recipes[PARENT].clone();
    let block = stage_selection(PARENT, &recipe, 1).expect("stage 1");
    harness.state_mut().document.select(block);
    // Fitting settles within a few frames.
    harness.run_steps(8);
    harness
}

/// The centre of the pin circle of `node` on its right edge (`output`) or left edge.
fn pin(harness: &Harness<'_, State>, node: u32, output: bool) -> egui::Pos2 {
    let (_, rect) = harness
        .state()
        .panel
        .node_screen_rects()
        .iter()
        .find(|(n, _)| *n == GraphNode::Stage(node))
        .cloned()
        .unwrap_or_else(|| panic!("stage {node} is drawn"));
    let edge = if output { rect.right() } else { rect.left() };
    harness
        .output()
        .shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::Circle(circle) => Some(circle.center),
            _ => None,
        })
        .filter(|c| (c.x - edge).abs() < 24.0 && rect.y_range().contains(c.y))
        .min_by(|a, b| (a.x - edge).abs().total_cmp(&(b.x - edge).abs()))
        .unwrap_or_else(|| panic!("stage {node} has a pin on that edge"))
}

fn wire(harness: &mut Harness<'_, State>, from: u32, to: u32) {
    let (from, to) = (pin(harness, from, true), pin(harness, to, false));
    drag(harness, from, to, 8);
    harness.run_steps(2);
}

fn inputs_of(harness: &Harness<'_, State>, stage: u32) -> Vec<StageInput> {
    harness.state().document.project().recipes[PARENT]
        .stages
        .iter()
        .find(|s| s.id == stage)
        .map(|s| s.inputs.clone())
        .expect("the stage")
}

#[test]
fn a_subrecipe_output_wires_to_a_port_of_its_kind_as_one_undoable_edit() {
    let example = project(CHILD_PATH);
    let mut harness = graph(&example);
    // The pins show what each subrecipe stage's chosen output publishes.
    let shown = |harness: &Harness<'_, State>, label: &str| {
        harness.query_all_by_label(label).next().is_some()
    };
    assert!(shown(&harness, "Placements"));
    assert!(shown(&harness, "PlacedObjects"));
    assert!(!shown(&harness, "untyped"));
    let steps = harness.state().document.record().len();

    // Stage 20 publishes PlacedObjects: select-and-place's port refuses it, saying why.
    wire(&mut harness, 20, 30);
    assert!(
        harness
            .query_all_by_label("Refused: the port takes a Placements, not a PlacedObjects.")
            .next()
            .is_some(),
        "the refusal is shown"
    );
    assert_eq!(inputs_of(&harness, 30), []);
    assert_eq!(harness.state().document.record().len(), steps);

    // Stage 10 publishes Placements: one edit, which the saved recipe holds.
    wire(&mut harness, 10, 30);
    assert_eq!(inputs_of(&harness, 30), [StageInput::Stage(10)]);
    assert_eq!(harness.state().document.record().len(), steps + 1);
    assert!(harness
        .query_all_by_label_contains("Refused")
        .next()
        .is_none());
    harness.state_mut().document.save().expect("saves");
    let saved = std::fs::read_to_string(example.dir.join(PARENT_FILE)).expect("recipe");
    let place = &saved[saved.find("id: 30").expect("stage 30")..];
    assert!(
        place.contains("inputs: [\n                10,\n            ],"),
        "{place}"
    );

    // Undo takes the wire back.
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(inputs_of(&harness, 30), []);
}

#[test]
fn a_subrecipe_without_a_known_child_has_an_untyped_pin_saying_why() {
    let example = project("\"recipe\": \"recipes/nowhere.recipe.ron\",");
    let mut harness = graph(&example);
    assert!(harness.query_all_by_label("Placements").next().is_some());
    assert!(harness.query_all_by_label("untyped").next().is_some());
    // Pointing at the pin's label (left of the pin) shows why.
    let at = pin(&harness, 20, true) - egui::vec2(30.0, 0.0);
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(8);
    assert!(
        harness
            .query_all_by_label_contains(
                "Untyped, wires to no typed port: stage 20 names the missing recipe file `recipes/nowhere.recipe.ron`"
            )
            .next()
            .is_some(),
        "the hover says why"
    );
    // A wire from it is refused with the reason.
    wire(&mut harness, 20, 30);
    assert!(harness
        .query_all_by_label_contains(
            "Refused: the port takes a Placements, not a value of unknown type (stage 20 names the missing recipe file"
        )
        .next()
        .is_some());
    assert_eq!(inputs_of(&harness, 30), []);
}
