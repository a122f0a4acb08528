//! The structured event log (`runtime::export::events`, `simulate --events`) over example
//! scenarios: each position an event carries is where the agent or candidate was at that frame
//! — a retired ped's position when it left, a new ped's position when it was born, an admitted
//! or refused candidate's drawn position — and the state digest is what it was without
//! positions (the goldens of the scenario tests pin it).

mod example_world;

use std::collections::BTreeMap;

use stagecraft_runtime::export::events::events_json;
use stagecraft_runtime::sim::{AgentHandle, Event, EventDetail, EventKind, World};

/// Every live or pooled agent's ground position, by handle.
fn positions(world: &World) -> BTreeMap<AgentHandle, [f64; 2]> {
    let agents = world.agents();
    (0..agents.len())
        .filter_map(|row| {
            let p = agents.position[row];
            world.handle_of(row).map(|h| (h, [p.x, p.y]))
        })
        .collect()
}

/// Counts of events checked, per kind name.
type Checked = BTreeMap<&'static str, u64>;

/// Steps `world` for `frames` frames; checks the position of every event of each frame against
/// the world and returns, by sequence number, the positions the events must show in the JSON.
fn run_and_check(world: &mut World, frames: u64, checked: &mut Checked) -> BTreeMap<u64, [f64; 2]> {
    let mut expected = BTreeMap::new();
    for _ in 0..frames {
        let before = positions(world);
        world.step();
        let after = positions(world);
        let marks = world.last_candidates().to_vec();
        let events: Vec<Event> = world.events().at_frame(world.frame());
        let admitted: Vec<[f64; 2]> = marks
            .iter()
            .filter(|m| m.rejection.is_none())
            .map(|m| [m.position.x, m.position.y])
            .collect();
        let mut admitted_events = 0;
        for event in &events {
            let Some(at) = event.position.map(|p| [p.x_m, p.y_m]) else {
                continue;
            };
            expected.insert(event.seq, at);
            let handle = event.handle;
            match event.kind {
                EventKind::Retired | EventKind::RetireRefused => {
                    let h = handle.expect("a ped");
                    assert_eq!(Some(&at), before.get(&h), "{event:?}");
                    if let Some(now) = after.get(&h) {
                        if world.resolve(h).is_some_and(|r| world.agents().pooled[r]) {
                            assert_eq!(*now, at, "a pooled ped stays where it retired");
                        }
                    }
                    *checked.entry("retired").or_default() += 1;
                }
                EventKind::Realized => {
                    let h = handle.expect("a ped");
                    assert!(admitted.contains(&at), "{event:?} at an admitted candidate");
                    if !before.contains_key(&h) {
                        assert_eq!(
                            after.get(&h),
                            Some(&at),
                            "a new ped stands where it was born"
                        );
                        *checked.entry("born").or_default() += 1;
                    }
                    *checked.entry("realized").or_default() += 1;
                }
                EventKind::Admitted => {
                    assert!(admitted.contains(&at), "{event:?}");
                    admitted_events += 1;
                    *checked.entry("admitted").or_default() += 1;
                }
                EventKind::Rejected => {
                    let EventDetail::Rejection(reason) = event.detail else {
                        panic!("{event:?}");
                    };
                    assert!(
                        marks
                            .iter()
                            .any(|m| m.rejection == Some(reason)
                                && [m.position.x, m.position.y] == at),
                        "{event:?} at a refused candidate"
                    );
                    *checked.entry("rejected").or_default() += 1;
                }
                other => panic!("{other:?} carries no position"),
            }
        }
        assert_eq!(admitted_events, admitted.len(), "frame {}", world.frame());
    }
    expected
}

fn check_scenario(project: &str, scenario: &str, frames: u64) -> Checked {
    let mut world = example_world::example_world(project, project, scenario);
    let mut checked = Checked::new();
    let expected = run_and_check(&mut world, frames, &mut checked);
    let sources: Vec<&str> = world
        .config()
        .sources
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    let json = events_json(world.events(), &sources);
    let mut shown = 0;
    for event in &json.events {
        assert_eq!(
            event.position_m,
            expected.get(&event.seq).copied(),
            "{event:?}"
        );
        shown += u64::from(event.position_m.is_some());
    }
    assert!(shown > 0);
    checked
}

#[test]
fn retirement_and_reuse_events_are_where_the_ped_was() {
    let checked = check_scenario("street-lifecycle", "retire-reuse", 300);
    assert!(checked["retired"] >= 2, "{checked:?}");
    assert!(checked["born"] >= 2, "{checked:?}");
    assert!(
        checked["realized"] > checked["born"],
        "reused peds too: {checked:?}"
    );
    assert!(checked["rejected"] > 0, "{checked:?}");
}

#[test]
fn refused_candidates_are_where_they_were_drawn() {
    let checked = check_scenario("street-lifecycle", "occupied-spawn", 200);
    assert!(checked["rejected"] > 0, "{checked:?}");
    assert!(checked["admitted"] > 0, "{checked:?}");
}

#[test]
fn a_crowded_street_logs_positions_for_every_lifecycle_event() {
    let checked = check_scenario("street-block", "crosswalk-rush", 300);
    assert!(checked["admitted"] >= checked["realized"], "{checked:?}");
    assert!(checked["realized"] > 10, "{checked:?}");
}
