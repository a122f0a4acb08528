//! The population specification's reuse-stall counterexamples and the suppress-cleanup
//! lifecycle: a reused ped that walked away from its old place still attaches at the newly
//! admitted candidate (old position authority relinquished), its walk continues from the
//! admitted route progress rather than its old history, a closed task movement left on the
//! reused ped as diagnostic history (stale authority in place) neither places nor turns it after
//! readmission until a new task of its own is active, and a suppress-cleanup request is
//! consumed at the next Control update (1.6 × the removal distances, no band cleanup) and lapses
//! without reassertion (without any request the same ped retires at once).

use super::*;

/// The row state of `handle`: (position, route progress).
fn place(world: &World, handle: AgentHandle) -> (Vec2, f64) {
    let row = world.resolve(handle).expect("alive");
    let agents = world.agents();
    (agents.position[row], agents.row(row).distance_m)
}

/// Steps until `handle` is acquired from the pool; returns the acquisition frame.
fn step_to_acquisition(world: &mut World, handle: AgentHandle) -> u64 {
    for _ in 0..200 {
        world.step();
        let acquired = events_of(world, EventKind::Acquired)
            .iter()
            .any(|e| e.handle == Some(handle));
        if acquired {
            return world.frame();
        }
    }
    panic!("never acquired");
}

#[test]
fn a_reused_ped_attaches_at_the_new_candidate_not_where_its_old_walk_left_it() {
    // The ped is born at x = −10 (progress 40 m), walks 1.4 m/s while the observer is near,
    // retires when it leaves, and comes back with it.
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![away_and_back()], sources, Vec::new()));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    while world.counters().pooled == 0 {
        world.step();
    }
    let (retired_at, retired_progress) = place(&world, handle);
    assert!(
        (retired_progress - 40.0).abs() > 0.3,
        "it walked away from its candidate before retiring ({retired_at:?})"
    );
    let acquired_frame = step_to_acquisition(&mut world, handle);
    let (at, progress) = place(&world, handle);
    // Attached at the admitted candidate (−10, 0), whatever its old walk said; the step after
    // acquisition may already have moved it by at most one step's walk.
    let step_m = 1.4 * 0.05;
    assert!(
        (at.x - -10.0).abs() <= step_m + 1e-9 && at.y.abs() < 1e-9,
        "at the candidate at frame {acquired_frame}: {at:?} (retired at {retired_at:?})"
    );
    assert!(
        (progress - 40.0).abs() <= step_m + 1e-9,
        "progress {progress} m (retired at {retired_progress} m)"
    );
}

#[test]
fn readmission_walks_on_from_the_admitted_progress_never_from_the_old_history() {
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![away_and_back()], sources, Vec::new()));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    while world.counters().pooled == 0 {
        world.step();
    }
    let (_, old_progress) = place(&world, handle);
    step_to_acquisition(&mut world, handle);
    let (_, start) = place(&world, handle);
    let mut previous = start;
    let mut direction = 0.0_f64;
    // Each later step walks on from where the last one left it, one way along the route and
    // at most one Stub update's walk (8 steps × 0.07 m): never a jump to where its closed
    // history left it.
    for _ in 0..60 {
        world.step();
        let (_, progress) = place(&world, handle);
        let advanced = progress - previous;
        assert!(
            advanced.abs() <= 8.0 * 1.4 * 0.05 + 1e-9,
            "moved {advanced} m in one step (old history {old_progress} m)"
        );
        if direction == 0.0 {
            direction = advanced.signum() * f64::from(u8::from(advanced != 0.0));
        } else {
            assert!(advanced * direction >= -1e-9, "reversed by {advanced} m");
        }
        previous = progress;
    }
    assert!((previous - 40.0).abs() > 1.0, "it walks on: {previous} m");
}

