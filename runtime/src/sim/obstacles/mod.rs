//! The physical scene's static obstacles: one set — the generated props, the scenario's scene
//! objects with a footprint and its barriers, and the obstacles directives place — that every
//! consumer of static geometry queries: admission's spawn capsule and knockdown recovery's
//! standing capsule ([`ObstacleSet::capsule_blocked`], through `parry3d-f64` solids), walking's
//! swept body ([`ObstacleSet::walk_index`]), the knockdown physics scene's fixed colliders
//! ([`ObstacleSet::obstacles`]) and task movements' body checks against what navigation does not
//! know ([`ObstacleSet::unknown_to_navigation`]).
//!
//! The set at frame 0 is built once per world ([`ObstacleSet::of_scene`]); the world's
//! [`SceneState`] records what directives placed and removed since, and rebuilds the current set
//! when that changes. The path service's grid is built once from the frame-0 set (navigation
//! data: a placed obstacle is unknown to it, a removed one stays known).

pub mod blockers;
mod capsule;
mod shape;
mod state;

pub use crate::sim::config::Obstacle;
pub use blockers::{BlockerIndex, Nearby, BLOCKER_REACH_M};
pub use capsule::Solid;
pub use state::SceneState;

use crate::sim::config::CompiledScenario;
use crate::sim::space::SimSpace;
use capsule::CapsuleIndex;

/// Height of a barrier, and of a scene object whose footprint gives none, meters: a wall a body
/// cannot stand in.
pub const AUTHORED_HEIGHT_M: f64 = 1.0;

/// Where an obstacle of the scene comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObstacleOrigin {
    /// A generated prop: `(stage, index)` of its placement.
    Prop {
        /// Stage that placed it.
        stage: u32,
        /// Index in the stage's product.
        index: u32,
    },
    /// A scenario scene object with a footprint, by id.
    Object(String),
    /// A scenario barrier, by id.
    Barrier(String),
    /// An obstacle a `PlaceObstacle` directive placed, by id.
    Placed(String),
}

impl ObstacleOrigin {
    /// The id directives name it by (props have none).
    pub fn id(&self) -> Option<&str> {
        match self {
            ObstacleOrigin::Prop { .. } => None,
            ObstacleOrigin::Object(id)
            | ObstacleOrigin::Barrier(id)
            | ObstacleOrigin::Placed(id) => Some(id),
        }
    }
}

/// One obstacle: its footprint on the ground, the height it stands to, whether navigation
/// knows it, and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneObstacle {
    /// Its footprint, meters.
    pub footprint: Obstacle,
    /// It stands from the ground to this height, meters.
    pub height_m: f64,
    /// Whether the path service's grid was built around it.
    pub in_navigation: bool,
    /// Where it comes from.
    pub origin: ObstacleOrigin,
}

/// The obstacles of the physical scene at one moment, with the indices built from them.
#[derive(Clone, Debug)]
pub struct ObstacleSet {
    obstacles: Vec<SceneObstacle>,
    walk: BlockerIndex,
    capsules: CapsuleIndex,
    /// The scene change this set reflects (0: the set at frame 0).
    revision: u32,
}

impl PartialEq for ObstacleSet {
    /// Two sets are equal when they hold the same obstacles at the same revision (the indices
    /// follow from them).
    fn eq(&self, other: &Self) -> bool {
        self.obstacles == other.obstacles && self.revision == other.revision
    }
}

impl ObstacleSet {
    /// The set of `obstacles` at scene revision `revision`: props (circles) go into the walking
    /// index's grid in their order, every other footprint into its shape list.
    pub fn new(obstacles: Vec<SceneObstacle>, revision: u32) -> ObstacleSet {
        let mut circles = Vec::new();
        let mut shapes = Vec::new();
        for o in &obstacles {
            match o.footprint {
                Obstacle::Circle { centre, radius_m } => circles.push((centre, radius_m)),
                other => shapes.push(other),
            }
        }
        ObstacleSet {
            walk: BlockerIndex::of_footprints(circles, shapes),
            capsules: CapsuleIndex::new(&obstacles),
            obstacles,
            revision,
        }
    }

    /// The scene at frame 0: the space's props (in the space's order), then the scenario's
    /// scene objects with a footprint and its barriers (file order).
    pub fn of_scene(space: &SimSpace, scenario: &CompiledScenario) -> ObstacleSet {
        let mut obstacles: Vec<SceneObstacle> = space
            .blockers
            .iter()
            .map(|b| SceneObstacle {
                footprint: Obstacle::Circle {
                    centre: b.position,
                    radius_m: b.radius_m,
                },
                height_m: b.height_m,
                in_navigation: true,
                origin: ObstacleOrigin::Prop {
                    stage: b.stage,
                    index: b.index,
                },
            })
            .collect();
        for object in &scenario.objects {
            if let Some(footprint) = object.obstacle() {
                let height = (2.0 * object.half_extents_m[2] * object.scale[2]).abs();
                obstacles.push(SceneObstacle {
                    footprint,
                    height_m: if height > 0.0 {
                        height
                    } else {
                        AUTHORED_HEIGHT_M
                    },
                    in_navigation: true,
                    origin: ObstacleOrigin::Object(object.id.clone()),
                });
            }
        }
        for barrier in &scenario.barriers {
            obstacles.push(SceneObstacle {
                footprint: barrier.obstacle(),
                height_m: AUTHORED_HEIGHT_M,
                in_navigation: barrier.in_navigation,
                origin: ObstacleOrigin::Barrier(barrier.id.clone()),
            });
        }
        ObstacleSet::new(obstacles, 0)
    }

    /// The obstacles, props first (the order of the physics scene's fixed colliders).
    pub fn obstacles(&self) -> &[SceneObstacle] {
        &self.obstacles
    }

    /// The scene change this set reflects (0 for the set at frame 0).
    pub fn revision(&self) -> u32 {
        self.revision
    }

    /// The walkers' index: props in a grid, the other footprints beside it.
    pub fn walk_index(&self) -> &BlockerIndex {
        &self.walk
    }

    /// The obstacles as upright solids (capsule queries and the knockdown physics scene's fixed
    /// colliders), in obstacle order.
    pub fn solids(&self) -> &[Solid] {
        self.capsules.solids()
    }

    /// Whether an upright capsule of `radius_m` and total height `height_m`, its lowest point
    /// `lift_m` above the feet at `feet_m`, overlaps an obstacle: the spawn capsule of admission
    /// and the standing capsule of knockdown recovery.
    pub fn capsule_blocked(
        &self,
        feet_m: [f64; 3],
        radius_m: f64,
        height_m: f64,
        lift_m: f64,
    ) -> bool {
        self.capsules.blocked(feet_m, radius_m, height_m, lift_m)
    }

    /// The footprints the path service's grid does not hold: barriers authored unknown to
    /// navigation and everything a directive placed (only bodies meet them).
    pub fn unknown_to_navigation(&self) -> impl Iterator<Item = &Obstacle> + '_ {
        self.obstacles
            .iter()
            .filter(|o| !o.in_navigation)
            .map(|o| &o.footprint)
    }

    /// The footprints the path service's grid is built around (known to navigation).
    pub fn known_to_navigation(&self) -> impl Iterator<Item = &Obstacle> + '_ {
        self.obstacles
            .iter()
            .filter(|o| o.in_navigation)
            .map(|o| &o.footprint)
    }
}

#[cfg(test)]
mod tests;
