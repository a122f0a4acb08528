//! The Provenance tab driven through AccessKit (no GPU): a picked placement's origin, draws and
//! identity tuple; a picked pedestrian's state; the overlay toggles.

mod support;

use egui_kittest::kittest::{NodeT as _, Queryable as _};
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::provenance::ProvenancePanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{ColourBy, LayerKind, PickId, Preview};
use support::example;

type State = support::PanelState<ProvenancePanel>;

fn provenance(dir: &std::path::Path) -> Harness<'static, State> {
    support::read_only_panel(
        dir,
        egui::vec2(700.0, 900.0),
        2,
        "provenance never edits the project",
        ProvenancePanel::new,
    )
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
        preview
            .session
            .world()
            .expect("world")
            .motion_frames()
            .first()
            .expect("a frame")
            .id
            .bits()
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

#[test]
fn the_identity_tuple_wraps_inside_a_narrow_panel_can_be_copied_and_draws_say_what_they_did() {
    let example = example("street-block");
    let document = Document::open(&example.dir).expect("example opens");
    let preview = Preview::shared();
    let state = State {
        document,
        panel: ProvenancePanel::new(preview.clone()),
        preview,
        service: GenerationService::inline(),
    };
    let width = 360.0;
    let mut harness = Harness::builder()
        .with_size(egui::vec2(width, 900.0))
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
            },
            state,
        );
    harness.run_steps(2);
    let pick = {
        let preview = harness.state().preview.borrow();
        preview.scene.layer(LayerKind::Placements).picks[0]
            .0
            .clone()
    };
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.run_steps(2);
    let tuple = harness.get_by_label_contains("street-block / stage");
    let node = tuple.accesskit_node();
    let text = node.label().or_else(|| node.value()).unwrap_or_default();
    assert!(
        tuple.rect().right() <= width + 0.5,
        "the tuple runs past the panel: {:?}",
        tuple.rect()
    );
    harness.get_by_label("Copy").click();
    harness.run_steps(1);
    let copied =
        harness.output().platform_output.commands.iter().any(
            |command| matches!(command, egui::OutputCommand::CopyText(copied) if *copied == text),
        );
    assert!(
        copied,
        "Copy puts the identity tuple on the clipboard: {:?} vs {text:?}",
        harness.output().platform_output.commands
    );
    // A placed object's draws: its rotation and scale, in degrees and as a factor.
    for meaning in [
        "rotation = ",
        "° (high 16 bits",
        "scale = ",
        "steps of 0.001",
    ] {
        assert!(
            harness
                .query_all_by_label_contains(meaning)
                .next()
                .is_some(),
            "no draw says {meaning:?}"
        );
    }
    // A rejected candidate's draws: offsets in meters, priority as a fraction, the variant.
    harness.state().preview.borrow_mut().options.show_rejected = true;
    harness.run_steps(2);
    let rejected: Vec<PickId> = {
        let mut preview = harness.state().preview.borrow_mut();
        preview.update_scene();
        let picks = &preview.scene.layer(LayerKind::Rejected).picks;
        picks.iter().map(|(pick, _)| pick.clone()).collect()
    };
    // A candidate outside the region drew only its offsets; one that lost a conflict drew its
    // priority and variant too. Show the first of those.
    for pick in rejected.into_iter().take(64) {
        harness.state().preview.borrow_mut().selected = Some(pick);
        harness.run_steps(2);
        if harness
            .query_all_by_label_contains("priority 0.")
            .next()
            .is_some()
        {
            break;
        }
    }
    for meaning in [
        "x offset ",
        " m in its cell",
        "priority 0.",
        "of the u32 range",
    ] {
        assert!(
            harness
                .query_all_by_label_contains(meaning)
                .next()
                .is_some(),
            "no draw says {meaning:?}"
        );
    }
}

#[test]
fn a_picked_mission_cell_shows_its_role_chunk_and_draw() {
    let example = example("tactical-mission");
    let mut harness = provenance(&example.dir);
    let pick = {
        let preview = harness.state().preview.borrow();
        preview
            .scene
            .layer(LayerKind::Content)
            .picks
            .iter()
            .map(|(pick, _)| pick.clone())
            .find(|pick| matches!(pick, PickId::Cell { .. }))
    };
    let Some(pick) = pick else {
        panic!("the mission's cells are pickable");
    };
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.run_steps(2);
    for label in ["Cell", "Role", "Chunk", "Identity tuple"] {
        assert!(harness.query_by_label(label).is_some(), "{label}");
    }
    assert!(harness.query_by_label_contains("mission cell (").is_some());
    assert!(harness
        .query_by_label_contains("among the role's chunks")
        .is_some());
}

