//! The walking loop on the current rayon pool, bit for bit the serial loop's result.
//!
//! The serial loop steps rows in ascending order, each reading the neighbour grid where every
//! earlier row already wrote its new position and facing (Gauss–Seidel). The parallel loop keeps
//! exactly that order where it matters: the ground is cut along one axis into bands of about
//! equal numbers of stepped rows (one per pool thread; the cuts go where the fewest rows lie
//! near them, `motion::cuts`, so a crowd split by an empty strip, the two-way street's road, is
//! cut there and its bands never wait), and each band steps its own rows in ascending order.
//! One band (the *home* band) steps its rows in place, in the world's agents and the world's
//! grid; a band whose rows are one unbroken range above the home band's rows steps them in
//! place too, in its range of the world's rows (a `sim::walk::WalkRows` view split off the
//! world's: the two-way street's sidewalks), and every other band on a private copy of its
//! agent rows (`motion::placement` weighs which band is home by the rows copied). Every band
//! but the home band steps with a private grid over every body within the halo (the farthest a
//! step reads, [`halo_m`]) of it. A row whose halo
//! stays inside its band reads only that band's bodies; a row near a cut (a *boundary* row)
//! first waits until the other bands have stepped their boundary rows below it (in row order)
//! *within its reach* — whose positions before the loop are within the halo of its own — and
//! applies their new positions and facings to its grid, and after stepping publishes its own
//! for the others. The copies are written back in row order (every written column), and the
//! world's grid gets every stepped row's body, as the serial loop left it.
//!
//! ## Why the result is the serial loop's
//!
//! A row's step reads its own agent row and, through the grid, the bodies within the scan of
//! its position; it writes its own row and its own body. Its position is the one before the
//! loop (it has not stepped yet), and a body it reads is where it was before the loop or where
//! its own step moved it, at most `moved_m` away; so a row reads (and is read by) only bodies
//! within the halo of it before the loop, and the relation "within the halo before the loop"
//! is symmetric (both sides compute the same squared distance). Two steps that are not within
//! the halo of each other commute: neither reads what the other writes. Every pair within the
//! halo is ordered as serially — in one band by the band's ascending order; across bands, the
//! higher row waits for the lower one (it is a boundary row of each band, and the higher one's
//! wait list names the lower one, or a later row of the same band, published after it). So
//! every execution is the serial order with steps that commute swapped, and each step sees
//! exactly the bodies the serial loop showed it: a body within its halo is at its new place
//! when its row is below, at its old one when above (an upper row within reach waits for it,
//! so it has not stepped; the grid applies a band's published rows only up to the ones waited
//! for). Chains across a cut hold by the same rule, pair by pair: a row of band A reading a row
//! of band B that read an earlier row of A sees B's row after that row of A stepped, since B's
//! row waited for it. The waits cannot deadlock: every wait is for a lower row, so the lowest
//! row not yet stepped can always step. A band's bodies beyond a boundary row's reach may be
//! stale in another band's grid while it steps; it never reads them.
//!
//! Only the cuts (on a sample of 1,024 positions; their exact costs are tallied on the pool)
//! and the longest step are found on one thread;
//! everything else of the loop runs on the pool (the serial fraction is what bounds the
//! speed-up on two threads, so each phase that used to run on the calling thread was moved):
//!
//! - *classify*: the rows are split into `CHUNKS_PER_BAND` chunks per band, classified in
//!   parallel, each chunk filing its rows per band in row order (`Filing`); each band then
//!   concatenates the chunks' filings in chunk order, so its lists are exactly the ascending
//!   lists one pass over the rows files (the canonical merge);
//! - *the world's grid*: rebuilt (from the positions before the loop, as the serial loop
//!   rebuilds it) in a task beside the bands' gathering and preparation (`rayon::join`), not
//!   before the loop on the calling thread; nothing reads it before the bands step (the home
//!   band steps in it);
//! - *the waits*: each band lists, for each of its boundary rows, how many of each other band's
//!   published rows it waits for (a grid over each band's boundary rows finds those within
//!   reach), on the pool before the loop ([`Plan`] counts them);
//! - *write-back*: each written column of the bands on copies a task, and one more task moves
//!   every body the other bands stepped in the world's grid to where its band left it (`SpatialGrid::update` of disjoint rows, so the
//!   order does not matter), instead of a serial pass after the write-back.
//!
//! Around the loop, the Motion phase's passes over every row run in chunks of rows on the pool
//! too: the update marks with their counts and fastest speed (`mark_updates`: sums and a
//! maximum, the same in any order), the rows the loop steps with their flags (`collect_steps`,
//! when every row steps: each chunk files its own rows in order), the velocity windows (`observe_velocities`: each row reads
//! and writes its own row), and the Motion Frame publication after the step (`publish`: each
//! row's frame reads its own row). The per-step scratch (filings, outboxes, cuts, sample)
//! is kept in [`Bands`] from step to step, so a step allocates only when it grows.
//!
//! The copies live for the loop only (the walking columns of each stepped row of the bands on
//! copies, a grid per band but the home band over its bodies and halo: a few hundred bytes per walker
//! at the loop's peak, none between steps).
//!
//! Bands never block a pool thread: whoever holds a band steps it until it must wait, then
//! tries another band (the lowest waiting row can always step), so the loop finishes whatever
//! else the pool runs. With one thread, or too few stepped rows, the serial loop runs instead
//! (and the world's grid is rebuilt on the calling thread right before it).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};

