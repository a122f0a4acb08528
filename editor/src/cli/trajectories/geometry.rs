//! The walkable area a trajectory file carries (PedPy needs one polygon): the union of the
//! street blocks' sidewalk and crosswalk surfaces of the generated content, computed with `geo`'s
//! boolean operations. When the content has no street block, or its walkways do not join into one
//! polygon (a block without crosswalks: two separate sidewalks), the area is the bounding box of
//! the walkways and every recorded position, grown by [`BOUNDING_MARGIN_M`] — documented in
//! `docs/trajectories.md`. Coordinates are meters on Stagecraft's ground plane, X east, Y north.

use geo::{BooleanOps as _, BoundingRect as _, MultiPolygon, Polygon};
use stagecraft_runtime::content::{Product, SurfaceKind};

/// Meters the bounding-box walkable area extends past the walkways and positions it bounds.
pub const BOUNDING_MARGIN_M: f64 = 1.0;

/// The smallest axis-aligned box holding some points (empty until the first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    min: [f64; 2],
    max: [f64; 2],
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            min: [f64::INFINITY; 2],
            max: [f64::NEG_INFINITY; 2],
        }
    }
}

impl Bounds {
    /// Grows the box to hold `(x, y)` (non-finite values are ignored).
    pub fn add(&mut self, x: f64, y: f64) {
        if x.is_finite() && y.is_finite() {
            self.min = [self.min[0].min(x), self.min[1].min(y)];
            self.max = [self.max[0].max(x), self.max[1].max(y)];
        }
    }

    /// Whether no point was added.
    pub fn is_empty(&self) -> bool {
        self.min[0] > self.max[0]
    }

    /// `(min x, min y, max x, max y)`, or `None` when empty.
    pub fn corners(&self) -> Option<[f64; 4]> {
        (!self.is_empty()).then_some([self.min[0], self.min[1], self.max[0], self.max[1]])
    }
}

/// The union of the sidewalk and crosswalk surfaces of every street block in `products`, or
/// `None` when there is none.
pub fn walkways_of<'a>(products: impl IntoIterator<Item = &'a Product>) -> Option<MultiPolygon> {
    let mut union: Option<MultiPolygon> = None;
    for product in products {
        let Product::StreetBlock(block) = product else {
            continue;
        };
        for surface in &block.surfaces {
            if !matches!(surface.kind, SurfaceKind::Sidewalk | SurfaceKind::Crosswalk) {
                continue;
            }
            let ring: Vec<(f64, f64)> = surface.outline.iter().map(|p| (p.x, p.y)).collect();
            let polygon = MultiPolygon::new(vec![Polygon::new(ring.into(), Vec::new())]);
            union = Some(match union {
                Some(union) => union.union(&polygon),
                None => polygon,
            });
        }
    }
    union
}

/// The walkable area written into a trajectory file.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkableArea {
    /// The area as a WKT `POLYGON`, meters.
    pub wkt: String,
    /// `(min x, min y, max x, max y)` of the area.
    pub bounds: [f64; 4],
    /// Where it came from: `content` (the walkways) or `bounding-box`.
    pub from: &'static str,
}

impl WalkableArea {
    /// The walkways when they are one polygon, else the bounding box of the walkways and the
    /// recorded positions `rows` (grown by [`BOUNDING_MARGIN_M`]; a unit square around the
    /// origin when there is nothing to bound).
    pub fn resolve(walkways: Option<&MultiPolygon>, rows: &Bounds) -> WalkableArea {
        if let Some([polygon]) = walkways.map(|w| w.0.as_slice()) {
            if let Some(rect) = polygon.bounding_rect() {
                return WalkableArea {
                    wkt: polygon_wkt(polygon),
                    bounds: [rect.min().x, rect.min().y, rect.max().x, rect.max().y],
                    from: "content",
                };
            }
        }
        let mut bounds = *rows;
        if let Some(rect) = walkways.and_then(|w| w.bounding_rect()) {
            bounds.add(rect.min().x, rect.min().y);
            bounds.add(rect.max().x, rect.max().y);
        }
        let [x0, y0, x1, y1] = bounds.corners().unwrap_or([0.0; 4]);
        let m = BOUNDING_MARGIN_M;
        let (x0, y0, x1, y1) = (x0 - m, y0 - m, x1 + m, y1 + m);
        let ring = vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)];
        WalkableArea {
            wkt: polygon_wkt(&Polygon::new(ring.into(), Vec::new())),
            bounds: [x0, y0, x1, y1],
            from: "bounding-box",
        }
    }

    /// A stable 64-bit key of the WKT (JuPedSim's `geometry.hash` column): its BLAKE3 digest's
    /// first eight bytes, little-endian.
    pub fn hash(&self) -> i64 {
        let digest = blake3::hash(self.wkt.as_bytes());
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&digest.as_bytes()[..8]);
        i64::from_le_bytes(bytes)
    }
}

/// `polygon` as WKT: `POLYGON ((x y, …), (hole …))`, rings closed, shortest round-trip numbers.
pub fn polygon_wkt(polygon: &Polygon) -> String {
    let ring = |line: &geo::LineString| {
        let mut points: Vec<String> = line.0.iter().map(|c| format!("{} {}", c.x, c.y)).collect();
        if !line.is_closed() {
            if let Some(first) = points.first().cloned() {
                points.push(first);
            }
        }
        format!("({})", points.join(", "))
    };
    let rings: Vec<String> = std::iter::once(polygon.exterior())
        .chain(polygon.interiors())
        .map(ring)
        .collect();
    format!("POLYGON ({})", rings.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> MultiPolygon {
        let ring = vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
        MultiPolygon::new(vec![Polygon::new(ring.into(), Vec::new())])
    }

    #[test]
    fn one_polygon_of_walkways_is_written_as_it_is() {
        // Two sidewalks joined by a crosswalk: one polygon of 12 corners (13 with the closing).
        let walkways = rect(-10.0, 3.0, 10.0, 5.0)
            .union(&rect(-10.0, -5.0, 10.0, -3.0))
            .union(&rect(-1.0, -3.0, 1.0, 3.0));
        let area = WalkableArea::resolve(Some(&walkways), &Bounds::default());
        assert_eq!(area.from, "content");
        assert_eq!(area.bounds, [-10.0, -5.0, 10.0, 5.0]);
        assert!(area.wkt.starts_with("POLYGON (("), "{}", area.wkt);
        assert_eq!(area.wkt.matches(',').count(), 12, "{}", area.wkt);
    }

    #[test]
    fn separate_walkways_give_the_bounding_box_of_walkways_and_rows() {
        let walkways = rect(-10.0, 3.0, 10.0, 5.0).union(&rect(-10.0, -5.0, 10.0, -3.0));
        let mut rows = Bounds::default();
        rows.add(12.0, 0.5);
        let area = WalkableArea::resolve(Some(&walkways), &rows);
        assert_eq!(area.from, "bounding-box");
        assert_eq!(area.bounds, [-11.0, -6.0, 13.0, 6.0]);
        assert_eq!(area.wkt, "POLYGON ((-11 -6, 13 -6, 13 6, -11 6, -11 -6))");
    }

    #[test]
    fn no_walkways_and_no_rows_give_a_unit_box_and_a_stable_hash() {
        let area = WalkableArea::resolve(None, &Bounds::default());
        assert_eq!(area.wkt, "POLYGON ((-1 -1, 1 -1, 1 1, -1 1, -1 -1))");
        assert_eq!(
            area.hash(),
            WalkableArea::resolve(None, &Bounds::default()).hash()
        );
    }
}
