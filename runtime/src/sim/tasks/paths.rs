//! The path service: a walkable grid over the pedestrian space (every route's walkway, the body
//! radius kept off its edges) less the static blockers (generated props, scenario barriers known
//! to navigation, the footprints of scene objects), searched with the `pathfinding` crate's A*
//! under a bound of [`MAX_EXPANSIONS`] node expansions per query.
//!
//! Queries are queued ([`PathService::submit`]) and answered later, in the Motion phase's path
//! step ([`PathService::answer`]); each reply carries the generation of the query it answers, so
//! the movement that asked can tell a reply to its current query from a stale one. Cancelling a
//! query removes it from the queue; a reply already produced stays in the mailbox (the consumer
//! refuses it by generation).

use std::cell::Cell;

use pathfinding::directed::astar::astar;

use crate::project::Vec2;
use crate::sim::agents::AgentHandle;
use crate::sim::routes::SimRoute;
use crate::sim::space::StaticBlocker;
use crate::sim::walk::body::BODY_RADIUS_M;

/// The most nodes one query may expand (the tasks seed's escape bound, used for every query).
pub const MAX_EXPANSIONS: u32 = 2048;
/// Edge of one grid cell, meters.
pub const CELL_M: f64 = 0.25;
/// The most queries one step answers; the rest wait for the next step, in submission order.
pub const QUERIES_PER_STEP: usize = 64;
/// A start or goal off the walkable grid is projected onto the nearest walkable cell within this
/// horizontal distance, meters (the seed's projection error bound).
pub const MAX_PROJECTION_M: f64 = 0.5;
/// The most cells a grid may hold (a bigger space is refused, never allocated).
pub const MAX_CELLS: usize = 16 * 1024 * 1024;

/// Cost of an orthogonal step between cells (integer, so the search never depends on rounding).
const ORTHOGONAL_COST: u32 = 10;
/// Cost of a diagonal step (10 × √2, rounded).
const DIAGONAL_COST: u32 = 14;
/// Weight of the heuristic. 1 keeps A* optimal; a weight of 2 halved the expansions on open
/// walkways but made 127 of the bench's 2,000 street-lifecycle queries (across the road, via the
/// crossing) hit the expansion bound, so it stays 1.
const HEURISTIC_WEIGHT: u32 = 1;

/// A static obstacle the grid is built around, already in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Obstacle {
    /// An upright cylinder (a prop).
    Circle {
        /// Centre on the ground, meters.
        centre: Vec2,
        /// Radius, meters.
        radius_m: f64,
    },
    /// A wall segment of some thickness (a barrier).
    Segment {
        /// One end, meters.
        from: Vec2,
        /// The other end, meters.
        to: Vec2,
        /// Half its thickness, meters.
        half_thickness_m: f64,
    },
    /// An oriented box footprint (a scene object).
    Box {
        /// Centre on the ground, meters.
        centre: Vec2,
        /// Unit direction of the box's local x axis.
        axis: Vec2,
        /// Half extents along local x and y, meters.
        half_m: Vec2,
    },
}

impl Obstacle {
    /// Horizontal clearance from `p` to the obstacle's surface (negative inside), meters.
    pub fn clearance_m(&self, p: Vec2) -> f64 {
        match *self {
            Obstacle::Circle { centre, radius_m } => distance(p, centre) - radius_m,
            Obstacle::Segment {
                from,
                to,
                half_thickness_m,
            } => distance_to_segment(p, from, to) - half_thickness_m,
            Obstacle::Box {
                centre,
                axis,
                half_m,
            } => {
                let (dx, dy) = (p.x - centre.x, p.y - centre.y);
                let local_x = (dx * axis.x + dy * axis.y).abs() - half_m.x;
                let local_y = (-dx * axis.y + dy * axis.x).abs() - half_m.y;
                let outside = local_x.max(0.0).hypot(local_y.max(0.0));
                outside + local_x.max(local_y).min(0.0)
            }
        }
    }

    /// A square around the obstacle, `(min, max)`, meters.
    fn bounds(&self) -> (Vec2, Vec2) {
        let (lo, hi) = match *self {
            Obstacle::Circle { centre, radius_m } => (
                Vec2 {
                    x: centre.x - radius_m,
                    y: centre.y - radius_m,
                },
                Vec2 {
                    x: centre.x + radius_m,
                    y: centre.y + radius_m,
                },
            ),
            Obstacle::Segment {
                from,
                to,
                half_thickness_m: h,
            } => (
                Vec2 {
                    x: from.x.min(to.x) - h,
                    y: from.y.min(to.y) - h,
                },
                Vec2 {
                    x: from.x.max(to.x) + h,
                    y: from.y.max(to.y) + h,
                },
            ),
            Obstacle::Box { centre, half_m, .. } => {
                let r = half_m.x.hypot(half_m.y);
                (
                    Vec2 {
                        x: centre.x - r,
                        y: centre.y - r,
                    },
                    Vec2 {
                        x: centre.x + r,
                        y: centre.y + r,
                    },
                )
            }
        };
        (lo, hi)
    }

