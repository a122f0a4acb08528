//! The path service: a walkable grid over the pedestrian space (every route's walkway, the body
//! radius kept off its edges) less the static blockers (generated props, scenario barriers known
//! to navigation, the footprints of scene objects), searched with the `pathfinding` crate's A*
//! under a bound of [`MAX_EXPANSIONS`] node expansions per query.
//!
//! A query whose straight segment is clear is answered by that segment (no search). Otherwise
//! the A* runs over jump points (jump point search, 8-connected, no corner cutting): a node's
//! successors are the next cells along each pruned direction where a forced neighbour (or the
//! goal) appears, found by scanning a padded walkable grid without allocation; each expanded
//! jump point counts as one expansion. Costs are integer (10 orthogonal, 14 diagonal) and the
//! heuristic is the octile distance, so the search finds a shortest 8-connected route and never
//! depends on rounding; the corners are then string-pulled once by line of sight.
//!
//! Queries are queued ([`PathService::submit`]) and answered later, in the Motion phase's path
//! step ([`PathService::answer`]); each reply carries the generation of the query it answers, so
//! the movement that asked can tell a reply to its current query from a stale one. Cancelling a
//! query removes it from the queue; a reply already produced stays in the mailbox (the consumer
//! refuses it by generation).

use std::cell::Cell;

use pathfinding::directed::astar::astar;

use crate::project::Vec2;
use crate::sim::routes::SimRoute;
use crate::sim::space::StaticBlocker;
use crate::sim::spatial::distance_to_segment;
use crate::sim::state::{AgentHandle, PathFailure};
use crate::sim::walk::body::BODY_RADIUS_M;

/// The most nodes one query may expand (the tasks specification's escape bound, used for every
/// query).
pub const MAX_EXPANSIONS: u32 = 2048;
/// Edge of one grid cell, meters.
pub const CELL_M: f64 = 0.25;
/// The most queries one step answers; the rest wait for the next step, in submission order.
pub const QUERIES_PER_STEP: usize = 64;
/// A start or goal off the walkable grid is projected onto the nearest walkable cell within this
/// horizontal distance, meters (the specification's projection error bound).
pub const MAX_PROJECTION_M: f64 = 0.5;
/// The most cells a grid may hold (a bigger space is refused, never allocated).
pub const MAX_CELLS: usize = 16 * 1024 * 1024;

/// Cost of an orthogonal step between cells (integer, so the search never depends on rounding).
const ORTHOGONAL_COST: u32 = 10;
/// Cost of a diagonal step (10 × √2, rounded).
const DIAGONAL_COST: u32 = 14;
/// The eight directions `(dc, dr)`: the four orthogonal ones, then the four diagonal ones (the
/// order successors are generated in).
const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
/// The direction code of the start node (no parent: every direction is a successor).
const NO_DIRECTION: u8 = 8;

pub use crate::sim::config::Obstacle;

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

