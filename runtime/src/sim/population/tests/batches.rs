//! Demands against targets and capacity: a single-person shortfall is a single-agent demand
//! (never a batch that overshoots the target), and capacity is checked against the whole batch
//! before it is admitted.

use super::*;

/// Ambient members of every source after each of `frames` steps.
fn ambient_each_frame(world: &mut World, frames: u64) -> Vec<u64> {
    (0..frames)
        .map(|_| {
            world.step();
            world.source_statuses().iter().map(|s| s.ambient).sum()
        })
        .collect()
}

#[test]
fn a_single_person_shortfall_is_not_a_batch() {
    // A pair (batch of two, room for four); the first ped retires at once (its removal
    // distances shrunk to centimetres), leaving the source one short.
    let mut pair = source("pair", 2, &[-10.0, 10.0, -20.0, 20.0]);
    pair.batch_size = 2;
    pair.capacity = 4;
    let directives = vec![at(
        3,
        born(0, 0),
        Command::SetRemovalMultiplier { multiplier: 0.01 },
    )];
    let mut world = world_of(scenario(vec![behind()], vec![pair], directives));
    let ambient = ambient_each_frame(&mut world, 40);
    assert_eq!(
        events_of(&world, EventKind::Retired).len(),
        1,
        "one ped retired"
    );
    assert!(
        ambient.iter().all(|n| *n <= 2),
        "never above the target of two: {ambient:?}"
    );
    assert_eq!(ambient.last(), Some(&2), "the shortfall was filled");
    let batches: Vec<(u64, u32)> = events_of(&world, EventKind::Realized)
        .iter()
        .filter_map(|e| match e.detail {
            EventDetail::Batch { items, .. } => Some((e.frame, items)),
            _ => None,
        })
        .collect();
    assert_eq!(
        batches.len(),
        3,
        "two items of the pair, then one: {batches:?}"
    );
    assert_eq!(batches[0].1, 2);
    assert_eq!(
        batches[2].1, 1,
        "the one-ped shortfall is a single-agent demand"
    );
    let status = &world.source_statuses()[0];
    assert_eq!((status.ambient, status.attached), (2, 2));
}

#[test]
fn capacity_is_checked_against_the_whole_batch() {
    // Target four in batches of two, but room for three attached peds: after the first batch
    // a second one would take the source to four, past its capacity.
    let mut crowd = source("crowd", 4, &[-10.0, 10.0, -20.0, 20.0]);
    crowd.batch_size = 2;
    crowd.capacity = 3;
    let mut world = world_of(scenario(vec![behind()], vec![crowd], Vec::new()));
    let mut attached = Vec::new();
    for _ in 0..20 {
        world.step();
        attached.push(world.source_statuses()[0].attached);
    }
    assert!(
        attached.iter().all(|n| *n <= 3),
        "never past the capacity of three: {attached:?}"
    );
    assert_eq!(attached.last(), Some(&2), "the second batch does not fit");
    assert!(rejections(&world, 0, SpawnRejection::CapacityFull) > 0);
    assert_eq!(
        world.population().sources[0].pending.map(|d| d.batch),
        None,
        "refused before a demand was enqueued"
    );
}
