//! The `streaming-crowd` example's `ring-walk` scenario: the crowd plans the streaming plan's
//! loaded ring around the camera every step, so as the camera walks down the street walkers leave
//! and re-enter the ring; each crossing of its edge is a `Ring` event with the walker's cell, and
//! the outside set always equals the walkers whose cell is not loaded.

mod example_world;

use stagecraft_runtime::content::StreamingCell;
use stagecraft_runtime::sim::{AgentId, EventDetail, EventKind, World};

fn world() -> World {
    example_world::example_world("streaming-crowd", "streaming-street", "ring-walk")
}

/// 20 m cells, a one-cell loaded radius: the ring is three cells (60 m) wide.
const CELL_M: f64 = 20.0;

#[test]
fn walkers_leave_and_reenter_the_ring_that_follows_the_camera() {
    let mut world = world();
    let mut outside_counts = Vec::new();
    let mut before: Vec<(AgentId, f64, f64)> = Vec::new();
    let mut checked = 0;
    while world.frame() < 600 {
        world.step();
        if world.frame().is_multiple_of(120) {
            outside_counts.push(world.motion_counters().outside_ring);
        }
        // Recomputed from the frames published the step before (the tiers, the ring with them,
        // are decided on where the walkers stood when the step began): the walkers whose cell
        // this step's ring does not load.
        let cells = world.loaded_cells();
        let outside = before
            .iter()
            .filter(|(_, x, y)| {
                let cell =
                    StreamingCell::new((x / CELL_M).floor() as i32, (y / CELL_M).floor() as i32);
                cells.binary_search(&cell).is_err()
            })
            .count() as u64;
        if before.len() == world.motion_frames().len() {
            checked += 1;
            assert_eq!(
                outside,
                world.motion_counters().outside_ring,
                "frame {}",
                world.frame()
            );
        }
        before = world
            .motion_frames()
            .iter()
            .map(|f| (f.id, f64::from(f.location.x), f64::from(f.location.y)))
            .collect();
    }
    // (41 at the fourth count before walkers kept lanes past oncoming bodies and edged.)
    assert_eq!(outside_counts, vec![42, 44, 46, 42, 41]);
    assert!(checked > 500, "the recount ran on {checked} steps");
    let (mut left, mut back) = (0, 0);
    for event in world.events().of_kind(EventKind::Ring) {
        match event.detail {
            EventDetail::Ring {
                outside: true,
                cell,
            } => {
                left += 1;
                assert!(cell.is_some(), "a walker on the street has a cell");
            }
            EventDetail::Ring { outside: false, .. } => back += 1,
            other => panic!("a ring event carries the ring detail, not {other:?}"),
        }
    }
    assert_eq!(world.events().dropped(EventKind::Ring), 0);
    // The camera walks 140 m east: 86 times a walker fell behind the ring's west edge or
    // walked out of its east edge, 45 times one was caught up with or walked back in.
    assert_eq!((left, back), (86, 45), "left and came back");
    // The ring the viewport outlines is the one the crowd used: three cells around the
    // camera's cell, which at frame 600 stands at x = 70 m (cell 3).
    let xs: Vec<i32> = world.loaded_cells().iter().map(|c| c.x).collect();
    assert_eq!(xs.first().copied(), Some(2));
    assert_eq!(xs.last().copied(), Some(4));
}
