//! The specification's counterexamples for tasks: a hold without Continue, a stale reply after
//! redirect, a failure counted once, escape enumeration and its tie rule, endpoint tolerance
//! against arrival, bounded searches, and restore-and-continue equal to straight-through stepping.

use std::sync::Arc;

use super::escape::{self, EscapeRejection};
use super::movement::{MotionState, Movement};
use super::parent::ParentState;
use super::paths::{FoundPath, Obstacle, PathGrid, PathReply, MAX_EXPANSIONS};
use super::stops::{StopCause, StopOwner};
use super::TaskState;
use crate::project::{
    Barrier, Directive, DirectiveCommand, PopulationKind, PopulationSource, RouteEnd, Scenario,
    SceneObject, Target, Vec2, Vec3,
};
use crate::sim::state::{InstallRefusal, MoveFailure, PathFailure, StaleReply, TaskChange};
use crate::sim::{
    build_world, AgentHandle, CompiledScenario, EventDetail, EventKind, SimRoute, SimSpace, World,
};

fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3 { x, y, z }
}

/// A plaza 40 m long and 10 m wide along y = 0.
fn plaza() -> Vec<SimRoute> {
    vec![SimRoute::new(
        "plaza",
        vec![Vec2 { x: -20.0, y: 0.0 }, Vec2 { x: 20.0, y: 0.0 }],
    )
    .expect("route")
    .with_width_m(10.0)]
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

fn scenario(directives: Vec<Directive>) -> Scenario {
    Scenario {
        id: "tasks".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 2000,
        sources: vec![PopulationSource {
            id: "ped".into(),
            kind: PopulationKind::Ambient,
            route: "plaza".into(),
            target_count: 1,
            walk_speed_m_s: 1.5,
            candidates_m: vec![5.0],
            // The ped stands where a finished task leaves it (an ambient ped of a source
            // that stops at its goal).
            at_route_end: RouteEnd::Stop,
            ..Default::default()
        }],
        objects: vec![
            SceneObject {
                id: "car-1".into(),
                position: v3(10.0, 2.0, 0.0),
                yaw_rad: -std::f64::consts::FRAC_PI_2,
                scale: v3(1.0, 1.0, 1.0),
                half_extents_m: v3(0.9, 2.2, 0.7),
            },
            SceneObject {
                id: "car-2".into(),
                position: v3(-16.0, 2.0, 0.0),
                yaw_rad: 0.0,
                scale: v3(1.0, 1.0, 1.0),
                half_extents_m: v3(2.2, 0.9, 0.7),
            },
        ],
        directives,
        ..Scenario::default()
    }
}

fn world(scenario: &Scenario) -> World {
    let space = Arc::new(SimSpace::from_routes(plaza()).expect("space"));
    let compiled = Arc::new(CompiledScenario::compile(scenario).expect("compiles"));
    build_world(&space, &compiled, 3).expect("world")
}

fn run_to(world: &mut World, frame: u64) {
    while world.frame() < frame {
        world.step();
    }
}

fn ped(world: &World) -> AgentHandle {
    world.births_of(0)[0]
}

fn task_changes(world: &World) -> Vec<(u64, u32, u32, TaskChange)> {
    world
        .events()
        .of_kind(EventKind::Task)
        .filter_map(|e| match e.detail {
            EventDetail::Task {
                session,
                generation,
                change,
            } => Some((e.frame, session, generation, change)),
            _ => None,
        })
        .collect()
}

fn meet(object: &str, x: f64) -> DirectiveCommand {
    DirectiveCommand::RendezvousWith {
        object: object.into(),
        offset: v3(x, 0.0, 0.0),
    }
}

#[test]
fn a_rendezvous_walks_around_the_object_and_completes_after_stopping() {
    // car-1 faces −Y: its local −X offset of 2.5 m lands at (10, 4.5), beside its footprint.
    let mut w = world(&scenario(vec![directive(5, meet("car-1", -2.5))]));
    run_to(&mut w, 400);
    let h = ped(&w);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::Completed);
    assert_eq!(
        (parent.session, parent.commands, parent.failures),
        (1, 1, 0)
    );
    assert!((parent.goal[0] - 10.0).abs() < 1e-9 && (parent.goal[1] - 4.5).abs() < 1e-9);
    let m = &w.tasks().movements[&h];
    assert_eq!(m.state, MotionState::Arrived);
    assert!(m.distance_to_goal_m() <= 0.15);
    let changes: Vec<TaskChange> = task_changes(&w).iter().map(|c| c.3).collect();
    let arrived = changes.iter().position(|c| *c == TaskChange::Arrived);
    let completed = changes.iter().position(|c| *c == TaskChange::Completed);
    assert!(arrived.is_some() && arrived < completed, "{changes:?}");
}

