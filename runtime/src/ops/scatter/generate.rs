//! Candidate generation: the addressed draws of one row of cells, in the compact form the conflict
//! search scans.

use super::address::{EVENT, OFFSET_X, OFFSET_Y, PRIORITY, VARIANT};
use super::conflicts::Slots;
use super::layer::{CellBox, Layer};
use super::rank::RankOrder;
use super::ScatterError;
use crate::content::RejectReason;
use crate::identity::ScatterId;
use crate::rng::{bounded_from_first, Address, BlockSource};

/// [`Candidate::radius`] of a candidate that is not eligible.
const INELIGIBLE: i32 = -1;
/// [`Candidate::tag`] of a candidate outside the region.
const OUTSIDE_REGION: u32 = u32::MAX;

/// A generated candidate.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    /// Position in lattice units.
    pub(super) x: i64,
    /// Position in lattice units.
    pub(super) y: i64,
    /// Packed identity, also the scope of every draw of the candidate.
    pub(super) id: ScatterId,
    /// Thinning priority. Drawn only for eligible candidates, the only ones that are ranked.
    pub(super) priority: u32,
    /// The variant's exclusion radius when eligible; [`INELIGIBLE`] otherwise.
    pub(super) radius: i32,
    /// The variant index when eligible; otherwise the keep-out index, or [`OUTSIDE_REGION`].
    tag: u32,
}

impl Candidate {
    /// Whether the candidate takes part in conflicts.
    pub(super) fn is_eligible(&self) -> bool {
        self.radius >= 0
    }

    /// The variant index; meaningful only when eligible.
    pub(super) fn variant(&self) -> u32 {
        self.tag
    }

    /// Why an ineligible candidate was rejected before any conflict; `None` when eligible.
    pub(super) fn eligibility_rejection(&self) -> Option<RejectReason> {
        if self.is_eligible() {
            None
        } else if self.tag == OUTSIDE_REGION {
            Some(RejectReason::OutsideRegion)
        } else {
            Some(RejectReason::InKeepOut { keep_out: self.tag })
        }
    }
}

/// One generated row of cells: every candidate, and the same candidates again as the lanes the
/// conflict search reads.
#[derive(Default)]
pub(super) struct GeneratedRow {
    /// Every candidate of the row's evaluated cells, in (cx, k) order.
    pub(super) candidates: Vec<Candidate>,
    /// The candidates in the same order, as conflict-search lanes.
    pub(super) slots: Slots,
    /// Buffers of the batched draws, kept for the next row.
    buffers: DrawBuffers,
}

/// Reused buffers for a row's batched draws.
#[derive(Default)]
pub(super) struct DrawBuffers {
    /// The scope (packed identity) of every candidate of the row.
    scopes: Vec<u64>,
    /// The scopes of the eligible candidates.
    eligible_scopes: Vec<u64>,
    /// First words at (placement, dim 0), (placement, dim 1), (placement, dim 2), (variant, dim 0).
    words: [Vec<u32>; 4],
}

/// Replaces `row` with every candidate of row `cy` of the evaluated cells, in (cx, k) order.
///
/// Draws are batched per row: the x and y offsets of every candidate, then the priority and variant
/// of the eligible ones. A bounded draw whose first word is rejected retries alone.
pub(super) fn generate_row<P, V>(
    layer: &Layer<'_>,
    order: &RankOrder<'_>,
    placement_source: &P,
    variant_source: &V,
    evaluated: &CellBox,
    cy: i64,
    row: &mut GeneratedRow,
) -> Result<(), ScatterError>
where
    P: BlockSource + ?Sized,
    V: BlockSource + ?Sized,
{
    let draws = RowDraws {
        layer,
        placement_source,
        evaluated,
        cy,
    };
    draws.offset_words(&mut row.buffers);
    draws.place_candidates(row)?;
    draws.rank_eligible(order, variant_source, row)
}

/// What the draws of one row of cells share.
struct RowDraws<'a, P: ?Sized> {
    layer: &'a Layer<'a>,
    placement_source: &'a P,
    evaluated: &'a CellBox,
    cy: i64,
}

