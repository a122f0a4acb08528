//! The population remainder through whole worlds: the normal and hidden spawn ranges, the
//! world-start startup flag, the ordinary and task extra-distance flags (each reset in its own
//! phase), the removal scale a classification selects (never a product), and pool entries whose
//! admission serial and reset version make a stale reference detectable.

use super::*;
use crate::sim::config::SpawnRanges;

/// Frames at which `handle` retired.
fn retired_frames(world: &World, handle: AgentHandle) -> Vec<u64> {
    events_of(world, EventKind::Retired)
        .iter()
        .filter(|e| e.handle == Some(handle))
        .map(|e| e.frame)
        .collect()
}

/// `behind()` with spawn ranges `ranges`.
fn ranged(ranges: SpawnRanges) -> ObserverSpec {
    let mut o = behind();
    o.spawn = ranges;
    o
}

#[test]
fn the_normal_spawn_range_refuses_below_its_minimum_and_beyond_its_maximum() {
    // Horizontal distances from the camera at (0, 5): x = −10 → 11.18 m, −20 → 20.62 m,
    // −30 → 30.41 m. The normal range [15, 25] admits only the second.
    let sources = || {
        vec![
            source("near", 1, &[-10.0]),
            source("far", 1, &[-30.0]),
            source("mid", 1, &[-20.0]),
        ]
    };
    let ranges = SpawnRanges {
        normal_min_m: 15.0,
        normal_max_m: Some(25.0),
        ..SpawnRanges::default()
    };
    let mut world = world_of(scenario(vec![ranged(ranges)], sources(), Vec::new()));
    // One cycle a frame, the sources in turn, two candidates an attempt.
    steps(&mut world, 5);
    let sources_born: Vec<u16> = world.agents().source.clone();
    assert_eq!(sources_born, [2], "only the candidate inside [15, 25] m");
    assert_eq!(rejections(&world, 0, SpawnRejection::TooCloseToView), 4);
    assert_eq!(rejections(&world, 1, SpawnRejection::OutOfRange), 4);
    // The defaults (min 0, max = the retain radius 40 m) admit all three, as before.
    let mut plain = world_of(scenario(vec![behind()], sources(), Vec::new()));
    steps(&mut plain, 3);
    assert_eq!(plain.agents().len(), 3);
}

#[test]
fn hidden_startup_uses_the_hidden_range_and_reveal_restores_the_normal_one() {
    // Faded with a forced init from frame 0: hidden. The hidden range [0, 12] admits x = −10
    // (11.18 m) although the normal minimum is 15 m, and refuses x = −20 (20.62 m); revealed
    // at frame 3, the normal range [15, 25] admits x = −20.
    let mut o = ranged(SpawnRanges {
        normal_min_m: 15.0,
        normal_max_m: Some(25.0),
        hidden_min_m: 0.0,
        hidden_max_m: Some(12.0),
    });
    o.fade = 1.0;
    let directives = vec![
        at(
            0,
            DirectiveTarget::World,
            Command::ForcedInit { duration_s: 5.0 },
        ),
        at(
            3,
            DirectiveTarget::World,
            Command::SetObserverFade {
                observer: 0,
                fade: 0.0,
            },
        ),
    ];
    let sources = vec![source("near", 1, &[-10.0]), source("mid", 1, &[-20.0])];
    let mut world = world_of(scenario(vec![o], sources, directives));
    steps(&mut world, 3);
    assert_eq!(world.agents().source, [0], "hidden: only the near one");
    // Frames 2 and 3, 100 hidden attempts each.
    assert_eq!(rejections(&world, 1, SpawnRejection::OutOfRange), 200);
    steps(&mut world, 2);
    assert_eq!(world.agents().source, [0, 1], "revealed: the normal range");
    let admitted: Vec<u64> = events_of(&world, EventKind::Admitted)
        .iter()
        .map(|e| e.frame)
        .collect();
    assert_eq!(admitted, [1, 4]);
}

