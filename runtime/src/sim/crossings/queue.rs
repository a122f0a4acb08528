//! Where a crosswalk's walkers stand: which routes cross which crosswalk (and at which route
//! distances), the 10 m grid crosswalk queries go through, queue slots (lateral lanes 1–5,
//! rows every 0.75 m behind the waiting point; a newcomer joins the tail of a lane) and the
//! points a slot gives.

use std::collections::BTreeMap;

use crate::project::Vec2;
use crate::sim::routes::SimRoute;
use crate::sim::space::{SimCrosswalk, SimSpace};
use crate::sim::walk::body::SAFETY_DIAMETER_M;

/// Cell of the crosswalk query grid, meters (specification: 1000 cm).
pub const QUERY_CELL_M: f64 = 10.0;
/// Spacing of queue rows behind the waiting point, meters (specification: 75 cm).
pub const QUEUE_ROW_SPACING_M: f64 = 0.75;
/// Fewest and most lateral lanes across a crossing.
pub const LANES_RANGE: (u32, u32) = (1, 5);
/// A kerb lies on a route when it is this close to the polyline, meters.
const ON_ROUTE_M: f64 = 0.05;

/// One crosswalk a route passes over: the route distances of its two kerbs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouteCrossing {
    /// Index of the crosswalk in the space.
    pub crosswalk: u16,
    /// Route distance of side 0's kerb and side 1's kerb, meters.
    pub kerb_distance_m: [f64; 2],
}

impl RouteCrossing {
    /// The side a walker at route distance `distance_m` heading `direction` reaches first, and
    /// how far ahead of it that kerb is (negative once past it), meters.
    pub fn ahead(&self, distance_m: f64, direction: i8) -> (u8, f64) {
        let dir = f64::from(direction);
        let [d0, d1] = self.kerb_distance_m;
        let side = if (d1 - d0) * dir >= 0.0 { 0 } else { 1 };
        let kerb = self.kerb_distance_m[usize::from(side)];
        (side, (kerb - distance_m) * dir)
    }

    /// The crossing's length along the route, meters.
    pub fn length_m(&self) -> f64 {
        (self.kerb_distance_m[1] - self.kerb_distance_m[0]).abs()
    }
}

/// What the crossings derive once from the space: per route the crosswalks it passes over, and
/// the query grid. Not state: rebuilt from the space when missing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrossingIndex {
    /// Per route (space order), its crossings in route order.
    pub routes: Vec<Vec<RouteCrossing>>,
    /// Crosswalks near each 10 m cell (by floor division), ascending.
    pub grid: BTreeMap<(i64, i64), Vec<u16>>,
    /// The reach the grid was built with: the entry range plus the queue, meters.
    pub reach_m: f64,
}

impl CrossingIndex {
    /// The index of `space` for walkers binding within `reach_m` of a kerb.
    pub fn new(space: &SimSpace, reach_m: f64) -> CrossingIndex {
        let routes = space
            .routes
            .iter()
            .map(|route| route_crossings(route, &space.crosswalks))
            .collect();
        let mut grid: BTreeMap<(i64, i64), Vec<u16>> = BTreeMap::new();
        for (index, crosswalk) in space.crosswalks.iter().enumerate() {
            let Ok(index) = u16::try_from(index) else {
                continue;
            };
            let [a, b] = [crosswalk.sides[0].kerb, crosswalk.sides[1].kerb];
            let (x0, x1) = (a.x.min(b.x) - reach_m, a.x.max(b.x) + reach_m);
            let (y0, y1) = (a.y.min(b.y) - reach_m, a.y.max(b.y) + reach_m);
            for cx in cell(x0)..=cell(x1) {
                for cy in cell(y0)..=cell(y1) {
                    grid.entry((cx, cy)).or_default().push(index);
                }
            }
        }
        CrossingIndex {
            routes,
            grid,
            reach_m,
        }
    }

    /// The crosswalks near `p` that `route` passes over: one grid cell visited.
    pub fn query(&self, route: u16, p: Vec2) -> impl Iterator<Item = &RouteCrossing> {
        let near = self
            .grid
            .get(&(cell(p.x), cell(p.y)))
            .map_or(&[][..], Vec::as_slice);
        self.routes
            .get(usize::from(route))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(move |c| near.binary_search(&c.crosswalk).is_ok())
    }

    /// Whether walkers on `route` ever cross (only they issue crosswalk queries).
    pub fn route_crosses(&self, route: u16) -> bool {
        self.routes
            .get(usize::from(route))
            .is_some_and(|c| !c.is_empty())
    }
}

/// The floor-division cell of a coordinate.
fn cell(v: f64) -> i64 {
    (v / QUERY_CELL_M).floor() as i64
}

