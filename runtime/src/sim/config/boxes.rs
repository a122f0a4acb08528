//! The runtime box: an axis-aligned box the population's no-spawn and no-removal slots hold,
//! and the one rule of its validity (finite corners, `min <= max` on every axis) that the
//! document validator, the scenario compiler and the population all apply.

use crate::boxes::{box_fault, BoxFault};

/// An axis-aligned box, inclusive on both ends, meters.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct SimBox {
    /// Lowest corner `[x, y, z]`.
    pub min_m: [f64; 3],
    /// Highest corner `[x, y, z]`.
    pub max_m: [f64; 3],
}

impl SimBox {
    /// Inclusive containment of a point.
    pub fn contains(&self, point_m: [f64; 3]) -> bool {
        (0..3).all(|axis| (self.min_m[axis]..=self.max_m[axis]).contains(&point_m[axis]))
    }

    /// Why the box is not valid, `None` when it is (the crate's one box rule,
    /// [`crate::boxes::box_fault`]).
    pub fn fault(&self) -> Option<BoxFault> {
        box_fault(self.min_m, self.max_m)
    }
}
