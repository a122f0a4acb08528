//! Tests of task stepping under a motion profile: start budget, goal stop vs command stop, turn
//! clips, the turn rate limit and a heading that never snaps.

use std::cell::RefCell;

use super::*;
use crate::project::Vec2;
use crate::sim::config::profiles::{standard_profile, ProfileTable, WALKING};
use crate::sim::routes::SimRoute;
use crate::sim::state::AgentHandle;
use crate::sim::tasks::movement::{advance, remaining_route_m, MotionState, MoveEnv, Movement};
use crate::sim::tasks::paths::{FoundPath, PathGrid, PathReply};
use crate::sim::walk::fan::Fan;

const DT: f64 = 0.05;

fn grid() -> PathGrid {
    let plaza = SimRoute::new(
        "plaza",
        vec![Vec2 { x: -20.0, y: 0.0 }, Vec2 { x: 20.0, y: 0.0 }],
    )
    .expect("route")
    .with_width_m(10.0);
    PathGrid::new(&[plaza], &[])
}

/// A walking movement at `points[0]` heading `heading_rad` with `points` installed as its path.
fn walking(points: Vec<[f64; 3]>, heading_rad: f64) -> Movement {
    let mut m = Movement::new(points[0], heading_rad, 0.0);
    m.request_goal(*points.last().expect("points"));
    let reply = PathReply {
        handle: AgentHandle {
            index: 0,
            generation: 0,
        },
        generation: m.generation,
        outcome: Ok(FoundPath {
            points,
            expansions: 1,
        }),
    };
    m.accept_path(&reply).expect("installed");
    m
}

/// Steps `m` until `done` or `frames` run out; returns the frames taken.
fn run(m: &mut Movement, frames: u32, stopped: bool, mut each: impl FnMut(&Movement)) -> u32 {
    let grid = grid();
    let fan = Fan::default();
    let profiles = ProfileTable::standard();
    let env = MoveEnv {
        grid: &grid,
        unknown: &[],
        neighbours: &[],
        bodies: &RefCell::default(),
        fan: &fan,
        dt_s: DT,
        profiles: &profiles,
    };
    for frame in 0..frames {
        advance(m, &env, stopped);
        each(m);
        if m.state == MotionState::Arrived {
            return frame + 1;
        }
    }
    frames
}

#[test]
fn the_start_clip_moves_by_its_curve_then_the_loop_by_the_budget() {
    let mut m = walking(vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]], 0.0);
    run(&mut m, 1, false, |_| {});
    // Walking start: 1.4 m/s reached uniformly over 0.6 s; the first 0.05 s covers
    // 0.5 × 1.4 × 0.05² / 0.6 = 2.9167 mm (budget 7 cm, rate 1).
    assert!((m.position[0] - 0.5 * 1.4 * 0.05 * 0.05 / 0.6).abs() < 1e-9);
    assert_eq!(m.gait.phase, GaitPhase::Start);
    assert!((m.gait.clip_time_s - 0.05).abs() < 1e-12);
    assert!((m.gait.budget_m - 0.07).abs() < 1e-12);
    // After the 0.6 s start the loop takes the whole budget each step.
    run(&mut m, 12, false, |_| {});
    assert_eq!(m.gait.phase, GaitPhase::Loop);
    let before = m.position[0];
    run(&mut m, 1, false, |_| {});
    assert!((m.position[0] - before - 0.07).abs() < 1e-9);
    assert!((m.speed_m_s - 1.4).abs() < 1e-9);
    // The cycle advanced by accepted distance over the reference speed.
    assert!(m.gait.cycle_time_s > 0.0);
}

#[test]
fn the_goal_stop_scales_to_the_remaining_route_and_ends_on_the_endpoint() {
    let walking_stop = standard_profile(WALKING).expect("walking").stop.total_m();
    // 0.5 × 1.4 × 0.6 = 0.42 m authored.
    assert!((walking_stop - 0.42).abs() < 1e-9);
    let mut m = walking(vec![[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]], 0.0);
    let mut entered = None;
    let mut stopping_frames = 0;
    let frames = run(&mut m, 200, false, |m| {
        if m.gait.phase == GaitPhase::Stop && entered.is_none() {
            entered = Some(m.gait.stop_scale);
        }
        if m.state == MotionState::Stopping {
            stopping_frames += 1;
        }
    });
    let scale = entered.expect("a goal stop");
    // It began once the remaining route was within 0.42 m: scale = remaining / 0.42 ≤ 1,
    // more than a step's travel (7 cm) short of it.
    assert!(scale <= 1.0 && scale > (0.42 - 0.07) / 0.42, "{scale}");
    assert_eq!(m.state, MotionState::Arrived);
    assert!((m.position[0] - 3.0).abs() < 1e-9, "{:?}", m.position);
    // Arrival waits for the stop clip (0.8 s = 16 steps).
    assert!(stopping_frames >= 15, "{stopping_frames}");
    assert!(frames > 40, "{frames}");
}

