//! A uniform spatial grid over ground points for neighbour queries: rebuilt by a counting sort in
//! time linear in the points, queried cell by cell in a fixed order (row-major cells, ascending
//! point index within a cell), so results never depend on hashing or insertion history. Each
//! entry carries its body (position, velocity, facing) in cell order, so a query reads what a
//! mover needs of its neighbours from one contiguous run.
//!
//! A cell is one row tall (`cell_m`) and [`COLUMN_SPLIT`] times narrower, so a disc query's
//! runs (one per row, over the cells its chord of the disc reaches) end within a fraction of a
//! cell of the chord while a query still hands out one run per row.
//!
//! The body columns are padded to whole blocks of [`COLUMN_BLOCK`] slots with a block to spare
//! past the last slot, so a block of lanes read from any slot lies inside them: every reader
//! reads whole blocks and masks the lanes past its run, with one lane-mask implementation and
//! no scalar tail beside it. The rebuild's bounds and cells run in AVX-512 lanes where the CPU
//! has them (picked by [`multiversion`]), each lane the scalar operations (tests compare both).
//! A large rebuild scatters the bodies one column pair at a time (position, velocity, facing),
//! three tasks on the current rayon pool that write disjoint columns (the same columns on any
//! number of threads).

use std::ops::Range;

use multiversion::multiversion;

use crate::project::Vec2;

/// Cells a grid may have per point (plus a floor): past it the cell size doubles until it fits,
/// so memory stays linear in the points however spread out they are.
const CELLS_PER_POINT: usize = 4;
/// Cells any grid may have regardless of the point count.
const MIN_CELL_BUDGET: usize = 64;
/// Slots of a block of lanes (eight `f64`s: one AVX-512 vector): the body columns hold whole
/// blocks, and at least one block past the last slot (padding a query never finds: NaN).
pub const COLUMN_BLOCK: usize = 8;
/// Columns per row height: a cell is `cell_m` tall and `cell_m / COLUMN_SPLIT` wide. A power
/// of two, so a coordinate in column units is exactly that in row units times it (the chords,
/// computed in row units, are scaled exactly). With square 1.75 m cells a walker on the
/// 10,000-walker street scanned 47 bodies (7.5 blocks of lanes) to find its 19; with cells a
/// quarter as wide the runs hug the chords and it scans 33 (5.8 blocks).
pub const COLUMN_SPLIT: f64 = 4.0;
/// Grid rows of a disc query whose runs are computed together before the first of them is
/// visited (a walker's scan reaches about five).
const RUN_BATCH_ROWS: usize = 8;

/// Relative margin around a squared limit within which [`hypot_at_least`] asks `hypot`
/// itself: far wider than the few-ulp errors of the squared sum and of `hypot`.
const SQUARED_MARGIN: f64 = 1e-9;

/// How `dx.hypot(dy)` compares with `limit_m` where the squared sum decides it: outside a
/// relative margin of `limit_m²` both roundings agree on the side. `None` near the limit, for a
/// limit whose square is tiny or infinite, and for any non-finite input (`hypot` decides).
#[inline]
fn squared_side(dx: f64, dy: f64, limit_m: f64) -> Option<std::cmp::Ordering> {
    let limit_sq = limit_m * limit_m;
    let distance_sq = dx * dx + dy * dy;
    if !(limit_sq.is_finite() && limit_sq > 1e-200 && limit_m > 0.0) {
        return None;
    }
    if distance_sq < limit_sq * (1.0 - SQUARED_MARGIN) {
        Some(std::cmp::Ordering::Less)
    } else if distance_sq > limit_sq * (1.0 + SQUARED_MARGIN) && distance_sq.is_finite() {
        Some(std::cmp::Ordering::Greater)
    } else {
        None
    }
}

/// Exactly `dx.hypot(dy) >= limit_m`, without the library call away from the limit
/// (see [`squared_side`]).
#[inline]
pub fn hypot_at_least(dx: f64, dy: f64, limit_m: f64) -> bool {
    match squared_side(dx, dy, limit_m) {
        Some(side) => side == std::cmp::Ordering::Greater,
        None => dx.hypot(dy) >= limit_m,
    }
}

/// The squared distance below which [`hypot_at_most`] is true by its squared sum alone:
/// `dx * dx + dy * dy < at_most_screen_sq(limit_m)` implies `hypot_at_most(dx, dy, limit_m)`
/// (the same comparison [`squared_side`] makes); −∞ where that shortcut never applies. For a
/// limit shared by many tests, computed once.
#[inline]
pub fn at_most_screen_sq(limit_m: f64) -> f64 {
    let limit_sq = limit_m * limit_m;
    if limit_sq.is_finite() && limit_sq > 1e-200 && limit_m > 0.0 {
        limit_sq * (1.0 - SQUARED_MARGIN)
    } else {
        f64::NEG_INFINITY
    }
}

/// Exactly `dx.hypot(dy) <= limit_m` (see [`squared_side`]).
#[inline]
pub fn hypot_at_most(dx: f64, dy: f64, limit_m: f64) -> bool {
    match squared_side(dx, dy, limit_m) {
        Some(side) => side == std::cmp::Ordering::Less,
        None => dx.hypot(dy) <= limit_m,
    }
}

/// What the grid keeps of each point for the movers that query it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    /// Current position (as last rebuilt or updated), meters.
    pub position: Vec2,
    /// Observed velocity at the rebuild, meters per second.
    pub velocity: Vec2,
    /// Unit facing (as last rebuilt or updated).
    pub facing: Vec2,
}

/// Points bucketed into square cells; point indices are `u32` (a world's rows).
#[derive(Clone, Debug, Default)]
pub struct SpatialGrid {
    cell_m: f64,
    origin: Vec2,
    columns: usize,
    rows: usize,
    /// `cell_start[c]..cell_start[c + 1]` are cell `c`'s entries.
    cell_start: Vec<u32>,
    /// Point indices sorted by cell, ascending within a cell.
    entries: Vec<u32>,
    /// Cell of each point (`u32::MAX` for a non-finite point, which is never found).
    cell_of: Vec<u32>,
    /// The points' bodies in `entries` order, one column per component, kept current by
    /// [`SpatialGrid::update`] so a query reads each component contiguously.
    bodies: Columns,
    /// Where each point sits in `entries` (`u32::MAX` when left out).
    slot_of: Vec<u32>,
    /// `1 / cell_m` (rows).
    inverse_cell: f64,
    /// `COLUMN_SPLIT / cell_m` (columns).
    inverse_column: f64,
    /// The margin [`SpatialGrid::for_each_run_near`] widens its chords by, in cells (set by
    /// the rebuild from the grid's size).
    run_margin: f64,
}

/// The bodies' components as columns in `entries` order.
#[derive(Clone, Debug, Default)]
struct Columns {
    x: Vec<f64>,
    y: Vec<f64>,
    vx: Vec<f64>,
    vy: Vec<f64>,
    fx: Vec<f64>,
    fy: Vec<f64>,
}

impl Columns {
    /// Refills the `slots` columns: each point's body (a missing velocity or facing is zero)
    /// written at its slot (`slot_of`, `u32::MAX` for one left out), the points read once in
    /// order (gathering them in slot order read them again for every band of cells they fall
    /// in); the padding past them (see [`padded_len`]) is NaN.
    fn scatter(
        &mut self,
        slots: usize,
        slot_of: &[u32],
        points: &[Vec2],
        velocities: &[Vec2],
        facings: &[Vec2],
    ) {
        for column in [
            &mut self.x,
            &mut self.y,
            &mut self.vx,
            &mut self.vy,
            &mut self.fx,
            &mut self.fy,
        ] {
            column.resize(padded_len(slots), 0.0);
            if let Some(padding) = column.get_mut(slots..) {
                padding.fill(f64::NAN);
            }
        }
        if slot_of.len() >= PAIRED_SCATTER_POINTS {
            self.scatter_pairs(slot_of, points, velocities, facings);
        } else {
            self.scatter_fused(slot_of, points, velocities, facings);
        }
    }

