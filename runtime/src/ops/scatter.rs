//! P0 scatter: fixed candidates per lattice cell, thinned by addressed priority; exact integers.
//!
//! Implements `CONTRACTS.md`, "Stagecraft's sampling convention", P0 scatter, exactly:
//!
//! - Cell (cx, cy) covers `[cx·cell_size, (cx+1)·cell_size) × [cy·cell_size, (cy+1)·cell_size)`; the
//!   layer's cells are those intersecting its half-open region (floor division), each fitting `i16`.
//! - Candidate k of a cell has scope `pack(room, layer, k, cx, cy)` and event 0. Its position is
//!   `cx·cell_size + sample_bounded(cell_size)` at (placement, dim 0) and likewise y at dim 1; its
//!   priority is `sample_u32` at (placement, dim 2).
//! - Eligible ⇔ inside the region and outside every keep-out (half-open rectangles).
//! - Every eligible candidate draws `sample_bounded(total_weight)` at (variant, dim 0), mapped through
//!   the cumulative weights in the family's variant order; the variant's radius decides conflicts.
//! - Eligible a and b conflict ⇔ `(xa−xb)² + (ya−yb)² < (ra+rb)²`. A candidate is accepted ⇔ it is
//!   eligible and no conflicting eligible candidate has a larger `(priority, packed id)`.
//!
//! Because every radius is at most `cell_size`, a conflict reaches at most two cells away, so a call
//! over a range of cells evaluates the candidates of the cells within 2 of it (eligibility always
//! uses the layer's whole region). Any split of a range — down to single cells — merged with
//! [`ScatterOutput::merge`] therefore equals one call over the whole range, in any order and on any
//! number of threads. [`scatter_par`] runs rows of cells on the current rayon pool and merges them in
//! canonical order; it returns exactly what [`scatter`] returns.
//!
//! Rejection reasons: a candidate outside the region is [`RejectReason::OutsideRegion`] (even if it is
//! also in a keep-out); else the lowest-index keep-out containing it; else the highest conflicting
//! candidate.

use std::num::NonZeroU32;

use rayon::prelude::*;

mod params;

pub use params::{
    CellRange, Rect, ScatterError, ScatterParams, ScatterVariant, MAX_CANDIDATES_PER_CELL,
    MAX_CELL_SIZE, MAX_EVALUATED_CANDIDATES, MAX_KEEP_OUTS, MAX_VARIANTS,
};

use crate::content::{Placement, RejectReason, RejectedCandidate, ScatterOutput};
use crate::identity::{ScatterId, ScatterKey};
use crate::rng::{sample_bounded, sample_u32, Address, BlockSource, Domain, DomainKey};

/// Scatters one layer over `cells` (serial reference).
///
/// Returns the accepted placements and the rejected candidates of the requested cells (those of
/// `cells` that intersect the region), both in canonical order (cell Y, cell X, candidate).
pub fn scatter(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
) -> Result<ScatterOutput, ScatterError> {
    let keys = Keys::new(seed);
    scatter_with(
        params,
        &keys.placement,
        &keys.variant,
        cells,
        Schedule::Serial,
    )
}

/// [`scatter`] with rows of cells run on the current rayon pool; the result is identical.
pub fn scatter_par(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
) -> Result<ScatterOutput, ScatterError> {
    let keys = Keys::new(seed);
    scatter_with(
        params,
        &keys.placement,
        &keys.variant,
        cells,
        Schedule::Parallel,
    )
}

/// The whole layer's cells: those intersecting the region, as a half-open range.
pub fn region_cells(params: &ScatterParams) -> Result<CellRange, ScatterError> {
    Ok(Layer::new(params)?.region_cells.to_range())
}

/// Checks every parameter, reporting the first problem (in field order, with its index).
pub fn validate(params: &ScatterParams) -> Result<(), ScatterError> {
    Layer::new(params).map(|_| ())
}

/// The two domain keys scatter draws from.
struct Keys {
    placement: DomainKey,
    variant: DomainKey,
}

impl Keys {
    fn new(seed: u64) -> Keys {
        Keys {
            placement: DomainKey::new(seed, Domain::Placement),
            variant: DomainKey::new(seed, Domain::Variant),
        }
    }
}

/// Whether rows run serially or on the rayon pool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schedule {
    Serial,
    Parallel,
}

/// An inclusive rectangle of cells, in `i64` so that margins cannot overflow.
#[derive(Clone, Copy)]
struct CellBox {
    min_x: i64,
    min_y: i64,
    max_x: i64,
    max_y: i64,
}

impl CellBox {
    fn is_empty(&self) -> bool {
        self.min_x > self.max_x || self.min_y > self.max_y
    }

