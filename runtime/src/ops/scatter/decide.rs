//! Thinning results: the accepted and rejected candidates of one row of cells, in canonical order,
//! and the window of cells in which a candidate's conflicts can lie.

use super::generate::{Candidate, GeneratedRow};
use super::layer::{CellBox, Layer};
use crate::content::{Placement, RejectReason, RejectedCandidate, ScatterOutput};
use crate::identity::ScatterId;

/// Appends every candidate of the requested columns of row `cy` to `output` in (cx, k) order:
/// accepted unless ineligible or `strongest(eligible_index, cx, candidate)` names a conflicting
/// candidate that outranks it. `eligible_index` is the candidate's index in `row.eligible`.
pub(super) fn decide_row(
    layer: &Layer<'_>,
    row: &GeneratedRow,
    first_x: i64,
    requested: &CellBox,
    cy: i64,
    output: &mut ScatterOutput,
    mut strongest: impl FnMut(usize, i64, &Candidate) -> Option<ScatterId>,
) {
    let per_cell = layer.params.candidates_per_cell as usize;
    for cx in requested.min_x..=requested.max_x {
        let column = index(cx - first_x);
        let start = column * per_cell;
        let cell = row.candidates.get(start..start + per_cell).unwrap_or(&[]);
        let mut eligible_index =
            row.eligible.column_starts.get(column).copied().unwrap_or(0) as usize;
        for (k, candidate) in cell.iter().enumerate() {
            // Requested cells are region cells, so they fit i16, and k < 256.
            let (cell_x, cell_y, k) = (cx as i16, cy as i16, k as u8);
            let reason = match candidate.eligibility_rejection() {
                Some(reason) => reason,
                None => {
                    let conflict = strongest(eligible_index, cx, candidate);
                    eligible_index += 1;
                    match conflict {
                        Some(with) => RejectReason::Conflict { with },
                        None => {
                            output.placements.push(Placement {
                                id: candidate.id,
                                cell_x,
                                cell_y,
                                candidate: k,
                                x: candidate.x,
                                y: candidate.y,
                                variant: candidate.variant(),
                                priority: candidate.priority,
                            });
                            continue;
                        }
                    }
                }
            };
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

/// The cells that can hold a conflict of an eligible candidate of cell `(cx, cy)`: columns as
/// indices into the evaluated columns, rows as offsets −2..=2 from `cy`.
///
/// A conflict needs |dx| and |dy| below `reach = radius + max_radius`, so only the cells overlapping
/// that window can hold one; `reach ≤ 2 · cell_size` keeps them within two cells of (cx, cy).
/// Skipping the others is an optimization: the result is the same as scanning ±2 cells.
pub(super) struct Window {
    /// Evaluated columns, as indices from the first evaluated column.
    pub(super) columns: std::ops::RangeInclusive<usize>,
    /// The first row, as an offset from the candidate's row.
    pub(super) first_row: i64,
    /// The last row, as an offset from the candidate's row.
    pub(super) last_row: i64,
}

impl Window {
    /// The window of an eligible candidate at `(x, y)` with exclusion radius `radius` in cell
    /// `(cx, cy)`, clipped to the evaluated columns `first_x..=last_x`; `None` when nothing can
    /// conflict with it (every radius is zero).
    pub(super) fn of(
        layer: &Layer<'_>,
        (x, y, radius): (i64, i64, i64),
        (cx, cy): (i64, i64),
        (first_x, last_x): (i64, i64),
    ) -> Option<Window> {
        let reach = radius + layer.max_radius;
        if reach == 0 {
            return None;
        }
        let cell_size = layer.params.cell_size;
        let (offset_x, offset_y) = (x - cx * cell_size, y - cy * cell_size);
        let low_x = (cx + cells_below(offset_x - reach + 1, cell_size)).max(first_x);
        let high_x = (cx + cells_below(offset_x + reach - 1, cell_size)).min(last_x);
        Some(Window {
            columns: index(low_x - first_x)..=index(high_x - first_x),
            first_row: cells_below(offset_y - reach + 1, cell_size),
            last_row: cells_below(offset_y + reach - 1, cell_size),
        })
    }
}

/// `floor(offset / cell_size)` for `−2 · cell_size ≤ offset < 3 · cell_size`, without a division.
fn cells_below(offset: i64, cell_size: i64) -> i64 {
    i64::from(offset >= cell_size) + i64::from(offset >= 2 * cell_size)
        - i64::from(offset < 0)
        - i64::from(offset < -cell_size)
}

/// A non-negative column offset as an index (a negative one, which the callers never pass, maps
/// past every slice, so lookups find nothing).
pub(super) fn index(offset: i64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX / 1024)
}
