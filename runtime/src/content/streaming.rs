//! Streaming products: integer streaming cells and the per-observer streaming plan.

use std::cmp::Ordering;

/// An integer streaming cell, `floor(location / cell_size)` on each axis.
///
/// Ordered row-major: by `y`, then `x`.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamingCell {
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
}

impl StreamingCell {
    /// A cell from its column and row.
    pub const fn new(x: i32, y: i32) -> StreamingCell {
        StreamingCell { x, y }
    }

    /// Chebyshev (chessboard) distance in cells, as `u64` so that it cannot overflow.
    pub fn chebyshev_distance(self, other: StreamingCell) -> u64 {
        let dx = (i64::from(self.x) - i64::from(other.x)).unsigned_abs();
        let dy = (i64::from(self.y) - i64::from(other.y)).unsigned_abs();
        dx.max(dy)
    }

    /// Squared Euclidean distance in cells, as `u64` so that it cannot overflow.
    pub fn squared_distance(self, other: StreamingCell) -> u64 {
        let dx = (i64::from(self.x) - i64::from(other.x)).unsigned_abs();
        let dy = (i64::from(self.y) - i64::from(other.y)).unsigned_abs();
        dx * dx + dy * dy
    }
}

impl Ord for StreamingCell {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

impl PartialOrd for StreamingCell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What to load around one observer: the loaded ring, the HLOD donut and its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamingPlan {
    /// The observer's streaming cell.
    pub observer_cell: StreamingCell,
    /// Fully loaded cells: the square of the loaded radius around the observer, row-major.
    pub loaded_cells: Vec<StreamingCell>,
    /// HLOD cells kept within budget, in pruning order (nearest first; see
    /// [`crate::ops::streaming::hlod_priority_order`]).
    pub hlod_cells: Vec<StreamingCell>,
    /// HLOD cells dropped to fit the budget, in the same order (the least important last).
    pub hlod_pruned_cells: Vec<StreamingCell>,
    /// Estimated megabytes of the whole donut before pruning.
    pub hlod_requested_mb: u64,
    /// Estimated megabytes of the kept HLOD cells.
    pub hlod_estimated_mb: u64,
    /// The HLOD budget in megabytes.
    pub hlod_budget_mb: u64,
}

impl StreamingPlan {
    /// Whether the whole donut fitted the budget before pruning.
    pub fn requested_within_budget(&self) -> bool {
        self.hlod_requested_mb <= self.hlod_budget_mb
    }

    /// Whether `cell` is fully loaded.
    pub fn is_loaded(&self, cell: StreamingCell) -> bool {
        self.loaded_cells.binary_search(&cell).is_ok()
    }
}
