//! Tests of the population lifecycle through whole worlds: batches and spillover, retirement
//! bands, claims, boxes, hidden startup, the pool and quarantine, rollback, occupancy.

use std::f64::consts::FRAC_PI_2;
use std::sync::Arc;

use super::*;
use crate::project::{PopulationKind, Vec2};
use crate::sim::config::{
    AttachFault, Command, CompiledScenario, DirectiveSpec, DirectiveTarget, ObserverKey,
    ObserverSpec, PopulationParams, SimBox, SourceSpec,
};
use crate::sim::events::{BoxChange, BoxSlot, Event, EventDetail, EventKind, Unresolved};
use crate::sim::observers::{Observation, ObserverState};
use crate::sim::space::{SimSpace, StaticBlocker};

use crate::sim::{build_world, SimRoute, World};

mod batches;
mod eligibility;
mod lifecycle_events;
mod lifecycle_settings;
mod reuse_stall;

/// An observer at `(x, y, 1.7)` looking along +Y (so the route at y = 0 behind it is offscreen).
fn observer(x: f64, y: f64, yaw_rad: f64) -> ObserverSpec {
    ObserverSpec {
        id: format!("cam{x}_{y}"),
        position_m: [x, y, 1.7],
        yaw_rad,
        pitch_rad: 0.0,
        fov_y_rad: 1.0,
        near_m: 0.1,
        far_m: 200.0,
        retain_radius_m: 40.0,
        remove_radius_m: 80.0,
        close_m: 3.0,
        spawn: crate::sim::config::SpawnRanges::default(),
        center_m: None,
        path: Vec::new(),
        aim: Vec::new(),
        fade: 0.0,
        valid: true,
    }
}

fn behind() -> ObserverSpec {
    observer(0.0, 5.0, FRAC_PI_2)
}

/// A source on the route whose authored candidates stand at ground `x` positions `xs` (the
/// route runs from x = −50 m, so progress = x + 50 m).
fn source(id: &str, target: u32, xs: &[f64]) -> SourceSpec {
    SourceSpec {
        id: id.into(),
        kind: PopulationKind::Ambient,
        route: "walk".into(),
        target_count: target,
        walk_speed_m_s: 1.4,
        capacity: target,
        batch_size: 1,
        family: None,
        candidates_m: xs.iter().map(|x| x + 50.0).collect(),
        removal_multiplier: 1.0,
        stops_at_route_end: false,
        law_enforcement: false,
        motion_profile: None,
    }
}

fn at(frame: u64, target: DirectiveTarget, command: Command) -> DirectiveSpec {
    DirectiveSpec {
        frame,
        index: 0,
        target,
        command,
        source: "script".to_owned(),
        session: 0,
        motion_profile: None,
    }
}

fn born(source: u16, ordinal: u32) -> DirectiveTarget {
    DirectiveTarget::Born { source, ordinal }
}

fn scenario(
    observers: Vec<ObserverSpec>,
    sources: Vec<SourceSpec>,
    mut directives: Vec<DirectiveSpec>,
) -> CompiledScenario {
    directives.sort_by_key(|d| d.frame);
    for (index, d) in directives.iter_mut().enumerate() {
        d.index = index as u32;
    }
    CompiledScenario {
        id: "t".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 1000,
        observers,
        sources,
        no_spawn_box: None,
        no_removal_box: None,
        directives,
        vehicle_sources: Vec::new(),
        families: Vec::new(),
        population: PopulationParams::default(),
        motion: crate::sim::config::MotionConfig::default(),
        crossings: crate::sim::CrossingSettings::default(),
        objects: Vec::new(),
        barriers: Vec::new(),
    }
}

fn space(blockers: Vec<StaticBlocker>) -> SimSpace {
    let route = SimRoute::new(
        "walk",
        vec![Vec2 { x: -50.0, y: 0.0 }, Vec2 { x: 50.0, y: 0.0 }],
    )
    .expect("route");
    let mut space = SimSpace::from_routes(vec![route]).expect("space");
    space.blockers = blockers;
    space
}

fn world_of(scenario: CompiledScenario) -> World {
    build_world(&Arc::new(space(Vec::new())), &Arc::new(scenario), 7).expect("world")
}

fn steps(world: &mut World, frames: u64) {
    for _ in 0..frames {
        world.step();
    }
}

fn events_of(world: &World, kind: EventKind) -> Vec<Event> {
    world.events().of_kind(kind).copied().collect()
}

fn rejections(world: &World, source: usize, reason: SpawnRejection) -> u64 {
    world.population().sources[source].rejections[reason as usize]
}

