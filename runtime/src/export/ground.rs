//! What an exported instance stands on: the paved surfaces of its recipe's street blocks at their
//! heights (road 0 m, crosswalk 0.01 m painted just above it, the raised sidewalk's top 0.15 m —
//! the viewport's heights, `editor::viewport::build`), or the ground at 0 m outside every surface.
//!
//! An instance stands on the highest surface whose outline holds its position, edges included
//! (a prop on the kerb line stands on the sidewalk, not beside it). Instances of one recipe stand
//! only on that recipe's surfaces: recipes are separate content instances.
//!
//! The test is a crossing-number point-in-polygon with an explicit on-edge check — a dozen lines
//! over the outlines the street block publishes (counter-clockwise, without repeating the first
//! point), not worth a geometry crate in the runtime.

use std::collections::BTreeMap;

use crate::content::{BoundsM, PointM, Product, SurfaceKind};

use super::scene::StageProduct;

/// The top of a paved surface of `kind` above the ground, metres.
pub const fn surface_top_m(kind: SurfaceKind) -> f64 {
    match kind {
        SurfaceKind::Road => 0.0,
        SurfaceKind::Sidewalk => 0.15,
        SurfaceKind::Crosswalk => 0.01,
    }
}

/// One paved surface: its outline, the outline's bounds and its top.
#[derive(Debug, Clone, PartialEq)]
struct Surface {
    outline: Vec<PointM>,
    bounds: BoundsM,
    top_m: f64,
}

/// The paved surfaces of a bundle's street blocks, per recipe.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ground {
    by_recipe: BTreeMap<String, Vec<Surface>>,
}

impl Ground {
    /// The surfaces of every street block among `products`.
    pub fn of_products(products: &[StageProduct<'_>]) -> Ground {
        let mut by_recipe: BTreeMap<String, Vec<Surface>> = BTreeMap::new();
        for p in products {
            let Product::StreetBlock(block) = p.product else {
                continue;
            };
            let surfaces = by_recipe.entry(p.recipe.to_owned()).or_default();
            for s in &block.surfaces {
                let Some(bounds) = BoundsM::of_points(s.outline.iter().copied()) else {
                    continue;
                };
                if s.outline.len() >= 3 {
                    surfaces.push(Surface {
                        outline: s.outline.clone(),
                        bounds,
                        top_m: surface_top_m(s.kind),
                    });
                }
            }
        }
        Ground { by_recipe }
    }

    /// The height an instance of `recipe` at `(x_m, y_m)` stands at, metres: the top of the
    /// highest of the recipe's surfaces holding the point, or 0 (the ground).
    pub fn height_m(&self, recipe: &str, x_m: f64, y_m: f64) -> f64 {
        let Some(surfaces) = self.by_recipe.get(recipe) else {
            return 0.0;
        };
        let at = PointM::new(x_m, y_m);
        surfaces
            .iter()
            .filter(|s| s.bounds.holds(at) && holds(&s.outline, at))
            .map(|s| s.top_m)
            .fold(0.0, f64::max)
    }
}

/// Whether the closed polygon `outline` holds `at`, its edges included.
fn holds(outline: &[PointM], at: PointM) -> bool {
    let mut inside = false;
    for (i, a) in outline.iter().enumerate() {
        let b = outline[(i + 1) % outline.len()];
        if on_segment(*a, b, at) {
            return true;
        }
        // Crossing number: does the edge cross the horizontal ray from `at` towards +x?
        if (a.y > at.y) != (b.y > at.y) {
            let x = a.x + (at.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if at.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Whether `at` lies on the segment `a`–`b` (within a micrometre).
fn on_segment(a: PointM, b: PointM, at: PointM) -> bool {
    const EPS_M: f64 = 1e-6;
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let length = dx.hypot(dy);
    if length == 0.0 {
        return a.distance(at) <= EPS_M;
    }
    let cross = (at.x - a.x) * dy - (at.y - a.y) * dx;
    let along = (at.x - a.x) * dx + (at.y - a.y) * dy;
    (cross / length).abs() <= EPS_M
        && along >= -EPS_M * length
        && along <= length * length + EPS_M * length
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::RectM;

    fn square(min: (f64, f64), max: (f64, f64)) -> Vec<PointM> {
        RectM::new(min.0, min.1, max.0, max.1).corners().to_vec()
    }

    #[test]
    fn points_inside_on_edges_and_outside() {
        let outline = square((0.0, 0.0), (4.0, 2.0));
        assert!(holds(&outline, PointM::new(1.0, 1.0)));
        assert!(holds(&outline, PointM::new(4.0, 1.0)), "on the east edge");
        assert!(holds(&outline, PointM::new(0.0, 0.0)), "on a corner");
        assert!(!holds(&outline, PointM::new(4.01, 1.0)));
        assert!(!holds(&outline, PointM::new(-1.0, 1.0)));
        // A concave outline (an L): the notch is outside.
        let l = [
            (0.0, 0.0),
            (4.0, 0.0),
            (4.0, 1.0),
            (1.0, 1.0),
            (1.0, 3.0),
            (0.0, 3.0),
        ]
        .map(|(x, y)| PointM::new(x, y));
        assert!(holds(&l, PointM::new(0.5, 2.5)));
        assert!(!holds(&l, PointM::new(3.0, 2.0)));
    }

    #[test]
    fn an_instance_stands_on_the_highest_surface_of_its_recipe() {
        let surface = |kind, min, max| {
            let outline = square(min, max);
            let bounds = BoundsM::of_points(outline.iter().copied()).expect("bounds");
            Surface {
                outline,
                bounds,
                top_m: surface_top_m(kind),
            }
        };
        let street = vec![
            surface(SurfaceKind::Road, (0.0, -3.5), (80.0, 3.5)),
            surface(SurfaceKind::Sidewalk, (0.0, -7.5), (80.0, -3.5)),
            surface(SurfaceKind::Crosswalk, (38.0, -3.5), (42.0, 3.5)),
        ];
        let ground = Ground {
            by_recipe: BTreeMap::from([("street".to_owned(), street)]),
        };
        assert_eq!(
            ground.height_m("street", 10.0, -5.0),
            0.15,
            "on the sidewalk"
        );
        assert_eq!(
            ground.height_m("street", 10.0, -3.5),
            0.15,
            "on the kerb line"
        );
        assert_eq!(ground.height_m("street", 10.0, 0.0), 0.0, "on the road");
        assert_eq!(
            ground.height_m("street", 40.0, 0.0),
            0.01,
            "on the crosswalk"
        );
        assert_eq!(
            ground.height_m("street", 10.0, -9.0),
            0.0,
            "beyond the block"
        );
        assert_eq!(
            ground.height_m("other", 10.0, -5.0),
            0.0,
            "another recipe's surfaces"
        );
    }
}
