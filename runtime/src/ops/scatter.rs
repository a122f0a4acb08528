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

use rayon::prelude::*;

pub mod address;
mod conflicts;
mod decide;
mod generate;
mod layer;
mod params;
mod rank;

pub use params::{
    CellRange, Rect, ScatterError, ScatterParams, ScatterVariant, MAX_CANDIDATES_PER_CELL,
    MAX_CELL_SIZE, MAX_EVALUATED_CANDIDATES, MAX_KEEP_OUTS, MAX_VARIANTS,
};

use crate::content::ScatterOutput;
use crate::rng::{BlockSource, DomainKey};
use conflicts::settle_row;
use decide::{decide_row, Decision};
use generate::{generate_row, GeneratedRow};
use layer::{CellBox, Layer};
use rank::RankOrder;

/// Scatters one layer over `cells` (serial reference).
///
/// Returns the accepted placements and the rejected candidates of the requested cells (those of
/// `cells` that intersect the region), both in canonical order (cell Y, cell X, candidate).
pub fn scatter(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
) -> Result<ScatterOutput, ScatterError> {
    let mut output = ScatterOutput::default();
    scatter_into(params, seed, cells, &mut output)?;
    Ok(output)
}

/// [`scatter`] appending to `output` instead of returning a new one: what a caller scattering a
/// range piece by piece (rows in ascending order) uses, so the records land once in one list and
/// no piece's output is copied. On an error `output` is left as it was.
///
/// Room for every candidate of the pieces reserved in `output` beforehand is used as it is; the
/// kernel only reserves more when it might not suffice. Reserved room that no record reaches is
/// address space the process never touches.
pub fn scatter_into(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
    output: &mut ScatterOutput,
) -> Result<(), ScatterError> {
    let keys = Keys::new(seed);
    scatter_with_into(
        params,
        &keys.placement,
        &keys.variant,
        cells,
        Schedule::Serial,
        output,
    )
}

/// [`scatter`] with rows of cells run on the current rayon pool; the result is identical.
pub fn scatter_par(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
) -> Result<ScatterOutput, ScatterError> {
    let mut output = ScatterOutput::default();
    scatter_par_into(params, seed, cells, &mut output)?;
    Ok(output)
}

/// [`scatter_into`] with rows of cells run on the current rayon pool; the result is identical.
pub fn scatter_par_into(
    params: &ScatterParams,
    seed: u64,
    cells: CellRange,
    output: &mut ScatterOutput,
) -> Result<(), ScatterError> {
    let keys = Keys::new(seed);
    scatter_with_into(
        params,
        &keys.placement,
        &keys.variant,
        cells,
        Schedule::Parallel,
        output,
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
            // Every placement slot shares one domain.
            placement: DomainKey::new(seed, address::OFFSET_X.domain),
            variant: DomainKey::new(seed, address::VARIANT.domain),
        }
    }
}

/// Whether rows run serially or on the rayon pool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schedule {
    Serial,
    Parallel,
}

/// [`scatter_with_into`] into a new output.
#[cfg(test)]
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
    let mut output = ScatterOutput::default();
    scatter_with_into(
        params,
        placement_source,
        variant_source,
        cells,
        schedule,
        &mut output,
    )?;
    Ok(output)
}

/// The core: validated layer, explicit block sources, explicit schedule; appends to `output`
/// and, on an error, truncates it back to what it held.
fn scatter_with_into<P, V>(
    params: &ScatterParams,
    placement_source: &P,
    variant_source: &V,
    cells: CellRange,
    schedule: Schedule,
    output: &mut ScatterOutput,
) -> Result<(), ScatterError>
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
        return Ok(());
    }
    let evaluated = requested.grow(2).intersect(&layer.region_cells);
    let candidates = evaluated
        .width()
        .saturating_mul(evaluated.height())
        .saturating_mul(u64::from(params.candidates_per_cell));
    if candidates > MAX_EVALUATED_CANDIDATES {
        return Err(ScatterError::Capacity { candidates });
    }
    let rows = Rows {
        layer: &layer,
        placement_source,
        variant_source,
        evaluated,
        requested,
    };
    let held = (output.placements.len(), output.rejected.len());
    let result = match schedule {
        Schedule::Serial => rows.run_band(rows.requested.min_y, rows.requested.max_y, output),
        Schedule::Parallel => rows.run_parallel(output),
    };
    if result.is_err() {
        output.placements.truncate(held.0);
        output.rejected.truncate(held.1);
    }
    result
}

/// One scatter request: the rows of cells it generates and decides.
struct Rows<'a, P: ?Sized, V: ?Sized> {
    layer: &'a Layer<'a>,
    placement_source: &'a P,
    variant_source: &'a V,
    /// The requested cells and every cell within two of them, inside the region.
    evaluated: CellBox,
    /// The requested cells inside the region.
    requested: CellBox,
}