    fn intersect(&self, other: &CellBox) -> CellBox {
        CellBox {
            min_x: self.min_x.max(other.min_x),
            min_y: self.min_y.max(other.min_y),
            max_x: self.max_x.min(other.max_x),
            max_y: self.max_y.min(other.max_y),
        }
    }

    fn grow(&self, margin: i64) -> CellBox {
        CellBox {
            min_x: self.min_x - margin,
            min_y: self.min_y - margin,
            max_x: self.max_x + margin,
            max_y: self.max_y + margin,
        }
    }

    fn width(&self) -> u64 {
        (self.max_x - self.min_x + 1).max(0).unsigned_abs()
    }

    fn height(&self) -> u64 {
        (self.max_y - self.min_y + 1).max(0).unsigned_abs()
    }

    /// As a half-open range; only called on boxes of `i16` cells, so the ends fit `i32`.
    fn to_range(self) -> CellRange {
        let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        CellRange::new(
            clamp(self.min_x),
            clamp(self.min_y),
            clamp(self.max_x + 1),
            clamp(self.max_y + 1),
        )
    }
}

/// Validated layer parameters in kernel form.
struct Layer<'a> {
    params: &'a ScatterParams,
    /// `cell_size` as a bound for `sample_bounded`.
    cell_bound: NonZeroU32,
    /// Cumulative variant weights; the last is the total.
    cumulative_weights: Vec<u32>,
    total_weight: NonZeroU32,
    region_cells: CellBox,
}

