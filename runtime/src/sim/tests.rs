//! Tests of the scenario runtime: births, directives, snapshots and scrubbing determinism.

use std::sync::Arc;

use super::*;
use crate::project::{
    Box3, Directive, DirectiveCommand, PopulationKind, PopulationSource, Scenario, Vec2, Vec3,
};

fn routes() -> Vec<SimRoute> {
    vec![
        SimRoute::new(
            "sidewalk.north",
            vec![Vec2 { x: -40.0, y: 8.0 }, Vec2 { x: 40.0, y: 8.0 }],
        )
        .expect("route"),
        SimRoute::new(
            "crosswalk.0",
            vec![Vec2 { x: 0.0, y: -8.0 }, Vec2 { x: 0.0, y: 8.0 }],
        )
        .expect("route"),
    ]
}

fn scenario() -> Scenario {
    Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 1200,
        sources: vec![
            PopulationSource {
                id: "walkers".into(),
                kind: PopulationKind::Ambient,
                route: "sidewalk.north".into(),
                target_count: 20,
                walk_speed_m_s: 1.4,
                ..Default::default()
            },
            PopulationSource {
                id: "crossers".into(),
                kind: PopulationKind::Ambient,
                route: "crosswalk.0".into(),
                target_count: 6,
                walk_speed_m_s: 1.2,
                ..Default::default()
            },
        ],
        no_spawn_box: Some(Box3 {
            min: Vec3 {
                x: -10.0,
                y: 0.0,
                z: -1.0,
            },
            max: Vec3 {
                x: 10.0,
                y: 10.0,
                z: 2.0,
            },
        }),
        directives: vec![
            Directive {
                frame: 30,
                target: crate::project::Target::Born {
                    source: "walkers".into(),
                    ordinal: 0,
                },
                command: DirectiveCommand::Hold,
                ..Default::default()
            },
            Directive {
                frame: 90,
                target: crate::project::Target::Born {
                    source: "walkers".into(),
                    ordinal: 0,
                },
                command: DirectiveCommand::Continue,
                ..Default::default()
            },
            Directive {
                frame: 100,
                target: crate::project::Target::Born {
                    source: "walkers".into(),
                    ordinal: 1,
                },
                command: DirectiveCommand::Rendezvous {
                    goal: Vec3 {
                        x: 20.0,
                        y: 8.0,
                        z: 0.0,
                    },
                },
                ..Default::default()
            },
        ],
        ..Scenario::default()
    }
}

fn space() -> Arc<SimSpace> {
    Arc::new(SimSpace::from_routes(routes()).expect("space"))
}

fn compiled(scenario: &Scenario) -> Arc<CompiledScenario> {
    Arc::new(CompiledScenario::compile(scenario).expect("compiles"))
}

pub(super) fn world() -> World {
    build_world(&space(), &compiled(&scenario()), 7).expect("world")
}

#[test]
fn births_fill_targets_and_never_land_in_the_no_spawn_box() {
    let mut world = world();
    let mut rejected = 0;
    for _ in 0..200 {
        let births_before = world.agents().len();
        world.step();
        rejected += world.last_rejections().len();
        for row in births_before..world.agents().len() {
            let p = world.agents().position[row];
            assert!(
                !((-10.0..=10.0).contains(&p.x) && (0.0..=10.0).contains(&p.y)),
                "{p:?}"
            );
        }
    }
    let counters = world.counters();
    assert_eq!(counters.alive, 26);
    assert_eq!(counters.births, 26);
    assert_eq!(counters.rejected, rejected as u64);
    assert!(
        counters.rejected_no_spawn_box > 0,
        "the box covers a quarter of the sidewalk, so some draws land in it"
    );
}

#[test]
fn hold_stops_an_agent_and_continue_resumes_it() {
    let mut world = world();
    world.step_n_for_test(40);
    let row = world.row_of(0, 0).expect("born");
    let position_at_40 = world.agents().position[row];
    assert_eq!(world.agents().state[row], AgentState::Holding);
    world.step_n_for_test(40);
    assert_eq!(world.agents().position[row], position_at_40);
    world.step_n_for_test(20);
    assert_eq!(world.agents().state[row], AgentState::Walking);
    assert_ne!(world.agents().position[row], position_at_40);
    assert_eq!(world.counters().directives_applied, 3);
}