/// A view at (0, −10) looking at the route (a candidate at x = 5 is in its frustum) with
/// `fade`, one source there, the world-start flag `flag`, and `directives`.
fn faded_start(fade: f64, flag: bool, directives: Vec<DirectiveSpec>) -> World {
    let mut o = observer(0.0, -10.0, FRAC_PI_2);
    o.fade = fade;
    let mut scn = scenario(vec![o], vec![source("a", 1, &[5.0])], directives);
    scn.population.startup_at_world_start = flag;
    world_of(scn)
}

#[test]
fn the_world_start_flag_fills_a_faded_start_at_once_and_clears_after_the_first_fill() {
    // Black from the start: without the flag the full-fade streak becomes a reason at the
    // third Control update; with it the first fill is hidden from the first one.
    let born_at = |flag| {
        let mut world = faded_start(1.0, flag, Vec::new());
        (1..=5)
            .find(|_| {
                world.step();
                !world.agents().is_empty()
            })
            .expect("born")
    };
    assert_eq!(born_at(false), 3);
    assert_eq!(born_at(true), 1);
    // Fade 0.95 hides (> 0.9) but never makes a full-fade streak (< 0.99): only the flag is a
    // reason. It clears once the source has its target, so the refill after a `Destroy` is
    // refused in view: the flag is never set again.
    let destroy = vec![at(3, born(0, 0), Command::Destroy)];
    let mut world = faded_start(0.95, true, destroy.clone());
    assert!(world.population().startup.world_start);
    world.step();
    assert_eq!(world.agents().len(), 1, "hidden by the flag alone");
    assert!(
        !world.population().startup.world_start,
        "cleared by the fill"
    );
    // Destroyed at frame 3; frames 4–6 refuse two candidates each.
    steps(&mut world, 5);
    assert_eq!(world.agents().len(), 0);
    assert_eq!(rejections(&world, 0, SpawnRejection::InsideFrustum), 6);
    let mut without = faded_start(0.95, false, destroy);
    steps(&mut without, 3);
    assert_eq!(without.agents().len(), 0);
    assert_eq!(rejections(&without, 0, SpawnRejection::InsideFrustum), 6);
}

/// The ped of source "a" (x = −35, 35.4 m behind the camera) with multiplier 0.6 from frame 5:
/// retain 24 m, remove 48 m — the band, where it retires at once unless a scale of at least
/// 35.4 / 24 ≈ 1.47 keeps it within the retain radius.
fn banded(law_enforcement: bool, scales: (f64, f64), directives: Vec<DirectiveSpec>) -> World {
    let mut all = vec![at(
        5,
        born(0, 0),
        Command::SetRemovalMultiplier { multiplier: 0.6 },
    )];
    all.extend(directives);
    let mut s = source("a", 1, &[-35.0]);
    s.law_enforcement = law_enforcement;
    let mut scn = scenario(vec![behind()], vec![s], all);
    scn.population.removal_scales = crate::sim::config::RemovalScales {
        special: scales.0,
        cops: scales.1,
    };
    let mut world = world_of(scn);
    steps(&mut world, 14);
    world
}

fn ordinary_flags(frames: std::ops::Range<u64>) -> Vec<DirectiveSpec> {
    frames
        .map(|f| {
            at(
                f,
                born(0, 0),
                Command::ExtendRemovalDistance { task: false },
            )
        })
        .collect()
}

#[test]
fn the_ordinary_flag_is_reset_at_each_control_update_and_lapses_unless_reasserted() {
    // Requests at frames 4–9 flag Control updates 5–10 (special scale 1.6: retain 38.4 m);
    // frame 11 has none and the band takes the ped.
    let world = banded(false, (1.6, 1.6), ordinary_flags(4..10));
    let handle = world.births[0][0];
    assert_eq!(retired_frames(&world, handle), [11]);
    let plain = banded(false, (1.6, 1.6), Vec::new());
    assert_eq!(retired_frames(&plain, plain.births[0][0]), [6]);
}