#[test]
fn a_batch_of_four_is_created_at_once_and_blocks_generation_until_repaid() {
    let mut s = source(
        "crowd",
        8,
        &[-30.0, -20.0, -10.0, -5.0, 5.0, 10.0, 20.0, 30.0],
    );
    s.batch_size = 4;
    let mut world = world_of(scenario(vec![behind()], vec![s], Vec::new()));
    let mut alive = Vec::new();
    let mut outstanding = Vec::new();
    for _ in 0..6 {
        world.step();
        alive.push(world.agents().len());
        outstanding.push(world.population().ped_spillover.outstanding);
    }
    // One cycle per frame (20 cycles/s at 0.05 s): record 4, repay 1 now, 3 by later cycles.
    assert_eq!(alive, [4, 4, 4, 4, 8, 8]);
    assert_eq!(outstanding, [3, 2, 1, 0, 3, 2]);
    let realized = events_of(&world, EventKind::Realized);
    assert_eq!(realized.len(), 8);
    assert!(realized[..4].iter().all(|e| e.frame == 1
        && e.detail
            == EventDetail::Batch {
                items: 4,
                reused: 0
            }));
    assert_eq!(world.population().stats.batches_realized, 2);
    assert_eq!(world.population().stats.planned_ped_cycles, 6);
    assert_eq!(world.population().stats.demands_enqueued, 2);
}

#[test]
fn the_spatial_rule_retains_at_rout_and_applies_the_band_at_rin() {
    let spec = observer(0.0, 0.0, 0.0); // looking along +X
    let states = [ObserverState::initial(&spec)];
    let obs = Observation::take(std::slice::from_ref(&spec), &states, 0);
    let rule = |p: [f64; 3], world: f64, ped: f64, aggressive: bool| {
        spatial(&obs, p, world, ped, aggressive)
    };
    assert_eq!(
        rule([-40.0, 0.0, 0.0], 1.0, 1.0, true),
        Err(RetireRefusal::WithinRetainRadius)
    );
    // d = Rin (behind the camera): the intermediate rule still applies.
    assert_eq!(
        rule([-80.0, 0.0, 0.0], 1.0, 1.0, true),
        Ok(RetireRule::Band)
    );
    assert_eq!(
        rule([-80.0, 0.0, 0.0], 1.0, 1.0, false),
        Err(RetireRefusal::CleanupDisabledInBand)
    );
    assert_eq!(
        rule([80.0, 0.0, 0.0], 1.0, 1.0, true),
        Err(RetireRefusal::OnscreenInBand)
    );
    // Beyond Rin, even onscreen is removable; height never counts (horizontal distance).
    assert_eq!(
        rule([80.001, 0.0, 0.0], 1.0, 1.0, true),
        Ok(RetireRule::Range)
    );
    assert_eq!(
        rule([-39.0, 0.0, 500.0], 1.0, 1.0, true),
        Err(RetireRefusal::WithinRetainRadius)
    );
    // Suppress cleanup: Rout × 1.6 = 64 retains; the ped multiplier applies last.
    assert_eq!(
        rule([-64.0, 0.0, 0.0], 1.6, 1.0, true),
        Err(RetireRefusal::WithinRetainRadius)
    );
    assert_eq!(
        rule([-65.0, 0.0, 0.0], 1.6, 0.5, true),
        Ok(RetireRule::Range)
    );
    let invalid = [ObserverState {
        fade: 0.0,
        valid: false,
    }];
    let none = Observation::take(std::slice::from_ref(&spec), &invalid, 0);
    assert_eq!(
        spatial(&none, [-500.0, 0.0, 0.0], 1.0, 1.0, true),
        Err(RetireRefusal::NoValidView)
    );
}

/// Observer behind the route at frames ≤ 10, far away (y = 300) from frame 20 to 60, back by 70.
fn away_and_back() -> ObserverSpec {
    let mut o = behind();
    let key = |frame, y| ObserverKey {
        frame,
        position_m: [0.0, y, 1.7],
    };
    o.path = vec![key(10, 5.0), key(20, 300.0), key(60, 300.0), key(70, 5.0)];
    o
}

#[test]
fn a_claimed_ped_stays_while_an_ambient_one_retires() {
    let claim_a = Command::Claim {
        owner: "script".into(),
        allow_transfer: false,
    };
    let release_a = Command::Release {
        owner: "script".into(),
    };
    let mut o = behind();
    o.path = vec![
        ObserverKey {
            frame: 10,
            position_m: [0.0, 5.0, 1.7],
        },
        ObserverKey {
            frame: 20,
            position_m: [0.0, 300.0, 1.7],
        },
    ];
    let directives = vec![at(5, born(0, 0), claim_a), at(40, born(0, 0), release_a)];
    let sources = vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])];
    let mut world = world_of(scenario(vec![o], sources, directives));
    steps(&mut world, 2);
    let (a, b) = (world.births[0][0], world.births[1][0]);
    steps(&mut world, 30);
    let row_a = world.resolve(a).expect("a alive");
    let row_b = world.resolve(b).expect("b still queryable in the pool");
    assert!(!world.agents().pooled[row_a], "the claimed ped stays");
    assert_eq!(world.agents().kind[row_a], PopulationKind::Mission);
    assert!(
        world.agents().pooled[row_b],
        "the ambient ped retired into the pool"
    );
    let refused = events_of(&world, EventKind::RetireRefused);
    assert!(refused
        .iter()
        .any(|e| e.handle == Some(a) && e.detail == EventDetail::Refusal(RetireRefusal::Mission)));
    // Counts: a is mission (not ambient) but still attached to its source's capacity.
    let status = &world.source_statuses()[0];
    assert_eq!((status.ambient, status.mission, status.attached), (0, 1, 1));
    steps(&mut world, 10);
    let row_a = world.resolve(a).expect("a queryable");
    assert!(
        world.agents().pooled[row_a],
        "released, a retires like any ambient ped"
    );
    assert_eq!(world.agents().kind[row_a], PopulationKind::Ambient);
}

