//! Tests of the physical scene in whole worlds: a scenario's scene objects and barriers, and the
//! obstacles directives place and remove, exist for admission's spawn capsule, for walkers and
//! for the standing clearance of knockdown recovery.

use std::sync::Arc;

use super::*;
use crate::project::{
    Barrier, Directive, DirectiveCommand, PopulationKind, PopulationSource, Scenario, SceneObject,
    Target, Vec2, Vec3,
};
use crate::sim::state::{KnockdownReason, RecoveryPhase};

fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3 { x, y, z }
}

/// A scenario on a 30 m walkway along y = 0 (2.5 m wide): one walker born at `candidate_m`.
fn scenario(candidate_m: f64) -> Scenario {
    Scenario {
        id: "scene".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 1200,
        sources: vec![PopulationSource {
            id: "walkers".into(),
            kind: PopulationKind::Ambient,
            route: "walk".into(),
            target_count: 1,
            walk_speed_m_s: 1.4,
            candidates_m: vec![candidate_m],
            ..Default::default()
        }],
        ..Scenario::default()
    }
}

fn world(scenario: &Scenario) -> World {
    let route = SimRoute::new(
        "walk",
        vec![Vec2 { x: 0.0, y: 0.0 }, Vec2 { x: 30.0, y: 0.0 }],
    )
    .expect("route")
    .with_width_m(2.5);
    let space = Arc::new(SimSpace::from_routes(vec![route]).expect("space"));
    let compiled = CompiledScenario::compile(scenario).expect("compiles");
    build_world(&space, &Arc::new(compiled), 3).expect("world")
}

/// A barrier across the whole walkway at `x`.
fn barrier(id: &str, x: f64) -> Barrier {
    Barrier {
        id: id.into(),
        from: v3(x, -1.5, 0.0),
        to: v3(x, 1.5, 0.0),
        thickness_m: 0.2,
        in_navigation: true,
    }
}

/// A parked cart filling the walkway around `x` (1 m long).
fn cart(x: f64) -> SceneObject {
    SceneObject {
        id: "cart".into(),
        position: v3(x, 0.0, 0.0),
        scale: v3(1.0, 1.0, 1.0),
        half_extents_m: v3(0.5, 1.5, 0.6),
        ..SceneObject::default()
    }
}

fn run(w: &mut World, frames: u64) {
    for _ in 0..frames {
        w.step();
    }
}

#[test]
fn a_walker_waits_before_an_authored_barrier_or_scene_object_across_its_walkway() {
    let mut s = scenario(2.0);
    s.barriers = vec![barrier("works", 10.0)];
    let mut w = world(&s);
    run(&mut w, 300);
    let row = w.row_of(0, 0).expect("born");
    let p = w.agents().position[row];
    // The body (0.30 m) never sweeps into the barrier's face at x = 9.9.
    assert!(p.x < 9.9 - 0.3 && p.x > 8.0, "{p:?}");
    assert_eq!(
        w.agents().walk_decision[row],
        WalkDecision::Waiting(WaitReason::NoSafeCandidate(
            CandidateRejection::StaticBlocker
        ))
    );
    let mut s = scenario(2.0);
    s.objects = vec![cart(10.0)];
    let mut w = world(&s);
    run(&mut w, 300);
    let row = w.row_of(0, 0).expect("born");
    let p = w.agents().position[row];
    assert!(p.x < 9.5 - 0.3 && p.x > 8.0, "{p:?}");
    assert!(w.agents().walk_decision[row].is_waiting());
}

#[test]
fn admission_refuses_a_candidate_inside_a_scene_object_or_against_a_barrier() {
    // The candidate at 10 m stands inside the cart's footprint: the spawn capsule is blocked.
    let mut s = scenario(10.0);
    s.objects = vec![cart(10.0)];
    let mut w = world(&s);
    w.step();
    let blocked = |w: &World| {
        let r = w.last_rejections();
        !r.is_empty() && r.iter().all(|r| *r == (0, SpawnRejection::BlockedByProp))
    };
    assert!(blocked(&w), "{:?}", w.last_rejections());
    run(&mut w, 20);
    assert_eq!(w.counters().births, 0);
    // 0.3 m from a barrier's face (x = 9.9) the 0.35 m capsule does not fit either; 0.4 m away
    // it does.
    let mut s = scenario(9.6);
    s.barriers = vec![barrier("works", 10.0)];
    let mut w = world(&s);
    w.step();
    assert!(blocked(&w), "{:?}", w.last_rejections());
    let mut s = scenario(9.5);
    s.barriers = vec![barrier("works", 10.0)];
    let mut w = world(&s);
    w.step();
    assert_eq!(w.counters().births, 1);
}

/// The walker of `scenario(5.0)` knocked down along +x at frame 2, before its first step.
fn knocked(mut s: Scenario) -> World {
    s.directives.push(Directive {
        frame: 2,
        target: Target::Born {
            source: "walkers".into(),
            ordinal: 0,
        },
        command: DirectiveCommand::Knockdown {
            impulse_n_s: v3(120.0, 0.0, 0.0),
        },
        ..Default::default()
    });
    s.directives.sort_by_key(|d| d.frame);
    world(&s)
}

