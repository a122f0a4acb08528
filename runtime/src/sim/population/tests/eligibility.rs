//! Retirement eligibility through whole worlds and on cloned rows: the specification's order of
//! refusals (occupancy, vehicle intent, entry/exit, pending and active tasks, current events,
//! queued candidates), a missing view in the band, same-source reuse only in a later use of the
//! source, the population pause and long frames, the crossing's signal conflict at admission.

use super::*;
use crate::project::VehicleRelation;
use crate::sim::crossings::fixtures::crosswalk;
use crate::sim::state::{TaskChange, TaskHold};
use crate::sim::{
    crossings::SignalState,
    state::{CrosswalkPhase, SignalPhase},
};

/// An observer that walks 295 m away between frames 10 and 20 and stays there.
fn leaving() -> ObserverSpec {
    let mut o = behind();
    let key = |frame, y| ObserverKey {
        frame,
        position_m: [0.0, y, 1.7],
    };
    o.path = vec![key(10, 5.0), key(20, 300.0)];
    o
}

/// `(frame, reason)` of every retirement refusal of `handle`, in log order.
fn refusals(world: &World, handle: AgentHandle) -> Vec<(u64, RetireRefusal)> {
    world
        .events()
        .for_handle(handle)
        .iter()
        .filter_map(|e| match e.detail {
            EventDetail::Refusal(reason) if e.kind == EventKind::RetireRefused => {
                Some((e.frame, reason))
            }
            _ => None,
        })
        .collect()
}

/// The first and last frame each reason was given, in the order the reasons first appeared.
fn spans(refused: &[(u64, RetireRefusal)]) -> Vec<(RetireRefusal, u64, u64)> {
    let mut spans: Vec<(RetireRefusal, u64, u64)> = Vec::new();
    for (frame, reason) in refused {
        match spans.iter_mut().find(|s| s.0 == *reason) {
            Some(span) => span.2 = *frame,
            None => spans.push((*reason, *frame, *frame)),
        }
    }
    spans
}

#[test]
fn a_seat_an_entry_and_an_event_each_hold_the_ped_until_their_cause_lapses() {
    let relation = |relation| Command::SetVehicleRelation { relation };
    let directives = vec![
        at(5, born(0, 0), relation(VehicleRelation::Seated)),
        at(25, born(0, 0), relation(VehicleRelation::Entering)),
        at(30, born(0, 0), relation(VehicleRelation::None)),
        at(30, born(0, 0), Command::QueueEvent { duration_s: 1.0 }),
    ];
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![leaving()], sources, directives));
    steps(&mut world, 2);
    let a = world.births[0][0];
    steps(&mut world, 60);
    // Population runs before the Tasks phase that applies a frame's directives, so each
    // directive shows from the next frame on. The candidate queued at 30 becomes current at the
    // Tasks update of 31 and lasts 20 frames: it ends at the Tasks update of 51.
    let spans = spans(&refusals(&world, a));
    assert_eq!(spans[0].0, RetireRefusal::VehicleSeat);
    assert_eq!(spans[0].2, 25);
    assert_eq!(
        spans[1..].to_vec(),
        vec![
            (RetireRefusal::EntryExit, 26, 30),
            (RetireRefusal::QueuedEvent, 31, 31),
            (RetireRefusal::CurrentEvent, 32, 51),
        ]
    );
    let retired: Vec<u64> = events_of(&world, EventKind::Retired)
        .iter()
        .filter(|e| e.handle == Some(a))
        .map(|e| e.frame)
        .collect();
    assert_eq!(retired, [52]);
    let changes: Vec<(u64, TaskChange)> = world
        .events()
        .for_handle(a)
        .iter()
        .filter_map(|e| match e.detail {
            EventDetail::Task { change, .. } => Some((e.frame, change)),
            _ => None,
        })
        .collect();
    use crate::sim::state::IncidentChange as Change;
    assert_eq!(
        changes,
        [
            (30, TaskChange::Incident(Change::Queued)),
            (31, TaskChange::Incident(Change::Started)),
            (51, TaskChange::Incident(Change::Ended)),
        ]
    );
}