#[test]
fn only_the_owner_releases_and_a_foreign_claim_needs_permission() {
    let claim = |owner: &str, allow_transfer| Command::Claim {
        owner: owner.into(),
        allow_transfer,
    };
    let release = |owner: &str| Command::Release {
        owner: owner.into(),
    };
    let t = born(0, 0);
    let directives = vec![
        at(3, t, claim("x", false)),
        at(4, t, claim("x", false)),
        at(5, t, claim("y", false)),
        at(6, t, release("y")),
        at(7, t, claim("y", true)),
        at(8, t, release("x")),
        at(9, t, release("y")),
    ];
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 1, &[-10.0])],
        directives,
    ));
    steps(&mut world, 5);
    let row = world.row_of(0, 0).expect("born");
    assert_eq!(
        world.agents().owner[row].as_deref(),
        Some("x"),
        "a foreign claim keeps the owner"
    );
    steps(&mut world, 3);
    assert_eq!(
        world.agents().owner[row].as_deref(),
        Some("y"),
        "transferred with permission"
    );
    steps(&mut world, 1);
    assert_eq!(world.agents().owner[row], None);
    assert_eq!(world.agents().kind[row], PopulationKind::Ambient);
    let outcomes: Vec<(u64, EventKind, EventDetail)> = world
        .events()
        .all()
        .into_iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Claimed | EventKind::Released | EventKind::ClaimRefused
            )
        })
        .map(|e| (e.frame, e.kind, e.detail))
        .collect();
    assert_eq!(
        outcomes,
        [
            (3, EventKind::Claimed, EventDetail::None),
            (4, EventKind::Claimed, EventDetail::None),
            (
                5,
                EventKind::ClaimRefused,
                EventDetail::Claim(ClaimRefusal::OtherOwner)
            ),
            (
                6,
                EventKind::ClaimRefused,
                EventDetail::Claim(ClaimRefusal::NotOwner)
            ),
            (7, EventKind::Claimed, EventDetail::None),
            (
                8,
                EventKind::ClaimRefused,
                EventDetail::Claim(ClaimRefusal::NotOwner)
            ),
            (9, EventKind::Released, EventDetail::None),
        ]
    );
}

#[test]
fn population_goes_two_zero_two_and_the_pooled_handles_walk_again() {
    let sources = vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])];
    let mut world = world_of(scenario(vec![away_and_back()], sources, Vec::new()));
    steps(&mut world, 2);
    let handles = [world.births[0][0], world.births[1][0]];
    let ambient = |w: &World| w.source_statuses().iter().map(|s| s.ambient).sum::<u64>();
    assert_eq!(ambient(&world), 2);
    steps(&mut world, 38);
    assert_eq!(ambient(&world), 0, "the observer is away: both retired");
    assert_eq!(world.counters().pooled, 2);
    assert!(
        rejections(&world, 0, SpawnRejection::OutOfRange) > 0,
        "demand waits out of range"
    );
    steps(&mut world, 40);
    assert_eq!(ambient(&world), 2, "back: the shortfall is filled");
    assert_eq!(world.counters().pooled, 0);
    assert_eq!(world.counters().births, 2, "by reuse, not by new entities");
    let acquired: Vec<_> = events_of(&world, EventKind::Acquired)
        .iter()
        .filter_map(|e| e.handle)
        .collect();
    assert_eq!(acquired.len(), 2);
    assert!(
        handles.iter().all(|h| acquired.contains(h)),
        "the original handles came back"
    );
    // Readmitted at the admitted candidate, then actually walking.
    let rows = handles.map(|h| world.resolve(h).expect("alive"));
    let before = rows.map(|r| world.agents().position[r]);
    steps(&mut world, 20);
    let rows = handles.map(|h| world.resolve(h).expect("alive"));
    for (row, start) in rows.iter().zip(before) {
        let p = world.agents().position[*row];
        let moved = (p.x - start.x).hypot(p.y - start.y);
        assert!(
            moved > 1.0,
            "a reused ped moves after readmission ({moved} m)"
        );
        // The first admission began the source's use 1; the refusals while the observer was
        // away ended it, and the readmission began use 2.
        assert_eq!(world.agents().source_generation[*row], 2);
    }
}