use rayon::prelude::*;

use super::placement::{Place, Span};
use super::{RowFlags, Stepping};
use crate::project::Vec2;
use crate::sim::spatial::SpatialGrid;
use crate::sim::state::Agents;
use crate::sim::walk::body::SAFETY_DIAMETER_M;
use crate::sim::walk::{Scratch as WalkScratch, WalkRows, NEIGHBOUR_CELL_M, OPPOSING_SCAN_M};

/// Stepped rows a band gets at least by default (fewer rows per thread step serially). A band
/// costs its copies, its grid and its waits at the cuts: on the 2-core machine, quiet, the
/// 1,000-walker street stepped 1,200 frames in 917 ms on two bands against about 700 ms
/// serially (`editor/benches/trajectories.rs`), so a world banding does not pay for steps on
/// one thread.
pub const DEFAULT_MIN_ROWS_PER_BAND: usize = 2048;
/// Added to the farthest a step reads when cutting the halo, meters (far above rounding; a
/// wider halo changes nothing but the copies' size).
const HALO_MARGIN_M: f64 = 1.0;
/// Rows sampled to place the cuts.
const CUT_SAMPLES: usize = 1024;
/// Chunks of rows per band that classifying the rows splits them into (a few, so a slow
/// thread's share is taken by the others).
const CHUNKS_PER_BAND: usize = 2;

/// Calls `$apply!` with the agent columns a walking-loop step reads or writes (`Stepping::row`,
/// `sim::walk::walk_agent` and what it calls): a band copies only these of its rows, the others
/// stay empty in its table (a step reading another column would index an empty column there,
/// and the thread-count tests fail: add the column here).
macro_rules! walk_columns {
    ($apply:ident ! ($($args:tt)*)) => {
        $apply!($($args)*; route, route_offset, route_len, path_offset_m, distance_m, direction, position,
            stops_at_route_end, facing, goal, speed_m_s, steer_deg, liveness, updated,
            skipped_steps, steps, walk_decision, state, flee_exit, target)
    };
}

/// Calls `$apply!` with the agent columns a walking-loop step may write (a subset of
/// [`walk_columns`]): what a band writes back.
macro_rules! written_columns {
    ($apply:ident ! ($($args:tt)*)) => {
        $apply!($($args)*; distance_m, direction, position, facing, goal, steer_deg,
            skipped_steps, steps, walk_decision, state)
    };
}

/// Replaces the listed columns of `$copy` with `$source`'s rows `$rows`, in that order.
macro_rules! copy_rows {
    ($copy:expr, $source:expr, $rows:expr; $($column:ident),*) => {
        $($copy.$column.clear();
          $copy.$column.extend($rows.iter().map(|r| $source.$column[*r as usize].clone()));)*
    };
}

/// Writes each part's rows back into `$target`'s listed columns (row `i` of a part's table to
/// row `rows[i]`), one task per column spawned on `$scope`; the parts' rows are disjoint.
macro_rules! write_rows {
    ($scope:expr, $target:expr, $parts:expr; $($column:ident),*) => {
        let parts: &[(&Agents, &[u32])] = $parts;
        $(let column = &mut $target.$column;
          $scope.spawn(move |_| {
              for (part, rows) in parts {
                  for (value, row) in part.$column.iter().zip(rows.iter()) {
                      column[*row as usize] = value.clone();
                  }
              }
          });)*
    };
}

/// One row the loop steps: its row and how.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Step {
    /// The agent's row.
    pub row: u32,
    /// Whether the crossings move it, whether it is in the avoidance window.
    pub flags: RowFlags,
}

/// The bands' buffers, kept from step to step (derived scratch, never state).
#[derive(Debug, Default)]
pub struct Bands {
    bands: Vec<Band>,
    outboxes: Vec<Outbox>,
    /// Per chunk of rows, what classifying it filed for each band (merged in chunk order).
    filings: Vec<Vec<Filing>>,
    cuts: Vec<f64>,
    /// The cuts across the other axis (the candidates `place_cuts` did not pick).
    cuts_y: Vec<f64>,
    /// The sampled positions' x (then y), sorted.
    sample: Vec<f64>,
    sample_y: Vec<f64>,
    /// Each band's span of stepped rows and where it steps them (`motion::placement`).
    spans: Vec<Option<Span>>,
    places: Vec<Place>,
    /// Stepped rows a band gets at least.
    pub(in crate::sim) min_rows: Option<usize>,
    /// Bands the last walking loop ran in (1: serially).
    pub(in crate::sim) last_count: usize,
    /// What the last banded loop planned (zero after a serial one).
    pub(in crate::sim) last_plan: Plan,
    /// Bands the last banded loop stepped in place besides the home band.
    pub(in crate::sim) last_in_place: usize,
}