    /// Whether every value is finite.
    fn is_finite(&self) -> bool {
        let (lo, hi) = self.bounds();
        lo.x.is_finite() && lo.y.is_finite() && hi.x.is_finite() && hi.y.is_finite()
    }
}

/// The props of a space as obstacles.
pub fn prop_obstacles(blockers: &[StaticBlocker]) -> Vec<Obstacle> {
    blockers
        .iter()
        .map(|b| Obstacle::Circle {
            centre: b.position,
            radius_m: b.radius_m.max(0.0),
        })
        .collect()
}

/// Why a query found no path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathFailure {
    /// The start is farther than [`MAX_PROJECTION_M`] from any walkable cell.
    StartOffGrid,
    /// The goal is farther than [`MAX_PROJECTION_M`] from any walkable cell.
    GoalOffGrid,
    /// Start and goal are not connected.
    NoPath,
    /// The search expanded [`MAX_EXPANSIONS`] nodes without reaching the goal.
    ExpansionLimit,
    /// A coordinate is not finite.
    NonFinite,
}

impl PathFailure {
    /// A stable small number for digests.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A found path: corners from the start to the end point, and the search's cost.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundPath {
    /// Corners, the start first, meters (z is the ground, 0).
    pub points: Vec<[f64; 3]>,
    /// Nodes the search expanded.
    pub expansions: u32,
}

impl FoundPath {
    /// Horizontal length of the corner polyline, meters.
    pub fn length_m(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
            .sum()
    }
}

/// The walkable grid: cell `(column, row)` is walkable when its centre keeps a body on some
/// route's walkway and clear of every obstacle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathGrid {
    origin: Vec2,
    columns: u32,
    rows: u32,
    walkable: Vec<bool>,
}

impl PathGrid {
    /// The grid of `routes` less `obstacles` (non-finite obstacles are left out). An empty or
    /// oversized space gives an empty grid, on which every query fails.
    pub fn new(routes: &[SimRoute], obstacles: &[Obstacle]) -> PathGrid {
        let mut lo = Vec2 {
            x: f64::INFINITY,
            y: f64::INFINITY,
        };
        let mut hi = Vec2 {
            x: f64::NEG_INFINITY,
            y: f64::NEG_INFINITY,
        };
        for route in routes {
            let half = route.width_m() / 2.0;
            for p in route.points() {
                lo = Vec2 {
                    x: lo.x.min(p.x - half),
                    y: lo.y.min(p.y - half),
                };
                hi = Vec2 {
                    x: hi.x.max(p.x + half),
                    y: hi.y.max(p.y + half),
                };
            }
        }
        if !(lo.x.is_finite() && lo.y.is_finite() && hi.x.is_finite() && hi.y.is_finite()) {
            return PathGrid::default();
        }
        let columns = ((hi.x - lo.x) / CELL_M).ceil() as usize + 1;
        let rows = ((hi.y - lo.y) / CELL_M).ceil() as usize + 1;
        if columns.saturating_mul(rows) > MAX_CELLS {
            return PathGrid::default();
        }
        let mut grid = PathGrid {
            origin: lo,
            columns: columns as u32,
            rows: rows as u32,
            walkable: vec![false; columns * rows],
        };
        for route in routes {
            grid.mark_walkway(route);
        }
        for obstacle in obstacles.iter().filter(|o| o.is_finite()) {
            grid.clear_obstacle(obstacle);
        }
        grid
    }