#[test]
fn a_picked_pedestrians_identity_says_who_owns_it() {
    use stagecraft_editor::viewport::interact::identity_label;
    use stagecraft_runtime::project::PopulationKind;
    let example = example("street-lifecycle");
    let mut harness = provenance(&example.dir);
    harness
        .state()
        .preview
        .borrow_mut()
        .session
        .choose_scenario("claimed-stays");
    harness.run_steps(2);
    let mut preview = harness.state().preview.borrow_mut();
    // The scenario claims its first ped for `script` at frame 10.
    preview.session.seek(12);
    let session = &preview.session;
    let world = session.world().expect("a world");
    let label_of = |kind: PopulationKind| {
        let frame = world
            .motion_frames()
            .iter()
            .find(|f| f.tags.kind == kind && !f.tags.pooled)
            .expect("such a ped");
        let handle = world.handle_of_id(frame.id).expect("live");
        let label = identity_label(
            session,
            &PickId::Agent {
                id: frame.id.bits(),
            },
        )
        .expect("a label");
        (
            label,
            stagecraft_editor::panels::population::handle_text(handle),
        )
    };
    let (mission, handle) = label_of(PopulationKind::Mission);
    assert!(mission.contains(&format!(" {handle} ")), "{mission}");
    assert!(mission.ends_with(" · mission (owner script)"), "{mission}");
    let (ambient, _) = label_of(PopulationKind::Ambient);
    assert!(ambient.ends_with(" · ambient"), "{ambient}");
}

/// The escape-knockdown clip queues the runner's threat at frame 20 and the next Tasks update
/// starts its escape: the Provenance tab shows the event's type, source, tag, state and the
/// frames (and seconds) of its transitions.
#[test]
fn a_picked_pedestrian_shows_its_events_lifecycle() {
    let example = example("street-lifecycle");
    let mut harness = provenance(&example.dir);
    harness
        .state()
        .preview
        .borrow_mut()
        .session
        .choose_scenario("escape-knockdown");
    harness.run_steps(2);
    harness.state().preview.borrow_mut().session.seek(25);
    // The runner: the first ped of the first source.
    let id = stagecraft_runtime::sim::AgentId::new(0, 0).bits();
    harness.state().preview.borrow_mut().selected = Some(PickId::Agent { id });
    harness.run_steps(2);
    for label in [
        "Event 1",
        "threat · script · 1",
        "Active",
        "frame 20 (1.00 s)",
        "frame 21 (1.05 s)",
    ] {
        assert!(harness.query_by_label(label).is_some(), "{label}");
    }
    assert!(harness.query_by_label_contains("(selected)").is_some());
    assert!(
        harness.query_by_label("Ended at").is_none(),
        "not ended yet"
    );
}

#[test]
fn a_child_run_objects_mutation_is_listed_by_its_nested_path() {
    use stagecraft_runtime::identity::ScatterId;
    // A placement both of street-planting's child runs emit (stage 10 › 1 and stage 20 › 1),
    // regrown in the main street's run only.
    let target: u64 = 0x0001_0100_fff9_fffe;
    let example = example("street-planting");
    let set = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    mutations: [Mutation(stage: 10, target: {target}, harvested: false, ordinal: 1, nested: [1])])\n"
    );
    std::fs::create_dir_all(example.dir.join("overrides")).expect("folder");
    std::fs::write(example.dir.join("overrides/edits.overrides.ron"), set).expect("set");
    let manifest = std::fs::read_to_string(example.dir.join("stagecraft.ron")).expect("manifest");
    let manifest = manifest.replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    std::fs::write(example.dir.join("stagecraft.ron"), manifest).expect("manifest");
    let mut harness = provenance(&example.dir);
    let id = ScatterId::from_bits(target).expect("packed");
    harness.state().preview.borrow_mut().selected = Some(PickId::Object { stage: 10, id });
    harness.run_steps(2);
    assert!(harness.query_by_label("Overrides (1)").is_some());
    assert!(harness
        .query_by_label_contains("edits:mutations[0] · regrown, regrow ordinal 1 · applied")
        .is_some());
    // Its twin of the side street's run is named by no edit.
    harness.state().preview.borrow_mut().selected = Some(PickId::Object { stage: 20, id });
    harness.run_steps(2);
    assert!(harness.query_by_label("Overrides (0)").is_some());
}