/// The crosswalks `route` passes over: both kerbs on the polyline, the route between them as
/// long as the straight kerb-to-kerb distance (it crosses, rather than touching a kerb).
fn route_crossings(route: &SimRoute, crosswalks: &[SimCrosswalk]) -> Vec<RouteCrossing> {
    let mut found = Vec::new();
    for (index, crosswalk) in crosswalks.iter().enumerate() {
        let [a, b] = [crosswalk.sides[0].kerb, crosswalk.sides[1].kerb];
        let (Some(d0), Some(d1), Ok(index)) = (
            project_on_route(route, a),
            project_on_route(route, b),
            u16::try_from(index),
        ) else {
            continue;
        };
        let straight = (a.x - b.x).hypot(a.y - b.y);
        if straight > 0.0 && ((d1 - d0).abs() - straight).abs() < 2.0 * ON_ROUTE_M {
            found.push(RouteCrossing {
                crosswalk: index,
                kerb_distance_m: [d0, d1],
            });
        }
    }
    found.sort_by(|a, b| {
        let (ma, mb) = (
            a.kerb_distance_m[0].min(a.kerb_distance_m[1]),
            b.kerb_distance_m[0].min(b.kerb_distance_m[1]),
        );
        ma.total_cmp(&mb).then(a.crosswalk.cmp(&b.crosswalk))
    });
    found
}

/// The route distance of the closest point of `route` to `p`, when within [`ON_ROUTE_M`].
fn project_on_route(route: &SimRoute, p: Vec2) -> Option<f64> {
    super::crosswalk::closest_on_polyline(route.points(), p)
        .filter(|(off, _)| *off <= ON_ROUTE_M)
        .map(|(_, along_m)| along_m)
}

/// How many of the configured `lanes` (clamped to 1–5) a crosswalk `width_m` wide offers each
/// direction of travel: its right half of the width holds as many as fit one body
/// ([`SAFETY_DIAMETER_M`]) apart, at least one.
pub fn usable_lanes(lanes: u32, width_m: f64) -> u32 {
    let lanes = lanes.clamp(LANES_RANGE.0, LANES_RANGE.1);
    let fit = (width_m / 2.0 / SAFETY_DIAMETER_M).floor();
    let fit = if fit >= 1.0 {
        fit.min(f64::from(LANES_RANGE.1)) as u32
    } else {
        1
    };
    lanes.min(fit)
}

/// Queue slots one side of `crosswalk` offers: its usable lanes times `rows` rows.
pub fn side_slots(crosswalk: &SimCrosswalk, lanes: u32, rows: u32) -> u16 {
    let usable = usable_lanes(lanes, crosswalk.width_m);
    u16::try_from(usable * rows.max(1)).unwrap_or(u16::MAX)
}

/// The lateral offset of lane `lane`, to the right of the crossing direction, on a crosswalk
/// `width_m` wide of `lanes` configured lanes: each direction keeps to the right half of the
/// width (so opposing crossers never meet head-on in one lane), split into its usable lanes
/// ([`usable_lanes`]) of equal width, lane 0 the innermost. Neighbouring lanes stand at least a
/// body apart, and the outermost keeps the body on the crosswalk.
pub fn lane_offset_m(lane: u32, lanes: u32, width_m: f64) -> f64 {
    let usable = usable_lanes(lanes, width_m);
    let half = (width_m / 2.0).max(0.0);
    half * (f64::from(lane.min(usable - 1)) + 0.5) / f64::from(usable)
}

/// The points of queue slot `slot` at side `entry_side` of `crosswalk`: entry and exit (with
/// the lane's lateral offset) and the waiting point `entry − direction × queue distance`,
/// and the lateral offset and queue distance themselves.
pub fn slot_points(crosswalk: &SimCrosswalk, entry_side: u8, slot: u16, lanes: u32) -> SlotPoints {
    let lanes = usable_lanes(lanes, crosswalk.width_m);
    let (entry, exit) = if entry_side == 0 {
        (crosswalk.sides[0].kerb, crosswalk.sides[1].kerb)
    } else {
        (crosswalk.sides[1].kerb, crosswalk.sides[0].kerb)
    };
    let (dx, dy) = (exit.x - entry.x, exit.y - entry.y);
    let length = dx.hypot(dy).max(f64::MIN_POSITIVE);
    let direction = Vec2 {
        x: dx / length,
        y: dy / length,
    };
    // Right of the direction of travel on the ground (Z up).
    let right = Vec2 {
        x: direction.y,
        y: -direction.x,
    };
    let lane = u32::from(slot) % lanes;
    let row = u32::from(slot) / lanes;
    let lateral_m = lane_offset_m(lane, lanes, crosswalk.width_m);
    let queue_m = QUEUE_ROW_SPACING_M * f64::from(row + 1);
    let shift = |p: Vec2| Vec2 {
        x: p.x + right.x * lateral_m,
        y: p.y + right.y * lateral_m,
    };
    let entry = shift(entry);
    SlotPoints {
        entry,
        exit: shift(exit),
        waiting: Vec2 {
            x: entry.x - direction.x * queue_m,
            y: entry.y - direction.y * queue_m,
        },
        lateral_m,
        queue_m,
    }
}

