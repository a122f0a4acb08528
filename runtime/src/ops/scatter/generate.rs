//! Candidate generation: the addressed draws of one row of cells, in the compact form the conflict
//! search scans.

use super::layer::{CellBox, Layer};
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

/// One generated row of cells: every candidate, and the eligible ones again in the arrays the
/// conflict search scans.
#[derive(Default)]
pub(super) struct GeneratedRow {
    /// Every candidate of the row's evaluated cells, in (cx, k) order.
    pub(super) candidates: Vec<Candidate>,
    /// The eligible candidates, in the same order.
    pub(super) eligible: EligibleRow,
    /// Buffers of the batched draws, kept for the next row.
    buffers: DrawBuffers,
}

/// The eligible candidates of a row, with the start of each column's run, so that the candidates
/// of a range of columns are one contiguous range.
#[derive(Default)]
pub(super) struct EligibleRow {
    /// The eligible candidates in (cx, k) order.
    pub(super) discs: Vec<Disc>,
    /// `column_starts[c]` is the index of the first eligible candidate of evaluated column `c`;
    /// the last entry is the number of eligible candidates.
    pub(super) column_starts: Vec<u32>,
}

/// What the conflict sweep reads and writes of an eligible candidate.
#[derive(Clone, Copy)]
pub(super) struct Disc {
    /// Centre in lattice units.
    pub(super) x: i64,
    /// Centre in lattice units.
    pub(super) y: i64,
    /// Exclusion radius.
    pub(super) radius: i64,
    /// Thinning rank.
    pub(super) rank: Rank,
    /// The sweep's running result: the rank of the strongest conflicting candidate seen so far,
    /// starting from the candidate's own (see [`EligibleRow::strongest`]).
    pub(super) best: Rank,
}

impl EligibleRow {
    fn clear(&mut self) {
        self.discs.clear();
        self.column_starts.clear();
    }

    fn push(&mut self, candidate: &Candidate) {
        let rank = Rank::of(candidate.priority, candidate.id);
        self.discs.push(Disc {
            x: candidate.x,
            y: candidate.y,
            radius: i64::from(candidate.radius),
            rank,
            best: rank,
        });
    }

    /// After the serial sweep: the strongest conflicting candidate that outranks eligible candidate
    /// `index`, if any (its best rank is then no longer its own).
    pub(super) fn strongest(&self, layer: &Layer<'_>, index: usize) -> Option<ScatterId> {
        let disc = self.discs.get(index)?;
        (disc.best != disc.rank).then(|| disc.best.id(layer))
    }

    /// The indices of the eligible candidates of columns `first..=last`.
    pub(super) fn range(&self, first: usize, last: usize) -> std::ops::Range<usize> {
        let start = self.column_starts.get(first).copied().unwrap_or(0) as usize;
        let end = self.column_starts.get(last + 1).copied().unwrap_or(0) as usize;
        start..end.max(start)
    }

    /// Ends the current column.
    fn close_column(&mut self) {
        // At most MAX_EVALUATED_CANDIDATES (2^24) candidates, which fits u32.
        self.column_starts.push(self.discs.len() as u32);
    }
}

/// The total thinning order of eligible candidates, priority then packed identity (larger wins),
/// as one integer: `priority << 64 | id`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Rank(u128);

impl Rank {
    /// Below every candidate's rank (a packed identity is never zero: its room is at least 1).
    pub(super) const LOWEST: Rank = Rank(0);

    /// The rank of a candidate.
    pub(super) fn of(priority: u32, id: ScatterId) -> Rank {
        Rank(u128::from(priority) << 64 | u128::from(id.bits()))
    }

    /// The identity of the ranked candidate.
    pub(super) fn id(self, layer: &Layer<'_>) -> ScatterId {
        layer.id_of_bits(self.0 as u64)
    }
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
    let params = layer.params;
    let per_cell = params.candidates_per_cell;
    let buffers = &mut row.buffers;
    buffers.scopes.clear();
    for cx in evaluated.min_x..=evaluated.max_x {
        for k in 0..per_cell {
            buffers.scopes.push(layer.id_of(k, cx, cy).bits());
        }
    }
    let count = buffers.scopes.len();
    let [x_words, y_words, priority_words, variant_words] = &mut buffers.words;
    for (words, dimension) in [(&mut *x_words, 0), (&mut *y_words, 1)] {
        words.resize(count, 0);
        placement_source.first_words(&buffers.scopes, 0, dimension, words);
    }

    // Positions and eligibility.
    row.candidates.clear();
    row.candidates.reserve(count);
    buffers.eligible_scopes.clear();
    let cell_size = params.cell_size;
    let y0 = cy * cell_size;
    let per_cell = per_cell as usize;
    let cells = buffers
        .scopes
        .chunks_exact(per_cell)
        .zip(x_words.chunks_exact(per_cell))
        .zip(y_words.chunks_exact(per_cell));
    for (cx, ((scopes, x_words), y_words)) in (evaluated.min_x..=evaluated.max_x).zip(cells) {
        let x0 = cx * cell_size;
        for ((&scope, &x_word), &y_word) in scopes.iter().zip(x_words).zip(y_words) {
            let offset = |dimension, word| {
                bounded_from_first(
                    placement_source,
                    Address::new(scope, 0, dimension),
                    &layer.cell_bound,
                    word,
                )
            };
            let x = x0 + i64::from(offset(0, x_word)?);
            let y = y0 + i64::from(offset(1, y_word)?);
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
            row.candidates.push(candidate);
        }
    }

    // Priority and variant of the eligible candidates.
    let eligible = buffers.eligible_scopes.len();
    priority_words.resize(eligible, 0);
    placement_source.first_words(&buffers.eligible_scopes, 0, 2, priority_words);
    variant_words.resize(eligible, 0);
    variant_source.first_words(&buffers.eligible_scopes, 0, 0, variant_words);
    let mut draws = priority_words.iter().zip(variant_words.iter());
    row.eligible.clear();
    row.eligible.close_column();
    for cell in row.candidates.chunks_mut(per_cell) {
        for candidate in cell.iter_mut().filter(|c| c.is_eligible()) {
            let Some((&priority, &variant_word)) = draws.next() else {
                break;
            };
            let draw = bounded_from_first(
                variant_source,
                Address::new(candidate.id.bits(), 0, 0),
                &layer.weight_bound,
                variant_word,
            )?;
            let variant = layer.variant_of(draw);
            candidate.priority = priority;
            candidate.radius = layer.radii.get(variant).copied().unwrap_or(0);
            // `variant < MAX_VARIANTS`, which fits u32.
            candidate.tag = variant as u32;
            row.eligible.push(candidate);
        }
        row.eligible.close_column();
    }
    Ok(())
}