    /// [`Columns::scatter`]'s bodies in one pass over the points.
    fn scatter_fused(
        &mut self,
        slot_of: &[u32],
        points: &[Vec2],
        velocities: &[Vec2],
        facings: &[Vec2],
    ) {
        let complete = velocities.len() >= points.len() && facings.len() >= points.len();
        if complete {
            let bodies = slot_of
                .iter()
                .zip(points)
                .zip(velocities.iter().zip(facings));
            for ((slot, p), (v, f)) in bodies {
                self.set(*slot, *p, *v, *f);
            }
        } else {
            for (index, (slot, p)) in slot_of.iter().zip(points).enumerate() {
                let v = velocities.get(index).copied().unwrap_or_default();
                let f = facings.get(index).copied().unwrap_or_default();
                self.set(*slot, *p, v, f);
            }
        }
    }

    /// [`Columns::scatter`]'s bodies as three passes, one per column pair (position, velocity,
    /// facing), each a task on the current rayon pool: a pass writes only its own two columns,
    /// so the columns are [`Columns::scatter_fused`]'s on any number of threads (and a pass
    /// keeps two write streams in flight rather than six).
    fn scatter_pairs(
        &mut self,
        slot_of: &[u32],
        points: &[Vec2],
        velocities: &[Vec2],
        facings: &[Vec2],
    ) {
        let Columns {
            x,
            y,
            vx,
            vy,
            fx,
            fy,
        } = self;
        rayon::join(
            || scatter_pair((x, y), slot_of, points),
            || {
                rayon::join(
                    || scatter_pair((vx, vy), slot_of, velocities),
                    || scatter_pair((fx, fy), slot_of, facings),
                )
            },
        );
    }

    /// Writes one body at `slot` (nothing for a slot out of the columns: a point left out; the
    /// slots of points are all below the padding).
    #[inline(always)]
    fn set(&mut self, slot: u32, p: Vec2, v: Vec2, f: Vec2) {
        // Every column has the same length.
        let slot = slot as usize;
        if slot < self.x.len() {
            (self.x[slot], self.y[slot]) = (p.x, p.y);
            (self.vx[slot], self.vy[slot]) = (v.x, v.y);
            (self.fx[slot], self.fy[slot]) = (f.x, f.y);
        }
    }

    fn body(&self, slot: usize) -> Body {
        Body {
            position: Vec2 {
                x: self.x[slot],
                y: self.y[slot],
            },
            velocity: Vec2 {
                x: self.vx[slot],
                y: self.vy[slot],
            },
            facing: Vec2 {
                x: self.fx[slot],
                y: self.fy[slot],
            },
        }
    }

    fn capacity(&self) -> usize {
        self.x.capacity()
            + self.y.capacity()
            + self.vx.capacity()
            + self.vy.capacity()
            + self.fx.capacity()
            + self.fy.capacity()
    }
}

/// Points from which a rebuild scatters its bodies one column pair at a time, in three tasks
/// on the current rayon pool (`Columns::scatter_pairs`); fewer scatter in one pass.
const PAIRED_SCATTER_POINTS: usize = 1 << 14;

/// Writes point `index`'s value of `values` (zero where `values` is shorter) at its slot
/// (`slot_of`) of the column pair `(a, b)`: nothing for a slot out of the columns (a point
/// left out).
fn scatter_pair((a, b): (&mut [f64], &mut [f64]), slot_of: &[u32], values: &[Vec2]) {
    let len = a.len().min(b.len());
    let (a, b) = (&mut a[..len], &mut b[..len]);
    if values.len() >= slot_of.len() {
        for (slot, v) in slot_of.iter().zip(values) {
            let slot = *slot as usize;
            if slot < len {
                (a[slot], b[slot]) = (v.x, v.y);
            }
        }
    } else {
        for (index, slot) in slot_of.iter().enumerate() {
            let v = values.get(index).copied().unwrap_or_default();
            let slot = *slot as usize;
            if slot < len {
                (a[slot], b[slot]) = (v.x, v.y);
            }
        }
    }
}

/// The length of a body column of `slots` slots: whole [`COLUMN_BLOCK`]s, at least one block
/// past the last slot, so the block read from any slot lies inside the column.
fn padded_len(slots: usize) -> usize {
    slots.div_ceil(COLUMN_BLOCK) * COLUMN_BLOCK + COLUMN_BLOCK
}

/// The grid's bodies as columns indexed by slot (a point's place in cell order, see
/// [`SpatialGrid::slot_of`]): what a mover reads of its neighbours without copying them. Each
/// column holds whole [`COLUMN_BLOCK`]s and at least one block past the last slot (NaN).
#[derive(Clone, Copy, Debug)]
pub struct BodyColumns<'a> {
    /// Positions' x, meters.
    pub x: &'a [f64],
    /// Positions' y, meters.
    pub y: &'a [f64],
    /// Observed velocities' x, meters per second.
    pub vx: &'a [f64],
    /// Observed velocities' y, meters per second.
    pub vy: &'a [f64],
    /// Unit facings' x.
    pub fx: &'a [f64],
    /// Unit facings' y.
    pub fy: &'a [f64],
}

impl SpatialGrid {
    /// Rebuilds the grid over `points` with cells of about `cell_m` (larger when the points are
    /// spread so wide that the cell budget would be exceeded). Non-finite points are left out.
    /// Buffers are reused, so a grid rebuilt every step allocates only when it grows.
    pub fn rebuild(&mut self, points: &[Vec2], cell_m: f64) {
        self.rebuild_bodies(points, &[], &[], cell_m);
    }

    /// [`SpatialGrid::rebuild`] with each point's velocity and facing (missing ones are zero).
    pub fn rebuild_bodies(
        &mut self,
        points: &[Vec2],
        velocities: &[Vec2],
        facings: &[Vec2],
        cell_m: f64,
    ) {
        let (min, max) = finite_bounds(points);
        let budget = points.len() * CELLS_PER_POINT + MIN_CELL_BUDGET;
        let mut cell_m = if cell_m.is_finite() && cell_m > 0.0 {
            cell_m
        } else {
            1.0
        };
        // Extents are non-negative, so truncation is the floor.
        let span = |extent: f64, cell: f64| ((extent / cell) as usize).saturating_add(1);
        let spans = |cell_m: f64| {
            let columns = span(max.x - min.x, cell_m / COLUMN_SPLIT);
            (columns, span(max.y - min.y, cell_m))
        };
        while spans(cell_m).0.saturating_mul(spans(cell_m).1) > budget {
            cell_m *= 2.0;
        }
        self.cell_m = cell_m;
        self.inverse_cell = 1.0 / cell_m;
        self.inverse_column = self.inverse_cell * COLUMN_SPLIT;
        self.origin = min;
        (self.columns, self.rows) = spans(cell_m);
        self.run_margin = 1e-9 * (1.0 + self.columns as f64 + self.rows as f64);
        let cells = self.columns * self.rows;
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        self.cell_of.clear();
        self.cell_of.reserve(points.len());
        CellMap::of(self).cells(points, &mut self.cell_of);
        for cell in &self.cell_of {
            if *cell != u32::MAX {
                self.cell_start[*cell as usize] += 1;
            }
        }
        // Inclusive prefix sums make `cell_start[c]` the end of cell `c`; filling from the last
        // point backwards moves each to its cell's start and keeps indices ascending in a cell.
        let mut running = 0u32;
        for start in &mut self.cell_start[..cells] {
            running += *start;
            *start = running;
        }
        self.cell_start[cells] = running;
        // Every entry and every point's slot is written below, so buffers of the right length
        // are overwritten as they are.
        self.entries.resize(self.cell_start[cells] as usize, 0);
        self.slot_of.resize(points.len(), u32::MAX);
        for (index, cell) in self.cell_of.iter().enumerate().rev() {
            if *cell != u32::MAX {
                let slot = &mut self.cell_start[*cell as usize];
                *slot -= 1;
                self.entries[*slot as usize] = index as u32;
                self.slot_of[index] = *slot;
            } else {
                self.slot_of[index] = u32::MAX;
            }
        }
        // The bodies at their slots, the points read once in order (no clearing first).
        let slots = self.entries.len();
        self.bodies
            .scatter(slots, &self.slot_of, points, velocities, facings);
    }