#[test]
fn hold_for_ten_seconds_without_continue_keeps_position_and_generation() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(40, DirectiveCommand::Hold),
    ]));
    run_to(&mut w, 41);
    let h = ped(&w);
    let row = w.resolve(h).expect("alive");
    let (position, generation) = (w.agents().position[row], w.tasks().movements[&h].generation);
    let path = w.tasks().movements[&h].path.clone();
    assert_eq!(w.tasks().parents[&h].state, ParentState::WaitingForSignal);
    // 10 s = 200 frames at 0.05 s.
    run_to(&mut w, 241);
    let row = w.resolve(h).expect("alive");
    assert_eq!(w.agents().position[row], position);
    assert_eq!(w.tasks().movements[&h].generation, generation);
    assert_eq!(w.tasks().movements[&h].path, path, "hold keeps the path");
    assert_eq!(w.tasks().parents[&h].state, ParentState::WaitingForSignal);
    assert!(w
        .tasks()
        .stops_of(h)
        .owner(StopCause::CommandHold)
        .is_some());
    assert_eq!(w.tasks().parents[&h].commands, 2);
}

#[test]
fn continue_releases_only_the_hold_and_keeps_the_generation() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(40, DirectiveCommand::Hold),
        directive(110, DirectiveCommand::Continue),
        // A second Continue finds no WaitingForSignal parent: refused, nothing changes.
        directive(111, DirectiveCommand::Continue),
    ]));
    run_to(&mut w, 109);
    let h = ped(&w);
    let generation = w.tasks().movements[&h].generation;
    run_to(&mut w, 112);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Travelling);
    assert_eq!(w.tasks().movements[&h].generation, generation);
    assert!(!w.tasks().stops_of(h).any());
    assert_eq!(w.tasks().parents[&h].commands, 3);
    assert!(task_changes(&w)
        .iter()
        .any(|c| c.0 == 111 && matches!(c.3, TaskChange::Refused(_))));
    run_to(&mut w, 500);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Completed);
}

#[test]
fn a_stale_reply_after_redirect_never_installs_and_the_new_query_still_walks() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        DirectiveCommand::RedirectTo {
            object: "car-2".into(),
            offset: v3(0.0, 2.5, 0.0),
        }
        .pipe(|c| directive(6, c)),
    ]));
    run_to(&mut w, 7);
    let h = ped(&w);
    let changes = task_changes(&w);
    assert!(
        changes.contains(&(6, 1, 1, TaskChange::Stale(StaleReply::GenerationMismatch))),
        "{changes:?}"
    );
    assert!(changes.contains(&(7, 1, 2, TaskChange::PathInstalled)));
    let m = &w.tasks().movements[&h];
    assert_eq!(m.generation, 2);
    let end = m.path.last().expect("a path");
    assert!(
        (end[0] - -16.0).abs() < 1e-9 && (end[1] - 4.5).abs() < 1e-9,
        "{end:?}"
    );
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.session, parent.commands), (1, 2));
    run_to(&mut w, 600);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Completed);
}

#[test]
fn accepting_checks_generation_and_pending_and_a_stale_reply_fails_nothing() {
    let mut m = Movement::new([0.0; 3], 0.0, 1.4);
    m.request_goal([5.0, 0.0, 0.0]);
    let old = PathReply {
        handle: AgentHandle {
            index: 0,
            generation: 0,
        },
        generation: 1,
        outcome: Err(PathFailure::NoPath),
    };
    m.request_goal([6.0, 0.0, 0.0]);
    assert_eq!(m.accept_path(&old), Err(StaleReply::GenerationMismatch));
    assert_eq!(
        (m.state, m.pending, m.failure),
        (MotionState::AwaitingPath, true, None)
    );
    let good = PathReply {
        generation: 2,
        outcome: Ok(FoundPath {
            points: vec![[0.0; 3], [6.0, 0.0, 0.0]],
            expansions: 3,
        }),
        ..old.clone()
    };
    assert_eq!(m.accept_path(&good), Ok(()));
    assert_eq!(m.state, MotionState::Walking);
    // The same reply again finds nothing pending.
    assert_eq!(m.accept_path(&good), Err(StaleReply::NothingPending));
    assert_eq!(m.state, MotionState::Walking);
}

