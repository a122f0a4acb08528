//! The `street-lifecycle` example's multi-step sessions: hold → continue → redirect of one
//! courier in one task session (`hold-continue-redirect`), and a rendezvous cancelled while the
//! courier is knocked down, whose intent the recovery never restores (`cancel-knockdown`), and a
//! knocked-down courier whose standing space a placed obstacle blocks until a directive removes
//! it, when it stands and resumes its rendezvous (`blocked-standing`). Each
//! runs the real files through the generator and the runtime, asserts the event log's
//! transitions frame by frame and pins the frame-600 state digest. (The blocked walker that
//! resumes once its obstacle is removed is `blocked-wait-resume`, in `street_lifecycle.rs`.)

mod example_world;

use stagecraft_runtime::sim::knockdown::{KnockdownReason, RecoveryPhase};
use stagecraft_runtime::sim::{AgentState, EventDetail, EventKind, TaskChange, World};

/// The world of scenario `id` of the example, at frame 0.
fn world(id: &str) -> World {
    example_world::example_world("street-lifecycle", "street-lifecycle", id)
}

fn run_to(world: &mut World, frame: u64) {
    while world.frame() < frame {
        world.step();
    }
}

/// The courier's task transitions: (frame, session, generation, change).
fn changes(world: &World) -> Vec<(u64, u32, u32, TaskChange)> {
    world
        .events()
        .of_kind(EventKind::Task)
        .filter_map(|e| match e.detail {
            EventDetail::Task {
                session,
                generation,
                change,
            } => Some((e.frame, session, generation, change)),
            _ => None,
        })
        .collect()
}

#[test]
fn hold_continue_and_redirect_happen_in_one_session_and_end_at_the_second_van() {
    let mut w = world("hold-continue-redirect");
    run_to(&mut w, 600);
    use TaskChange::*;
    assert_eq!(
        changes(&w),
        [
            (5, 1, 1, Installed),
            (5, 1, 1, PathQueued),
            (6, 1, 1, PathInstalled),
            (60, 1, 1, Held),
            (130, 1, 1, Continued),
            (170, 1, 2, Redirected),
            (170, 1, 2, PathQueued),
            (171, 1, 2, PathInstalled),
            (408, 1, 2, Arrived),
            (408, 1, 2, Completed),
        ]
    );
    let courier = w.births_of(0)[0];
    let row = w.resolve(courier).expect("alive");
    assert_eq!(w.agents().state[row], AgentState::Arrived);
    // Van 2 at (−25, 2.2) with the redirect's offset (0, 4): the courier stands there.
    let p = w.agents().position[row];
    assert_eq!((p.x, p.y), (-25.0, 6.2));
    assert_eq!(
        w.state_digest_hex(),
        "161b4b014e0971dfdf87ccf72740da99a065eb0f8e63b101f627c09895ce736e"
    );
}

#[test]
fn a_rendezvous_cancelled_during_a_knockdown_is_not_resumed_after_recovery() {
    let mut w = world("cancel-knockdown");
    run_to(&mut w, 600);
    use TaskChange::*;
    let tasks: Vec<(u64, TaskChange)> = changes(&w).iter().map(|c| (c.0, c.3)).collect();
    assert_eq!(
        tasks,
        [
            (5, Installed),
            (5, PathQueued),
            (6, PathInstalled),
            (40, Suspended),
            (50, Cancelled),
        ],
        "nothing after the cancel: the rendezvous never comes back"
    );
    let knock: Vec<(u64, Option<RecoveryPhase>, KnockdownReason)> = w
        .events()
        .of_kind(EventKind::Knockdown)
        .filter_map(|e| match e.detail {
            EventDetail::Knockdown { phase, reason, .. } => Some((e.frame, phase, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        knock,
        [
            (
                40,
                Some(RecoveryPhase::Simulating),
                KnockdownReason::Impulse
            ),
            (50, None, KnockdownReason::IntentCancelled),
            (
                81,
                Some(RecoveryPhase::Blending),
                KnockdownReason::SettledWithSpace
            ),
            (
                97,
                Some(RecoveryPhase::Complete),
                KnockdownReason::IntentEnded
            ),
        ]
    );
    let courier = w.births_of(0)[0];
    let row = w.resolve(courier).expect("alive");
    assert_eq!(
        w.agents().state[row],
        AgentState::Arrived,
        "stands up, stays"
    );
    assert_eq!(w.agents().target[row], None, "no goal kept");
    // It stands where it got up, 23 m short of the van it was walking to.
    let p = w.agents().position[row];
    assert!(
        (p.x + 13.09).abs() < 0.01 && (p.y - 6.93).abs() < 0.01,
        "{p:?}"
    );
    assert_eq!(
        w.state_digest_hex(),
        "e1b3bc8776467366a22ac83b282742a79f4fdf790a736e143dd8d03997787e3c"
    );
}

#[test]
fn a_blocked_standing_space_waits_until_the_obstacle_is_removed_then_the_task_resumes() {
    let mut w = world("blocked-standing");
    run_to(&mut w, 199);
    let courier = w.births_of(0)[0];
    let row = w.resolve(courier).expect("alive");
    assert_eq!(
        w.agents().state[row],
        AgentState::KnockedDown,
        "still waiting"
    );
    run_to(&mut w, 600);
    let knock: Vec<(u64, Option<RecoveryPhase>, KnockdownReason)> = w
        .events()
        .of_kind(EventKind::Knockdown)
        .filter_map(|e| match e.detail {
            EventDetail::Knockdown { phase, reason, .. } => Some((e.frame, phase, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        knock,
        [
            (
                40,
                Some(RecoveryPhase::Simulating),
                KnockdownReason::Impulse
            ),
            (
                81,
                Some(RecoveryPhase::WaitingForSpace),
                KnockdownReason::PropInTheWay
            ),
            // The crate is removed at frame 200; the next step finds the space free.
            (
                201,
                Some(RecoveryPhase::Blending),
                KnockdownReason::SettledWithSpace
            ),
            (217, Some(RecoveryPhase::Complete), KnockdownReason::Resumed),
        ]
    );
    use TaskChange::*;
    let tasks: Vec<(u64, TaskChange)> = changes(&w).iter().map(|c| (c.0, c.3)).collect();
    assert_eq!(
        tasks,
        [
            (5, Installed),
            (5, PathQueued),
            (6, PathInstalled),
            (40, Suspended),
            (217, Resumed),
            (217, PathQueued),
            (218, PathInstalled),
            (579, Arrived),
            (579, Completed),
        ]
    );
    // The rendezvous beside van 1, at (10, 2.2) with the offset (0, 4).
    let row = w.resolve(courier).expect("alive");
    let p = w.agents().position[row];
    assert_eq!((p.x, p.y), (10.0, 6.2));
    assert_eq!(
        w.state_digest_hex(),
        "c87a1f00987248ec40cc33ac9191806ca6c056d70e67a95101414ace58ec4d73"
    );
}
