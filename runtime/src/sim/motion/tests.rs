//! Tests of motion at scale: the wall clock, tiers and their cadence, the specification's pressure
//! rows, the avoidance budget, Motion Frames, the crowd governor, panic and disguise.

use std::sync::Arc;

use super::clock::{WallClock, MAX_ACCUMULATED_STEPS};
use super::tiers::{stable_hash, updates_at, TierPolicy};
use crate::project::{
    Directive, DirectiveCommand, MotionSettings, Observer, PopulationSource, Scenario, Target,
    Vec2, Vec3,
};
use crate::sim::state::Tier;
use crate::sim::{build_world, AgentId, AgentState, CompiledScenario, SimRoute, SimSpace, World};

/// Half the length of the fixture's straight route, meters.
const HALF_ROUTE_M: f64 = 1000.0;

/// A world on one straight route from x = −1000 m to +1000 m with one observer over the origin
/// whose removal range covers everything (so the population phase neither adds nor removes).
pub(super) fn observed_world(walkers: u32, motion: MotionSettings) -> World {
    directed_world(walkers, motion, Vec::new())
}

/// [`observed_world`] with scripted directives.
fn directed_world(walkers: u32, motion: MotionSettings, directives: Vec<Directive>) -> World {
    let route = SimRoute::new(
        "walk",
        vec![
            Vec2 {
                x: -HALF_ROUTE_M,
                y: 0.0,
            },
            Vec2 {
                x: HALF_ROUTE_M,
                y: 0.0,
            },
        ],
    )
    .expect("route");
    let space = Arc::new(SimSpace::from_routes(vec![route]).expect("space"));
    let scenario = Scenario {
        id: "motion".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 2000,
        observers: vec![Observer {
            position: Vec3 {
                x: 0.0,
                y: 0.0,
                z: 10.0,
            },
            retain_radius_m: 5000.0,
            remove_radius_m: 10_000.0,
            far_m: 10_000.0,
            ..Observer::with_defaults("camera".into())
        }],
        sources: vec![PopulationSource {
            id: "walkers".into(),
            route: "walk".into(),
            target_count: walkers,
            ..PopulationSource::default()
        }],
        motion,
        directives,
        ..Scenario::default()
    };
    let scenario = Arc::new(CompiledScenario::compile(&scenario).expect("compiles"));
    build_world(&space, &scenario, 7).expect("world")
}

/// Places walker `ordinal` at `x` (heading east at 1.2 m/s), spread sideways a little.
fn place(world: &mut World, x: f64, ordinal: u32) {
    let lateral = f64::from(ordinal % 3) * 0.6 - 0.6;
    world
        .place_walker(0, 0, x + HALF_ROUTE_M, 1, 1.2, lateral)
        .expect("placed");
}

/// The specification's pressure fixture, reproduced: `walkers` agents of one source (ids = ordinals
/// 0..N), an observer over the origin; ordinals 0..12 start near it (within the Full band, as
/// the specification's first 12 start near the crosswalk), 12..24 between the Full and Simulated
/// bands, the rest far beyond them on both sides. With the default capacities (12 / 12) and budgets
/// the tiers settle at step 2 to Full = 0..12, Simulated = 12..24, Stub = the rest.
pub(super) fn pressure_world(walkers: u32) -> World {
    let mut world = observed_world(walkers, MotionSettings::default());
    for k in 0..walkers {
        let x = match k {
            0..12 => -11.0 + 2.0 * f64::from(k),
            12..24 => 40.0 + 1.2 * f64::from(k - 12),
            // Alternating sides, 1.6 m apart, so the far crowd is sparse enough to walk freely.
            _ => {
                let side = if k % 2 == 0 { 1.0 } else { -1.0 };
                side * (100.0 + 1.6 * f64::from((k - 24) / 2))
            }
        };
        place(&mut world, x, k);
    }
    world
}