    /// Marks the cells whose centre keeps a body on `route`'s walkway.
    fn mark_walkway(&mut self, route: &SimRoute) {
        let limit = (route.width_m() / 2.0 - BODY_RADIUS_M).max(0.0);
        for pair in route.points().windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let lo = Vec2 {
                x: a.x.min(b.x) - limit,
                y: a.y.min(b.y) - limit,
            };
            let hi = Vec2 {
                x: a.x.max(b.x) + limit,
                y: a.y.max(b.y) + limit,
            };
            self.for_cells_in(lo, hi, |grid, cell, centre| {
                if distance_to_segment(centre, a, b) <= limit {
                    grid.walkable[cell] = true;
                }
            });
        }
    }

    /// Clears the cells whose centre would put a body into `obstacle`.
    fn clear_obstacle(&mut self, obstacle: &Obstacle) {
        let (lo, hi) = obstacle.bounds();
        let r = BODY_RADIUS_M;
        let lo = Vec2 {
            x: lo.x - r,
            y: lo.y - r,
        };
        let hi = Vec2 {
            x: hi.x + r,
            y: hi.y + r,
        };
        self.for_cells_in(lo, hi, |grid, cell, centre| {
            if obstacle.clearance_m(centre) < BODY_RADIUS_M {
                grid.walkable[cell] = false;
            }
        });
    }

    fn for_cells_in(&mut self, lo: Vec2, hi: Vec2, mut visit: impl FnMut(&mut Self, usize, Vec2)) {
        if self.walkable.is_empty() {
            return;
        }
        let (c0, r0) = self.clamped(lo);
        let (c1, r1) = self.clamped(hi);
        for row in r0..=r1 {
            for column in c0..=c1 {
                let cell = self.index(column, row);
                let centre = self.centre(column, row);
                visit(self, cell, centre);
            }
        }
    }

    /// The cell holding `p`, clamped into the grid.
    fn clamped(&self, p: Vec2) -> (u32, u32) {
        let c = ((p.x - self.origin.x) / CELL_M).floor().max(0.0) as u32;
        let r = ((p.y - self.origin.y) / CELL_M).floor().max(0.0) as u32;
        (c.min(self.columns - 1), r.min(self.rows - 1))
    }

    /// The cell holding `p`, if inside the grid.
    fn cell_of(&self, p: Vec2) -> Option<(u32, u32)> {
        if !(p.x.is_finite() && p.y.is_finite()) || self.walkable.is_empty() {
            return None;
        }
        let c = ((p.x - self.origin.x) / CELL_M).floor();
        let r = ((p.y - self.origin.y) / CELL_M).floor();
        let inside =
            c >= 0.0 && r >= 0.0 && c < f64::from(self.columns) && r < f64::from(self.rows);
        inside.then_some((c as u32, r as u32))
    }

    fn index(&self, column: u32, row: u32) -> usize {
        row as usize * self.columns as usize + column as usize
    }

    /// Centre of cell `(column, row)`, meters.
    pub fn centre(&self, column: u32, row: u32) -> Vec2 {
        Vec2 {
            x: self.origin.x + (f64::from(column) + 0.5) * CELL_M,
            y: self.origin.y + (f64::from(row) + 0.5) * CELL_M,
        }
    }

    /// Whether a body may stand at `p`.
    pub fn is_walkable(&self, p: Vec2) -> bool {
        self.cell_of(p)
            .is_some_and(|(c, r)| self.walkable[self.index(c, r)])
    }

    /// Number of walkable cells.
    pub fn walkable_cells(&self) -> usize {
        self.walkable.iter().filter(|w| **w).count()
    }

    /// `(columns, rows)`.
    pub fn size(&self) -> (u32, u32) {
        (self.columns, self.rows)
    }

    /// The walkable cell centre nearest to `p` within [`MAX_PROJECTION_M`] (ties to the lower
    /// row, then column), or `None`. A walkable `p` projects onto itself.
    pub fn project(&self, p: Vec2) -> Option<Vec2> {
        if self.is_walkable(p) {
            return Some(p);
        }
        self.project_cell(p).map(|(c, r)| self.centre(c, r))
    }

    fn project_cell(&self, p: Vec2) -> Option<(u32, u32)> {
        if !(p.x.is_finite() && p.y.is_finite()) || self.walkable.is_empty() {
            return None;
        }
        if let Some((c, r)) = self
            .cell_of(p)
            .filter(|(c, r)| self.walkable[self.index(*c, *r)])
        {
            return Some((c, r));
        }
        let reach = MAX_PROJECTION_M + CELL_M;
        let (c0, r0) = self.clamped(Vec2 {
            x: p.x - reach,
            y: p.y - reach,
        });
        let (c1, r1) = self.clamped(Vec2 {
            x: p.x + reach,
            y: p.y + reach,
        });
        let mut best: Option<(f64, u32, u32)> = None;
        for row in r0..=r1 {
            for column in c0..=c1 {
                if !self.walkable[self.index(column, row)] {
                    continue;
                }
                let d = distance(self.centre(column, row), p);
                if d <= MAX_PROJECTION_M && best.is_none_or(|(b, _, _)| d < b) {
                    best = Some((d, column, row));
                }
            }
        }
        best.map(|(_, c, r)| (c, r))
    }

    /// Whether a body moving straight from `a` to `b` stays on walkable cells (sampled every
    /// quarter cell).
    pub fn line_walkable(&self, a: Vec2, b: Vec2) -> bool {
        let length = distance(a, b);
        let samples = (length / (CELL_M / 4.0)).ceil().max(1.0) as u32;
        (0..=samples).all(|i| {
            let t = f64::from(i) / f64::from(samples);
            self.is_walkable(Vec2 {
                x: a.x + (b.x - a.x) * t,
                y: a.y + (b.y - a.y) * t,
            })
        })
    }

    /// A path from `start` to `goal`: A* over 8-connected walkable cells (no corner cutting),
    /// at most [`MAX_EXPANSIONS`] expansions, then shortened to line-of-sight corners. The path
    /// starts at `start` (or its projection) and ends at `goal` when the goal is walkable,
    /// otherwise at the goal's projection (the consumer judges the endpoint).
    pub fn find(&self, start: Vec2, goal: Vec2) -> Result<FoundPath, PathFailure> {
        if ![start.x, start.y, goal.x, goal.y]
            .iter()
            .all(|v| v.is_finite())
        {
            return Err(PathFailure::NonFinite);
        }
        let from = self.project_cell(start).ok_or(PathFailure::StartOffGrid)?;
        let to = self.project_cell(goal).ok_or(PathFailure::GoalOffGrid)?;
        let expansions = Cell::new(0u32);
        let exhausted = Cell::new(false);
        let found = astar(
            &from,
            |&(c, r)| {
                let expanded = expansions.get();
                let within = expanded < MAX_EXPANSIONS;
                if within {
                    expansions.set(expanded + 1);
                } else {
                    exhausted.set(true);
                }
                self.successors(c, r).filter(move |_| within)
            },
            |&(c, r)| HEURISTIC_WEIGHT * octile(c, r, to),
            |node| *node == to,
        );
        let Some((cells, _cost)) = found else {
            return Err(if exhausted.get() {
                PathFailure::ExpansionLimit
            } else {
                PathFailure::NoPath
            });
        };
        let start_point = if self.is_walkable(start) {
            start
        } else {
            self.centre(from.0, from.1)
        };
        let end_point = if self.is_walkable(goal) {
            goal
        } else {
            self.centre(to.0, to.1)
        };
        let mut raw = Vec::with_capacity(cells.len() + 1);
        raw.push(start_point);
        raw.extend(
            cells
                .iter()
                .skip(1)
                .take(cells.len().saturating_sub(2))
                .map(|&(c, r)| self.centre(c, r)),
        );
        raw.push(end_point);
        let points = self
            .shortcut(&turns(&raw))
            .into_iter()
            .map(|p| [p.x, p.y, 0.0])
            .collect();
        Ok(FoundPath {
            points,
            expansions: expansions.get(),
        })
    }

    /// The open neighbours of a cell with their step costs (no allocation: a fixed array).
    fn successors(&self, c: u32, r: u32) -> impl Iterator<Item = ((u32, u32), u32)> {
        let mut out = [None; 8];
        let mut n = 0;
        let open = |dc: i64, dr: i64| -> Option<(u32, u32)> {
            let (nc, nr) = (i64::from(c) + dc, i64::from(r) + dr);
            if nc < 0 || nr < 0 || nc >= i64::from(self.columns) || nr >= i64::from(self.rows) {
                return None;
            }
            let (nc, nr) = (nc as u32, nr as u32);
            self.walkable[self.index(nc, nr)].then_some((nc, nr))
        };
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            if let Some(cell) = open(dc, dr) {
                out[n] = Some((cell, ORTHOGONAL_COST));
                n += 1;
            }
        }
        for (dc, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            // No corner cutting: both orthogonal neighbours must be open too.
            if open(dc, 0).is_some() && open(0, dr).is_some() {
                if let Some(cell) = open(dc, dr) {
                    out[n] = Some((cell, DIAGONAL_COST));
                    n += 1;
                }
            }
        }
        out.into_iter().flatten()
    }

    /// The corners of `raw` that line of sight cannot skip, the first and last kept.
    fn shortcut(&self, raw: &[Vec2]) -> Vec<Vec2> {
        let Some(&first) = raw.first() else {
            return Vec::new();
        };
        let mut out = vec![first];
        let mut anchor = 0;
        while anchor + 1 < raw.len() {
            let mut next = anchor + 1;
            while next + 1 < raw.len() && self.line_walkable(raw[anchor], raw[next + 1]) {
                next += 1;
            }
            out.push(raw[next]);
            anchor = next;
        }
        out
    }
}

