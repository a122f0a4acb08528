//! The obstacles as upright solids for capsule queries (`parry3d-f64`): a prop is a cylinder, a
//! scene object's footprint a box turned about Z, a barrier a box along its segment with a
//! cylinder at each end (its footprint, a thick segment, extruded); all stand on the ground to
//! their height, in a bounding volume hierarchy built with the set. The spawn capsule of
//! admission and the standing capsule of knockdown recovery are tested against it.

use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::math::{Pose, Rot3, Vector};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy};
use parry3d_f64::query::intersection_test;
use parry3d_f64::shape::{Capsule, Cuboid, Cylinder, Shape};

use super::{Obstacle, SceneObstacle};

/// One upright solid: where it stands and its shape.
#[derive(Clone, Debug)]
pub enum Solid {
    /// A cylinder standing along Z.
    Cylinder(Pose, Cylinder),
    /// A box turned about Z.
    Cuboid(Pose, Cuboid),
}

impl Solid {
    fn pose(&self) -> &Pose {
        match self {
            Solid::Cylinder(pose, _) | Solid::Cuboid(pose, _) => pose,
        }
    }

    fn shape(&self) -> &dyn Shape {
        match self {
            Solid::Cylinder(_, c) => c,
            Solid::Cuboid(_, c) => c,
        }
    }

    fn aabb(&self) -> Aabb {
        match self {
            Solid::Cylinder(pose, c) => c.aabb(pose),
            Solid::Cuboid(pose, c) => c.aabb(pose),
        }
    }

    fn same(&self, other: &Solid) -> bool {
        match (self, other) {
            (Solid::Cylinder(a, x), Solid::Cylinder(b, y)) => {
                a == b && x.radius == y.radius && x.half_height == y.half_height
            }
            (Solid::Cuboid(a, x), Solid::Cuboid(b, y)) => {
                a == b && x.half_extents == y.half_extents
            }
            _ => false,
        }
    }
}

/// Parry's cylinders stand along Y; ours stand along Z.
pub(super) fn z_up() -> Rot3 {
    Rot3::from_rotation_x(std::f64::consts::FRAC_PI_2)
}

/// The solids of one obstacle standing `height_m` tall (none for a degenerate one: a zero or
/// negative radius, thickness or height, or a value that is not finite).
pub(super) fn solids(obstacle: &SceneObstacle) -> Vec<Solid> {
    let half_h = obstacle.height_m * 0.5;
    if !(half_h > 0.0 && half_h.is_finite() && obstacle.footprint.is_finite()) {
        return Vec::new();
    }
    let cylinder = |x: f64, y: f64, r: f64| {
        let pose = Pose::from_parts(Vector::new(x, y, half_h), z_up());
        Solid::Cylinder(pose, Cylinder::new(half_h, r))
    };
    let cuboid = |x: f64, y: f64, yaw: f64, hx: f64, hy: f64| {
        let pose = Pose::from_parts(Vector::new(x, y, half_h), Rot3::from_rotation_z(yaw));
        Solid::Cuboid(pose, Cuboid::new(Vector::new(hx, hy, half_h)))
    };
    match obstacle.footprint {
        Obstacle::Circle { centre, radius_m } if radius_m > 0.0 => {
            vec![cylinder(centre.x, centre.y, radius_m)]
        }
        Obstacle::Circle { .. } => Vec::new(),
        Obstacle::Segment {
            from,
            to,
            half_thickness_m: h,
        } if h > 0.0 => {
            let (dx, dy) = (to.x - from.x, to.y - from.y);
            let length = dx.hypot(dy);
            let mut solids = vec![cylinder(from.x, from.y, h)];
            if length > 0.0 {
                let (mx, my) = ((from.x + to.x) * 0.5, (from.y + to.y) * 0.5);
                solids.push(cuboid(mx, my, dy.atan2(dx), length * 0.5, h));
                solids.push(cylinder(to.x, to.y, h));
            }
            solids
        }
        Obstacle::Segment { .. } => Vec::new(),
        Obstacle::Box {
            centre,
            axis,
            half_m,
        } if half_m.x > 0.0 && half_m.y > 0.0 => {
            vec![cuboid(
                centre.x,
                centre.y,
                axis.y.atan2(axis.x),
                half_m.x,
                half_m.y,
            )]
        }
        Obstacle::Box { .. } => Vec::new(),
    }
}

/// The solids of a set in a bounding volume hierarchy.
#[derive(Clone, Debug)]
pub(super) struct CapsuleIndex {
    solids: Vec<Solid>,
    bvh: Bvh,
}

impl PartialEq for CapsuleIndex {
    /// Two indices are equal when they hold the same solids (the tree follows from them).
    fn eq(&self, other: &Self) -> bool {
        self.solids.len() == other.solids.len()
            && self
                .solids
                .iter()
                .zip(&other.solids)
                .all(|(a, b)| a.same(b))
    }
}

impl CapsuleIndex {
    /// The index of `obstacles`' solids.
    pub(super) fn new(obstacles: &[SceneObstacle]) -> CapsuleIndex {
        let solids: Vec<Solid> = obstacles.iter().flat_map(solids).collect();
        let aabbs: Vec<Aabb> = solids.iter().map(Solid::aabb).collect();
        CapsuleIndex {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs),
            solids,
        }
    }

    /// The solids, in the order of the obstacles they stand for.
    pub(super) fn solids(&self) -> &[Solid] {
        &self.solids
    }

    /// Whether an upright capsule of `radius_m` whose lowest point is `lift_m` above `feet_m`
    /// and whose total height is `height_m` overlaps a solid. A pair parry cannot test counts as
    /// blocked: no evidence is not clearance.
    pub(super) fn blocked(
        &self,
        feet_m: [f64; 3],
        radius_m: f64,
        height_m: f64,
        lift_m: f64,
    ) -> bool {
        let half_height = height_m * 0.5;
        let capsule = Capsule::new_z((half_height - radius_m).max(0.0), radius_m);
        let centre = Vector::new(feet_m[0], feet_m[1], feet_m[2] + half_height + lift_m);
        let pose = Pose::from_translation(centre);
        let aabb = capsule.aabb(&pose);
        let blocked = self.bvh.intersect_aabb(&aabb).any(|leaf| {
            let solid = &self.solids[leaf as usize];
            intersection_test(&pose, &capsule, solid.pose(), solid.shape())
                .map(|hit| hit.intersecting)
                .unwrap_or(true)
        });
        blocked
    }
}