#[test]
fn rendezvous_arrives_at_its_goal() {
    let mut world = world();
    world.step_n_for_test(99);
    let row = world.row_of(0, 1).expect("born");
    let start = world.agents().position[row];
    let distance = (20.0 - start.x).hypot(start.y - 8.0);
    // The walk at the walking profile's 1.4 m/s, plus its start (0.6 s), goal stop (0.8 s) and
    // a turn clip (0.8 s): it arrives, its rendezvous completes there, and it is an ambient
    // walker of its (turning-back) source again.
    let frames = (distance / (1.4 * 0.05)).ceil() as u64 + 2 + 44;
    let mut completed_at = None;
    for _ in 0..frames {
        world.step();
        let handle = world.handle_of(row).expect("alive");
        let done = world
            .tasks()
            .parents
            .get(&handle)
            .is_some_and(|p| p.state == crate::sim::tasks::parent::ParentState::Completed);
        if done && completed_at.is_none() {
            completed_at = Some(world.agents().position[row]);
        }
    }
    assert_eq!(completed_at, Some(Vec2 { x: 20.0, y: 8.0 }));
    assert_eq!(world.agents().state[row], AgentState::Walking);
    assert_eq!(world.agents().target[row], None);
}

#[test]
fn runs_are_bit_identical_and_pinned() {
    let mut a = world();
    let mut b = world();
    a.step_n_for_test(600);
    b.step_n_for_test(600);
    assert_eq!(a.state_digest(), b.state_digest());
    assert_eq!(
        a.state_digest_hex(),
        "3bd6d5072e86025d262aef01201a245d4a0b7f84057156ef4ddf3ab5a61dc632"
    );
}

#[test]
fn scrubbing_back_and_forth_matches_straight_stepping() {
    let mut straight = world();
    let mut digests = vec![straight.state_digest()];
    for _ in 0..700 {
        straight.step();
        digests.push(straight.state_digest());
    }
    let mut timeline = Timeline::new(world());
    timeline.step_n(700);
    assert_eq!(timeline.world().state_digest(), digests[700]);
    for frame in [600, 599, 64, 65, 0, 1, 650, 128, 700] {
        timeline.seek(frame);
        assert_eq!(timeline.frame(), frame);
        assert_eq!(
            timeline.world().state_digest(),
            digests[frame as usize],
            "frame {frame}"
        );
    }
    timeline.seek(200);
    timeline.step_back();
    assert_eq!(timeline.world().state_digest(), digests[199]);
    assert_eq!(timeline.history().len(), 700);
}

#[test]
fn checkpoints_stay_bounded_on_long_runs() {
    let mut timeline = Timeline::new(world());
    timeline.step_n(64 * 200);
    assert!(
        timeline.checkpoint_count() <= 65,
        "{}",
        timeline.checkpoint_count()
    );
    // The counters history is bounded too: 12,800 frames fit, so nothing is thinned yet.
    assert_eq!(timeline.history().len(), 64 * 200);
    assert_eq!(timeline.history_stride(), 1);
    let digest = timeline.world().state_digest();
    timeline.seek(5000);
    timeline.seek(64 * 200);
    assert_eq!(timeline.world().state_digest(), digest);
}

#[test]
fn seeking_to_the_current_frame_and_rebuilding_at_frame_zero_change_nothing() {
    let mut timeline = Timeline::new(world());
    let start = timeline.world().state_digest();
    timeline.seek(0);
    timeline.rebuild(world());
    assert_eq!(
        (timeline.frame(), timeline.world().state_digest()),
        (0, start)
    );
    timeline.step_n(70);
    let at_70 = timeline.world().state_digest();
    timeline.seek(70);
    assert_eq!(timeline.world().state_digest(), at_70);
}

