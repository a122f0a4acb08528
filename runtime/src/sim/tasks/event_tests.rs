//! Events with a lifecycle against the tasks specification: queuing and processing are separate
//! steps, an externally supplied endpoint is checked against safe + 0.15 m at queuing, the
//! processing checks (identity, pending slot, suppression, vehicle, another source's task), the
//! interrupted goal kept for diagnostics and not restored (restoring is the directive's
//! option; the start count stays 1), cleanup by type, source and tag, and command identity
//! (named sources, session tags).

use std::sync::Arc;

use super::parent::{ParentKind, ParentState};
use crate::project::{
    Directive, DirectiveCommand, PopulationKind, PopulationSource, RouteEnd, Scenario, SceneObject,
    Target, Vec2, Vec3, VehicleRelation,
};
use crate::sim::state::{
    IncidentChange, InstallRefusal, PedEventEnd, PedEventState, PedEventType, TaskChange, TaskHold,
};
use crate::sim::{build_world, AgentHandle, CompiledScenario, EventDetail, EventKind};
use crate::sim::{SimRoute, SimSpace, World};

fn v3(x: f64, y: f64) -> Vec3 {
    Vec3 { x, y, z: 0.0 }
}

fn scenario(directives: Vec<Directive>) -> Scenario {
    Scenario {
        id: "events".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 2000,
        sources: vec![PopulationSource {
            id: "ped".into(),
            kind: PopulationKind::Ambient,
            route: "plaza".into(),
            target_count: 1,
            walk_speed_m_s: 1.5,
            candidates_m: vec![5.0],
            at_route_end: RouteEnd::Stop,
            ..Default::default()
        }],
        objects: vec![SceneObject {
            id: "car-1".into(),
            position: Vec3 {
                x: 10.0,
                y: 2.0,
                z: 0.0,
            },
            yaw_rad: -std::f64::consts::FRAC_PI_2,
            scale: Vec3 {
                x: 1.0,
                y: 1.0,
                z: 1.0,
            },
            half_extents_m: Vec3 {
                x: 0.9,
                y: 2.2,
                z: 0.7,
            },
        }],
        directives,
        ..Scenario::default()
    }
}

fn world(directives: Vec<Directive>) -> World {
    let routes = vec![SimRoute::new(
        "plaza",
        vec![Vec2 { x: -20.0, y: 0.0 }, Vec2 { x: 20.0, y: 0.0 }],
    )
    .expect("route")
    .with_width_m(10.0)];
    let space = Arc::new(SimSpace::from_routes(routes).expect("space"));
    let compiled = Arc::new(CompiledScenario::compile(&scenario(directives)).expect("compiles"));
    build_world(&space, &compiled, 3).expect("world")
}

fn at(frame: u64, command: DirectiveCommand) -> Directive {
    let target = Target::Born {
        source: "ped".into(),
        ordinal: 0,
    };
    Directive::new(frame, target, command)
}

fn by(source: &str, session: u32, mut directive: Directive) -> Directive {
    directive.source = source.into();
    directive.session = session;
    directive
}

fn run_to(w: &mut World, frame: u64) {
    while w.frame() < frame {
        w.step();
    }
}

fn ped(w: &World) -> AgentHandle {
    w.births_of(0)[0]
}

/// Threat (3, 0), safe 4 m; the ped stands at (5, 0).
fn flee(endpoint: Option<Vec3>) -> DirectiveCommand {
    DirectiveCommand::Escape {
        threat: v3(3.0, 0.0),
        safe_distance_m: 4.0,
        endpoint,
        restore_interrupted: false,
    }
}

fn meet() -> DirectiveCommand {
    DirectiveCommand::RendezvousWith {
        object: "car-1".into(),
        offset: v3(-2.5, 0.0),
    }
}

fn changes(w: &World) -> Vec<(u64, u32, TaskChange)> {
    w.events()
        .of_kind(EventKind::Task)
        .filter_map(|e| match e.detail {
            EventDetail::Task {
                session, change, ..
            } => Some((e.frame, session, change)),
            _ => None,
        })
        .collect()
}

