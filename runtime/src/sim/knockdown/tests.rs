//! Tests of knockdown and recovery: the specification's thresholds on the pure state machine (each
//! test fails if its threshold moves either way), the blend's pause without rollback, the real
//! rigid-body fall, and the world integration (suspension, resume from the actual position,
//! cancel during knockdown, snapshots).

use std::sync::Arc;

use super::recovery::{MAX_SETTLED_ANGULAR_RAD_S, MAX_SETTLED_LINEAR_M_S};
use super::*;
use crate::project::{
    Directive, DirectiveCommand, PopulationKind, PopulationSource, Scenario, Target, Vec3,
};
use crate::sim::state::{EventDetail, EventKind};
use crate::sim::{build_world, CompiledScenario, SimRoute, SimSpace, World};

mod commands;

const STEP_MS: u64 = 50;

fn calm() -> RecoverySample {
    RecoverySample {
        supported: true,
        linear_m_s: 0.0,
        angular_rad_s: 0.0,
        clearance: Clearance::Clear,
    }
}

/// Feeds `sample` until the phase changes (at most `limit` steps); returns the step number
/// (1-based) and the transition.
fn until_transition(
    recovery: &mut Recovery,
    sample: RecoverySample,
    limit: u32,
) -> Option<(u32, Transition)> {
    (1..=limit).find_map(|step| recovery.advance(STEP_MS, sample).map(|t| (step, t)))
}

#[test]
fn the_blend_starts_exactly_when_physics_age_reaches_1_3_s() {
    let mut r = Recovery::default();
    let (step, t) = until_transition(&mut r, calm(), 100).expect("leaves physics");
    // 26 × 50 ms = 1300 ms; stability (350 ms) was reached long before.
    assert_eq!(step, 26);
    assert_eq!(r.age_ms, 1300);
    assert_eq!(t.to, RecoveryPhase::Blending);
    assert_eq!(t.reason, KnockdownReason::SettledWithSpace);
}

#[test]
fn stable_time_must_reach_0_35_s_and_resets_when_unsettled() {
    let mut r = Recovery::default();
    let rolling = RecoverySample {
        linear_m_s: 1.0,
        ..calm()
    };
    assert_eq!(until_transition(&mut r, rolling, 40), None);
    assert_eq!(r.stable_ms, 0);
    // One settled step, one unsettled (reset), then settled: seven steps make 350 ms.
    assert_eq!(r.advance(STEP_MS, calm()), None);
    assert_eq!(r.stable_ms, 50);
    assert_eq!(r.advance(STEP_MS, rolling), None);
    assert_eq!(r.stable_ms, 0);
    let (step, t) = until_transition(&mut r, calm(), 20).expect("settles");
    assert_eq!(step, 7);
    assert_eq!(r.stable_ms, 350);
    assert_eq!(t.to, RecoveryPhase::Blending);
}

#[test]
fn the_linear_speed_limit_is_0_35_m_s_inclusive() {
    let at = |v: f64| {
        let mut r = Recovery::default();
        let sample = RecoverySample {
            linear_m_s: v,
            ..calm()
        };
        until_transition(&mut r, sample, 200).map(|(step, _)| step)
    };
    assert_eq!(MAX_SETTLED_LINEAR_M_S, 0.35);
    assert_eq!(at(0.35), Some(26));
    assert_eq!(at(0.350_001), None);
    assert_eq!(at(0.349), Some(26));
    assert_eq!(at(f64::NAN), None);
    assert_eq!(at(-0.1), None, "a negative speed is not a speed");
}

#[test]
fn the_angular_speed_limit_is_90_degrees_per_second_inclusive() {
    let at = |deg_s: f64| {
        let mut r = Recovery::default();
        let sample = RecoverySample {
            angular_rad_s: deg_s.to_radians(),
            ..calm()
        };
        until_transition(&mut r, sample, 200).map(|(step, _)| step)
    };
    assert_eq!(MAX_SETTLED_ANGULAR_RAD_S, 90f64.to_radians());
    assert_eq!(at(90.0), Some(26));
    assert_eq!(at(90.001), None);
    assert_eq!(at(89.0), Some(26));
    assert_eq!(at(f64::INFINITY), None);
}