#[test]
fn the_wall_clock_keeps_at_most_four_steps() {
    let mut clock = WallClock::default();
    assert_eq!(clock.advance(0.03, 0.05), 0);
    assert_eq!(clock.advance(0.03, 0.05), 1);
    assert!((clock.accumulated_s - 0.01).abs() < 1e-12);
    // A 1 s hitch buys four steps, not twenty, and leaves nothing owed.
    assert_eq!(clock.advance(1.0, 0.05), MAX_ACCUMULATED_STEPS);
    assert_eq!(clock.accumulated_s, 0.0);
    assert_eq!(clock.advance(f64::NAN, 0.05), 0);
    assert_eq!(clock.advance(-1.0, 0.05), 0);
    // Four 0.05 s frames are four steps despite rounding.
    let steps: u32 = (0..4).map(|_| clock.advance(0.05, 0.05)).sum();
    assert_eq!(steps, 4);
}

#[test]
fn the_world_steps_from_the_wall_clock_apart_from_its_frame_index() {
    let mut world = pressure_world(30);
    assert_eq!(world.advance_wall_clock(0.12), 2);
    assert_eq!(world.frame(), 2);
    assert!((world.wall_clock_accumulated_s() - 0.02).abs() < 1e-9);
    assert_eq!(world.advance_wall_clock(5.0), 4);
    assert_eq!(world.frame(), 6);
    assert_eq!(world.motion_state().scheduler_frame, 6);
}

#[test]
fn the_cadence_hash_is_the_ids_crc32_never_the_row() {
    // CRC-32 (IEEE) of eight zero bytes and of 1u64 little-endian.
    assert_eq!(stable_hash(AgentId::from_bits(0)), 0x6522_DF69);
    assert_eq!(stable_hash(AgentId::from_bits(1)), 0xA988_DFF7);
    let h = stable_hash(AgentId::new(3, 77));
    let hits = |tier| (0..64).filter(|f| updates_at(h, *f, tier)).count();
    assert_eq!(
        [hits(Tier::Full), hits(Tier::Simulated), hits(Tier::Stub)],
        [64, 32, 8]
    );
}

#[test]
fn tier_hysteresis_follows_the_seed_bands() {
    let policy = TierPolicy::of(&crate::sim::config::MotionConfig::default());
    assert_eq!(policy.by_distance(Tier::Stub, 25.0), Tier::Full);
    assert_eq!(policy.by_distance(Tier::Stub, 26.0), Tier::Simulated);
    assert_eq!(policy.by_distance(Tier::Full, 31.9), Tier::Full);
    assert_eq!(policy.by_distance(Tier::Full, 32.1), Tier::Simulated);
    assert_eq!(policy.by_distance(Tier::Stub, 56.0), Tier::Stub);
    assert_eq!(policy.by_distance(Tier::Simulated, 64.0), Tier::Simulated);
    assert_eq!(policy.by_distance(Tier::Simulated, 65.5), Tier::Stub);
}

#[test]
fn pressure_rows_after_32_steps_match_the_seed() {
    // (agents, motion updated, skipped, avoidance processed, deferred, frames).
    let rows = [
        (100, 28, 72, 100, 0, 100),
        (300, 52, 248, 128, 172, 300),
        (1000, 140, 860, 128, 872, 1000),
    ];
    for (agents, updated, skipped, processed, deferred, frames) in rows {
        let mut world = pressure_world(agents);
        for _ in 0..32 {
            world.step();
        }
        let c = world.motion_counters();
        assert_eq!(
            (
                c.updated,
                c.skipped,
                c.avoidance_processed,
                c.avoidance_deferred,
                c.frames
            ),
            (updated, skipped, processed, deferred, frames),
            "{agents} agents"
        );
        assert_eq!(c.tiers, [12, 12, u64::from(agents) - 24]);
        assert_eq!(world.motion_frames().len(), world.agents().len());
        // Ids stay unique and every frame is the agent of its row.
        let frames = world.motion_frames();
        assert!(frames
            .iter()
            .zip(&world.agents().id)
            .all(|(f, id)| f.id.bits() == *id));
        assert_eq!(
            frames.iter().filter(|f| f.updated).count() as u64,
            c.updated
        );
    }
}

