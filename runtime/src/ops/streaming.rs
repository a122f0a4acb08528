//! Streaming planner: integer streaming cells, the loaded ring, the HLOD donut and budget pruning.
//!
//! - A streaming cell is `floor(location / cell_size)` per axis ([`streaming_cell`]); the crowd's
//!   demotion pass must use this same function so both sides agree on which cell an agent is in.
//! - The loaded ring is the square of radius R around the observer's cell (R = 1 → 9 cells).
//! - The HLOD donut is every cell out to `R_hlod` minus the loaded ring (`R_hlod ≥ R + 1`; with R = 1
//!   and `R_hlod` = 2, 25 − 9 = 16 cells).
//! - Budget: estimated MB = cells × MB per cell; over budget, the donut is truncated to
//!   `floor(budget / MB per cell)` cells.
//!
//! Pruning order (ours; the specification truncates an unspecified list): HLOD cells are ranked
//! nearest first by squared Euclidean distance in cells from the observer's cell, then by row `y`,
//! then column `x` ([`hlod_priority_order`]), and the tail is dropped. With R_hlod = 2 and room for
//! 4 cells this keeps the four axis-aligned cells at distance 2: the pruned set stays symmetric
//! where it can.

use thiserror::Error;

use crate::content::{StreamingCell, StreamingPlan};

/// Largest ring radius in cells (a radius-64 square holds 16,641 cells).
pub const MAX_RING_RADIUS_CELLS: u32 = 64;

/// A per-map streaming profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamingProfile {
    /// Edge of a streaming cell in meters (finite, > 0).
    pub cell_size_m: f64,
    /// Radius R of the loaded ring in cells.
    pub loaded_radius_cells: u32,
    /// Radius of the HLOD ring in cells, at least `loaded_radius_cells + 1`.
    pub hlod_radius_cells: u32,
    /// HLOD memory budget in megabytes.
    pub hlod_budget_mb: u64,
    /// Estimated HLOD megabytes per cell (0 means HLOD costs nothing and is never pruned).
    pub hlod_mb_per_cell: u64,
}

/// A streaming request that cannot be planned.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum StreamingError {
    /// The cell size is not a finite positive number.
    #[error("cell size {cell_size_m} m is not finite and positive")]
    CellSize {
        /// The rejected cell size.
        cell_size_m: f64,
    },
    /// A location coordinate is NaN or infinite.
    #[error("location ({x_m}, {y_m}) m is not finite")]
    NonFiniteLocation {
        /// The x given.
        x_m: f64,
        /// The y given.
        y_m: f64,
    },
    /// A cell coordinate does not fit `i32`.
    #[error("a streaming cell coordinate is outside i32")]
    CellOutOfRange,
    /// A radius is above [`MAX_RING_RADIUS_CELLS`].
    #[error("ring radius {radius} exceeds {MAX_RING_RADIUS_CELLS}")]
    RingRadius {
        /// The rejected radius.
        radius: u32,
    },
    /// The HLOD ring does not reach outside the loaded ring.
    #[error("HLOD radius {hlod} must be at least loaded radius {loaded} + 1")]
    HlodRadius {
        /// The loaded radius.
        loaded: u32,
        /// The HLOD radius given.
        hlod: u32,
    },
}

/// The streaming cell of a location: `floor(x / cell_size)`, `floor(y / cell_size)`.
pub fn streaming_cell(
    x_m: f64,
    y_m: f64,
    cell_size_m: f64,
) -> Result<StreamingCell, StreamingError> {
    if !(cell_size_m.is_finite() && cell_size_m > 0.0) {
        return Err(StreamingError::CellSize { cell_size_m });
    }
    if !(x_m.is_finite() && y_m.is_finite()) {
        return Err(StreamingError::NonFiniteLocation { x_m, y_m });
    }
    Ok(StreamingCell::new(
        floor_to_i32(x_m / cell_size_m)?,
        floor_to_i32(y_m / cell_size_m)?,
    ))
}

/// `floor(value)` as `i32`, or an error when it does not fit.
fn floor_to_i32(value: f64) -> Result<i32, StreamingError> {
    let floored = value.floor();
    if floored >= f64::from(i32::MIN) && floored <= f64::from(i32::MAX) {
        // In range and integral, so the conversion is exact.
        Ok(floored as i32)
    } else {
        Err(StreamingError::CellOutOfRange)
    }
}

/// The square of `radius` cells around `center`, row-major.
pub fn loaded_ring(
    center: StreamingCell,
    radius: u32,
) -> Result<Vec<StreamingCell>, StreamingError> {
    square(center, radius, |_| true)
}