#[test]
fn recovery_never_completes_while_unsupported() {
    let mut r = Recovery::default();
    let floating = RecoverySample {
        supported: false,
        ..calm()
    };
    assert_eq!(until_transition(&mut r, floating, 2000), None);
    assert_eq!(r.phase, RecoveryPhase::Simulating);
    assert_eq!((r.stable_ms, r.blend_ms), (0, 0));
    assert_eq!(r.age_ms, 2000 * STEP_MS);
}

#[test]
fn no_standing_clearance_waits_for_space_and_blends_once_clear() {
    let mut r = Recovery::default();
    let crowded = RecoverySample {
        clearance: Clearance::BlockedByPed,
        ..calm()
    };
    let (step, t) = until_transition(&mut r, crowded, 100).expect("waits");
    assert_eq!(step, 26);
    assert_eq!(
        (t.to, t.reason),
        (RecoveryPhase::WaitingForSpace, KnockdownReason::PedInTheWay)
    );
    // Elapsed stable time never bypasses clearance.
    assert_eq!(until_transition(&mut r, crowded, 400), None);
    // Unsettled while waiting: back to simulating, stable time reset.
    let t = r.advance(
        STEP_MS,
        RecoverySample {
            linear_m_s: 2.0,
            ..crowded
        },
    );
    assert_eq!(
        t.map(|t| (t.to, t.reason)),
        Some((RecoveryPhase::Simulating, KnockdownReason::TooFast))
    );
    let (step, t) = until_transition(&mut r, calm(), 100).expect("blends");
    assert_eq!((step, t.to), (7, RecoveryPhase::Blending));
}

#[test]
fn the_blend_pauses_and_never_rolls_back_when_clearance_or_support_is_lost() {
    let mut r = Recovery::default();
    until_transition(&mut r, calm(), 100).expect("blends");
    let blocked = RecoverySample {
        clearance: Clearance::BlockedByProp,
        ..calm()
    };
    let unsupported = RecoverySample {
        supported: false,
        ..calm()
    };
    // 4 safe steps (200 ms), 10 blocked, 3 safe, 5 unsupported, then safe to the end.
    let plan = [(calm(), 4), (blocked, 10), (calm(), 3), (unsupported, 5)];
    let mut previous = r.blend_ms;
    let mut transitions = Vec::new();
    for (sample, steps) in plan {
        for _ in 0..steps {
            transitions.extend(r.advance(STEP_MS, sample).map(|t| (t.to, t.reason)));
            assert!(r.blend_ms >= previous, "the blend never rolls back");
            if sample != calm() {
                assert_eq!(r.blend_ms, previous, "the blend is frozen while unsafe");
                assert_eq!(r.phase, RecoveryPhase::BlendPaused);
            }
            previous = r.blend_ms;
        }
    }
    assert_eq!(r.blend_ms, 7 * STEP_MS);
    assert_eq!(
        transitions,
        [
            (RecoveryPhase::BlendPaused, KnockdownReason::PropInTheWay),
            (RecoveryPhase::Blending, KnockdownReason::SafeAgain),
            (RecoveryPhase::BlendPaused, KnockdownReason::Unsupported),
        ]
    );
    // Safe again: the blend continues where it stopped (350 → 400 ms) ...
    let t = r.advance(STEP_MS, calm()).map(|t| (t.to, t.reason));
    assert_eq!(
        t,
        Some((RecoveryPhase::Blending, KnockdownReason::SafeAgain))
    );
    assert_eq!(r.blend_ms, 8 * STEP_MS);
    // ... and 800 ms in all: 8 more safe steps, the last of which completes.
    let (step, t) = until_transition(&mut r, calm(), 20).expect("completes");
    assert_eq!(step, 8);
    assert_eq!(
        (t.to, t.reason),
        (RecoveryPhase::Complete, KnockdownReason::Resumed)
    );
    assert_eq!(r.blend_weight(), 1.0);
}