#[test]
fn a_suppress_request_is_consumed_at_the_next_control_update_and_lapses_unless_reasserted() {
    // The ped stands ~35 m behind the camera. Its multiplier 0.5 puts it in the band (retain
    // 20 m, remove 40 m) from frame 6; requests at frames 0–9 suppress frames 1–10 (1.6 ×:
    // 32 / 64 m, band cleanup disabled); frame 11 has no request and removes it by the band.
    let mut directives = vec![at(
        5,
        born(0, 0),
        Command::SetRemovalMultiplier { multiplier: 0.5 },
    )];
    for frame in 0..10 {
        directives.push(at(frame, DirectiveTarget::World, Command::SuppressCleanup));
    }
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 1, &[-35.0])],
        directives,
    ));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    steps(&mut world, 4);
    assert_eq!(world.frame(), 6);
    assert!(
        world.population().suppress_active,
        "frame 6 consumed frame 5's request"
    );
    steps(&mut world, 5);
    assert_eq!(world.frame(), 11);
    assert!(
        !world.population().suppress_active,
        "no request at frame 10"
    );
    let retired: Vec<(u64, EventDetail)> = events_of(&world, EventKind::Retired)
        .iter()
        .filter(|e| e.handle == Some(handle))
        .map(|e| (e.frame, e.detail))
        .collect();
    assert_eq!(
        retired,
        [(
            11,
            EventDetail::Retirement {
                pooled: true,
                rule: crate::sim::state::RetireRule::Band
            }
        )]
    );
}

#[test]
fn without_a_suppress_request_the_same_ped_retires_as_soon_as_it_is_in_the_band() {
    let directives = vec![at(
        5,
        born(0, 0),
        Command::SetRemovalMultiplier { multiplier: 0.5 },
    )];
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 1, &[-35.0])],
        directives,
    ));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    steps(&mut world, 10);
    let retired: Vec<u64> = events_of(&world, EventKind::Retired)
        .iter()
        .filter(|e| e.handle == Some(handle))
        .map(|e| e.frame)
        .collect();
    assert_eq!(retired, [6], "the first cycle after the multiplier");
}

#[test]
fn a_closed_task_left_on_a_reused_ped_neither_places_nor_turns_it_after_readmission() {
    // The specification's counterexample with stale authority left in place: the ped's
    // rendezvous towards (−10, 20) is cancelled at frame 40, so a closed movement (turned
    // towards +Y, its position where it stopped) stays in the task sets as diagnostic history, through
    // retirement and readmission. After readmission the ped stands at the admitted candidate
    // (−10, 0), faces along the route (±X), walks on from progress 40 m, and the closed
    // history is still there, unchanged.
    let goal = Vec2 { x: -10.0, y: 1.0 };
    let directives = vec![
        at(2, born(0, 0), Command::Rendezvous { goal }),
        at(41, born(0, 0), Command::Cancel),
        at(
            120,
            born(0, 0),
            Command::Rendezvous {
                goal: Vec2 { x: -30.0, y: 0.0 },
            },
        ),
    ];
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![away_and_back()], sources, directives));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    steps(&mut world, 40);
    let closed = world.tasks().movements.get(&handle).cloned().expect("kept");
    assert!(
        closed.heading_rad.sin() > 0.9,
        "the closed movement faced the goal: {} rad",
        closed.heading_rad
    );
    for _ in 0..100 {
        if world.counters().pooled == 1 {
            break;
        }
        world.step();
    }
    assert_eq!(
        world.counters().pooled,
        1,
        "retired with its closed history"
    );
    assert!(world.tasks().movements.contains_key(&handle));
    step_to_acquisition(&mut world, handle);
    let row = world.resolve(handle).expect("alive");
    let (at, progress) = place(&world, handle);
    let step_m = 1.4 * 1.1 * 0.05;
    assert!(
        (at.x - -10.0).abs() <= step_m + 1e-9 && at.y.abs() < 1e-9,
        "at the admitted candidate: {at:?}"
    );
    assert!(
        (progress - 40.0).abs() <= step_m + 1e-9,
        "progress {progress} m"
    );
    for _ in 0..10 {
        world.step();
        let row = world.resolve(handle).expect("alive");
        let facing = world.agents().facing[row];
        assert!(
            facing.y.abs() < 1e-9 && (facing.x.abs() - 1.0).abs() < 1e-9,
            "faces along the route, not the closed task's heading: {facing:?}"
        );
        assert!(world.agents().position[row].y.abs() < 1e-9);
    }
    assert_eq!(world.agents().state[row], AgentState::Walking);
    let kept = world.tasks().movements.get(&handle).expect("history kept");
    assert_eq!(
        kept.heading_rad, closed.heading_rad,
        "diagnostics unchanged"
    );
    assert!(world.tasks().relinquished.contains(&handle));
    // A new task of the readmitted ped moves it again: its movement has the authority.
    while world.frame() < 125 {
        world.step();
    }
    assert!(world.tasks().relinquished.is_empty());
    let parent = world.tasks().active_parent(handle).expect("a new task");
    assert_eq!(parent.session, 2);
    assert_eq!(world.agents().state[row], AgentState::Travelling);
}
