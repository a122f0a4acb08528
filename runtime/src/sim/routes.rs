//! Routes as the simulation walks them: polylines on the ground with cumulative lengths, a
//! walkway width, and their straight connections (maximal runs of collinear segments, between
//! the route's corners). Every route's points also lie in one flat array (`RouteTable`), where
//! each agent finds its route's span by the offset and length its columns hold; walkers follow
//! their route through that span (`RoutePath`), the same code a `SimRoute` answers with.

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
    /// Width of the walkway around the polyline, meters.
    width_m: f64,
    /// The points with their route distances and corner marks (the first point, every change
    /// of direction and the last point are corners; the straight connections run between them).
    route_points: Vec<RoutePoint>,
    /// The straight connections between consecutive corners, in route order.
    connections: Vec<RouteConnection>,
}

/// One point of a route as walkers follow it (in a route's own list and in the flat
/// [`RouteTable`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoutePoint {
    /// The point, meters.
    pub at: Vec2,
    /// Distance along the route from its first point, meters.
    pub distance_m: f64,
    /// Whether a straight connection starts or ends here (the first point, a change of
    /// direction, the last point).
    pub corner: bool,
}

/// Where one route's points lie in the flat [`RouteTable`]: `len` points from `offset`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteSpan {
    /// Index of the route's first point in the table.
    pub offset: u32,
    /// Number of points.
    pub len: u32,
}

/// Every route's points in one flat array, route after route, with each route's span.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RouteTable {
    points: Vec<RoutePoint>,
    spans: Vec<RouteSpan>,
    /// Every route's straight connections, route after route (`leg_spans` says where).
    legs: Vec<RouteConnection>,
    leg_spans: Vec<RouteSpan>,
}

impl RouteTable {
    /// The table of `routes`, in their order (a span that would not fit `u32` is left empty).
    pub fn new(routes: &[SimRoute]) -> RouteTable {
        let mut table = RouteTable::default();
        for route in routes {
            let span = match (
                u32::try_from(table.points.len()),
                u32::try_from(route.route_points.len()),
            ) {
                (Ok(offset), Ok(len)) if offset.checked_add(len).is_some() => {
                    table.points.extend_from_slice(&route.route_points);
                    RouteSpan { offset, len }
                }
                _ => RouteSpan::default(),
            };
            table.spans.push(span);
            let legs = RouteSpan {
                offset: u32::try_from(table.legs.len()).unwrap_or(u32::MAX),
                len: u32::try_from(route.connections.len()).unwrap_or(0),
            };
            table.legs.extend_from_slice(&route.connections);
            table.leg_spans.push(legs);
        }
        table
    }

    /// The span of route `route` (an index in the space's route order).
    pub fn span(&self, route: u16) -> Option<RouteSpan> {
        self.spans.get(usize::from(route)).copied()
    }

    /// Every route's points, route after route.
    pub fn points(&self) -> &[RoutePoint] {
        &self.points
    }

    /// The route whose points `span` addresses, to follow (its points and its connections);
    /// `None` unless `span` is exactly one route's span.
    #[inline]
    pub fn path(&self, span: RouteSpan) -> Option<RoutePath<'_>> {
        // Spans ascend by offset, route after route; a route of no points has an empty one.
        let route = self
            .spans
            .partition_point(|s| s.offset < span.offset || (s.offset == span.offset && s.len == 0));
        self.path_at(route, span)
    }

    /// [`RouteTable::path`] where the span is most likely route `route`'s (a walker's own
    /// route): that route is checked first and the search runs only when it is not the span's.
    /// A span of two points or more is exactly one route's, so the answer is the same.
    #[inline]
    pub fn path_of(&self, route: u16, span: RouteSpan) -> Option<RoutePath<'_>> {
        let route = usize::from(route);
        if span.len >= 2 && self.spans.get(route) == Some(&span) {
            self.path_at(route, span)
        } else {
            self.path(span)
        }
    }

    /// The path of route `route` when `span` is exactly its span.
    #[inline]
    fn path_at(&self, route: usize, span: RouteSpan) -> Option<RoutePath<'_>> {
        if self.spans.get(route) != Some(&span) || span.len < 2 {
            return None;
        }
        let legs = self.leg_spans.get(route)?;
        let start = span.offset as usize;
        let points = self.points.get(start..start + span.len as usize)?;
        let first = legs.offset as usize;
        let legs = self.legs.get(first..first + legs.len as usize)?;
        (!legs.is_empty()).then_some(RoutePath { points, legs })
    }

    /// Heap bytes of the table.
    pub fn heap_bytes(&self) -> usize {
        self.points.capacity() * std::mem::size_of::<RoutePoint>()
            + self.legs.capacity() * std::mem::size_of::<RouteConnection>()
            + (self.spans.capacity() + self.leg_spans.capacity()) * std::mem::size_of::<RouteSpan>()
    }
}

