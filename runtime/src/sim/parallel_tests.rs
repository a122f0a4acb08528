//! The walking loop in bands (`sim::motion::parallel`): on 1, 2, 3, 7 and 16 threads the state
//! digest after every step is the serial loop's, on the bench worlds (the two-way street, the
//! long street, the mixed tiers) and on this module's own pinned world (`tests.rs` pins its
//! serial digest).

use super::motion::parallel::Plan;
use super::{
    banded_digests as digests, long_street_world, observed_street_world, two_way_street_of,
    two_way_street_world, World,
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

/// The two-way street of `walkers` on a block `length_m` long with its second sidewalk's
/// walkers removed: a counter-flow crowd on one walkway, which every cut crosses (a crowd on
/// both sidewalks is cut along the road between them on two threads, no row near the cut).
fn one_walkway(walkers: usize, length_m: f64) -> World {
    let mut world = two_way_street_of(walkers, length_m, 7).expect("street");
    for handle in world.births_of(1).to_vec() {
        world.remove_agent(handle).expect("a placed walker");
    }
    world
}

/// Steps `world` `steps` times on `threads` threads, banding any number of rows: each step's
/// digest and plan.
fn planned(mut world: World, steps: usize, threads: usize) -> Vec<([u8; 32], Plan)> {
    world.set_min_rows_per_band(Some(1));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    pool.install(|| {
        (0..steps)
            .map(|_| {
                world.step();
                (world.state_digest(), world.motion_scratch.bands.last_plan)
            })
            .collect()
    })
}

#[test]
fn a_crowd_cut_across_its_walkway_steps_the_same_on_every_thread_count() {
    // 200 walkers on 20 m × 10 m, heading both ways: many rows near each cut read rows of the
    // other band that read rows of theirs (chains across the cut) as they cross it.
    same_on_every_thread_count(|| one_walkway(400, 20.0), 40);
}

#[test]
fn a_row_near_a_cut_waits_only_for_the_rows_below_it_within_its_reach() {
    let steps = planned(one_walkway(400, 20.0), 10, 2);
    // The first step's plan is of the walkers as placed: 200 walkers, a cut across the
    // walkway at the middle, a halo of about 3.3 m each side of it.
    assert_eq!(
        steps[0].1,
        Plan {
            boundary_rows: 70,
            waits: 60,
            waits_on_every_row_below: 66,
        }
    );
    for (step, plan) in steps.iter().map(|(_, plan)| plan).enumerate() {
        assert!(plan.boundary_rows > 0, "step {step}: {plan:?}");
        assert!(plan.waits > 0, "step {step}: {plan:?}");
        assert!(
            plan.waits < plan.waits_on_every_row_below,
            "{step}: {plan:?}"
        );
    }
    // Serially the same.
    let (serial, _) = digests(one_walkway(400, 20.0), 10, None);
    let banded: Vec<[u8; 32]> = steps.iter().map(|(digest, _)| *digest).collect();
    assert_eq!(serial, banded);
}

#[test]
fn two_walkers_meeting_at_the_cut_step_as_serially() {
    // Two walkers 0.8 m apart heading at each other, one each side of the cut between them:
    // the second row waits for the first every step as they pass.
    let make = || {
        let mut world = one_walkway(400, 20.0);
        for handle in world.births_of(0).to_vec() {
            world.remove_agent(handle).expect("a placed walker");
        }
        let route = world.config.sources[0].route;
        world
            .place_walker(0, route, 9.6, 1, 1.4, 0.0)
            .expect("placed");
        world
            .place_walker(0, route, 10.4, -1, 1.4, 0.0)
            .expect("placed");
        world
    };
    let steps = planned(make(), 40, 2);
    let one_wait = Plan {
        boundary_rows: 2,
        waits: 1,
        waits_on_every_row_below: 1,
    };
    // (The sources' births join them from the second step on, and on both sidewalks the
    // crowd is soon cut along the road.)
    assert_eq!(steps[0].1, one_wait);
    let (serial, _) = digests(make(), 40, None);
    let banded: Vec<[u8; 32]> = steps.iter().map(|(digest, _)| *digest).collect();
    assert_eq!(serial, banded);
}

#[test]
fn streets_on_two_threads_are_cut_along_the_road_between_their_sidewalks() {
    // Each sidewalk's walkers read each other along the street; the road between the
    // sidewalks is wider than twice the halo. The long street's rows alternate sidewalks (a
    // sample of every fourth row would see one sidewalk only).
    let streets = [
        two_way_street_world(1_000, 7).expect("street"),
        long_street_world(4_000, 7).expect("street"),
    ];
    for (index, street) in streets.into_iter().enumerate() {
        for (step, (_, plan)) in planned(street, 3, 2).iter().enumerate() {
            assert_eq!(*plan, Plan::default(), "street {index}, step {step}");
        }
    }
}

#[test]
fn the_two_way_streets_second_sidewalk_steps_in_place_and_the_long_streets_on_copies() {
    // The two-way street's sidewalks are rows 0..500 and 500..1000 (one source each, placed in
    // turn): one band at home, the other in place in its range. The long street's rows
    // alternate sidewalks: one band at home, the other on copies.
    let in_place = |mut world: World| {
        world.set_min_rows_per_band(Some(1));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        pool.install(|| {
            (0..3)
                .map(|_| {
                    world.step();
                    world.motion_scratch.bands.last_in_place
                })
                .collect::<Vec<usize>>()
        })
    };
    let two_way = in_place(two_way_street_world(1_000, 7).expect("street"));
    assert_eq!(two_way, vec![1, 1, 1]);
    let long = in_place(long_street_world(1_000, 7).expect("street"));
    assert_eq!(long, vec![0, 0, 0]);
}