    /// Records that point `index` moved to `position` facing `facing` (its cell stays the one it
    /// was bucketed in, so queries must reach as far as points move between rebuilds).
    #[inline]
    pub fn update(&mut self, index: usize, position: Vec2, facing: Vec2) {
        if let Some(&slot) = self.slot_of.get(index) {
            let slot = slot as usize;
            if slot < self.bodies.x.len() {
                self.bodies.x[slot] = position.x;
                self.bodies.y[slot] = position.y;
                self.bodies.fx[slot] = facing.x;
                self.bodies.fy[slot] = facing.y;
            }
        }
    }

    /// Where point `index` sits in cell order (its slot in [`SpatialGrid::columns`]); `None` for
    /// a point left out or unknown.
    #[inline]
    pub fn slot_of(&self, index: usize) -> Option<usize> {
        self.slot_of
            .get(index)
            .filter(|slot| **slot != u32::MAX)
            .map(|slot| *slot as usize)
    }

    /// The bodies as columns indexed by slot.
    #[inline]
    pub fn columns(&self) -> BodyColumns<'_> {
        BodyColumns {
            x: &self.bodies.x,
            y: &self.bodies.y,
            vx: &self.bodies.vx,
            vy: &self.bodies.vy,
            fx: &self.bodies.fx,
            fy: &self.bodies.fy,
        }
    }

    /// Height of a cell (a row), meters (at least the requested size); a cell is
    /// [`COLUMN_SPLIT`] times narrower.
    pub fn cell_m(&self) -> f64 {
        self.cell_m
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.columns * self.rows
    }

    /// Calls `visit` with every point index whose cell overlaps the square of half-side
    /// `radius_m` around `center` (a superset of the points within `radius_m`; callers test the
    /// distance), cells in row-major order and indices ascending within each cell.
    pub fn for_each_near(&self, center: Vec2, radius_m: f64, mut visit: impl FnMut(u32)) {
        self.for_each_point_near(center, radius_m, |index, _| visit(index));
    }

    /// [`SpatialGrid::for_each_near`] with each point's current position (as last rebuilt or
    /// updated).
    #[inline]
    pub fn for_each_point_near(
        &self,
        center: Vec2,
        radius_m: f64,
        mut visit: impl FnMut(u32, Vec2),
    ) {
        self.for_each_body_near(center, radius_m, |index, body| visit(index, body.position));
    }

    /// [`SpatialGrid::for_each_near`] with each point's body (as last rebuilt or updated).
    #[inline]
    pub fn for_each_body_near(
        &self,
        center: Vec2,
        radius_m: f64,
        mut visit: impl FnMut(u32, Body),
    ) {
        if self.cell_count() == 0 || !(center.x.is_finite() && center.y.is_finite()) {
            return;
        }
        // Offsets are clamped to ≥ 0 before the cast, so truncation is the floor.
        let range = |low: f64, high: f64, origin: f64, (count, inverse): (usize, f64)| {
            let (first, last) = ((low - origin) * inverse, (high - origin) * inverse);
            if last < 0.0 || first >= count as f64 {
                return None;
            }
            Some((first.max(0.0) as usize, (last as usize).min(count - 1)))
        };
        let columns = range(
            center.x - radius_m,
            center.x + radius_m,
            self.origin.x,
            (self.columns, self.inverse_column),
        );
        let rows = range(
            center.y - radius_m,
            center.y + radius_m,
            self.origin.y,
            (self.rows, self.inverse_cell),
        );
        let (Some((c0, c1)), Some((r0, r1))) = (columns, rows) else {
            return;
        };
        for row in r0..=r1 {
            let first = row * self.columns;
            let (start, end) = (
                self.cell_start[first + c0] as usize,
                self.cell_start[first + c1 + 1] as usize,
            );
            // The cells of one grid row are contiguous in `entries`.
            for slot in start..end {
                visit(self.entries[slot], self.bodies.body(slot));
            }
        }
    }

    /// Calls `visit` with runs of slots (ranges into [`SpatialGrid::columns`], at most one per
    /// grid row, rows in ascending order, no empty run) that together hold every point whose cell
    /// overlaps the disc of `radius_m` around `center` (a superset of the points within
    /// `radius_m`; callers test the distance): a row's run spans only the cells its chord of the
    /// disc reaches.
    #[inline]
    pub fn for_each_run_near(
        &self,
        center: Vec2,
        radius_m: f64,
        mut visit: impl FnMut(Range<usize>),
    ) {
        // One call site of `visit` (so it inlines here), and none for an empty run.
        self.for_each_run_batch_near(center, radius_m, |runs| {
            for &(start, end) in runs {
                if start < end {
                    visit(start..end);
                }
            }
        });
    }

    /// [`SpatialGrid::for_each_run_near`]'s runs as `(start, end)` pairs, handed to `visit` a
    /// batch of up to eight consecutive rows at a time (rows ascending within and across
    /// batches; a run may be empty, `start == end`).
    #[inline]
    pub fn for_each_run_batch_near(
        &self,
        center: Vec2,
        radius_m: f64,
        mut visit: impl FnMut(&[(usize, usize)]),
    ) {
        let Some(disc) = self.disc(center, radius_m) else {
            return;
        };
        let mut row = disc.first_row;
        while row <= disc.last_row {
            let count = (disc.last_row - row + 1).min(RUN_BATCH_ROWS);
            visit(&self.batch_runs(&disc, row, count)[..count]);
            row += count;
        }
    }

    /// The runs of the `count` rows of `disc` from `row` (at most [`RUN_BATCH_ROWS`]),
    /// computed together, so their chords' square roots overlap rather than each wait behind
    /// the one before.
    #[inline(always)]
    fn batch_runs(
        &self,
        disc: &Disc,
        row: usize,
        count: usize,
    ) -> [(usize, usize); RUN_BATCH_ROWS] {
        let mut runs = [(0, 0); RUN_BATCH_ROWS];
        for (at, run) in runs.iter_mut().take(count).enumerate() {
            let half = if disc.chords {
                chord_half(row + at, disc.cy, disc.r, disc.margin)
            } else {
                disc.r
            };
            *run = self.run_within(row + at, disc.cx, half * COLUMN_SPLIT);
        }
        runs
    }

    /// [`SpatialGrid::for_each_run_batch_near`] with each batch's chords and column ranges
    /// computed in AVX-512 lanes: each lane the scalar operations of `chord_half` and
    /// `run_within` (`max`, products, differences, `√`, sums, the clamps and the truncation),
    /// so the same runs.
    /// Compiled for POPCNT too, so that a `visit` compiled for it (counting lanes) inlines
    /// here.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F and POPCNT (a caller compiled for both may call it as
    /// any function; others detect them first).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,popcnt")]
    #[inline]
    pub fn for_each_run_batch_near_avx512(
        &self,
        center: Vec2,
        radius_m: f64,
        mut visit: impl FnMut(&[(usize, usize)]),
    ) {
        let Some(disc) = self.disc(center, radius_m) else {
            return;
        };
        // The lanes' columns are `i32`s.
        let narrow = i32::try_from(self.columns).is_ok();
        let mut row = disc.first_row;
        while row <= disc.last_row {
            let count = (disc.last_row - row + 1).min(RUN_BATCH_ROWS);
            let runs = if narrow {
                runs_avx512::batch(self, &disc, row, count)
            } else {
                self.batch_runs(&disc, row, count)
            };
            // One call site of `visit` (so it inlines here).
            visit(&runs[..count]);
            row += count;
        }
    }

    /// The disc of `radius_m` around `center` in cell units, and the rows it reaches; `None`
    /// where it reaches none (or the grid is empty, or the disc is not finite).
    #[inline(always)]
    fn disc(&self, center: Vec2, radius_m: f64) -> Option<Disc> {
        if self.cell_count() == 0
            || !(center.x.is_finite() && center.y.is_finite() && radius_m >= 0.0)
        {
            return None;
        }
        // In column and row units from the origin, where a point's cell is the floor of its
        // coordinates (as the rebuild computes them); the radius and the chords in row units,
        // exactly `COLUMN_SPLIT` times that in column units. The margin, far above any rounding
        // of these magnitudes, keeps every chord a superset.
        let margin = self.run_margin;
        let cx = (center.x - self.origin.x) * self.inverse_column;
        let cy = (center.y - self.origin.y) * self.inverse_cell;
        let r = radius_m * self.inverse_cell + margin;
        if !(cx + r * COLUMN_SPLIT >= 0.0 && cy + r >= 0.0) {
            return None;
        }
        // Non-negative before the casts, so truncation is the floor; saturating casts clamp.
        let first_row = (cy - r).max(0.0) as usize;
        let last_row = ((cy + r) as usize).min(self.rows - 1);
        Some(Disc {
            cx,
            cy,
            r,
            margin,
            first_row,
            last_row,
            // Against columns as wide as the radius a chord saves little: the square's columns.
            chords: r * COLUMN_SPLIT > 2.0,
        })
    }

    /// The slots of `row`'s cells within `half` (column units) sideways of `cx`, empty where
    /// none is.
    #[inline(always)]
    fn run_within(&self, row: usize, cx: f64, half: f64) -> (usize, usize) {
        let right = cx + half;
        if right >= 0.0 {
            // Non-negative before the casts, so truncation is the floor; saturating casts
            // clamp.
            let last_column = self.columns - 1;
            let (c0, c1) = (
                ((cx - half).max(0.0) as usize).min(last_column),
                (right as usize).min(last_column),
            );
            let first = row * self.columns;
            // The cells of one grid row are contiguous in `entries`.
            (
                self.cell_start[first + c0] as usize,
                self.cell_start[first + c1 + 1] as usize,
            )
        } else {
            (0, 0)
        }
    }

    /// Heap bytes held (capacities, not lengths).
    pub fn heap_bytes(&self) -> usize {
        (self.cell_start.capacity()
            + self.entries.capacity()
            + self.cell_of.capacity()
            + self.slot_of.capacity())
            * std::mem::size_of::<u32>()
            + self.bodies.capacity() * std::mem::size_of::<f64>()
    }
}

