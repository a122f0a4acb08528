//! Tests of the obstacle set: what the scene at frame 0 holds, what each query sees of a scene
//! object and a barrier, and the scene changes directives make.

use std::sync::Arc;

use super::*;
use crate::project::{Barrier, Scenario, SceneObject, Vec2, Vec3};
use crate::sim::space::{SimSpace, StaticBlocker};

fn v(x: f64, y: f64) -> Vec2 {
    Vec2 { x, y }
}

fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3 { x, y, z }
}

/// A prop at (−5, 0); a van (4 × 2 m, 1.6 m tall) at (5, 0); a sign with no footprint; a
/// barrier across y from (0, −1) to (0, 1), unknown to navigation.
fn scene_set() -> ObstacleSet {
    let space = SimSpace {
        blockers: vec![StaticBlocker {
            stage: 3,
            index: 7,
            position: v(-5.0, 0.0),
            radius_m: 0.4,
            height_m: 1.0,
        }],
        ..SimSpace::default()
    };
    let object = |id: &str, half: Vec3| SceneObject {
        id: id.into(),
        position: v3(5.0, 0.0, 0.0),
        scale: v3(1.0, 1.0, 1.0),
        half_extents_m: half,
        ..SceneObject::default()
    };
    let scenario = Scenario {
        id: "scene".into(),
        recipe: "scene".into(),
        fixed_step_s: 0.05,
        duration_frames: 10,
        objects: vec![
            object("van", v3(2.0, 1.0, 0.8)),
            object("sign", v3(0.0, 0.0, 0.0)),
        ],
        barriers: vec![Barrier {
            id: "works".into(),
            from: v3(0.0, -1.0, 0.0),
            to: v3(0.0, 1.0, 0.0),
            thickness_m: 0.2,
            in_navigation: false,
        }],
        ..Scenario::default()
    };
    let scenario = CompiledScenario::compile(&scenario).expect("compiles");
    ObstacleSet::of_scene(&space, &scenario)
}

#[test]
fn the_scene_holds_props_scene_objects_with_a_footprint_and_barriers() {
    let set = scene_set();
    let origins: Vec<&ObstacleOrigin> = set.obstacles().iter().map(|o| &o.origin).collect();
    assert_eq!(
        origins,
        [
            &ObstacleOrigin::Prop { stage: 3, index: 7 },
            &ObstacleOrigin::Object("van".into()),
            &ObstacleOrigin::Barrier("works".into()),
        ]
    );
    // The van stands to twice its half height; the barrier to the authored height.
    assert_eq!(set.obstacles()[1].height_m, 1.6);
    assert_eq!(set.obstacles()[2].height_m, AUTHORED_HEIGHT_M);
    assert_eq!(set.known_to_navigation().count(), 2);
    assert_eq!(set.unknown_to_navigation().count(), 1);
    // One cylinder, one box, and the barrier's box with a cylinder at each end.
    assert_eq!(set.solids().len(), 5);
    assert_eq!(set.revision(), 0);
}

#[test]
fn every_query_meets_a_scene_object_and_a_barrier_by_their_footprints() {
    let set = scene_set();
    // The spawn capsule (0.35 m): the van's side is at x = 3, the barrier's face at x = 0.1.
    let spawn = |x: f64, y: f64| set.capsule_blocked([x, y, 0.0], 0.35, 1.8, 0.02);
    assert!(spawn(2.7, 0.0));
    assert!(!spawn(2.6, 0.0));
    assert!(spawn(0.4, 0.0));
    assert!(!spawn(0.5, 0.0));
    // Past the barrier's end (y = 1, rounded by its half thickness) the capsule fits.
    assert!(spawn(0.0, 1.4));
    assert!(!spawn(0.0, 1.5));
    // The standing capsule of recovery (0.30 m) likewise.
    assert!(set.capsule_blocked([2.71, 0.0, 0.0], 0.3, 1.8, 0.02));
    assert!(!set.capsule_blocked([2.69, 0.0, 0.0], 0.3, 1.8, 0.02));
    // A capsule standing on the van's roof (1.6 m) does not touch it.
    assert!(!set.capsule_blocked([5.0, 0.0, 1.6], 0.35, 1.8, 0.02));
    // A walker's body (0.30 m) swept across the barrier or into the van is refused; along
    // y = 1.5 it passes the barrier's end, 0.4 m clear.
    let walk = set.walk_index();
    assert!(!walk.segment_clear(v(-1.0, 0.0), v(-0.1, 0.0)));
    assert!(walk.segment_clear(v(-1.0, 0.0), v(-0.5, 0.0)));
    assert!(!walk.segment_clear(v(2.0, 0.0), v(2.71, 0.0)));
    assert!(walk.segment_clear(v(-1.0, 1.5), v(1.0, 1.5)));
}

#[test]
fn directives_place_and_remove_obstacles_and_the_current_set_follows() {
    let base = Arc::new(scene_set());
    let mut scene = SceneState::new(&base);
    let mut bytes = Vec::new();
    scene.write_canonical(&mut bytes);
    assert!(bytes.is_empty(), "an unchanged scene writes nothing");
    assert!(Arc::ptr_eq(scene.current(), &base));
    let cart = Obstacle::Segment {
        from: v(10.0, -1.0),
        to: v(10.0, 1.0),
        half_thickness_m: 0.2,
    };
    scene.place("cart", cart);
    assert_eq!(scene.current().revision(), 1);
    assert_eq!(scene.current().obstacles().len(), 4);
    let placed = &scene.current().obstacles()[3];
    assert_eq!(placed.origin, ObstacleOrigin::Placed("cart".into()));
    assert!(!placed.in_navigation);
    assert!(scene
        .current()
        .capsule_blocked([10.0, 0.0, 0.0], 0.35, 1.8, 0.02));
    // Removing the authored barrier and the placed cart; the van stays.
    assert!(scene.remove("works"));
    assert!(scene.remove("cart"));
    assert!(!scene.remove("cart"), "nothing of that id is left");
    assert!(!scene.remove("nothing"));
    let origins: Vec<&ObstacleOrigin> = scene
        .current()
        .obstacles()
        .iter()
        .map(|o| &o.origin)
        .collect();
    assert_eq!(
        origins,
        [
            &ObstacleOrigin::Prop { stage: 3, index: 7 },
            &ObstacleOrigin::Object("van".into()),
        ]
    );
    assert_eq!(scene.current().revision(), 3);
    assert!(!scene
        .current()
        .capsule_blocked([0.4, 0.0, 0.0], 0.35, 1.8, 0.02));
    assert!(scene.fits(&base));
    scene.write_canonical(&mut bytes);
    assert!(!bytes.is_empty());
}