/// The points of `raw` where its direction changes (the first and last kept): the candidates
/// the line-of-sight shortcut needs, without the cells of straight runs between them.
fn turns(raw: &[Vec2]) -> Vec<Vec2> {
    if raw.len() <= 2 {
        return raw.to_vec();
    }
    let mut out = vec![raw[0]];
    for w in raw.windows(3) {
        let (a, b, c) = (w[0], w[1], w[2]);
        let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
        if cross.abs() > 1e-9 {
            out.push(b);
        }
    }
    out.push(raw[raw.len() - 1]);
    out
}

fn octile(c: u32, r: u32, to: (u32, u32)) -> u32 {
    let dc = c.abs_diff(to.0);
    let dr = r.abs_diff(to.1);
    let (lo, hi) = (dc.min(dr), dc.max(dr));
    ORTHOGONAL_COST * hi + (DIAGONAL_COST - ORTHOGONAL_COST) * lo
}

/// One queued query.
#[derive(Clone, Debug, PartialEq)]
pub struct PathQuery {
    /// Whose movement asked.
    pub handle: AgentHandle,
    /// The movement's generation when it asked.
    pub generation: u32,
    /// Where the path starts, meters.
    pub start: [f64; 3],
    /// Where it should end, meters.
    pub goal: [f64; 3],
}

