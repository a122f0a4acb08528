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
        "3e48c271d46c9bb97cbfba9a4b90c07a192c2c702627540125d2be27ab168f3f"
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

/// The courier's world with the scenario changed by `edit` before it is built (a fixture of the
/// example's scenario that names motion profiles).
fn world_with(edit: impl FnOnce(&mut stagecraft_runtime::project::Scenario)) -> World {
    use stagecraft_io::scenario::ScenarioContent;
    use stagecraft_io::sources::open_project;
    use stagecraft_runtime::ops::registry::Registry;
    let registry = Registry::standard();
    let dir = stagecraft_tests::example_project("street-lifecycle");
    let (_, loaded) = open_project(&dir, &registry).expect("readable");
    let mut scenario =
        loaded.project.as_ref().expect("loads").scenarios["start-stop-return"].clone();
    edit(&mut scenario);
    ScenarioContent::generate(&loaded, &scenario, &registry)
        .expect("generates")
        .world()
        .expect("world")
}

/// Steps to frame 150 and returns the first rendezvous' completion frame, the courier's
/// profile index, and the loop's budget and largest accepted step, meters.
fn first_run(mut w: World) -> (u64, u16, f64, f64) {
    let mut done = None;
    let mut looped = None;
    while w.frame() < 150 {
        w.step();
        let h = w.births_of(0)[0];
        let Some(m) = w.tasks().movements.get(&h) else {
            continue;
        };
        if m.gait.phase == GaitPhase::Loop {
            // The loop's largest step: a whole budget on the free sidewalk.
            let (_, _, most) = looped.unwrap_or((0, 0.0, 0.0));
            if m.gait.accepted_m > most {
                looped = Some((m.gait.profile, m.gait.budget_m, m.gait.accepted_m));
            }
        }
        if done.is_none() && w.tasks().parents[&h].state == ParentState::Completed {
            done = Some(w.frame());
        }
    }
    let (profile, budget, accepted) = looped.expect("the courier loops");
    (done.expect("completes"), profile, budget, accepted)
}

#[test]
fn a_rendezvous_naming_the_running_profile_steps_at_its_speed() {
    use stagecraft_runtime::sim::tasks::gait::{RUNNING_INDEX, WALKING_INDEX};
    let walked = first_run(world());
    let ran = first_run(world_with(|s| {
        s.directives[0].motion_profile = Some("running".into());
    }));
    // Walking: 1.40 m/s × 0.05 s per step; running: the profile's 3.30 m/s × 0.05 s.
    assert_eq!(walked.1, WALKING_INDEX);
    assert!((walked.2 - 0.07).abs() < 1e-12, "{walked:?}");
    assert_eq!(ran.1, RUNNING_INDEX);
    assert!((ran.2 - 0.165).abs() < 1e-12, "{ran:?}");
    assert!(
        (ran.3 - 0.165).abs() < 1e-9,
        "the free loop takes its whole budget: {ran:?}"
    );
    assert!(
        ran.0 < walked.0,
        "running arrives first: {ran:?} vs {walked:?}"
    );
    // The source naming the profile does the same for a directive that names none ...
    let by_source = first_run(world_with(|s| {
        s.sources[0].motion_profile = Some("running".into());
    }));
    assert_eq!(by_source, ran);
    // ... and a directive's own profile wins over its source's.
    let overridden = first_run(world_with(|s| {
        s.sources[0].motion_profile = Some("running".into());
        s.directives[0].motion_profile = Some("walking".into());
    }));
    assert_eq!(overridden, walked);
}