fn first_recovery(w: &World) -> Option<(RecoveryPhase, KnockdownReason)> {
    w.events()
        .of_kind(EventKind::Knockdown)
        .filter_map(|e| match e.detail {
            EventDetail::Knockdown { phase, reason, .. } => phase.map(|p| (p, reason)),
            _ => None,
        })
        .find(|(p, _)| *p != RecoveryPhase::Simulating)
}

#[test]
fn recovery_waits_for_space_beside_a_wall_placed_along_the_lying_body() {
    // Where the body comes to rest without anything around it.
    let mut open = knocked(scenario(5.0));
    while first_recovery(&open).is_none() && open.frame() < 140 {
        open.step();
    }
    // The blend froze the body: its anchor is where it stands up.
    let row = open.row_of(0, 0).expect("born");
    let rest = open.agents().position[row];
    assert_eq!(
        first_recovery(&open),
        Some((RecoveryPhase::Blending, KnockdownReason::SettledWithSpace))
    );
    // A wall placed along the lying body at frame 20 (before the blend may start), its face
    // 0.25 m beside the resting point: the lying body (0.2 m) misses it, the standing one
    // (0.3 m) does not fit.
    let mut s = scenario(5.0);
    s.directives = vec![Directive {
        frame: 20,
        target: Target::World,
        command: DirectiveCommand::PlaceObstacle {
            obstacle: "kerb-works".into(),
            from: v3(rest.x - 1.0, rest.y + 0.3, 0.0),
            to: v3(rest.x + 1.0, rest.y + 0.3, 0.0),
            thickness_m: 0.1,
        },
        ..Default::default()
    }];
    let mut w = knocked(s);
    run(&mut w, 140);
    assert_eq!(
        first_recovery(&w),
        Some((
            RecoveryPhase::WaitingForSpace,
            KnockdownReason::PropInTheWay
        ))
    );
    assert!(w.knockdowns().is_down(w.handle_of(row).expect("handle")));
}

fn world_directive(frame: u64, command: DirectiveCommand) -> Directive {
    Directive {
        frame,
        target: Target::World,
        command,
        ..Default::default()
    }
}

fn place(id: &str, x: f64) -> DirectiveCommand {
    DirectiveCommand::PlaceObstacle {
        obstacle: id.into(),
        from: v3(x, -1.5, 0.0),
        to: v3(x, 1.5, 0.0),
        thickness_m: 0.2,
    }
}

fn remove(id: &str) -> DirectiveCommand {
    DirectiveCommand::RemoveObstacle {
        obstacle: id.into(),
    }
}

#[test]
fn obstacle_directives_name_obstacles_the_scenario_has() {
    let mut s = scenario(2.0);
    s.barriers = vec![barrier("works", 10.0)];
    s.directives = vec![
        world_directive(5, place("works", 12.0)),
        world_directive(6, remove("nothing")),
        world_directive(7, remove("works")),
        world_directive(8, place("cart", 12.0)),
        world_directive(9, remove("cart")),
    ];
    let error = CompiledScenario::compile(&s).expect_err("two problems");
    let found: Vec<(String, SimProblem)> = error
        .diagnostics
        .into_iter()
        .map(|d| (d.path.to_string(), d.problem))
        .collect();
    assert_eq!(
        found,
        [
            (
                "directives[0].command.obstacle".to_owned(),
                SimProblem::AuthoredObstacleId {
                    obstacle: "works".into()
                }
            ),
            (
                "directives[1].command.obstacle".to_owned(),
                SimProblem::UnknownObstacle {
                    obstacle: "nothing".into()
                }
            ),
        ]
    );
}

#[test]
fn a_placed_obstacle_stops_a_walker_until_it_is_removed_and_snapshots_keep_it() {
    let mut s = scenario(2.0);
    s.directives = vec![
        world_directive(20, place("cart", 10.0)),
        world_directive(200, remove("cart")),
        // Nothing of that id is left: the directive is missed.
        world_directive(201, remove("cart")),
    ];
    let mut w = world(&s);
    run(&mut w, 199);
    let row = w.row_of(0, 0).expect("born");
    let waiting = w.agents().position[row];
    assert!(waiting.x < 9.9 - 0.3 && waiting.x > 8.0, "{waiting:?}");
    assert!(w.agents().walk_decision[row].is_waiting());
    // Restored before the removal, the world goes on exactly as one that never stopped.
    let snapshot = w.snapshot();
    run(&mut w, 60);
    assert!(w.agents().position[row].x > 12.0);
    assert_eq!(w.counters().directives_missed, 1);
    let mut restored = world(&s);
    restored.restore(&snapshot).expect("restores");
    run(&mut restored, 60);
    assert_eq!(restored.state_digest(), w.state_digest());
    // Placing an obstacle changes the state digest from then on; before, it is the digest of a
    // world without it.
    let mut plain = world(&scenario(2.0));
    let mut placed = world(&s);
    run(&mut plain, 19);
    run(&mut placed, 19);
    assert_eq!(plain.state_digest(), placed.state_digest());
    plain.step();
    placed.step();
    assert_ne!(plain.state_digest(), placed.state_digest());
}
