//! The HLOD donut re-planned every step around the observers, with its budget (the streaming
//! specification's `BuildStreamingState` → `BuildHlodForProfile` → `EnforceHlodBudget`, per tick).
//!
//! Each view's donut is every cell within the profile's HLOD radius of the view's cell that is
//! outside its loaded ring; the step's donut is the union of the views' donuts less the union of
//! their loaded rings (a cell loaded for one view is never HLOD for another). Requested megabytes
//! are cells × MB per cell; over budget, the cells are ranked nearest first (squared distance in
//! cells to the nearest view's cell, then row, then column: the generated plan's order around one
//! observer) and the tail is pruned to `floor(budget / MB per cell)` cells. The step's plan is
//! derived from the observers alone: it is scratch, left out of snapshots and the state digest.

use super::super::observers::Observation;
use super::super::space::SimStreaming;
use crate::content::StreamingCell;
use crate::ops::streaming::{hlod_donut, prune_to_budget, streaming_cell};

/// This step's HLOD plan (derived, rebuilt every step).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HlodStep {
    /// Donut cells kept within the budget, nearest first.
    pub cells: Vec<StreamingCell>,
    /// Donut cells pruned by the budget, nearest first.
    pub pruned: Vec<StreamingCell>,
    /// Megabytes the whole donut would cost.
    pub requested_mb: u64,
    /// Megabytes of the kept cells.
    pub estimated_mb: u64,
    /// The profile's HLOD budget, megabytes.
    pub budget_mb: u64,
}

impl HlodStep {
    /// Whether the donut asked for more than the budget (so cells were pruned this step).
    pub fn over_budget(&self) -> bool {
        self.requested_mb > self.budget_mb
    }

    /// The counters with their names, in a fixed order (for logs and the command line).
    pub fn rows(&self) -> [(&'static str, f64); 5] {
        [
            ("hlod cells", self.cells.len() as f64),
            ("hlod pruned", self.pruned.len() as f64),
            ("hlod requested mb", self.requested_mb as f64),
            ("hlod estimated mb", self.estimated_mb as f64),
            ("hlod budget mb", self.budget_mb as f64),
        ]
    }
}

/// Plans this step's HLOD donut around every view of `observation`, outside `loaded` (the step's
/// loaded cells, sorted), into `out`.
pub fn plan_hlod(
    streaming: &SimStreaming,
    observation: &Observation,
    loaded: &[StreamingCell],
    out: &mut HlodStep,
) {
    let hlod = &streaming.hlod;
    let mut centers: Vec<StreamingCell> = Vec::new();
    let mut donut: Vec<StreamingCell> = Vec::new();
    for view in &observation.views {
        let Ok(center) = streaming_cell(view.center_m[0], view.center_m[1], streaming.cell_size_m)
        else {
            continue;
        };
        if let Ok(cells) = hlod_donut(center, streaming.loaded_radius_cells, hlod.radius_cells) {
            centers.push(center);
            donut.extend(cells);
        }
    }
    donut.sort_unstable();
    donut.dedup();
    donut.retain(|cell| loaded.binary_search(cell).is_err());
    let nearest = |cell: &StreamingCell| {
        centers
            .iter()
            .map(|center| cell.squared_distance(*center))
            .min()
            .unwrap_or(0)
    };
    donut.sort_by_key(|cell| (nearest(cell), cell.y, cell.x));
    let requested = donut.len() as u64;
    let (cells, pruned) = prune_to_budget(donut, hlod.mb_per_cell, hlod.budget_mb);
    *out = HlodStep {
        requested_mb: requested.saturating_mul(hlod.mb_per_cell),
        estimated_mb: (cells.len() as u64).saturating_mul(hlod.mb_per_cell),
        budget_mb: hlod.budget_mb,
        cells,
        pruned,
    };
}