#[test]
fn quarantine_needs_two_control_updates_even_under_instant_fill() {
    let directives = vec![
        at(
            3,
            born(0, 0),
            Command::SetRemovalMultiplier { multiplier: 0.01 },
        ),
        at(3, DirectiveTarget::World, Command::InstantFill),
    ];
    // Every other candidate stands 2.6 m from the camera: too close, an observer refusal that
    // ends the source's use, so the next admitted batch is a new use, in which the retired ped
    // may rejoin its own source.
    let mut world = world_of(scenario(
        vec![observer(0.0, 2.0, FRAC_PI_2)],
        vec![source("a", 1, &[-10.0, 0.0])],
        directives,
    ));
    steps(&mut world, 2);
    let handle = world.births[0][0];
    steps(&mut world, 6);
    let retired = events_of(&world, EventKind::PoolEntered);
    let acquired = events_of(&world, EventKind::Acquired);
    assert_eq!(retired.len(), 1);
    assert_eq!(
        retired[0].frame, 4,
        "three cycles that update (1 + 2 instant-fill extras)"
    );
    assert_eq!(acquired.len(), 1);
    assert_eq!(acquired[0].handle, Some(handle));
    assert_eq!(
        acquired[0].frame, 6,
        "frame − retiredFrame ≥ 2 Control updates, not cycles"
    );
    // Frames 4 and 5 each tried three cycles and waited on the quarantined entry.
    assert_eq!(rejections(&world, 0, SpawnRejection::PoolQuarantine), 6);
    let row = world.resolve(handle).expect("alive");
    assert_eq!(
        world.agents().removal_multiplier[row],
        1.0,
        "readmission re-applies the default"
    );
}

#[test]
fn a_late_attachment_failure_rolls_the_batch_back_in_reverse() {
    let mut s = source("trio", 3, &[-20.0, -10.0, 10.0]);
    s.batch_size = 3;
    let mut scn = scenario(vec![behind()], vec![s], Vec::new());
    scn.population.fault = Some(AttachFault {
        batch: 0,
        item: 2,
        fail_restore: false,
    });
    let mut world = world_of(scn);
    world.step();
    assert_eq!(world.agents().len(), 0, "no partial batch is published");
    assert!(
        world.population().sources[0].pending.is_some(),
        "the demand stays"
    );
    let frame_1: Vec<(EventKind, Option<u32>)> = world
        .events()
        .at_frame(1)
        .iter()
        .map(|e| (e.kind, e.handle.map(|h| h.index)))
        .collect();
    let destroyed: Vec<Option<u32>> = frame_1
        .iter()
        .filter(|(k, _)| *k == EventKind::Destroyed)
        .map(|(_, h)| *h)
        .collect();
    assert_eq!(
        destroyed,
        [Some(2), Some(1), Some(0)],
        "the failed item, then the rest reversed"
    );
    let rollback = events_of(&world, EventKind::RolledBack);
    assert_eq!(
        rollback[0].detail,
        EventDetail::Rollback {
            complete: true,
            undone: 3
        }
    );
    assert_eq!(rejections(&world, 0, SpawnRejection::AttachFailed), 1);
    world.step();
    assert_eq!(
        world.agents().len(),
        3,
        "the next batch attaches completely"
    );
    let generations: Vec<u32> = world.births[0].iter().map(|h| h.generation).collect();
    assert_eq!(
        generations,
        [1, 1, 1],
        "the rolled-back slots were released and reused"
    );
}

#[test]
fn an_incomplete_compensation_reports_rollback_failed() {
    let mut s = source("pair", 2, &[-10.0, 10.0]);
    s.batch_size = 2;
    let mut scn = scenario(vec![away_and_back()], vec![s], Vec::new());
    // Batch 0 creates the pair; batch 1 is their readmission from the pool.
    scn.population.fault = Some(AttachFault {
        batch: 1,
        item: 1,
        fail_restore: true,
    });
    let mut world = world_of(scn);
    steps(&mut world, 80);
    assert_eq!(rejections(&world, 0, SpawnRejection::RollbackFailed), 1);
    let rollback = events_of(&world, EventKind::RolledBack);
    assert_eq!(
        rollback[0].detail,
        EventDetail::Rollback {
            complete: false,
            undone: 2
        }
    );
    assert_eq!(world.population().stats.rollbacks_failed, 1);
    // Both reused peds could not go back to the pool and were destroyed; new ones filled in.
    assert_eq!(world.counters().pooled, 0);
    assert_eq!(world.counters().births, 4);
}

#[test]
fn an_invalid_box_leaves_the_old_box_and_the_slots_are_independent() {
    let good = SimBox {
        min_m: [-20.0, -1.0, -1.0],
        max_m: [20.0, 1.0, 2.0],
    };
    let inverted = SimBox {
        min_m: [5.0, -1.0, -1.0],
        max_m: [-5.0, 1.0, 2.0],
    };
    let set = |slot, bounds| Command::SetBox { slot, bounds };
    let directives = vec![
        at(1, DirectiveTarget::World, set(BoxSlot::NoSpawn, good)),
        at(2, DirectiveTarget::World, set(BoxSlot::NoSpawn, inverted)),
        at(2, DirectiveTarget::World, set(BoxSlot::NoRemoval, good)),
        at(
            3,
            DirectiveTarget::World,
            Command::ClearBox {
                slot: BoxSlot::NoRemoval,
            },
        ),
    ];
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 1, &[-10.0])],
        directives,
    ));
    steps(&mut world, 2);
    assert_eq!(
        world.population().boxes.no_spawn,
        Some(good),
        "the refused box left the old one"
    );
    assert_eq!(world.population().boxes.no_removal, Some(good));
    steps(&mut world, 1);
    assert_eq!(
        world.population().boxes.no_spawn,
        Some(good),
        "clearing one slot keeps the other"
    );
    assert_eq!(world.population().boxes.no_removal, None);
    let changes: Vec<EventDetail> = events_of(&world, EventKind::BoxChanged)
        .iter()
        .map(|e| e.detail)
        .collect();
    assert_eq!(
        changes,
        [
            EventDetail::Box(BoxSlot::NoSpawn, BoxChange::Set),
            EventDetail::Box(BoxSlot::NoSpawn, BoxChange::Refused),
            EventDetail::Box(BoxSlot::NoRemoval, BoxChange::Set),
            EventDetail::Box(BoxSlot::NoRemoval, BoxChange::Cleared),
        ]
    );
}

