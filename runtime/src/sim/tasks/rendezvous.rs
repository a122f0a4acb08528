//! Rendezvous goals: a scene object's transform (translation, yaw, scale) applied to a local
//! approach offset, read once at command time — later changes to the object do not move the
//! goal. Scene objects and barriers are the scenario's authored static geometry; both become
//! obstacles of the path service (a barrier may be unknown to navigation, so that only the body
//! meets it).

use super::paths::Obstacle;
use crate::project::Vec2;

/// An authored scene object (a parked vehicle, a kiosk): a transform and a box footprint.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneObjectSpec {
    /// Its id.
    pub id: String,
    /// Translation, meters.
    pub position: [f64; 3],
    /// Rotation about Z, radians.
    pub yaw_rad: f64,
    /// Scale per local axis.
    pub scale: [f64; 3],
    /// Half extents of its footprint before scaling, meters (zero: it blocks nothing).
    pub half_extents_m: [f64; 3],
}

impl SceneObjectSpec {
    /// `transform.TransformPosition(local)`: scale, then rotate about Z, then translate.
    pub fn transform_point(&self, local: [f64; 3]) -> [f64; 3] {
        let scaled = [
            local[0] * self.scale[0],
            local[1] * self.scale[1],
            local[2] * self.scale[2],
        ];
        let (sin, cos) = self.yaw_rad.sin_cos();
        [
            self.position[0] + scaled[0] * cos - scaled[1] * sin,
            self.position[1] + scaled[0] * sin + scaled[1] * cos,
            self.position[2] + scaled[2],
        ]
    }

    /// Its footprint as an obstacle, when it has one.
    pub fn obstacle(&self) -> Option<Obstacle> {
        let half = Vec2 {
            x: (self.half_extents_m[0] * self.scale[0]).abs(),
            y: (self.half_extents_m[1] * self.scale[1]).abs(),
        };
        if !(half.x > 0.0 && half.y > 0.0) {
            return None;
        }
        let (sin, cos) = self.yaw_rad.sin_cos();
        Some(Obstacle::Box {
            centre: Vec2 {
                x: self.position[0],
                y: self.position[1],
            },
            axis: Vec2 { x: cos, y: sin },
            half_m: half,
        })
    }
}

/// An authored barrier: a wall segment on the ground.
#[derive(Clone, Debug, PartialEq)]
pub struct BarrierSpec {
    /// Its id.
    pub id: String,
    /// One end, meters.
    pub from: [f64; 3],
    /// The other end, meters.
    pub to: [f64; 3],
    /// Thickness, meters.
    pub thickness_m: f64,
    /// Whether the path service knows it (false: only bodies meet it, as a newly placed
    /// obstacle that navigation data has not caught up with).
    pub in_navigation: bool,
}

impl BarrierSpec {
    /// The barrier as an obstacle.
    pub fn obstacle(&self) -> Obstacle {
        Obstacle::Segment {
            from: Vec2 {
                x: self.from[0],
                y: self.from[1],
            },
            to: Vec2 {
                x: self.to[0],
                y: self.to[1],
            },
            half_thickness_m: (self.thickness_m / 2.0).max(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_goes_through_scale_then_rotation_then_translation() {
        let car = SceneObjectSpec {
            id: "car".into(),
            position: [10.0, 2.0, 0.0],
            yaw_rad: std::f64::consts::FRAC_PI_2,
            scale: [2.0, 1.0, 1.0],
            half_extents_m: [1.0, 0.5, 0.7],
        };
        let goal = car.transform_point([-2.0, 0.0, 0.0]);
        // (−2, 0) scaled to (−4, 0), rotated by 90° to (0, −4), then translated.
        assert!((goal[0] - 10.0).abs() < 1e-12, "{goal:?}");
        assert!((goal[1] - -2.0).abs() < 1e-12, "{goal:?}");
        assert_eq!(goal[2], 0.0);
        // The footprint is 4 × 1 m, turned along Y: (10, 3.9) is inside, (10.6, 2) is not.
        let footprint = car.obstacle().expect("blocks");
        assert!(footprint.clearance_m(Vec2 { x: 10.0, y: 3.9 }) < 0.0);
        assert!((footprint.clearance_m(Vec2 { x: 10.6, y: 2.0 }) - 0.1).abs() < 1e-9);
    }
}
