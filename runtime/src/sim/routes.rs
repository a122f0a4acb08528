//! Routes as the simulation walks them: polylines on the ground with cumulative lengths.

use thiserror::Error;

use crate::project::Vec2;

/// A walkable route: a polyline on the ground plane, in meters.
#[derive(Clone, Debug, PartialEq)]
pub struct SimRoute {
    /// The route's id in the pedestrian space (such as `sidewalk.north`).
    pub id: String,
    points: Vec<Vec2>,
    /// Distance from the first point to each point, meters.
    cumulative_m: Vec<f64>,
}

/// Why a polyline cannot be walked.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RouteError {
    /// Fewer than two points.
    #[error("route `{0}` has fewer than two points")]
    TooShort(String),
    /// A coordinate is NaN or infinite.
    #[error("route `{0}` has a non-finite point")]
    NonFinite(String),
    /// All points coincide.
    #[error("route `{0}` has zero length")]
    ZeroLength(String),
}

impl SimRoute {
    /// A route through `points`.
    pub fn new(id: impl Into<String>, points: Vec<Vec2>) -> Result<SimRoute, RouteError> {
        let id = id.into();
        if points.len() < 2 {
            return Err(RouteError::TooShort(id));
        }
        if points.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
            return Err(RouteError::NonFinite(id));
        }
        let mut cumulative_m = Vec::with_capacity(points.len());
        let mut total = 0.0;
        cumulative_m.push(0.0);
        for pair in points.windows(2) {
            total += (pair[1].x - pair[0].x).hypot(pair[1].y - pair[0].y);
            cumulative_m.push(total);
        }
        if total <= 0.0 {
            return Err(RouteError::ZeroLength(id));
        }
        Ok(SimRoute {
            id,
            points,
            cumulative_m,
        })
    }

    /// Total length, meters.
    pub fn length_m(&self) -> f64 {
        self.cumulative_m.last().copied().unwrap_or(0.0)
    }

    /// The polyline's points.
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The point at `distance_m` along the route (clamped to its ends) and the unit direction of
    /// the segment it lies on.
    pub fn sample(&self, distance_m: f64) -> (Vec2, Vec2) {
        let distance_m = distance_m.clamp(0.0, self.length_m());
        let segment = match self
            .cumulative_m
            .binary_search_by(|c| c.total_cmp(&distance_m))
        {
            Ok(index) => index.min(self.points.len() - 2),
            Err(index) => index.saturating_sub(1).min(self.points.len() - 2),
        };
        let (a, b) = (self.points[segment], self.points[segment + 1]);
        let length = self.cumulative_m[segment + 1] - self.cumulative_m[segment];
        let t = if length > 0.0 {
            (distance_m - self.cumulative_m[segment]) / length
        } else {
            0.0
        };
        let direction = if length > 0.0 {
            Vec2 {
                x: (b.x - a.x) / length,
                y: (b.y - a.y) / length,
            }
        } else {
            Vec2 { x: 1.0, y: 0.0 }
        };
        (
            Vec2 {
                x: a.x + (b.x - a.x) * t,
                y: a.y + (b.y - a.y) * t,
            },
            direction,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_along_an_l_shaped_route() {
        let route = SimRoute::new(
            "l",
            vec![
                Vec2 { x: 0.0, y: 0.0 },
                Vec2 { x: 4.0, y: 0.0 },
                Vec2 { x: 4.0, y: 3.0 },
            ],
        )
        .expect("valid");
        assert_eq!(route.length_m(), 7.0);
        assert_eq!(
            route.sample(2.0),
            (Vec2 { x: 2.0, y: 0.0 }, Vec2 { x: 1.0, y: 0.0 })
        );
        assert_eq!(
            route.sample(5.5),
            (Vec2 { x: 4.0, y: 1.5 }, Vec2 { x: 0.0, y: 1.0 })
        );
        assert_eq!(route.sample(99.0).0, Vec2 { x: 4.0, y: 3.0 });
        assert_eq!(route.sample(-1.0).0, Vec2 { x: 0.0, y: 0.0 });
    }

    #[test]
    fn rejects_degenerate_routes() {
        assert_eq!(
            SimRoute::new("a", vec![Vec2::default()]),
            Err(RouteError::TooShort("a".into()))
        );
        assert_eq!(
            SimRoute::new("b", vec![Vec2::default(), Vec2::default()]),
            Err(RouteError::ZeroLength("b".into()))
        );
    }
}