/// What one banded loop planned: its rows near a cut and the waits among them (the same on
/// every run of the same step with as many bands).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::sim) struct Plan {
    /// Rows near a cut (boundary rows).
    pub boundary_rows: usize,
    /// Pairs (boundary row, other band) where the row waits for some row of that band.
    pub waits: usize,
    /// Pairs (boundary row, other band) where that band has a boundary row below the row:
    /// what the waits were when a boundary row waited for every one below it.
    pub waits_on_every_row_below: usize,
}

impl Plan {
    /// Both plans' counts added.
    fn plus(self, other: Plan) -> Plan {
        Plan {
            boundary_rows: self.boundary_rows + other.boundary_rows,
            waits: self.waits + other.waits,
            waits_on_every_row_below: self.waits_on_every_row_below
                + other.waits_on_every_row_below,
        }
    }
}

impl Clone for Bands {
    /// Buffers only: a clone starts empty (keeping the threshold).
    fn clone(&self) -> Bands {
        Bands {
            min_rows: self.min_rows,
            ..Bands::default()
        }
    }
}

impl Bands {
    /// Heap bytes of the bands' buffers.
    pub fn heap_bytes(&self) -> usize {
        self.bands.iter().map(Band::heap_bytes).sum::<usize>()
            + self
                .filings
                .iter()
                .flatten()
                .map(Filing::heap_bytes)
                .sum::<usize>()
            + self
                .outboxes
                .iter()
                .map(|o| {
                    o.rows.capacity() * 4
                        + o.values.capacity() * 32
                        + o.points.capacity() * 16
                        + o.reach.heap_bytes()
                })
                .sum::<usize>()
    }
}

/// One band: the rows it steps, their copies, its grid.
#[derive(Debug, Default)]
struct Band {
    /// Rows it steps, ascending (its table's rows `0..own.len()`).
    own: Vec<u32>,
    flags: Vec<RowFlags>,
    /// Per own row: near a cut (it may read, and be read by, another band's rows).
    boundary: Vec<bool>,
    /// The other bodies its grid holds (grid points after the own rows), ascending.
    others: Vec<u32>,
    agents: Agents,
    grid: SpatialGrid,
    scratch: WalkScratch,
    points: Vec<Vec2>,
    velocities: Vec<Vec2>,
    facings: Vec<Vec2>,
    /// Next own row to step.
    cursor: usize,
    /// Boundary rows published so far.
    published: usize,
    /// Per band: how many of its published rows this grid has applied.
    applied: Vec<usize>,
    /// Per own boundary row (in order), per band: how many of that band's published rows it
    /// waits for (one past the last one below it within its reach; see [`Band::plan_waits`]).
    needs: Vec<u32>,
    /// What [`Band::plan_waits`] planned for its rows.
    plan: Plan,
}

impl Band {
    fn heap_bytes(&self) -> usize {
        (self.own.capacity() + self.others.capacity()) * 4
            + self.flags.capacity() * std::mem::size_of::<RowFlags>()
            + self.boundary.capacity()
            + self.agents.heap_bytes()
            + self.grid.heap_bytes()
            + (self.points.capacity() + self.velocities.capacity() + self.facings.capacity()) * 16
            + self.needs.capacity() * 4
    }

    fn clear(&mut self, bands: usize) {
        self.own.clear();
        self.flags.clear();
        self.boundary.clear();
        self.others.clear();
        self.cursor = 0;
        self.published = 0;
        self.applied.clear();
        self.applied.resize(bands, 0);
        self.needs.clear();
    }

    /// Its lists, the chunks' filings for band `index` in chunk order (so every list is
    /// ascending, as one pass over the rows files them), and its outbox's rows.
    fn gather(&mut self, index: usize, filings: &[Vec<Filing>], outbox: &mut Outbox) {
        for filing in filings.iter().filter_map(|chunk| chunk.get(index)) {
            self.own.extend_from_slice(&filing.own);
            self.flags.extend_from_slice(&filing.flags);
            self.boundary.extend_from_slice(&filing.boundary);
            self.others.extend_from_slice(&filing.others);
            outbox.rows.extend_from_slice(&filing.published);
        }
        let needed = outbox.rows.len();
        if outbox.values.len() < needed {
            outbox.values.resize_with(needed, Default::default);
        }
    }

    fn finished(&self) -> bool {
        self.cursor >= self.own.len()
    }

