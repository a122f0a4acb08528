//! Crossings over a real world: a street block's crosswalk with ping-pong crossers, the
//! signal cycle, the gate and the vehicles it holds back, groups, and snapshots.

use std::sync::Arc;

use super::*;
use crate::ops::street_block::{build_street_block, StreetBlockParams};
use crate::project::{
    CrossingsSettings, HazardVehicle, PopulationKind, PopulationSource, Scenario, VehicleSource,
};
use crate::sim::{build_world, CompiledScenario, SimSpace, World};

pub(super) fn space() -> Arc<SimSpace> {
    space_of(8.0)
}

/// The test block with sidewalks `sidewalk_width_m` wide.
pub(super) fn space_of(sidewalk_width_m: f64) -> Arc<SimSpace> {
    let block = build_street_block(&StreetBlockParams {
        length_m: 40.0,
        road_width_m: 7.0,
        sidewalk_width_m,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    })
    .expect("block");
    Arc::new(SimSpace::from_street_blocks(&[&block]).expect("space"))
}

pub(super) fn scenario(crossers: u32, crossings: CrossingsSettings, vehicles: u32) -> Scenario {
    Scenario {
        id: "crossing".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 2000,
        sources: vec![PopulationSource {
            id: "crossers".into(),
            kind: PopulationKind::Ambient,
            route: "crosswalk.0".into(),
            target_count: crossers,
            walk_speed_m_s: 1.3,
            ..Default::default()
        }],
        vehicle_sources: (0..vehicles.min(1))
            .map(|_| VehicleSource {
                id: "cars".into(),
                lane: "lane.0".into(),
                target_count: vehicles,
                speed_m_s: 8.0,
            })
            .collect(),
        crossings,
        ..Default::default()
    }
}

pub(super) fn hazard_settings() -> CrossingsSettings {
    CrossingsSettings {
        group_share: 0.0,
        hazard: Some(HazardVehicle {
            y_m: -1.75,
            speed_m_s: 4.0,
        }),
        ..CrossingsSettings::default()
    }
}

pub(super) fn world_of(scenario: &Scenario) -> World {
    let compiled = CompiledScenario::compile(scenario).expect("compiles");
    build_world(&space(), &Arc::new(compiled), 7).expect("world")
}

fn occupied(world: &World) -> bool {
    world.agents().crosswalk.iter().any(|c| c.phase.occupies())
}

#[test]
fn a_crosser_entering_this_step_stops_the_hazard_in_the_same_step() {
    let mut world = world_of(&scenario(4, hazard_settings(), 0));
    let mut entries = 0;
    for _ in 0..1200 {
        let before_occupied = occupied(&world);
        let hazard_before = world.crossings().hazard.expect("hazard").position;
        world.step();
        let hazard_after = world.crossings().hazard.expect("hazard").position;
        if !before_occupied && occupied(&world) {
            entries += 1;
            assert!(!world.crossings().signals[0].gate_open);
            assert_eq!(hazard_after, hazard_before, "frame {}", world.frame());
        }
        if occupied(&world) {
            assert_eq!(
                hazard_after, hazard_before,
                "the hazard moved with a crosser out"
            );
        }
    }
    assert!(entries >= 3, "{entries} entries");
    assert_eq!(world.crossings().stats.forced_clears, 0);
}