#[test]
fn the_no_spawn_box_blocks_births_and_the_no_removal_box_protects_members() {
    let mut scn = scenario(
        vec![away_and_back()],
        vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])],
        Vec::new(),
    );
    scn.no_removal_box = Some(SimBox {
        min_m: [5.0, -1.0, 0.0],
        max_m: [15.0, 1.0, 0.0],
    });
    // b walks at most 2 m in 40 frames: it stays inside the protected box.
    let mut world = world_of(scn);
    steps(&mut world, 40);
    let b = world.births[1][0];
    let row = world.resolve(b).expect("b");
    assert!(!world.agents().pooled[row], "the no-removal box protects b");
    assert!(world.counters().pooled >= 1, "a retired");
    let refused = events_of(&world, EventKind::RetireRefused);
    assert!(refused
        .iter()
        .any(|e| e.detail == EventDetail::Refusal(RetireRefusal::NoRemovalBox)));
    let mut scn = scenario(vec![behind()], vec![source("a", 1, &[-10.0])], Vec::new());
    scn.no_spawn_box = Some(SimBox {
        min_m: [-10.0, 0.0, 0.0],
        max_m: [-10.0, 0.0, 0.0],
    });
    let mut world = world_of(scn);
    steps(&mut world, 5);
    assert_eq!(
        world.agents().len(),
        0,
        "a box of one point still contains it (inclusive)"
    );
    assert_eq!(
        rejections(&world, 0, SpawnRejection::NoSpawnBox),
        10,
        "two candidates a cycle"
    );
}

#[test]
fn hidden_startup_refuses_with_a_single_invalid_view() {
    let facing = |valid| {
        let mut o = observer(0.0, -10.0, FRAC_PI_2);
        o.fade = 1.0;
        o.valid = valid;
        o
    };
    let directives = vec![at(
        1,
        DirectiveTarget::World,
        Command::ForcedInit { duration_s: 5.0 },
    )];
    let run = |observers: Vec<ObserverSpec>| {
        let mut world = world_of(scenario(
            observers,
            vec![source("a", 1, &[5.0])],
            directives.clone(),
        ));
        steps(&mut world, 3);
        world
    };
    let hidden = run(vec![facing(true), facing(true)]);
    assert_eq!(
        hidden.agents().len(),
        1,
        "every view valid and black: hidden startup births"
    );
    let one_invalid = run(vec![facing(true), facing(false)]);
    assert_eq!(one_invalid.agents().len(), 0);
    assert!(rejections(&one_invalid, 0, SpawnRejection::InsideFrustum) > 0);
    let visible = run(vec![observer(0.0, -10.0, FRAC_PI_2)]);
    assert_eq!(
        visible.agents().len(),
        0,
        "a request alone does not hide the screen"
    );
}

#[test]
fn forced_init_windows_extend_never_shorten_and_expire_only_when_passed() {
    let obs = Observation::default();
    let mut s = Startup::default();
    s.request_forced_init(0.7).expect("valid");
    assert_eq!(s.forced, Some((0, 700)));
    s.request_forced_init(0.2).expect("valid");
    assert_eq!(s.forced, Some((0, 700)), "a shorter repeat never shortens");
    s.control_update(700, &obs, true);
    assert!(s.forced.is_some(), "reaching the end is not passing it");
    s.control_update(701, &obs, true);
    assert!(s.forced.is_none());
    s.request_forced_init(1.0).expect("valid");
    s.control_update(801, &obs, false);
    assert!(
        s.forced.is_some(),
        "early completion needs more than 100 ms"
    );
    s.control_update(802, &obs, false);
    assert!(s.forced.is_none());
    assert_eq!(
        s.request_forced_init(f64::NAN),
        Err(StartupError::BadDuration)
    );
    s.request_instant_fill();
    s.after_population_update(|| false);
    s.request_instant_fill();
    assert_eq!(
        s.instant_fill_left,
        INSTANT_FILL_UPDATES - 1,
        "not refilled while active"
    );
}

#[test]
fn no_valid_view_defers_and_validity_restores_generation() {
    let mut o = behind();
    o.valid = false;
    let directives = vec![at(
        4,
        DirectiveTarget::World,
        Command::SetObserverValid {
            observer: 0,
            valid: true,
        },
    )];
    let mut world = world_of(scenario(
        vec![o],
        vec![source("a", 1, &[-10.0])],
        directives,
    ));
    steps(&mut world, 4);
    assert_eq!(world.agents().len(), 0);
    assert_eq!(
        rejections(&world, 0, SpawnRejection::NoValidView),
        4,
        "one per cycle, deferred"
    );
    world.step();
    assert_eq!(world.agents().len(), 1);
}