#[test]
fn an_endpoint_fourteen_centimetres_off_per_axis_is_accepted_but_arrival_needs_three_d() {
    let grid = PathGrid::new(&plaza(), &[]);
    let fan = crate::sim::walk::fan::Fan::default();
    let env = super::movement::MoveEnv {
        grid: &grid,
        unknown: &[],
        neighbours: &[],
        bodies: &std::cell::RefCell::default(),
        fan: &fan,
        dt_s: 0.05,
        profiles: &crate::sim::config::profiles::ProfileTable::standard(),
    };
    let goal = [3.0, 1.0, 0.0];
    let mut m = Movement::new([0.0, 1.0, 0.0], 0.0, 1.0);
    m.request_goal(goal);
    let end = [goal[0] + 0.14, goal[1] + 0.14, 0.0];
    let reply = PathReply {
        handle: AgentHandle {
            index: 0,
            generation: 0,
        },
        generation: m.generation,
        outcome: Ok(FoundPath {
            points: vec![[0.0, 1.0, 0.0], end],
            expansions: 1,
        }),
    };
    assert_eq!(m.accept_path(&reply), Ok(()));
    assert_eq!(
        m.state,
        MotionState::Walking,
        "0.14 m per axis is within 0.15 m"
    );
    // 3.16 m walking: the goal stop ends on the endpoint, 0.198 m from the goal.
    for _ in 0..70 {
        super::movement::advance(&mut m, &env, false);
        if m.position[0] == end[0] && m.position[1] == end[1] {
            break;
        }
    }
    assert_eq!([m.position[0], m.position[1]], [end[0], end[1]]);
    assert!(m.distance_to_goal_m() > 0.15);
    assert_ne!(m.state, MotionState::Arrived);
    // It walks on to the goal itself: a start, then a goal stop scaled to the 0.198 m left.
    for _ in 0..40 {
        super::movement::advance(&mut m, &env, false);
    }
    assert_eq!(m.state, MotionState::Arrived);
    assert!(m.distance_to_goal_m() <= 0.15);
    // 0.16 m off on one axis is refused.
    let mut far = Movement::new([0.0, 1.0, 0.0], 0.0, 1.0);
    far.request_goal(goal);
    let reply = PathReply {
        generation: far.generation,
        outcome: Ok(FoundPath {
            points: vec![[0.0, 1.0, 0.0], [3.0, 1.16, 0.0]],
            expansions: 1,
        }),
        ..reply
    };
    assert_eq!(far.accept_path(&reply), Ok(()));
    assert_eq!(
        (far.state, far.failure),
        (
            MotionState::Failed,
            Some(MoveFailure::EndpointOutsideTolerance)
        )
    );
}

#[test]
fn an_unknown_barrier_blocks_three_replans_then_fails_once_and_a_redirect_reassigns() {
    let mut s = scenario(vec![
        directive(5, meet("car-1", -2.5)),
        DirectiveCommand::RedirectTo {
            object: "car-2".into(),
            offset: v3(0.0, 2.5, 0.0),
        }
        .pipe(|c| directive(400, c)),
    ]);
    // A wall across the whole plaza at x = −10 that navigation does not know.
    s.barriers = vec![Barrier {
        id: "closure".into(),
        from: v3(-10.0, -6.0, 0.0),
        to: v3(-10.0, 6.0, 0.0),
        thickness_m: 0.2,
        in_navigation: false,
    }];
    let mut w = world(&s);
    run_to(&mut w, 399);
    let h = ped(&w);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::AwaitingDecision);
    assert_eq!(parent.failures, 1, "consumed once over many updates");
    assert_eq!(parent.last_failure, Some(MoveFailure::ReplansExhausted));
    let m = &w.tasks().movements[&h];
    assert_eq!((m.state, m.replans), (MotionState::Failed, 4));
    let replans = task_changes(&w)
        .iter()
        .filter(|c| matches!(c.3, TaskChange::Replanned(_)))
        .count();
    assert_eq!(replans, 3);
    let consumed = task_changes(&w)
        .iter()
        .filter(|c| c.3 == TaskChange::FailureConsumed)
        .count();
    assert_eq!(consumed, 1);
    let generation = m.generation;
    run_to(&mut w, 900);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::Completed);
    assert_eq!(
        (parent.session, parent.commands, parent.failures),
        (1, 2, 1)
    );
    assert_eq!(w.tasks().movements[&h].generation, generation + 1);
    assert!(w.tasks().movements[&h].distance_to_goal_m() <= 0.15);
}

