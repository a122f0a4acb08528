//! The props index: the scene's static blockers as the walking and the task movements test
//! them — the generated props (upright cylinders) in a uniform grid, the other footprints
//! (scene objects, barriers, placed obstacles) in a short list beside it — and the swept-body
//! checks over what it gathers (a step, and the forward exit a sidestep needs). One index per
//! obstacle set, built by [`ObstacleSet`](super::ObstacleSet), read by `sim::walk`.

use super::Obstacle;
use crate::project::Vec2;
use crate::sim::space::StaticBlocker;
use crate::sim::spatial::distance_sq_to_segment;
use crate::sim::state::{
    body::{BODY_RADIUS_M, LOOKAHEAD_M},
    CandidateRejection,
};

/// Cell of the blocker grid, meters (grown for very spread-out blockers).
const BLOCKER_CELL_M: f64 = 2.0;

/// How far from a walker its candidates, their exit probes and its step reach, meters: the
/// blocker index answers any walker within this without a search.
pub const BLOCKER_REACH_M: f64 = 2.0 * LOOKAHEAD_M + 0.5;

/// The static blockers of a scene: the props in a uniform grid whose every cell lists the props
/// a walker standing in it could touch within [`BLOCKER_REACH_M`], so a walker's props are one
/// cell's list (lists in ascending blocker order); the other footprints (few: authored or
/// placed) in a list scanned whole, each with its bounding circle.
#[derive(Clone, Debug, Default)]
pub struct BlockerIndex {
    blockers: Vec<(Vec2, f64)>,
    /// Footprints that are not circles, with their bounding circles `(centre, radius)`.
    shapes: Vec<(Obstacle, Vec2, f64)>,
    origin: Vec2,
    cell_m: f64,
    /// `1 / cell_m`: cells are found by multiplying with it, at build and at query alike, so
    /// a point's cell and a blocker's listed cells come from one monotonic function.
    inverse_cell: f64,
    /// The grid's far corner, `origin + (columns, rows) × cell_m`.
    end: Vec2,
    columns: usize,
    rows: usize,
    /// `cell_start[c]..cell_start[c + 1]` index cell `c`'s blockers in `entries`.
    cell_start: Vec<u32>,
    entries: Vec<u32>,
    /// The same cells listing only the blockers a body could touch within [`LOOKAHEAD_M`] of a
    /// walker standing in them (the reach of most gathers): `near_start` / `near_entries`.
    near_start: Vec<u32>,
    near_entries: Vec<u32>,
}

impl BlockerIndex {
    /// The index of `blockers` (non-finite ones are left out).
    pub fn new(blockers: &[StaticBlocker]) -> BlockerIndex {
        let circles = blockers.iter().map(|b| (b.position, b.radius_m)).collect();
        BlockerIndex::of_footprints(circles, Vec::new())
    }

    /// The index of props as circles `(centre, radius)` and of other footprints (non-finite
    /// ones are left out).
    pub fn of_footprints(circles: Vec<(Vec2, f64)>, shapes: Vec<Obstacle>) -> BlockerIndex {
        let blockers: Vec<(Vec2, f64)> = circles
            .into_iter()
            .filter(|(p, _)| p.x.is_finite() && p.y.is_finite())
            .filter(|(_, r)| r.is_finite())
            .map(|(p, r)| (p, r.max(0.0)))
            .collect();
        let shapes = shapes
            .into_iter()
            .filter(Obstacle::is_finite)
            .map(|o| {
                let (lo, hi) = o.bounds();
                let centre = Vec2 {
                    x: (lo.x + hi.x) * 0.5,
                    y: (lo.y + hi.y) * 0.5,
                };
                (o, centre, (hi.x - lo.x).hypot(hi.y - lo.y) * 0.5)
            })
            .collect();
        let mut index = BlockerIndex {
            blockers,
            shapes,
            cell_m: BLOCKER_CELL_M,
            ..BlockerIndex::default()
        };
        if index.blockers.is_empty() {
            return index;
        }
        let extent = |(_, r): &(Vec2, f64)| r + BODY_RADIUS_M + BLOCKER_REACH_M;
        let (mut min, mut max) = (index.blockers[0].0, index.blockers[0].0);
        for b in &index.blockers {
            let e = extent(b);
            min = Vec2 {
                x: min.x.min(b.0.x - e),
                y: min.y.min(b.0.y - e),
            };
            max = Vec2 {
                x: max.x.max(b.0.x + e),
                y: max.y.max(b.0.y + e),
            };
        }
        index.origin = min;
        // Grow the cell until the grid is no larger than a few cells per listed blocker.
        loop {
            index.columns = ((max.x - min.x) / index.cell_m) as usize + 1;
            index.rows = ((max.y - min.y) / index.cell_m) as usize + 1;
            let per_blocker = (2.0 * extent(&index.blockers[0]) / index.cell_m + 2.0).powi(2);
            let budget = 4.0 * per_blocker * index.blockers.len() as f64 + 64.0;
            if (index.columns * index.rows) as f64 <= budget {
                break;
            }
            index.cell_m *= 2.0;
        }
        index.inverse_cell = 1.0 / index.cell_m;
        index.end = Vec2 {
            x: index.origin.x + index.columns as f64 * index.cell_m,
            y: index.origin.y + index.rows as f64 * index.cell_m,
        };
        (index.cell_start, index.entries) = index.fill(extent);
        let near = |(_, r): &(Vec2, f64)| r + BODY_RADIUS_M + LOOKAHEAD_M;
        (index.near_start, index.near_entries) = index.fill(near);
        index
    }