#[test]
fn a_law_enforcement_ped_selects_the_cops_scale_never_the_product() {
    // Cops 1.2: retain 28.8 m, still the band, so the flagged ped retires at once; the product
    // 1.6 × 1.2 = 1.92 (46 m) would have kept it. A ped of an ordinary source with the same
    // flags takes the special scale and stays.
    let cop = banded(true, (1.6, 1.2), ordinary_flags(4..10));
    assert_eq!(retired_frames(&cop, cop.births[0][0]), [6]);
    let civilian = banded(false, (1.6, 1.2), ordinary_flags(4..10));
    assert_eq!(retired_frames(&civilian, civilian.births[0][0]), [11]);
    // Cops 1.6, special 1.2: the other way round.
    let cop = banded(true, (1.2, 1.6), ordinary_flags(4..10));
    assert_eq!(retired_frames(&cop, cop.births[0][0]), [11]);
    let scales = crate::sim::config::RemovalScales {
        special: 1.6,
        cops: 1.2,
    };
    assert_eq!(scales.select(false, true), 1.0);
    assert_eq!(scales.select(true, true), 1.2);
    assert_eq!(scales.select(true, false), 1.6);
}

#[test]
fn the_task_flag_survives_control_and_resets_only_at_the_next_full_task_update() {
    // A rendezvous (frame 2) asks for the task flag (frame 3); it is cancelled at frame 7,
    // after that frame's full task update reasserted the flag. Control 8 does not reset it, so
    // the ped, walking again, keeps the special scale at frame 8; the full task update of
    // frame 8 resets it and nothing reasserts it, so the band takes the ped at frame 9.
    let goal = Vec2 { x: -45.0, y: 0.0 };
    let task = vec![
        at(2, born(0, 0), Command::Rendezvous { goal }),
        at(3, born(0, 0), Command::ExtendRemovalDistance { task: true }),
        at(7, born(0, 0), Command::Cancel),
    ];
    let world = banded(false, (1.6, 1.6), task.clone());
    let handle = world.births[0][0];
    assert_eq!(retired_frames(&world, handle), [9]);
    // Without the ask, the cancelled ped retires at the first cycle after its task ends.
    let plain = banded(
        false,
        (1.6, 1.6),
        task[..1].iter().chain(&task[2..]).cloned().collect(),
    );
    assert_eq!(retired_frames(&plain, plain.births[0][0]), [8]);
    // An ask from another source is refused (the task's identity), and flags nothing.
    let mut foreign = task.clone();
    foreign[1].source = "other".into();
    let foreign = banded(false, (1.6, 1.6), foreign);
    assert_eq!(retired_frames(&foreign, foreign.births[0][0]), [8]);
    assert!(foreign.population().extra.is_empty());
}

#[test]
fn pool_entries_carry_serials_and_reset_versions_so_stale_tickets_are_detected() {
    // Away, back, and away again: each ped retires twice.
    let mut o = away_and_back();
    let key = |frame, y| ObserverKey {
        frame,
        position_m: [0.0, y, 1.7],
    };
    o.path.extend([key(110, 5.0), key(120, 300.0)]);
    let sources = vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])];
    let mut world = world_of(scenario(vec![o], sources, Vec::new()));
    steps(&mut world, 40);
    let pool = &world.population().pool;
    let first: Vec<(u64, u32)> = pool
        .entries
        .iter()
        .map(|e| (e.serial, e.reset_version))
        .collect();
    assert_eq!(first, [(1, 1), (2, 1)]);
    let tickets: Vec<PoolTicket> = pool.entries.iter().map(PoolEntry::ticket).collect();
    assert_eq!(pool.resolve(tickets[1]), Ok(1));
    steps(&mut world, 40);
    assert_eq!(world.population().pool.entries.len(), 0, "both acquired");
    for ticket in &tickets {
        assert_eq!(
            world.population().pool.resolve(*ticket),
            Err(StaleTicket::NotPooled)
        );
    }
    steps(&mut world, 80);
    let pool = &world.population().pool;
    let mut second: Vec<(u64, u32)> = pool
        .entries
        .iter()
        .map(|e| (e.serial, e.reset_version))
        .collect();
    second.sort_unstable();
    assert_eq!(second, [(3, 2), (4, 2)], "new serials, second resets");
    for ticket in &tickets {
        assert!(
            matches!(pool.resolve(*ticket), Err(StaleTicket::Readmitted { serial }) if serial > 2),
            "the old reference names an earlier retirement"
        );
    }
    assert_eq!(pool.admissions, world.population().stats.pool_entries);
}
