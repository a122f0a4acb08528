//! The Population tab driven through kittest: per-source counts, the "why (not) spawning" line
//! of each source, and the current frame's lifecycle events; the Provenance tab's lifecycle
//! history of a selected pedestrian.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::population::{event_text, PopulationPanel};
use stagecraft_editor::panels::provenance::ProvenancePanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{PickId, Preview, SharedPreview};
use support::example;

struct State {
    document: Document,
    population: PopulationPanel,
    provenance: ProvenancePanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn harness(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let state = State {
        document,
        population: PopulationPanel::new(preview.clone()),
        provenance: ProvenancePanel::new(preview.clone()),
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 900.0))
        .build_ui_state(
            |ui, state: &mut State| {
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                ui.columns(2, |columns| {
                    state
                        .population
                        .ui(&mut columns[0], &state.document, &mut out);
                    state
                        .provenance
                        .ui(&mut columns[1], &state.document, &mut out);
                });
                assert!(out.is_empty(), "neither tab edits the project");
            },
            state,
        );
    harness.run_steps(3);
    harness
}

#[test]
fn sources_reasons_and_this_frames_events_are_shown() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    // Go to the first frame with a lifecycle event.
    let first = {
        let mut preview = harness.state().preview.borrow_mut();
        preview.session.seek(200);
        let world = preview.session.world().expect("a world");
        let event = *world
            .events()
            .all()
            .first()
            .expect("something happened by frame 200");
        preview.session.seek(event.frame);
        let world = preview.session.world().expect("a world");
        event_text(world, &event)
    };
    harness.run_steps(2);
    assert!(
        harness.query_by_label(&first).is_some(),
        "the event `{first}` is listed"
    );
    for header in [
        "source",
        "target",
        "ambient",
        "mission",
        "attached",
        "pooled",
        "quarantined",
    ] {
        assert!(
            harness.query_all_by_label(header).next().is_some(),
            "column {header}"
        );
    }
    let statuses = harness
        .state()
        .preview
        .borrow()
        .session
        .world()
        .expect("a world")
        .source_statuses();
    for status in &statuses {
        assert!(
            harness.query_by_label(&status.id).is_some(),
            "row {}",
            status.id
        );
        assert!(
            harness
                .query_by_label_contains(&format!("`{}`", status.id))
                .is_some(),
            "a why line for {}",
            status.id
        );
    }
}

#[test]
fn a_selected_pedestrian_shows_its_lifecycle_history() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let (id, expected) = {
        let mut preview = harness.state().preview.borrow_mut();
        preview.session.seek(120);
        let world = preview.session.world().expect("a world");
        let row = 0;
        let handle = world.handle_of(row).expect("a live ped");
        let events = world.events().for_handle(handle);
        let id = world.motion_frames().get(row).expect("a frame").id.bits();
        (id, events.len())
    };
    harness.state().preview.borrow_mut().selected = Some(PickId::Agent { id });
    harness.run_steps(2);
    assert!(expected > 0, "the ped was admitted and realized");
    assert!(
        harness
            .query_by_label_contains(&format!("({expected} events)"))
            .is_some(),
        "the Provenance tab counts {expected} lifecycle events"
    );
}

#[test]
fn a_pedestrian_label_names_its_source_ordinal_and_handle() {
    let example = example("street-block");
    let harness = harness(&example.dir);
    let mut preview = harness.state().preview.borrow_mut();
    preview.session.seek(60);
    let session = &preview.session;
    let world = session.world().expect("a world");
    let handle = world.handle_of(0).expect("a live ped");
    let id = world.motion_frames().first().expect("a frame").id.bits();
    let label = stagecraft_editor::viewport::interact::short_label(session, &PickId::Agent { id })
        .expect("a label");
    let handle = stagecraft_editor::panels::population::handle_text(handle);
    assert!(label.ends_with(&format!(" {handle}")), "{label}");
}