    /// Lists every blocker in every cell its reach square overlaps (two passes: count, fill):
    /// `(cell_start, entries)`.
    fn fill(&self, extent: impl Fn(&(Vec2, f64)) -> f64) -> (Vec<u32>, Vec<u32>) {
        let cells = self.columns * self.rows;
        let mut cell_start = vec![0; cells + 1];
        let ranges: Vec<(usize, usize, usize, usize)> = self
            .blockers
            .iter()
            .map(|b| {
                let e = extent(b);
                let (c0, r0) = self.cell_xy(Vec2 {
                    x: b.0.x - e,
                    y: b.0.y - e,
                });
                let (c1, r1) = self.cell_xy(Vec2 {
                    x: b.0.x + e,
                    y: b.0.y + e,
                });
                (c0, c1, r0, r1)
            })
            .collect();
        for &(c0, c1, r0, r1) in &ranges {
            for row in r0..=r1 {
                for column in c0..=c1 {
                    cell_start[row * self.columns + column + 1] += 1;
                }
            }
        }
        for c in 0..cells {
            cell_start[c + 1] += cell_start[c];
        }
        let mut cursor = cell_start.clone();
        let mut entries = vec![0; cell_start[cells] as usize];
        for (blocker, &(c0, c1, r0, r1)) in ranges.iter().enumerate() {
            for row in r0..=r1 {
                for column in c0..=c1 {
                    let slot = &mut cursor[row * self.columns + column];
                    entries[*slot as usize] = blocker as u32;
                    *slot += 1;
                }
            }
        }
        (cell_start, entries)
    }

    /// The cell holding `p`, clamped into the grid.
    fn cell_xy(&self, p: Vec2) -> (usize, usize) {
        let column =
            (((p.x - self.origin.x) * self.inverse_cell).max(0.0) as usize).min(self.columns - 1);
        let row =
            (((p.y - self.origin.y) * self.inverse_cell).max(0.0) as usize).min(self.rows - 1);
        (column, row)
    }

    /// Number of blockers (props and other footprints).
    pub fn len(&self) -> usize {
        self.blockers.len() + self.shapes.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.blockers.is_empty() && self.shapes.is_empty()
    }

    /// Collects into `out` (cleared first) every footprint other than a prop's that a body
    /// could touch within `reach_m` of `center`, in index order.
    pub fn gather_shapes(&self, center: Vec2, reach_m: f64, out: &mut Vec<Obstacle>) {
        out.clear();
        for (shape, c, r) in &self.shapes {
            let limit = reach_m + r + BODY_RADIUS_M;
            let (dx, dy) = (c.x - center.x, c.y - center.y);
            if dx * dx + dy * dy <= limit * limit {
                out.push(*shape);
            }
        }
    }

