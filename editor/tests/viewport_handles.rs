//! The Viewport's scenario drag handles driven through kittest (no GPU: the scene's paint
//! callback is not run): a box corner dragged on the ground is one undoable edit, and a drag
//! that would invert the box is refused with a message and changes nothing.

mod support;

use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::viewport::ViewportPanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::handles::{BoxSlot, HandleTarget};
use stagecraft_editor::viewport::{Preview, SharedPreview};
use stagecraft_runtime::project::Box3;
use support::example;

struct State {
    document: Document,
    panel: ViewportPanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn viewport(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let mut panel = ViewportPanel::new(preview.clone());
    panel.camera.projection = stagecraft_editor::viewport::Projection::TopDown;
    let state = State {
        document,
        panel,
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(800.0, 600.0))
        .build_ui_state(
            |ui, state: &mut State| {
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                state.panel.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(4);
    harness
}

fn no_spawn_box(harness: &Harness<'_, State>) -> Box3 {
    harness.state().document.project().scenarios["crosswalk-rush"]
        .no_spawn_box
        .expect("the example has a no-spawn box")
}

fn handle_at(harness: &Harness<'_, State>, target: HandleTarget) -> egui::Pos2 {
    harness
        .state()
        .panel
        .handles
        .drawn
        .iter()
        .find(|(t, _)| *t == target)
        .map(|(_, at)| *at)
        .expect("handle drawn")
}

#[test]
fn a_dragged_box_corner_is_one_undoable_edit_and_an_inverting_drag_is_refused() {
    let example = example("street-block");
    let mut harness = viewport(&example.dir);
    let before = no_spawn_box(&harness);
    let max = HandleTarget::BoxMax(BoxSlot::NoSpawn);
    let from = handle_at(&harness, max);
    support::drag(&mut harness, from, from + egui::vec2(60.0, 0.0), 5);
    let after = no_spawn_box(&harness);
    assert!(after.max.x > before.max.x + 1.0, "{before:?} → {after:?}");
    assert_eq!(after.min, before.min, "the other corner stays");
    assert_eq!(after.max.z, before.max.z, "the height stays");
    assert!(harness.state_mut().document.undo(), "one undo step");
    harness.run_steps(2);
    assert_eq!(no_spawn_box(&harness), before, "and it is the whole drag");

    let min = HandleTarget::BoxMin(BoxSlot::NoSpawn);
    let from = handle_at(&harness, min);
    let past_max = handle_at(&harness, max) + egui::vec2(40.0, 0.0);
    support::drag(&mut harness, from, egui::pos2(past_max.x, from.y), 5);
    let message = harness.state().panel.handles.message.clone();
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.starts_with("refused: the no-spawn box's min x")),
        "{message:?}"
    );
    let refused = no_spawn_box(&harness);
    assert!(refused.min.x <= refused.max.x, "{refused:?}");
}
