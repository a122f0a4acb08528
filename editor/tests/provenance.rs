//! The Provenance tab driven through AccessKit (no GPU): a picked placement's origin, draws and
//! identity tuple; a picked pedestrian's state; the overlay toggles.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::provenance::ProvenancePanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{ColourBy, LayerKind, PickId, Preview, SharedPreview};
use support::example;

struct State {
    document: Document,
    panel: ProvenancePanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn provenance(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let state = State {
        document,
        panel: ProvenancePanel::new(preview.clone()),
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(700.0, 900.0))
        .build_ui_state(
            |ui, state: &mut State| {
                // What the app does once a frame before drawing the tabs.
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                state.panel.ui(ui, &state.document, &mut out);
                assert!(out.is_empty(), "provenance never edits the project");
            },
            state,
        );
    harness.run_steps(2);
    harness
}

#[test]
fn a_picked_placement_shows_where_it_came_from() {
    let example = example("street-block");
    let mut harness = provenance(&example.dir);
    assert!(harness
        .query_by_label_contains("Click an object or a pedestrian")
        .is_some());
    let first = {
        let preview = harness.state().preview.borrow();
        preview
            .scene
            .layer(LayerKind::Placements)
            .picks
            .first()
            .map(|(pick, _)| pick.clone())
    };
    let Some(pick @ PickId::Object { .. }) = first else {
        panic!("the example places props");
    };
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.run_steps(2);
    for label in [
        "Recipe",
        "Stage",
        "Identity",
        "Asset",
        "Parent",
        "Identity tuple",
    ] {
        assert!(harness.query_by_label(label).is_some(), "{label}");
    }
    assert!(harness.query_by_label_contains("street-props / ").is_some());
    assert!(harness.query_by_label_contains("Draws (").is_some());
    assert!(harness.query_by_label_contains("Constraints (").is_some());
    assert!(harness.query_by_label("Overrides (0)").is_some());
}

#[test]
fn a_picked_pedestrian_shows_its_state() {
    let example = example("street-block");
    let mut harness = provenance(&example.dir);
    let id = {
        let mut preview = harness.state().preview.borrow_mut();
        preview.session.step(100);
        preview.session.world().expect("world").agents().id[0]
    };
    harness.state().preview.borrow_mut().selected = Some(PickId::Agent { id });
    harness.run_steps(2);
    for label in ["Source", "State", "Route", "Fixed steps"] {
        assert!(harness.query_by_label(label).is_some(), "{label}");
    }
    assert!(harness.query_by_label("north-walkers").is_some());
}

#[test]
fn overlay_toggles_change_the_viewport_options() {
    let example = example("street-block");
    let mut harness = provenance(&example.dir);
    harness.get_by_label("stage").click();
    harness.get_by_label("Rejected candidates").click();
    harness.run_steps(2);
    let preview = harness.state().preview.borrow();
    assert_eq!(preview.options.colour_by, ColourBy::Stage);
    assert!(preview.options.show_rejected);
}
