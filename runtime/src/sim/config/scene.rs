//! Compiled static geometry: the ground footprint of an obstacle ([`Obstacle`]; its clearance
//! geometry lives with the obstacle set, `sim::obstacles`) and the scenario's authored scene
//! objects and barriers.

use crate::project::Vec2;

/// The ground footprint of a static obstacle, in world units.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum Obstacle {
    /// An upright cylinder (a prop).
    Circle {
        /// Centre on the ground, meters.
        centre: Vec2,
        /// Radius, meters.
        radius_m: f64,
    },
    /// A wall segment of some thickness (a barrier).
    Segment {
        /// One end, meters.
        from: Vec2,
        /// The other end, meters.
        to: Vec2,
        /// Half its thickness, meters.
        half_thickness_m: f64,
    },
    /// An oriented box footprint (a scene object).
    Box {
        /// Centre on the ground, meters.
        centre: Vec2,
        /// Unit direction of the box's local x axis.
        axis: Vec2,
        /// Half extents along local x and y, meters.
        half_m: Vec2,
    },
}

impl Obstacle {
    /// A square around the obstacle, `(min, max)`, meters.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        let (lo, hi) = match *self {
            Obstacle::Circle { centre, radius_m } => (
                Vec2 {
                    x: centre.x - radius_m,
                    y: centre.y - radius_m,
                },
                Vec2 {
                    x: centre.x + radius_m,
                    y: centre.y + radius_m,
                },
            ),
            Obstacle::Segment {
                from,
                to,
                half_thickness_m: h,
            } => (
                Vec2 {
                    x: from.x.min(to.x) - h,
                    y: from.y.min(to.y) - h,
                },
                Vec2 {
                    x: from.x.max(to.x) + h,
                    y: from.y.max(to.y) + h,
                },
            ),
            Obstacle::Box { centre, half_m, .. } => {
                let r = half_m.x.hypot(half_m.y);
                (
                    Vec2 {
                        x: centre.x - r,
                        y: centre.y - r,
                    },
                    Vec2 {
                        x: centre.x + r,
                        y: centre.y + r,
                    },
                )
            }
        };
        (lo, hi)
    }

    /// Whether every value is finite.
    pub fn is_finite(&self) -> bool {
        let (lo, hi) = self.bounds();
        lo.x.is_finite() && lo.y.is_finite() && hi.x.is_finite() && hi.y.is_finite()
    }
}

impl Obstacle {
    /// Canonical bytes: a kind byte and six floats by their bits.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        let (kind, values) = match *self {
            Obstacle::Circle { centre, radius_m } => {
                (0u8, [centre.x, centre.y, radius_m, 0.0, 0.0, 0.0])
            }
            Obstacle::Segment {
                from,
                to,
                half_thickness_m,
            } => (1, [from.x, from.y, to.x, to.y, half_thickness_m, 0.0]),
            Obstacle::Box {
                centre,
                axis,
                half_m,
            } => (2, [centre.x, centre.y, axis.x, axis.y, half_m.x, half_m.y]),
        };
        bytes.push(kind);
        for v in values {
            bytes.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    }
}

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