#[test]
fn deferred_walkers_keep_moving_on_their_reliable_steering() {
    let mut world = pressure_world(300);
    for _ in 0..40 {
        world.step();
    }
    let c = world.motion_counters();
    assert_eq!(c.avoidance_deferred, 172);
    // Every walker has a velocity: deferred ones keep the last reliable one, skipped ones hold it.
    let still = world
        .motion_frames()
        .iter()
        .filter(|f| f.behaviour == AgentState::Walking && !f.animation.moving)
        .count();
    assert_eq!(still, 0);
    // The cursor rotates: 128 per step over 300 walkers.
    assert_eq!(
        world.motion_state().avoidance_cursor,
        (40 * 128 % 300) as u32
    );
}

#[test]
fn a_stub_and_a_full_agent_cover_the_same_distance() {
    let mut world = observed_world(2, MotionSettings::default());
    place(&mut world, -5.0, 0);
    place(&mut world, -400.0, 1);
    // Relevance keeps the first Full wherever it walks; the second stays far beyond every band.
    world.agents.relevance[0] = 1.0;
    let start: Vec<f64> = world.agents().position.iter().map(|p| p.x).collect();
    let mut tiers_seen = [0u64; 3];
    for _ in 0..800 {
        world.step();
        let c = world.motion_counters();
        for (seen, now) in tiers_seen.iter_mut().zip(c.tiers) {
            *seen += now;
        }
    }
    assert_eq!(tiers_seen, [800, 0, 800], "one Full, one Stub throughout");
    let covered: Vec<f64> = (0..2)
        .map(|r| world.agents().position[r].x - start[r])
        .collect();
    assert!(covered[0] > 45.0, "walked {covered:?}");
    let ratio = covered[1] / covered[0];
    assert!(
        (ratio - 1.0).abs() < 0.01,
        "Stub/Full = {ratio} ({covered:?})"
    );
    let steps = &world.agents().steps;
    assert_eq!(steps[0], 800);
    assert!((99..=101).contains(&steps[1]), "{}", steps[1]);
}

#[test]
fn the_governor_brings_400_heroes_within_8_ms_keeping_some_detail() {
    use super::governor::{enforce, estimate_ms};
    let mut tiers = vec![Tier::Full; 400];
    // Relevance spread over 0..1 so the least relevant lose detail first.
    let relevance: Vec<f64> = (0..400).map(|i| f64::from(i) / 400.0).collect();
    let ids: Vec<u64> = (0..400).collect();
    assert_eq!(estimate_ms(&tiers), 14.0);
    let governed = enforce(&mut tiers, &relevance, &ids, |_| false, 8.0);
    assert_eq!(governed.before_ms, 14.0);
    assert!(governed.estimate_ms <= 8.0, "{}", governed.estimate_ms);
    assert_eq!(estimate_ms(&tiers), governed.estimate_ms);
    let count = |t| tiers.iter().filter(|x| **x == t).count();
    assert_eq!(
        (count(Tier::Full), count(Tier::Simulated), count(Tier::Stub)),
        (100, 300, 0)
    );
    // One rung at a time from the least relevant edge inward: the 100 most relevant stay Hero.
    assert!(tiers[300..].iter().all(|t| *t == Tier::Full));
    assert!(tiers[..300].iter().all(|t| *t == Tier::Simulated));
    assert_eq!(governed.demotions, 300);
}

#[test]
fn the_crowd_seed_classifies_by_distance_and_relevance() {
    use super::governor::classify;
    assert_eq!(classify(5.0, 0.0), Tier::Full);
    assert_eq!(classify(50.0, 0.9), Tier::Full);
    assert_eq!(classify(17.0, 0.0), Tier::Simulated);
    assert_eq!(classify(50.0, 0.4), Tier::Simulated);
    assert_eq!(classify(50.0, 0.1), Tier::Stub);
}

