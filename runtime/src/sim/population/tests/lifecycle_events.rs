//! Events and counts that say what happened: a batch blocked on resources is never admitted
//! (and begins no new use of its source), pooled peds are pooled in every count (never
//! walking), and a retirement says which rule took the ped.

use super::*;
use crate::sim::state::RemovalCause;

fn world_toggle(frame: u64, command: Command) -> DirectiveSpec {
    at(frame, DirectiveTarget::World, command)
}

#[test]
fn a_batch_blocked_on_resources_is_refused_never_admitted() {
    let mut s = source("a", 2, &[-10.0, 10.0]);
    s.family = Some(0);
    let family = |available| Command::SetFamilyAvailable {
        family: 0,
        available,
    };
    let valid = |valid| Command::SetObserverValid { observer: 0, valid };
    // Frame 1 births the first ped. The view is invalid for frames 2–3 (an observer refusal
    // ends the source's use); the family is unavailable for frames 4–5, while the view is
    // valid again; frame 6 admits and realizes the second ped.
    let directives = vec![
        world_toggle(1, valid(false)),
        world_toggle(3, valid(true)),
        world_toggle(3, family(false)),
        world_toggle(5, family(true)),
    ];
    let mut scn = scenario(vec![behind()], vec![s], directives);
    scn.families = vec!["adult".into()];
    let mut world = world_of(scn);
    let mut generations = Vec::new();
    for _ in 0..6 {
        world.step();
        generations.push(world.population().sources[0].generation);
    }
    assert_eq!(rejections(&world, 0, SpawnRejection::NoValidView), 2);
    assert_eq!(rejections(&world, 0, SpawnRejection::ResourcesNotReady), 2);
    let admitted: Vec<u64> = events_of(&world, EventKind::Admitted)
        .iter()
        .map(|e| e.frame)
        .collect();
    assert_eq!(
        admitted,
        [1, 6],
        "nothing admitted while resources were not ready"
    );
    assert_eq!(
        generations,
        [1, 1, 1, 1, 1, 2],
        "only the batch that was admitted began a new use"
    );
    assert_eq!(world.agents().len(), 2);
}

#[test]
fn pooled_peds_are_pooled_in_every_count_never_walking() {
    let sources = vec![source("a", 1, &[-10.0]), source("b", 1, &[10.0])];
    let mut world = world_of(scenario(vec![away_and_back()], sources, Vec::new()));
    steps(&mut world, 5);
    assert_eq!(world.counters().walking, 2);
    steps(&mut world, 45);
    let counters = world.counters();
    assert_eq!(counters.pooled, 2, "both retired into the pool");
    assert_eq!(
        (counters.walking, counters.holding, counters.travelling),
        (0, 0, 0),
        "a pooled ped is not walking"
    );
    let states: Vec<AgentState> = world.agents().state.clone();
    assert_eq!(states, [AgentState::Pooled, AgentState::Pooled]);
    let behaviours: Vec<AgentState> = world.motion_frames().iter().map(|f| f.behaviour).collect();
    assert_eq!(behaviours, [AgentState::Pooled, AgentState::Pooled]);
    // Readmitted, each walks again.
    steps(&mut world, 50);
    assert_eq!(world.counters().pooled, 0);
    assert_eq!(world.counters().walking, 2);
}

#[test]
fn a_retirement_says_which_rule_took_the_ped() {
    let multiplier = |m| Command::SetRemovalMultiplier { multiplier: m };
    // The view is at (0, 5) looking away from the route: a at x = −10 (11.2 m away) falls in
    // the band once its radii shrink to 8 / 16 m, c at x = 20 beyond the remove radius once
    // they shrink to 0.4 / 0.8 m; b is destroyed by a directive.
    let sources = vec![
        source("a", 1, &[-10.0]),
        source("b", 1, &[10.0]),
        source("c", 1, &[20.0]),
    ];
    let directives = vec![
        at(5, born(0, 0), multiplier(0.2)),
        at(5, born(1, 0), Command::Destroy),
        at(5, born(2, 0), multiplier(0.01)),
    ];
    let mut world = world_of(scenario(vec![behind()], sources, directives));
    steps(&mut world, 10);
    let first = |source: usize| world.births[source][0];
    let retired = |handle| {
        world
            .events()
            .for_handle(handle)
            .iter()
            .find(|e| e.kind == EventKind::Retired)
            .map(|e| e.detail)
    };
    assert_eq!(
        retired(first(0)),
        Some(EventDetail::Retirement {
            pooled: true,
            rule: RetireRule::Band
        })
    );
    assert_eq!(
        retired(first(1)),
        Some(EventDetail::Retirement {
            pooled: false,
            rule: RetireRule::ExplicitDestroy
        })
    );
    assert_eq!(
        retired(first(2)),
        Some(EventDetail::Retirement {
            pooled: true,
            rule: RetireRule::Range
        })
    );
    let destroyed: Vec<EventDetail> = world
        .events()
        .for_handle(first(1))
        .iter()
        .filter(|e| e.kind == EventKind::Destroyed)
        .map(|e| e.detail)
        .collect();
    assert_eq!(destroyed, [EventDetail::Removal(RemovalCause::Explicit)]);
}