#[test]
fn a_task_waiting_for_its_path_is_pending_and_then_active() {
    let goal = Command::Rendezvous {
        goal: Vec2 { x: 40.0, y: 0.0 },
    };
    // A seat holds the ped until frame 30, when it stands up and gets its task.
    let relation = |relation| Command::SetVehicleRelation { relation };
    let directives = vec![
        at(5, born(0, 0), relation(VehicleRelation::Seated)),
        at(30, born(0, 0), relation(VehicleRelation::None)),
        at(30, born(0, 0), goal),
    ];
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![leaving()], sources, directives));
    steps(&mut world, 2);
    let a = world.births[0][0];
    steps(&mut world, 30);
    // The query is queued in the Tasks phase of 30 and answered in its Motion phase; the
    // reply is installed in the Tasks phase of 31, after that frame's Population.
    let after: Vec<(u64, RetireRefusal)> = refusals(&world, a)
        .into_iter()
        .filter(|(frame, _)| *frame > 30)
        .collect();
    assert_eq!(
        after,
        [
            (31, RetireRefusal::PendingTask),
            (32, RetireRefusal::DirectiveTask),
        ]
    );
}

#[test]
fn eligibility_checks_in_the_seeds_order() {
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 1, &[-10.0])],
        Vec::new(),
    ));
    steps(&mut world, 2);
    let mut agents = world.agents().clone();
    let boxes = Boxes::default();
    let check = |agents: &Agents, hold| eligibility(agents, 0, &boxes, hold);
    assert_eq!(check(&agents, None), Ok(()));
    agents.state[0] = AgentState::Holding;
    agents.vehicle[0] = VehicleRelation::Intent;
    agents.crosswalk[0].phase = CrosswalkPhase::Waiting;
    agents.vehicle[0] = VehicleRelation::Seated;
    let order = [
        RetireRefusal::VehicleSeat,
        RetireRefusal::CrosswalkTransaction,
        RetireRefusal::VehicleIntent,
        RetireRefusal::EntryExit,
        RetireRefusal::PendingTask,
        RetireRefusal::NonDefaultTask,
        RetireRefusal::CurrentEvent,
    ];
    // Each step lifts the cause just reported; the next cause in the order shows.
    let mut seen = Vec::new();
    let mut hold = Some(TaskHold::Pending);
    for lift in 0..order.len() {
        seen.push(check(&agents, hold).expect_err("held"));
        match lift {
            0 => agents.vehicle[0] = VehicleRelation::Intent,
            1 => agents.crosswalk[0].phase = CrosswalkPhase::Approach,
            2 => agents.vehicle[0] = VehicleRelation::Exiting,
            3 => agents.vehicle[0] = VehicleRelation::None,
            4 => hold = Some(TaskHold::CurrentEvent),
            5 => agents.state[0] = AgentState::Walking,
            _ => hold = Some(TaskHold::QueuedEvent),
        }
    }
    assert_eq!(seen, order);
    assert_eq!(check(&agents, hold), Err(RetireRefusal::QueuedEvent));
    assert_eq!(
        check(&agents, Some(TaskHold::Active)),
        Err(RetireRefusal::DirectiveTask)
    );
    agents.kind[0] = PopulationKind::Mission;
    assert_eq!(check(&agents, hold), Err(RetireRefusal::Mission));
}

