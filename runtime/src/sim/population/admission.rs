//! Admission of one candidate at its route progress, in the seed's order, each gate with its own
//! rejection: finite coordinates; the no-spawn box (ambient births only); a crossing conflict
//! (on a lane with a vehicle close); observers (no valid view defers; too close to any view or
//! inside any view's frustum unless hidden startup; within at least one view's range);
//! occupancy against logical peds of every source at their runtime positions, against positions
//! accepted earlier in the same batch, and a spawn capsule against the physical scene's
//! obstacles. The tested position is the position used.
//!
//! The capsule (radius 0.35 m, half-height 0.9 m, centre = feet root + half-height + allowance)
//! is tested against the scene's obstacle set (`sim::obstacles`: props, scene objects,
//! barriers and placed obstacles as `parry3d-f64` solids in a bounding volume hierarchy).

use crate::project::Vec2;
use crate::sim::crossings::gate::distance_to_crossing_m;
use crate::sim::crossings::{SignalPhase, SignalState};
use crate::sim::observers::Observation;
use crate::sim::obstacles::ObstacleSet;
use crate::sim::space::SimCrosswalk;

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

/// Why a birth (or a demand) was refused: one variant per gate.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum SpawnRejection {
    /// The candidate is inside the no-spawn box.
    NoSpawnBox,
    /// The population sampler could not draw a candidate.
    SamplerExhausted,
    /// Every agent slot is taken (2^32 agents).
    NoSlot,
    /// The candidate's coordinates are not finite.
    NonFinite,
    /// The candidate stands on a lane a vehicle is close to, or on a signalled crossing whose
    /// signal does not show the pedestrian phase.
    CrossingConflict,
    /// No valid view: generation defers.
    NoValidView,
    /// Too close to a view's camera (and not hidden).
    TooCloseToView,
    /// Inside a view's frustum (and not hidden).
    InsideFrustum,
    /// Outside every view's range.
    OutOfRange,
    /// A logical ped of some source stands there.
    OccupiedByPed,
    /// A candidate accepted earlier in the same batch stands there.
    OccupiedInBatch,
    /// The spawn capsule overlaps a prop.
    BlockedByProp,
    /// The source's appearance family is unavailable: nothing is created until it is.
    ResourcesNotReady,
    /// A compatible pool entry is still in quarantine: the whole batch waits.
    PoolQuarantine,
    /// The source already hosts its capacity of attached peds.
    CapacityFull,
    /// An item could not attach; the batch was rolled back completely.
    AttachFailed,
    /// An item could not attach and the rollback did not complete.
    RollbackFailed,
}

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

impl SpawnRejection {
    /// Whether an observer gate refused (no valid view, too close to a camera, inside a view,
    /// out of every view's range): such a refusal ends the source's current use.
    pub fn is_observer_gate(self) -> bool {
        matches!(
            self,
            SpawnRejection::NoValidView
                | SpawnRejection::TooCloseToView
                | SpawnRejection::InsideFrustum
                | SpawnRejection::OutOfRange
        )
    }

    /// What rejected the candidate, in words.
    pub fn describe(self) -> &'static str {
        match self {
            SpawnRejection::NoSpawnBox => "the drawn position is inside the no-spawn box",
            SpawnRejection::SamplerExhausted => "the population sampler ran out of attempts",
            SpawnRejection::NoSlot => "every agent slot is taken",
            SpawnRejection::NonFinite => "the candidate's coordinates are not finite",
            SpawnRejection::CrossingConflict => {
                "the candidate stands on a lane a vehicle is near, or on a crossing against its signal"
            }
            SpawnRejection::NoValidView => "no observer is valid, so generation defers",
            SpawnRejection::TooCloseToView => "the candidate is too close to an observer",
            SpawnRejection::InsideFrustum => "the candidate is inside an observer's view",
            SpawnRejection::OutOfRange => "the candidate is outside every observer's range",
            SpawnRejection::OccupiedByPed => "a pedestrian already stands there",
            SpawnRejection::OccupiedInBatch => {
                "an earlier candidate of the same batch stands there"
            }
            SpawnRejection::BlockedByProp => "the spawn capsule overlaps a prop",
            SpawnRejection::ResourcesNotReady => "the source's appearance family is unavailable",
            SpawnRejection::PoolQuarantine => {
                "a compatible pooled pedestrian is still in quarantine"
            }
            SpawnRejection::CapacityFull => "the source hosts its capacity of attached pedestrians",
            SpawnRejection::AttachFailed => "an attachment failed and the batch was rolled back",
            SpawnRejection::RollbackFailed => {
                "an attachment failed and the rollback did not complete"
            }
        }
    }

    /// What would unblock it, in words (for panels and reports).
    pub fn remedy(self) -> &'static str {
        match self {
            SpawnRejection::NoSpawnBox => "clear the no-spawn box or draw outside it",
            SpawnRejection::SamplerExhausted => "a route long enough to draw on",
            SpawnRejection::NoSlot => "fewer agents",
            SpawnRejection::NonFinite => "a route with finite coordinates",
            SpawnRejection::CrossingConflict => {
                "the vehicle on the lane moving on, or the crossing's pedestrian phase"
            }
            SpawnRejection::NoValidView => "a valid observer",
            SpawnRejection::TooCloseToView => "the observer moving away, or hidden startup",
            SpawnRejection::InsideFrustum => "a candidate offscreen, or hidden startup",
            SpawnRejection::OutOfRange => "an observer's population center coming within range",
            SpawnRejection::OccupiedByPed => "the ped standing there moving away",
            SpawnRejection::OccupiedInBatch => "batch candidates further apart",
            SpawnRejection::BlockedByProp => "a candidate clear of props",
            SpawnRejection::ResourcesNotReady => "the appearance family becoming available",
            SpawnRejection::PoolQuarantine => "two Control updates passing",
            SpawnRejection::CapacityFull => "an attached ped retiring or being released",
            SpawnRejection::AttachFailed => "a later attempt (the batch was undone)",
            SpawnRejection::RollbackFailed => "nothing automatic: compensation did not complete",
        }
    }
}

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
    if !gates.hidden {
        if observation
            .valid()
            .any(|v| v.camera_distance_m(feet_m) < v.close_m)
        {
            return Err(SpawnRejection::TooCloseToView);
        }
        if observation.valid().any(|v| v.sees_ped(feet_m)) {
            return Err(SpawnRejection::InsideFrustum);
        }
    }
    if !observation
        .valid()
        .any(|v| v.horizontal_distance_m(feet_m) <= v.retain_radius_m)
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
