//! Scene-building tests: instances per shape from a bundle, layers rebuilt only when their inputs
//! change, overlays for the street block and the scenario, agents from the running world.

use std::path::Path;

use super::meshes::Shape;
use super::palette;
use super::scene::{ColourBy, LayerKind, OverlayOptions, SceneBuilder, SceneInputs};
use super::PickId;
use crate::session::fixtures::{stage_record, street_content, with_placed_objects, with_stage};
use crate::session::PreviewContent;
use stagecraft_runtime::content::{
    Placement, Product, RejectReason, RejectedCandidate, ScatterLayer, ScatterOutput,
    ScatterProduct, StageProvenance,
};
use stagecraft_runtime::identity::pack_scatter_id;
use stagecraft_runtime::ops::scatter::Rect;
use stagecraft_runtime::project::{Project, Scenario};
use stagecraft_runtime::sim::World;

fn example() -> Project {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
    let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
    loaded.project.expect("example loads")
}

fn scenario() -> Scenario {
    example().scenarios["crosswalk-rush"].clone()
}

fn counts(builder: &SceneBuilder, kind: LayerKind) -> [usize; 3] {
    Shape::ALL.map(|shape| builder.layer(kind).shapes[shape.index()].len())
}

fn inputs<'a>(
    content: &'a PreviewContent,
    options: &'a OverlayOptions,
    world: Option<(&'a World, u64)>,
    scenario: Option<(&'a Scenario, u64)>,
) -> SceneInputs<'a> {
    SceneInputs {
        content: Some((content, 1)),
        scenario,
        world,
        options,
        selected: None,
        hovered: None,
    }
}

#[test]
fn placements_become_instances_of_their_variant_shape() {
    let content = with_placed_objects(street_content("r"), 100);
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, None, None));
    // Variants cycle bench (box), bin (cylinder), tree (cone), planter (box).
    assert_eq!(counts(&builder, LayerKind::Placements), [50, 25, 25]);
    let placements = builder.layer(LayerKind::Placements);
    assert_eq!(placements.picks.len(), 100);
    // The eighth object of a 10 × 10 field centred on cell (0, 0) is in cell (2, −5).
    let id = pack_scatter_id(1, 0, 0, 2, -5).expect("fits");
    assert_eq!(placements.picks[7].0, PickId::Object { stage: 3, id });
    // The bench keeps its family colour when coloured by asset.
    assert_eq!(
        placements.shapes[Shape::Box.index()].colours[0],
        palette::rgb(139, 94, 60)
    );
}

#[test]
fn only_the_layers_whose_inputs_changed_are_rebuilt() {
    let content = with_placed_objects(street_content("r"), 40);
    let scenario = scenario();
    let mut world = content.world(&scenario, 7).expect("world");
    // After its first Control update the world has its views; a still camera keeps them, so
    // the scenario layer is not rebuilt by a step.
    world.step();
    let mut options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    let first = builder.update(&inputs(
        &content,
        &options,
        Some((&world, 1)),
        Some((&scenario, 1)),
    ));
    assert_eq!(first, LayerKind::ALL.to_vec());
    let same = builder.update(&inputs(
        &content,
        &options,
        Some((&world, 1)),
        Some((&scenario, 1)),
    ));
    assert!(same.is_empty(), "{same:?}");
    world.step();
    let stepped = builder.update(&inputs(
        &content,
        &options,
        Some((&world, 1)),
        Some((&scenario, 1)),
    ));
    assert_eq!(
        stepped,
        [
            LayerKind::Spawns,
            LayerKind::Agents,
            LayerKind::Tiers,
            LayerKind::Panic,
            LayerKind::Highlight
        ]
    );
    options.colour_by = ColourBy::Variant;
    let recoloured = builder.update(&inputs(
        &content,
        &options,
        Some((&world, 1)),
        Some((&scenario, 1)),
    ));
    assert_eq!(recoloured, [LayerKind::Placements]);
    assert_eq!(counts(&builder, LayerKind::Placements), [20, 10, 10]);
    assert_eq!(
        builder.layer(LayerKind::Placements).shapes[Shape::Cylinder.index()].colours[0],
        palette::category(1)
    );
}

