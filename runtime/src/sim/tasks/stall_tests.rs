//! Regression tests of goal arrival off the route centre and of a finished task's movement
//! leaving the ped's pose to its walking.

use std::sync::Arc;

use super::movement::MotionState;
use super::parent::ParentState;
use crate::project::{
    Directive, DirectiveCommand, PopulationKind, PopulationSource, RouteEnd, Scenario, Target,
    Vec2, Vec3,
};
use crate::sim::{build_world, AgentHandle, CompiledScenario, SimRoute, SimSpace, World};

/// The frame the rendezvous behind the ped completes at.
const COMPLETED_FRAME: u64 = 84;

/// A street 40 m long and 2.5 m wide along y = 0.
fn street() -> Vec<SimRoute> {
    vec![SimRoute::new(
        "street",
        vec![Vec2 { x: -20.0, y: 0.0 }, Vec2 { x: 20.0, y: 0.0 }],
    )
    .expect("route")
    .with_width_m(2.5)]
}

fn scenario(directives: Vec<Directive>, at_route_end: RouteEnd) -> Scenario {
    Scenario {
        id: "stall".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 2000,
        sources: vec![PopulationSource {
            id: "ped".into(),
            kind: PopulationKind::Ambient,
            route: "street".into(),
            target_count: 1,
            walk_speed_m_s: 1.5,
            candidates_m: vec![5.0],
            at_route_end,
            ..Default::default()
        }],
        directives,
        ..Scenario::default()
    }
}

fn world(scenario: &Scenario) -> World {
    let space = Arc::new(SimSpace::from_routes(street()).expect("space"));
    let compiled = Arc::new(CompiledScenario::compile(scenario).expect("compiles"));
    build_world(&space, &compiled, 3).expect("world")
}

fn ped(world: &World) -> AgentHandle {
    world.births_of(0)[0]
}

fn directive(frame: u64, command: DirectiveCommand) -> Directive {
    Directive {
        frame,
        target: Target::Born {
            source: "ped".into(),
            ordinal: 0,
        },
        command,
        ..Default::default()
    }
}

/// Steps until the ped's parent completes (or `frames` run out); the frame it completed at.
fn run_to_completion(w: &mut World, frames: u64) -> Option<u64> {
    while w.frame() < frames {
        w.step();
        let h = ped(w);
        if w.tasks().parents.get(&h).map(|p| p.state) == Some(ParentState::Completed) {
            return Some(w.frame());
        }
    }
    None
}

#[test]
fn a_rendezvous_one_metre_off_the_route_centre_arrives() {
    let goal = Vec3 {
        x: -10.0,
        y: 1.0,
        z: 0.0,
    };
    let mut w = world(&scenario(
        vec![directive(5, DirectiveCommand::Rendezvous { goal })],
        RouteEnd::Stop,
    ));
    // The accepted endpoint is the projected cell centre (−10.125, 0.875), 0.177 m from the
    // goal: the first stop ends there, the walk-on goes to the grid's edge just below y = 1
    // (the goal's own cell is not walkable) instead of stepping off it and blocking forever.
    let completed = run_to_completion(&mut w, 400);
    assert_eq!(completed, Some(105));
    let h = ped(&w);
    let m = &w.tasks().movements[&h];
    assert_eq!(m.state, MotionState::Arrived);
    assert_eq!(m.replans, 0);
    assert_eq!(m.path[1], [-10.125, 0.875, 0.0]);
    let edge = m.path[2];
    assert!(
        (edge[0] + 10.0).abs() < 1e-7 && (edge[1] - 1.0).abs() < 1e-7,
        "{edge:?}"
    );
    assert!(edge[1] < 1.0);
    assert!(m.distance_to_goal_m() < 2e-8, "{}", m.distance_to_goal_m());
}

/// Steps 200 frames after `w`'s task closed: every frame the ped moves, its facing is the
/// direction it walked (within 0.5 rad), and it differs from the closed movement's heading.
/// Returns how many frames it moved.
fn walks_with_its_own_heading(w: &mut World) -> u32 {
    let h = ped(w);
    let stale = w.tasks().movements[&h].heading_rad;
    let mut moved_frames = 0;
    for _ in 0..200 {
        let row = w.resolve(h).expect("alive");
        let before = w.agents().position[row];
        w.step();
        let row = w.resolve(h).expect("alive");
        let (after, facing) = (w.agents().position[row], w.agents().facing[row]);
        let (dx, dy) = (after.x - before.x, after.y - before.y);
        if (dx * dx + dy * dy).sqrt() > 1e-6 {
            moved_frames += 1;
            let walked = dy.atan2(dx);
            let faced = facing.y.atan2(facing.x);
            assert!(
                (walked - faced).abs() < 0.5,
                "frame {}: walked {walked} faced {faced} (stale {stale})",
                w.frame()
            );
        }
    }
    // The movement itself is kept as it ended (diagnostics), its heading untouched.
    assert_eq!(w.tasks().movements[&h].heading_rad, stale);
    moved_frames
}

#[test]
fn a_completed_task_leaves_the_heading_to_the_walking() {
    // The goal lies behind the ped (it was born at x = −15 walking +X): the movement ends
    // heading −X; the walker then follows its route, turning back at its ends.
    let goal = Vec3 {
        x: -18.0,
        y: 0.5,
        z: 0.0,
    };
    let mut w = world(&scenario(
        vec![directive(5, DirectiveCommand::Rendezvous { goal })],
        RouteEnd::TurnBack,
    ));
    let completed = run_to_completion(&mut w, 400).expect("completes");
    assert_eq!(completed, COMPLETED_FRAME);
    let h = ped(&w);
    assert_eq!(w.tasks().movements[&h].state, MotionState::Arrived);
    assert_eq!(walks_with_its_own_heading(&mut w), 200);
}

#[test]
fn a_cancelled_task_leaves_the_heading_to_the_walking() {
    let goal = Vec3 {
        x: -18.0,
        y: 0.5,
        z: 0.0,
    };
    let mut w = world(&scenario(
        vec![
            directive(5, DirectiveCommand::Rendezvous { goal }),
            directive(40, DirectiveCommand::Cancel),
        ],
        RouteEnd::TurnBack,
    ));
    while w.frame() < 41 {
        w.step();
    }
    let h = ped(&w);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Cancelled);
    assert_eq!(w.tasks().movements[&h].state, MotionState::Closed);
    assert_eq!(walks_with_its_own_heading(&mut w), 200);
}
