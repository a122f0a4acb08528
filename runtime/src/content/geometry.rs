//! Ground-plane geometry shared by the products: points, half-open rectangles and bounds, in meters,
//! and the integer lattice rectangles of scatter layers.
//!
//! Z is up, so every product here lives on the XY ground plane. Metric values are plain `f64`;
//! products that are pinned by digests encode them by their IEEE-754 bits. Lattice rectangles are
//! exact integers.

/// A point on the ground plane, in meters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PointM {
    /// East, in meters.
    pub x: f64,
    /// North, in meters.
    pub y: f64,
}

impl PointM {
    /// A point from its coordinates.
    pub const fn new(x: f64, y: f64) -> PointM {
        PointM { x, y }
    }

    /// Whether both coordinates are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// Euclidean distance to `other`, in meters.
    pub fn distance(self, other: PointM) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

/// A half-open rectangle `[min_x, max_x) × [min_y, max_y)` on the ground plane, in meters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RectM {
    /// West edge (inclusive).
    pub min_x: f64,
    /// South edge (inclusive).
    pub min_y: f64,
    /// East edge (exclusive).
    pub max_x: f64,
    /// North edge (exclusive).
    pub max_y: f64,
}

impl RectM {
    /// A rectangle from its edges.
    pub const fn new(min_x: f64, min_y: f64, max_x: f64, max_y: f64) -> RectM {
        RectM {
            min_x,
            min_y,
            max_x,
            max_y,
        }
    }

    /// Whether `point` lies inside (half-open).
    pub fn contains(&self, point: PointM) -> bool {
        self.min_x <= point.x
            && point.x < self.max_x
            && self.min_y <= point.y
            && point.y < self.max_y
    }

    /// The four corners counter-clockwise from the south-west one.
    pub fn corners(&self) -> [PointM; 4] {
        [
            PointM::new(self.min_x, self.min_y),
            PointM::new(self.max_x, self.min_y),
            PointM::new(self.max_x, self.max_y),
            PointM::new(self.min_x, self.max_y),
        ]
    }
}

/// An axis-aligned bounding box on the ground plane, inclusive, in meters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundsM {
    /// Smallest x.
    pub min_x: f64,
    /// Smallest y.
    pub min_y: f64,
    /// Largest x.
    pub max_x: f64,
    /// Largest y.
    pub max_y: f64,
}

impl BoundsM {
    /// The bounds of `points`, or `None` when there are none.
    pub fn of_points(points: impl IntoIterator<Item = PointM>) -> Option<BoundsM> {
        let mut bounds: Option<BoundsM> = None;
        for point in points {
            bounds = Some(match bounds {
                None => BoundsM {
                    min_x: point.x,
                    min_y: point.y,
                    max_x: point.x,
                    max_y: point.y,
                },
                Some(b) => BoundsM {
                    min_x: b.min_x.min(point.x),
                    min_y: b.min_y.min(point.y),
                    max_x: b.max_x.max(point.x),
                    max_y: b.max_y.max(point.y),
                },
            });
        }
        bounds
    }

    /// Whether `point` lies within the bounds, edges included.
    pub fn holds(&self, point: PointM) -> bool {
        self.min_x <= point.x
            && point.x <= self.max_x
            && self.min_y <= point.y
            && point.y <= self.max_y
    }

    /// The smallest bounds holding both.
    pub fn union(self, other: BoundsM) -> BoundsM {
        BoundsM {
            min_x: self.min_x.min(other.min_x),
            min_y: self.min_y.min(other.min_y),
            max_x: self.max_x.max(other.max_x),
            max_y: self.max_y.max(other.max_y),
        }
    }

    /// Width (x extent) in meters.
    pub fn width_m(&self) -> f64 {
        self.max_x - self.min_x
    }

    /// Depth (y extent) in meters.
    pub fn depth_m(&self) -> f64 {
        self.max_y - self.min_y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_is_half_open_and_bounds_cover_points() {
        let rect = RectM::new(0.0, 0.0, 2.0, 1.0);
        assert!(rect.contains(PointM::new(0.0, 0.0)));
        assert!(!rect.contains(PointM::new(2.0, 0.5)));
        assert!(!rect.contains(PointM::new(1.0, 1.0)));
        let bounds = BoundsM::of_points(rect.corners()).unwrap_or_else(|| panic!("points"));
        assert_eq!((bounds.width_m(), bounds.depth_m()), (2.0, 1.0));
        assert_eq!(BoundsM::of_points([]), None);
    }
}

/// A half-open integer rectangle `[min_x, max_x) × [min_y, max_y)` in lattice units (scatter
/// regions and keep-outs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Inclusive lower x.
    pub min_x: i64,
    /// Inclusive lower y.
    pub min_y: i64,
    /// Exclusive upper x.
    pub max_x: i64,
    /// Exclusive upper y.
    pub max_y: i64,
}

impl Rect {
    /// A rectangle from its bounds.
    pub const fn new(min_x: i64, min_y: i64, max_x: i64, max_y: i64) -> Rect {
        Rect {
            min_x,
            min_y,
            max_x,
            max_y,
        }
    }

    /// Whether `(x, y)` lies inside (half-open).
    pub const fn contains(&self, x: i64, y: i64) -> bool {
        self.min_x <= x && x < self.max_x && self.min_y <= y && y < self.max_y
    }

    /// Whether the rectangle contains no point.
    pub const fn is_empty(&self) -> bool {
        self.min_x >= self.max_x || self.min_y >= self.max_y
    }
}
