//! Thinning results: the accepted and rejected candidates of one row of cells, in canonical order.

use super::generate::GeneratedRow;
use super::layer::{CellBox, Layer};
use super::rank::RankOrder;
use crate::content::{Placement, RejectReason, RejectedCandidate, ScatterOutput};

/// What deciding a row needs besides the row: the layer, its candidates' order, and the columns.
pub(super) struct Decision<'a> {
    pub(super) layer: &'a Layer<'a>,
    pub(super) order: &'a RankOrder<'a>,
    /// The first evaluated column (slot 0 of every row).
    pub(super) first_x: i64,
    /// The requested cells.
    pub(super) requested: CellBox,
}

/// Appends every candidate of the requested columns of `row`, a settled row, to `output` in
/// (cx, k) order: accepted unless ineligible or outranked by a conflicting candidate.
pub(super) fn decide_row(decision: &Decision<'_>, row: &GeneratedRow, output: &mut ScatterOutput) {
    let Decision {
        layer,
        order,
        first_x,
        requested,
    } = decision;
    let (first_x, requested) = (*first_x, requested);
    let per_cell = layer.params.candidates_per_cell as usize;
    for cx in requested.min_x..=requested.max_x {
        let column = index(cx - first_x);
        let start = column * per_cell;
        let cell = row.candidates.get(start..start + per_cell).unwrap_or(&[]);
        for (candidate, slot) in cell.iter().zip(start..) {
            let reason = match candidate.eligibility_rejection() {
                Some(reason) => reason,
                None => match row.slots.outranked_by(slot).map(|rank| order.id(rank)) {
                    Some(with) => RejectReason::Conflict { with },
                    None => {
                        output.placements.push(Placement {
                            id: candidate.id,
                            x: candidate.x,
                            y: candidate.y,
                            variant: candidate.variant(),
                            priority: candidate.priority,
                        });
                        continue;
                    }
                },
            };
            output.rejected.push(RejectedCandidate::new(
                candidate.id,
                candidate.x,
                candidate.y,
                reason,
            ));
        }
    }
}

/// A non-negative column offset as an index (a negative one, which the callers never pass, maps
/// past every slice, so lookups find nothing).
pub(super) fn index(offset: i64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX / 1024)
}