#[test]
fn the_street_block_draws_surfaces_routes_and_waiting_points() {
    let content = street_content("r");
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, None, None));
    let layer = builder.layer(LayerKind::Content);
    assert!(
        layer.triangles.len() >= 3 * 2 * 4,
        "road, sidewalks, crossing"
    );
    let colours = |colour| layer.lines.iter().filter(|s| s.colour == colour).count();
    assert!(colours(palette::ROUTE) >= 2, "two sidewalk routes");
    assert!(colours(palette::CROSSING_ROUTE) >= 1);
    // One waiting point per crosswalk side.
    let waiting = &layer.shapes[Shape::Cylinder.index()];
    let waiting = waiting
        .colours
        .iter()
        .filter(|c| **c == palette::WAITING_POINT)
        .count();
    assert_eq!(waiting, 2);
    // Routes off: surfaces stay, the route lines go.
    let without = OverlayOptions {
        show_routes: false,
        ..OverlayOptions::default()
    };
    builder.update(&inputs(&content, &without, None, None));
    let layer = builder.layer(LayerKind::Content);
    assert!(!layer.triangles.is_empty());
    assert!(layer.lines.iter().all(|s| s.colour != palette::ROUTE));
}

#[test]
fn the_scenario_draws_its_boxes_and_observers() {
    let content = street_content("r");
    let scenario = scenario();
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, None, Some((&scenario, 1))));
    let layer = builder.layer(LayerKind::Scenario);
    let count = |colour| layer.lines.iter().filter(|s| s.colour == colour).count();
    assert_eq!(count(palette::NO_SPAWN), 12, "a red box wireframe");
    assert_eq!(count(palette::NO_REMOVAL), 12, "a blue box wireframe");
    assert!(count(palette::RETAIN_RING) >= 24, "retain ring");
    assert!(count(palette::REMOVE_RING) >= 24, "remove ring");
    assert!(count(palette::OBSERVER) >= 16, "frustum");
}