#[test]
fn exactly_the_two_agents_outside_the_loaded_ring_demote() {
    use super::governor::demote_outside_ring;
    use crate::ops::streaming::{plan_streaming, StreamingProfile};
    // The specification's fixture: 50 m cells, a one-cell ring around the observer at
    // (52.5, −12.5) m.
    let profile = StreamingProfile {
        cell_size_m: 50.0,
        loaded_radius_cells: 1,
        hlod_radius_cells: 2,
        hlod_mb_per_cell: 6,
        hlod_budget_mb: 96,
    };
    let plan = plan_streaming(&profile, 52.5, -12.5).expect("plan");
    let positions = [
        Vec2 { x: 10.0, y: -90.0 }, // cell (0, −2): inside the ring
        Vec2 { x: 400.0, y: 0.0 },  // far east
        Vec2 { x: -300.0, y: 0.0 }, // far west
    ];
    let mut tiers = [Tier::Full, Tier::Full, Tier::Simulated];
    let outside = demote_outside_ring(
        &mut tiers,
        &positions,
        &plan.loaded_cells,
        profile.cell_size_m,
    );
    assert_eq!(outside, vec![1, 2]);
    assert_eq!(tiers, [Tier::Full, Tier::Simulated, Tier::Stub]);
}

#[test]
fn a_capacity_one_exit_spills_the_second_agent_to_the_next() {
    use crate::project::ExitNode;
    use crate::sim::EventKind;
    let exits = vec![
        ExitNode {
            id: "near".into(),
            position: Vec3 {
                x: 10.0,
                y: 0.0,
                z: 0.0,
            },
            capacity: 1,
        },
        ExitNode {
            id: "far".into(),
            position: Vec3 {
                x: 40.0,
                y: 0.0,
                z: 0.0,
            },
            capacity: 10,
        },
    ];
    let mut world = observed_world(
        3,
        MotionSettings {
            exits,
            ..MotionSettings::default()
        },
    );
    place(&mut world, 0.0, 0);
    place(&mut world, 2.0, 1);
    place(&mut world, 300.0, 2);
    let panicked = world.apply_panic(Vec2 { x: 1.0, y: 0.0 }, 20.0, 1.0);
    assert_eq!(panicked, 2, "the third agent is outside the radius");
    let a = world.agents();
    assert_eq!((a.flee_exit[0], a.flee_exit[1]), (0, 1));
    assert_eq!(a.flee_exit[2], super::panic::NO_EXIT);
    assert_eq!(a.state[0], AgentState::Fleeing);
    // Falloff 1 − d/20 with the first agent at (0, −0.6): above 0.65, so Stub is promoted.
    let expected = 1.0 - 1.0f64.hypot(0.6) / 20.0;
    assert!((a.panic[0] - expected).abs() < 1e-12);
    assert!((a.panic[1] - 0.95).abs() < 1e-12);
    assert_eq!(a.tier[0], Tier::Simulated);
    assert_eq!(world.motion_state().panic.assigned, vec![1, 1]);
    let events: Vec<_> = world.events().of_kind(EventKind::Panicked).collect();
    assert_eq!(events.len(), 2);
    // The second runs 38 m (from x = 2 to 40, lateral 0) at 4 m/s: 9.5 s.
    assert!(matches!(
        events[1].detail,
        crate::sim::EventDetail::Flee {
            exit: 1,
            arrival_ms: 9500,
            ..
        }
    ));
    // They run towards their exits and arrive there.
    let before = (world.agents().position[0].x - 10.0).abs();
    world.step();
    assert!((world.agents().position[0].x - 10.0).abs() < before);
    for _ in 0..400 {
        world.step();
    }
    assert_eq!(world.agents().state[1], AgentState::Arrived);
    assert_eq!(world.agents().position[1], Vec2 { x: 40.0, y: 0.0 });
}

#[test]
fn falloff_is_linear_and_clamped() {
    use super::panic::falloff;
    assert_eq!(falloff(0.0, 10.0), Some(1.0));
    assert_eq!(falloff(5.0, 10.0), Some(0.5));
    assert_eq!(falloff(9.9, 10.0), Some(0.25));
    assert_eq!(falloff(10.5, 10.0), None);
}

