//! Admission of one candidate at its route progress, in the specification's order, each gate with
//! its own rejection: finite coordinates; the no-spawn box (ambient births only); a crossing
//! conflict (on a lane with a vehicle close); observers (no valid view defers; too close to any
//! view — below its spawn range's minimum, or for a visible birth within its close distance of
//! the camera — or inside any view's frustum unless hidden startup; within at least one view's
//! spawn range maximum: the normal range, or the hidden range during hidden startup);
//! occupancy against logical peds of every source at their runtime positions, against positions
//! accepted earlier in the same batch, and a spawn capsule against the physical scene's
//! obstacles. The tested position is the position used.
//!
//! The capsule (radius 0.35 m, half-height 0.9 m, centre = feet root + half-height + allowance)
//! is tested against the scene's obstacle set (`sim::obstacles`: props, scene objects,
//! barriers and placed obstacles as `parry3d-f64` solids in a bounding volume hierarchy).

use crate::project::Vec2;
use crate::sim::crossings::gate::distance_to_crossing_m;
use crate::sim::observers::Observation;
use crate::sim::obstacles::ObstacleSet;
use crate::sim::space::SimCrosswalk;
use crate::sim::state::SpawnRejection;
use crate::sim::{crossings::SignalState, state::SignalPhase};

/// Spawn capsule radius, meters.
pub const CAPSULE_RADIUS_M: f64 = 0.35;
/// Spawn capsule half-height (caps included), meters.
pub const CAPSULE_HALF_HEIGHT_M: f64 = 0.9;
/// The capsule is lifted this far above the feet root so it does not touch the ground, meters.
pub const CAPSULE_ALLOWANCE_M: f64 = 0.02;
/// A logical ped closer than this (horizontally) occupies a candidate, meters (two body radii).
pub const PED_CLEARANCE_M: f64 = 0.6;
/// A vehicle closer than this to a candidate on its lane is a crossing conflict, meters.
pub const CROSSING_CLEARANCE_M: f64 = 12.0;

/// Every rejection, in code order.
pub const SPAWN_REJECTIONS: [SpawnRejection; 17] = [
    SpawnRejection::NoSpawnBox,
    SpawnRejection::SamplerExhausted,
    SpawnRejection::NoSlot,
    SpawnRejection::NonFinite,
    SpawnRejection::CrossingConflict,
    SpawnRejection::NoValidView,
    SpawnRejection::TooCloseToView,
    SpawnRejection::InsideFrustum,
    SpawnRejection::OutOfRange,
    SpawnRejection::OccupiedByPed,
    SpawnRejection::OccupiedInBatch,
    SpawnRejection::BlockedByProp,
    SpawnRejection::ResourcesNotReady,
    SpawnRejection::PoolQuarantine,
    SpawnRejection::CapacityFull,
    SpawnRejection::AttachFailed,
    SpawnRejection::RollbackFailed,
];

/// What one admission check reads besides the candidate.
pub struct Gates<'a> {
    /// This Control update's observation.
    pub observation: &'a Observation,
    /// Whether hidden startup holds now.
    pub hidden: bool,
    /// Whether the source is ambient (the no-spawn box applies to ambient births only).
    pub ambient: bool,
    /// The no-spawn box's verdict is asked through this.
    pub boxes: &'a super::boxes::Boxes,
    /// Lane corridors with a vehicle close: `(distance to candidate test)`.
    pub crossing: &'a dyn Fn([f64; 3]) -> bool,
    /// Runtime ground positions of every registered, unpooled ped (staged births included).
    pub peds: &'a [[f64; 2]],
    /// The physical scene's obstacles (props, scene objects, barriers, placed obstacles).
    pub obstacles: &'a ObstacleSet,
}

/// Admits a candidate standing at `feet_m`, given the positions accepted earlier in the batch.
pub fn admit(
    gates: &Gates<'_>,
    feet_m: [f64; 3],
    batch: &[[f64; 3]],
) -> Result<(), SpawnRejection> {
    if feet_m.iter().any(|v| !v.is_finite()) {
        return Err(SpawnRejection::NonFinite);
    }
    if gates.ambient && gates.boxes.blocks_spawn(feet_m) {
        return Err(SpawnRejection::NoSpawnBox);
    }
    if (gates.crossing)(feet_m) {
        return Err(SpawnRejection::CrossingConflict);
    }
    observers(gates, feet_m)?;
    let near = |x: f64, y: f64| (x - feet_m[0]).hypot(y - feet_m[1]) < PED_CLEARANCE_M;
    if gates.peds.iter().any(|p| near(p[0], p[1])) {
        return Err(SpawnRejection::OccupiedByPed);
    }
    if batch.iter().any(|p| near(p[0], p[1])) {
        return Err(SpawnRejection::OccupiedInBatch);
    }
    if capsule_blocked(gates.obstacles, feet_m) {
        return Err(SpawnRejection::BlockedByProp);
    }
    Ok(())
}