#[test]
fn snapshot_of_another_world_is_refused_and_changes_nothing() {
    let mut a = world();
    a.step_n_for_test(10);
    let mut other = scenario();
    other.fixed_step_s = 0.1;
    let mut b = build_world(&space(), &compiled(&other), 7).expect("world");
    b.step_n_for_test(5);
    let before = b.state_digest();
    assert_eq!(b.restore(&a.snapshot()), Err(SnapshotError::ConfigMismatch));
    assert_eq!(b.state_digest(), before);
}

#[test]
fn missing_route_is_an_error_at_its_field() {
    let mut bad = scenario();
    bad.sources[0].route = "sidewalk.east".into();
    let error = build_world(&space(), &compiled(&bad), 1).map(|_| ());
    let Err(error) = error else {
        panic!("a missing route must not build");
    };
    assert_eq!(error.diagnostics.len(), 1);
    assert_eq!(error.diagnostics[0].path.to_string(), "sources[0].route");
    assert_eq!(
        error.diagnostics[0].problem,
        SimProblem::MissingRoute {
            source_id: "walkers".into(),
            route: "sidewalk.east".into(),
            known: vec!["sidewalk.north".into(), "crosswalk.0".into()],
        }
    );
    assert!(error.to_string().contains("sidewalk.east"), "{error}");
}

impl World {
    fn step_n_for_test(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step();
        }
    }
}

#[test]
fn the_counters_history_thins_out_past_its_bound_and_keeps_the_latest_counters() {
    let mut timeline = Timeline::new(world());
    let frames = MAX_HISTORY_FRAMES as u64 + 10;
    timeline.step_n(frames);
    let history = timeline.history();
    assert_eq!(timeline.history_stride(), 2);
    assert_eq!(history.len(), (frames / 2) as usize);
    assert!(history.iter().all(|(frame, _)| frame % 2 == 0));
    assert!(history.windows(2).all(|w| w[0].0 < w[1].0));
    let (last_frame, last) = history[history.len() - 1];
    assert_eq!((last_frame, last), (frames, timeline.world().counters()));
    // Stepping back and forth over recorded frames replaces entries, never duplicates them.
    timeline.seek(100);
    timeline.step_n(10);
    assert_eq!(timeline.history().len(), (frames / 2) as usize);
}

#[test]
fn agent_ids_name_their_source_and_birth_ordinal() {
    let mut world = world();
    world.step_n_for_test(200);
    let mut checked = 0;
    for source in 0..2 {
        for ordinal in 0.. {
            let Some(row) = world.row_of(source, ordinal) else {
                break;
            };
            let id = AgentId::from_bits(world.agents().id[row]);
            assert_eq!((id.source(), id.ordinal() as usize), (source, ordinal));
            assert_eq!(AgentId::new(source as u16, ordinal as u32), id);
            checked += 1;
        }
    }
    assert_eq!(checked, 26);
}

#[test]
fn a_removed_agent_frees_its_slot_for_the_next_birth_with_a_new_generation() {
    let mut world = world();
    world.step();
    let first = world.row_of(0, 0).and_then(|row| world.handle_of(row));
    let first = first.expect("the first walker is born at frame 1");
    assert_eq!(first.generation, 0);
    let unchanged = {
        let mut other = world.clone();
        other.step_n_for_test(50);
        other.state_digest()
    };
    assert_eq!(world.remove_agent(first), Ok(()));
    assert_eq!(world.resolve(first), None);
    assert_eq!(world.row_of(0, 0), None);
    assert_eq!(
        world.remove_agent(first),
        Err(SlotError::Stale {
            index: first.index,
            generation: 0
        })
    );
    world.step();
    // The next birth takes the released slot, one generation on; its handle resolves to its row.
    let reborn = (0..world.agents().len())
        .filter_map(|row| world.handle_of(row))
        .find(|h| h.index == first.index)
        .expect("the slot is reused");
    assert_eq!(reborn.generation, 1);
    let row = world.resolve(reborn).expect("current");
    assert_eq!(world.agents().generation[row], 1);
    // Snapshots carry the slots: restore and continue equals never stopping.
    let snapshot = world.snapshot();
    world.step_n_for_test(49);
    let straight = world.state_digest();
    assert_ne!(straight, unchanged);
    world.restore(&snapshot).expect("restores");
    world.step_n_for_test(49);
    assert_eq!(world.state_digest(), straight);
}