fn refusals(w: &World) -> Vec<(u64, InstallRefusal)> {
    changes(w)
        .into_iter()
        .filter_map(|(frame, _, c)| match c {
            TaskChange::Refused(why) => Some((frame, why)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_escape_is_queued_at_its_frame_and_started_by_the_next_tasks_update() {
    let mut w = world(vec![at(20, flee(None))]);
    run_to(&mut w, 20);
    let h = ped(&w);
    let event = w.tasks().events.of(h).next().cloned().expect("queued");
    assert_eq!(
        (event.kind, event.state, event.source.as_str(), event.tag),
        (PedEventType::Threat, PedEventState::Queued, "script", 1)
    );
    assert_eq!(event.queued_frame, 20);
    assert!(w.tasks().parents.is_empty(), "no task before processing");
    assert_eq!(w.tasks().pending.get(&h), Some(&event.id));
    assert_eq!(w.tasks().hold_of(h), Some(TaskHold::QueuedEvent));
    // The selected endpoint is beyond safe + 0.15 m from the threat.
    let e = event.endpoint;
    assert!((e[0] - 3.0).hypot(e[1]) > 4.15, "{e:?}");
    assert!(!event.supplied_endpoint);
    run_to(&mut w, 21);
    let event = w.tasks().events.get(event.id).cloned().expect("kept");
    assert_eq!(
        (event.state, event.active_frame),
        (PedEventState::Active, Some(21))
    );
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.session, parent.kind_name()), (1, "escape"));
    assert_eq!(parent.goal, event.endpoint);
    assert!(w.tasks().pending.is_empty());
    run_to(&mut w, 400);
    let event = w.tasks().events.get(event.id).cloned().expect("kept");
    assert_eq!(event.state, PedEventState::Ended);
    assert_eq!(event.end, Some(PedEventEnd::Completed));
    let completed = changes(&w)
        .iter()
        .find(|c| c.2 == TaskChange::Completed)
        .map(|c| c.0);
    assert_eq!(event.ended_frame, completed, "the response's end ends it");
    let lifecycle: Vec<(u64, IncidentChange)> = changes(&w)
        .into_iter()
        .filter_map(|(frame, _, c)| match c {
            TaskChange::Incident(c) => Some((frame, c)),
            _ => None,
        })
        .collect();
    assert_eq!(
        lifecycle,
        [
            (20, IncidentChange::Queued),
            (21, IncidentChange::Started),
            (completed.expect("completed"), IncidentChange::Ended),
        ]
    );
}

#[test]
fn a_supplied_endpoint_must_be_beyond_safe_plus_fifteen_centimetres_at_queuing() {
    // Threat (3, 0), safe 4 m: (-1.15, 0) is exactly 4.15 m away (refused), (-1.2, 0) 4.2 m.
    let mut w = world(vec![
        at(10, flee(Some(v3(-1.15, 0.0)))),
        at(12, flee(Some(v3(-1.2, 0.0)))),
    ]);
    run_to(&mut w, 11);
    let h = ped(&w);
    assert_eq!(
        refusals(&w),
        [(10, InstallRefusal::EscapeGoalTooClose)],
        "refused with its reason, at queuing"
    );
    assert_eq!(w.tasks().events.of(h).count(), 0, "no event recorded");
    run_to(&mut w, 13);
    let event = w.tasks().events.of(h).next().cloned().expect("queued");
    assert!(event.supplied_endpoint);
    assert_eq!(event.endpoint, [-1.2, 0.0, 0.0]);
    assert_eq!(w.tasks().parents[&h].goal, [-1.2, 0.0, 0.0]);
    assert_eq!(
        w.tasks().escapes.get(&h),
        None,
        "a supplied endpoint runs no selection"
    );
}

#[test]
fn the_interrupted_goal_is_kept_for_diagnostics_and_not_restored() {
    let mut w = world(vec![at(5, meet()), at(20, flee(None))]);
    run_to(&mut w, 21);
    let h = ped(&w);
    let event = w.tasks().events.of(h).next().cloned().expect("event");
    // car-1 faces −Y: its local −X offset of 2.5 m is (10, 4.5).
    let goal = event.interrupted_goal.expect("kept");
    assert!((goal[0] - 10.0).abs() < 1e-9 && (goal[1] - 4.5).abs() < 1e-9);
    assert!(w.tasks().suspended.is_empty(), "replaced, not suspended");
    let replaced: Vec<u32> = changes(&w)
        .iter()
        .filter(|c| c.2 == TaskChange::Replaced)
        .map(|c| c.1)
        .collect();
    assert_eq!(replaced, [1], "the rendezvous of session 1");
    run_to(&mut w, 900);
    let parent = &w.tasks().parents[&h];
    assert_eq!((parent.session, parent.state), (2, ParentState::Completed));
    assert!(matches!(
        parent.kind,
        ParentKind::Escape { start_count: 1, .. }
    ));
    assert!(
        !changes(&w).iter().any(|c| c.2 == TaskChange::Restored),
        "never restored automatically"
    );
    assert_eq!(w.agents().target[w.resolve(h).expect("alive")], None);
}

#[test]
fn restoring_is_the_directives_option_and_the_start_count_stays_one() {
    let back = DirectiveCommand::Escape {
        threat: v3(3.0, 0.0),
        safe_distance_m: 4.0,
        endpoint: None,
        restore_interrupted: true,
    };
    let mut w = world(vec![at(5, meet()), at(20, back)]);
    run_to(&mut w, 21);
    let h = ped(&w);
    assert_eq!(w.tasks().suspended[&h].parent.session, 1);
    run_to(&mut w, 900);
    let restored: Vec<u32> = changes(&w)
        .iter()
        .filter(|c| c.2 == TaskChange::Restored)
        .map(|c| c.1)
        .collect();
    assert_eq!(restored, [1]);
    assert_eq!(
        w.tasks().parents[&h].state,
        ParentState::Completed,
        "the rendezvous"
    );
    let escape = w.tasks().events.of(h).next().expect("event");
    assert_eq!(escape.end, Some(PedEventEnd::Completed));
    let starts = changes(&w)
        .iter()
        .filter(|c| c.2 == TaskChange::Incident(IncidentChange::Started))
        .count();
    assert_eq!(starts, 1, "started once");
}

#[test]
fn processing_refuses_a_threat_whose_ped_took_a_seat_after_queuing() {
    let seated = DirectiveCommand::SetVehicleRelation {
        relation: VehicleRelation::Seated,
    };
    let mut w = world(vec![at(20, flee(None)), at(20, seated)]);
    run_to(&mut w, 21);
    let h = ped(&w);
    let event = w.tasks().events.of(h).next().cloned().expect("event");
    assert_eq!(
        (event.state, event.end),
        (
            PedEventState::Ended,
            Some(PedEventEnd::Refused(InstallRefusal::Occupancy))
        )
    );
    assert_eq!(event.ended_frame, Some(21));
    assert!(w.tasks().parents.is_empty(), "no response started");
    assert_eq!(refusals(&w), [(21, InstallRefusal::Occupancy)]);
}

#[test]
fn a_same_source_task_taking_the_pending_slot_refuses_the_queued_threat() {
    let mut w = world(vec![at(20, flee(None)), at(20, meet())]);
    run_to(&mut w, 21);
    let h = ped(&w);
    let event = w.tasks().events.of(h).next().cloned().expect("event");
    assert_eq!(
        event.end,
        Some(PedEventEnd::Refused(InstallRefusal::PendingSlot))
    );
    assert_eq!(w.tasks().parents[&h].kind_name(), "rendezvous");
}

#[test]
fn another_sources_pending_or_active_task_blocks_installation() {
    // The alarm's threat is pending at 20: the script's rendezvous is refused; at 21 the
    // escape runs and the script's rendezvous is refused again; the alarm's own is not.
    let mut w = world(vec![
        by("alarm", 0, at(20, flee(None))),
        at(20, meet()),
        at(22, meet()),
        by("alarm", 0, at(24, meet())),
    ]);
    run_to(&mut w, 25);
    let h = ped(&w);
    assert_eq!(
        refusals(&w),
        [
            (20, InstallRefusal::OtherSourceTask),
            (22, InstallRefusal::OtherSourceTask),
        ]
    );
    let parent = &w.tasks().parents[&h];
    assert_eq!(
        (parent.source.as_str(), parent.kind_name()),
        ("alarm", "rendezvous")
    );
    let event = w.tasks().events.of(h).next().expect("event");
    assert_eq!((event.source.as_str(), event.tag), ("alarm", 1));
    assert_eq!(event.end, Some(PedEventEnd::Replaced));
}

#[test]
fn another_sources_active_task_refuses_the_threat_at_processing() {
    let mut w = world(vec![by("courier", 0, at(5, meet())), at(20, flee(None))]);
    run_to(&mut w, 21);
    let h = ped(&w);
    assert_eq!(refusals(&w), [(21, InstallRefusal::OtherSourceTask)]);
    assert_eq!(w.tasks().parents[&h].source, "courier");
}

#[test]
fn a_second_threat_while_one_is_queued_is_refused() {
    let mut w = world(vec![at(20, flee(None)), at(20, flee(None))]);
    run_to(&mut w, 21);
    assert_eq!(refusals(&w), [(20, InstallRefusal::ResponsePending)]);
    assert_eq!(w.tasks().events.records.len(), 1);
}

#[test]
fn commands_carry_the_session_tag_and_source_they_target() {
    let mut w = world(vec![
        at(5, meet()),
        by("alarm", 0, at(20, DirectiveCommand::Hold)),
        by("script", 7, at(21, DirectiveCommand::Hold)),
        by("script", 1, at(22, DirectiveCommand::Hold)),
    ]);
    run_to(&mut w, 23);
    let h = ped(&w);
    assert_eq!(
        refusals(&w),
        [
            (20, InstallRefusal::NotTaskSource),
            (21, InstallRefusal::SessionMismatch),
        ]
    );
    let parent = &w.tasks().parents[&h];
    assert_eq!(
        (parent.session, parent.state, parent.commands),
        (1, ParentState::WaitingForSignal, 2)
    );
}

#[test]
fn clear_events_by_tag_ends_the_event_and_cancels_its_escape_only() {
    let clear = |tag| DirectiveCommand::ClearEvents {
        event_type: String::new(),
        event_source: String::new(),
        tag,
    };
    let world_at = |frame, command| Directive::new(frame, Target::World, command);
    let incident = DirectiveCommand::QueueEvent { duration_s: 50.0 };
    let mut w = world(vec![
        at(10, incident),
        at(20, flee(None)),
        world_at(30, clear(9)),
        world_at(31, clear(2)),
    ]);
    run_to(&mut w, 30);
    let h = ped(&w);
    let live = |w: &World| {
        w.tasks()
            .events
            .of(h)
            .filter(|e| e.is_live())
            .map(|e| (e.kind, e.tag))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        live(&w),
        [(PedEventType::Incident, 1), (PedEventType::Threat, 2)]
    );
    run_to(&mut w, 31);
    assert_eq!(
        live(&w),
        [(PedEventType::Incident, 1)],
        "the incident stays"
    );
    let threat = w.tasks().events.of(h).nth(1).expect("threat");
    assert_eq!(threat.end, Some(PedEventEnd::Cleaned));
    assert_eq!(w.tasks().parents[&h].state, ParentState::Cancelled);
    assert_eq!(w.tasks().hold_of(h), Some(TaskHold::CurrentEvent));
}

#[test]
fn clear_events_by_source_or_by_type_ends_only_the_matching_events() {
    let clear = |event_type: &str, event_source: &str| DirectiveCommand::ClearEvents {
        event_type: event_type.into(),
        event_source: event_source.into(),
        tag: 0,
    };
    let world_at = |frame, command| Directive::new(frame, Target::World, command);
    let mut w = world(vec![
        at(10, DirectiveCommand::QueueEvent { duration_s: 50.0 }),
        by("alarm", 0, at(20, flee(None))),
        world_at(30, clear("", "script")),
        world_at(31, clear("threat", "")),
    ]);
    run_to(&mut w, 30);
    let h = ped(&w);
    let ends = |w: &World| {
        w.tasks()
            .events
            .of(h)
            .map(|e| (e.kind, e.source.clone(), e.end))
            .collect::<Vec<_>>()
    };
    // By source: the script's incident ends, the alarm's escape runs on.
    assert_eq!(
        ends(&w),
        [
            (
                PedEventType::Incident,
                "script".to_owned(),
                Some(PedEventEnd::Cleaned)
            ),
            (PedEventType::Threat, "alarm".to_owned(), None),
        ]
    );
    assert_eq!(w.tasks().parents[&h].state, ParentState::Travelling);
    // By type: the threat ends and its escape (the alarm's own session) is cancelled.
    run_to(&mut w, 31);
    assert_eq!(
        ends(&w)[1],
        (
            PedEventType::Threat,
            "alarm".to_owned(),
            Some(PedEventEnd::Cleaned)
        )
    );
    let parent = &w.tasks().parents[&h];
    assert_eq!(
        (parent.source.as_str(), parent.state),
        ("alarm", ParentState::Cancelled)
    );
}

#[test]
fn a_knockdown_between_queuing_and_processing_refuses_the_threat_as_suppressed() {
    // Queued at 20; the body is suspended the same frame, so processing at 21 refuses it
    // (suppression) and no escape starts.
    let down = DirectiveCommand::Knockdown {
        impulse_n_s: Vec3 {
            x: 0.0,
            y: 300.0,
            z: 0.0,
        },
    };
    let mut w = world(vec![at(20, flee(None)), at(20, down)]);
    run_to(&mut w, 21);
    let h = ped(&w);
    let event = w.tasks().events.of(h).next().cloned().expect("event");
    assert_eq!(event.queued_frame, 20);
    assert_eq!(
        (event.state, event.end, event.ended_frame),
        (
            PedEventState::Ended,
            Some(PedEventEnd::Refused(InstallRefusal::BodySuspended)),
            Some(21)
        )
    );
    assert!(w.tasks().parents.is_empty(), "no response started");
    assert!(w.tasks().pending.is_empty(), "the pending slot is freed");
}

/// The escape's motion profile index, its largest step budget and largest measured speed over
/// frames 11..60 (the threat is queued at frame 10 with `profile` named).
fn escape_gait(profile: Option<&str>) -> (u16, Option<u16>, f64, f64) {
    let mut escape = at(10, flee(None));
    escape.motion_profile = profile.map(str::to_owned);
    let mut w = world(vec![escape]);
    run_to(&mut w, 11);
    let h = ped(&w);
    let event = w.tasks().events.records[0].profile;
    let (mut budget, mut speed) = (0.0_f64, 0.0_f64);
    while w.frame() < 60 {
        w.step();
        if let Some(m) = w.tasks().movements.get(&h) {
            budget = budget.max(m.gait.budget_m);
            speed = speed.max(m.speed_m_s);
        }
    }
    (w.tasks().movements[&h].gait.profile, event, budget, speed)
}

#[test]
fn an_escape_runs_with_the_running_profile_unless_its_directive_names_another() {
    use super::gait::{RUNNING_INDEX, WALKING_INDEX};
    // Running: 3.30 m/s × 0.05 s per step, never faster (the escape starts at that speed,
    // not the ambient flee speed).
    let (profile, event, budget, speed) = escape_gait(None);
    assert_eq!((profile, event), (RUNNING_INDEX, None));
    assert!((budget - 0.165).abs() < 1e-12, "{budget}");
    assert!(speed <= 3.3 + 1e-9 && speed > 3.0, "{speed}");
    // Named: the event carries it, and the escape walks at 1.40 m/s.
    let (profile, event, budget, speed) = escape_gait(Some("walking"));
    assert_eq!((profile, event), (WALKING_INDEX, Some(WALKING_INDEX)));
    assert!((budget - 0.07).abs() < 1e-12, "{budget}");
    assert!(speed <= 1.4 + 1e-9 && speed > 1.2, "{speed}");
}