#[test]
fn with_a_world_running_the_boxes_drawn_are_those_in_force_in_it() {
    let content = street_content("r");
    let file = scenario();
    // The running world has no no-removal box (as after a `ClearNoRemovalBox` directive); the
    // file still has both.
    let mut running = file.clone();
    running.no_removal_box = None;
    // Its camera measures ranges from a population center 10 m east of the origin.
    running.observers[0].center = Some(stagecraft_runtime::project::Vec3 {
        x: 10.0,
        y: 0.0,
        z: 0.0,
    });
    let mut world = content.world(&running, 7).expect("world");
    world.step();
    assert!(world.boxes().no_removal.is_none() && world.boxes().no_spawn.is_some());
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(
        &content,
        &options,
        Some((&world, 1)),
        Some((&file, 1)),
    ));
    let layer = builder.layer(LayerKind::Scenario);
    let count = |colour| layer.lines.iter().filter(|s| s.colour == colour).count();
    assert_eq!(count(palette::NO_SPAWN), 12, "the box in force");
    assert_eq!(
        count(palette::NO_REMOVAL),
        0,
        "the box cleared in the world"
    );
    // The red box is drawn at the world's corners.
    let spawn = world.boxes().no_spawn.expect("a no-spawn box");
    let lowest = layer
        .lines
        .iter()
        .filter(|s| s.colour == palette::NO_SPAWN)
        .map(|s| s.a.x.min(s.b.x))
        .fold(f32::INFINITY, f32::min);
    assert_eq!(lowest, spawn.min_m[0] as f32);
    // The retain ring is drawn around the world's population center, not the file's eye.
    let view = &world.observation().views[0];
    assert_eq!(view.center_m, [10.0, 0.0, 0.0]);
    let ring: Vec<_> = layer
        .lines
        .iter()
        .filter(|s| s.colour == palette::RETAIN_RING)
        .collect();
    assert!(ring.len() >= 24);
    let mean_x = ring.iter().map(|s| s.a.x).sum::<f32>() / ring.len() as f32;
    let mean_y = ring.iter().map(|s| s.a.y).sum::<f32>() / ring.len() as f32;
    assert!(
        (mean_x - 10.0).abs() < 0.01 && mean_y.abs() < 0.01,
        "{mean_x} {mean_y}"
    );
    // Without a world the rings stand around the file's eye.
    let eye = file.observers[0].position;
    assert!(
        (eye.x - 10.0).abs() > 1.0 || eye.y.abs() > 1.0,
        "the eye is elsewhere"
    );
    // A view the world holds invalid has its frustum drawn dim: 8 edges of its near and far
    // rectangles and 8 to and between them.
    assert_eq!(count(palette::OBSERVER_INVALID), 0);
    let mut hidden = running.clone();
    hidden.observers[0].valid = false;
    let mut world = content.world(&hidden, 7).expect("world");
    world.step();
    builder.update(&inputs(
        &content,
        &options,
        Some((&world, 2)),
        Some((&file, 1)),
    ));
    let layer = builder.layer(LayerKind::Scenario);
    let count = |colour| layer.lines.iter().filter(|s| s.colour == colour).count();
    assert_eq!(count(palette::OBSERVER_INVALID), 16);
    assert_eq!(count(palette::OBSERVER), 1, "only the post from the ground");
}

#[test]
fn agents_are_instances_coloured_by_state_and_pickable() {
    let content = street_content("r");
    let scenario = scenario();
    let mut world = content.world(&scenario, 7).expect("world");
    for _ in 0..120 {
        world.step();
    }
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, Some((&world, 1)), None));
    let alive = world.agent_count();
    assert!(alive > 10);
    let layer = builder.layer(LayerKind::Agents);
    assert_eq!(layer.shapes[Shape::Cylinder.index()].len(), alive);
    assert_eq!(layer.picks.len(), alive);
    // Walkers on a crossing route wear the crossing colours (`crossing_marks::crossing_body`);
    // the other walkers are green.
    let walking = world
        .motion_frames()
        .iter()
        .filter(|f| f.behaviour == stagecraft_runtime::sim::AgentState::Walking && !f.tags.pooled)
        .filter(|f| crate::viewport::crossing_marks::crossing_body(&world, f).is_none())
        .count();
    let green = layer.shapes[Shape::Cylinder.index()]
        .colours
        .iter()
        .filter(|c| **c == palette::agent_state(stagecraft_runtime::sim::AgentState::Walking))
        .count();
    assert_eq!(green, walking);
    let id = world.motion_frames().first().expect("a frame").id.bits();
    assert!(builder.bounds_of(&PickId::Agent { id }).is_some());
}

