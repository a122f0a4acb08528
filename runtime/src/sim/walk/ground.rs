//! The walkway check of a walking step: a candidate must stay inside its route corridor on its
//! connection's walkway, the body inside its width. The scene's static obstacles are tested
//! through the props index `sim::obstacles::blockers` (owned by the obstacle set).

use super::body::BODY_RADIUS_M;
use super::progress::Connection;
use super::ROUTE_CORRIDOR_M;
use crate::project::Vec2;

/// How far from its connection's line a walker may stand on a walkway `width_m` wide, meters:
/// the route corridor ([`ROUTE_CORRIDOR_M`]), or less where the body would leave the walkway
/// (its offset plus the body radius within half the width).
#[inline]
pub fn lateral_limit_m(width_m: f64) -> f64 {
    (width_m / 2.0 - BODY_RADIUS_M).clamp(0.0, ROUTE_CORRIDOR_M)
}

/// Whether `endpoint` keeps the body inside its route corridor on the walkway of `connection`
/// (`width_m` wide): its lateral offset from the connection's line — the walker's own path,
/// `own_m` to the left of its route's line — within [`ROUTE_CORRIDOR_M`], and its offset from
/// the route's line within half the width less the body radius. A walker already outside
/// either (placed there, or left beside a crossing's lane) may move back towards it. With its
/// own path on the route's line (`own_m` 0) this is the offset within [`lateral_limit_m`].
#[inline]
pub fn on_walkway(
    connection: &Connection,
    width_m: f64,
    own_m: f64,
    here: Vec2,
    endpoint: Vec2,
) -> bool {
    let walkway = (width_m / 2.0 - BODY_RADIUS_M).max(0.0);
    let (end, now) = (connection.lateral_m(endpoint), connection.lateral_m(here));
    let (end_route, now_route) = ((end + own_m).abs(), (now + own_m).abs());
    end_route <= walkway.max(now_route) && end.abs() <= ROUTE_CORRIDOR_M.max(now.abs())
}