/// A disc query: its centre (`cx` in column units, `cy` in row units) and radius (row units,
/// widened by `margin`), the rows it reaches, and whether its runs are narrowed to chords.
struct Disc {
    cx: f64,
    cy: f64,
    r: f64,
    margin: f64,
    first_row: usize,
    last_row: usize,
    chords: bool,
}

/// A batch of a disc's runs in AVX-512 lanes.
// Unsafe code here only reinterprets a vector of eight `i32` lanes as an array of them.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod runs_avx512 {
    use super::{Disc, SpatialGrid, COLUMN_SPLIT, RUN_BATCH_ROWS};
    use std::arch::x86_64::*;

    /// The runs of the `count` rows from `row` (at most [`RUN_BATCH_ROWS`]): the chord of each
    /// (`chord_half`) and its columns (`run_within`), lane by lane with the same operations.
    /// Clamping to the last column before the truncation rather than after gives the same
    /// column: the last column is a whole number.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) fn batch(
        grid: &SpatialGrid,
        disc: &Disc,
        row: usize,
        count: usize,
    ) -> [(usize, usize); RUN_BATCH_ROWS] {
        const { assert!(RUN_BATCH_ROWS == 8) };
        let splat = _mm512_set1_pd;
        let (cx, zero) = (splat(disc.cx), _mm512_setzero_pd());
        let half = if disc.chords {
            // Exact: rows are far below 2⁵³.
            let lanes = _mm512_setr_pd(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
            let band = _mm512_add_pd(splat(row as f64), lanes);
            let cy = splat(disc.cy);
            let below = _mm512_sub_pd(band, cy);
            let above = _mm512_sub_pd(cy, _mm512_add_pd(band, splat(1.0)));
            let gap = _mm512_max_pd(_mm512_max_pd(below, above), zero);
            let r = splat(disc.r);
            let square = _mm512_sub_pd(_mm512_mul_pd(r, r), _mm512_mul_pd(gap, gap));
            _mm512_add_pd(
                _mm512_sqrt_pd(_mm512_max_pd(square, zero)),
                splat(disc.margin),
            )
        } else {
            splat(disc.r)
        };
        // In column units (an exact scaling).
        let half = _mm512_mul_pd(half, splat(COLUMN_SPLIT));
        let right = _mm512_add_pd(cx, half);
        let reached = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(right, zero);
        let last = splat((grid.columns - 1) as f64);
        let left = _mm512_min_pd(_mm512_max_pd(_mm512_sub_pd(cx, half), zero), last);
        let right = _mm512_min_pd(_mm512_max_pd(right, zero), last);
        // SAFETY: `__m256i` and `[i32; 8]` have the same size, and every bit pattern is an
        // `i32`.
        let (c0, c1): ([i32; 8], [i32; 8]) = unsafe {
            (
                std::mem::transmute::<__m256i, [i32; 8]>(_mm512_cvttpd_epi32(left)),
                std::mem::transmute::<__m256i, [i32; 8]>(_mm512_cvttpd_epi32(right)),
            )
        };
        let mut runs = [(0, 0); RUN_BATCH_ROWS];
        for (at, run) in runs.iter_mut().take(count).enumerate() {
            if reached & (1 << at) != 0 {
                let first = (row + at) * grid.columns;
                // Both are in `0..columns` (clamped above).
                let (c0, c1) = (c0[at] as usize, c1[at] as usize);
                *run = (
                    grid.cell_start[first + c0] as usize,
                    grid.cell_start[first + c1 + 1] as usize,
                );
            }
        }
        runs
    }
}