#[test]
fn a_knocked_down_agent_is_drawn_lying_at_its_body_pose() {
    use stagecraft_runtime::project::{Directive, DirectiveCommand, Target, Vec3};
    use stagecraft_runtime::sim::AgentState;
    let content = street_content("r");
    let mut scenario = scenario();
    let source = scenario.sources[0].id.clone();
    scenario.directives.push(Directive {
        frame: 100,
        target: Target::Born { source, ordinal: 0 },
        command: DirectiveCommand::Knockdown {
            impulse_n_s: Vec3 {
                x: 120.0,
                y: 0.0,
                z: 0.0,
            },
        },
        ..Default::default()
    });
    let mut world = content.world(&scenario, 7).expect("world");
    for _ in 0..120 {
        world.step();
    }
    let row = world.row_of(0, 0).expect("born");
    assert_eq!(
        world.motion_frames().get(row).expect("a frame").behaviour,
        AgentState::KnockedDown
    );
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, Some((&world, 1)), None));
    let layer = builder.layer(LayerKind::Agents);
    let bodies = &layer.shapes[Shape::Cylinder.index()];
    assert_eq!(bodies.len(), world.agent_count(), "one body per agent");
    let purple = palette::agent_state(AgentState::KnockedDown);
    let lying: Vec<_> = bodies
        .transforms
        .iter()
        .zip(&bodies.colours)
        .filter(|(_, c)| **c == purple)
        .collect();
    assert_eq!(lying.len(), 1);
    // The unit cylinder's axis (the third column) lies nearly flat: 1.7 m long, little of it up.
    let axis = lying[0].0.z;
    let length = (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z).sqrt();
    assert!((length - 1.7).abs() < 1e-3, "{length}");
    assert!(axis.z.abs() < 0.5, "lying, not standing: {axis:?}");
}

#[test]
fn rejected_candidates_show_only_when_asked_with_their_reason_colour() {
    let content = street_content("r");
    let id = |x| pack_scatter_id(1, 0, 0, x, 0).expect("packs");
    let placement = Placement {
        id: id(0),
        x: 0,
        y: 0,
        variant: 0,
        priority: 1,
    };
    let rejected = [
        RejectReason::OutsideRegion,
        RejectReason::InKeepOut { keep_out: 0 },
        RejectReason::Conflict { with: id(0) },
    ]
    .iter()
    .enumerate()
    .map(|(i, reason)| RejectedCandidate::new(id(i as i64 + 1), (i as i64 + 1) * 300, 0, *reason))
    .collect();
    let scatter = stage_record(
        2,
        "Scatter",
        "environment.scatter",
        Product::Placements(ScatterProduct {
            family: "props".into(),
            variant_ids: vec!["bench".into()],
            lattice_unit_m: 0.01,
            cell_size: 300,
            candidates_per_cell: 1,
            area_stage: None,
            layers: vec![ScatterLayer {
                layer: 0,
                room: 1,
                area: None,
                region: Rect {
                    min_x: 0,
                    min_y: 0,
                    max_x: 3000,
                    max_y: 300,
                },
                keep_outs: Vec::new(),
                output: ScatterOutput {
                    placements: vec![placement],
                    rejected,
                },
            }],
        }),
        StageProvenance::default(),
    );
    let content = with_stage(&content, scatter);
    let mut options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, None, None));
    assert!(builder.layer(LayerKind::Rejected).picks.is_empty());
    // The unconsumed scatter's placement is drawn (no select-and-place stage uses it).
    assert_eq!(builder.layer(LayerKind::Placements).picks.len(), 1);
    options.show_rejected = true;
    builder.update(&inputs(&content, &options, None, None));
    let layer = builder.layer(LayerKind::Rejected);
    assert_eq!(layer.picks.len(), 3);
    assert_eq!(
        layer.shapes[Shape::Cone.index()].colours,
        [
            palette::reject_reason(&RejectReason::OutsideRegion),
            palette::reject_reason(&RejectReason::InKeepOut { keep_out: 0 }),
            palette::reject_reason(&RejectReason::Conflict { with: id(0) }),
        ]
    );
}