#[test]
fn a_hostile_observer_sees_through_but_an_accepted_disguise_hides() {
    use super::disguise::recognise;
    use crate::sim::config::Factions;

    use crate::sim::state::Recognition;
    let guard = Factions {
        own: "Guards".into(),
        allied: vec!["Staff".into()],
        hostile: vec!["Intruder".into()],
        accepted_disguises: vec!["KitchenStaff".into()],
    };
    assert_eq!(recognise(&guard, "KitchenStaff"), Recognition::Disguised);
    assert_eq!(recognise(&guard, "Staff"), Recognition::Friendly);
    assert_eq!(recognise(&guard, "Guards"), Recognition::Friendly);
    assert_eq!(recognise(&guard, "Tourist"), Recognition::Neutral);
    let mut world = observed_world(2, MotionSettings::default());
    place(&mut world, 300.0, 0);
    place(&mut world, 310.0, 1);
    assert_eq!(
        world.line_of_sight(0, &guard, "Intruder"),
        Some(Recognition::Hostile)
    );
    assert_eq!(
        world.line_of_sight(1, &guard, "KitchenStaff"),
        Some(Recognition::Disguised)
    );
    let a = world.agents();
    assert!(a.compromised[0] && !a.compromised[1]);
    assert_eq!((a.tier[0], a.tier[1]), (Tier::Simulated, Tier::Stub));
    assert_eq!((a.panic[0], a.panic[1]), (0.5, 0.0));
    assert_eq!(
        world
            .events()
            .of_kind(crate::sim::EventKind::Recognised)
            .count(),
        2
    );
}

#[test]
fn restoring_mid_run_continues_bit_identically_with_tiers_and_budgets() {
    let mut world = pressure_world(300);
    world.agents.relevance[5] = 0.9;
    for _ in 0..21 {
        world.step();
    }
    world.apply_panic(Vec2 { x: 0.0, y: 0.0 }, 15.0, 0.8);
    let snapshot = world.snapshot();
    let mut straight = world.clone();
    for _ in 0..57 {
        straight.step();
    }
    // Another world stepped elsewhere, then restored: the same continuation.
    let mut restored = pressure_world(300);
    for _ in 0..5 {
        restored.step();
    }
    restored.restore(&snapshot).expect("same configuration");
    assert_eq!(restored.motion_state(), world.motion_state());
    assert_eq!(restored.motion_frames().len(), 300);
    for _ in 0..57 {
        restored.step();
    }
    assert_eq!(restored.state_digest(), straight.state_digest());
    assert_eq!(restored.motion_frames(), straight.motion_frames());
    assert_eq!(
        restored.motion_state().scheduler_frame,
        straight.frame(),
        "one scheduler frame per step"
    );
}

#[test]
fn panic_relevance_and_line_of_sight_directives_run_in_the_tasks_phase() {
    use crate::sim::EventKind;
    let born = |ordinal| Target::Born {
        source: "walkers".into(),
        ordinal,
    };
    let directives = vec![
        Directive {
            frame: 2,
            target: born(0),
            command: DirectiveCommand::SetRelevance { relevance: 0.9 },
            ..Default::default()
        },
        Directive {
            frame: 3,
            target: Target::World,
            command: DirectiveCommand::Panic {
                center: Vec3 {
                    x: 300.0,
                    y: 0.0,
                    z: 0.0,
                },
                radius_m: 10.0,
                strength: 1.0,
            },
            ..Default::default()
        },
        Directive {
            frame: 4,
            target: born(1),
            command: DirectiveCommand::LineOfSight {
                presented: "Intruder".into(),
                own: "Guards".into(),
                allied: Vec::new(),
                hostile: vec!["Intruder".into()],
                accepted_disguises: Vec::new(),
            },
            ..Default::default()
        },
    ];
    let mut world = directed_world(3, MotionSettings::default(), directives);
    place(&mut world, 200.0, 0);
    place(&mut world, 400.0, 1);
    place(&mut world, 302.0, 2);
    for _ in 0..4 {
        world.step();
    }
    let a = world.agents();
    assert_eq!(a.relevance[0], 0.9);
    // Relevance ≥ 0.85 asks for Full: promoted at frame 3 though 200 m away.
    assert_eq!(a.tier[0], Tier::Full);
    // The third agent panicked about 2 m from the stimulus (falloff about 0.8); the route has
    // no portals and the scenario no exits, so it has no flee exit.
    assert!(a.panic[2] > 0.75 && a.panic[2] < 0.82, "{}", a.panic[2]);
    assert_eq!(a.flee_exit[2], super::panic::NO_EXIT);
    assert_eq!(a.panic[0], 0.0);
    assert_eq!(world.events().of_kind(EventKind::Panicked).count(), 1);
    assert!(a.compromised[1]);
    assert_eq!(a.tier[1], Tier::Simulated);
    assert_eq!(world.events().of_kind(EventKind::Recognised).count(), 1);
}

