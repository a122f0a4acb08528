//! The walking loop in bands (`sim::motion::parallel`): on 1, 2, 3, 7 and 16 threads the state
//! digest after every step is the serial loop's, on the bench worlds (the two-way street, the
//! long street, the mixed tiers) and on this module's own pinned world (`tests.rs` pins its
//! serial digest).

use super::{
    banded_digests as digests, long_street_world, observed_street_world, two_way_street_world,
    World,
};

/// The thread counts every world is stepped on.
const THREADS: [usize; 5] = [1, 2, 3, 7, 16];

/// `make()` stepped `steps` times serially and on every count of [`THREADS`]: the same
/// digests after every step; the loop ran in as many bands as threads (one on one thread).
fn same_on_every_thread_count(make: impl Fn() -> World, steps: u64) {
    let (serial, bands) = digests(make(), steps, None);
    assert_eq!(bands, 1);
    for threads in THREADS {
        let (parallel, bands) = digests(make(), steps, Some(threads));
        assert_eq!(bands, threads, "{threads} threads");
        for (frame, (a, b)) in serial.iter().zip(&parallel).enumerate() {
            assert_eq!(a, b, "{threads} threads, step {}", frame + 1);
        }
        assert_eq!(parallel.len() as u64, steps);
    }
}

#[test]
fn the_two_way_street_steps_the_same_on_every_thread_count() {
    same_on_every_thread_count(|| two_way_street_world(1_000, 7).expect("street"), 20);
}

#[test]
fn the_long_street_steps_the_same_on_every_thread_count() {
    same_on_every_thread_count(|| long_street_world(1_000, 7).expect("street"), 20);
}

#[test]
fn mixed_tiers_step_the_same_on_every_thread_count() {
    // The budgeted avoidance window and the tier cadences: rows step, steer only or wait.
    same_on_every_thread_count(|| observed_street_world(2_000, 7).expect("street"), 20);
}

#[test]
fn the_pinned_world_steps_the_same_on_every_thread_count() {
    // Births, crossings and removals over 600 steps; `tests.rs` pins the serial digest.
    same_on_every_thread_count(super::tests::world, 600);
}