#[test]
fn a_missing_view_never_authorizes_removal_in_the_band() {
    let ahead = observer(0.0, 0.0, 0.0); // looking along +X
    let mut other = observer(0.0, 0.0, 0.0);
    other.id = "other".into();
    let specs = [ahead.clone(), other.clone()];
    let valid = [
        ObserverState::initial(&ahead),
        ObserverState::initial(&other),
    ];
    let one_missing = [
        valid[0],
        ObserverState {
            fade: 0.0,
            valid: false,
        },
    ];
    // Behind both cameras, in the band (Rout 40 < 60 ≤ Rin 80).
    let feet = [-60.0, 0.0, 0.0];
    let both = Observation::take(&specs, &valid, 0);
    assert_eq!(spatial(&both, feet, 1.0, 1.0, true), Ok(RetireRule::Band));
    let missing = Observation::take(&specs, &one_missing, 0);
    assert_eq!(
        spatial(&missing, feet, 1.0, 1.0, true),
        Err(RetireRefusal::UnobservedInBand)
    );
    // Beyond Rin the valid view alone decides.
    assert_eq!(
        spatial(&missing, [-81.0, 0.0, 0.0], 1.0, 1.0, true),
        Ok(RetireRule::Range)
    );
    // The same question decides safety at retirement and at a reuse destination.
    assert!(both.offscreen_for_all(feet));
    assert!(!missing.offscreen_for_all(feet));
}

#[test]
fn a_population_pause_plans_nothing_and_keeps_what_is_owed() {
    let directives = vec![at(
        10,
        DirectiveTarget::World,
        Command::PausePopulation { duration_s: 0.5 },
    )];
    // Two candidates both inside the view: the demand stays pending through the pause.
    let mut scn = scenario(vec![behind()], vec![source("a", 3, &[-10.0])], directives);
    scn.population.clocks.ped.cycles_per_frame = 0.5;
    let mut world = world_of(scn);
    steps(&mut world, 10);
    let planned = world.population().stats.planned_ped_cycles;
    let debt = world.population().clocks.ped_debt;
    let pending = world.population().sources[0].pending;
    assert_eq!(planned, 5, "half a cycle per frame");
    assert!(pending.is_some());
    // Frames 11..=20 are paused (0.5 s from the directive at frame 10).
    steps(&mut world, 10);
    let state = world.population();
    assert_eq!(state.stats.planned_ped_cycles, planned);
    assert_eq!(state.clocks.ped_debt.to_bits(), debt.to_bits());
    assert_eq!(
        state.sources[0].pending.map(|d| d.batch),
        pending.map(|d| d.batch)
    );
    assert_eq!(state.paused_until_frame, Some(20));
    steps(&mut world, 2);
    assert_eq!(world.population().stats.planned_ped_cycles, planned + 1);
    assert_eq!(world.population().paused_until_frame, None);
}

#[test]
fn a_population_pause_at_frame_0_pauses_from_the_first_step() {
    // Before: a step applied only its own frame's directives, so a frame-0 directive never
    // applied and the population was born as if there were none.
    let pause = |frame| {
        vec![at(
            frame,
            DirectiveTarget::World,
            Command::PausePopulation { duration_s: 0.5 },
        )]
    };
    let born = |directives| {
        let scn = scenario(vec![behind()], vec![source("a", 3, &[-10.0])], directives);
        let mut world = world_of(scn);
        let mut planned = Vec::new();
        for _ in 0..12 {
            world.step();
            planned.push(world.population().stats.planned_ped_cycles);
        }
        (planned, world)
    };
    let (unpaused, _) = born(Vec::new());
    assert_eq!(unpaused[..3], [1, 2, 3], "a cycle per frame");
    let (paused, world) = born(pause(0));
    // Frames 1..=10 are paused (0.5 s from frame 0); cycles resume at frame 11.
    assert_eq!(paused[..10], [0; 10]);
    assert_eq!(paused[10..], [1, 2]);
    let applied: Vec<u64> = world
        .events()
        .of_kind(EventKind::Directive)
        .map(|e| e.frame)
        .collect();
    assert_eq!(applied, [0], "applied once, at frame 0");
    assert_eq!(world.counters().directives_applied, 1);
    // A frame-1 pause still lets the first step's cycle run (directives follow population).
    let (late, _) = born(pause(1));
    assert_eq!(late[..3], [1, 1, 1]);
}