#[test]
fn an_unreachable_goal_fails_at_once_by_the_query() {
    let mut w = world(&scenario(vec![directive(
        5,
        DirectiveCommand::Rendezvous {
            goal: v3(0.0, 40.0, 0.0),
        },
    )]));
    run_to(&mut w, 10);
    let h = ped(&w);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::AwaitingDecision);
    assert_eq!(
        parent.last_failure,
        Some(MoveFailure::Query(PathFailure::GoalOffGrid))
    );
    assert_eq!(w.tasks().movements[&h].replans, 0);
}

#[test]
fn cancel_closes_only_this_parent_and_a_late_reply_installs_nothing() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(6, DirectiveCommand::Cancel),
        directive(7, DirectiveCommand::Cancel),
    ]));
    run_to(&mut w, 60);
    let h = ped(&w);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Cancelled);
    assert_eq!(w.tasks().movements[&h].state, MotionState::Closed);
    assert!(w.tasks().movements[&h].path.is_empty());
    let changes = task_changes(&w);
    assert!(changes
        .iter()
        .any(|c| c.0 == 6 && matches!(c.3, TaskChange::Stale(_))));
    assert!(changes
        .iter()
        .any(|c| c.0 == 7 && matches!(c.3, TaskChange::Refused(_))));
    assert!(!w.tasks().protects(h));
}

#[test]
fn escape_enumerates_twenty_one_candidates_in_order_and_ties_keep_the_first() {
    let grid = PathGrid::new(&plaza(), &[]);
    let start = Vec2 { x: 0.0, y: 0.0 };
    let threat = Vec2 { x: -1.0, y: 0.0 };
    let report = escape::select(&grid, start, Vec2 { x: 1.0, y: 0.0 }, threat, 2.0, &|_| {
        false
    });
    assert_eq!(report.candidates.len(), 21);
    let order: Vec<(i16, f64)> = report
        .candidates
        .iter()
        .map(|c| (c.angle_deg, c.length_m))
        .collect();
    assert_eq!(&order[..4], &[(0, 3.0), (0, 5.0), (0, 7.5), (30, 3.0)]);
    assert_eq!(order[20], (-90, 7.5));
    // Along +x the plaza is open: the longest straight candidate scores best.
    assert_eq!(report.selected, Some(2));
    // +90° at 3 m lands at (0, 3): 3.16 m from the threat, a straight 3 m route.
    let score = report.candidates[15].verdict.expect("qualified");
    assert!(
        (score - (10.0_f64.sqrt() - 0.05 * 3.0)).abs() < 1e-9,
        "{score}"
    );
    // 90° at 7.5 m lands 7.5 m off the plaza's centreline: no walkable cell within 0.5 m.
    assert_eq!(
        report.candidates[17].verdict,
        Err(EscapeRejection::ProjectionTooFar)
    );
    // Coincident threat: the facing is the away direction.
    let coincident = escape::select(&grid, start, Vec2 { x: 0.0, y: 1.0 }, start, 1.0, &|_| {
        false
    });
    let first = coincident.candidates[0].point;
    assert!((first[0]).abs() < 1e-9 && (first[1] - 2.0).abs() < 1e-9);
    // Ties keep the first: a symmetric layout scores +30° and −30° equally.
    let tie = escape::select(&grid, start, Vec2 { x: 1.0, y: 0.0 }, threat, 2.0, &|p| {
        p.y.abs() < 1e-9
    });
    let scores: Vec<f64> = tie
        .candidates
        .iter()
        .filter_map(|c| c.verdict.ok())
        .collect();
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let first_best = tie
        .candidates
        .iter()
        .position(|c| c.verdict == Ok(best))
        .expect("a best");
    assert_eq!(tie.selected, Some(first_best));
    let selected = &tie.candidates[first_best];
    assert_eq!(
        (first_best, selected.angle_deg),
        (5, 30),
        "+30° at 7.5 m comes before −30°"
    );
    let mirror = tie
        .candidates
        .iter()
        .find(|c| c.angle_deg == -30 && c.length_m == selected.length_m)
        .expect("mirror");
    assert_eq!(mirror.verdict, Ok(best), "an exact tie");
    // A threat everywhere too close: nothing qualifies, not accepted.
    let none = escape::select(&grid, start, Vec2 { x: 1.0, y: 0.0 }, threat, 40.0, &|_| {
        false
    });
    assert_eq!(none.selected, None);
}