/// One route's points as a walker follows them, with its straight connections between corners.
#[derive(Clone, Copy, Debug)]
pub struct RoutePath<'a> {
    points: &'a [RoutePoint],
    legs: &'a [RouteConnection],
}

impl<'a> RoutePath<'a> {
    /// The route's points.
    pub fn points(&self) -> &'a [RoutePoint] {
        self.points
    }

    /// Number of straight connections (at least 1).
    #[inline]
    pub fn connection_count(&self) -> usize {
        self.legs.len()
    }

    /// Straight connection `index` (clamped to the last one).
    #[inline]
    pub fn connection(&self, index: usize) -> RouteConnection {
        self.legs[index.min(self.legs.len() - 1)]
    }

    /// The connection a walker at `distance_m` heading `direction` (+1 towards the end, −1
    /// towards the start) is on. At a corner it is the connection the walker arrives by, so a
    /// connection is left only once it is completed (see `sim::walk::progress`).
    #[inline]
    pub fn connection_at(&self, distance_m: f64, direction: i8) -> usize {
        let count = self.legs.len();
        if count == 1 {
            return 0;
        }
        if direction >= 0 {
            (0..count)
                .find(|j| self.legs[*j].end_m >= distance_m)
                .unwrap_or(count - 1)
        } else {
            (0..count)
                .rev()
                .find(|j| self.legs[*j].start_m <= distance_m)
                .unwrap_or(0)
        }
    }
}

/// Walkway width of a route whose content gives none, meters (the example street block's
/// walkway: a 4 m sidewalk less its 1.5 m furniture zone).
pub const DEFAULT_ROUTE_WIDTH_M: f64 = 2.5;

/// Segments whose unit directions differ by less than this (cross product) are one straight
/// connection.
const COLLINEAR_TOLERANCE: f64 = 1e-9;

impl RouteConnection {
    /// The straight connection from point `a` to point `b` of a route.
    #[inline]
    pub fn between(a: &RoutePoint, b: &RoutePoint) -> RouteConnection {
        let (start, end) = (a.at, b.at);
        let length_m = ((end.x - start.x).powi(2) + (end.y - start.y).powi(2)).sqrt();
        let axis = if length_m > 0.0 {
            Vec2 {
                x: (end.x - start.x) / length_m,
                y: (end.y - start.y) / length_m,
            }
        } else {
            Vec2 { x: 1.0, y: 0.0 }
        };
        RouteConnection {
            start,
            end,
            start_m: a.distance_m,
            end_m: b.distance_m,
            axis,
            length_m,
        }
    }
}