/// The cells within `hlod_radius` of `center` that are outside the loaded ring of `loaded_radius`,
/// row-major.
pub fn hlod_donut(
    center: StreamingCell,
    loaded_radius: u32,
    hlod_radius: u32,
) -> Result<Vec<StreamingCell>, StreamingError> {
    check_radii(loaded_radius, hlod_radius)?;
    square(center, hlod_radius, |cell| {
        cell.chebyshev_distance(center) > u64::from(loaded_radius)
    })
}

/// Sorts `cells` into pruning order around `center`: squared distance, then `y`, then `x`.
pub fn hlod_priority_order(center: StreamingCell, cells: &mut [StreamingCell]) {
    cells.sort_by_key(|cell| (cell.squared_distance(center), cell.y, cell.x));
}

/// Splits `cells` (already in priority order) into the cells kept within `budget_mb` and the cells
/// pruned: everything fits when `cells × mb_per_cell ≤ budget_mb` (or `mb_per_cell` is 0), else the
/// first `floor(budget_mb / mb_per_cell)` are kept.
pub fn prune_to_budget(
    mut cells: Vec<StreamingCell>,
    mb_per_cell: u64,
    budget_mb: u64,
) -> (Vec<StreamingCell>, Vec<StreamingCell>) {
    let keep = match budget_mb.checked_div(mb_per_cell) {
        Some(max_cells) => usize::try_from(max_cells).unwrap_or(usize::MAX),
        None => usize::MAX,
    };
    if keep >= cells.len() {
        return (cells, Vec::new());
    }
    let pruned = cells.split_off(keep);
    (cells, pruned)
}

/// Plans streaming for an observer at `(x_m, y_m)` under `profile`.
pub fn plan_streaming(
    profile: &StreamingProfile,
    x_m: f64,
    y_m: f64,
) -> Result<StreamingPlan, StreamingError> {
    check_radii(profile.loaded_radius_cells, profile.hlod_radius_cells)?;
    let observer_cell = streaming_cell(x_m, y_m, profile.cell_size_m)?;
    let loaded_cells = loaded_ring(observer_cell, profile.loaded_radius_cells)?;
    let mut donut = hlod_donut(
        observer_cell,
        profile.loaded_radius_cells,
        profile.hlod_radius_cells,
    )?;
    hlod_priority_order(observer_cell, &mut donut);
    let requested = donut.len() as u64;
    let (hlod_cells, hlod_pruned_cells) =
        prune_to_budget(donut, profile.hlod_mb_per_cell, profile.hlod_budget_mb);
    Ok(StreamingPlan {
        observer_cell,
        loaded_cells,
        hlod_requested_mb: requested.saturating_mul(profile.hlod_mb_per_cell),
        hlod_estimated_mb: (hlod_cells.len() as u64).saturating_mul(profile.hlod_mb_per_cell),
        hlod_budget_mb: profile.hlod_budget_mb,
        hlod_cells,
        hlod_pruned_cells,
    })
}

/// Checks both radii against the limit and their ordering.
fn check_radii(loaded: u32, hlod: u32) -> Result<(), StreamingError> {
    for radius in [loaded, hlod] {
        if radius > MAX_RING_RADIUS_CELLS {
            return Err(StreamingError::RingRadius { radius });
        }
    }
    if hlod <= loaded {
        return Err(StreamingError::HlodRadius { loaded, hlod });
    }
    Ok(())
}