#[test]
fn an_occupied_candidate_waits_until_the_ped_there_leaves() {
    let directives = vec![
        at(2, born(0, 0), Command::Hold),
        at(30, born(0, 0), Command::Continue),
    ];
    let sources = vec![source("stander", 1, &[10.0]), source("late", 1, &[10.3])];
    let mut world = world_of(scenario(vec![behind()], sources, directives));
    steps(&mut world, 30);
    assert!(
        world.births[1].is_empty(),
        "the standing ped occupies the candidate"
    );
    assert!(rejections(&world, 1, SpawnRejection::OccupiedByPed) > 20);
    steps(&mut world, 20);
    let row = world
        .row_of(1, 0)
        .expect("born once the position is vacated");
    let created = events_of(&world, EventKind::Realized)
        .into_iter()
        .find(|e| e.source == Some(1));
    assert!(created.is_some_and(|e| e.frame > 30));
    assert_eq!(world.population().sources[1].created, 1);
    let _ = row;
}

#[test]
fn the_spawn_capsule_is_refused_by_a_prop_and_resources_gate_realization() {
    let blocker = StaticBlocker {
        stage: 0,
        index: 0,
        position: Vec2 { x: 20.0, y: 0.5 },
        radius_m: 0.5,
        height_m: 1.0,
    };
    let scn = scenario(vec![behind()], vec![source("a", 1, &[20.0])], Vec::new());
    let mut world = build_world(&Arc::new(space(vec![blocker])), &Arc::new(scn), 7).expect("world");
    steps(&mut world, 3);
    assert_eq!(world.agents().len(), 0);
    assert_eq!(rejections(&world, 0, SpawnRejection::BlockedByProp), 6);

    let mut s = source("a", 2, &[-10.0, 10.0]);
    s.family = Some(0);
    let toggle = |frame, available| {
        at(
            frame,
            DirectiveTarget::World,
            Command::SetFamilyAvailable {
                family: 0,
                available,
            },
        )
    };
    let mut scn = scenario(
        vec![behind()],
        vec![s],
        vec![toggle(1, false), toggle(5, true)],
    );
    scn.families = vec!["adult".into()];
    let mut world = world_of(scn);
    steps(&mut world, 5);
    assert_eq!(
        world.agents().len(),
        1,
        "born before the family went unavailable"
    );
    assert_eq!(rejections(&world, 0, SpawnRejection::ResourcesNotReady), 4);
    let report = world.spawn_report(0).expect("report");
    assert_eq!(report.rejections[0], (SpawnRejection::ResourcesNotReady, 4));
    assert!(report.text().contains("ResourcesNotReady"));
    world.step();
    assert_eq!(world.agents().len(), 2);
}

#[test]
fn directive_targets_resolve_deterministically_or_are_recorded_unresolved() {
    let near = DirectiveTarget::nearest_ambient(9.0, 0.0);
    let directives = vec![
        at(1, born(0, 5), Command::Hold),
        at(4, near, Command::Hold),
        at(
            5,
            DirectiveTarget::World,
            Command::SetObserverFade {
                observer: 9,
                fade: 1.0,
            },
        ),
        at(6, near, Command::Destroy),
    ];
    let sources = vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])];
    let mut world = world_of(scenario(vec![behind()], sources, directives));
    steps(&mut world, 4);
    let b = world.births[1][0];
    let row = world.resolve(b).expect("b");
    assert_eq!(
        world.agents().state[row],
        crate::sim::AgentState::Holding,
        "b is nearest to x = 9"
    );
    steps(&mut world, 2);
    assert_eq!(world.resolve(b), None, "destroyed explicitly");
    let unresolved: Vec<Option<Unresolved>> = events_of(&world, EventKind::Directive)
        .iter()
        .map(|e| match e.detail {
            EventDetail::Directive { unresolved, .. } => unresolved,
            _ => None,
        })
        .collect();
    assert_eq!(
        unresolved,
        [
            Some(Unresolved::NotBorn),
            None,
            Some(Unresolved::Missing),
            None
        ]
    );
    assert_eq!(world.counters().directives_missed, 2);
}

#[test]
fn restoring_mid_lifecycle_continues_bit_identically() {
    let mut s = source("pair", 2, &[-10.0, 10.0]);
    s.batch_size = 2;
    let claim = Command::Claim {
        owner: "s".into(),
        allow_transfer: false,
    };
    let scn = scenario(
        vec![away_and_back()],
        vec![s],
        vec![at(3, born(0, 1), claim)],
    );
    let mut straight = world_of(scn.clone());
    steps(&mut straight, 120);
    for frame in [1, 19, 37, 64, 90] {
        let mut first = world_of(scn.clone());
        steps(&mut first, frame);
        let snapshot = first.snapshot();
        let mut resumed = world_of(scn.clone());
        resumed.restore(&snapshot).expect("restore");
        steps(&mut resumed, 120 - frame);
        assert_eq!(
            resumed.state_digest(),
            straight.state_digest(),
            "restored at {frame}"
        );
    }
}