#[test]
fn the_blend_weight_is_the_smoothstep_of_its_progress() {
    assert_eq!(recovery::smoothstep(0.0), 0.0);
    assert_eq!(recovery::smoothstep(0.5), 0.5);
    assert_eq!(recovery::smoothstep(0.25), 0.25 * 0.25 * 2.5);
    assert_eq!(recovery::smoothstep(2.0), 1.0);
}

fn open_env() -> (impl Fn(Vec2) -> bool, impl Fn(AgentHandle, Vec2) -> bool) {
    (|_: Vec2| true, |_: AgentHandle, _: Vec2| false)
}

/// A scene of `obstacles` (footprint, height), none known to navigation.
fn scene(obstacles: &[(crate::sim::obstacles::Obstacle, f64)]) -> ObstacleSet {
    let obstacles = obstacles
        .iter()
        .enumerate()
        .map(
            |(i, (footprint, height_m))| crate::sim::obstacles::SceneObstacle {
                footprint: *footprint,
                height_m: *height_m,
                in_navigation: false,
                origin: crate::sim::obstacles::ObstacleOrigin::Placed(format!("o{i}")),
            },
        )
        .collect();
    ObstacleSet::new(obstacles, 0)
}

fn request(index: u32, x: f64, impulse_n_s: [f64; 3]) -> KnockdownRequest {
    KnockdownRequest {
        handle: AgentHandle::first(index),
        position: Vec2 { x, y: 0.0 },
        facing: Vec2 { x: 1.0, y: 0.0 },
        velocity_m_s: Vec2 { x: 1.4, y: 0.0 },
        impulse_n_s,
        intent: AgentState::Walking,
    }
}

#[test]
fn a_knocked_body_topples_settles_on_the_ground_and_recovers() {
    let mut knock = Knockdowns::default();
    let empty = scene(&[]);
    let session = knock.knock_down(&empty, request(0, 0.0, [120.0, 0.0, 0.0]));
    assert_eq!(session, 0);
    let (walkable, peds) = open_env();
    let standing = |feet: [f64; 3]| physics::standing_blocked(&empty, feet);
    let env = RecoveryEnv {
        walkable: &walkable,
        ped_in_the_way: &peds,
        standing_blocked: &standing,
    };
    let mut log = Vec::new();
    let mut lowest_z = f64::MAX;
    for frame in 1..=200 {
        for u in knock.step(0.05, &env) {
            log.extend(u.transition.map(|t| (frame, t.to)));
            if let Some(resume) = u.resume {
                assert_eq!(resume, Resume::Intent(AgentState::Walking));
                assert!(u.anchor.x > 0.3, "fell forward: {:?}", u.anchor);
            }
        }
        if let Some(c) = knock.criteria(AgentHandle::first(0)) {
            lowest_z = lowest_z.min(c.body.map_or(f64::MAX, |b| b.pelvis_m[2]));
        }
    }
    // It lay down: the pelvis came down to about the capsule's radius.
    assert!(
        (lowest_z - physics::BODY_RADIUS_M).abs() < 0.05,
        "{lowest_z}"
    );
    let phases: Vec<RecoveryPhase> = log.iter().map(|(_, p)| *p).collect();
    assert_eq!(phases, [RecoveryPhase::Blending, RecoveryPhase::Complete]);
    let (blend, done) = (log[0].0, log[1].0);
    assert!(blend >= 26, "never before 1.3 s of physics: {blend}");
    assert_eq!(done - blend, 16, "0.8 s of blend at 50 ms");
    assert!(knock.is_empty());
    assert_eq!(knock.scene().map(PhysicsScene::body_count), Some(0));
}