impl<P: BlockSource + ?Sized> RowDraws<'_, P> {
    /// Fills the scope of every candidate of the row, in (cx, k) order, and the first words of
    /// their x and y offsets.
    fn offset_words(&self, buffers: &mut DrawBuffers) {
        let (layer, evaluated) = (self.layer, self.evaluated);
        let per_cell = layer.params.candidates_per_cell;
        buffers.scopes.clear();
        for cx in evaluated.min_x..=evaluated.max_x {
            for k in 0..per_cell {
                buffers.scopes.push(layer.id_of(k, cx, self.cy).bits());
            }
        }
        let count = buffers.scopes.len();
        let [x_words, y_words, _, _] = &mut buffers.words;
        for (words, slot) in [(&mut *x_words, OFFSET_X), (&mut *y_words, OFFSET_Y)] {
            words.resize(count, 0);
            self.placement_source
                .first_words(&buffers.scopes, EVENT, slot.dimension, words);
        }
    }

    /// Replaces the row's candidates with their positions and eligibility (outside the region,
    /// in a keep-out, or eligible), collecting the eligible scopes for the next pass.
    fn place_candidates(&self, row: &mut GeneratedRow) -> Result<(), ScatterError> {
        let (layer, evaluated) = (self.layer, self.evaluated);
        let params = layer.params;
        let buffers = &mut row.buffers;
        let count = buffers.scopes.len();
        let [x_words, y_words, _, _] = &buffers.words;
        row.candidates.clear();
        row.candidates.reserve(count);
        row.slots.reset(layer.slot_padding(), count);
        buffers.eligible_scopes.clear();
        let cell_size = params.cell_size;
        let y0 = self.cy * cell_size;
        let per_cell = params.candidates_per_cell as usize;
        let cells = buffers
            .scopes
            .chunks_exact(per_cell)
            .zip(x_words.chunks_exact(per_cell))
            .zip(y_words.chunks_exact(per_cell));
        for (cx, ((scopes, x_words), y_words)) in (evaluated.min_x..=evaluated.max_x).zip(cells) {
            let x0 = cx * cell_size;
            for ((&scope, &x_word), &y_word) in scopes.iter().zip(x_words).zip(y_words) {
                let offset = |slot: super::address::DrawSlot, word| {
                    bounded_from_first(
                        self.placement_source,
                        Address::new(scope, EVENT, slot.dimension),
                        &layer.cell_bound,
                        word,
                    )
                };
                let x = x0 + i64::from(offset(OFFSET_X, x_word)?);
                let y = y0 + i64::from(offset(OFFSET_Y, y_word)?);
                let mut candidate = Candidate {
                    x,
                    y,
                    id: layer.id_of_bits(scope),
                    priority: 0,
                    radius: INELIGIBLE,
                    tag: OUTSIDE_REGION,
                };
                if params.region.contains(x, y) {
                    if let Some(index) = params.keep_outs.iter().position(|r| r.contains(x, y)) {
                        // `index < MAX_KEEP_OUTS`, which fits u32.
                        candidate.tag = index as u32;
                    } else {
                        // Eligible: priority and variant follow in the next pass.
                        candidate.radius = 0;
                        buffers.eligible_scopes.push(scope);
                    }
                }
                row.slots.set_position(row.candidates.len(), x, y);
                row.candidates.push(candidate);
            }
        }
        Ok(())
    }

    /// Draws the priority and variant of the eligible candidates, giving each its variant's
    /// radius and its rank in the conflict lanes.
    fn rank_eligible<V: BlockSource + ?Sized>(
        &self,
        order: &RankOrder<'_>,
        variant_source: &V,
        row: &mut GeneratedRow,
    ) -> Result<(), ScatterError> {
        let layer = self.layer;
        let per_cell = layer.params.candidates_per_cell as usize;
        let buffers = &mut row.buffers;
        let [_, _, priority_words, variant_words] = &mut buffers.words;
        let eligible = buffers.eligible_scopes.len();
        priority_words.resize(eligible, 0);
        self.placement_source.first_words(
            &buffers.eligible_scopes,
            EVENT,
            PRIORITY.dimension,
            priority_words,
        );
        variant_words.resize(eligible, 0);
        variant_source.first_words(
            &buffers.eligible_scopes,
            EVENT,
            VARIANT.dimension,
            variant_words,
        );
        let mut draws = priority_words.iter().zip(variant_words.iter());
        let cells = row.candidates.chunks_mut(per_cell);
        for ((cx, cell), first_slot) in (self.evaluated.min_x..)
            .zip(cells)
            .zip((0..).step_by(per_cell))
        {
            for (k, candidate) in (0..).zip(cell.iter_mut()) {
                if !candidate.is_eligible() {
                    continue;
                }
                let Some((&priority, &variant_word)) = draws.next() else {
                    break;
                };
                let draw = bounded_from_first(
                    variant_source,
                    VARIANT.address(candidate.id),
                    &layer.weight_bound,
                    variant_word,
                )?;
                let variant = layer.variant_of(draw);
                candidate.priority = priority;
                candidate.radius = layer.radii.get(variant).copied().unwrap_or(0);
                // `variant < MAX_VARIANTS`, which fits u32.
                candidate.tag = variant as u32;
                row.slots.set_eligible(
                    first_slot + k as usize,
                    i64::from(candidate.radius),
                    order.rank(priority, k, cx, self.cy),
                );
            }
        }
        Ok(())
    }
}
