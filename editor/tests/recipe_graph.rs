//! The Recipe graph tab driven through AccessKit (no GPU): nodes from the recipe, per-stage
//! summaries from the generation service on its background thread, selecting a node, adding a
//! stage from the palette as one undoable edit, and node positions stored under `.stagecraft/`.

mod support;

use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::recipe_graph::interop::GraphNode;
use stagecraft_editor::panels::recipe_graph::{RecipeGraphPanel, LAYOUT_FILE};
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::{focus_recipe, GenerationService};
use stagecraft_runtime::project::{FieldPath, PathSeg};
use support::example;

struct State {
    document: Document,
    panel: RecipeGraphPanel,
    service: GenerationService,
}

fn graph(dir: &std::path::Path) -> Harness<'static, State> {
    graph_sized(dir, egui::vec2(1400.0, 700.0))
}

fn graph_sized(dir: &std::path::Path, size: egui::Vec2) -> Harness<'static, State> {
    graph_stepped(dir, size, 0.25)
}

/// The graph with `step_dt` seconds a frame (egui_kittest's default is a quarter second).
fn graph_stepped(dir: &std::path::Path, size: egui::Vec2, step_dt: f32) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let state = State {
        document,
        panel: RecipeGraphPanel::default(),
        service: GenerationService::background(),
    };
    let mut harness = Harness::builder()
        .with_size(size)
        .with_step_dt(step_dt)
        .build_ui_state(
            |ui, state: &mut State| {
                // What the app does once a frame before drawing the tabs.
                let recipe = focus_recipe(&state.document, None, state.service.recipe());
                state.service.sync(&state.document, recipe.as_deref());
                state.panel.follow(&state.service);
                if state.service.is_busy() {
                    ui.ctx().request_repaint();
                }
                let mut out = Vec::new();
                state.panel.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(2);
    harness
}

/// Steps the UI until `label` shows (the background generation takes a few frames).
fn wait_for(harness: &mut Harness<'_, State>, label: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while harness.query_all_by_label_contains(label).next().is_none() {
        assert!(Instant::now() < deadline, "`{label}` never showed");
        std::thread::sleep(Duration::from_millis(10));
        harness.run_steps(1);
    }
}

fn stage_count(harness: &Harness<'_, State>) -> usize {
    harness.state().document.project().recipes["street-block"]
        .stages
        .len()
}

#[test]
fn nodes_summaries_selection_and_palette() {
    let example = example("street-block");
    let mut harness = graph(&example.dir);
    assert!(harness.query_by_label_contains("Block layout").is_some());
    assert!(harness.query_by_label_contains("input props").is_some());
    // Each stage shows its last output once the background generation is back.
    wait_for(&mut harness, "rejected");
    assert!(harness
        .query_all_by_label_contains("cache miss")
        .next()
        .is_some());

    // Selecting a stage (from the graph or the Inspector) marks its node.
    let selection = stagecraft_editor::panels::recipe_graph::stage_selection(
        "street-block",
        &harness.state().document.project().recipes["street-block"],
        3,
    )
    .expect("stage 3");
    assert_eq!(
        selection.path,
        FieldPath(vec![PathSeg::Field("stages".into()), PathSeg::Index(2)])
    );
    harness.state_mut().document.select(selection);
    harness.run_steps(2);
    assert!(harness
        .query_by_label_contains("▶ 3 Orient props")
        .is_some());

    // The palette adds a stage as one edit, which undo takes back.
    assert_eq!(stage_count(&harness), 3);
    harness.get_by_label("Add stage").click();
    harness.run_steps(2);
    harness.get_by_label("layout.grid-mission v1").click();
    harness.run_steps(3);
    assert_eq!(stage_count(&harness), 4);
    let layout = std::fs::read_to_string(example.dir.join(LAYOUT_FILE)).expect("layout saved");
    assert!(layout.contains("stage:4"), "{layout}");
    let recipe = std::fs::read_to_string(example.dir.join("recipes/street-block.recipe.ron"))
        .expect("recipe");
    assert!(
        !recipe.contains("pos"),
        "positions never go into the recipe"
    );
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(stage_count(&harness), 3);
}

/// The size of the Recipe graph tab in the default layout of a 1280×800 window.
const TAB_SIZE: egui::Vec2 = egui::vec2(590.0, 470.0);