#[test]
fn an_escape_runs_to_its_endpoint_and_completes_only_beyond_the_safe_distance() {
    let mut w = world(&scenario(vec![directive(
        5,
        DirectiveCommand::Escape {
            threat: v3(3.0, 0.0, 0.0),
            safe_distance_m: 4.0,
            endpoint: None,
            restore_interrupted: false,
        },
    )]));
    run_to(&mut w, 200);
    let h = ped(&w);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::Completed);
    let row = w.resolve(h).expect("alive");
    let p = w.agents().position[row];
    assert!((p.x - 3.0).hypot(p.y) > 4.0);
    assert!(matches!(
        parent.kind,
        super::parent::ParentKind::Escape { start_count: 1, .. }
    ));
    assert_eq!(w.tasks().escapes[&h].candidates.len(), 21);
}

#[test]
fn a_search_stops_at_the_expansion_bound() {
    // A forest of pillars 1.25 m apart leaves lanes one cell wide: jump points at nearly every
    // pillar. The goal at (15, 0) is walled in, so the search would visit the whole forest.
    let mut obstacles = Vec::new();
    for i in 0..32 {
        for j in 0..8 {
            let centre = Vec2 {
                x: -19.5 + 1.25 * f64::from(i),
                y: -4.5 + 1.25 * f64::from(j),
            };
            obstacles.push(Obstacle::Circle {
                centre,
                radius_m: 0.1,
            });
        }
    }
    let ring = [
        (13.0, -2.0),
        (17.0, -2.0),
        (17.0, 2.0),
        (13.0, 2.0),
        (13.0, -2.0),
    ];
    for pair in ring.windows(2) {
        obstacles.push(Obstacle::Segment {
            from: Vec2 {
                x: pair[0].0,
                y: pair[0].1,
            },
            to: Vec2 {
                x: pair[1].0,
                y: pair[1].1,
            },
            half_thickness_m: 0.1,
        });
    }
    let grid = PathGrid::new(&plaza(), &obstacles);
    let start = Vec2 { x: -19.0, y: 0.0 };
    let walled = grid.find(start, Vec2 { x: 15.0, y: 0.0 });
    assert_eq!(walled, Err(PathFailure::ExpansionLimit));
    // Through the same forest to an open goal: found, under the bound but far from free.
    let through = grid
        .find(start, Vec2 { x: 19.0, y: 0.3 })
        .expect("a way through the forest");
    assert!(
        (1000..MAX_EXPANSIONS).contains(&through.expansions),
        "{} expansions",
        through.expansions
    );
    assert!(through.points.len() > 2);
    // On the open plaza the straight segment is clear: no search at all.
    let open = PathGrid::new(&plaza(), &[]);
    let path = open
        .find(Vec2 { x: -19.5, y: 0.0 }, Vec2 { x: 19.5, y: 0.0 })
        .expect("straight");
    assert_eq!(path.expansions, 0);
    assert_eq!(path.points.len(), 2, "line of sight leaves two corners");
    // Round a wall across most of the plaza: a searched path with a corner.
    let wall = [Obstacle::Segment {
        from: Vec2 { x: 0.0, y: -6.0 },
        to: Vec2 { x: 0.0, y: 3.0 },
        half_thickness_m: 0.1,
    }];
    let round = PathGrid::new(&plaza(), &wall)
        .find(Vec2 { x: -5.0, y: 0.0 }, Vec2 { x: 5.0, y: 0.0 })
        .expect("round the wall");
    assert!(round.expansions > 0 && round.points.len() >= 3, "{round:?}");
    assert!(round.points.iter().any(|p| p[1] > 3.0), "{round:?}");
}

#[test]
fn restoring_mid_task_and_continuing_matches_straight_stepping() {
    let s = scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(30, DirectiveCommand::Hold),
        directive(60, DirectiveCommand::Continue),
        DirectiveCommand::RedirectTo {
            object: "car-2".into(),
            offset: v3(0.0, 2.5, 0.0),
        }
        .pipe(|c| directive(80, c)),
    ]);
    let mut straight = world(&s);
    run_to(&mut straight, 300);
    let mut restored = world(&s);
    run_to(&mut restored, 70);
    let snapshot = restored.snapshot();
    run_to(&mut restored, 150);
    restored.restore(&snapshot).expect("restores");
    assert_eq!(restored.frame(), 70);
    run_to(&mut restored, 300);
    assert_eq!(restored.state_digest(), straight.state_digest());
    assert_eq!(restored.tasks(), straight.tasks());
    assert!(!straight.tasks().is_empty());
}