/// The half chord (cell units, widened by `margin`) of the disc of radius `r` around row `cy`
/// over the band of `row` (`[row, row + 1)`; its nearest point to the centre sideways decides).
#[inline(always)]
fn chord_half(row: usize, cy: f64, r: f64, margin: f64) -> f64 {
    let band = row as f64;
    let gap = (band - cy).max(cy - (band + 1.0)).max(0.0);
    (r * r - gap * gap).max(0.0).sqrt() + margin
}

/// A grid's point → cell function with its per-grid constants computed once (for the rebuild's
/// pass over every point).
struct CellMap {
    origin: Vec2,
    inverse_cell: f64,
    inverse_column: f64,
    columns: usize,
    /// The last column and row, and the same as floats.
    last: (usize, usize),
    last_f: (f64, f64),
    /// Whether both fit a `u32` (they do whenever the grid's cells do).
    narrow: bool,
}

impl CellMap {
    fn of(grid: &SpatialGrid) -> CellMap {
        let last = (grid.columns - 1, grid.rows - 1);
        CellMap {
            origin: grid.origin,
            inverse_cell: grid.inverse_cell,
            inverse_column: grid.inverse_column,
            columns: grid.columns,
            last,
            // Exact: both are far below 2⁵³.
            last_f: (last.0 as f64, last.1 as f64),
            narrow: u32::try_from(last.0.max(last.1)).is_ok(),
        }
    }

    /// The cell of `p` (`u32::MAX` for a non-finite point).
    #[inline]
    fn cell(&self, p: Vec2) -> u32 {
        if !(p.x.is_finite() && p.y.is_finite()) {
            return u32::MAX;
        }
        let column = self.clamped_floor((p.x - self.origin.x) * self.inverse_column, 0);
        let row = self.clamped_floor((p.y - self.origin.y) * self.inverse_cell, 1);
        (row * self.columns + column) as u32
    }

    /// The cell of every point ([`CellMap::cell`]), appended to `cells`: eight points at a time
    /// in AVX-512 lanes where the CPU has them and the grid fits the lanes.
    fn cells(&self, points: &[Vec2], cells: &mut Vec<u32>) {
        cells_dispatched(self, points, cells);
    }

    /// [`CellMap::cells`] one point at a time.
    fn cells_scalar(&self, points: &[Vec2], cells: &mut Vec<u32>) {
        cells.extend(points.iter().map(|p| self.cell(*p)));
    }

    /// `(offset.max(0.0) as usize).min(last)` of the columns (`axis` 0) or the rows (1):
    /// clamped to ≥ 0 before the cast, so truncation is the floor; an offset at or past the last
    /// cell is compared in floats, so the cast only ever sees a value below the last cell.
    #[inline]
    fn clamped_floor(&self, offset: f64, axis: usize) -> usize {
        let (last, last_f) = if axis == 0 {
            (self.last.0, self.last_f.0)
        } else {
            (self.last.1, self.last_f.1)
        };
        let offset = offset.max(0.0);
        if offset < last_f {
            if self.narrow {
                offset as u32 as usize
            } else {
                offset as usize
            }
        } else {
            last
        }
    }
}

/// [`CellMap::cells`] in AVX-512 lanes (the build for AVX-512F) or one point at a time (the
/// portable build, and a grid that does not fit the lanes).
#[multiversion(targets("x86_64+avx512f"))]
// Unsafe code here only calls the AVX-512 lanes in the build compiled for AVX-512F.
#[allow(unsafe_code)]
fn cells_dispatched(map: &CellMap, points: &[Vec2], cells: &mut Vec<u32>) {
    multiversion::target::match_target! {
        "x86_64+avx512f" => if lanes::fits(map) {
            // SAFETY: this arm is compiled only into the AVX-512F build, which multiversion
            // runs only where the CPU has AVX-512F.
            unsafe { lanes::cells(map, points, cells) }
        } else {
            map.cells_scalar(points, cells)
        },
        _ => map.cells_scalar(points, cells),
    }
}

/// The bounds of the points with both coordinates finite (the origin for none), eight points
/// at a time in lanes where AVX-512 is found: the same minimum and maximum (among equal bounds of
/// opposite zero signs either may be kept; the sign of a zero bound decides no cell and no run).
#[multiversion(targets("x86_64+avx512f"))]
// Unsafe code here only calls the AVX-512 lanes in the build compiled for AVX-512F.
#[allow(unsafe_code)]
fn finite_bounds(points: &[Vec2]) -> (Vec2, Vec2) {
    multiversion::target::match_target! {
        "x86_64+avx512f" => if lanes::POINT_LAYOUT {
            // SAFETY: this arm is compiled only into the AVX-512F build, which multiversion
            // runs only where the CPU has AVX-512F.
            unsafe { lanes::bounds(points) }
        } else {
            finite_bounds_scalar(points)
        },
        _ => finite_bounds_scalar(points),
    }
}