#[test]
fn a_long_fixed_step_is_accepted_only_up_to_the_maximum_frame_time() {
    let mut scn = scenario(vec![behind()], vec![source("a", 1, &[-10.0])], Vec::new());
    scn.fixed_step_s = 0.5;
    let mut world = world_of(scn.clone());
    steps(&mut world, 10);
    // The same clocks fed the same step by hand: 0.5 s accepted as 0.1 s each update.
    let mut clocks = CycleClocks::default();
    let mut expected = CyclePlan::default();
    for _ in 0..10 {
        let plan = clocks.advance(&scn.population.clocks, 0.5, true);
        expected.vehicle += plan.vehicle;
        expected.ped += plan.ped;
    }
    let stats = world.population().stats;
    assert_eq!(expected.vehicle, 20, "0.1 s × 20 cycles/s per update");
    assert_eq!(u64::from(expected.vehicle), stats.planned_vehicle_cycles);
    assert_eq!(u64::from(expected.ped), stats.planned_ped_cycles);
    assert_eq!(world.population().clocks, clocks);
}

#[test]
fn a_candidate_on_a_crossing_conflicts_unless_its_signal_shows_the_walk_phase() {
    let crossings = [crosswalk(5.0, 6.0)];
    let signal = |phase| SignalState {
        phase,
        ..SignalState::new()
    };
    let green = [signal(SignalPhase::VehicleGreen)];
    let stop = [signal(SignalPhase::AllStop)];
    let walk = [signal(SignalPhase::PedestrianCrossing)];
    let mid = [1.9, 0.0, 0.0];
    assert!(against_signal(&crossings, &green, mid));
    assert!(against_signal(&crossings, &stop, mid));
    assert!(!against_signal(&crossings, &walk, mid));
    // Half the width is the edge (inclusive); the kerbs and beyond are sidewalk.
    assert!(against_signal(&crossings, &green, [2.0, 0.0, 0.0]));
    assert!(!against_signal(&crossings, &green, [2.01, 0.0, 0.0]));
    assert!(!against_signal(&crossings, &green, [0.0, 5.0, 0.0]));
    assert!(!against_signal(&crossings, &green, [0.0, -6.0, 0.0]));
    // A signal the world does not have holds nothing back.
    assert!(!against_signal(&crossings, &[], mid));
}

#[test]
fn a_retired_ped_rejoins_its_own_source_only_in_a_later_use() {
    let directives = vec![at(
        3,
        born(0, 0),
        Command::SetRemovalMultiplier { multiplier: 0.01 },
    )];
    let mut world = world_of(scenario(
        vec![away_and_back()],
        vec![source("a", 1, &[-10.0])],
        directives,
    ));
    steps(&mut world, 2);
    let first = world.births[0][0];
    assert_eq!(world.population().sources[0].generation, 1);
    steps(&mut world, 6);
    // Retired at frame 4 in use 1; the source's next candidate was admitted at once, still in
    // use 1, so the pooled ped could not serve it and a new ped was born.
    let entries = &world.population().pool.entries;
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].handle, entries[0].source_generation),
        (first, 1)
    );
    assert_eq!(world.births[0].len(), 2);
    assert!(events_of(&world, EventKind::Acquired).is_empty());
    // The observer leaves (frames 10–20): the second ped retires and the source's candidates
    // are out of range, which ends use 1. Back at frame 70, the first admission begins use 2,
    // in which the older pool entry, the first ped, rejoins its source.
    steps(&mut world, 72);
    assert!(rejections(&world, 0, SpawnRejection::OutOfRange) > 0);
    let acquired: Vec<_> = events_of(&world, EventKind::Acquired)
        .iter()
        .map(|e| e.handle)
        .collect();
    assert_eq!(acquired, [Some(first)]);
    assert_eq!(world.population().sources[0].generation, 2);
    assert_eq!(world.births[0].len(), 2, "no third ped was created");
}

