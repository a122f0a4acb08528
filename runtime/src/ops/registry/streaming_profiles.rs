//! The four launch streaming profiles of `streaming.plan` and the profile sanitizer.
//!
//! Profiles (the specification's `BuildDefaultWorldPartitionProfiles`): `DefaultSandbox` at 100 m
//! cells and a 128 MB HLOD budget; the high-detail city maps `Paris`, `Sapienza` and `Miami` at
//! 50 m cells and 96 MB, pointing at `DA_HLOD_HitmanHighDetail`. Every profile loads a one-cell
//! ring (3×3) and pre-builds HLOD out to radius 2 (a 16-cell donut). The specification gives the
//! high-detail maps 6 MB per cell (16 × 6 = 96 MB, exactly the budget); it names neither the
//! default sandbox's per-cell cost nor its HLOD layer, so ours are 8 MB (16 × 8 = 128 MB, again
//! exactly the budget) and `DA_HLOD_DefaultSandbox` beside the Hitman layer.
//!
//! Sanitizing (the specification's `RegisterWorldPartitionProfile`) repairs rather than refuses,
//! and each repair is a located warning: a high-detail profile is pinned to 50 m cells; the cell
//! size is clamped to [`CELL_SIZE_RANGE_M`]; the radii to `0..=63` and `1..=64`; and the HLOD
//! ring is forced to at least the loaded ring + 1.

use std::ops::RangeInclusive;

use super::params::{ParamProblem, ParamSet};
use super::presets::{Preset, PresetValue};
use crate::ops::streaming::{StreamingProfile, MAX_RING_RADIUS_CELLS};

/// The cell sizes a profile keeps; others are clamped into it, meters.
pub const CELL_SIZE_RANGE_M: RangeInclusive<f64> = 1.0..=10_000.0;
/// The cell size of every high-detail profile, meters.
pub const HIGH_DETAIL_CELL_SIZE_M: f64 = 50.0;
/// The HLOD layer of the high-detail city maps.
pub const HITMAN_HLOD_LAYER: &str = "/Game/V4LevelOps/HLOD/DA_HLOD_HitmanHighDetail";
/// The HLOD layer of the default sandbox (ours: the specification names none).
pub const SANDBOX_HLOD_LAYER: &str = "/Game/V4LevelOps/HLOD/DA_HLOD_DefaultSandbox";

/// A high-detail city map: 50 m cells, R = 1, R_hlod = 2, 96 MB at 6 MB per cell.
const fn city(name: &'static str, doc: &'static str) -> Preset {
    Preset {
        name,
        doc,
        values: &[
            ("cell_size_m", PresetValue::Float(HIGH_DETAIL_CELL_SIZE_M)),
            ("hlod_budget_mb", PresetValue::Int(96)),
            ("hlod_layer", PresetValue::Str(HITMAN_HLOD_LAYER)),
            ("hlod_mb_per_cell", PresetValue::Int(6)),
            ("hlod_radius_cells", PresetValue::Int(2)),
            ("high_detail", PresetValue::Bool(true)),
            ("loaded_radius_cells", PresetValue::Int(1)),
        ],
    }
}

/// The profile names, in documentation order (the `profile` parameter's choices).
pub const PROFILE_NAMES: &[&str] = &["DefaultSandbox", "Paris", "Sapienza", "Miami"];

/// The launch profiles, in the order of [`PROFILE_NAMES`].
pub const STREAMING_PROFILES: &[Preset] = &[
    Preset {
        name: "DefaultSandbox",
        doc: "Open sandbox: 100 m cells, 3×3 loaded, HLOD to radius 2, 128 MB at 8 MB per cell.",
        values: &[
            ("cell_size_m", PresetValue::Float(100.0)),
            ("hlod_budget_mb", PresetValue::Int(128)),
            ("hlod_layer", PresetValue::Str(SANDBOX_HLOD_LAYER)),
            ("hlod_mb_per_cell", PresetValue::Int(8)),
            ("hlod_radius_cells", PresetValue::Int(2)),
            ("high_detail", PresetValue::Bool(false)),
            ("loaded_radius_cells", PresetValue::Int(1)),
        ],
    },
    city(
        "Paris",
        "High-detail city map: 50 m cells (pinned), 3×3 loaded, HLOD to radius 2, 96 MB at 6 MB per cell.",
    ),
    city(
        "Sapienza",
        "High-detail city map: 50 m cells (pinned), 3×3 loaded, HLOD to radius 2, 96 MB at 6 MB per cell.",
    ),
    city(
        "Miami",
        "High-detail city map: 50 m cells (pinned), 3×3 loaded, HLOD to radius 2, 96 MB at 6 MB per cell.",
    ),
];