#[test]
fn a_settled_body_off_the_pedestrian_space_never_recovers() {
    let mut knock = Knockdowns::default();
    let empty = scene(&[]);
    knock.knock_down(&empty, request(0, 0.0, [120.0, 0.0, 0.0]));
    let nowhere = |_: Vec2| false;
    let (_, peds) = open_env();
    let standing = |feet: [f64; 3]| physics::standing_blocked(&empty, feet);
    let env = RecoveryEnv {
        walkable: &nowhere,
        ped_in_the_way: &peds,
        standing_blocked: &standing,
    };
    for _ in 0..400 {
        assert!(knock
            .step(0.05, &env)
            .iter()
            .all(|u| u.transition.is_none()));
    }
    let c = knock.criteria(AgentHandle::first(0)).expect("still down");
    assert_eq!(c.phase, RecoveryPhase::Simulating);
    assert!(!c.supported);
    assert!(c.linear_m_s <= 0.35 && c.angular_deg_s <= 90.0, "{c:?}");
    assert!(c.age_s >= 20.0);
}

#[test]
fn a_prop_where_the_body_lies_keeps_it_waiting_for_space() {
    let mut knock = Knockdowns::default();
    // A bollard just beside where the body comes to rest (ahead of the feet, off its line).
    let bollard = crate::sim::obstacles::Obstacle::Circle {
        centre: Vec2 { x: 1.0, y: 0.45 },
        radius_m: 0.2,
    };
    let obstacles = scene(&[(bollard, 1.0)]);
    knock.knock_down(&obstacles, request(0, 0.0, [120.0, 0.0, 0.0]));
    let (walkable, peds) = open_env();
    let standing = |feet: [f64; 3]| physics::standing_blocked(&obstacles, feet);
    let env = RecoveryEnv {
        walkable: &walkable,
        ped_in_the_way: &peds,
        standing_blocked: &standing,
    };
    let mut reasons = Vec::new();
    for _ in 0..200 {
        for u in knock.step(0.05, &env) {
            reasons.extend(u.transition.map(|t| (t.to, t.reason)));
        }
    }
    assert_eq!(
        reasons.first(),
        Some(&(
            RecoveryPhase::WaitingForSpace,
            KnockdownReason::PropInTheWay
        )),
        "{reasons:?}"
    );
    assert!(knock.is_down(AgentHandle::first(0)));
}

fn scenario(directives: Vec<(u64, DirectiveCommand)>) -> Scenario {
    Scenario {
        id: "knock".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 1200,
        sources: vec![PopulationSource {
            id: "walkers".into(),
            kind: PopulationKind::Ambient,
            route: "sidewalk".into(),
            target_count: 2,
            walk_speed_m_s: 1.4,
            candidates_m: vec![40.0, 10.0],
            ..Default::default()
        }],
        directives: directives
            .into_iter()
            .map(|(frame, command)| Directive {
                frame,
                target: Target::Born {
                    source: "walkers".into(),
                    ordinal: 0,
                },
                command,
                ..Default::default()
            })
            .collect(),
        ..Scenario::default()
    }
}

fn world(directives: Vec<(u64, DirectiveCommand)>) -> World {
    let route = SimRoute::new(
        "sidewalk",
        vec![Vec2 { x: -40.0, y: 8.0 }, Vec2 { x: 40.0, y: 8.0 }],
    )
    .expect("route");
    let space = Arc::new(SimSpace::from_routes(vec![route]).expect("space"));
    let compiled = CompiledScenario::compile(&scenario(directives)).expect("compiles");
    build_world(&space, &Arc::new(compiled), 7).expect("world")
}

trait Run {
    fn run(&mut self, frames: u64);
}

impl Run for World {
    fn run(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step();
        }
    }
}

fn goal(x: f64) -> DirectiveCommand {
    DirectiveCommand::Rendezvous {
        goal: Vec3 { x, y: 8.0, z: 0.0 },
    }
}

fn knockdown() -> DirectiveCommand {
    DirectiveCommand::Knockdown {
        impulse_n_s: Vec3 {
            x: 120.0,
            y: 0.0,
            z: 0.0,
        },
    }
}