#[test]
fn spawn_candidates_show_where_they_stood_coloured_by_admission_and_are_pickable() {
    let content = street_content("r");
    let scenario = scenario();
    let mut world = content.world(&scenario, 7).expect("world");
    for _ in 0..40 {
        world.step();
    }
    let marks: Vec<_> = world.recent_candidates().map(|(f, m)| (f, *m)).collect();
    assert!(!marks.is_empty(), "the street's sources drew candidates");
    let mut options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, Some((&world, 1)), None));
    let layer = builder.layer(LayerKind::Spawns);
    let discs = &layer.shapes[Shape::Cylinder.index()];
    assert_eq!(discs.len(), marks.len());
    assert_eq!(layer.picks.len(), marks.len());
    for (index, (_, mark)) in marks.iter().enumerate() {
        let expected = mark
            .rejection
            .map_or(palette::ADMITTED_CANDIDATE, palette::spawn_rejection);
        assert_eq!(discs.colours[index], expected);
    }
    // The first mark of the last frame picks back to the same candidate.
    let (last_frame, _) = marks[marks.len() - 1];
    let first_of_last = marks
        .iter()
        .position(|(f, _)| *f == last_frame)
        .expect("a mark");
    let pick = PickId::SpawnCandidate {
        frame: last_frame,
        ordinal: 0,
    };
    assert_eq!(layer.picks[first_of_last].0, pick);
    let found = crate::viewport::overlays::spawn_candidate(&world, last_frame, 0).expect("kept");
    assert_eq!(found, marks[first_of_last].1);
    let bounds = builder.bounds_of(&pick).expect("bounds");
    let centre = bounds.center();
    assert!((centre.x - found.position.x as f32).abs() < 1e-3);
    options.show_candidates = false;
    builder.update(&inputs(&content, &options, Some((&world, 1)), None));
    assert!(builder.layer(LayerKind::Spawns).picks.is_empty());
}

#[test]
fn an_observer_path_is_drawn_through_its_keyframes() {
    use stagecraft_runtime::project::{Keyframe, Observer, Vec3 as P};
    let content = street_content("r");
    let mut scenario = scenario();
    let at = |x, y, z| P { x, y, z };
    scenario.observers = vec![Observer {
        position: at(0.0, 0.0, 1.7),
        path: vec![
            Keyframe {
                frame: 0,
                position: at(0.0, 0.0, 1.7),
            },
            Keyframe {
                frame: 100,
                position: at(8.0, 4.0, 2.0),
            },
            Keyframe {
                frame: 200,
                position: at(16.0, 0.0, 2.0),
            },
        ],
        ..Default::default()
    }];
    let options = OverlayOptions::default();
    let mut builder = SceneBuilder::default();
    builder.update(&inputs(&content, &options, None, Some((&scenario, 1))));
    let layer = builder.layer(LayerKind::Scenario);
    let path: Vec<_> = layer
        .lines
        .iter()
        .filter(|s| s.colour == palette::OBSERVER_PATH)
        .collect();
    assert_eq!(path.len(), 6, "a segment and a post per keyframe");
    assert_eq!((path[2].a.x, path[2].b.x, path[2].b.y), (0.0, 8.0, 4.0));
    assert_eq!((path[4].a.x, path[4].b.x), (8.0, 16.0));
}

#[test]
fn task_overlays_draw_each_remaining_path_and_goal_ring() {
    let mut world = stagecraft_runtime::sim::directed_street_world(4, 7).expect("world");
    for _ in 0..3 {
        world.step();
    }
    let layer = super::overlays::agents(&world);
    let count = |colour| layer.lines.iter().filter(|l| l.colour == colour).count();
    // Every moving ped has a straight two-corner path: one remaining segment each (walker 0's
    // goal is half a metre away: it is already in its goal stop, still on its path).
    use stagecraft_runtime::sim::MotionState;
    let moving = world
        .tasks()
        .movements
        .values()
        .filter(|m| matches!(m.state, MotionState::Walking | MotionState::Stopping))
        .count();
    assert_eq!((count(palette::TASK_PATH), moving), (4, 4));
    let mut one = super::layer::LayerData::default();
    super::overlays::ring(
        &mut one,
        three_d::vec3(0.0, 0.0, 0.0),
        0.15,
        palette::TASK_GOAL,
    );
    assert!(!one.lines.is_empty());
    assert_eq!(count(palette::TASK_GOAL), 4 * one.lines.len());
    assert_eq!(count(palette::ESCAPE_THREAT), 0, "no escape, no threat");
}