/// The cells of the square of `radius` around `center` that pass `keep`, row-major.
fn square(
    center: StreamingCell,
    radius: u32,
    keep: impl Fn(StreamingCell) -> bool,
) -> Result<Vec<StreamingCell>, StreamingError> {
    if radius > MAX_RING_RADIUS_CELLS {
        return Err(StreamingError::RingRadius { radius });
    }
    let r = i64::from(radius);
    let fits = |v: i64| i32::try_from(v).map_err(|_| StreamingError::CellOutOfRange);
    let (min_x, max_x) = (
        fits(i64::from(center.x) - r)?,
        fits(i64::from(center.x) + r)?,
    );
    let (min_y, max_y) = (
        fits(i64::from(center.y) - r)?,
        fits(i64::from(center.y) + r)?,
    );
    let mut cells = Vec::new();
    for y in min_y..=max_y {
        for x in min_x..=max_x {
            let cell = StreamingCell::new(x, y);
            if keep(cell) {
                cells.push(cell);
            }
        }
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The high-detail profile of the specification's fixture: 50 m cells, R = 1, R_hlod = 2, 6 MB
    /// per cell.
    fn hitman(budget_mb: u64) -> StreamingProfile {
        StreamingProfile {
            cell_size_m: 50.0,
            loaded_radius_cells: 1,
            hlod_radius_cells: 2,
            hlod_budget_mb: budget_mb,
            hlod_mb_per_cell: 6,
        }
    }

    fn plan(profile: &StreamingProfile, x_m: f64, y_m: f64) -> StreamingPlan {
        plan_streaming(profile, x_m, y_m).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn fixture_observer_lands_in_cell_1_minus_1_with_a_9_cell_ring() {
        let plan = plan(&hitman(96), 52.5, -12.5);
        assert_eq!(plan.observer_cell, StreamingCell::new(1, -1));
        assert_eq!(plan.loaded_cells.len(), 9);
        assert!(
            plan.is_loaded(StreamingCell::new(0, -2)),
            "diagonal neighbour"
        );
        assert!(!plan.is_loaded(StreamingCell::new(3, -1)));
        assert!(
            plan.loaded_cells.windows(2).all(|w| w[0] < w[1]),
            "row-major"
        );
    }

    #[test]
    fn fixture_donut_has_16_cells_and_96_mb_fits_96_mb() {
        let plan = plan(&hitman(96), 52.5, -12.5);
        assert_eq!(plan.hlod_cells.len(), 16);
        assert!(plan.hlod_pruned_cells.is_empty());
        assert_eq!(plan.hlod_requested_mb, 96);
        assert_eq!(plan.hlod_estimated_mb, 96);
        assert!(plan.requested_within_budget());
        assert!(plan.hlod_cells.iter().all(|c| !plan.is_loaded(*c)));
        assert!(plan
            .hlod_cells
            .iter()
            .all(|c| c.chebyshev_distance(plan.observer_cell) == 2));
    }

    #[test]
    fn fixture_budget_of_24_mb_prunes_to_4_cells() {
        let plan = plan(&hitman(24), 52.5, -12.5);
        assert!(!plan.requested_within_budget());
        assert_eq!(plan.hlod_requested_mb, 96);
        assert_eq!(plan.hlod_cells.len(), 4);
        assert_eq!(plan.hlod_estimated_mb, 24);
        assert_eq!(plan.hlod_pruned_cells.len(), 12);
        // Nearest first: the four axis-aligned cells at distance 2, ordered by (y, x).
        assert_eq!(
            plan.hlod_cells,
            [
                StreamingCell::new(1, -3),
                StreamingCell::new(-1, -1),
                StreamingCell::new(3, -1),
                StreamingCell::new(1, 1),
            ]
        );
    }

    #[test]
    fn cells_use_floor_division_for_negative_locations() {
        let cell = |x: f64, y: f64| streaming_cell(x, y, 50.0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cell(0.0, 0.0), StreamingCell::new(0, 0));
        assert_eq!(cell(-0.001, 49.999), StreamingCell::new(-1, 0));
        assert_eq!(cell(-50.0, -50.001), StreamingCell::new(-1, -2));
        assert_eq!(cell(100.0, -100.0), StreamingCell::new(2, -2));
    }

    #[test]
    fn ring_and_donut_sizes_follow_the_radii() {
        let center = StreamingCell::new(-7, 4);
        let size = |r: u32| loaded_ring(center, r).map(|cells| cells.len());
        assert_eq!(size(0), Ok(1));
        assert_eq!(size(1), Ok(9));
        assert_eq!(size(3), Ok(49));
        assert_eq!(hlod_donut(center, 1, 3).map(|c| c.len()), Ok(49 - 9));
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert_eq!(
            streaming_cell(f64::NAN, 0.0, 50.0)
                .map_err(|e| matches!(e, StreamingError::NonFiniteLocation { .. })),
            Err(true)
        );
        assert_eq!(
            streaming_cell(0.0, 0.0, 0.0),
            Err(StreamingError::CellSize { cell_size_m: 0.0 })
        );
        assert_eq!(
            streaming_cell(1e12, 0.0, 1.0),
            Err(StreamingError::CellOutOfRange)
        );
        let mut profile = hitman(96);
        profile.hlod_radius_cells = 1;
        assert_eq!(
            plan_streaming(&profile, 0.0, 0.0),
            Err(StreamingError::HlodRadius { loaded: 1, hlod: 1 })
        );
        profile.hlod_radius_cells = MAX_RING_RADIUS_CELLS + 1;
        assert_eq!(
            plan_streaming(&profile, 0.0, 0.0),
            Err(StreamingError::RingRadius {
                radius: MAX_RING_RADIUS_CELLS + 1
            })
        );
        let edge = StreamingCell::new(i32::MAX, 0);
        assert_eq!(loaded_ring(edge, 1), Err(StreamingError::CellOutOfRange));
    }

    #[test]
    fn pruning_handles_zero_costs_and_zero_budgets() {
        let cells = vec![StreamingCell::new(0, 0), StreamingCell::new(1, 0)];
        assert_eq!(
            prune_to_budget(cells.clone(), 0, 0),
            (cells.clone(), vec![])
        );
        assert_eq!(
            prune_to_budget(cells.clone(), 5, 0),
            (vec![], cells.clone())
        );
        assert_eq!(
            prune_to_budget(cells.clone(), 5, 9),
            (vec![cells[0]], vec![cells[1]])
        );
    }
}
