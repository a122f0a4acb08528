//! The scatter address layout (`CONTRACTS.md`, P0 scatter): which domain and dimension each draw
//! of a candidate uses. The scope of every draw is the candidate's packed identity and the event
//! is [`EVENT`]. The kernel draws through these slots and provenance re-derives through them, so
//! the layout is written once.

use crate::identity::ScatterId;
use crate::rng::{Address, Domain};

/// The event of every scatter draw.
pub const EVENT: u32 = 0;

/// Where one kind of candidate draw lives: its domain and dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawSlot {
    /// The domain drawn from.
    pub domain: Domain,
    /// The address dimension.
    pub dimension: u16,
}

impl DrawSlot {
    /// The address of this draw for candidate `id`.
    pub const fn address(self, id: ScatterId) -> Address {
        Address::new(id.bits(), EVENT, self.dimension)
    }
}

/// The x offset within the cell, `sample_bounded(cell_size)`.
pub const OFFSET_X: DrawSlot = DrawSlot {
    domain: Domain::Placement,
    dimension: 0,
};
/// The y offset within the cell, `sample_bounded(cell_size)`.
pub const OFFSET_Y: DrawSlot = DrawSlot {
    domain: Domain::Placement,
    dimension: 1,
};
/// The thinning priority, `sample_u32`.
pub const PRIORITY: DrawSlot = DrawSlot {
    domain: Domain::Placement,
    dimension: 2,
};
/// The variant choice, `sample_bounded(total_weight)`.
pub const VARIANT: DrawSlot = DrawSlot {
    domain: Domain::Variant,
    dimension: 0,
};