#[test]
fn motion_settings_are_checked_at_their_field_paths() {
    use crate::project::ExitNode;
    use crate::sim::SimProblem;
    let exit = |id: &str| ExitNode {
        id: id.into(),
        position: Vec3::default(),
        capacity: 1,
    };
    let scenario = Scenario {
        id: "bad".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        motion: MotionSettings {
            full_exit_m: Some(20.0),
            default_relevance: 1.5,
            crowd_budget_ms: 0.0,
            exits: vec![exit("a"), exit("a")],
            ..MotionSettings::default()
        },
        ..Scenario::default()
    };
    let error = CompiledScenario::compile(&scenario).expect_err("refused");
    let paths: Vec<String> = error
        .diagnostics
        .iter()
        .map(|d| d.path.to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "motion.crowd_budget_ms",
            "motion.full_exit_m",
            "motion.default_relevance",
            "motion.exits[1].id",
        ]
    );
    assert!(matches!(
        error.diagnostics[1].problem,
        SimProblem::OutOfRange { value, .. } if value == 20.0
    ));
}

/// The specification's all-exits-full fallback: when every exit is at capacity, a fleeing agent
/// runs to the nearest exit of all (and the exit's count keeps growing past its capacity).
#[test]
fn with_every_exit_full_the_flee_router_falls_back_to_the_nearest_exit() {
    use super::panic::{arrival_ms, choose_exit, Exit};
    use crate::project::ExitNode;
    let node = |id: &str, x: f64| ExitNode {
        id: id.into(),
        position: Vec3 { x, y: 0.0, z: 0.0 },
        capacity: 1,
    };
    // The router alone: both exits full, an agent at x = 4 m runs to the near one (6 m, 1.5 s at
    // the specification's 4 m/s), not the far one (36 m).
    let exits = [
        Exit {
            position: Vec2 { x: 10.0, y: 0.0 },
            capacity: Some(1),
        },
        Exit {
            position: Vec2 { x: 40.0, y: 0.0 },
            capacity: Some(1),
        },
    ];
    let at = Vec2 { x: 4.0, y: 0.0 };
    assert_eq!(choose_exit(&exits, &[0, 0], at), Some(0));
    assert_eq!(
        choose_exit(&exits, &[1, 0], at),
        Some(1),
        "the near one full"
    );
    assert_eq!(
        choose_exit(&exits, &[1, 1], at),
        Some(0),
        "all full: nearest"
    );
    assert_eq!(arrival_ms(6.0), 1500);
    assert_eq!(choose_exit(&[], &[], at), None);
    // In a world: three agents, two exits of capacity 1.
    let mut world = observed_world(
        3,
        MotionSettings {
            exits: vec![node("near", 10.0), node("far", 40.0)],
            ..MotionSettings::default()
        },
    );
    place(&mut world, 0.0, 0);
    place(&mut world, 2.0, 1);
    place(&mut world, 4.0, 2);
    let panicked = world.apply_panic(Vec2 { x: 1.0, y: 0.0 }, 20.0, 1.0);
    assert_eq!(panicked, 3);
    let a = world.agents();
    assert_eq!(
        (a.flee_exit[0], a.flee_exit[1], a.flee_exit[2]),
        (0, 1, 0),
        "the first fills the near exit, the second the far one, the third falls back to the near"
    );
    assert_eq!(world.motion_state().panic.assigned, vec![2, 1]);
}