#[test]
fn a_snapshot_whose_route_end_rule_is_not_its_sources_is_refused_whole() {
    let mut world = world_of(scenario(
        vec![behind()],
        vec![source("a", 2, &[-10.0, 10.0])],
        Vec::new(),
    ));
    steps(&mut world, 3);
    let before = world.state_digest();
    let mut snapshot = world.snapshot();
    // The source turns back at its route's end; a row that says it stops is not its source's.
    snapshot.agents_mut().stops_at_route_end[0] = true;
    assert_eq!(
        world.restore(&snapshot),
        Err(crate::sim::SnapshotError::Inconsistent(
            "an agent's route-end rule is not its source's"
        ))
    );
    assert_eq!(world.state_digest(), before, "nothing was applied");
    // Undamaged, the same snapshot restores.
    assert_eq!(world.restore(&world.snapshot()), Ok(()));
}

/// Frames at which `handle` retired, and its refusals after `from`.
fn retired_and_refused(
    world: &World,
    handle: AgentHandle,
    from: u64,
) -> (Vec<u64>, Vec<RetireRefusal>) {
    let retired = events_of(world, EventKind::Retired)
        .iter()
        .filter(|e| e.handle == Some(handle))
        .map(|e| e.frame)
        .collect();
    let mut refused: Vec<RetireRefusal> = refusals(world, handle)
        .into_iter()
        .filter(|(frame, _)| *frame >= from)
        .map(|(_, reason)| reason)
        .collect();
    refused.dedup();
    (retired, refused)
}

#[test]
fn a_finished_task_no_longer_protects_the_ped() {
    // A short rendezvous (2 m along the route) completes before the observer leaves, which
    // it does between frames 60 and 70.
    let goal = Command::Rendezvous {
        goal: Vec2 { x: -8.0, y: 0.0 },
    };
    let mut observer = behind();
    observer.path = vec![
        ObserverKey {
            frame: 60,
            position_m: [0.0, 5.0, 1.7],
        },
        ObserverKey {
            frame: 70,
            position_m: [0.0, 300.0, 1.7],
        },
    ];
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(
        vec![observer],
        sources,
        vec![at(3, born(0, 0), goal)],
    ));
    steps(&mut world, 2);
    let a = world.births[0][0];
    // The walking profile's start and goal stop (and a turn clip) take longer than a constant
    // speed did: step until the parent completes.
    for _ in 0..120 {
        let done = world.tasks().parents.get(&a).map(|p| p.state)
            == Some(crate::sim::tasks::parent::ParentState::Completed);
        if done {
            break;
        }
        steps(&mut world, 1);
    }
    let row = world.resolve(a).expect("alive");
    let parent = world.tasks().parents.get(&a).map(|p| p.state);
    assert_eq!(
        parent,
        Some(crate::sim::tasks::parent::ParentState::Completed)
    );
    assert_eq!(
        world.agents().state[row],
        AgentState::Walking,
        "an ambient walker again"
    );
    assert_eq!(world.agents().target[row], None);
    steps(&mut world, 30);
    let (retired, refused) = retired_and_refused(&world, a, 0);
    assert_eq!(
        retired.len(),
        1,
        "retired under the normal rules: {refused:?}"
    );
    assert!(
        !refused.contains(&RetireRefusal::NonDefaultTask),
        "{refused:?}"
    );
}

#[test]
fn a_cancelled_task_no_longer_protects_the_ped() {
    let goal = Command::Rendezvous {
        goal: Vec2 { x: 40.0, y: 0.0 },
    };
    let directives = vec![at(3, born(0, 0), goal), at(8, born(0, 0), Command::Cancel)];
    let sources = vec![source("a", 1, &[-10.0])];
    let mut world = world_of(scenario(vec![leaving()], sources, directives));
    steps(&mut world, 2);
    let a = world.births[0][0];
    steps(&mut world, 7);
    let row = world.resolve(a).expect("alive");
    assert_eq!(world.agents().state[row], AgentState::Walking);
    steps(&mut world, 31);
    let (retired, refused) = retired_and_refused(&world, a, 0);
    assert_eq!(
        retired.len(),
        1,
        "retired under the normal rules: {refused:?}"
    );
    assert!(
        !refused.contains(&RetireRefusal::NonDefaultTask),
        "{refused:?}"
    );
}