#[test]
fn every_crossing_runs_the_six_states_and_the_gate_recovers_only_at_the_next_green() {
    let mut world = world_of(&scenario(4, hazard_settings(), 0));
    let mut seen: Vec<Vec<CrosswalkPhase>> = Vec::new();
    // (phase, gate) whenever either changes, and the order the signal recovers in.
    let mut recoveries = Vec::new();
    let mut last_occupied = false;
    for _ in 0..1600 {
        world.step();
        let agents = world.agents();
        if seen.len() < agents.len() {
            seen.resize(agents.len(), Vec::new());
        }
        for (row, c) in agents.crosswalk.iter().enumerate() {
            if seen[row].last() != Some(&c.phase) {
                seen[row].push(c.phase);
            }
        }
        let signal = world.crossings().signals[0];
        let now_occupied = occupied(&world);
        // (crossers born on the carriageway may finish during the first green.)
        if last_occupied && !now_occupied && signal.walk_phases > 0 {
            recoveries.push(vec![signal.phase]);
        } else if let Some(r) = recoveries.last_mut() {
            if r.last() != Some(&signal.phase) && r.len() < 2 {
                r.push(signal.phase);
            }
        }
        if signal.gate_open {
            assert_eq!(signal.phase, SignalPhase::VehicleGreen);
            assert!(!now_occupied);
        }
        last_occupied = now_occupied;
    }
    use CrosswalkPhase::*;
    let full = [
        Approach, Requested, Waiting, Crossing, Clearing, Completed, Approach,
    ];
    let cycles = seen
        .iter()
        .filter(|phases| phases.windows(7).any(|w| w == full))
        .count();
    assert!(cycles >= 2, "{seen:?}");
    // The last crosser leaves during the clearance: AllStop first, then VehicleGreen.
    assert!(!recoveries.is_empty());
    for r in &recoveries {
        assert_eq!(r[0], SignalPhase::AllStop, "{recoveries:?}");
        if r.len() > 1 {
            assert_eq!(r[1], SignalPhase::VehicleGreen, "{recoveries:?}");
        }
    }
    let stats = world.crossings().stats;
    assert!(stats.completed >= 8, "{stats:?}");
    assert_eq!(stats.forced_clears, 0);
    assert_eq!(stats.stuck_now, 0);
    assert!(world.crossings().signals[0].gate_closures >= 2);
}

#[test]
fn lane_vehicles_wait_at_the_stop_line_while_the_gate_is_closed() {
    let mut world = world_of(&scenario(6, hazard_settings(), 3));
    let lane = &world.config().space.lanes[0];
    let crosswalk = &world.config().space.crosswalks[0];
    let stop = gate::stop_line_m(lane, crosswalk);
    let mut held = 0;
    for _ in 0..1600 {
        let before: Vec<f64> = world.population().vehicles.distance_m.clone();
        world.step();
        let gate = world.crossings().signals[0].gate_open;
        let after = &world.population().vehicles.distance_m;
        for (b, a) in before.iter().zip(after) {
            if !gate && *b <= stop {
                assert!(*a <= stop + 1e-9, "crossed a closed stop line: {b} → {a}");
                held += u32::from(*a == stop);
            }
        }
    }
    assert!(held > 0, "no vehicle ever waited at the line");
    assert!(world.crossings().stats.completed > 0);
}

#[test]
fn a_full_queue_holds_the_next_walker_behind_it() {
    let settings = CrossingsSettings {
        lanes: 1,
        queue_rows: 1,
        vehicle_green_s: 30.0,
        group_share: 0.0,
        ..CrossingsSettings::default()
    };
    let mut world = world_of(&scenario(12, settings, 0));
    let mut most_held = 0;
    for _ in 0..300 {
        world.step();
        let held = world.agents().crosswalk.iter().filter(|c| c.held).count();
        most_held = most_held.max(held);
        // One slot per side: never more than two agents queue.
        let queued = world
            .agents()
            .crosswalk
            .iter()
            .filter(|c| c.phase.demands())
            .count();
        assert!(queued <= 2, "{queued} queued");
    }
    assert!(most_held > 0);
    assert!(world.crossings().stats.queue_full_steps > 0);
}

#[test]
fn crosswalk_queries_are_capped_per_step_and_the_rest_deferred() {
    let settings = CrossingsSettings {
        queries_per_step: 1,
        group_share: 0.0,
        ..CrossingsSettings::default()
    };
    let mut world = world_of(&scenario(12, settings, 0));
    let mut deferred_seen = false;
    for _ in 0..200 {
        world.step();
        let stats = world.crossings().stats;
        assert!(stats.queries_processed <= 1);
        let alive = world.agents().len() as u64;
        assert!(stats.queries_processed + stats.queries_deferred <= alive);
        if stats.queries_deferred > 0 {
            assert_eq!(
                stats.queries_processed, 1,
                "the cap is used before deferring"
            );
        }
        deferred_seen |= stats.queries_deferred > 0;
    }
    assert!(deferred_seen);
    assert!(world.crossings().stats.queries_deferred_total > 0);
    assert!(world
        .agents()
        .crosswalk
        .iter()
        .any(|c| c.phase != CrosswalkPhase::Approach));
}

