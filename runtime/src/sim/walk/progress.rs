//! Route progress as the longitudinal projection of accepted displacement (the specification's
//! straight Sidewalk adapter): a walker's connection from S to G, the cost ↔ distance conversion of
//! its step budget, the progress an accepted position earns, the bounds a candidate endpoint must
//! respect, and completion, which needs proximity to the goal.

use crate::project::Vec2;
use crate::sim::routes::RoutePath;
use crate::sim::state::CandidateRejection;

/// A walker counts as at its goal within this horizontal distance, meters; it is also the
/// most lateral distance from the goal a step may end at inside the longitudinal end band.
pub const GOAL_TOLERANCE_M: f64 = 0.25;
/// Below this connection length or cost the conversion is refused (no division by ~0).
pub const MIN_CONNECTION: f64 = 1e-9;
/// Slack of the longitudinal bounds (reverse projection, beyond the end), meters.
pub const ALONG_SLACK_M: f64 = 1e-9;

/// The straight connection a walker is on, oriented in its walking direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Connection {
    /// S: where the connection starts (in walking direction).
    pub start: Vec2,
    /// G: its goal.
    pub goal: Vec2,
    /// a: unit direction from S to G.
    pub axis: Vec2,
    /// L: horizontal length S → G, meters.
    pub length_m: f64,
    /// C: cost of the whole connection (route units).
    pub cost: f64,
    /// Route distance at S, meters.
    pub start_distance_m: f64,
    /// +1 when route distance grows along the walk, −1 when it shrinks.
    pub direction: i8,
    /// Whether G ends the route (the walker turns back there) rather than a corner.
    pub ends_route: bool,
}

impl Connection {
    /// The connection of `route` a walker at route distance `distance_m` heading `direction`
    /// is on (the one it arrives by at a corner), with cost equal to length; `None` for a
    /// degenerate one.
    #[inline]
    pub fn of(route: RoutePath<'_>, distance_m: f64, direction: i8) -> Option<Connection> {
        let index = route.connection_at(distance_m, direction);
        Connection::numbered(route, index, direction)
    }

    /// Connection `index` of `route`, oriented by `direction`.
    #[inline]
    pub fn numbered(route: RoutePath<'_>, index: usize, direction: i8) -> Option<Connection> {
        let c = route.connection(index);
        if c.length_m <= MIN_CONNECTION {
            return None;
        }
        let forward = direction >= 0;
        let last = route.connection_count() - 1;
        let (start, goal, start_distance_m, axis, ends_route) = if forward {
            (c.start, c.end, c.start_m, c.axis, index == last)
        } else {
            let back = Vec2 {
                x: -c.axis.x,
                y: -c.axis.y,
            };
            (c.end, c.start, c.end_m, back, index == 0)
        };
        Some(Connection {
            start,
            goal,
            axis,
            length_m: c.length_m,
            cost: c.end_m - c.start_m,
            start_distance_m,
            direction: if forward { 1 } else { -1 },
            ends_route,
        })
    }

    /// The next connection along the walk after this one is completed (`None` at a route end).
    pub fn next(&self, route: RoutePath<'_>) -> Option<Connection> {
        if self.ends_route {
            return None;
        }
        let here = self.start_distance_m + f64::from(self.direction) * self.cost;
        let index = route.connection_at(here, -self.direction);
        Connection::numbered(route, index, self.direction)
    }

    /// `alongNext = dot(P − S, a)`, meters.
    #[inline]
    pub fn along_m(&self, p: Vec2) -> f64 {
        (p.x - self.start.x) * self.axis.x + (p.y - self.start.y) * self.axis.y
    }

    /// Signed lateral offset of `p` from the line S → G (positive to the left), meters.
    #[inline]
    pub fn lateral_m(&self, p: Vec2) -> f64 {
        self.axis.x * (p.y - self.start.y) - self.axis.y * (p.x - self.start.x)
    }

