//! Scatter layer parameters checked and prepared for the kernel, and rectangles of cells.

use std::num::NonZeroU32;

use super::{
    CellRange, ScatterError, ScatterParams, MAX_CANDIDATES_PER_CELL, MAX_CELL_SIZE, MAX_KEEP_OUTS,
    MAX_VARIANTS,
};
use crate::identity::{ScatterId, ScatterKey};
use crate::rng::Bound;

/// An inclusive rectangle of cells, in `i64` so that margins cannot overflow.
#[derive(Clone, Copy)]
pub(super) struct CellBox {
    pub(super) min_x: i64,
    pub(super) min_y: i64,
    pub(super) max_x: i64,
    pub(super) max_y: i64,
}

impl CellBox {
    pub(super) fn is_empty(&self) -> bool {
        self.min_x > self.max_x || self.min_y > self.max_y
    }

    pub(super) fn intersect(&self, other: &CellBox) -> CellBox {
        CellBox {
            min_x: self.min_x.max(other.min_x),
            min_y: self.min_y.max(other.min_y),
            max_x: self.max_x.min(other.max_x),
            max_y: self.max_y.min(other.max_y),
        }
    }

    pub(super) fn grow(&self, margin: i64) -> CellBox {
        CellBox {
            min_x: self.min_x - margin,
            min_y: self.min_y - margin,
            max_x: self.max_x + margin,
            max_y: self.max_y + margin,
        }
    }

    pub(super) fn width(&self) -> u64 {
        (self.max_x - self.min_x + 1).max(0).unsigned_abs()
    }

    pub(super) fn height(&self) -> u64 {
        (self.max_y - self.min_y + 1).max(0).unsigned_abs()
    }

    /// As a half-open range; only called on boxes of `i16` cells, so the ends fit `i32`.
    pub(super) fn to_range(self) -> CellRange {
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
pub(super) struct Layer<'a> {
    pub(super) params: &'a ScatterParams,
    /// `cell_size`, prepared for the offset draws.
    pub(super) cell_bound: Bound,
    /// Cumulative variant weights; the last is the total.
    cumulative_weights: Vec<u32>,
    /// The total weight, prepared for the variant draw.
    pub(super) weight_bound: Bound,
    /// Exclusion radius per variant (each fits `i32`: it is at most `cell_size` ≤ 2^29).
    pub(super) radii: Vec<i32>,
    /// How many cells apart two candidates can conflict: 0, 1 or 2 (every radius is at most
    /// `cell_size`).
    pub(super) reach_cells: i64,
    /// The cells intersecting the region (they fit `i16`).
    pub(super) region_cells: CellBox,
    /// Candidate 0 of cell (0, 0): the room and layer of every identity the layer packs.
    key_base: ScatterKey,
}

/// The cells intersecting `region` (not empty), which must fit `i16`.
fn region_cells(region: super::Rect, cell_size: i64) -> Result<CellBox, ScatterError> {
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
    Ok(region_cells)
}

/// At most [`MAX_KEEP_OUTS`] keep-outs, none inverted.
fn check_keep_outs(params: &ScatterParams) -> Result<(), ScatterError> {
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
    Ok(())
}

/// The variants' cumulative weights, their exclusion radii (each within the cell size) and
/// their total weight.
fn variant_tables(
    params: &ScatterParams,
    cell_size: i64,
) -> Result<(Vec<u32>, Vec<i32>, u32), ScatterError> {
    let mut cumulative_weights = Vec::with_capacity(params.variants.len());
    let mut radii = Vec::with_capacity(params.variants.len());
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
        // 0 ≤ radius ≤ cell_size ≤ 2^29.
        radii.push(radius as i32);
    }
    Ok((cumulative_weights, radii, total))
}