#[test]
fn vehicles_run_on_their_own_clock_and_a_candidate_on_their_lane_is_a_crossing_conflict() {
    use crate::sim::config::VehicleSourceSpec;
    use crate::sim::space::SimLane;
    let mut space = space(Vec::new());
    // A lane across the route at x = 0 (north to south, 3.5 m wide), entering 10 m north of it.
    space.lanes = vec![SimLane {
        id: "lane.0".into(),
        centerline: vec![Vec2 { x: 0.0, y: 10.0 }, Vec2 { x: 0.0, y: -200.0 }],
        width_m: 3.5,
        crosswalks: Vec::new(),
    }];
    let mut scn = scenario(vec![behind()], vec![source("a", 1, &[0.5])], Vec::new());
    scn.vehicle_sources = vec![VehicleSourceSpec {
        id: "cars".into(),
        lane: "lane.0".into(),
        target_count: 1,
        speed_m_s: 10.0,
    }];
    // Vehicles at 40 cycles/s (two per 0.05 s update: compensating), peds at 20/s.
    scn.population.clocks.vehicle.frame_rate = 40.0;
    let mut world = build_world(&Arc::new(space), &Arc::new(scn), 7).expect("world");
    steps(&mut world, 4);
    assert_eq!(world.population().stats.planned_vehicle_cycles, 8);
    // The source keeps one vehicle on its lane: the other cycles find nothing to do.
    assert_eq!(world.population().vehicles.created, 1);
    // Peds alternate into a single-cycle cap while vehicles compensate: 1 cycle per update.
    assert_eq!(world.population().stats.planned_ped_cycles, 4);
    assert!(rejections(&world, 0, SpawnRejection::CrossingConflict) > 0);
    assert!(
        world.agents().is_empty(),
        "no birth on the lane while a car approaches"
    );
    // The car passes the candidate (0.5 m per frame) and is 12 m beyond it by frame ~45.
    steps(&mut world, 76);
    assert_eq!(world.agents().len(), 1, "born once the car has passed");
    assert_eq!(world.population().vehicles.len(), 1);
    let born = events_of(&world, EventKind::Realized)[0].frame;
    assert!((40..=50).contains(&born), "born at frame {born}");
}

#[test]
fn each_drawn_candidate_is_marked_with_its_position_and_admission_result() {
    let boxed = || SimBox {
        min_m: [-12.0, -1.0, 0.0],
        max_m: [-8.0, 1.0, 2.0],
    };
    let mut scn = scenario(vec![behind()], vec![source("a", 1, &[-10.0])], Vec::new());
    scn.no_spawn_box = Some(boxed());
    let mut world = world_of(scn);
    let mut marks = Vec::new();
    for _ in 0..3 {
        world.step();
        marks.extend_from_slice(world.last_candidates());
    }
    assert!(!marks.is_empty(), "the source drew candidates");
    for mark in &marks {
        assert_eq!(mark.source, 0);
        assert_eq!(mark.rejection, Some(SpawnRejection::NoSpawnBox));
        assert!((mark.position.x + 10.0).abs() < 1e-9, "{mark:?}");
        assert!(mark.position.y.abs() < 1e-9, "{mark:?}");
    }
    assert_eq!(
        marks.len() as u64,
        rejections(&world, 0, SpawnRejection::NoSpawnBox),
        "one mark per refused candidate"
    );
    let recent: Vec<(u64, CandidateMark)> =
        world.recent_candidates().map(|(f, m)| (f, *m)).collect();
    assert_eq!(
        recent.len(),
        marks.len(),
        "the recent marks keep every step's"
    );
    assert!(recent.windows(2).all(|w| w[0].0 <= w[1].0), "oldest first");
    assert_eq!(recent.last().map(|r| r.0), Some(3));

    let scn = scenario(vec![behind()], vec![source("a", 1, &[-10.0])], Vec::new());
    let mut world = world_of(scn);
    let mut admitted: Vec<CandidateMark> = Vec::new();
    while world.agents().is_empty() && world.frame() < 40 {
        world.step();
        admitted.extend(
            world
                .last_candidates()
                .iter()
                .filter(|m| m.rejection.is_none())
                .copied(),
        );
    }
    assert_eq!(world.agents().len(), 1);
    assert_eq!(
        admitted.len(),
        1,
        "the birth's candidate is marked admitted"
    );
    assert!((admitted[0].position.x + 10.0).abs() < 1e-9);
}

/// Two sources on the away-and-back observer with a pool that takes nobody, so every
/// retirement destroys its ped: rows are removed (the last row moving into each hole) while the
/// observer is away, and new peds are born into the released slots when it is back. Source
/// `pair`'s second ped is claimed and stays, so its row moves when the others go.
fn compacting_scenario() -> CompiledScenario {
    let mut pair = source("pair", 3, &[-12.0, 0.0, 12.0]);
    pair.batch_size = 3;
    let claim = Command::Claim {
        owner: "s".into(),
        allow_transfer: false,
    };
    let mut s = scenario(
        vec![away_and_back()],
        vec![pair, source("solo", 2, &[-6.0, 6.0])],
        vec![at(3, born(0, 1), claim)],
    );
    s.population.pool_capacity = 0;
    s
}