    /// Progress (cost units) already made on this connection by a walker at route distance
    /// `distance_m`.
    #[inline]
    pub fn previous_progress(&self, distance_m: f64) -> f64 {
        ((distance_m - self.start_distance_m) * f64::from(self.direction)).clamp(0.0, self.cost)
    }

    /// The route distance after `progress` cost units on this connection.
    #[inline]
    pub fn distance_at(&self, progress: f64) -> f64 {
        self.start_distance_m + f64::from(self.direction) * progress.clamp(0.0, self.cost)
    }

    /// `requestedStep = max(B, 0) × L / C`: the physical distance a cost budget buys, meters
    /// (0 for a near-zero cost or length, which this conversion refuses).
    #[inline]
    pub fn requested_step_m(&self, budget: f64) -> f64 {
        if self.cost <= MIN_CONNECTION || self.length_m <= MIN_CONNECTION {
            return 0.0;
        }
        budget.max(0.0) * self.length_m / self.cost
    }

    /// `acceptedCost = clamp(alongNew / L × C − previousProgress, 0, B)`.
    #[inline]
    pub fn accepted_cost(&self, accepted: Vec2, previous_progress: f64, budget: f64) -> f64 {
        if self.cost <= MIN_CONNECTION || self.length_m <= MIN_CONNECTION {
            return 0.0;
        }
        let projected = self.along_m(accepted) / self.length_m * self.cost;
        (projected - previous_progress).clamp(0.0, budget.max(0.0))
    }

    /// Whether a walker at `position` with `previous_progress` has completed the connection:
    /// all of its cost is consumed and it stands within [`GOAL_TOLERANCE_M`] of G. Crossing
    /// G's longitudinal plane while offset sideways is not arrival.
    #[inline]
    pub fn completed(&self, position: Vec2, previous_progress: f64) -> bool {
        let at_end = previous_progress >= self.cost - MIN_CONNECTION;
        at_end && distance(position, self.goal) <= GOAL_TOLERANCE_M
    }

    /// The longitudinal bounds of a step from `here` to `endpoint`: it may not move backward
    /// along the connection, pass its end, or end inside the end band (the last
    /// [`GOAL_TOLERANCE_M`] before G) farther than that from G sideways — unless it comes
    /// closer sideways than it was.
    #[inline]
    pub fn check_endpoint(&self, here: Vec2, endpoint: Vec2) -> Result<(), CandidateRejection> {
        let along = self.along_m(endpoint);
        if along < self.along_m(here) - ALONG_SLACK_M {
            return Err(CandidateRejection::ReverseProjection);
        }
        if along > self.length_m + ALONG_SLACK_M {
            return Err(CandidateRejection::BeyondEnd);
        }
        // A body already inside the band too far sideways (pushed there) may still close in on
        // the goal's line; otherwise it could never complete the connection.
        let lateral_m = self.lateral_m(endpoint).abs();
        if along > self.length_m - GOAL_TOLERANCE_M
            && lateral_m > GOAL_TOLERANCE_M
            && lateral_m >= self.lateral_m(here).abs() - ALONG_SLACK_M
        {
            return Err(CandidateRejection::FarFromGoal);
        }
        Ok(())
    }
}

