//! Heatmaps of a scatter product over its region: how many candidates, rejections (all, or of one
//! reason) or accepted placements fall in each bin of a grid of generation cells.
//!
//! A bin is a square of `cells_per_bin`² scatter cells; a candidate counts in the bin of its cell,
//! read from its packed identity, so binning is exact integer arithmetic and never depends on a
//! position's rounding. The grid covers every cell that meets a layer's region and every cell
//! holding a candidate (an outside-region rejection can lie in a cell beside the region), with
//! `cells_per_bin` the smallest that keeps both sides within the requested number of bins. Bins
//! are row-major, rows from the lowest cell row up. Same product and request, same grid.

use super::placement::RejectReason;
use super::product::ScatterProduct;

/// What a heatmap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum HeatmapMode {
    /// Every candidate evaluated, accepted or not.
    #[default]
    Candidates,
    /// Rejected candidates, of one reason or of all (`None`).
    Rejections(Option<RejectionKind>),
    /// Accepted placements.
    Density,
}

/// A rejection reason without its details (which keep-out, which winner), for filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RejectionKind {
    /// Outside the layer's region.
    OutsideRegion,
    /// Inside a keep-out.
    InKeepOut,
    /// Lost to a conflicting candidate of higher priority.
    Conflict,
}

impl RejectionKind {
    /// Every kind, in display order.
    pub const ALL: [RejectionKind; 3] = [
        RejectionKind::OutsideRegion,
        RejectionKind::InKeepOut,
        RejectionKind::Conflict,
    ];

    /// The kind of `reason`.
    pub fn of(reason: RejectReason) -> RejectionKind {
        match reason {
            RejectReason::OutsideRegion => RejectionKind::OutsideRegion,
            RejectReason::InKeepOut { .. } => RejectionKind::InKeepOut,
            RejectReason::Conflict { .. } => RejectionKind::Conflict,
        }
    }

    /// The kind's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            RejectionKind::OutsideRegion => "outside-region",
            RejectionKind::InKeepOut => "in-keep-out",
            RejectionKind::Conflict => "conflict",
        }
    }
}

/// Counts per bin over a scatter product's cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// What was counted.
    pub mode: HeatmapMode,
    /// The cell `(x, y)` at the grid's lowest corner.
    pub first_cell: (i64, i64),
    /// Cells per bin side.
    pub cells_per_bin: u32,
    /// Bins across (x).
    pub columns: u32,
    /// Bins along (y).
    pub rows: u32,
    /// Bin edge, meters.
    pub bin_size_m: f64,
    /// The grid's lowest corner, meters.
    pub origin_m: (f64, f64),
    /// Counts, row-major, `rows × columns`.
    pub counts: Vec<u32>,
}

impl Heatmap {
    /// The count of bin (`column`, `row`), 0 outside the grid.
    pub fn count(&self, column: u32, row: u32) -> u32 {
        if column >= self.columns || row >= self.rows {
            return 0;
        }
        let index = row as usize * self.columns as usize + column as usize;
        self.counts.get(index).copied().unwrap_or(0)
    }

    /// The largest count of a bin.
    pub fn max(&self) -> u32 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// The sum of every bin.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|c| u64::from(*c)).sum()
    }

    /// One bin's area, square meters.
    pub fn bin_area_m2(&self) -> f64 {
        self.bin_size_m * self.bin_size_m
    }

    /// The lowest corner of bin (`column`, `row`), meters.
    pub fn bin_origin_m(&self, column: u32, row: u32) -> (f64, f64) {
        (
            self.origin_m.0 + f64::from(column) * self.bin_size_m,
            self.origin_m.1 + f64::from(row) * self.bin_size_m,
        )
    }
}

/// The heatmap of `product` in `mode`, with at most `max_bins` bins a side (at least 1); `None`
/// when the product has no layer.
pub fn scatter_heatmap(
    product: &ScatterProduct,
    mode: HeatmapMode,
    max_bins: u32,
) -> Option<Heatmap> {
    let (low, high) = cell_span(product)?;
    let span = (high.0 - low.0 + 1).max(high.1 - low.1 + 1);
    // At least 1: the span and `max_bins` are.
    let cells_per_bin =
        i64::try_from(span.unsigned_abs().div_ceil(u64::from(max_bins.max(1)))).ok()?;
    let columns = (high.0 - low.0) / cells_per_bin + 1;
    let rows = (high.1 - low.1) / cells_per_bin + 1;
    let mut counts = vec![0u32; usize::try_from(columns * rows).ok()?];
    let mut add = |cell_x: i16, cell_y: i16| {
        let column = (i64::from(cell_x) - low.0) / cells_per_bin;
        let row = (i64::from(cell_y) - low.1) / cells_per_bin;
        if let Ok(index) = usize::try_from(row * columns + column) {
            if let Some(count) = counts.get_mut(index) {
                *count = count.saturating_add(1);
            }
        }
    };
    for layer in &product.layers {
        let output = &layer.output;
        if matches!(mode, HeatmapMode::Candidates | HeatmapMode::Density) {
            for p in &output.placements {
                add(p.cell_x(), p.cell_y());
            }
        }
        if let HeatmapMode::Candidates | HeatmapMode::Rejections(_) = mode {
            let only = match mode {
                HeatmapMode::Rejections(only) => only,
                _ => None,
            };
            for r in &output.rejected {
                if only.is_none_or(|kind| RejectionKind::of(r.reason()) == kind) {
                    add(r.cell_x(), r.cell_y());
                }
            }
        }
    }
    let cell_m = product.cell_size as f64 * product.lattice_unit_m;
    Some(Heatmap {
        mode,
        first_cell: low,
        cells_per_bin: u32::try_from(cells_per_bin).ok()?,
        columns: u32::try_from(columns).ok()?,
        rows: u32::try_from(rows).ok()?,
        bin_size_m: cell_m * cells_per_bin as f64,
        origin_m: (low.0 as f64 * cell_m, low.1 as f64 * cell_m),
        counts,
    })
}

/// The lowest and highest cell `(x, y)` meeting a layer's region or holding a candidate.
fn cell_span(product: &ScatterProduct) -> Option<((i64, i64), (i64, i64))> {
    let cell = product.cell_size.max(1);
    let mut span: Option<((i64, i64), (i64, i64))> = None;
    let mut take = |x: i64, y: i64| {
        span = Some(match span {
            None => ((x, y), (x, y)),
            Some((lo, hi)) => ((lo.0.min(x), lo.1.min(y)), (hi.0.max(x), hi.1.max(y))),
        });
    };
    for layer in &product.layers {
        let region = layer.region;
        if region.max_x > region.min_x && region.max_y > region.min_y {
            take(region.min_x.div_euclid(cell), region.min_y.div_euclid(cell));
            take(
                (region.max_x - 1).div_euclid(cell),
                (region.max_y - 1).div_euclid(cell),
            );
        }
        for p in &layer.output.placements {
            take(i64::from(p.cell_x()), i64::from(p.cell_y()));
        }
        for r in &layer.output.rejected {
            take(i64::from(r.cell_x()), i64::from(r.cell_y()));
        }
    }
    span
}

#[cfg(test)]
mod tests;