/// Frame count == agent count after every step, each frame the agent of its row, found by id.
fn assert_frames_follow_rows(world: &World) {
    let frames = world.motion_frames();
    assert_eq!(frames.len(), world.agents.len(), "frame {}", world.frame());
    for (row, frame) in frames.iter().enumerate() {
        assert_eq!(frame.id.bits(), world.agents.id[row], "row {row}");
        assert_eq!(frame.sim_frame, world.frame());
        assert_eq!(world.row_of_id(frame.id), Some(row));
        assert_eq!(world.motion_frame(frame.id), Some(frame));
    }
}

#[test]
fn every_step_publishes_one_frame_per_row_through_births_and_removals() {
    let mut world = world_of(compacting_scenario());
    let (mut grew, mut shrank) = (0, 0);
    for _ in 0..120 {
        let before = world.agents.len();
        world.step();
        assert_frames_follow_rows(&world);
        let after = world.agents.len();
        if after > before {
            grew += 1;
            // A newborn has its frame in the step it is born: fresh, never updated yet.
            let newborn = world.motion_frames().last().expect("a frame");
            assert!(!newborn.updated && newborn.fixed_steps == 0);
        }
        shrank += usize::from(after < before);
    }
    assert!(grew >= 2 && shrank >= 1, "grew {grew}, shrank {shrank}");
    assert!(
        world.pop.stats.destroyed >= 4,
        "{}",
        world.pop.stats.destroyed
    );
    // The claimed ped stayed while the rows around it went: it is found by id, not by row.
    let claimed = AgentId::new(0, 1);
    let row = world.row_of_id(claimed).expect("the claimed ped is alive");
    assert_eq!(world.agents.owner[row].as_deref(), Some("s"));
    // A removal outside a step keeps the frames on the rows too.
    let first = world.handle_of(0).expect("a ped");
    world.remove_agent(first).expect("alive");
    assert_frames_follow_rows(&world);
    assert_eq!(
        world.row_of_id(AgentId::from_bits(world.agents.id[0])),
        Some(0)
    );
}

#[test]
fn a_restore_after_compacting_removals_keeps_the_maps_and_continues_bit_identically() {
    let scn = compacting_scenario();
    let mut straight = world_of(scn.clone());
    let mut digests = Vec::new();
    for _ in 0..120 {
        straight.step();
        digests.push(straight.state_digest());
    }
    assert!(straight.pop.stats.destroyed >= 4);
    // Before the removals, in the middle of them, with released slots waiting, after reuse.
    for frame in [8, 24, 31, 45, 75, 90] {
        let mut first = world_of(scn.clone());
        steps(&mut first, frame);
        let snapshot = first.snapshot();
        // A world stepped elsewhere (other rows, other slots) restored to the snapshot.
        let mut resumed = world_of(scn.clone());
        steps(&mut resumed, 50);
        resumed.restore(&snapshot).expect("restore");
        assert_eq!(resumed.slots, first.slots, "slot allocator at {frame}");
        assert_eq!(resumed.births, first.births, "id → handle map at {frame}");
        assert_frames_follow_rows(&resumed);
        assert_eq!(resumed.motion_frames(), first.motion_frames(), "at {frame}");
        for step in frame..120 {
            resumed.step();
            first.step();
            assert_eq!(
                resumed.state_digest(),
                digests[step as usize],
                "restored at {frame}, step {}",
                step + 1
            );
            assert_eq!(resumed.motion_frames(), first.motion_frames());
        }
    }
}

#[test]
fn the_frame_report_says_why_and_where_at_the_current_frame_and_after_a_restore() {
    let mut scn = scenario(
        vec![behind()],
        vec![source("boxed", 1, &[-10.0]), source("free", 1, &[10.0])],
        Vec::new(),
    );
    scn.no_spawn_box = Some(SimBox {
        min_m: [-12.0, -1.0, 0.0],
        max_m: [-8.0, 1.0, 2.0],
    });
    let mut world = world_of(scn);
    let texts = |world: &World| -> Vec<String> {
        (0..2)
            .map(|i| world.frame_spawn_report(i).expect("a source").text())
            .collect()
    };
    world.step();
    let boxed = "`boxed` at frame 1: rejected 2 times: NoSpawnBox ×2 at 40.00 m along walk \
                 (-10.00, 0.00); would unblock it: clear the no-spawn box or draw outside it";
    assert_eq!(
        texts(&world),
        [boxed, "`free` at frame 1: no spawn attempt this frame"]
    );
    world.step();
    let at_two = texts(&world);
    assert_eq!(
        at_two,
        [
            "`boxed` at frame 2: no spawn attempt this frame",
            "`free` at frame 2: spawned 1 at 60.00 m along walk (10.00, 0.00)",
        ]
    );
    let snapshot = world.snapshot();
    steps(&mut world, 2);
    let at_four = texts(&world);
    assert_eq!(at_four[0], boxed.replace("frame 1", "frame 4"));
    // Restored at frame 2, the world still says where frame 2's candidate stood; stepping on
    // gives what stepping straight through gave.
    world.restore(&snapshot).expect("restore");
    assert_eq!(texts(&world), at_two);
    steps(&mut world, 2);
    assert_eq!(texts(&world), at_four);
    assert!(world.frame_spawn_report(2).is_none(), "no third source");
}