/// One straight connection of a route: from point `corners[j]` to point `corners[j + 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouteConnection {
    /// First point (in route order).
    pub start: Vec2,
    /// Last point (in route order).
    pub end: Vec2,
    /// Route distance at `start`, meters.
    pub start_m: f64,
    /// Route distance at `end`, meters.
    pub end_m: f64,
    /// Unit direction from `start` to `end` (x when they coincide).
    pub axis: Vec2,
    /// Horizontal distance from `start` to `end`, meters.
    pub length_m: f64,
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
        let mut route_points: Vec<RoutePoint> = points
            .iter()
            .zip(&cumulative_m)
            .map(|(at, distance_m)| RoutePoint {
                at: *at,
                distance_m: *distance_m,
                corner: false,
            })
            .collect();
        let corners = corners_of(&points);
        for corner in &corners {
            route_points[*corner as usize].corner = true;
        }
        let connections = corners
            .windows(2)
            .map(|pair| {
                let (a, b) = (pair[0] as usize, pair[1] as usize);
                RouteConnection::between(&route_points[a], &route_points[b])
            })
            .collect();
        Ok(SimRoute {
            id,
            points,
            cumulative_m,
            width_m: DEFAULT_ROUTE_WIDTH_M,
            route_points,
            connections,
        })
    }

    /// The same route with a walkway `width_m` wide (a non-finite or non-positive width keeps
    /// the current one).
    pub fn with_width_m(mut self, width_m: f64) -> SimRoute {
        if width_m.is_finite() && width_m > 0.0 {
            self.width_m = width_m;
        }
        self
    }

    /// Walkway width, meters.
    pub fn width_m(&self) -> f64 {
        self.width_m
    }

    /// The points as walkers follow them: route distances and corner marks.
    pub fn route_points(&self) -> &[RoutePoint] {
        &self.route_points
    }

    /// The route as a walker follows it (the same code as a span of the flat [`RouteTable`]).
    pub fn path(&self) -> RoutePath<'_> {
        // A route has at least two points and one connection (checked by `new`).
        RoutePath {
            points: &self.route_points,
            legs: &self.connections,
        }
    }

    /// Number of straight connections (at least 1).
    pub fn connection_count(&self) -> usize {
        self.path().connection_count()
    }

    /// Straight connection `index` (clamped to the last one).
    pub fn connection(&self, index: usize) -> RouteConnection {
        self.path().connection(index)
    }

    /// The connection a walker at `distance_m` heading `direction` is on
    /// ([`RoutePath::connection_at`]).
    pub fn connection_at(&self, distance_m: f64, direction: i8) -> usize {
        self.path().connection_at(distance_m, direction)
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

/// The first point, every point where the direction changes, the last point.
fn corners_of(points: &[Vec2]) -> Vec<u32> {
    let unit = |a: Vec2, b: Vec2| {
        let length = (b.x - a.x).hypot(b.y - a.y);
        (length > 0.0).then(|| ((b.x - a.x) / length, (b.y - a.y) / length))
    };
    let mut corners = vec![0];
    let mut previous: Option<(f64, f64)> = None;
    for (i, pair) in points.windows(2).enumerate() {
        let Some(direction) = unit(pair[0], pair[1]) else {
            continue;
        };
        if let Some(before) = previous {
            let cross = before.0 * direction.1 - before.1 * direction.0;
            let dot = before.0 * direction.0 + before.1 * direction.1;
            if cross.abs() > COLLINEAR_TOLERANCE || dot <= 0.0 {
                corners.push(i as u32);
            }
        }
        previous = Some(direction);
    }
    corners.push((points.len() - 1) as u32);
    corners
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
    fn collinear_segments_are_one_connection_and_corners_split_them() {
        let route = SimRoute::new(
            "l",
            vec![
                Vec2 { x: 0.0, y: 0.0 },
                Vec2 { x: 2.0, y: 0.0 },
                Vec2 { x: 4.0, y: 0.0 },
                Vec2 { x: 4.0, y: 3.0 },
            ],
        )
        .expect("valid");
        assert_eq!(route.connection_count(), 2);
        let first = route.connection(0);
        assert_eq!((first.start_m, first.end_m), (0.0, 4.0));
        assert_eq!(first.end, Vec2 { x: 4.0, y: 0.0 });
        // At the corner a walker is still on the connection it arrives by.
        assert_eq!(route.connection_at(4.0, 1), 0);
        assert_eq!(route.connection_at(4.0, -1), 1);
        assert_eq!(route.connection_at(5.0, 1), 1);
        assert_eq!(route.connection_at(3.0, -1), 0);
        assert_eq!(route.width_m(), DEFAULT_ROUTE_WIDTH_M);
        assert_eq!(route.clone().with_width_m(f64::NAN).width_m(), 2.5);
        assert_eq!(route.with_width_m(4.0).width_m(), 4.0);
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