#[test]
fn a_world_without_tasks_writes_no_task_bytes() {
    let mut bytes = Vec::new();
    TaskState::default().write_canonical(&mut bytes);
    assert!(bytes.is_empty());
    let mut w = world(&scenario(Vec::new()));
    run_to(&mut w, 20);
    assert!(w.tasks().is_empty());
}

fn stand(duration_s: f64) -> DirectiveCommand {
    DirectiveCommand::Stand { duration_s }
}

fn position(w: &World) -> Vec2 {
    let row = w.resolve(ped(w)).expect("alive");
    w.agents().position[row]
}

#[test]
fn a_stand_holds_until_its_deadline_and_a_continue_does_not_release_it() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        // 2 s at 0.05 s: standing until frame 60.
        directive(20, stand(2.0)),
        // A Continue releases only a command hold: refused (nothing waits for a signal).
        directive(30, DirectiveCommand::Continue),
    ]));
    run_to(&mut w, 21);
    let h = ped(&w);
    let (at, generation) = (position(&w), w.tasks().movements[&h].generation);
    assert_eq!(
        w.tasks().stops_of(h).owner(StopCause::TimedStanding),
        Some(StopOwner::Clock { until_frame: 60 })
    );
    // `world.frame()` is the last frame stepped: frame 59 still stands, frame 60 walks.
    run_to(&mut w, 59);
    assert_eq!(position(&w), at, "standing keeps the position");
    assert_eq!(w.tasks().movements[&h].generation, generation);
    let parent = &w.tasks().parents[&h];
    assert_eq!(
        parent.state,
        ParentState::Travelling,
        "standing is not waiting"
    );
    assert_eq!(parent.commands, 2);
    assert!(w
        .tasks()
        .stops_of(h)
        .owner(StopCause::TimedStanding)
        .is_some());
    run_to(&mut w, 60);
    assert!(!w.tasks().stops_of(h).any(), "the clock released it");
    assert_ne!(position(&w), at, "walking on");
    let changes = task_changes(&w);
    assert!(changes.contains(&(20, 1, generation, TaskChange::Standing)));
    assert!(changes.contains(&(60, 1, generation, TaskChange::StandingEnded)));
    assert!(changes
        .iter()
        .any(|c| c.0 == 30 && c.3 == TaskChange::Refused(InstallRefusal::WrongState)));
    run_to(&mut w, 600);
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.state, parent.session), (ParentState::Completed, 1));
}

#[test]
fn hold_and_stand_are_separate_causes_each_released_by_its_owner() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, DirectiveCommand::Hold),
        // Standing until frame 81.
        directive(21, stand(3.0)),
        directive(40, DirectiveCommand::Continue),
    ]));
    run_to(&mut w, 41);
    let h = ped(&w);
    let at = position(&w);
    // The Continue released the command hold only: the parent travels, the clock still holds.
    assert_eq!(w.tasks().parents[&h].state, ParentState::Travelling);
    let stops = w.tasks().stops_of(h);
    assert_eq!(stops.owner(StopCause::CommandHold), None);
    assert_eq!(
        stops.owner(StopCause::TimedStanding),
        Some(StopOwner::Clock { until_frame: 81 })
    );
    run_to(&mut w, 80);
    assert_eq!(position(&w), at);
    run_to(&mut w, 81);
    assert_ne!(position(&w), at);
    assert_eq!(w.tasks().parents[&h].commands, 4);
}

#[test]
fn a_redirect_removes_a_timed_standing() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, stand(30.0)),
        DirectiveCommand::RedirectTo {
            object: "car-2".into(),
            offset: v3(0.0, 2.5, 0.0),
        }
        .pipe(|c| directive(30, c)),
    ]));
    run_to(&mut w, 31);
    let h = ped(&w);
    assert!(!w.tasks().stops_of(h).any());
    run_to(&mut w, 700);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Completed);
}

/// An escape asking for the interrupted task back when it ends.
fn flee_restoring() -> DirectiveCommand {
    match flee() {
        DirectiveCommand::Escape {
            threat,
            safe_distance_m,
            endpoint,
            ..
        } => DirectiveCommand::Escape {
            threat,
            safe_distance_m,
            endpoint,
            restore_interrupted: true,
        },
        other => other,
    }
}

fn flee() -> DirectiveCommand {
    DirectiveCommand::Escape {
        threat: v3(3.0, 0.0, 0.0),
        safe_distance_m: 4.0,
        endpoint: None,
        restore_interrupted: false,
    }
}