/// Bounds and cells of many points eight at a time in AVX-512 lanes, with the scalar operations.
// Unsafe code here only loads points from a slice in whole vectors (its layout and length
// checked) and reads a vector's lanes as an array (each block with its `SAFETY:` comment).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod lanes {
    use super::{finite_bounds_scalar, CellMap};
    use crate::project::Vec2;
    use std::arch::x86_64::*;
    use std::mem::{offset_of, size_of};

    /// Whether a point is `x` then `y`, 16 bytes: two points load as one vector of four.
    pub(super) const POINT_LAYOUT: bool =
        size_of::<Vec2>() == 16 && offset_of!(Vec2, x) == 0 && offset_of!(Vec2, y) == 8;

    /// Whether the lanes compute `map`'s cells: the points' layout is known and every column,
    /// row and cell index fits an `i32`.
    pub(super) fn fits(map: &CellMap) -> bool {
        let limit = i32::MAX as usize;
        POINT_LAYOUT
            && map.last.0 < limit
            && map.last.1 < limit
            && map
                .columns
                .checked_mul(map.last.1 + 1)
                .is_some_and(|c| c < limit)
    }

    /// The x and y of eight points and the mask of those with both finite.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load(points: &[Vec2; 8]) -> (__m512d, __m512d, __mmask8) {
        const { assert!(POINT_LAYOUT, "a point is x then y, 16 bytes") };
        let base = points.as_ptr().cast::<f64>();
        // SAFETY: eight points of that layout are sixteen `f64`s from `base`, all in `points`.
        let (lo, hi) = unsafe { (_mm512_loadu_pd(base), _mm512_loadu_pd(base.add(8))) };
        let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
        let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
        let (x, y) = (
            _mm512_permutex2var_pd(lo, even, hi),
            _mm512_permutex2var_pd(lo, odd, hi),
        );
        // `v − v` is zero exactly when `v` is finite (NaN for infinities and NaN).
        let zero = _mm512_setzero_pd();
        let finite = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(_mm512_sub_pd(x, x), zero)
            & _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(_mm512_sub_pd(y, y), zero);
        (x, y, finite)
    }

    /// [`finite_bounds_scalar`]: each lane keeps `if p < min { p } else { min }` (and the same for the
    /// maximum) over its finite points, then the lanes and the remainder are folded the same way.
    #[target_feature(enable = "avx512f")]
    pub(super) fn bounds(points: &[Vec2]) -> (Vec2, Vec2) {
        let whole = points.len() / 8 * 8;
        let (mut min_x, mut min_y) = (_mm512_set1_pd(f64::INFINITY), _mm512_set1_pd(f64::INFINITY));
        let (mut max_x, mut max_y) = (
            _mm512_set1_pd(f64::NEG_INFINITY),
            _mm512_set1_pd(f64::NEG_INFINITY),
        );
        for eight in points.chunks_exact(8) {
            let Some(eight) = eight.first_chunk::<8>() else {
                continue;
            };
            let (x, y, finite) = load(eight);
            // `_mm512_min_pd(a, b)` is `a < b ? a : b`, lane by lane.
            min_x = _mm512_mask_min_pd(min_x, finite, x, min_x);
            min_y = _mm512_mask_min_pd(min_y, finite, y, min_y);
            max_x = _mm512_mask_max_pd(max_x, finite, x, max_x);
            max_y = _mm512_mask_max_pd(max_y, finite, y, max_y);
        }
        // SAFETY: `__m512d` and `[f64; 8]` have the same size, and every bit pattern is an
        // `f64`.
        let lanes = |v: __m512d| unsafe { std::mem::transmute::<__m512d, [f64; 8]>(v) };
        let mut folded: Vec<Vec2> = Vec::with_capacity(16 + points.len() - whole);
        for (x, y) in lanes(min_x).into_iter().zip(lanes(min_y)) {
            folded.push(Vec2 { x, y });
        }
        for (x, y) in lanes(max_x).into_iter().zip(lanes(max_y)) {
            folded.push(Vec2 { x, y });
        }
        folded.extend_from_slice(&points[whole..]);
        // Infinite lanes (no finite point) are left out by the scalar fold.
        finite_bounds_scalar(&folded)
    }

    /// [`CellMap::cell`] of every point, appended to `cells`: the offsets clamped to
    /// `[0, last]` in floats before the truncation (the same column: the last is a whole
    /// number, and a maximum with zero maps NaN to zero as `f64::max` does).
    #[target_feature(enable = "avx512f")]
    pub(super) fn cells(map: &CellMap, points: &[Vec2], cells: &mut Vec<u32>) {
        let whole = points.len() / 8 * 8;
        cells.reserve(points.len());
        let (ox, oy) = (_mm512_set1_pd(map.origin.x), _mm512_set1_pd(map.origin.y));
        let (inverse_x, inverse_y) = (
            _mm512_set1_pd(map.inverse_column),
            _mm512_set1_pd(map.inverse_cell),
        );
        let (last_x, last_y) = (_mm512_set1_pd(map.last_f.0), _mm512_set1_pd(map.last_f.1));
        let zero = _mm512_setzero_pd();
        let columns = _mm512_set1_epi32(map.columns as i32);
        let left_out = _mm512_set1_epi32(-1);
        for eight in points.chunks_exact(8) {
            let Some(eight) = eight.first_chunk::<8>() else {
                continue;
            };
            let (x, y, finite) = load(eight);
            let clamp = |v: __m512d, origin: __m512d, (inverse, last): (__m512d, __m512d)| {
                let offset = _mm512_mul_pd(_mm512_sub_pd(v, origin), inverse);
                _mm512_min_pd(_mm512_max_pd(offset, zero), last)
            };
            let column = clamp(x, ox, (inverse_x, last_x));
            let column = _mm512_castsi256_si512(_mm512_cvttpd_epi32(column));
            let row =
                _mm512_castsi256_si512(_mm512_cvttpd_epi32(clamp(y, oy, (inverse_y, last_y))));
            let cell = _mm512_add_epi32(_mm512_mullo_epi32(row, columns), column);
            let cell = _mm512_mask_mov_epi32(left_out, __mmask16::from(finite), cell);
            let low_half = _mm512_castsi512_si256(cell);
            // SAFETY: `__m256i` and `[u32; 8]` have the same size; every bit pattern is a `u32`.
            let eight = unsafe { std::mem::transmute::<__m256i, [u32; 8]>(low_half) };
            cells.extend_from_slice(&eight);
        }
        cells.extend(points[whole..].iter().map(|p| map.cell(*p)));
    }
}

/// The bounds of the points with both coordinates finite (the origin for none), one point at a
/// time. Within the finite points a plain comparison is the minimum and the maximum (the sign of
/// a zero bound decides no cell).
fn finite_bounds_scalar(points: &[Vec2]) -> (Vec2, Vec2) {
    let (mut min, mut max) = (
        Vec2 {
            x: f64::INFINITY,
            y: f64::INFINITY,
        },
        Vec2 {
            x: f64::NEG_INFINITY,
            y: f64::NEG_INFINITY,
        },
    );
    for p in points {
        if p.x.is_finite() && p.y.is_finite() {
            min.x = if p.x < min.x { p.x } else { min.x };
            min.y = if p.y < min.y { p.y } else { min.y };
            max.x = if p.x > max.x { p.x } else { max.x };
            max.y = if p.y > max.y { p.y } else { max.y };
        }
    }
    if min.x > max.x {
        return (Vec2::default(), Vec2::default());
    }
    (min, max)
}

/// The point of segment `[a, b]` closest to `p` (`a` when the segment has no length): the one
/// projection every segment distance of the simulation starts from.
#[inline]
pub fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let length_sq = dx * dx + dy * dy;
    let t = if length_sq > 0.0 {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / length_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Vec2 {
        x: a.x + dx * t,
        y: a.y + dy * t,
    }
}

/// Squared distance from `p` to segment `[a, b]`.
#[inline]
pub fn distance_sq_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    let c = closest_on_segment(p, a, b);
    let (cx, cy) = (c.x - p.x, c.y - p.y);
    cx * cx + cy * cy
}