    /// Collects into `out` (cleared first) every blocker a body could touch within `reach_m` of
    /// `center`, in ascending blocker order: the few a walker's candidates are tested against.
    /// A reach beyond [`BLOCKER_REACH_M`] scans all blockers.
    pub fn gather(&self, center: Vec2, reach_m: f64, out: &mut Vec<(Vec2, f64)>) {
        out.clear();
        if self.blockers.is_empty() || !(center.x.is_finite() && center.y.is_finite()) {
            return;
        }
        let within = |(position, radius): &(Vec2, f64)| {
            let limit = reach_m + radius + BODY_RADIUS_M;
            let (dx, dy) = (position.x - center.x, position.y - center.y);
            dx * dx + dy * dy <= limit * limit
        };
        if reach_m > BLOCKER_REACH_M {
            out.extend(self.blockers.iter().filter(|b| within(b)));
            return;
        }
        let inside_x = center.x >= self.origin.x && center.x < self.end.x;
        let inside_y = center.y >= self.origin.y && center.y < self.end.y;
        if !(inside_x && inside_y) {
            // Outside the grid no blocker reaches.
            return;
        }
        let (column, row) = self.cell_xy(center);
        let cell = row * self.columns + column;
        // Within one lookahead the short lists hold every blocker the long ones would pass.
        let (starts, entries) = if reach_m <= LOOKAHEAD_M {
            (&self.near_start, &self.near_entries)
        } else {
            (&self.cell_start, &self.entries)
        };
        let (start, end) = (starts[cell] as usize, starts[cell + 1] as usize);
        for index in &entries[start..end] {
            let blocker = self.blockers[*index as usize];
            if within(&blocker) {
                out.push(blocker);
            }
        }
    }

    /// Whether a body swept from `a` to `b` touches no blocker (see [`Nearby::segment_clear`]).
    pub fn segment_clear(&self, a: Vec2, b: Vec2) -> bool {
        let (mut near, mut shapes) = (Vec::new(), Vec::new());
        self.gather(a, distance(a, b), &mut near);
        self.gather_shapes(a, distance(a, b), &mut shapes);
        Nearby {
            circles: &near,
            shapes: &shapes,
        }
        .segment_clear(a, b)
    }

    /// The static check of a candidate (see [`Nearby::check`]).
    pub fn check(
        &self,
        here: Vec2,
        endpoint: Vec2,
        needs_exit: Option<(Vec2, f64)>,
    ) -> Result<(), CandidateRejection> {
        let reach = distance(here, endpoint) + needs_exit.map_or(0.0, |(_, probe)| probe);
        let (mut near, mut shapes) = (Vec::new(), Vec::new());
        self.gather(here, reach, &mut near);
        self.gather_shapes(here, reach, &mut shapes);
        Nearby {
            circles: &near,
            shapes: &shapes,
        }
        .check(here, endpoint, needs_exit)
    }
}

/// The blockers gathered around one walker.
#[derive(Clone, Copy, Debug)]
pub struct Nearby<'a> {
    /// Props: `(centre, radius)`.
    pub circles: &'a [(Vec2, f64)],
    /// The other footprints.
    pub shapes: &'a [Obstacle],
}

impl Nearby<'_> {
    /// Whether a body of [`BODY_RADIUS_M`] swept from `a` to `b` touches none of them.
    #[inline]
    pub fn segment_clear(&self, a: Vec2, b: Vec2) -> bool {
        let props_clear = self.circles.iter().all(|(centre, radius)| {
            let needed = radius + BODY_RADIUS_M;
            distance_sq_to_segment(*centre, a, b) >= needed * needed
        });
        props_clear
            && self
                .shapes
                .iter()
                .all(|o| o.swept_clearance_m(a, b) >= BODY_RADIUS_M)
    }

    /// The static check of a candidate from `here` towards `endpoint`: the swept body, and,
    /// when static geometry already blocks the straight candidate, a forward exit — the body
    /// swept from `endpoint` one `probe_m` further along the route axis. A clear sidestep beside
    /// an unbroken wall is not an exit.
    #[inline]
    pub fn check(
        &self,
        here: Vec2,
        endpoint: Vec2,
        needs_exit: Option<(Vec2, f64)>,
    ) -> Result<(), CandidateRejection> {
        if !self.segment_clear(here, endpoint) {
            return Err(CandidateRejection::StaticBlocker);
        }
        if let Some((axis, probe_m)) = needs_exit {
            let ahead = Vec2 {
                x: endpoint.x + axis.x * probe_m,
                y: endpoint.y + axis.y * probe_m,
            };
            if !self.segment_clear(endpoint, ahead) {
                return Err(CandidateRejection::NoForwardExit);
            }
        }
        Ok(())
    }
}

