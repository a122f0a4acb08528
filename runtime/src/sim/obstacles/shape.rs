//! Footprints of the physical scene's obstacles on the ground — a prop's circle, a barrier's
//! thick segment, a scene object's oriented box — with the two distances every consumer reads:
//! a point's clearance and a swept body's (the segment a body's centre sweeps).

use crate::project::Vec2;
use crate::sim::config::Obstacle;

use crate::sim::spatial::{distance_sq_to_segment, distance_to_segment};

impl Obstacle {
    /// Horizontal clearance from `p` to the obstacle's surface (negative inside), meters.
    pub fn clearance_m(&self, p: Vec2) -> f64 {
        match *self {
            Obstacle::Circle { centre, radius_m } => distance(p, centre) - radius_m,
            Obstacle::Segment {
                from,
                to,
                half_thickness_m,
            } => distance_to_segment(p, from, to) - half_thickness_m,
            Obstacle::Box {
                centre,
                axis,
                half_m,
            } => {
                let (dx, dy) = (p.x - centre.x, p.y - centre.y);
                let local_x = (dx * axis.x + dy * axis.y).abs() - half_m.x;
                let local_y = (-dx * axis.y + dy * axis.x).abs() - half_m.y;
                let outside = local_x.max(0.0).hypot(local_y.max(0.0));
                outside + local_x.max(local_y).min(0.0)
            }
        }
    }
}

impl Obstacle {
    /// The least horizontal clearance from any point of segment `[a, b]` to the obstacle's
    /// surface (zero or negative when the segment touches or enters it), meters: a body of
    /// radius `r` swept from `a` to `b` stays clear exactly when this is at least `r`.
    pub fn swept_clearance_m(&self, a: Vec2, b: Vec2) -> f64 {
        match *self {
            Obstacle::Circle { centre, radius_m } => {
                distance_sq_to_segment(centre, a, b).sqrt() - radius_m
            }
            Obstacle::Segment {
                from,
                to,
                half_thickness_m,
            } => segment_distance(a, b, from, to) - half_thickness_m,
            Obstacle::Box {
                centre,
                axis,
                half_m,
            } => {
                let corners = box_corners(centre, axis, half_m);
                let mut best = self.clearance_m(a).min(self.clearance_m(b));
                if best <= 0.0 {
                    return best;
                }
                for i in 0..4 {
                    let edge = (corners[i], corners[(i + 1) % 4]);
                    if segments_cross(a, b, edge.0, edge.1) {
                        return 0.0;
                    }
                    best = best.min(distance_sq_to_segment(corners[i], a, b).sqrt());
                }
                best
            }
        }
    }
}

/// The four corners of an oriented box, counter-clockwise.
fn box_corners(centre: Vec2, axis: Vec2, half_m: Vec2) -> [Vec2; 4] {
    let side = Vec2 {
        x: -axis.y,
        y: axis.x,
    };
    let at = |u: f64, v: f64| Vec2 {
        x: centre.x + axis.x * u * half_m.x + side.x * v * half_m.y,
        y: centre.y + axis.y * u * half_m.x + side.y * v * half_m.y,
    };
    [at(1.0, 1.0), at(-1.0, 1.0), at(-1.0, -1.0), at(1.0, -1.0)]
}

/// The least distance between segments `[a, b]` and `[c, d]` (zero when they cross).
fn segment_distance(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f64 {
    if segments_cross(a, b, c, d) {
        return 0.0;
    }
    distance_sq_to_segment(a, c, d)
        .min(distance_sq_to_segment(b, c, d))
        .min(distance_sq_to_segment(c, a, b))
        .min(distance_sq_to_segment(d, a, b))
        .sqrt()
}

/// Whether segments `[a, b]` and `[c, d]` intersect (touching counts).
fn segments_cross(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x);
    let (d1, d2) = (cross(c, d, a), cross(c, d, b));
    let (d3, d4) = (cross(a, b, c), cross(a, b, d));
    let straddles = |p: f64, q: f64| (p <= 0.0 && q >= 0.0) || (p >= 0.0 && q <= 0.0);
    let proper = straddles(d1, d2) && straddles(d3, d4);
    if !proper {
        return false;
    }
    // Collinear segments straddle trivially: they cross only when their spans overlap.
    if d1 == 0.0 && d2 == 0.0 {
        let overlap = |p: f64, q: f64, r: f64, s: f64| p.min(q) <= r.max(s) && r.min(s) <= p.max(q);
        return overlap(a.x, b.x, c.x, d.x) && overlap(a.y, b.y, c.y, d.y);
    }
    true
}

fn distance(a: Vec2, b: Vec2) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2 { x, y }
    }

    #[test]
    fn a_swept_body_meets_each_footprint_by_its_real_shape() {
        let post = Obstacle::Circle {
            centre: v(0.0, 1.0),
            radius_m: 0.5,
        };
        assert!((post.swept_clearance_m(v(-2.0, 0.0), v(2.0, 0.0)) - 0.5).abs() < 1e-12);
        let wall = Obstacle::Segment {
            from: v(0.0, -1.0),
            to: v(0.0, 1.0),
            half_thickness_m: 0.1,
        };
        // Crossing the wall's line, and passing its end 0.5 m off.
        assert!(wall.swept_clearance_m(v(-2.0, 0.0), v(2.0, 0.0)) < 0.0);
        assert!((wall.swept_clearance_m(v(-2.0, 1.5), v(2.0, 1.5)) - 0.4).abs() < 1e-12);
        // A box 2 × 1 turned by 90°: 1 m along y, 0.5 m along x from its centre.
        let turned = Obstacle::Box {
            centre: v(0.0, 0.0),
            axis: v(0.0, 1.0),
            half_m: v(1.0, 0.5),
        };
        assert!((turned.swept_clearance_m(v(-3.0, 1.3), v(3.0, 1.3)) - 0.3).abs() < 1e-12);
        assert_eq!(turned.swept_clearance_m(v(-3.0, 0.0), v(3.0, 0.0)), 0.0);
        // Passing a corner diagonally on x + y = 2: the corner (0.5, 1) is the closest point.
        let d = turned.swept_clearance_m(v(2.0, 0.0), v(0.0, 2.0));
        assert!((d - 0.5 / 2f64.sqrt()).abs() < 1e-12, "{d}");
        // Starting inside counts as touching.
        assert!(turned.swept_clearance_m(v(0.0, 0.0), v(3.0, 0.0)) < 0.0);
    }
}
