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