#[test]
fn restoring_a_snapshot_mid_crossing_continues_bit_identically() {
    let mut settings = hazard_settings();
    settings.group_share = 0.25;
    let scenario = scenario(12, settings, 2);
    let mut straight = world_of(&scenario);
    let mut digests = Vec::new();
    let mut snapshot = None;
    for frame in 1..=900u64 {
        straight.step();
        if frame == 450 {
            assert!(
                straight
                    .agents()
                    .crosswalk
                    .iter()
                    .any(|c| c.phase != CrosswalkPhase::Approach),
                "something is bound at the snapshot"
            );
            snapshot = Some(straight.snapshot());
        }
        if frame > 450 {
            digests.push(straight.state_digest());
        }
    }
    let mut restored = world_of(&scenario);
    restored
        .restore(&snapshot.expect("taken"))
        .expect("restores");
    for digest in digests {
        restored.step();
        assert_eq!(
            restored.state_digest(),
            digest,
            "frame {}",
            restored.frame()
        );
    }
    assert_eq!(restored.crossings(), straight.crossings());
}

#[test]
fn groups_walk_together_and_a_committed_follower_never_leaves_the_crossing() {
    let settings = CrossingsSettings {
        group_share: 0.5,
        ..CrossingsSettings::default()
    };
    let mut world = world_of(&scenario(12, settings, 0));
    let mut regrouping_seen = false;
    let mut offsets = std::collections::BTreeMap::new();
    let mut checked = 0;
    for _ in 0..1600 {
        world.step();
        let agents = world.agents();
        for row in 0..agents.len() {
            let c = agents.crosswalk[row];
            if agents.group[row].role == GroupRole::Follower && c.phase.occupies() {
                // Moving only towards its exit: its distance from its lane's line never grows
                // (no group correction pulls a committed crosser sideways).
                let (a, b, p) = (c.entry, c.exit, agents.position[row]);
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                let off = ((p.x - a.x) * dy - (p.y - a.y) * dx).abs() / dx.hypot(dy);
                let before = offsets.insert(row, off).unwrap_or(f64::INFINITY);
                assert!(off <= before + 1e-12, "a committed follower moved sideways");
                checked += 1;
            } else {
                offsets.remove(&row);
            }
            if agents.group[row].role != GroupRole::Alone {
                let base = agents.group[row].base_speed_m_s;
                let ratio = agents.speed_m_s[row] / base;
                assert!((0.6 - 1e-9..=1.4 + 1e-9).contains(&ratio), "{ratio}");
            }
        }
        let stats = world.crossings().stats;
        regrouping_seen |= stats.regrouping_groups > 0;
    }
    let stats = world.crossings().stats;
    // 12 crossers at a share of one half: two windows of six, one group of three each.
    assert_eq!((stats.groups, stats.group_members), (2, 6));
    assert!(regrouping_seen);
    assert!(checked > 0, "some follower crossed");
}

#[test]
fn every_frame_shows_its_rows_crosswalk_group_and_stuck_state() {
    // Crossers in groups, a full queue, a hazard: the frames, which skip reading the crosswalk
    // column for routes that cross nothing and the liveness column while nobody is stuck, must
    // still say exactly what the columns say.
    let settings = CrossingsSettings {
        group_share: 0.5,
        lanes: 1,
        queue_rows: 1,
        ..hazard_settings()
    };
    let mut world = world_of(&scenario(14, settings, 0));
    let mut bound = 0;
    for _ in 0..900 {
        world.step();
        let agents = world.agents();
        let frames = world.motion_frames();
        assert_eq!(frames.len(), agents.len());
        for (row, frame) in frames.iter().enumerate() {
            let c = agents.crosswalk[row];
            assert_eq!(frame.crosswalk, c.phase, "row {row}");
            let point = match c.phase {
                CrosswalkPhase::Requested | CrosswalkPhase::Waiting => c.waiting,
                CrosswalkPhase::Crossing | CrosswalkPhase::Clearing => c.exit,
                _ => agents.position[row],
            };
            assert_eq!(frame.crosswalk_point.to_vec2().x, f64::from(point.x as f32));
            assert_eq!(frame.crosswalk_point.to_vec2().y, f64::from(point.y as f32));
            let g = agents.group[row];
            assert_eq!(
                frame.group.map(|f| f.role),
                (g.role != GroupRole::Alone).then_some(g.role)
            );
            assert_eq!(frame.tags.stuck, agents.liveness[row].stuck);
            bound += usize::from(c.phase.forces_full());
        }
    }
    assert!(bound > 100, "{bound} bound frames");
    assert!(world
        .motion_frames()
        .iter()
        .any(|f| f.group_leader().is_some()));
}