/// One answered query.
#[derive(Clone, Debug, PartialEq)]
pub struct PathReply {
    /// Whose movement asked.
    pub handle: AgentHandle,
    /// The generation of the query it answers.
    pub generation: u32,
    /// The path, or why there is none.
    pub outcome: Result<FoundPath, PathFailure>,
}

/// The queue of queries and the mailbox of replies (world state: snapshots carry both).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathService {
    /// Queries waiting, in submission order.
    pub queue: Vec<PathQuery>,
    /// Replies waiting to be consumed, in answer order.
    pub replies: Vec<PathReply>,
    /// Queries answered so far.
    pub answered: u64,
}

impl PathService {
    /// Queues a query.
    pub fn submit(&mut self, query: PathQuery) {
        self.queue.push(query);
    }

    /// Removes every queued query of `handle` (replies already produced stay).
    pub fn cancel(&mut self, handle: AgentHandle) {
        self.queue.retain(|q| q.handle != handle);
    }

    /// Answers up to [`QUERIES_PER_STEP`] queries in submission order into the mailbox.
    pub fn answer(&mut self, grid: &PathGrid) {
        let count = self.queue.len().min(QUERIES_PER_STEP);
        for query in self.queue.drain(..count) {
            let start = Vec2 {
                x: query.start[0],
                y: query.start[1],
            };
            let goal = Vec2 {
                x: query.goal[0],
                y: query.goal[1],
            };
            self.replies.push(PathReply {
                handle: query.handle,
                generation: query.generation,
                outcome: grid.find(start, goal),
            });
            self.answered += 1;
        }
    }

    /// Whether the queue and the mailbox are both empty.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.replies.is_empty()
    }

    /// Canonical bytes (for the state digest).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        use crate::sim::agents::Canonical;
        (self.queue.len() as u64).write_canonical(bytes);
        for q in &self.queue {
            write_handle(q.handle, bytes);
            q.generation.write_canonical(bytes);
            for v in q.start.iter().chain(&q.goal) {
                v.write_canonical(bytes);
            }
        }
        (self.replies.len() as u64).write_canonical(bytes);
        for reply in &self.replies {
            write_handle(reply.handle, bytes);
            reply.generation.write_canonical(bytes);
            match &reply.outcome {
                Ok(path) => {
                    bytes.push(0);
                    path.expansions.write_canonical(bytes);
                    write_points(&path.points, bytes);
                }
                Err(why) => bytes.extend_from_slice(&[1, why.code()]),
            }
        }
        self.answered.write_canonical(bytes);
    }
}

/// Canonical bytes of a handle.
pub(super) fn write_handle(handle: AgentHandle, bytes: &mut Vec<u8>) {
    bytes.extend_from_slice(&handle.index.to_le_bytes());
    bytes.extend_from_slice(&handle.generation.to_le_bytes());
}

/// Canonical bytes of a point list.
pub(super) fn write_points(points: &[[f64; 3]], bytes: &mut Vec<u8>) {
    bytes.extend_from_slice(&(points.len() as u64).to_le_bytes());
    for p in points {
        for v in p {
            bytes.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    }
}

/// Horizontal distance, meters.
pub fn distance(a: Vec2, b: Vec2) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// Horizontal distance from `p` to segment `[a, b]`, meters.
pub fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    crate::sim::walk::ground::distance_sq_to_segment(p, a, b).sqrt()
}
