//! The liveness guard over real worlds: sixteen crossers on one crosswalk cycle with no forced
//! clear and nobody stuck; a queued walker stalled short of its waiting
//! point has its window refreshed (counted, logged) and crosses from where it stands.

use super::tests::{hazard_settings, scenario, space_of, world_of};
use super::*;
use crate::sim::state::EventKind;
use crate::sim::World;

/// What a run of `crossers` ping-pong crossers (a quarter in groups) did in `frames` frames:
/// the crossing counters, and the fewest crossings any crosser completed.
fn crowded_run(crossers: u32, frames: u64) -> (CrossingStats, u32, World) {
    let settings = crate::project::CrossingsSettings {
        group_share: 0.25,
        ..hazard_settings()
    };
    // The demo's block: 12 m sidewalks.
    let compiled = crate::sim::CompiledScenario::compile(&scenario(crossers, settings, 0));
    let mut world = crate::sim::build_world(
        &space_of(12.0),
        &std::sync::Arc::new(compiled.expect("compiles")),
        7,
    )
    .expect("world");
    while world.frame() < frames {
        world.step();
        let signal = world.crossings().signals[0];
        let occupied = world.agents().crosswalk.iter().any(|c| c.phase.occupies());
        assert_eq!(
            signal.gate_open,
            signal.phase == SignalPhase::VehicleGreen && !occupied,
            "frame {}",
            world.frame()
        );
    }
    let fewest = world
        .agents()
        .crosswalk
        .iter()
        .map(|c| c.completed)
        .min()
        .unwrap_or(0);
    (world.crossings().stats, fewest, world)
}

#[test]
fn sixteen_crossers_cycle_with_no_forced_clear_and_nobody_stuck() {
    // Before the fix: 16 crossers on the demo's crosswalk had 5 forced clears and 17 stuck flags
    // in two minutes (waiting time counted towards the forced clear once a walker committed,
    // newcomers took free rows in front of the queue and walked into it, and queued walkers
    // froze crossers on the carriageway, two of them waiting for each other).
    // (20 and 24 crossers still have no forced clear, but the six-slot queues fill and the
    // walkers held behind them jam the sidewalks: stuck flags, a known limit.)
    let (stats, fewest, world) = crowded_run(16, 2400);
    assert_eq!(stats.forced_clears, 0, "{stats:?}");
    assert_eq!(world.events().of_kind(EventKind::ForcedClear).count(), 0);
    assert_eq!(stats.groups * 3, stats.group_members);
    assert!(fewest >= 1, "every crosser completes a crossing");
    // What the two minutes computed (pinned; re-pin deliberately): completions, the fewest any
    // crosser completed, window refreshes, stuck flags raised, stuck now.
    // (82 completions before free walkers gave way with the executed step, 72 with it; 85 since
    // they give way to the far side and back off when boxed in face to face, with 9 refreshes
    // instead of 11.)
    assert_eq!(
        (
            stats.completed,
            fewest,
            stats.window_refreshes,
            stats.stuck_flags,
            stats.stuck_now
        ),
        (85, 4, 9, 0, 0)
    );
}

/// A refresh needs this long before the next walk phase: the refresh's 3 s and a margin, seconds.
const MIN_LEFT_S: f64 = stuck::WINDOW_REFRESH_AFTER_S + 1.0;

/// Two walkers waiting at their points on one side while the vehicles have green, at least
/// [`MIN_LEFT_S`] before the next walk phase (the vehicles' green and the all-stop after it
/// last six seconds): `(world, a, b)`.
fn two_queued_at_a_green() -> (World, usize, usize) {
    let mut world = world_of(&scenario(8, hazard_settings(), 0));
    loop {
        world.step();
        assert!(world.frame() < 12_000, "no two walkers queued at a green");
        let signal = world.crossings().signals[0];
        let timing = world.config().scenario.crossings.timing;
        let left_s = timing.vehicle_green_s + timing.all_stop_s - signal.elapsed_s;
        if signal.phase != SignalPhase::VehicleGreen || left_s < MIN_LEFT_S {
            continue;
        }
        let agents = world.agents();
        let queued: Vec<usize> = (0..agents.len())
            .filter(|&row| {
                let c = &agents.crosswalk[row];
                c.phase == CrosswalkPhase::Waiting
                    && crosswalk::distance_m(agents.position[row], c.waiting) < 1e-9
            })
            .collect();
        for (i, &a) in queued.iter().enumerate() {
            for &b in &queued[i + 1..] {
                if agents.crosswalk[a].entry_side == agents.crosswalk[b].entry_side {
                    return (world, a, b);
                }
            }
        }
    }
}

