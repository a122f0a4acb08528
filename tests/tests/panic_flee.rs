//! The `street-block` example's `panic-flee` scenario: a panic stimulus at frame 200 reaches the
//! walkers within 40 m of the crossing; each flees at 4 m/s to the nearest exit with room — the
//! two-place shop door first, then the street's portals — and arrives there; every decision is in
//! the event log and the Motion Frames show the panic.

mod example_world;

use stagecraft_runtime::sim::{AgentState, EventDetail, EventKind, World};

fn world() -> World {
    example_world::example_world("street-block", "street-block", "panic-flee")
}

#[test]
fn a_panic_sends_walkers_to_the_nearest_exit_with_room_and_they_arrive() {
    let mut world = world();
    while world.frame() < 200 {
        world.step();
    }
    let panicked: Vec<_> = world
        .events()
        .of_kind(EventKind::Panicked)
        .copied()
        .collect();
    assert!(panicked.len() >= 4, "{} panicked", panicked.len());
    let exits: Vec<u16> = panicked
        .iter()
        .map(|e| match e.detail {
            EventDetail::Flee { exit, .. } => exit,
            other => panic!("a panic event carries its exit, not {other:?}"),
        })
        .collect();
    // The shop door (exit 0) takes two; everyone else spills to a portal (exits 1..).
    assert_eq!(exits.iter().filter(|e| **e == 0).count(), 2);
    assert!(exits.iter().all(|e| *e != u16::MAX));
    assert_eq!(world.motion_state().panic.assigned[0], 2);
    let fleeing = world
        .motion_frames()
        .iter()
        .filter(|f| f.behaviour == AgentState::Fleeing)
        .count();
    assert_eq!(fleeing, panicked.len());
    assert!(world.motion_frames().iter().any(|f| f.panic > 0.65));
    // At 4 m/s everyone reaches an exit of a 100 m block well within 30 s.
    while world.frame() < 600 {
        world.step();
    }
    let agents = world.agents();
    let handles: Vec<_> = panicked.iter().filter_map(|e| e.handle).collect();
    for handle in handles {
        let Some(row) = world.resolve(handle) else {
            continue;
        };
        assert_eq!(agents.state[row], AgentState::Arrived, "{handle:?}");
    }
}