/// A profile after sanitizing, with what was repaired.
#[derive(Debug, Clone, PartialEq)]
pub struct SanitizedProfile {
    /// The profile the planner runs.
    pub profile: StreamingProfile,
    /// The HLOD layer asset path, when one is given.
    pub hlod_layer: Option<String>,
    /// Whether the profile is a high-detail map (pinned to 50 m cells).
    pub high_detail: bool,
    /// One warning per repair, naming the parameter.
    pub warnings: Vec<ParamProblem>,
}

/// Reads and sanitizes the profile of a checked `streaming.plan` parameter set.
pub fn sanitize_profile(set: &ParamSet) -> Result<SanitizedProfile, ParamProblem> {
    let high_detail = matches!(
        set.get("high_detail"),
        Some(crate::project::ParamValue::Bool(true))
    );
    let hlod_layer = match set.get("hlod_layer") {
        Some(crate::project::ParamValue::Str(path)) => Some(path.clone()),
        _ => None,
    };
    let mut warnings = Vec::new();
    let mut cell_size_m = set.float("cell_size_m")?;
    if high_detail && cell_size_m != HIGH_DETAIL_CELL_SIZE_M {
        warnings.push(ParamProblem::new(
            "cell_size_m",
            format!(
                "a high-detail profile streams 50 m cells; {cell_size_m:?} m is pinned to 50 m"
            ),
            "cell_size_m: 50.0 on a high-detail profile",
        ));
        cell_size_m = HIGH_DETAIL_CELL_SIZE_M;
    }
    let (min_m, max_m) = (*CELL_SIZE_RANGE_M.start(), *CELL_SIZE_RANGE_M.end());
    if !CELL_SIZE_RANGE_M.contains(&cell_size_m) {
        let clamped = cell_size_m.clamp(min_m, max_m);
        warnings.push(ParamProblem::new(
            "cell_size_m",
            format!("cell size {cell_size_m:?} m is clamped to {clamped:?} m"),
            format!("a cell size in {min_m:?}..={max_m:?} m"),
        ));
        cell_size_m = clamped;
    }
    let loaded = clamp_radius(
        set,
        "loaded_radius_cells",
        0,
        MAX_RING_RADIUS_CELLS - 1,
        &mut warnings,
    )?;
    let mut hlod = clamp_radius(
        set,
        "hlod_radius_cells",
        1,
        MAX_RING_RADIUS_CELLS,
        &mut warnings,
    )?;
    if hlod <= loaded {
        warnings.push(ParamProblem::new(
            "hlod_radius_cells",
            format!(
                "HLOD radius {hlod} does not reach past the loaded radius {loaded}; it is forced to {}",
                loaded + 1
            ),
            "hlod_radius_cells ≥ loaded_radius_cells + 1",
        ));
        hlod = loaded + 1;
    }
    Ok(SanitizedProfile {
        profile: StreamingProfile {
            cell_size_m,
            loaded_radius_cells: loaded,
            hlod_radius_cells: hlod,
            // The schema's ranges keep both non-negative.
            hlod_budget_mb: set.int("hlod_budget_mb")?.unsigned_abs(),
            hlod_mb_per_cell: set.int("hlod_mb_per_cell")?.unsigned_abs(),
        },
        hlod_layer,
        high_detail,
        warnings,
    })
}

/// Radius `name` clamped into `min..=max`, with a warning when it was outside.
fn clamp_radius(
    set: &ParamSet,
    name: &str,
    min: u32,
    max: u32,
    warnings: &mut Vec<ParamProblem>,
) -> Result<u32, ParamProblem> {
    let given = set.int(name)?;
    let clamped = given.clamp(i64::from(min), i64::from(max));
    if clamped != given {
        warnings.push(ParamProblem::new(
            name,
            format!("ring radius {given} is clamped to {clamped} cells"),
            format!("a radius in {min}..={max} cells"),
        ));
    }
    // In `min..=max`, so it fits.
    Ok(u32::try_from(clamped).unwrap_or(max))
}