impl<'a> Layer<'a> {
    fn new(params: &'a ScatterParams) -> Result<Layer<'a>, ScatterError> {
        let cell_size = params.cell_size;
        if !(1..=MAX_CELL_SIZE).contains(&cell_size) {
            return Err(ScatterError::CellSize { cell_size });
        }
        let cell_bound = u32::try_from(cell_size)
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or(ScatterError::CellSize { cell_size })?;
        let candidates = params.candidates_per_cell;
        if !(1..=MAX_CANDIDATES_PER_CELL).contains(&candidates) {
            return Err(ScatterError::CandidatesPerCell { candidates });
        }
        let region = params.region;
        if region.is_empty() {
            return Err(ScatterError::EmptyRegion);
        }
        let region_cells = CellBox {
            min_x: region.min_x.div_euclid(cell_size),
            min_y: region.min_y.div_euclid(cell_size),
            max_x: (region.max_x - 1).div_euclid(cell_size),
            max_y: (region.max_y - 1).div_euclid(cell_size),
        };
        let fits = |v: i64| i16::try_from(v).is_ok();
        if ![
            region_cells.min_x,
            region_cells.min_y,
            region_cells.max_x,
            region_cells.max_y,
        ]
        .into_iter()
        .all(fits)
        {
            return Err(ScatterError::RegionCells {
                min_x: region_cells.min_x,
                min_y: region_cells.min_y,
                max_x: region_cells.max_x,
                max_y: region_cells.max_y,
            });
        }
        if params.keep_outs.len() > MAX_KEEP_OUTS {
            return Err(ScatterError::TooManyKeepOuts {
                count: params.keep_outs.len(),
            });
        }
        if let Some(index) = params
            .keep_outs
            .iter()
            .position(|r| r.min_x > r.max_x || r.min_y > r.max_y)
        {
            return Err(ScatterError::InvertedKeepOut { index });
        }
        if params.variants.is_empty() {
            return Err(ScatterError::NoVariants);
        }
        if params.variants.len() > MAX_VARIANTS {
            return Err(ScatterError::TooManyVariants {
                count: params.variants.len(),
            });
        }
        let mut cumulative_weights = Vec::with_capacity(params.variants.len());
        let mut total: u32 = 0;
        for (index, variant) in params.variants.iter().enumerate() {
            if variant.weight == 0 {
                return Err(ScatterError::VariantWeight { index });
            }
            total = total
                .checked_add(variant.weight)
                .ok_or(ScatterError::TotalWeight)?;
            cumulative_weights.push(total);
            let radius = variant.exclusion_radius;
            if !(0..=cell_size).contains(&radius) {
                return Err(ScatterError::ExclusionRadius { index, radius });
            }
        }
        let total_weight = NonZeroU32::new(total).ok_or(ScatterError::TotalWeight)?;
        // Room and layer are checked through the packing itself, so nothing can truncate later.
        ScatterKey::try_new(params.room, params.layer, 0, 0, 0)?;
        Ok(Layer {
            params,
            cell_bound,
            cumulative_weights,
            total_weight,
            region_cells,
        })
    }

    /// The variant a weighted draw `v < total_weight` selects.
    fn variant_of(&self, v: u32) -> usize {
        self.cumulative_weights
            .partition_point(|&cumulative| cumulative <= v)
    }
}

/// Whether a candidate can take part in conflicts, and if not, why.
#[derive(Clone, Copy)]
enum Status {
    Eligible { variant: u32, radius: i64 },
    Rejected(RejectReason),
}

/// A generated candidate.
#[derive(Clone, Copy)]
struct Candidate {
    id: ScatterId,
    x: i64,
    y: i64,
    priority: u32,
    status: Status,
}

/// The core: validated layer, explicit block sources, explicit schedule.
fn scatter_with<P, V>(
    params: &ScatterParams,
    placement_source: &P,
    variant_source: &V,
    cells: CellRange,
    schedule: Schedule,
) -> Result<ScatterOutput, ScatterError>
where
    P: BlockSource + Sync + ?Sized,
    V: BlockSource + Sync + ?Sized,
{
    let layer = Layer::new(params)?;
    if cells.end_x < cells.min_x || cells.end_y < cells.min_y {
        return Err(ScatterError::InvertedRange);
    }
    let asked = CellBox {
        min_x: i64::from(cells.min_x),
        min_y: i64::from(cells.min_y),
        max_x: i64::from(cells.end_x) - 1,
        max_y: i64::from(cells.end_y) - 1,
    };
    let requested = asked.intersect(&layer.region_cells);
    if requested.is_empty() {
        return Ok(ScatterOutput::default());
    }
    let evaluated = requested.grow(2).intersect(&layer.region_cells);
    let candidates = evaluated
        .width()
        .saturating_mul(evaluated.height())
        .saturating_mul(u64::from(params.candidates_per_cell));
    if candidates > MAX_EVALUATED_CANDIDATES {
        return Err(ScatterError::Capacity { candidates });
    }

    let generate = |cy: i64| generate_row(&layer, placement_source, variant_source, &evaluated, cy);
    let rows: Vec<Result<Vec<Candidate>, ScatterError>> = match schedule {
        Schedule::Serial => (evaluated.min_y..=evaluated.max_y).map(generate).collect(),
        Schedule::Parallel => (evaluated.min_y..=evaluated.max_y)
            .into_par_iter()
            .map(generate)
            .collect(),
    };
    // Collecting in row order reports the first failing row, whatever the schedule.
    let grid = Grid {
        rows: rows.into_iter().collect::<Result<_, _>>()?,
        cells: evaluated,
        per_cell: params.candidates_per_cell as usize,
        cell_size: params.cell_size,
        max_radius: params
            .variants
            .iter()
            .map(|v| v.exclusion_radius)
            .max()
            .unwrap_or(0),
    };

    let decide = |cy: i64| decide_row(&grid, &requested, cy);
    let decided: Vec<ScatterOutput> = match schedule {
        Schedule::Serial => (requested.min_y..=requested.max_y).map(decide).collect(),
        Schedule::Parallel => (requested.min_y..=requested.max_y)
            .into_par_iter()
            .map(decide)
            .collect(),
    };
    // Rows are already in canonical order, and each row is ordered by (cx, k).
    let mut output = ScatterOutput::default();
    for row in decided {
        output.placements.extend(row.placements);
        output.rejected.extend(row.rejected);
    }
    Ok(output)
}

/// Candidates of the evaluated cells, one row of cells per entry.
struct Grid {
    rows: Vec<Vec<Candidate>>,
    cells: CellBox,
    per_cell: usize,
    cell_size: i64,
    /// The largest exclusion radius of the family, which bounds how far a conflict reaches.
    max_radius: i64,
}

impl Grid {
    /// The candidates of cell `(cx, cy)`, which must lie inside `cells`.
    fn cell(&self, cx: i64, cy: i64) -> &[Candidate] {
        let row = usize::try_from(cy - self.cells.min_y).unwrap_or(usize::MAX);
        let column = usize::try_from(cx - self.cells.min_x).unwrap_or(usize::MAX);
        let start = column.saturating_mul(self.per_cell);
        self.rows
            .get(row)
            .and_then(|row| row.get(start..start.saturating_add(self.per_cell)))
            .unwrap_or(&[])
    }
}

/// Draws every candidate of row `cy` of the evaluated cells.
fn generate_row<P, V>(
    layer: &Layer<'_>,
    placement_source: &P,
    variant_source: &V,
    evaluated: &CellBox,
    cy: i64,
) -> Result<Vec<Candidate>, ScatterError>
where
    P: BlockSource + ?Sized,
    V: BlockSource + ?Sized,
{
    let params = layer.params;
    let per_cell = params.candidates_per_cell;
    let mut row = Vec::with_capacity(evaluated.width() as usize * per_cell as usize);
    for cx in evaluated.min_x..=evaluated.max_x {
        for k in 0..per_cell {
            let id = ScatterKey::try_new(params.room, params.layer, k, cx, cy)?.pack();
            let scope = id.bits();
            let dx = sample_bounded(
                placement_source,
                Address::new(scope, 0, 0),
                layer.cell_bound,
            )?;
            let dy = sample_bounded(
                placement_source,
                Address::new(scope, 0, 1),
                layer.cell_bound,
            )?;
            let priority = sample_u32(placement_source, Address::new(scope, 0, 2));
            let x = cx * params.cell_size + i64::from(dx);
            let y = cy * params.cell_size + i64::from(dy);
            let status = if !params.region.contains(x, y) {
                Status::Rejected(RejectReason::OutsideRegion)
            } else if let Some(index) = params.keep_outs.iter().position(|r| r.contains(x, y)) {
                // `index < MAX_KEEP_OUTS`, which fits u32.
                Status::Rejected(RejectReason::InKeepOut {
                    keep_out: index as u32,
                })
            } else {
                let draw = sample_bounded(
                    variant_source,
                    Address::new(scope, 0, 0),
                    layer.total_weight,
                )?;
                let variant = layer.variant_of(draw);
                let radius = params
                    .variants
                    .get(variant)
                    .map_or(0, |v| v.exclusion_radius);
                Status::Eligible {
                    variant: variant as u32,
                    radius,
                }
            };
            row.push(Candidate {
                id,
                x,
                y,
                priority,
                status,
            });
        }
    }
    Ok(row)
}

/// Accepts or rejects every candidate of row `cy` of the requested cells.
fn decide_row(grid: &Grid, requested: &CellBox, cy: i64) -> ScatterOutput {
    let mut output = ScatterOutput::default();
    for cx in requested.min_x..=requested.max_x {
        for (k, candidate) in grid.cell(cx, cy).iter().enumerate() {
            // Requested cells are region cells, so they fit i16, and k < 256.
            let (cell_x, cell_y, k) = (cx as i16, cy as i16, k as u8);
            let reason = match candidate.status {
                Status::Rejected(reason) => Some(reason),
                Status::Eligible { variant, radius } => {
                    match strongest_conflict(grid, cx, cy, candidate, radius) {
                        Some(with) => Some(RejectReason::Conflict { with }),
                        None => {
                            output.placements.push(Placement {
                                id: candidate.id,
                                cell_x,
                                cell_y,
                                candidate: k,
                                x: candidate.x,
                                y: candidate.y,
                                variant,
                                priority: candidate.priority,
                            });
                            None
                        }
                    }
                }
            };
            if let Some(reason) = reason {
                output.rejected.push(RejectedCandidate {
                    id: candidate.id,
                    cell_x,
                    cell_y,
                    candidate: k,
                    x: candidate.x,
                    y: candidate.y,
                    reason,
                });
            }
        }
    }
    output
}

/// The highest-ranked eligible candidate within two cells that outranks and conflicts with
/// `candidate`, if any.
fn strongest_conflict(
    grid: &Grid,
    cx: i64,
    cy: i64,
    candidate: &Candidate,
    radius: i64,
) -> Option<ScatterId> {
    let own_rank = rank(candidate);
    // A conflict needs |dx| and |dy| below `reach`, so only the cells overlapping that window can
    // hold one; `reach ≤ 2 · cell_size` keeps them within two cells of (cx, cy), inside the grid's
    // margin. Skipping the others is an optimization: the result is the same as scanning ±2 cells.
    let reach = radius + grid.max_radius;
    if reach == 0 {
        return None;
    }
    let cs = grid.cell_size;
    let cells = CellBox {
        min_x: (candidate.x - reach + 1).div_euclid(cs).max(cx - 2),
        min_y: (candidate.y - reach + 1).div_euclid(cs).max(cy - 2),
        max_x: (candidate.x + reach - 1).div_euclid(cs).min(cx + 2),
        max_y: (candidate.y + reach - 1).div_euclid(cs).min(cy + 2),
    }
    .intersect(&grid.cells);
    // Starting from the candidate's own rank, "outranks the best so far" also means "outranks the
    // candidate"; the candidate itself never outranks itself.
    let mut best = own_rank;
    let mut best_id = None;
    for ny in cells.min_y..=cells.max_y {
        for nx in cells.min_x..=cells.max_x {
            for other in grid.cell(nx, ny) {
                let Status::Eligible {
                    radius: other_radius,
                    ..
                } = other.status
                else {
                    continue;
                };
                let (dx, dy) = (candidate.x - other.x, candidate.y - other.y);
                let pair_reach = radius + other_radius;
                let other_rank = rank(other);
                if (dx * dx + dy * dy < pair_reach * pair_reach) & (other_rank > best) {
                    best = other_rank;
                    best_id = Some(other.id);
                }
            }
        }
    }
    best_id
}

/// The total thinning order: `(priority, packed id)` as one integer.
fn rank(candidate: &Candidate) -> u128 {
    (u128::from(candidate.priority) << 64) | u128::from(candidate.id.bits())
}

#[cfg(test)]
mod tests;