/// Whether the spawn capsule standing at `feet_m` overlaps an obstacle of the scene.
pub fn capsule_blocked(obstacles: &ObstacleSet, feet_m: [f64; 3]) -> bool {
    let height_m = 2.0 * CAPSULE_HALF_HEIGHT_M;
    obstacles.capsule_blocked(feet_m, CAPSULE_RADIUS_M, height_m, CAPSULE_ALLOWANCE_M)
}

fn observers(gates: &Gates<'_>, feet_m: [f64; 3]) -> Result<(), SpawnRejection> {
    let observation = gates.observation;
    if observation.views.is_empty() {
        // Legacy mode for viewless tools: a scenario with no observer at all skips the view
        // gates (and never retires anyone, since missing views never authorize removal).
        return Ok(());
    }
    if !observation.any_valid() {
        return Err(SpawnRejection::NoValidView);
    }
    let hidden = gates.hidden;
    // Too close to any valid view: below its spawn range's minimum (horizontally), or, for a
    // visible birth, within its close distance of the camera (3D).
    let too_close = |v: &crate::sim::observers::View| {
        v.horizontal_distance_m(feet_m) < v.spawn_range_m(hidden).0
            || (!hidden && v.camera_distance_m(feet_m) < v.close_m)
    };
    if observation.valid().any(too_close) {
        return Err(SpawnRejection::TooCloseToView);
    }
    if !hidden && observation.valid().any(|v| v.sees_ped(feet_m)) {
        return Err(SpawnRejection::InsideFrustum);
    }
    if !observation
        .valid()
        .any(|v| v.horizontal_distance_m(feet_m) <= v.spawn_range_m(hidden).1)
    {
        return Err(SpawnRejection::OutOfRange);
    }
    Ok(())
}

/// Whether a ped standing at `feet` would be on a signalled crossing whose signal does not show
/// the pedestrian phase (a signal conflict: vehicles may have, or are about to get, the road).
/// A crossing spans its kerb-to-kerb line, half its width either side; the kerbs are sidewalk.
pub(super) fn against_signal(
    crosswalks: &[SimCrosswalk],
    signals: &[SignalState],
    feet: [f64; 3],
) -> bool {
    let p = Vec2 {
        x: feet[0],
        y: feet[1],
    };
    crosswalks.iter().any(|c| {
        let (a, b) = (c.sides[0].kerb, c.sides[1].kerb);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let along = (p.x - a.x) * dx + (p.y - a.y) * dy;
        let between_kerbs = along > 0.0 && along < dx * dx + dy * dy;
        between_kerbs
            && distance_to_crossing_m(c, p) <= c.width_m * 0.5
            && signals
                .get(usize::from(c.signal))
                .is_some_and(|s| s.phase != SignalPhase::PedestrianCrossing)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Vec2;

    #[test]
    fn the_capsule_stands_on_its_feet_and_meets_props_by_their_real_shape() {
        let prop = crate::sim::obstacles::SceneObstacle {
            footprint: crate::sim::obstacles::Obstacle::Circle {
                centre: Vec2 { x: 0.0, y: 0.0 },
                radius_m: 0.5,
            },
            height_m: 1.0,
            in_navigation: true,
            origin: crate::sim::obstacles::ObstacleOrigin::Prop { stage: 0, index: 0 },
        };
        let index = ObstacleSet::new(vec![prop], 0);
        assert_eq!(index.solids().len(), 1);
        let blocked = |feet: [f64; 3]| capsule_blocked(&index, feet);
        // Touching distance is 0.5 + 0.35 = 0.85 m.
        assert!(blocked([0.84, 0.0, 0.0]));
        assert!(!blocked([0.86, 0.0, 0.0]));
        assert!(!blocked([0.61, 0.61, 0.0]), "0.863 m diagonally is clear");
        // A capsule standing on top of the 1 m prop (feet at 1.0 m, lifted by the allowance)
        // does not touch it; one standing at 0.9 m does.
        assert!(!blocked([0.0, 0.0, 1.0]));
        assert!(blocked([0.0, 0.0, 0.9]));
    }
}