impl<P, V> Rows<'_, P, V>
where
    P: BlockSource + Sync + ?Sized,
    V: BlockSource + Sync + ?Sized,
{
    /// Bands of requested rows run on the rayon pool and appended to `output` in row order. A
    /// band's result does not depend on the other bands, so this is exactly the serial run's one
    /// band of every requested row.
    fn run_parallel(&self, output: &mut ScatterOutput) -> Result<(), ScatterError> {
        // Each band regenerates the two rows on either side of it, so bands are kept tall.
        const MIN_BAND_ROWS: u64 = 16;
        let rows = self.requested.height();
        let bands = (rayon::current_num_threads() as u64 * 2)
            .min(rows / MIN_BAND_ROWS)
            .max(1);
        let band_rows = rows.div_ceil(bands) as i64;
        let starts: Vec<i64> = (self.requested.min_y..=self.requested.max_y)
            .step_by(band_rows as usize)
            .collect();
        let parts: Vec<Result<ScatterOutput, ScatterError>> = starts
            .into_par_iter()
            .map(|first| {
                let mut band = ScatterOutput::default();
                let last = (first + band_rows - 1).min(self.requested.max_y);
                self.run_band(first, last, &mut band).map(|()| band)
            })
            .collect();
        // Collecting in band order reports the first failing band, as the serial run would.
        let parts: Vec<ScatterOutput> = parts.into_iter().collect::<Result<_, _>>()?;
        let placed: usize = parts.iter().map(|part| part.placements.len()).sum();
        let rejected: usize = parts.iter().map(|part| part.rejected.len()).sum();
        reserve(&mut output.placements, placed + SPARE_RECORDS)?;
        reserve(&mut output.rejected, rejected + SPARE_RECORDS)?;
        for part in parts {
            output.placements.extend(part.placements);
            output.rejected.extend(part.rejected);
        }
        Ok(())
    }

    /// Decides requested rows `first..=last`, appending their records to `output`.
    ///
    /// Rows are generated just ahead of the row being decided, into a ring of five reused buffers,
    /// so each row is generated once; each requested row is compared with the rows within two of
    /// it and decided straight into the output.
    fn run_band(
        &self,
        first: i64,
        last: i64,
        output: &mut ScatterOutput,
    ) -> Result<(), ScatterError> {
        const RING: i64 = 5;
        let slot = |y: i64| y.rem_euclid(RING) as usize;
        let top = (first - 2).max(self.evaluated.min_y);
        let bottom = (last + 2).min(self.evaluated.max_y);
        let order = RankOrder::new(self.layer, &self.evaluated);
        let decision = Decision {
            layer: self.layer,
            order: &order,
            first_x: self.evaluated.min_x,
            requested: self.requested,
        };
        let mut ring: [GeneratedRow; RING as usize] = Default::default();
        let mut scratch = Vec::new();
        let mut next_row = top;
        // Room for every candidate of the band in both lists (no list grows by copying), and the
        // spare room overrides merge into. Untouched room costs address space only.
        let capacity = (last - first + 1).max(0) as usize
            * self.requested.width() as usize
            * self.layer.params.candidates_per_cell as usize
            + SPARE_RECORDS;
        reserve(&mut output.placements, capacity)?;
        reserve(&mut output.rejected, capacity)?;
        let reach = self.layer.reach_cells;
        // Rows above the band are settled too: their pairs with the band's rows count.
        for cy in top..=last {
            // Rows are generated in ascending order, so row cy + 2 replaces row cy − 3.
            while next_row <= (cy + reach).min(bottom) {
                generate_row(
                    self.layer,
                    &order,
                    self.placement_source,
                    self.variant_source,
                    &self.evaluated,
                    next_row,
                    &mut ring[slot(next_row)],
                )?;
                next_row += 1;
            }
            let Ok([row, below, further]) =
                ring.get_disjoint_mut([slot(cy), slot(cy + 1), slot(cy + 2)])
            else {
                continue;
            };
            let mut later = [&mut below.slots, &mut further.slots];
            let later_rows = ((cy + reach).min(bottom) - cy).clamp(0, 2) as usize;
            settle_row(&mut row.slots, &mut later[..later_rows], &mut scratch);
            if cy >= first {
                decide_row(&decision, row, output);
            }
        }
        // Left at the reserved capacity: shrinking would copy a list whose accepted records are
        // a fraction of its room into fresh memory; the parallel run copies its bands into one
        // output anyway.
        Ok(())
    }
}

/// Spare records of room an output keeps past its length: applying a few author overrides merges
/// their occupants and the candidates they displace into the lists in place, and without this room
/// the first added record would copy a whole list of a square kilometre into a new allocation.
pub const SPARE_RECORDS: usize = 64;

/// Reserves room for `items` more records, reporting an allocation failure as
/// [`ScatterError::OutOfMemory`] (so it becomes the `out-of-memory` failure kind) instead of
/// aborting the process.
fn reserve<T>(records: &mut Vec<T>, items: usize) -> Result<(), ScatterError> {
    records
        .try_reserve(items)
        .map_err(|_| ScatterError::OutOfMemory { items })
}

#[cfg(test)]
mod tests;