impl<'a> Layer<'a> {
    pub(super) fn new(params: &'a ScatterParams) -> Result<Layer<'a>, ScatterError> {
        let cell_size = params.cell_size;
        if !(1..=MAX_CELL_SIZE).contains(&cell_size) {
            return Err(ScatterError::CellSize { cell_size });
        }
        let cell_bound = u32::try_from(cell_size)
            .ok()
            .and_then(NonZeroU32::new)
            .map(Bound::new)
            .ok_or(ScatterError::CellSize { cell_size })?;
        let candidates = params.candidates_per_cell;
        if !(1..=MAX_CANDIDATES_PER_CELL).contains(&candidates) {
            return Err(ScatterError::CandidatesPerCell { candidates });
        }
        let region = params.region;
        if region.is_empty() {
            return Err(ScatterError::EmptyRegion);
        }
        let region_cells = region_cells(region, cell_size)?;
        check_keep_outs(params)?;
        if params.variants.is_empty() {
            return Err(ScatterError::NoVariants);
        }
        if params.variants.len() > MAX_VARIANTS {
            return Err(ScatterError::TooManyVariants {
                count: params.variants.len(),
            });
        }
        let (cumulative_weights, radii, total) = variant_tables(params, cell_size)?;
        let total_weight = NonZeroU32::new(total).ok_or(ScatterError::TotalWeight)?;
        // Room and layer are checked through the packing itself, so nothing can truncate later.
        let key_base = ScatterKey::try_new(params.room, params.layer, 0, 0, 0)?;
        Ok(Layer {
            params,
            cell_bound,
            cumulative_weights,
            weight_bound: Bound::new(total_weight),
            reach_cells: reach_cells(radii.iter().copied().max().unwrap_or(0), cell_size),
            radii,
            region_cells,
            key_base,
        })
    }

    /// The packed identity of candidate `k` of cell `(cx, cy)`.
    ///
    /// Exact for the cells the kernel visits: they lie within the region's cells, which fit `i16`,
    /// and `k < MAX_CANDIDATES_PER_CELL` fits the 8-bit field; room and layer were checked in
    /// [`Layer::new`].
    pub(super) fn id_of(&self, k: u32, cx: i64, cy: i64) -> ScatterId {
        ScatterKey {
            candidate: k as u8,
            cell_x: cx as i16,
            cell_y: cy as i16,
            ..self.key_base
        }
        .pack()
    }

    /// The identity whose bits [`Layer::id_of`] returned.
    pub(super) fn id_of_bits(&self, bits: u64) -> ScatterId {
        ScatterKey {
            candidate: (bits >> 32) as u8,
            cell_x: (bits >> 16) as u16 as i16,
            cell_y: bits as u16 as i16,
            ..self.key_base
        }
        .pack()
    }

    /// Empty slots on either side of a row's conflict-search lanes: the candidates up to
    /// `reach_cells` cells either way of a slot are within `(reach_cells + 1) · candidates_per_cell
    /// − 1` slots of it.
    pub(super) fn slot_padding(&self) -> usize {
        (self.reach_cells as usize + 1) * self.params.candidates_per_cell as usize - 1
    }

    /// The variant a weighted draw `v < total_weight` selects: the number of cumulative weights
    /// at or below `v`.
    pub(super) fn variant_of(&self, v: u32) -> usize {
        /// Up to this many variants a branch-free count beats a binary search.
        const COUNTED: usize = 16;
        if self.cumulative_weights.len() <= COUNTED {
            self.cumulative_weights
                .iter()
                .map(|&cumulative| usize::from(cumulative <= v))
                .sum()
        } else {
            self.cumulative_weights
                .partition_point(|&cumulative| cumulative <= v)
        }
    }
}

/// How many cells apart two candidates with radii up to `max_radius` can conflict.
///
/// Candidates `d ≥ 1` cells apart on an axis are at least `(d − 1) · cell_size + 1` apart on it,
/// and a conflict needs a distance below `2 · max_radius`.
fn reach_cells(max_radius: i32, cell_size: i64) -> i64 {
    let max_radius = i64::from(max_radius);
    if max_radius == 0 {
        0
    } else {
        (2 * max_radius - 2) / cell_size + 1
    }
}