/// The points one queue slot gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotPoints {
    /// Entry kerb plus the lateral offset.
    pub entry: Vec2,
    /// Exit kerb plus the lateral offset.
    pub exit: Vec2,
    /// `entry − direction × queue distance`.
    pub waiting: Vec2,
    /// The lane's lateral offset, meters.
    pub lateral_m: f64,
    /// The row's queue distance, meters.
    pub queue_m: f64,
}

/// Which queue slots of each crosswalk side are taken this step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueOccupancy {
    taken: Vec<[Vec<bool>; 2]>,
}

impl QueueOccupancy {
    /// Empty slots for `crosswalks` crosswalks of `capacity` slots per side.
    pub fn new(crosswalks: usize, capacity: u16) -> QueueOccupancy {
        let side = vec![false; usize::from(capacity)];
        QueueOccupancy {
            taken: vec![[side.clone(), side]; crosswalks],
        }
    }

    /// Marks a slot taken (out-of-range slots are ignored).
    pub fn take(&mut self, crosswalk: u16, side: u8, slot: u16) {
        if let Some(s) = self
            .taken
            .get_mut(usize::from(crosswalk))
            .and_then(|sides| sides.get_mut(usize::from(side & 1)))
            .and_then(|slots| slots.get_mut(usize::from(slot)))
        {
            *s = true;
        }
    }