/// A found path: corners from the start to the end point, and the search's cost.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
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
    /// `walkable` with a border of one closed cell all round (row stride `columns + 2`), so the
    /// search reads neighbours without bounds checks.
    open: Vec<bool>,
    /// Per padded cell: bit `k` when its neighbour in direction `k` is open; bit `8 + k` when
    /// arriving along straight direction `k` (0..4) makes it a jump point (a forced neighbour).
    masks: Vec<u16>,
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
            open: Vec::new(),
            masks: Vec::new(),
        };
        for route in routes {
            grid.mark_walkway(route);
        }
        for obstacle in obstacles.iter().filter(|o| o.is_finite()) {
            grid.clear_obstacle(obstacle);
        }
        grid.open = grid.padded();
        grid.masks = grid.neighbour_masks();
        grid
    }

    /// The neighbour and forced-neighbour bits of every padded cell (closed cells and the
    /// border have none: the search never stands on them).
    fn neighbour_masks(&self) -> Vec<u16> {
        let stride = i64::from(self.stride());
        let mut masks = vec![0u16; self.open.len()];
        for (index, mask) in masks.iter_mut().enumerate() {
            let Ok(cell) = u32::try_from(index) else {
                break;
            };
            if !self.open[index] {
                continue;
            }
            for d in 0..8u8 {
                if self.open_at(cell, self.step(d).0) {
                    *mask |= 1 << d;
                }
            }
            for d in 0..4u8 {
                let (_, dc, dr) = self.step(d);
                let forced = if dr == 0 {
                    (self.open_at(cell, stride) && !self.open_at(cell, stride - dc))
                        || (self.open_at(cell, -stride) && !self.open_at(cell, -stride - dc))
                } else {
                    (self.open_at(cell, 1) && !self.open_at(cell, 1 - dr * stride))
                        || (self.open_at(cell, -1) && !self.open_at(cell, -1 - dr * stride))
                };
                if forced {
                    *mask |= 1 << (8 + d);
                }
            }
        }
        masks
    }

    /// The walkable cells with a closed border, row stride `columns + 2`.
    fn padded(&self) -> Vec<bool> {
        let (columns, rows) = (self.columns as usize, self.rows as usize);
        let stride = columns + 2;
        let mut open = vec![false; stride * (rows + 2)];
        for row in 0..rows {
            let from = row * columns;
            let to = (row + 1) * stride + 1;
            open[to..to + columns].copy_from_slice(&self.walkable[from..from + columns]);
        }
        open
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
        let c = (p.x - self.origin.x) / CELL_M;
        let r = (p.y - self.origin.y) / CELL_M;
        // On the grid both are non-negative, where truncating is flooring.
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

    /// A path from `start` to `goal`: the straight segment when it is clear, otherwise A* over
    /// jump points of the 8-connected walkable cells (no corner cutting), at most
    /// [`MAX_EXPANSIONS`] expansions, then shortened to line-of-sight corners. The path starts
    /// at `start` (or its projection) and ends at `goal` when the goal is walkable, otherwise at
    /// the goal's projection (the consumer judges the endpoint).
    pub fn find(&self, start: Vec2, goal: Vec2) -> Result<FoundPath, PathFailure> {
        if ![start.x, start.y, goal.x, goal.y]
            .iter()
            .all(|v| v.is_finite())
        {
            return Err(PathFailure::NonFinite);
        }
        let from = self.project_cell(start).ok_or(PathFailure::StartOffGrid)?;
        let to = self.project_cell(goal).ok_or(PathFailure::GoalOffGrid)?;
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
        let ground = |p: Vec2| [p.x, p.y, 0.0];
        if self.line_walkable(start_point, end_point) {
            return Ok(FoundPath {
                points: vec![ground(start_point), ground(end_point)],
                expansions: 0,
            });
        }
        let (cells, expansions) = self.search(from, to)?;
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
            .map(ground)
            .collect();
        Ok(FoundPath { points, expansions })
    }

    /// The jump points of a shortest route from cell `from` to cell `to`, and the expansions
    /// the search made.
    fn search(
        &self,
        from: (u32, u32),
        to: (u32, u32),
    ) -> Result<(Vec<(u32, u32)>, u32), PathFailure> {
        let goal = self.padded_index(to);
        let expansions = Cell::new(0u32);
        let exhausted = Cell::new(false);
        let found = astar(
            &(self.padded_index(from), NO_DIRECTION),
            |&(cell, arrived)| {
                let expanded = expansions.get();
                let within = expanded < MAX_EXPANSIONS;
                if within {
                    expansions.set(expanded + 1);
                } else {
                    exhausted.set(true);
                }
                let mut out = [((0u32, 0u8), 0u32); 8];
                let n = if within {
                    self.jump_successors(cell, arrived, goal, &mut out)
                } else {
                    0
                };
                out.into_iter().take(n)
            },
            |&(cell, _)| self.octile_between(cell, goal),
            |&(cell, _)| cell == goal,
        );
        let Some((nodes, _cost)) = found else {
            return Err(if exhausted.get() {
                PathFailure::ExpansionLimit
            } else {
                PathFailure::NoPath
            });
        };
        let cells = nodes.iter().map(|&(cell, _)| self.unpadded(cell)).collect();
        Ok((cells, expansions.get()))
    }

    fn stride(&self) -> u32 {
        self.columns + 2
    }

    fn padded_index(&self, (c, r): (u32, u32)) -> u32 {
        (r + 1) * self.stride() + c + 1
    }

    fn unpadded(&self, cell: u32) -> (u32, u32) {
        (cell % self.stride() - 1, cell / self.stride() - 1)
    }

    /// Whether the padded cell `cell + offset` is open (the border keeps it inside).
    fn open_at(&self, cell: u32, offset: i64) -> bool {
        let at = i64::from(cell) + offset;
        usize::try_from(at)
            .ok()
            .and_then(|i| self.open.get(i))
            .copied()
            .unwrap_or(false)
    }

    /// The step of direction `d` as a padded-index offset, with its `(dc, dr)`.
    fn step(&self, d: u8) -> (i64, i64, i64) {
        let (dc, dr) = DIRECTIONS[usize::from(d)];
        let (dc, dr) = (i64::from(dc), i64::from(dr));
        (dc + dr * i64::from(self.stride()), dc, dr)
    }

    /// Octile cost between two padded cells.
    fn octile_between(&self, a: u32, b: u32) -> u32 {
        let (ac, ar) = (a % self.stride(), a / self.stride());
        let (bc, br) = (b % self.stride(), b / self.stride());
        octile(ac, ar, (bc, br))
    }

    /// The successors of jump point `cell` reached along `arrived` (pruned as jump point
    /// search does; every direction at the start): writes `((jump point, direction), cost)`
    /// into `out` in direction order and returns how many.
    fn jump_successors(
        &self,
        cell: u32,
        arrived: u8,
        goal: u32,
        out: &mut [((u32, u8), u32); 8],
    ) -> usize {
        let mut n = 0;
        for d in 0..8u8 {
            if !self.explores(cell, arrived, d) {
                continue;
            }
            if let Some(point) = self.jump(cell, d, goal) {
                out[n] = ((point, d), self.octile_between(cell, point));
                n += 1;
            }
        }
        n
    }

    /// Whether a jump point reached along `arrived` explores direction `d`: the natural
    /// neighbours (onward, and for a diagonal its two components) and the forced ones (the
    /// sides of a straight move, and the diagonals towards them).
    fn explores(&self, cell: u32, arrived: u8, d: u8) -> bool {
        if arrived == NO_DIRECTION {
            return true;
        }
        let (ac, ar) = DIRECTIONS[usize::from(arrived)];
        let (dc, dr) = DIRECTIONS[usize::from(d)];
        if ac != 0 && ar != 0 {
            // Diagonal arrival: onward, and its horizontal and vertical components.
            return (dc, dr) == (ac, ar) || (dc, dr) == (ac, 0) || (dc, dr) == (0, ar);
        }
        let stride = i64::from(self.stride());
        if ar == 0 {
            // Horizontal arrival: onward, up and down, and onward diagonals.
            let side = |dr: i8| self.open_at(cell, i64::from(dr) * stride);
            return (dc, dr) == (ac, 0) || (dc == 0 && side(dr)) || (dc == ac && side(dr));
        }
        let side = |dc: i8| self.open_at(cell, i64::from(dc));
        (dc, dr) == (0, ar) || (dr == 0 && side(dc)) || (dr == ar && side(dc))
    }

    /// The next jump point from `cell` along direction `d`: the first cell where the goal is,
    /// or a forced neighbour appears, or (diagonally) a straight scan finds one; `None` when the
    /// scan meets a closed cell or a diagonal would cut a corner. Each step reads one mask.
    fn jump(&self, cell: u32, d: u8, goal: u32) -> Option<u32> {
        let (step, dc, dr) = self.step(d);
        let diagonal = dc != 0 && dr != 0;
        // Leaving a cell along `d` needs that neighbour open, and diagonally both components
        // (no corner cutting).
        let need: u16 = if diagonal {
            let horizontal: u8 = if dc > 0 { 0 } else { 1 };
            let vertical: u8 = if dr > 0 { 2 } else { 3 };
            (1 << d) | (1 << horizontal) | (1 << vertical)
        } else {
            1 << d
        };
        let forced_bit: u16 = if diagonal { 0 } else { 1 << (8 + d) };
        let mut at = cell;
        loop {
            let mask = self.masks.get(at as usize).copied().unwrap_or(0);
            if mask & need != need {
                return None;
            }
            at = u32::try_from(i64::from(at) + step).ok()?;
            if at == goal {
                return Some(at);
            }
            let forced = if diagonal {
                let horizontal = if dc > 0 { 0 } else { 1 };
                let vertical = if dr > 0 { 2 } else { 3 };
                self.jump(at, horizontal, goal).is_some() || self.jump(at, vertical, goal).is_some()
            } else {
                self.masks.get(at as usize).copied().unwrap_or(0) & forced_bit != 0
            };
            if forced {
                return Some(at);
            }
        }
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
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
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
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct PathReply {
    /// Whose movement asked.
    pub handle: AgentHandle,
    /// The generation of the query it answers.
    pub generation: u32,
    /// The path, or why there is none.
    pub outcome: Result<FoundPath, PathFailure>,
}

/// The queue of queries and the mailbox of replies (world state: snapshots carry both).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
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
        use crate::sim::state::agents::Canonical;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: plain A* over every 8-connected cell (no corner cutting).
    fn reference_cost(grid: &PathGrid, from: (u32, u32), to: (u32, u32)) -> Option<u32> {
        let open = |c: i64, r: i64| {
            c >= 0
                && r >= 0
                && c < i64::from(grid.columns)
                && r < i64::from(grid.rows)
                && grid.walkable[grid.index(c as u32, r as u32)]
        };
        astar(
            &from,
            |&(c, r)| {
                let (c, r) = (i64::from(c), i64::from(r));
                DIRECTIONS
                    .iter()
                    .filter(|(dc, dr)| {
                        let (dc, dr) = (i64::from(*dc), i64::from(*dr));
                        open(c + dc, r + dr)
                            && (dc == 0 || dr == 0 || (open(c + dc, r) && open(c, r + dr)))
                    })
                    .map(|(dc, dr)| {
                        let cost = if *dc != 0 && *dr != 0 {
                            DIAGONAL_COST
                        } else {
                            ORTHOGONAL_COST
                        };
                        let cell = ((c + i64::from(*dc)) as u32, (r + i64::from(*dr)) as u32);
                        (cell, cost)
                    })
                    .collect::<Vec<_>>()
            },
            |&(c, r)| octile(c, r, to),
            |cell| *cell == to,
        )
        .map(|(_, cost)| cost)
    }

    fn random_grid(seed: u64, columns: u32, rows: u32, closed_percent: u64) -> PathGrid {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut walkable = Vec::with_capacity((columns * rows) as usize);
        for _ in 0..columns * rows {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            walkable.push((state >> 33) % 100 >= closed_percent);
        }
        let mut grid = PathGrid {
            origin: Vec2 { x: 0.0, y: 0.0 },
            columns,
            rows,
            walkable,
            open: Vec::new(),
            masks: Vec::new(),
        };
        grid.open = grid.padded();
        grid.masks = grid.neighbour_masks();
        grid
    }

    #[test]
    fn jump_points_find_exactly_the_shortest_routes_plain_a_star_finds() {
        let mut compared = (0, 0);
        for seed in 0..300u64 {
            let grid = random_grid(seed, 24, 16, 20 + seed % 20);
            let open: Vec<(u32, u32)> = (0..16)
                .flat_map(|r| (0..24).map(move |c| (c, r)))
                .filter(|&(c, r)| grid.walkable[grid.index(c, r)])
                .collect();
            if open.len() < 2 {
                continue;
            }
            let from = open[(seed as usize * 7) % open.len()];
            let to = open[(seed as usize * 131 + 17) % open.len()];
            let expected = reference_cost(&grid, from, to);
            let got = grid.search(from, to);
            match (expected, got) {
                (None, Err(PathFailure::NoPath)) => compared.1 += 1,
                (Some(cost), Ok((cells, _))) => {
                    assert_eq!(cells.first(), Some(&from));
                    assert_eq!(cells.last(), Some(&to));
                    let jps: u32 = cells.windows(2).map(|w| octile(w[0].0, w[0].1, w[1])).sum();
                    assert_eq!(jps, cost, "seed {seed}: {from:?} → {to:?}");
                    compared.0 += 1;
                }
                (expected, got) => panic!("seed {seed}: {expected:?} vs {got:?}"),
            }
        }
        assert!(compared.0 > 150 && compared.1 > 10, "{compared:?}");
    }
}