fn knock_events(world: &World) -> Vec<(u64, Option<RecoveryPhase>, KnockdownReason)> {
    world
        .events()
        .of_kind(EventKind::Knockdown)
        .filter_map(|e| match e.detail {
            EventDetail::Knockdown { phase, reason, .. } => Some((e.frame, phase, reason)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_knocked_down_traveller_resumes_its_goal_from_where_it_lies() {
    let mut w = world(vec![(5, goal(20.0)), (20, knockdown())]);
    w.run(20);
    let row = w.row_of(0, 0).expect("born");
    assert_eq!(w.agents().state[row], AgentState::KnockedDown);
    let before = w.agents().position[row];
    let mut resumed_at = None;
    for _ in 0..120 {
        w.step();
        let state = w.agents().state[row];
        if state != AgentState::KnockedDown && resumed_at.is_none() {
            resumed_at = Some(w.agents().position[row]);
            assert_eq!(state, AgentState::Travelling, "the retained intent resumes");
        }
    }
    let from = resumed_at.expect("recovered within 6 s");
    assert_ne!(from, before, "the body moved the ped");
    assert_eq!(w.agents().state[row], AgentState::Travelling);
    assert!(
        w.agents().position[row].x > from.x,
        "travelling on towards x = 20"
    );
    let phases: Vec<_> = knock_events(&w).iter().map(|e| (e.1, e.2)).collect();
    assert_eq!(
        phases,
        [
            (Some(RecoveryPhase::Simulating), KnockdownReason::Impulse),
            (
                Some(RecoveryPhase::Blending),
                KnockdownReason::SettledWithSpace
            ),
            (Some(RecoveryPhase::Complete), KnockdownReason::Resumed),
        ]
    );
    assert!(w.knockdowns().is_empty());
}

#[test]
fn cancel_during_knockdown_never_resumes_the_cancelled_task() {
    let mut w = world(vec![
        (5, goal(20.0)),
        (20, knockdown()),
        (30, DirectiveCommand::Cancel),
    ]);
    w.run(31);
    let row = w.row_of(0, 0).expect("born");
    assert_eq!(
        w.agents().state[row],
        AgentState::KnockedDown,
        "recovery goes on"
    );
    let handle = w.handle_of(row).expect("handle");
    assert!(w.knockdowns().criteria(handle).is_some_and(|c| c.cancelled));
    let mut recovered = None;
    for frame in 0..200 {
        w.step();
        if recovered.is_none() && !w.knockdowns().is_down(handle) {
            recovered = Some((frame, w.agents().position[row]));
        }
    }
    let (frame, _) = recovered.expect("the body recovered");
    assert!(frame < 150, "with 2.5 s left over");
    // The cancelled rendezvous never comes back: its movement stays closed (no query after
    // the cancel), and the ped is an ordinary ambient walker of its source again.
    let movement = w.tasks().movements.get(&handle).expect("movement");
    assert_eq!(
        movement.state,
        crate::sim::tasks::movement::MotionState::Closed
    );
    let queued_after_cancel = w
        .events()
        .for_handle(handle)
        .iter()
        .filter(|e| e.frame >= 30)
        .filter(|e| {
            matches!(
                e.detail,
                EventDetail::Task {
                    change: crate::sim::state::TaskChange::PathQueued,
                    ..
                }
            )
        })
        .count();
    assert_eq!(
        queued_after_cancel, 0,
        "no path is asked for the cancelled goal"
    );
    assert_eq!(w.agents().state[row], AgentState::Walking);
    assert_eq!(w.agents().target[row], None);
    let reasons: Vec<_> = knock_events(&w).iter().map(|e| e.2).collect();
    assert_eq!(
        reasons,
        [
            KnockdownReason::Impulse,
            KnockdownReason::IntentCancelled,
            KnockdownReason::SettledWithSpace,
            KnockdownReason::IntentEnded,
        ]
    );
}

#[test]
fn a_second_knockdown_of_a_ped_already_down_is_refused_and_logged() {
    let mut w = world(vec![(20, knockdown()), (22, knockdown())]);
    w.run(23);
    let reasons: Vec<_> = knock_events(&w).iter().map(|e| e.2).collect();
    assert_eq!(
        reasons,
        [
            KnockdownReason::Impulse,
            KnockdownReason::RefusedAlreadyDown
        ]
    );
    assert_eq!(w.knockdowns().len(), 1);
}

#[test]
fn restore_and_continue_equals_straight_through_with_bodies_in_flight() {
    let directives = vec![(5, goal(30.0)), (20, knockdown()), (24, goal(-10.0))];
    let mut straight = world(directives.clone());
    let mut checkpoints = Vec::new();
    for frame in 1..=140u64 {
        straight.step();
        if [21, 25, 33, 48, 60].contains(&frame) {
            checkpoints.push((straight.snapshot(), straight.knock.clone()));
        }
    }
    let expected = straight.state_digest();
    for (snapshot, knock) in &checkpoints {
        let mut restored = world(directives.clone());
        restored.run(3);
        restored.restore(snapshot).expect("restores");
        assert_eq!(restored.knockdowns(), knock);
        let remaining = 140 - snapshot.frame();
        restored.run(remaining);
        assert_eq!(
            restored.state_digest(),
            expected,
            "restored at frame {}",
            snapshot.frame()
        );
    }
    // The physics state is in the digest: one body bit changes it.
    let mut a = world(directives.clone());
    a.run(25);
    let mut b = a.clone();
    if let Some(scene) = b.knock.scene.as_mut() {
        scene.nudge_for_test();
    }
    assert_ne!(a.state_digest(), b.state_digest());
}

#[test]
fn a_snapshot_file_saved_mid_knockdown_continues_bit_for_bit() {
    // Saved lying down (frame 21), while the intent changes (25), recovering (60) and after the
    // recovery (120): the file carries the physics scene, so each restored world ends at the
    // straight run's digest.
    let directives = vec![(5, goal(30.0)), (20, knockdown()), (24, goal(-10.0))];
    let mut straight = world(directives.clone());
    let mut files = Vec::new();
    for frame in 1..=140u64 {
        straight.step();
        if [21, 25, 60, 120].contains(&frame) {
            let bytes = straight
                .snapshot_bytes()
                .expect("a knockdown world encodes");
            files.push((frame, bytes, straight.knockdowns().len()));
        }
    }
    assert_eq!(files[0].2, 1, "frame 21: one ped on the ground");
    let expected = straight.state_digest();
    for (frame, bytes, _) in &files {
        let mut restored = world(directives.clone());
        restored.run(2);
        let header = restored.restore_bytes(bytes).expect("restores");
        assert_eq!(header.frame, *frame);
        assert!(!restored.knockdowns().never_used());
        // Saved again, the restored world gives the same bytes.
        assert_eq!(restored.snapshot_bytes().expect("encodes"), *bytes);
        restored.run(140 - frame);
        assert_eq!(restored.state_digest(), expected, "saved at frame {frame}");
    }
}

#[test]
fn runs_with_knockdowns_are_bit_identical() {
    let directives = vec![(5, goal(30.0)), (20, knockdown())];
    let mut a = world(directives.clone());
    let mut b = world(directives);
    a.run(100);
    b.run(100);
    assert_eq!(a.state_digest(), b.state_digest());
    assert!(!a.knockdowns().never_used());
}

#[test]
fn a_ped_destroyed_while_knocked_down_takes_its_body_with_it() {
    let mut w = world(vec![(20, knockdown()), (25, DirectiveCommand::Destroy)]);
    w.run(27);
    let reasons: Vec<_> = knock_events(&w).iter().map(|e| e.2).collect();
    assert_eq!(
        reasons,
        [KnockdownReason::Impulse, KnockdownReason::BodyRemoved]
    );
    assert!(w.knockdowns().is_empty());
    assert_eq!(
        w.knockdowns().scene().map(PhysicsScene::body_count),
        Some(0)
    );
}