    /// The lowest free slot below `limit` at a side (the side's [`side_slots`] of `lanes`
    /// usable lanes) with no taken slot behind it in its lane, taking it; `None` when every
    /// lane's last row is taken. A newcomer joins the tail of a lane — the nearest row behind
    /// the last walker queued in it — and never a free row in front of queued walkers, which it
    /// would have to walk through.
    pub fn claim(&mut self, crosswalk: u16, side: u8, lanes: u32, limit: u16) -> Option<u16> {
        let slots = self
            .taken
            .get_mut(usize::from(crosswalk))?
            .get_mut(usize::from(side & 1))?;
        let limit = usize::from(limit).min(slots.len());
        let lanes = (lanes.max(1) as usize).min(limit.max(1));
        let free = (0..limit).find(|&slot| {
            !slots[slot] && !(slot + lanes..limit).step_by(lanes).any(|s| slots[s])
        })?;
        slots[free] = true;
        u16::try_from(free).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::crossings::fixtures::crosswalk;

    #[test]
    fn queue_rows_stand_every_0_75_m_behind_the_entry_on_their_lane() {
        let c = crosswalk(3.5, 4.25);
        // Two lanes on 4 m: slot 0 = lane 0 row 0, slot 3 = lane 1 row 1; side 0 walks north,
        // so right is +x, and its half of the width (0..2 m) holds lanes at 0.5 and 1.5 m.
        let first = slot_points(&c, 0, 0, 2);
        assert_eq!(first.lateral_m, 0.5);
        assert_eq!(first.queue_m, 0.75);
        assert_eq!(first.entry, Vec2 { x: 0.5, y: -3.5 });
        assert_eq!(first.exit, Vec2 { x: 0.5, y: 3.5 });
        assert_eq!(first.waiting, Vec2 { x: 0.5, y: -4.25 });
        let second = slot_points(&c, 0, 1, 2);
        assert_eq!(second.waiting, Vec2 { x: 1.5, y: -4.25 });
        let fourth = slot_points(&c, 0, 3, 2);
        assert_eq!(fourth.lateral_m, 1.5);
        assert_eq!(fourth.waiting, Vec2 { x: 1.5, y: -5.0 });
        // From the north side the right is −x: the two directions never share a lane.
        let north = slot_points(&c, 1, 0, 2);
        assert_eq!(north.entry, Vec2 { x: -0.5, y: 3.5 });
        assert_eq!(north.waiting, Vec2 { x: -0.5, y: 4.25 });
    }

    #[test]
    fn lanes_split_the_crosswalk_width_a_body_apart() {
        // Side by side in one row: the two front slots stand a lane apart, more than a body.
        let c = crosswalk(3.5, 4.25);
        let (a, b) = (slot_points(&c, 0, 0, 2), slot_points(&c, 0, 1, 2));
        let apart = (a.waiting.x - b.waiting.x).hypot(a.waiting.y - b.waiting.y);
        assert_eq!(apart, 1.0);
        assert!(apart >= SAFETY_DIAMETER_M);
        for lanes in 1..=5 {
            let usable = usable_lanes(lanes, 4.0);
            // 2 m per direction holds three lanes a body apart.
            assert_eq!(usable, lanes.min(3));
            let offsets: Vec<f64> = (0..usable).map(|l| lane_offset_m(l, lanes, 4.0)).collect();
            // Each direction's half of the width in equal lanes, the body kept on the crosswalk.
            let width = 2.0 / f64::from(usable);
            for (l, o) in offsets.iter().enumerate() {
                assert!(
                    (o - width * (l as f64 + 0.5)).abs() < 1e-12,
                    "{lanes}: {offsets:?}"
                );
                assert!(*o + crate::sim::walk::body::BODY_RADIUS_M <= 2.0);
            }
            for pair in offsets.windows(2) {
                assert!(
                    pair[1] - pair[0] >= SAFETY_DIAMETER_M,
                    "{lanes}: {offsets:?}"
                );
            }
        }
        // Out-of-range lane counts are clamped to 1–5; a crosswalk too narrow for two bodies
        // per direction has one lane, in the middle of its half.
        assert_eq!(lane_offset_m(0, 0, 4.0), 1.0);
        assert_eq!(usable_lanes(9, 12.0), 5);
        assert_eq!(usable_lanes(3, 1.0), 1);
        assert_eq!(lane_offset_m(2, 3, 1.0), 0.25);
        // A side's queue holds its usable lanes times the rows.
        assert_eq!(side_slots(&c, 5, 3), 9);
        assert_eq!(side_slots(&c, 2, 3), 6);
    }

    #[test]
    fn a_full_queue_refuses_the_next_walker() {
        let mut q = QueueOccupancy::new(1, 3);
        assert_eq!(q.claim(0, 1, 1, 2), Some(0));
        assert_eq!(q.claim(0, 1, 1, 2), Some(1));
        assert_eq!(q.claim(0, 1, 1, 2), None);
        assert_eq!(q.claim(0, 0, 1, 2), Some(0));
        assert_eq!(q.claim(3, 0, 1, 2), None);
    }

    #[test]
    fn a_newcomer_joins_the_tail_of_a_lane_never_a_free_row_in_front_of_the_queue() {
        // Two lanes, three rows: slot = row × 2 + lane.
        let mut q = QueueOccupancy::new(1, 6);
        // Lane 0 holds rows 1 and 2 (its front walker crossed), lane 1 row 0.
        for slot in [2, 4, 1] {
            q.take(0, 0, slot);
        }
        // Slot 0 is free but in front of lane 0's queue; lane 1's tail is row 1 (slot 3).
        assert_eq!(q.claim(0, 0, 2, 6), Some(3));
        // Lane 1's tail is now row 2 (slot 5); lane 0 has no row behind its last walker.
        assert_eq!(q.claim(0, 0, 2, 6), Some(5));
        // Both lanes' last rows are taken: the queue is full although slot 0 is free.
        assert_eq!(q.claim(0, 0, 2, 6), None);
        // An empty side fills the front row first, lane by lane.
        assert_eq!(q.claim(0, 1, 2, 6), Some(0));
        assert_eq!(q.claim(0, 1, 2, 6), Some(1));
        assert_eq!(q.claim(0, 1, 2, 6), Some(2));
    }

    #[test]
    fn routes_over_a_crossing_know_its_kerb_distances_and_the_grid_finds_it() {
        let route = SimRoute::new(
            "crosswalk.0",
            vec![Vec2 { x: 0.0, y: -6.25 }, Vec2 { x: 0.0, y: 6.25 }],
        )
        .expect("route");
        let sidewalk = SimRoute::new(
            "sidewalk.north",
            vec![Vec2 { x: -20.0, y: 6.25 }, Vec2 { x: 20.0, y: 6.25 }],
        )
        .expect("route");
        let space = SimSpace {
            routes: vec![route, sidewalk],
            crosswalks: vec![crosswalk(3.5, 4.25)],
            ..SimSpace::default()
        };
        let index = CrossingIndex::new(&space, 4.0);
        assert_eq!(
            index.routes[0],
            vec![RouteCrossing {
                crosswalk: 0,
                kerb_distance_m: [2.75, 9.75],
            }]
        );
        assert!(index.routes[1].is_empty());
        assert!(!index.route_crosses(1));
        let near: Vec<u16> = index
            .query(0, Vec2 { x: 0.0, y: -6.0 })
            .map(|c| c.crosswalk)
            .collect();
        assert_eq!(near, [0]);
        // 30 m away the one cell visited holds no crosswalk.
        assert_eq!(index.query(0, Vec2 { x: 30.0, y: 0.0 }).count(), 0);
        let crossing = index.routes[0][0];
        assert_eq!(crossing.ahead(1.0, 1), (0, 1.75));
        assert_eq!(crossing.ahead(1.0, -1), (1, -8.75));
        assert_eq!(crossing.ahead(11.0, -1), (1, 1.25));
    }
}