/// Horizontal distance, meters.
#[inline]
pub fn distance(a: Vec2, b: Vec2) -> f64 {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2 { x, y }
    }

    /// A connection of length 10 m and cost 20 (cost ≠ length, as the specification allows).
    fn costly() -> Connection {
        Connection {
            start: v(0.0, 0.0),
            goal: v(10.0, 0.0),
            axis: v(1.0, 0.0),
            length_m: 10.0,
            cost: 20.0,
            start_distance_m: 0.0,
            direction: 1,
            ends_route: true,
        }
    }

    #[test]
    fn progress_is_the_longitudinal_projection_never_the_detour() {
        let c = costly();
        // Budget 2 cost units buys 1 m of physical step.
        assert_eq!(c.requested_step_m(2.0), 1.0);
        assert_eq!(c.requested_step_m(-3.0), 0.0);
        // Straight 1 m from along 4 m (progress 8): +2 cost.
        assert_eq!(c.accepted_cost(v(5.0, 0.0), 8.0, 2.0), 2.0);
        // A diagonal 1 m step at 60° advances 0.5 m: 1 cost unit, never the 2 of its length.
        let diagonal = v(4.0 + 0.5, 3.0_f64.sqrt() / 2.0);
        assert!((c.accepted_cost(diagonal, 8.0, 2.0) - 1.0).abs() < 1e-12);
        // A pure sidestep earns nothing; a step back earns nothing (clamped at 0).
        assert_eq!(c.accepted_cost(v(4.0, 1.0), 8.0, 2.0), 0.0);
        assert_eq!(c.accepted_cost(v(3.0, 0.0), 8.0, 2.0), 0.0);
        // Never more than the budget, even if the position is far ahead.
        assert_eq!(c.accepted_cost(v(9.0, 0.0), 8.0, 2.0), 2.0);
        // Degenerate connections refuse the conversion instead of dividing by ~0.
        let zero = Connection {
            cost: 0.0,
            ..costly()
        };
        assert_eq!(zero.requested_step_m(2.0), 0.0);
        assert_eq!(zero.accepted_cost(v(5.0, 0.0), 0.0, 2.0), 0.0);
    }

    #[test]
    fn completion_needs_proximity_to_the_goal_not_just_its_plane() {
        let c = costly();
        assert!(c.completed(v(10.0, 0.2), 20.0));
        assert!(!c.completed(v(10.0, 0.3), 20.0), "beside the goal");
        assert!(!c.completed(v(10.0, 0.0), 19.0), "cost not consumed");
        // Steps: inside the end band sideways offset above the tolerance is refused.
        assert_eq!(
            c.check_endpoint(v(9.5, 0.4), v(9.9, 0.4)),
            Err(CandidateRejection::FarFromGoal)
        );
        assert_eq!(c.check_endpoint(v(9.5, 0.2), v(9.9, 0.2)), Ok(()));
        // Out of the band the same offset is fine.
        assert_eq!(c.check_endpoint(v(5.0, 0.4), v(5.5, 0.4)), Ok(()));
        assert_eq!(
            c.check_endpoint(v(9.9, 0.0), v(10.1, 0.0)),
            Err(CandidateRejection::BeyondEnd)
        );
        assert_eq!(
            c.check_endpoint(v(5.0, 0.0), v(4.9, 0.5)),
            Err(CandidateRejection::ReverseProjection)
        );
    }

    #[test]
    fn connections_follow_the_walking_direction_and_corners() {
        let route = crate::sim::SimRoute::new("l", vec![v(0.0, 0.0), v(4.0, 0.0), v(4.0, 3.0)])
            .expect("ok");
        let forward = Connection::of(route.path(), 1.0, 1).expect("connection");
        assert_eq!((forward.goal, forward.ends_route), (v(4.0, 0.0), false));
        assert_eq!(forward.previous_progress(1.0), 1.0);
        let next = forward.next(route.path()).expect("corner");
        assert_eq!(
            (next.start, next.goal, next.ends_route),
            (v(4.0, 0.0), v(4.0, 3.0), true)
        );
        assert_eq!(next.previous_progress(4.0), 0.0);
        let back = Connection::of(route.path(), 6.0, -1).expect("connection");
        assert_eq!(
            (back.start, back.goal, back.axis),
            (v(4.0, 3.0), v(4.0, 0.0), v(0.0, -1.0))
        );
        assert_eq!(back.previous_progress(6.0), 1.0);
        assert_eq!(back.distance_at(2.5), 4.5);
        assert_eq!(back.next(route.path()).map(|c| c.goal), Some(v(0.0, 0.0)));
    }
}