#[test]
fn a_queued_walker_stalled_short_of_its_waiting_point_waits_where_it_stands() {
    let (mut world, a, b) = two_queued_at_a_green();
    // A's waiting point moves 0.3 m beyond B: B's body is in its way.
    let (pa, pb) = (world.agents.position[a], world.agents.position[b]);
    let apart = crosswalk::distance_m(pa, pb);
    let beyond = (apart + 0.3) / apart;
    world.agents.crosswalk[a].waiting = crate::project::Vec2 {
        x: pa.x + (pb.x - pa.x) * beyond,
        y: pa.y + (pb.y - pa.y) * beyond,
    };
    let before = world.agents.crosswalk[a];
    let handle = world.slots.handle_of(a).expect("a live row");
    // Its refreshes from here on (it may have had one in an earlier queue).
    let start = world.frame();
    let refreshed = |world: &World| -> Vec<u64> {
        let events = world.events().of_kind(EventKind::WindowRefresh);
        events
            .filter(|e| e.handle == Some(handle) && e.frame > start)
            .map(|e| e.frame)
            .collect()
    };
    let walk_at = before_walk(&world);
    let refreshes_before = world.crossings().stats.window_refreshes;
    while refreshed(&world).is_empty() && world.frame() < walk_at {
        world.step();
    }
    let frame = world.frame();
    assert_eq!(
        refreshed(&world),
        [frame],
        "refreshed once, before the walk phase"
    );
    // Counted with every refresh (others may stall behind it too).
    let stats = world.crossings().stats;
    assert_eq!(
        stats.window_refreshes - refreshes_before,
        world
            .events()
            .of_kind(EventKind::WindowRefresh)
            .filter(|e| e.frame > frame.saturating_sub(100))
            .count() as u64
    );
    // It waits where it stands, on its slot and lane, with its demand requested again.
    let row = world.resolve(handle).expect("alive");
    let c = world.agents().crosswalk[row];
    let here = world.agents().position[row];
    assert_eq!(c.phase, CrosswalkPhase::Requested);
    assert_eq!(c.waiting, here);
    assert!(
        crosswalk::distance_m(here, before.waiting) > 0.1,
        "it stalled short of the point it was given"
    );
    assert_eq!(
        (c.slot, c.entry, c.exit, c.entry_side),
        (before.slot, before.entry, before.exit, before.entry_side)
    );
    assert!(c.waiting_s > before.waiting_s, "its waiting time is kept");
    let watch = world.agents().liveness[row];
    assert_eq!((watch.anchor, watch.still_s), (here, 0.0));
    // The digest carries the refresh count.
    let mut bytes = Vec::new();
    world.crossings().write_canonical(&mut bytes);
    let count = stats.window_refreshes.to_le_bytes();
    assert!(bytes.ends_with(&[b"WINDOWS1".as_slice(), &count].concat()));
    // It crosses from there at the next walk phase, with no forced clear.
    let done = c.completed;
    while world.agents().crosswalk[row].completed == done {
        assert!(world.frame() < frame + 600, "it never crossed");
        world.step();
    }
    assert_eq!(world.crossings().stats.forced_clears, 0);
    assert_eq!(refreshed(&world), [frame], "and never again");
}

/// The frame the next walk phase can start at the earliest (the green and all-stop ahead).
fn before_walk(world: &World) -> u64 {
    let timing = world.config().scenario.crossings.timing;
    let signal = world.crossings().signals[0];
    let left_s = timing.vehicle_green_s + timing.all_stop_s - signal.elapsed_s;
    world.frame() + (left_s / world.config().fixed_step_s) as u64
}

#[test]
fn a_world_without_a_refresh_keeps_the_crossings_digest_bytes() {
    let mut state = CrossingsState::new(1, &CrossingSettings::default());
    let mut bytes = Vec::new();
    state.write_canonical(&mut bytes);
    // Signals, hazard flag, counters, cursor: nothing after the cursor.
    assert!(!bytes.windows(8).any(|w| w == b"WINDOWS1"));
    let plain = bytes.len();
    state.stats.window_refreshes = 2;
    let mut refreshed = Vec::new();
    state.write_canonical(&mut refreshed);
    assert_eq!(refreshed[..plain], bytes[..]);
    assert_eq!(refreshed.len(), plain + 16);
}