/// Distance from `p` to segment `[a, b]` (the root of [`distance_sq_to_segment`]).
#[inline]
pub fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    distance_sq_to_segment(p, a, b).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_bounds_in_lanes_are_the_scalar_ones() {
        let paths = crate::simd_paths::report("spatial cells and bounds", &["AVX-512"]);
        let mut points: Vec<Vec2> = (0..1_003)
            .map(|i| {
                let f = f64::from(i);
                Vec2 {
                    x: (f * 0.618_034).fract() * 90.0 - 30.0,
                    y: (f * 0.754_878).fract() * 12.0 - 6.0,
                }
            })
            .collect();
        // Non-finite coordinates, points on cell edges and on the bounds.
        for (at, (x, y)) in [
            (3, (f64::NAN, 1.0)),
            (17, (2.0, f64::INFINITY)),
            (18, (f64::NEG_INFINITY, f64::NAN)),
            (40, (-30.0, -6.0)),
            (41, (60.0, 6.0)),
            (42, (1.75, 3.5)),
            (43, (-0.0, 0.0)),
            (1_000, (f64::NAN, f64::NAN)),
        ] {
            points[at] = Vec2 { x, y };
        }
        for count in [0, 1, 7, 8, 9, 64, 1_003] {
            let some = &points[..count];
            let (lanes, scalar) = (finite_bounds(some), finite_bounds_scalar(some));
            assert_eq!(lanes, scalar, "dispatched ({}), {count}", paths.best);
            for cell_m in [0.5, 1.75, 3.5, 40.0] {
                let mut grid = SpatialGrid::default();
                grid.rebuild(some, cell_m);
                let map = CellMap::of(&grid);
                let mut cells = vec![7];
                map.cells(some, &mut cells);
                let one_by_one: Vec<u32> = some.iter().map(|p| map.cell(*p)).collect();
                assert_eq!(cells[1..], one_by_one[..], "dispatched, {count} {cell_m}");
                let mut scalar = vec![7];
                map.cells_scalar(some, &mut scalar);
                assert_eq!(scalar[1..], one_by_one[..], "portable, {count} {cell_m}");
                assert_eq!(grid.cell_of, one_by_one, "{count} {cell_m}");
            }
        }
    }

    /// Every point within `radius` of `center`, by scanning them all, ascending.
    fn brute_force(points: &[Vec2], center: Vec2, radius: f64) -> Vec<u32> {
        (0..points.len() as u32)
            .filter(|i| {
                let p = points[*i as usize];
                (p.x - center.x).hypot(p.y - center.y) <= radius
            })
            .collect()
    }

    fn near(grid: &SpatialGrid, points: &[Vec2], center: Vec2, radius: f64) -> Vec<u32> {
        let mut found = Vec::new();
        grid.for_each_near(center, radius, |i| {
            let p = points[i as usize];
            if (p.x - center.x).hypot(p.y - center.y) <= radius {
                found.push(i);
            }
        });
        found
    }

    #[test]
    fn finds_exactly_the_points_a_brute_force_scan_finds_in_a_fixed_order() {
        // A deterministic scatter (a 2-D additive recurrence), some points coincident.
        let points: Vec<Vec2> = (0..500)
            .map(|i| {
                let f = f64::from(i);
                Vec2 {
                    x: (f * 0.618_034).fract() * 60.0 - 30.0,
                    y: (f * 0.754_878).fract() * 12.0,
                }
            })
            .chain([Vec2 { x: 1.0, y: 1.0 }; 3])
            .collect();
        let mut grid = SpatialGrid::default();
        grid.rebuild(&points, 2.5);
        assert_eq!(grid.cell_m(), 2.5);
        for (center, radius) in [
            (Vec2 { x: 0.0, y: 6.0 }, 2.5),
            (Vec2 { x: 1.0, y: 1.0 }, 0.0),
            (Vec2 { x: -30.0, y: 0.0 }, 4.0),
            (Vec2 { x: 100.0, y: 6.0 }, 3.0),
        ] {
            let mut found = near(&grid, &points, center, radius);
            let brute = brute_force(&points, center, radius);
            // Within a grid row indices ascend; across rows the order is row-major.
            let order = found.clone();
            found.sort_unstable();
            assert_eq!(found, brute, "{center:?} {radius}");
            assert_eq!(near(&grid, &points, center, radius), order, "repeatable");
        }
        assert_eq!(near(&grid, &points, Vec2 { x: 1.0, y: 1.0 }, 0.0).len(), 3);
    }

    #[test]
    fn narrowed_queries_still_find_every_point_within_reach() {
        let points: Vec<Vec2> = (0..2_000)
            .map(|i| {
                let f = f64::from(i);
                Vec2 {
                    x: (f * 0.618_034).fract() * 40.0 - 20.0,
                    y: (f * 0.754_878).fract() * 10.0,
                }
            })
            .collect();
        let mut grid = SpatialGrid::default();
        grid.rebuild(&points, 1.25);
        let mut visited_total = 0;
        for q in 0..400 {
            let f = f64::from(q);
            let center = Vec2 {
                x: (f * 0.569_840).fract() * 44.0 - 22.0,
                y: (f * 0.379_147).fract() * 12.0 - 1.0,
            };
            let radius = 0.3 + (f * 0.311_27).fract() * 3.0;
            let mut found = near(&grid, &points, center, radius);
            found.sort_unstable();
            let brute = brute_force(&points, center, radius);
            assert_eq!(found, brute, "{center:?} {radius}");
            grid.for_each_near(center, radius, |_| visited_total += 1);
        }
        assert!(visited_total > 0);
    }

    /// `count` points spread evenly (a golden-ratio sequence) over a 60 m × 20 m strip far from
    /// the origin.
    fn street_points(count: u32) -> Vec<Vec2> {
        (0..count)
            .map(|i| {
                let f = f64::from(i);
                Vec2 {
                    x: (f * 0.618_034).fract() * 60.0 + 1.0e4,
                    y: (f * 0.754_878).fract() * 20.0 - 3.0,
                }
            })
            .collect()
    }

    #[test]
    fn disc_runs_hold_every_point_within_reach_and_fewer_than_the_square() {
        let points = street_points(3_000);
        let mut grid = SpatialGrid::default();
        grid.rebuild(&points, 1.25);
        let columns = grid.columns();
        let (mut disc_total, mut square_total) = (0, 0);
        for q in 0..500 {
            let f = f64::from(q);
            let center = Vec2 {
                x: (f * 0.569_840).fract() * 64.0 + 1.0e4 - 2.0,
                y: (f * 0.379_147).fract() * 24.0 - 5.0,
            };
            // 6.3 m spans more rows than one batch of runs.
            let radius = [0.0, 0.63, 2.57, 4.0, 1.25, 6.3][q as usize % 6];
            let mut found = Vec::new();
            let mut last_row = None;
            grid.for_each_run_near(center, radius, |run| {
                // No empty run; one run per row at most, rows ascending.
                assert!(!run.is_empty());
                let row = grid.cell_of[grid.entries[run.start] as usize] as usize / grid.columns;
                assert!(last_row < Some(row), "{center:?} {radius}");
                last_row = Some(row);
                disc_total += run.len();
                for slot in run {
                    let p = Vec2 {
                        x: columns.x[slot],
                        y: columns.y[slot],
                    };
                    if (p.x - center.x).hypot(p.y - center.y) <= radius {
                        found.push(grid.entries[slot]);
                    }
                }
            });
            grid.for_each_near(center, radius, |_| square_total += 1);
            found.sort_unstable();
            let brute = brute_force(&points, center, radius);
            assert_eq!(found, brute, "{center:?} {radius}");
        }
        assert!(
            disc_total * 10 < square_total * 9,
            "{disc_total} {square_total}"
        );
    }

    #[test]
    // Unsafe code here only calls the AVX-512 runs after detecting the features they need.
    #[allow(unsafe_code)]
    fn disc_runs_computed_in_lanes_are_the_scalar_ones() {
        let paths = crate::simd_paths::report("spatial disc runs", &["AVX-512"]);
        #[cfg(target_arch = "x86_64")]
        {
            if !paths.avx512 {
                // `report` said SKIPPED: only the portable runs exist on this CPU (the other
                // tests of this module check them against a brute-force scan).
                return;
            }
            let points = street_points(2_000);
            let mut grid = SpatialGrid::default();
            let mut compared = 0;
            // Cells for which the radii below are chords and are not.
            for cell_m in [0.4, 1.25, 1.75, 3.0] {
                grid.rebuild(&points, cell_m);
                for q in 0..600 {
                    let f = f64::from(q);
                    // Centres inside, on cell edges and outside the grid.
                    let mut center = Vec2 {
                        x: (f * 0.569_840).fract() * 70.0 + 1.0e4 - 5.0,
                        y: (f * 0.379_147).fract() * 30.0 - 8.0,
                    };
                    if q % 7 == 0 {
                        center.x = 1.0e4 + cell_m * f64::from(q % 13);
                        center.y = -3.0 + cell_m * f64::from(q % 5);
                    }
                    let radius = [0.0, 0.63, 2.575, 4.0, 1.25, 6.3, 30.0][q as usize % 7];
                    let (mut scalar, mut lanes) = (Vec::new(), Vec::new());
                    grid.for_each_run_batch_near(center, radius, |runs| {
                        scalar.push(runs.to_vec());
                    });
                    // SAFETY: the CPU supports AVX-512F and POPCNT, detected above.
                    unsafe {
                        grid.for_each_run_batch_near_avx512(center, radius, |runs| {
                            lanes.push(runs.to_vec());
                        });
                    }
                    assert_eq!(lanes, scalar, "{cell_m} {center:?} {radius}");
                    compared += scalar.len();
                }
            }
            assert!(compared > 1_000, "{compared}");
        }
    }

    #[test]
    fn squared_distance_shortcuts_give_the_hypot_verdicts() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut draw = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut near_limit = 0;
        for k in 0..200_000 {
            let limit = [0.1, 1e9, 0.02, 3.7][k % 4];
            // Points spread around the limit, some exactly on it and many within an ulp.
            let angle = draw() * std::f64::consts::TAU;
            let scale = 1.0 + (draw() - 0.5) * [1.0, 1e-12, 1e-15, 0.0][(k / 4) % 4];
            let (dx, dy) = (limit * scale * angle.cos(), limit * scale * angle.sin());
            let exact = dx.hypot(dy);
            near_limit += usize::from((exact - limit).abs() <= limit * 1e-12);
            assert_eq!(
                hypot_at_least(dx, dy, limit),
                exact >= limit,
                "{dx} {dy} {limit}"
            );
            assert_eq!(
                hypot_at_most(dx, dy, limit),
                exact <= limit,
                "{dx} {dy} {limit}"
            );
        }
        assert!(near_limit > 100_000, "{near_limit}");
        for limit in [
            0.1,
            1e9,
            0.02,
            3.7,
            0.0,
            -1.0,
            f64::INFINITY,
            f64::NAN,
            1e-170,
        ] {
            let screen = at_most_screen_sq(limit);
            for k in 0..2_000 {
                let scale = 0.999_999 + f64::from(k) * 1e-9;
                let (dx, dy) = (limit * scale * 0.6, limit * scale * 0.8);
                if dx * dx + dy * dy < screen {
                    assert!(hypot_at_most(dx, dy, limit), "{dx} {dy} {limit}");
                }
            }
        }
        for (dx, dy, limit) in [
            (f64::NAN, 0.0, 0.1),
            (f64::INFINITY, 0.0, 0.1),
            (1e-170, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (1e200, 1e200, 1e9),
            (0.3, 0.4, f64::INFINITY),
        ] {
            let exact = dx.hypot(dy);
            assert_eq!(hypot_at_least(dx, dy, limit), exact >= limit);
            assert_eq!(hypot_at_most(dx, dy, limit), exact <= limit);
        }
    }

    /// A deterministic scatter of `n` points (seeded), every seventh one non-finite.
    fn scatter(n: usize, seed: f64) -> Vec<Vec2> {
        (0..n)
            .map(|i| {
                let f = i as f64 + seed;
                if i % 7 == 3 {
                    return Vec2 {
                        x: f64::NAN,
                        y: 0.0,
                    };
                }
                Vec2 {
                    x: (f * 0.618_034).fract() * 50.0 - 25.0,
                    y: (f * 0.754_878).fract() * 9.0,
                }
            })
            .collect()
    }

    #[test]
    fn bodies_scattered_by_column_pairs_equal_one_pass() {
        let n = PAIRED_SCATTER_POINTS + 1_001;
        let points = scatter(n, 0.5);
        let velocities = scatter(n, 1.5);
        // Facings short: the missing ones are zero.
        let facings = scatter(n - 700, 2.5);
        let mut grid = SpatialGrid::default();
        grid.rebuild_bodies(&points, &velocities, &facings, 1.25);
        let slots = grid.entries.len();
        assert!(slots < n && slots > n / 2, "{slots}");
        let mut fused = grid.bodies.clone();
        fused.scatter_fused(&grid.slot_of, &points, &velocities, &facings);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("pool");
        for threads in [None, Some(&pool)] {
            let mut paired = grid.bodies.clone();
            // Stale values in the columns are overwritten at every slot.
            paired.x[..slots].fill(7.0);
            paired.fy[..slots].fill(7.0);
            let scatter =
                |c: &mut Columns| c.scatter_pairs(&grid.slot_of, &points, &velocities, &facings);
            match threads {
                Some(pool) => pool.install(|| scatter(&mut paired)),
                None => scatter(&mut paired),
            }
            for (a, b) in [
                (&paired.x, &fused.x),
                (&paired.y, &fused.y),
                (&paired.vx, &fused.vx),
                (&paired.vy, &fused.vy),
                (&paired.fx, &fused.fx),
                (&paired.fy, &fused.fy),
            ] {
                assert_eq!(bits_of(a), bits_of(b));
            }
            // The rebuild scattered them so (every body is its point's).
            assert_eq!(bits_of(&grid.bodies.x), bits_of(&paired.x));
        }
        // Point n − 2 is finite and past the facings.
        let last = grid.slot_of(n - 2).expect("finite");
        assert_eq!(grid.columns().fx[last], 0.0);
        assert_eq!(grid.columns().x[last], points[n - 2].x);
    }

    fn bits_of(column: &[f64]) -> Vec<u64> {
        column.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn a_rebuild_over_reused_buffers_equals_a_fresh_grid() {
        let mut reused = SpatialGrid::default();
        for (n, seed) in [(400, 0.5), (400, 3.25), (150, 9.0), (600, 1.0), (600, 2.0)] {
            let points = scatter(n, seed);
            let velocities: Vec<Vec2> = scatter(n, seed + 0.125)
                .into_iter()
                .map(|v| Vec2 {
                    x: v.x * 0.1,
                    y: -v.y,
                })
                .collect();
            let facings = scatter(n, seed + 0.75);
            reused.rebuild_bodies(&points, &velocities, &facings, 1.25);
            let mut fresh = SpatialGrid::default();
            fresh.rebuild_bodies(&points, &velocities, &facings, 1.25);
            assert_eq!(reused.cell_start, fresh.cell_start);
            assert_eq!(reused.entries, fresh.entries);
            assert_eq!(reused.slot_of, fresh.slot_of);
            assert_eq!(reused.cell_of, fresh.cell_of);
            let bits = |grid: &SpatialGrid| {
                let c = grid.columns();
                [c.x, c.y, c.vx, c.vy, c.fx, c.fy]
                    .map(|column| column.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
            };
            assert_eq!(bits(&reused), bits(&fresh));
            // Every body is its point's, at the point's slot.
            for (index, point) in points.iter().enumerate() {
                match reused.slot_of(index) {
                    Some(slot) => {
                        let body = reused.bodies.body(slot);
                        assert_eq!(body.position, *point);
                        assert_eq!(body.velocity.x.to_bits(), velocities[index].x.to_bits());
                        assert_eq!(body.facing.y.to_bits(), facings[index].y.to_bits());
                    }
                    None => assert!(!point.x.is_finite()),
                }
            }
        }
    }

    #[test]
    fn wide_spreads_grow_the_cell_to_keep_memory_linear() {
        let points = [Vec2 { x: 0.0, y: 0.0 }, Vec2 { x: 1.0e6, y: 1.0e6 }];
        let mut grid = SpatialGrid::default();
        grid.rebuild(&points, 1.0);
        assert!(grid.cell_count() <= 2 * CELLS_PER_POINT + MIN_CELL_BUDGET);
        assert!(grid.cell_m() > 1.0e5, "{}", grid.cell_m());
        let mut found = Vec::new();
        grid.for_each_near(Vec2 { x: 1.0e6, y: 1.0e6 }, 1.0, |i| found.push(i));
        assert!(found.contains(&1));
        // Non-finite points are never found and never panic.
        grid.rebuild(
            &[Vec2 {
                x: f64::NAN,
                y: 0.0,
            }],
            1.0,
        );
        let mut none = Vec::new();
        grid.for_each_near(Vec2::default(), 10.0, |i| none.push(i));
        assert!(none.is_empty());
    }
}