    /// Copies its rows (a band on copies) and builds its grid over them and the other bodies
    /// it holds.
    fn prepare(&mut self, agents: &Agents, place: Place) {
        if place == Place::Copies {
            walk_columns!(copy_rows!(self.agents, agents, self.own));
        }
        let rows = || self.own.iter().chain(&self.others).map(|r| *r as usize);
        self.points.clear();
        self.points.extend(rows().map(|r| agents.position[r]));
        self.velocities.clear();
        self.velocities
            .extend(rows().map(|r| agents.velocity_m_s[r]));
        self.facings.clear();
        self.facings.extend(rows().map(|r| agents.facing[r]));
        self.grid.rebuild_bodies(
            &self.points,
            &self.velocities,
            &self.facings,
            NEIGHBOUR_CELL_M,
        );
    }

    /// Steps own rows from the cursor until one must wait for another band (or all are
    /// stepped); whether any row stepped. The home band steps them in its view of the world's
    /// rows (`rows`, from row 0) and the world's grid (`world_grid`), a band in place in its
    /// view (from its first row) and its own grid, the others in their copies.
    fn advance(
        &mut self,
        (mut rows, mut world_grid): (Option<&mut (WalkRows<'_>, usize)>, Option<&mut SpatialGrid>),
        me: usize,
        outboxes: &[Outbox],
        (stepping, count_skip): (&Stepping<'_>, bool),
    ) -> bool {
        let start = self.cursor;
        while self.cursor < self.own.len() {
            let local = self.cursor;
            if self.boundary[local] && !self.import_needed(me, outboxes, world_grid.as_deref_mut())
            {
                break;
            }
            let grid = match world_grid.as_deref_mut() {
                Some(grid) => grid,
                None => &mut self.grid,
            };
            let flags = self.flags[local];
            let scratch = (grid, &mut self.scratch);
            let moved = match rows.as_deref_mut() {
                Some((view, base)) => {
                    let index = self.own[local] as usize - *base;
                    stepping.row(scratch, view, index, flags, count_skip);
                    (view.position[index], view.facing[index])
                }
                None => {
                    let mut copies = WalkRows::of(&mut self.agents);
                    stepping.row(scratch, &mut copies, local, flags, count_skip);
                    (copies.position[local], copies.facing[local])
                }
            };
            if self.boundary[local] {
                let outbox = &outboxes[me];
                outbox.write(self.published, moved.0, moved.1);
                self.published += 1;
                outbox.done.store(self.published, Ordering::Release);
            }
            self.cursor += 1;
        }
        if self.finished() && world_grid.is_none() {
            if let Some((view, base)) = rows {
                self.keep_moved(view, *base);
            }
        }
        self.cursor > start
    }

    /// A band in place keeps its rows' new positions and facings (its first grid points) for
    /// the world's grid, which [`write_back`] moves them in.
    fn keep_moved(&mut self, view: &WalkRows<'_>, base: usize) {
        let own = self.own.len();
        self.points.truncate(own);
        self.facings.truncate(own);
        let moved = self.own.iter().map(|row| *row as usize - base);
        for ((point, facing), index) in self.points.iter_mut().zip(&mut self.facings).zip(moved) {
            *point = view.position[index];
            *facing = view.facing[index];
        }
    }

    /// Lists, for each own boundary row (its outbox's rows, in order) and each other band, how
    /// many of that band's published rows it waits for: one past the last of them below it
    /// (in row order) whose position before the loop is within `halo_m` of its own (the
    /// farthest either step reads, so no other row of that band is read by it or reads it).
    fn plan_waits(&mut self, me: usize, outboxes: &[Outbox], agents: &Agents, halo_m: f64) {
        let halo_sq = halo_m * halo_m;
        self.needs.clear();
        let mut plan = Plan {
            boundary_rows: outboxes[me].rows.len(),
            ..Plan::default()
        };
        for &row in &outboxes[me].rows {
            let p = agents.position[row as usize];
            for (band, outbox) in outboxes.iter().enumerate() {
                let mut needed = 0;
                if band != me {
                    outbox.reach.for_each_point_near(p, halo_m, |entry, q| {
                        let (dx, dy) = (q.x - p.x, q.y - p.y);
                        let below = outbox.rows[entry as usize] < row;
                        if below && dx * dx + dy * dy <= halo_sq {
                            needed = needed.max(entry + 1);
                        }
                    });
                    plan.waits += usize::from(needed > 0);
                    plan.waits_on_every_row_below +=
                        usize::from(outbox.rows.first().is_some_and(|r| *r < row));
                }
                self.needs.push(needed);
            }
        }
        self.plan = plan;
    }

    /// Applies the published rows the next boundary row waits for (`needs`) to its grid (the
    /// world's for the home band); `false` when some band has not stepped them all yet.
    fn import_needed(
        &mut self,
        me: usize,
        outboxes: &[Outbox],
        mut world_grid: Option<&mut SpatialGrid>,
    ) -> bool {
        let own_count = self.own.len();
        let first = self.published * outboxes.len();
        for (band, outbox) in outboxes.iter().enumerate() {
            let needed = self.needs[first + band] as usize;
            if band == me || needed <= self.applied[band] {
                continue;
            }
            if outbox.done.load(Ordering::Acquire) < needed {
                return false;
            }
            for entry in self.applied[band]..needed {
                let row = outbox.rows[entry];
                let (position, facing) = outbox.read(entry);
                if let Some(grid) = world_grid.as_deref_mut() {
                    grid.update(row as usize, position, facing);
                } else if let Ok(at) = self.others.binary_search(&row) {
                    self.grid.update(own_count + at, position, facing);
                }
            }
            self.applied[band] = needed;
        }
        true
    }
}

/// A band as the pool steps it: the home band with its view of the world's rows (from row 0)
/// and the world's grid, a band in place with its view (and the row it starts at), a band on
/// copies with neither (no other band reads the world's rows or grid while the bands step).
struct Work<'a> {
    band: Band,
    rows: Option<(WalkRows<'a>, usize)>,
    world_grid: Option<&'a mut SpatialGrid>,
}

/// What classifying one chunk of rows filed for one band, in row order: its stepped rows (with
/// their flags and whether each is a boundary row, and the boundary rows again, for its
/// outbox) and the other bodies its grid holds.
#[derive(Debug, Default)]
struct Filing {
    own: Vec<u32>,
    flags: Vec<RowFlags>,
    boundary: Vec<bool>,
    published: Vec<u32>,
    others: Vec<u32>,
}

impl Filing {
    fn heap_bytes(&self) -> usize {
        (self.own.capacity() + self.published.capacity() + self.others.capacity()) * 4
            + self.flags.capacity() * std::mem::size_of::<RowFlags>()
            + self.boundary.capacity()
    }

    fn clear(&mut self) {
        self.own.clear();
        self.flags.clear();
        self.boundary.clear();
        self.published.clear();
        self.others.clear();
    }

    fn push_own(&mut self, step: &Step, boundary: bool) {
        self.own.push(step.row);
        self.flags.push(step.flags);
        self.boundary.push(boundary);
        if boundary {
            self.published.push(step.row);
        }
    }
}

/// A band's boundary rows (ascending) and, as they step, their new position and facing.
#[derive(Debug, Default)]
struct Outbox {
    rows: Vec<u32>,
    /// Position x, y and facing x, y of each published row, as bits.
    values: Vec<[AtomicU64; 4]>,
    /// Rows published (written before this count is stored, with release).
    done: AtomicUsize,
    /// The rows' positions before the loop, and a grid over them (its points are entries).
    points: Vec<Vec2>,
    reach: SpatialGrid,
}

impl Outbox {
    fn clear(&mut self) {
        self.rows.clear();
        *self.done.get_mut() = 0;
    }

    /// Indexes its rows' positions before the loop, in cells of `halo_m` (for
    /// [`Band::plan_waits`]).
    fn index_reach(&mut self, agents: &Agents, halo_m: f64) {
        self.points.clear();
        self.points
            .extend(self.rows.iter().map(|r| agents.position[*r as usize]));
        self.reach.rebuild(&self.points, halo_m);
    }

    fn write(&self, entry: usize, position: Vec2, facing: Vec2) {
        let slot = &self.values[entry];
        for (cell, value) in slot
            .iter()
            .zip([position.x, position.y, facing.x, facing.y])
        {
            cell.store(value.to_bits(), Ordering::Relaxed);
        }
    }

    fn read(&self, entry: usize) -> (Vec2, Vec2) {
        let [px, py, fx, fy] = self.values[entry]
            .each_ref()
            .map(|cell| f64::from_bits(cell.load(Ordering::Relaxed)));
        (Vec2 { x: px, y: py }, Vec2 { x: fx, y: fy })
    }
}

/// The farthest from its own grid position a step reads a body's grid position, meters: the
/// scan's reach (`sim::walk::neighbours`: the opposing scan, or the diameter plus the step when
/// longer) for a step of at most `step_m`, plus twice `moved_m`, the most a body moves in the
/// loop (the reader's own body has not moved; a read body may have), and a margin.
pub(super) fn halo_m(step_m: f64, moved_m: f64) -> f64 {
    (SAFETY_DIAMETER_M + step_m).max(OPPOSING_SCAN_M) + 2.0 * moved_m + HALO_MARGIN_M
}

/// How the ground is cut: along `x` or `y`, at `cuts` (ascending; band `b` holds the
/// coordinates from cut `b − 1` up to cut `b`).
struct Cutting<'a> {
    along_x: bool,
    cuts: &'a [f64],
}

impl Cutting<'_> {
    fn coordinate(&self, p: Vec2) -> f64 {
        if self.along_x {
            p.x
        } else {
            p.y
        }
    }

    fn band_of(&self, c: f64) -> usize {
        self.cuts.partition_point(|cut| *cut <= c)
    }
}

/// The world's neighbour grid and what rebuilding it reads besides the agents (see
/// `motion::rebuild_grid`): the banded loop rebuilds it beside the bands' own preparation and
/// leaves it as the serial loop would (every stepped body where it is now).
pub(super) struct WorldGrid<'a> {
    /// The world's grid.
    pub grid: &'a mut SpatialGrid,
    /// Scratch points of the rebuild.
    pub points: &'a mut Vec<Vec2>,
    /// Whether any row is pooled (left out of the grid).
    pub any_pooled: bool,
}

