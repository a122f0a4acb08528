//! The Recipe graph tab driven through AccessKit (no GPU): nodes from the recipe, per-stage
//! summaries from the generation service on its background thread, selecting a node, adding a
//! stage from the palette as one undoable edit, and node positions stored under `.stagecraft/`.

mod support;

use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::recipe_graph::{RecipeGraphPanel, LAYOUT_FILE};
use stagecraft_editor::panels::{Command, Panel as _};
use stagecraft_editor::service::{focus_recipe, GenerationService};
use stagecraft_runtime::project::{FieldPath, PathSeg};
use support::example;

struct State {
    document: Document,
    panel: RecipeGraphPanel,
    service: GenerationService,
}

fn graph(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let state = State {
        document,
        panel: RecipeGraphPanel::default(),
        service: GenerationService::background(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 700.0))
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
                for command in out {
                    match command {
                        Command::Apply(edit) => state.document.apply(edit),
                        Command::Select(selection) => state.document.select(selection),
                        Command::ShowDiagnostic(_) => {}
                    }
                }
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