#[test]
fn a_command_stop_plays_the_stop_tail_without_translation() {
    let mut m = walking(vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]], 0.0);
    run(&mut m, 20, false, |_| {});
    assert_eq!(m.gait.phase, GaitPhase::Loop);
    let held_at = m.position;
    let tail = standard_profile(WALKING)
        .expect("walking")
        .stop_tail_start_s();
    run(&mut m, 1, true, |_| {});
    assert_eq!(m.gait.phase, GaitPhase::HoldTail);
    // The tail starts where the stop's remaining distance is ~0 and advances 0.05 s.
    assert!((m.gait.clip_time_s - (tail + 0.05)).abs() < 1e-12);
    run(&mut m, 40, true, |_| {});
    assert_eq!(m.position, held_at, "a hold consumes no stopping distance");
    assert_eq!(m.gait.phase, GaitPhase::Idle);
    assert_eq!(m.speed_m_s, 0.0);
    // Continue: the ped starts again from rest.
    run(&mut m, 1, false, |_| {});
    assert_eq!(m.gait.phase, GaitPhase::Start);
    assert!(m.position[0] > held_at[0]);
}

#[test]
fn a_small_turn_is_rate_limited() {
    // A corner 40° left of the heading: below the 60° turn-clip threshold.
    let angle = 40f64.to_radians();
    let mut m = walking(
        vec![[0.0, 0.0, 0.0], [4.0 * angle.cos(), 4.0 * angle.sin(), 0.0]],
        0.0,
    );
    run(&mut m, 1, false, |_| {});
    // 360 °/s × 0.05 s = 18° this step; 22° left, within the 45° alignment: it also moves.
    assert!((m.heading_rad - 18f64.to_radians()).abs() < 1e-12);
    assert!(m.position[0] > 0.0);
    run(&mut m, 1, false, |_| {});
    assert!((m.heading_rad - 36f64.to_radians()).abs() < 1e-12);
    run(&mut m, 1, false, |_| {});
    assert!((m.heading_rad - angle).abs() < 1e-12);
}

#[test]
fn a_large_turn_plays_the_turn_clip_in_place() {
    // A corner straight behind: 180°.
    let mut m = walking(vec![[0.0, 0.0, 0.0], [-4.0, 0.0, 0.0]], 0.0);
    let mut headings = Vec::new();
    run(&mut m, 16, false, |m| {
        headings.push((m.heading_rad, m.position))
    });
    // Walking turn clip: 0.8 s (16 steps), rotation only; progress is smoothstep.
    assert!(headings.iter().all(|(_, p)| *p == [0.0, 0.0, 0.0]));
    let half = headings[7].0.abs();
    assert!((half - std::f64::consts::FRAC_PI_2).abs() < 1e-9, "{half}");
    assert!((headings[15].0.abs() - std::f64::consts::PI).abs() < 1e-9);
    assert_eq!(m.gait.phase, GaitPhase::Start);
}

#[test]
fn the_heading_never_snaps_across_a_run() {
    // An L-shaped route with a sharp corner and the goal behind the start heading.
    let mut m = walking(
        vec![
            [0.0, 0.0, 0.0],
            [3.0, 0.0, 0.0],
            [3.0, 3.0, 0.0],
            [0.5, 3.5, 0.0],
        ],
        std::f64::consts::PI,
    );
    let mut last = m.heading_rad;
    let mut largest: f64 = 0.0;
    let frames = run(&mut m, 400, false, |m| {
        largest = largest.max(wrap_rad(m.heading_rad - last).abs());
        last = m.heading_rad;
    });
    assert_eq!(m.state, MotionState::Arrived, "after {frames} frames");
    // The fastest heading change is the turn clip's steepest smoothstep step
    // (π × 1.5 × 0.05 / 0.8 ≈ 0.29 rad), far from a snap.
    assert!(largest < 0.3, "{largest}");
    assert_eq!(remaining_route_m(&m), 0.0);
}

#[test]
fn an_escape_runs_and_a_rendezvous_walks() {
    use crate::sim::config::profiles::RUNNING;
    use crate::sim::tasks::parent::ParentKind;
    let escape = ParentKind::Escape {
        threat: [0.0; 3],
        safe_distance_m: 5.0,
        start_count: 1,
    };
    let table = ProfileTable::standard();
    assert_eq!(table.get(profile_for(&escape)).id, RUNNING);
    assert_eq!(table.get(profile_for(&ParentKind::Rendezvous)).id, WALKING);
    // Running: 3.30 m/s over a 5.94324 m/s reference; one 0.05 s loop step moves 0.165 m.
    let mut m = walking(vec![[0.0, 0.0, 0.0], [15.0, 0.0, 0.0]], 0.0);
    m.gait.switch_profile(profile_for(&escape));
    run(&mut m, 40, false, |_| {});
    assert_eq!(m.gait.phase, GaitPhase::Loop);
    let before = m.position[0];
    run(&mut m, 1, false, |_| {});
    assert!((m.position[0] - before - 0.165).abs() < 1e-9);
}
