//! Thinning results: the accepted and rejected candidates of one row of cells, in canonical order.

use super::generate::GeneratedRow;
use super::layer::{CellBox, Layer};
use crate::content::{Placement, RejectReason, RejectedCandidate, ScatterOutput};
use crate::identity::ScatterId;

/// Appends every candidate of the requested columns of row `cy` to `output` in (cx, k) order:
/// accepted unless ineligible or `strongest(eligible_index)` names a conflicting candidate that
/// outranks it. `eligible_index` is the candidate's index in `row.eligible`.
pub(super) fn decide_row(
    layer: &Layer<'_>,
    row: &GeneratedRow,
    first_x: i64,
    requested: &CellBox,
    cy: i64,
    output: &mut ScatterOutput,
    mut strongest: impl FnMut(usize) -> Option<ScatterId>,
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
                    let conflict = strongest(eligible_index);
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

/// A non-negative column offset as an index (a negative one, which the callers never pass, maps
/// past every slice, so lookups find nothing).
pub(super) fn index(offset: i64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX / 1024)
}