#[test]
fn on_open_every_node_is_visible_at_a_readable_zoom_and_a_left_click_selects_one() {
    let example = example("street-block");
    let mut harness = graph_sized(&example.dir, TAB_SIZE);
    harness.run_steps(4);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, TAB_SIZE);
    let panel = &harness.state().panel;
    let rects = panel.node_screen_rects().to_vec();
    assert_eq!(rects.len(), 4, "the input and three stages: {rects:?}");
    for (node, rect) in &rects {
        assert!(
            window.contains_rect(*rect),
            "{node:?} at {rect:?} is cut off"
        );
    }
    // Body text is 14 points at zoom 1: at 0.7 it is still about 10 points.
    assert!(panel.zoom() >= 0.7, "zoom {} makes text tiny", panel.zoom());

    // A plain left click on the third stage's node selects it.
    let (_, rect) = rects
        .iter()
        .find(|(node, _)| *node == GraphNode::Stage(3))
        .expect("stage 3 is drawn");
    let at = egui::pos2(rect.center().x, rect.bottom() - 6.0);
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    harness.run_steps(2);
    let expected = stagecraft_editor::panels::recipe_graph::stage_selection(
        "street-block",
        &harness.state().document.project().recipes["street-block"],
        3,
    );
    assert_eq!(Some(harness.state().document.selection().clone()), expected);
    assert!(harness
        .query_by_label_contains("▶ 3 Orient props")
        .is_some());
}

