//! The Population tab driven through kittest: per-source counts, the "why (not) spawning" lines
//! of each source (this frame's answer with its places, the run's totals under it), and the
//! current frame's lifecycle events; the Provenance tab's lifecycle history of a selected
//! pedestrian.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::population::{event_text, PopulationPanel};
use stagecraft_editor::panels::provenance::ProvenancePanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{PickId, Preview, SharedPreview};
use stagecraft_runtime::sim::EventKind;
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
        for why in ["`{}` at frame", "over the run: `{}`"] {
            assert!(
                harness
                    .query_by_label_contains(&why.replace("{}", &status.id))
                    .is_some(),
                "a why line for {} this frame and one over the run",
                status.id
            );
        }
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

/// Seeks the session's world to `frame` and lets the tabs redraw.
fn seek(harness: &mut Harness<'static, State>, frame: u64) {
    harness.state().preview.borrow_mut().session.seek(frame);
    harness.run_steps(2);
}

#[test]
fn why_nothing_spawned_is_answered_for_this_frame_and_place() {
    let example = example("street-lifecycle");
    let mut harness = harness(&example.dir);
    harness
        .state()
        .preview
        .borrow_mut()
        .session
        .choose_scenario("occupied-spawn");
    harness.run_steps(3);
    // Frame 30: the held stander occupies `late`'s only candidate, 50.3 m along the north
    // sidewalk; both of this frame's attempts were refused there.
    seek(&mut harness, 30);
    assert!(harness
        .query_by_label("Why (not) spawning at frame 30")
        .is_some());
    for line in [
        "`late` at frame 30: rejected 2 times: OccupiedByPed ×2 at 50.30 m along sidewalk.north \
         (10.30, 6.25); would unblock it: the ped standing there moving away",
        "over the run: `late` is short (0 of 1): rejected 58 times by OccupiedByPed; needs the \
         ped standing there moving away (last at frame 30: a pedestrian already stands there)",
        "`stander` at frame 30: no spawn attempt this frame",
        "over the run: `stander` is at its target (1 of 1)",
    ] {
        assert!(harness.query_by_label(line).is_some(), "shown: {line}");
    }
    // The frame `late` is born at, reached backwards from a later frame (through a checkpoint
    // and re-simulation), says where it spawned.
    seek(&mut harness, 120);
    let born = {
        let preview = harness.state().preview.borrow();
        let world = preview.session.world().expect("a world");
        let late = world.births_of(1)[0];
        world
            .events()
            .for_handle(late)
            .into_iter()
            .find(|e| e.kind == EventKind::Realized)
            .expect("realized")
            .frame
    };
    assert!(born > 60, "after the stander walked away (frame {born})");
    seek(&mut harness, born);
    let line =
        format!("`late` at frame {born}: spawned 1 at 50.30 m along sidewalk.north (10.30, 6.25)");
    assert!(harness.query_by_label(&line).is_some(), "shown: {line}");
}