/// Steps `steps` (ascending rows) in bands on the current pool when it has several threads and
/// there are enough rows, rebuilding `world`'s grid meanwhile; `false` (nothing changed, the
/// world's grid not rebuilt) when the serial loop should run instead. `moved_m` bounds how far
/// any row moves, `dt` is the fixed step.
pub(super) fn step_in_bands(
    bands: &mut Bands,
    stepping: &Stepping<'_>,
    (agents, world): (&mut Agents, WorldGrid<'_>),
    steps: &[Step],
    (count_skip, moved_m, dt): (bool, f64, f64),
) -> bool {
    let min_rows = bands.min_rows.unwrap_or(DEFAULT_MIN_ROWS_PER_BAND).max(1);
    bands.last_count = 1;
    bands.last_plan = Plan::default();
    bands.last_in_place = 0;
    let count = rayon::current_num_threads().min(steps.len() / min_rows);
    if count < 2 || !moved_m.is_finite() {
        return false;
    }
    let longest_m = longest_step_m(agents, steps, dt);
    if !longest_m.is_finite() {
        return false;
    }
    let halo = halo_m(longest_m, moved_m);
    let Some(along_x) = place_cuts(bands, agents, steps, (count, halo)) else {
        return false;
    };
    let Bands {
        bands: band_list,
        outboxes,
        filings,
        cuts,
        spans,
        places,
        ..
    } = bands;
    let cutting = Cutting { along_x, cuts };
    reset(band_list, outboxes, count);
    classify(filings, agents, steps, (&cutting, halo), count);
    spans_of(filings, count, spans);
    let home = super::placement::place(spans, places);
    let placed: &[Place] = places;
    let shared: &Agents = agents;
    let WorldGrid {
        grid,
        points,
        any_pooled,
    } = world;
    let filed: &[Vec<Filing>] = filings;
    rayon::join(
        || super::rebuild_grid(grid, points, shared, any_pooled),
        || {
            band_list
                .par_iter_mut()
                .zip(outboxes.par_iter_mut())
                .enumerate()
                .for_each(|(index, (band, outbox))| {
                    band.gather(index, filed, outbox);
                    if index != home {
                        band.prepare(shared, placed[index]);
                    }
                    outbox.index_reach(shared, halo);
                })
        },
    );
    let published: &[Outbox] = outboxes;
    band_list
        .par_iter_mut()
        .enumerate()
        .for_each(|(index, band)| band.plan_waits(index, published, shared, halo));
    let views = super::placement::views(WalkRows::of(agents), spans, placed);
    run_placed(
        band_list,
        (views, &mut *grid, home),
        outboxes,
        (stepping, count_skip),
    );
    write_back(band_list, placed, agents, grid);
    bands.last_count = count;
    bands.last_in_place = placed.iter().filter(|p| **p == Place::Range).count();
    bands.last_plan = band_list
        .iter()
        .fold(Plan::default(), |sum, band| sum.plus(band.plan));
    // The copies live for the loop only (a world between steps holds no second copy of its
    // walkers); the allocator hands the same memory back next step.
    bands.bands.clear();
    true
}

/// The longest step any of `steps` may take, meters (a row not updated counts one more skipped
/// step).
fn longest_step_m(agents: &Agents, steps: &[Step], dt: f64) -> f64 {
    steps.iter().fold(0.0, |longest_m: f64, step| {
        let row = step.row as usize;
        let steps_of_time = f64::from(agents.skipped_steps[row]) + 2.0;
        longest_m.max(agents.speed_m_s[row].abs() * dt * steps_of_time)
    })
}

/// `count` cleared bands and outboxes, keeping what they allocated before.
fn reset(band_list: &mut Vec<Band>, outboxes: &mut Vec<Outbox>, count: usize) {
    band_list.resize_with(count, Band::default);
    band_list.truncate(count);
    outboxes.resize_with(count, Outbox::default);
    outboxes.truncate(count);
    for band in band_list.iter_mut() {
        band.clear(count);
    }
    for outbox in outboxes.iter_mut() {
        outbox.clear();
    }
}

/// Each band's span of stepped rows (`None`: none), from the chunks' filings (in chunk order,
/// so each band's rows ascend across them).
fn spans_of(filings: &[Vec<Filing>], count: usize, spans: &mut Vec<Option<Span>>) {
    spans.clear();
    spans.extend((0..count).map(|band| {
        let owns = || filings.iter().filter_map(|chunk| chunk.get(band));
        let first = owns().find_map(|filing| filing.own.first())?;
        let last = owns().filter_map(|filing| filing.own.last()).next_back()?;
        Some(Span {
            first: *first as usize,
            last: *last as usize,
            rows: owns().map(|filing| filing.own.len()).sum(),
        })
    }));
}

/// Writes the rows of every band on copies back (each written column a task) and, in a task
/// beside them, moves each body a band but the home band stepped in the world's grid to where
/// it is now (the serial loop's grid): a band on copies's from its copies, a band in place's
/// from what it kept ([`Band::keep_moved`]).
fn write_back(band_list: &[Band], places: &[Place], agents: &mut Agents, grid: &mut SpatialGrid) {
    let placed = || band_list.iter().zip(places.iter().copied());
    let parts: Vec<(&Agents, &[u32])> = placed()
        .filter(|(_, place)| *place == Place::Copies)
        .map(|(band, _)| (&band.agents, band.own.as_slice()))
        .collect();
    let moved: Vec<(&[u32], &[Vec2], &[Vec2])> = placed()
        .filter_map(|(band, place)| {
            match place {
                Place::Home => None,
                Place::Copies => Some((&band.agents.position[..], &band.agents.facing[..])),
                Place::Range => Some((&band.points[..], &band.facings[..])),
            }
            .map(|(positions, facings)| (band.own.as_slice(), positions, facings))
        })
        .collect();
    let parts = parts.as_slice();
    rayon::scope(|scope| {
        scope.spawn(move |_| {
            for (rows, positions, facings) in moved {
                for ((row, position), facing) in rows.iter().zip(positions).zip(facings) {
                    grid.update(*row as usize, *position, *facing);
                }
            }
        });
        if !parts.is_empty() {
            written_columns!(write_rows!(scope, agents, parts));
        }
    });
}

/// Places `count − 1` cuts along the axis where they cost least (`motion::cuts`: near the
/// quantiles of a sample of the stepped rows' positions, at the gaps with the fewest sampled
/// rows within `halo_m`; the axis on exact costs, on equal ones across the longer extent of
/// the sample); the axis (`true`: x), or `None` without a finite position.
fn place_cuts(
    bands: &mut Bands,
    agents: &Agents,
    steps: &[Step],
    (count, halo_m): (usize, f64),
) -> Option<bool> {
    let Bands {
        sample,
        sample_y,
        cuts,
        cuts_y,
        ..
    } = bands;
    sample.clear();
    sample_y.clear();
    for step in sampled(steps) {
        let p = agents.position[step.row as usize];
        if p.x.is_finite() && p.y.is_finite() {
            sample.push(p.x);
            sample_y.push(p.y);
        }
    }
    let (Some(_), Some(_)) = (sample.first(), sample_y.first()) else {
        return None;
    };
    sample.sort_unstable_by(f64::total_cmp);
    sample_y.sort_unstable_by(f64::total_cmp);
    let extent = |sorted: &[f64]| sorted[sorted.len() - 1] - sorted[0];
    let longer_x = extent(sample) >= extent(sample_y);
    super::cuts::place(sample, count, halo_m, cuts);
    super::cuts::place(sample_y, count, halo_m, cuts_y);
    let (cost_x, cost_y) = super::cuts::exact_costs(agents, steps, (cuts, cuts_y), halo_m);
    let along_x = cost_x < cost_y || (cost_x == cost_y && longer_x);
    if !along_x {
        std::mem::swap(cuts, cuts_y);
    }
    Some(along_x)
}

/// At most [`CUT_SAMPLES`] of `steps`: one from each run of `stride` rows, at an offset in it
/// a hash of the run's index picks (every `stride`-th row would see only one of rows that
/// alternate, such as the long street's two sidewalks, and cut along the street, where each row
/// reads the one before it, instead of along the road between them).
fn sampled(steps: &[Step]) -> impl Iterator<Item = &Step> {
    let stride = steps.len().div_ceil(CUT_SAMPLES).max(1);
    (0..steps.len().div_ceil(stride)).filter_map(move |run| {
        let hash = (run as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        let offset = usize::try_from(hash).unwrap_or(0) % stride;
        steps.get((run * stride + offset).min(steps.len() - 1))
    })
}

/// Files every row, in chunks of rows classified in parallel (each chunk's filings per band,
/// `filings[chunk][band]`, which the bands merge in chunk order): a stepped row with a finite
/// position to the band its position is in (near a cut: a boundary row, published), one
/// without to band 0; every body (not pooled, finite) to the grid of every other band whose
/// halo holds it, and a body not stepped to its own band's grid too.
fn classify(
    filings: &mut Vec<Vec<Filing>>,
    agents: &Agents,
    steps: &[Step],
    (cutting, halo): (&Cutting<'_>, f64),
    count: usize,
) {
    let rows = agents.len();
    let chunks = (count * CHUNKS_PER_BAND).min(rows.max(1));
    filings.resize_with(chunks, Vec::new);
    filings.truncate(chunks);
    filings
        .par_iter_mut()
        .enumerate()
        .for_each(|(chunk, filing)| {
            filing.resize_with(count, Filing::default);
            filing.truncate(count);
            filing.iter_mut().for_each(Filing::clear);
            let (start, end) = (chunk * rows / chunks, (chunk + 1) * rows / chunks);
            let first = steps.partition_point(|s| (s.row as usize) < start);
            let last = steps.partition_point(|s| (s.row as usize) < end);
            let rows = (start, end);
            classify_rows(filing, agents, &steps[first..last], rows, (cutting, halo));
        });
}

/// [`classify`] of rows `start..end`, whose stepped rows are `steps`.
fn classify_rows(
    filing: &mut [Filing],
    agents: &Agents,
    steps: &[Step],
    (start, end): (usize, usize),
    (cutting, halo): (&Cutting<'_>, f64),
) {
    let mut next = steps.iter().peekable();
    for row in start..end {
        let step = next.next_if(|s| s.row as usize == row);
        if agents.pooled[row] && step.is_none() {
            continue;
        }
        let p = agents.position[row];
        if !(p.x.is_finite() && p.y.is_finite()) {
            // Never a body; a stepped one reads no body either.
            if let Some(step) = step {
                filing[0].push_own(step, false);
            }
            continue;
        }
        let c = cutting.coordinate(p);
        let home = cutting.band_of(c);
        let (first, last) = (cutting.band_of(c - halo), cutting.band_of(c + halo));
        if let Some(step) = step {
            filing[home].push_own(step, first < last);
        } else if !agents.pooled[row] {
            filing[home].others.push(row as u32);
        }
        if agents.pooled[row] {
            continue;
        }
        for (index, band) in filing.iter_mut().enumerate().take(last + 1).skip(first) {
            if index != home {
                band.others.push(row as u32);
            }
        }
    }
}

/// Steps every band to its end where it was placed (`views`: each band's view of the world's
/// rows, if any; the world's `grid` goes to the `home` band), taking the bands out of
/// `band_list` for the loop and putting them back.
fn run_placed<'a>(
    band_list: &mut Vec<Band>,
    (views, grid, home): (
        Vec<Option<(WalkRows<'a>, usize)>>,
        &'a mut SpatialGrid,
        usize,
    ),
    outboxes: &[Outbox],
    (stepping, count_skip): (&Stepping<'_>, bool),
) {
    let mut world_grid = Some(grid);
    let work: Vec<Mutex<Work<'a>>> = band_list
        .drain(..)
        .zip(views)
        .enumerate()
        .map(|(index, (band, rows))| {
            let world_grid = world_grid.take_if(|_| index == home);
            Mutex::new(Work {
                band,
                rows,
                world_grid,
            })
        })
        .collect();
    run(&work, outboxes, stepping, count_skip);
    band_list.extend(work.into_iter().map(|work| {
        work.into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .band
    }));
}

/// Steps every band to its end: one task per band on the current pool, each stepping whichever
/// band it can lock (its own first) until every band is finished.
fn run(work: &[Mutex<Work<'_>>], outboxes: &[Outbox], stepping: &Stepping<'_>, count_skip: bool) {
    // A band without rows is finished before it starts.
    let empty = work
        .iter()
        .filter(|work| work.lock().is_ok_and(|work| work.band.finished()))
        .count();
    let finished = AtomicUsize::new(empty);
    rayon::scope(|scope| {
        for first in 0..work.len() {
            let finished = &finished;
            scope.spawn(move |_| help(first, work, outboxes, (stepping, count_skip), finished));
        }
    });
}

/// One task of [`run`]: steps any unfinished band it can lock, starting at `first`, until all
/// are finished (a band left locked by a panic ends the task; the panic reaches the caller).
fn help(
    first: usize,
    work: &[Mutex<Work<'_>>],
    outboxes: &[Outbox],
    stepping: (&Stepping<'_>, bool),
    finished: &AtomicUsize,
) {
    let count = work.len();
    let mut idle = 0u32;
    while finished.load(Ordering::Acquire) < count {
        let mut progressed = false;
        for index in (first..count).chain(0..first) {
            let mut guard = match work[index].try_lock() {
                Ok(guard) => guard,
                Err(TryLockError::WouldBlock) => continue,
                Err(TryLockError::Poisoned(_)) => return,
            };
            let Work {
                band,
                rows,
                world_grid,
            } = &mut *guard;
            if band.finished() {
                continue;
            }
            let place = (rows.as_mut(), world_grid.as_deref_mut());
            progressed |= band.advance(place, index, outboxes, stepping);
            if band.finished() {
                finished.fetch_add(1, Ordering::AcqRel);
            }
        }
        if progressed {
            idle = 0;
        } else {
            idle += 1;
            if idle < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}