/// Every text the graph draws whose content is exactly `text`: its galley's row count, whether
/// the galley lies inside the clip rectangle it is drawn with, and whether a pin circle covers it.
fn drawn_text(harness: &Harness<'_, State>, text: &str) -> Vec<(usize, bool, bool)> {
    let shapes = &harness.output().shapes;
    let circles: Vec<egui::Rect> = shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::Circle(circle) => Some(egui::Rect::from_center_size(
                circle.center,
                egui::Vec2::splat(2.0 * circle.radius + circle.stroke.width),
            )),
            _ => None,
        })
        .collect();
    shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::Text(shape) if shape.galley.job.text == text => {
                let rect = shape.galley.rect.translate(shape.pos.to_vec2());
                // Half a point of slack for sub-pixel rounding of the glyph boxes.
                let inside = clipped.clip_rect.expand(0.5).contains_rect(rect);
                let covered = circles.iter().any(|pin| pin.intersects(rect));
                Some((shape.galley.rows.len(), inside, covered))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn pin_labels_are_never_wrapped_clipped_or_covered_by_their_pin() {
    let example = example("street-block");
    let mut harness = graph_sized(&example.dir, TAB_SIZE);
    wait_for(&mut harness, "rejected");
    harness.run_steps(8);
    for label in [
        "Family",
        "StreetBlock",
        "Placements",
        "PlacedObjects",
        "family*",
        "areas",
    ] {
        let drawn = drawn_text(&harness, label);
        assert!(!drawn.is_empty(), "pin label {label:?} is drawn");
        for (rows, inside, covered) in drawn {
            assert_eq!(rows, 1, "pin label {label:?} wraps onto {rows} rows");
            assert!(inside, "pin label {label:?} is clipped");
            assert!(!covered, "pin label {label:?} is under a pin circle");
        }
    }
}

/// A subrecipe stage opens in place: the button shows the child's stages with a breadcrumb bar,
/// and the breadcrumb goes back to the parent with the subrecipe stage selected.
#[test]
fn a_subrecipe_opens_in_place_and_its_breadcrumb_goes_back() {
    let example = example("street-planting");
    let mut harness = graph(&example.dir);
    let parent = "street-planting";
    let recipe = harness.state().document.project().recipes[parent].clone();
    // A street block stage offers nothing to open.
    let block = stagecraft_editor::panels::recipe_graph::stage_selection(parent, &recipe, 1);
    harness.state_mut().document.select(block.expect("1"));
    harness.run_steps(2);
    assert!(harness
        .query_by_label_contains("Main street props")
        .is_some());
    assert!(harness.query_by_label_contains("Open subrecipe").is_none());
    let selection =
        stagecraft_editor::panels::recipe_graph::stage_selection(parent, &recipe, 10).expect("10");
    harness.state_mut().document.select(selection.clone());
    harness.run_steps(2);
    harness.get_by_label("Open subrecipe of stage 10").click();
    harness.run_steps(3);
    let trail = harness.state().panel.trail().to_vec();
    assert_eq!(trail.len(), 1);
    assert_eq!(
        (
            trail[0].recipe.as_str(),
            trail[0].stage,
            trail[0].child.as_str()
        ),
        (parent, 10, "sidewalk-props")
    );
    assert!(harness
        .query_by_label_contains("Scatter props on sidewalks")
        .is_some());
    assert!(harness
        .query_by_label_contains("Main street props")
        .is_none());
    assert!(harness.query_by_label_contains("› stage 10 ›").is_some());
    harness.get_by_label(parent).click();
    harness.run_steps(3);
    assert!(harness.state().panel.trail().is_empty());
    assert_eq!(harness.state().document.selection(), &selection);
    assert!(harness
        .query_by_label_contains("Main street props")
        .is_some());
}

/// A double click on a subrecipe stage's node opens it in place.
#[test]
fn a_double_click_on_a_subrecipe_node_opens_it() {
    let example = example("street-planting");
    // Short frames, so two clicks a few frames apart fall within egui's double-click delay.
    let mut harness = graph_stepped(&example.dir, egui::vec2(1400.0, 700.0), 1.0 / 60.0);
    let parent = "street-planting";
    let recipe = harness.state().document.project().recipes[parent].clone();
    let block = stagecraft_editor::panels::recipe_graph::stage_selection(parent, &recipe, 1);
    harness.state_mut().document.select(block.expect("1"));
    harness.run_steps(4);
    let (_, rect) = harness
        .state()
        .panel
        .node_screen_rects()
        .iter()
        .find(|(node, _)| *node == GraphNode::Stage(20))
        .cloned()
        .expect("stage 20 is drawn");
    let at = egui::pos2(rect.center().x, rect.bottom() - 6.0);
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    // Press, release, press, release, a frame each: the second click is a double click.
    for pressed in [true, false, true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    harness.run_steps(3);
    let trail = harness.state().panel.trail().to_vec();
    assert_eq!(trail.len(), 1, "double click opened stage 20");
    assert_eq!(
        (trail[0].stage, trail[0].child.as_str()),
        (20, "sidewalk-props")
    );
    assert!(harness.query_by_label_contains("Orient props").is_some());
}

/// The palette offers the subrecipe operator from the registry like every other: adding one is
/// one edit, a stage of operator `subrecipe` at its parameters' defaults, which undo takes back.
#[test]
fn the_palette_adds_a_subrecipe_stage_as_one_undoable_edit() {
    let example = example("street-planting");
    let mut harness = graph(&example.dir);
    let parent = "street-planting";
    let before = harness.state().document.project().recipes[parent].clone();
    // The graph shows the recipe of the selection.
    let block = stagecraft_editor::panels::recipe_graph::stage_selection(parent, &before, 1);
    harness.state_mut().document.select(block.expect("1"));
    harness.run_steps(2);
    assert!(harness
        .query_by_label_contains("Main street props")
        .is_some());
    let steps = harness.state().document.record().len();
    harness.get_by_label("Add stage").click();
    harness.run_steps(2);
    harness.get_by_label("subrecipe v1").click();
    harness.run_steps(3);
    let after = harness.state().document.project().recipes[parent].clone();
    assert_eq!(after.stages.len(), before.stages.len() + 1);
    let added = after.stages.last().expect("the new stage");
    assert_eq!((added.operator.as_str(), added.algorithm), ("subrecipe", 1));
    assert_eq!(
        added.id,
        before.stages.iter().map(|s| s.id).max().unwrap_or(0) + 1
    );
    // The defaults of its schema: `binds` empty; `recipe` (required) and `output` (optional)
    // left for the author.
    let given: Vec<(&str, &stagecraft_runtime::project::ParamValue)> = added
        .parameters
        .iter()
        .map(|(name, value)| (name.as_str(), value))
        .collect();
    assert_eq!(
        given,
        [(
            "binds",
            &stagecraft_runtime::project::ParamValue::List(Vec::new())
        )]
    );
    assert_eq!(harness.state().document.record().len(), steps + 1);
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(
        harness.state().document.project().recipes[parent],
        before,
        "undo restores the recipe"
    );
}
