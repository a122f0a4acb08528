//! Commands during a knockdown check control eligibility: an install or a hold is refused and
//! changes nothing (the retained intent included), a redirect is kept without a query and
//! executed from where the body lies once it recovers, and the movement's suspension and
//! resumption are task events.

use super::*;
use crate::sim::state::{InstallRefusal, TaskChange};

/// `(frame, generation, change)` of every task event of `handle`.
fn changes(w: &World, handle: AgentHandle) -> Vec<(u64, u32, TaskChange)> {
    w.events()
        .for_handle(handle)
        .iter()
        .filter_map(|e| match e.detail {
            EventDetail::Task {
                generation, change, ..
            } => Some((e.frame, generation, change)),
            _ => None,
        })
        .collect()
}

/// Steps until `handle` is no longer knocked down; the frame it recovered at.
fn until_recovered(w: &mut World, handle: AgentHandle) -> u64 {
    for _ in 0..200 {
        w.step();
        if !w.knockdowns().is_down(handle) {
            return w.frame();
        }
    }
    panic!("no recovery within 10 s");
}

fn redirect(x: f64) -> DirectiveCommand {
    DirectiveCommand::Redirect {
        goal: Vec3 { x, y: 8.0, z: 0.0 },
    }
}

#[test]
fn a_refused_rendezvous_and_a_hold_during_a_knockdown_change_nothing() {
    let mut w = world(vec![
        (20, knockdown()),
        (22, goal(-20.0)),
        (24, DirectiveCommand::Hold),
    ]);
    w.run(25);
    let row = w.row_of(0, 0).expect("born");
    let handle = w.handle_of(row).expect("handle");
    assert_eq!(w.agents().state[row], AgentState::KnockedDown);
    let refused: Vec<(u64, TaskChange)> = changes(&w, handle)
        .into_iter()
        .map(|(frame, _, change)| (frame, change))
        .collect();
    assert_eq!(
        refused,
        [
            (22, TaskChange::Refused(InstallRefusal::BodySuspended)),
            (24, TaskChange::Refused(InstallRefusal::BodySuspended)),
        ]
    );
    assert_eq!(
        w.knockdowns().intent(handle),
        Some(AgentState::Walking),
        "a refused command leaves the retained intent as it was"
    );
    assert!(!w.tasks().parents.contains_key(&handle), "no task");
    until_recovered(&mut w, handle);
    w.run(2);
    assert_eq!(
        w.agents().state[row],
        AgentState::Walking,
        "an ambient walker again, never travelling without a task"
    );
}

#[test]
fn a_redirect_during_a_knockdown_waits_for_recovery_and_plans_from_the_body() {
    let mut w = world(vec![
        (5, goal(20.0)),
        (20, knockdown()),
        (24, redirect(-20.0)),
    ]);
    w.run(25);
    let row = w.row_of(0, 0).expect("born");
    let handle = w.handle_of(row).expect("handle");
    let recovered = until_recovered(&mut w, handle);
    let lying = w.agents().position[row];
    w.run(40);
    let log = changes(&w, handle);
    let during: Vec<TaskChange> = log
        .iter()
        .filter(|(frame, ..)| (20..recovered).contains(frame))
        .map(|(_, _, change)| *change)
        .collect();
    assert_eq!(
        during,
        [TaskChange::Suspended, TaskChange::Redirected],
        "no query from the tumbling body"
    );
    // The suspension advanced the generation, the redirect once more; the recovery plans the
    // retained goal from where the body lies, with a new generation.
    let generation = |wanted: TaskChange| {
        log.iter()
            .find(|(_, _, change)| *change == wanted)
            .map(|(frame, generation, _)| (*frame, *generation))
            .expect("logged")
    };
    let (_, suspended) = generation(TaskChange::Suspended);
    let (_, redirected) = generation(TaskChange::Redirected);
    let (resumed_at, resumed) = generation(TaskChange::Resumed);
    assert_eq!(resumed_at, recovered);
    assert_eq!((redirected, resumed), (suspended + 1, suspended + 2));
    let queued: Vec<u32> = log
        .iter()
        .filter(|(frame, _, change)| *frame >= recovered && *change == TaskChange::PathQueued)
        .map(|(_, generation, _)| *generation)
        .collect();
    assert_eq!(queued.first(), Some(&resumed));
    let movement = w.tasks().movements.get(&handle).expect("movement");
    assert_eq!(movement.goal, [-20.0, 8.0, 0.0]);
    assert_eq!(
        movement.path.first().map(|p| [p[0], p[1]]),
        Some([lying.x, lying.y])
    );
    assert!(
        w.agents().position[row].x < lying.x - 1.0,
        "travelling from where it lay towards x = −20"
    );
}
