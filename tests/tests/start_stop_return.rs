//! The population specification's "start, stop and return" clip as the `street-lifecycle`
//! example's `start-stop-return` scenario: a courier walks 6 m east by its walking profile (start
//! clip, loop, a goal stop ending on the goal), completes, and is sent back: the reversal plays
//! the turn clip in place (the heading never snaps), then start, loop and stop again. The
//! frame-300 state digest is pinned.

mod example_world;

use stagecraft_runtime::sim::tasks::gait::{wrap_rad, GaitPhase};
use stagecraft_runtime::sim::{ParentState, World};

fn world() -> World {
    example_world::example_world("street-lifecycle", "street-lifecycle", "start-stop-return")
}

#[test]
fn the_courier_starts_stops_and_returns_by_its_motion_profile() {
    let mut w = world();
    let mut phases: Vec<GaitPhase> = Vec::new();
    let mut headings: Vec<f64> = Vec::new();
    let mut first_done = None;
    while w.frame() < 300 {
        w.step();
        let h = w.births_of(0)[0];
        let Some(m) = w.tasks().movements.get(&h) else {
            continue;
        };
        if phases.last() != Some(&m.gait.phase) {
            phases.push(m.gait.phase);
        }
        headings.push(m.heading_rad);
        let parent = &w.tasks().parents[&h];
        if first_done.is_none() && parent.state == ParentState::Completed {
            first_done = Some((w.frame(), m.position));
        }
    }
    // The courier stands facing west: the first departure turns (the turn clip) too.
    let (done_at, at) = first_done.expect("the first rendezvous completes");
    assert!(done_at < 150, "completed at frame {done_at}");
    assert!((at[0] + 9.0).hypot(at[1] - 5.5) <= 0.15, "{at:?}");
    use GaitPhase::*;
    assert_eq!(
        phases,
        vec![Idle, Turn, Start, Loop, Stop, Idle, Turn, Start, Loop, Stop, Idle],
        "departure, arrival, reversal, return"
    );
    let largest = headings
        .windows(2)
        .map(|p| wrap_rad(p[1] - p[0]).abs())
        .fold(0.0, f64::max);
    assert!(largest < 0.3, "the heading never snaps: {largest}");
    let h = w.births_of(0)[0];
    let parent = &w.tasks().parents[&h];
    let m = &w.tasks().movements[&h];
    assert_eq!((parent.state, parent.session), (ParentState::Completed, 2));
    assert!((m.position[0] + 15.0).hypot(m.position[1] - 5.5) <= 0.15);
    assert_eq!(
        w.state_digest_hex(),
        "de67ba06b556b4063d6a050095e4b444677379dcd90d659740e66980d45bea48"
    );
}

#[test]
fn the_couriers_motion_frames_carry_its_clip_phase_and_clip_time() {
    use stagecraft_runtime::sim::MotionClip;
    let mut w = world();
    let mut clips: Vec<MotionClip> = Vec::new();
    let mut checked = 0;
    while w.frame() < 300 {
        w.step();
        let h = w.births_of(0)[0];
        let row = w.resolve(h).expect("the courier lives");
        let frame = w.motion_frames().get(row).expect("a frame per row");
        let Some(m) = w.tasks().movements.get(&h) else {
            assert_eq!(frame.clip, None, "no task, no clip");
            continue;
        };
        let profile = w.config().scenario.motion.profiles.get(m.gait.profile);
        let clip = frame.clip.expect("a task ped's frame has its clip");
        assert_eq!(clip.clip, m.gait.phase.motion_clip());
        assert_eq!(w.motion_frame(frame.id).and_then(|f| f.clip), Some(clip));
        let (time_s, duration_s) = match m.gait.phase {
            GaitPhase::Idle => (0.0, 1.0),
            GaitPhase::Turn => (m.gait.clip_time_s, profile.turn.progress.duration_s),
            GaitPhase::Start => (m.gait.clip_time_s, profile.start.duration_s),
            GaitPhase::Loop => (m.gait.cycle_time_s, profile.cycle.duration_s),
            GaitPhase::Stop | GaitPhase::HoldTail => (m.gait.clip_time_s, profile.stop.duration_s),
        };
        assert_eq!(clip.time_s, time_s as f32);
        assert!((f64::from(clip.phase) - time_s / duration_s).abs() < 1e-6);
        assert!((0.0..=1.0).contains(&clip.phase));
        if clips.last() != Some(&clip.clip) {
            clips.push(clip.clip);
        }
        checked += 1;
    }
    assert!(checked > 200, "{checked} frames checked");
    use MotionClip::*;
    assert_eq!(
        clips,
        vec![Idle, Turn, Start, Loop, Stop, Idle, Turn, Start, Loop, Stop, Idle]
    );
    // Every other agent's frame has no clip.
    let h = w.births_of(0)[0];
    let courier = w.resolve(h).unwrap();
    for (row, f) in w.motion_frames().iter().enumerate() {
        assert_eq!(f.clip.is_some(), row == courier, "row {row}");
    }
}
