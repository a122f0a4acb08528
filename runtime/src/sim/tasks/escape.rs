//! Escape selection: a bounded, synchronous policy that turns a threat into a reachable endpoint.
//!
//! `away = normalizeXY(start − threat)` (the ped's facing when they coincide); candidates are
//! `start + rotate(away, angle) × length` for the angles 0°, +30°, −30°, +60°, −60°, +90°, −90°
//! (outer loop) and the lengths safe + 1.0, safe + 3.0, safe + 5.5 m (inner loop): at most 21,
//! in that order. Each is projected onto the walkable grid (error ≤ 0.5 m), its endpoint must be
//! clear of peds, its distance to the threat strictly greater than safe + 0.3 m, and a full path
//! must exist within 2,048 expansions. Qualified candidates score
//! `distXY(projected, threat) − 0.05 × route length`; only a strictly greater score replaces the
//! best, so ties keep the first. No qualified candidate: not accepted (no response exists,
//! which is not a failed one). Every candidate's verdict is kept for the overlay.

use super::paths::{distance, PathGrid};
use crate::project::Vec2;
use crate::sim::state::PathFailure;

/// Candidate angles, degrees, in enumeration order.
pub const ANGLES_DEG: [i16; 7] = [0, 30, -30, 60, -60, 90, -90];
/// Candidate lengths beyond the safe distance, meters, in enumeration order.
pub const EXTRA_LENGTHS_M: [f64; 3] = [1.0, 3.0, 5.5];
/// Selection needs the projected endpoint strictly farther than safe + this from the threat.
pub const SELECTION_MARGIN_M: f64 = 0.3;
/// Queuing needs the selected goal strictly farther than safe + this from the threat.
pub const QUEUING_MARGIN_M: f64 = 0.15;
/// Weight of the route length in the score (dimensionless).
pub const ROUTE_WEIGHT: f64 = 0.05;

/// Why a candidate was not qualified.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum EscapeRejection {
    /// No walkable cell within the projection bound.
    ProjectionTooFar,
    /// Another ped stands at the projected endpoint.
    EndpointOccupied,
    /// The projected endpoint is not farther than safe + 0.3 m from the threat.
    TooCloseToThreat,
    /// No full path (the detail says why, the expansion bound included).
    NoPath(PathFailure),
}

/// One enumerated candidate and its verdict.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct EscapeCandidate {
    /// Angle from `away`, degrees.
    pub angle_deg: i16,
    /// Length from the start, meters.
    pub length_m: f64,
    /// The unprojected candidate, meters.
    pub point: [f64; 3],
    /// Its projection, when one exists.
    pub projected: Option<[f64; 3]>,
    /// Its score, or why it was rejected.
    pub verdict: Result<f64, EscapeRejection>,
}

/// What one selection saw and chose.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct EscapeReport {
    /// The threat, meters.
    pub threat: [f64; 3],
    /// The safe distance, meters.
    pub safe_distance_m: f64,
    /// Every candidate, in enumeration order.
    pub candidates: Vec<EscapeCandidate>,
    /// Index of the selected candidate.
    pub selected: Option<usize>,
}

impl EscapeReport {
    /// The selected endpoint (the projected candidate), if any.
    pub fn endpoint(&self) -> Option<[f64; 3]> {
        self.selected
            .and_then(|i| self.candidates.get(i))
            .and_then(|c| c.projected)
    }
}

/// Selects an escape endpoint for a ped at `start` facing `facing` from `threat`; `occupied`
/// says whether another ped stands at a point.
pub fn select(
    grid: &PathGrid,
    start: Vec2,
    facing: Vec2,
    threat: Vec2,
    safe_distance_m: f64,
    occupied: &dyn Fn(Vec2) -> bool,
) -> EscapeReport {
    let away = away_from(start, threat, facing);
    let mut candidates = Vec::with_capacity(ANGLES_DEG.len() * EXTRA_LENGTHS_M.len());
    let mut best: Option<(usize, f64)> = None;
    for angle_deg in ANGLES_DEG {
        let (sin, cos) = f64::from(angle_deg).to_radians().sin_cos();
        let direction = Vec2 {
            x: away.x * cos - away.y * sin,
            y: away.x * sin + away.y * cos,
        };
        for extra in EXTRA_LENGTHS_M {
            let length_m = safe_distance_m + extra;
            let point = Vec2 {
                x: start.x + direction.x * length_m,
                y: start.y + direction.y * length_m,
            };
            let projected = grid.project(point);
            let verdict = judge(grid, start, threat, safe_distance_m, projected, occupied);
            if let Ok(score) = verdict {
                // Strictly greater replaces: a tie keeps the first.
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((candidates.len(), score));
                }
            }
            candidates.push(EscapeCandidate {
                angle_deg,
                length_m,
                point: [point.x, point.y, 0.0],
                projected: projected.map(|p| [p.x, p.y, 0.0]),
                verdict,
            });
        }
    }
    EscapeReport {
        threat: [threat.x, threat.y, 0.0],
        safe_distance_m,
        candidates,
        selected: best.map(|(i, _)| i),
    }
}

fn judge(
    grid: &PathGrid,
    start: Vec2,
    threat: Vec2,
    safe_distance_m: f64,
    projected: Option<Vec2>,
    occupied: &dyn Fn(Vec2) -> bool,
) -> Result<f64, EscapeRejection> {
    let projected = projected.ok_or(EscapeRejection::ProjectionTooFar)?;
    if occupied(projected) {
        return Err(EscapeRejection::EndpointOccupied);
    }
    let from_threat = distance(projected, threat);
    if from_threat <= safe_distance_m + SELECTION_MARGIN_M {
        return Err(EscapeRejection::TooCloseToThreat);
    }
    let path = grid
        .find(start, projected)
        .map_err(EscapeRejection::NoPath)?;
    Ok(from_threat - ROUTE_WEIGHT * path.length_m())
}

/// `normalizeXY(start − threat)`, or the facing (or +X) when they coincide.
pub fn away_from(start: Vec2, threat: Vec2, facing: Vec2) -> Vec2 {
    let (dx, dy) = (start.x - threat.x, start.y - threat.y);
    let length = dx.hypot(dy);
    if length > 1e-9 {
        return Vec2 {
            x: dx / length,
            y: dy / length,
        };
    }
    let f = facing.x.hypot(facing.y);
    if f > 1e-9 {
        Vec2 {
            x: facing.x / f,
            y: facing.y / f,
        }
    } else {
        Vec2 { x: 1.0, y: 0.0 }
    }
}