fn distance(a: Vec2, b: Vec2) -> f64 {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::space::StaticBlocker;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2 { x, y }
    }

    fn blocker(x: f64, y: f64, radius_m: f64) -> StaticBlocker {
        StaticBlocker {
            stage: 0,
            index: 0,
            position: v(x, y),
            radius_m,
            height_m: 1.0,
        }
    }

    #[test]
    fn a_swept_body_touches_a_blocker_within_both_radii() {
        let index = BlockerIndex::new(&[blocker(1.0, 0.5, 0.25)]);
        // The path along y = 0 passes 0.5 m from the centre: 0.5 < 0.25 + 0.3.
        assert!(!index.segment_clear(v(0.0, 0.0), v(2.0, 0.0)));
        // Along y = −0.06 it passes 0.56 m away: clear.
        assert!(index.segment_clear(v(0.0, -0.06), v(2.0, -0.06)));
        assert!(BlockerIndex::new(&[]).segment_clear(v(0.0, 0.0), v(9.0, 0.0)));
    }

    #[test]
    fn gathering_finds_exactly_the_blockers_within_reach_in_ascending_order() {
        let posts: Vec<StaticBlocker> = (0..300)
            .map(|i| {
                let f = f64::from(i);
                let radius = 0.1 + (f * 0.37).fract() * 0.9;
                blocker(
                    (f * 0.618_034).fract() * 80.0 - 40.0,
                    (f * 0.754_878).fract() * 20.0,
                    radius,
                )
            })
            .collect();
        let index = BlockerIndex::new(&posts);
        // Every post within `reach` of `center` (plus both radii), in ascending order.
        let brute = |center: Vec2, reach: f64| -> Vec<(Vec2, f64)> {
            posts
                .iter()
                .map(|b| (b.position, b.radius_m))
                .filter(|(p, r)| {
                    let limit = reach + r + BODY_RADIUS_M;
                    (p.x - center.x).powi(2) + (p.y - center.y).powi(2) <= limit * limit
                })
                .collect()
        };
        let mut near = Vec::new();
        for (k, center) in [v(0.0, 10.0), v(-40.0, 0.0), v(39.0, 19.0), v(100.0, 5.0)]
            .into_iter()
            .enumerate()
        {
            for reach in [0.5, LOOKAHEAD_M, 2.0, BLOCKER_REACH_M, 7.0] {
                index.gather(center, reach, &mut near);
                assert_eq!(near, brute(center, reach), "center {k}, reach {reach}");
            }
        }
        assert!(!near.is_empty() || index.len() == 300);
        // Walkers standing on cell boundaries (and a hair either side) and on a fine lattice
        // find exactly the blockers a brute-force scan finds.
        let boundary = |origin: f64, k: usize| origin + k as f64 * index.cell_m;
        let mut found = 0;
        for k in 0..index.columns.min(45) {
            for j in 0..index.rows.min(14) {
                let (x, y) = (boundary(index.origin.x, k), boundary(index.origin.y, j));
                for center in [
                    v(x, y),
                    v(x.next_up(), y.next_down()),
                    v(x.next_down(), y.next_up()),
                    v(x + 0.37, y + 1.13),
                ] {
                    index.gather(center, LOOKAHEAD_M, &mut near);
                    assert_eq!(near, brute(center, LOOKAHEAD_M), "center {center:?}");
                    found += near.len();
                }
            }
        }
        assert!(found > 1000, "{found}");
    }

    #[test]
    fn a_sidestep_beside_an_unbroken_wall_has_no_forward_exit() {
        // A wall of posts across x = 1.5 from y = −3 to 3.
        let wall: Vec<StaticBlocker> = (0..=12)
            .map(|i| blocker(1.5, -3.0 + 0.5 * f64::from(i), 0.3))
            .collect();
        let index = BlockerIndex::new(&wall);
        let axis = v(1.0, 0.0);
        // A lateral step is itself clear …
        assert_eq!(index.check(v(0.0, 0.0), v(0.0, 1.0), None), Ok(()));
        // … but nothing opens ahead of it.
        assert_eq!(
            index.check(v(0.0, 0.0), v(0.0, 1.0), Some((axis, 1.0))),
            Err(CandidateRejection::NoForwardExit)
        );
        assert_eq!(
            index.check(v(0.0, 0.0), v(1.0, 0.0), None),
            Err(CandidateRejection::StaticBlocker)
        );
        // With a gap in the wall at y = 1 the same sidestep has an exit.
        let gapped: Vec<StaticBlocker> = wall
            .into_iter()
            .filter(|b| (b.position.y - 1.0).abs() > 0.6)
            .collect();
        let index = BlockerIndex::new(&gapped);
        assert_eq!(
            index.check(v(0.0, 0.0), v(0.0, 1.0), Some((axis, 1.0))),
            Ok(())
        );
    }
}