/// The rows whose crosswalk record is not an unbound walker's, by reading every record.
fn unclean_rows(world: &World) -> Vec<u32> {
    let agents = world.agents();
    (0..agents.len() as u32)
        .filter(|r| {
            let c = &agents.crosswalk[*r as usize];
            c.phase != CrosswalkPhase::Approach || c.is_bound() || c.held
        })
        .collect()
}

#[test]
fn the_tracked_crossing_rows_follow_removals_and_equal_a_full_scan() {
    let mut tracked = world_of(&scenario(12, CrossingsSettings::default(), 0));
    let mut removed = 0;
    for frame in 0..400 {
        tracked.step();
        // After the step the list holds every unclean row (and maybe rows cleaned since).
        let listed = &tracked.crossing_rows;
        assert!(unclean_rows(&tracked).iter().all(|r| listed.contains(r)));
        assert!(listed.windows(2).all(|w| w[0] < w[1]), "ascending");
        if frame % 37 == 36 && tracked.agent_count() > 2 {
            // Remove a listed row when there is one (else the first), then the last row.
            let first = listed.first().map_or(0, |r| *r as usize);
            for pick in [Some(first), None] {
                let row = pick.unwrap_or(tracked.agent_count() - 1);
                let handle = tracked.handle_of(row).expect("a handle");
                tracked.remove_agent(handle).expect("removed");
                removed += 1;
            }
            let listed = &tracked.crossing_rows;
            assert!(unclean_rows(&tracked).iter().all(|r| listed.contains(r)));
            assert!(listed.iter().all(|r| (*r as usize) < tracked.agent_count()));
        }
    }
    assert!(removed > 0);
    // A restore forgets the list; the next step scans every record again.
    let snapshot = tracked.snapshot();
    tracked.restore(&snapshot).expect("restores");
    assert!(!tracked.crossing_rows_tracked);
    tracked.step();
    assert!(tracked.crossing_rows_tracked);
    assert!(unclean_rows(&tracked)
        .iter()
        .all(|r| tracked.crossing_rows.contains(r)));
}

#[test]
fn deferred_queries_counted_in_chunks_are_the_serial_count() {
    let mut world = crate::sim::observed_street_world(3_000, 7).expect("world");
    for _ in 0..3 {
        world.step();
    }
    let mut agents = world.agents().clone();
    // Every kind of row: pooled, not walking, listed in and out of Approach.
    for row in (0..agents.len()).step_by(13) {
        agents.pooled[row] = true;
    }
    for row in (5..agents.len()).step_by(17) {
        agents.state[row] = crate::sim::state::AgentState::Holding;
    }
    let listed: Vec<u32> = (0..agents.len() as u32).step_by(7).collect();
    for row in listed.iter().step_by(2) {
        agents.crosswalk[*row as usize].phase = CrosswalkPhase::Requested;
    }
    // Two rows in three on routes that cross (the street's sidewalks cross nothing).
    let index = world.crossing_index();
    let crossing: Vec<u16> = (0..index.routes.len() as u16)
        .filter(|r| index.route_crosses(*r))
        .collect();
    for row in (0..agents.len()).filter(|r| r % 3 != 0) {
        agents.route[row] = crossing[row % crossing.len()];
    }
    let serial = |rows: std::ops::Range<usize>| {
        let mut next = 0;
        rows.filter(|row| phase::needs_query(index, &agents, &listed, &mut next, *row))
            .count() as u64
    };
    let rows = agents.len();
    for range in [0..rows, 1..rows, 777..2_500, rows - 1..rows, 10..10] {
        for chunk in [1, 64, 1_000, 1 << 14] {
            let chunked = phase::count_needing_in(chunk, (index, &agents, &listed), range.clone());
            assert_eq!(
                chunked,
                serial(range.clone()),
                "{range:?} in chunks of {chunk}"
            );
        }
    }
    let all = serial(0..rows);
    assert!(
        all > rows as u64 / 2 && all < rows as u64,
        "{all} of {rows}"
    );
}