#[test]
fn an_escape_asked_to_restore_suspends_the_rendezvous_and_its_end_restores_it() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, flee_restoring()),
    ]));
    run_to(&mut w, 21);
    let h = ped(&w);
    let escape = &w.tasks().parents[&h];
    assert_eq!((escape.kind_name(), escape.session), ("escape", 2));
    let held = &w.tasks().suspended[&h];
    assert_eq!(
        (held.parent.session, held.parent.state),
        (1, ParentState::Travelling)
    );
    assert_eq!(held.movement.state, MotionState::Suspended);
    assert_eq!(
        w.tasks().stops_of(h).owner(StopCause::HigherPriorityTask),
        Some(StopOwner::Task { session: 2 })
    );
    assert!(!w.tasks().holds_movement(h), "the escape itself runs");
    assert!(w.tasks().protects(h));
    // The escape completes; its owner releases the suspension and the rendezvous comes back.
    let mut restored_at = None;
    for _ in 0..400 {
        w.step();
        if w.tasks().suspended.is_empty() {
            restored_at = Some(w.frame());
            break;
        }
    }
    assert!(restored_at.is_some(), "the escape ended");
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.kind_name(), parent.session), ("rendezvous", 1));
    assert!(!w.tasks().stops_of(h).any());
    let changes = task_changes(&w);
    let preempted = changes
        .iter()
        .find(|c| c.3 == TaskChange::Preempted)
        .expect("logged");
    // Queued at 20, processed (and the rendezvous suspended) by the Tasks update of 21.
    assert_eq!((preempted.0, preempted.1), (21, 1));
    let completed = changes
        .iter()
        .find(|c| c.3 == TaskChange::Completed)
        .expect("the escape completed");
    let restored = changes
        .iter()
        .find(|c| c.3 == TaskChange::Restored)
        .expect("logged");
    assert_eq!(completed.1, 2);
    assert_eq!(restored.1, 1);
    assert!(
        restored.2 > completed.2,
        "a new generation past the escape's"
    );
    run_to(&mut w, 900);
    let parent = &w.tasks().parents[&h];
    assert_eq!(parent.state, ParentState::Completed);
    assert_eq!(
        (parent.session, parent.commands, parent.failures),
        (1, 1, 0)
    );
    assert!(w.tasks().movements[&h].distance_to_goal_m() <= 0.15);
}

#[test]
fn cancelling_the_escape_restores_the_held_rendezvous_still_held() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, DirectiveCommand::Hold),
        directive(30, flee_restoring()),
        directive(40, DirectiveCommand::Cancel),
        directive(80, DirectiveCommand::Continue),
    ]));
    run_to(&mut w, 31);
    let h = ped(&w);
    // The rendezvous' command hold went with it: it never holds the escape.
    assert_eq!(w.tasks().stops_of(h).owner(StopCause::CommandHold), None);
    assert_eq!(
        w.tasks().suspended[&h].command_hold,
        Some(StopOwner::Directive { session: 1 })
    );
    run_to(&mut w, 41);
    let parent = &w.tasks().parents[&h];
    assert_eq!(
        (parent.session, parent.state),
        (1, ParentState::WaitingForSignal)
    );
    assert_eq!(
        w.tasks().stops_of(h).owner(StopCause::CommandHold),
        Some(StopOwner::Directive { session: 1 })
    );
    assert_eq!(
        w.tasks().stops_of(h).owner(StopCause::HigherPriorityTask),
        None
    );
    let at = position(&w);
    run_to(&mut w, 79);
    assert_eq!(position(&w), at, "still held until its Continue");
    run_to(&mut w, 900);
    assert_eq!(w.tasks().parents[&h].state, ParentState::Completed);
}

#[test]
fn a_new_rendezvous_during_an_escape_supersedes_the_suspended_one() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, flee_restoring()),
        DirectiveCommand::RendezvousWith {
            object: "car-2".into(),
            offset: v3(0.0, 2.5, 0.0),
        }
        .pipe(|c| directive(30, c)),
    ]));
    run_to(&mut w, 31);
    let h = ped(&w);
    assert!(w.tasks().suspended.is_empty());
    assert!(!w.tasks().stops_of(h).any());
    assert_eq!(w.tasks().parents[&h].session, 3);
    let replaced: Vec<u32> = task_changes(&w)
        .iter()
        .filter(|c| c.3 == TaskChange::Replaced)
        .map(|c| c.1)
        .collect();
    assert_eq!(
        replaced,
        vec![2, 1],
        "the escape, then the suspended rendezvous"
    );
}

