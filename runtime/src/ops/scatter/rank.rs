//! The thinning order `(priority, packed id)` of one call's candidates as one signed 64-bit
//! integer, so that the conflict search compares and takes maxima with plain vector instructions.

use super::layer::{CellBox, Layer};
use crate::identity::ScatterId;

/// A candidate's rank: larger wins. Ranks of different candidates of one call never tie.
pub(super) type Rank = i64;

/// Below every candidate's rank: what an ineligible candidate, or a slot with no candidate, offers.
pub(super) const NO_RANK: Rank = i64::MIN;

/// Numbers the candidates of one call's evaluated cells in packed-id order, and ranks them.
///
/// Within a layer, packed ids differ only in `(candidate, cell_x as u16, cell_y as u16)`, compared
/// in that order. Each axis is renumbered densely in `u16` order (non-negative cells first, then
/// the negative ones), so `index = k << (x_bits + y_bits) | x_order << y_bits | y_order` orders
/// candidates exactly as their packed ids do, in fewer than 2^26 values (at most 2^24 candidates
/// are evaluated, and each axis rounds up to less than twice its size).
///
/// A rank is `priority << 32 | (index + 1)` with its top bit flipped, so signed comparison is the
/// thinning order and no candidate's rank equals [`NO_RANK`].
pub(super) struct RankOrder<'a> {
    layer: &'a Layer<'a>,
    x: AxisOrder,
    y: AxisOrder,
}

impl<'a> RankOrder<'a> {
    /// The order of the candidates of `evaluated`, a non-empty box of the layer's cells.
    pub(super) fn new(layer: &'a Layer<'a>, evaluated: &CellBox) -> RankOrder<'a> {
        RankOrder {
            layer,
            x: AxisOrder::new(evaluated.min_x, evaluated.max_x),
            y: AxisOrder::new(evaluated.min_y, evaluated.max_y),
        }
    }

    /// The rank of candidate `k` of cell `(cx, cy)` with `priority`.
    pub(super) fn rank(&self, priority: u32, k: u32, cx: i64, cy: i64) -> Rank {
        let index = u64::from(k) << (self.x.bits + self.y.bits)
            | self.x.order(cx) << self.y.bits
            | self.y.order(cy);
        ((u64::from(priority) << 32 | (index + 1)) ^ (1 << 63)) as i64
    }

    /// The packed identity of the candidate ranked `rank`.
    pub(super) fn id(&self, rank: Rank) -> ScatterId {
        let index = ((rank as u64) & u64::from(u32::MAX)).wrapping_sub(1);
        let y_order = index & ((1 << self.y.bits) - 1);
        let x_order = (index >> self.y.bits) & ((1 << self.x.bits) - 1);
        let k = index >> (self.x.bits + self.y.bits);
        self.layer
            .id_of(k as u32, self.x.cell(x_order), self.y.cell(y_order))
    }
}

/// One axis of evaluated cells `min..=max` renumbered `0..` in the order of `cell as u16`.
struct AxisOrder {
    /// The lowest cell.
    min: i64,
    /// The lowest non-negative cell.
    first_non_negative: i64,
    /// How many cells are non-negative; they come first.
    non_negative: u64,
    /// Bits that hold every order number.
    bits: u32,
}

impl AxisOrder {
    fn new(min: i64, max: i64) -> AxisOrder {
        let first_non_negative = min.max(0);
        let non_negative = if max >= 0 {
            (max - first_non_negative + 1).unsigned_abs()
        } else {
            0
        };
        let count = (max - min + 1).max(1).unsigned_abs();
        AxisOrder {
            min,
            first_non_negative,
            non_negative,
            bits: count.next_power_of_two().trailing_zeros(),
        }
    }

    /// The order number of `cell`, one of the axis's cells.
    fn order(&self, cell: i64) -> u64 {
        if cell >= 0 {
            (cell - self.first_non_negative).unsigned_abs()
        } else {
            self.non_negative + (cell - self.min).unsigned_abs()
        }
    }

    /// The cell numbered `order`.
    fn cell(&self, order: u64) -> i64 {
        if order < self.non_negative {
            self.first_non_negative + order as i64
        } else {
            self.min + (order - self.non_negative) as i64
        }
    }
}