#[test]
fn a_second_escape_takes_over_the_suspension_and_its_end_restores_the_rendezvous() {
    let mut w = world(&scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, flee_restoring()),
        DirectiveCommand::Escape {
            threat: v3(-20.0, 0.0, 0.0),
            safe_distance_m: 4.0,
            endpoint: None,
            restore_interrupted: false,
        }
        .pipe(|c| directive(30, c)),
    ]));
    run_to(&mut w, 31);
    let h = ped(&w);
    assert_eq!(w.tasks().parents[&h].session, 3);
    assert_eq!(w.tasks().suspended[&h].parent.session, 1);
    assert_eq!(
        w.tasks().stops_of(h).owner(StopCause::HigherPriorityTask),
        Some(StopOwner::Task { session: 3 }),
        "handed from the first escape to the second"
    );
    run_to(&mut w, 900);
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.session, parent.state), (1, ParentState::Completed));
    assert!(w.tasks().suspended.is_empty());
    let restored: Vec<u32> = task_changes(&w)
        .iter()
        .filter(|c| c.3 == TaskChange::Restored)
        .map(|c| c.1)
        .collect();
    assert_eq!(restored, vec![1]);
}

#[test]
fn restoring_during_a_suspension_and_continuing_matches_straight_stepping() {
    let s = scenario(vec![
        directive(5, meet("car-1", -2.5)),
        directive(20, flee_restoring()),
        directive(25, stand(1.0)),
    ]);
    let mut straight = world(&s);
    run_to(&mut straight, 400);
    let mut restored = world(&s);
    run_to(&mut restored, 30);
    assert!(!restored.tasks().suspended.is_empty());
    let snapshot = restored.snapshot();
    run_to(&mut restored, 90);
    restored.restore(&snapshot).expect("restores");
    run_to(&mut restored, 400);
    assert_eq!(restored.state_digest(), straight.state_digest());
    assert_eq!(restored.tasks(), straight.tasks());
}

/// `value.pipe(f)` = `f(value)`, so a directive list reads in frame order.
trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}

impl Pipe for DirectiveCommand {}

/// A blocking vehicle relation mid-task suspends the movement (generation + 1, nothing moves)
/// while the parent stays active; when the relation ends the movement replans from where the
/// ped stands to the retained goal. Both are task events.
#[test]
fn entering_a_vehicle_mid_task_suspends_the_movement_until_the_relation_ends() {
    use crate::project::VehicleRelation;
    let relation = |relation| DirectiveCommand::SetVehicleRelation { relation };
    let mut w = world(&scenario(vec![
        directive(
            5,
            DirectiveCommand::Rendezvous {
                goal: v3(18.0, 0.0, 0.0),
            },
        ),
        directive(20, relation(VehicleRelation::Entering)),
        directive(40, relation(VehicleRelation::None)),
    ]));
    run_to(&mut w, 21);
    let h = ped(&w);
    let at_entry = position(&w);
    run_to(&mut w, 39);
    assert_eq!(position(&w), at_entry, "no step while entering the vehicle");
    assert_eq!(w.tasks().parents[&h].state, ParentState::Travelling);
    assert_eq!(w.tasks().movements[&h].state, MotionState::Suspended);
    // It starts from rest (the walking start clip, 0.6 s) once the new path is installed.
    run_to(&mut w, 70);
    assert!(position(&w).x > at_entry.x + 1.0, "travelling on");
    let log = task_changes(&w);
    let find = |wanted: TaskChange| {
        log.iter()
            .find(|c| c.3 == wanted)
            .map(|c| (c.0, c.2))
            .expect("logged")
    };
    let (suspended_at, suspended) = find(TaskChange::Suspended);
    let (resumed_at, resumed) = find(TaskChange::Resumed);
    assert_eq!((suspended_at, resumed_at), (20, 40));
    let before: Vec<u32> = log.iter().filter(|c| c.0 < 20).map(|c| c.2).collect();
    assert_eq!(suspended, before.iter().max().copied().unwrap_or(0) + 1);
    assert_eq!(resumed, suspended + 1);
    let queued = log
        .iter()
        .find(|c| c.0 >= 40 && c.3 == TaskChange::PathQueued)
        .map(|c| c.2);
    assert_eq!(
        queued,
        Some(resumed),
        "the replan asks from where it stands"
    );
}
