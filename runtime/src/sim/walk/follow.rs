//! Same-direction following: a neighbour heading the same way is split into Ahead and Side
//! components relative to the route; within the body's lateral width, circular geometry gives
//! the longitudinal clearance `√(D² − side²)` (D = 0.63 m), and a step-distance margin accounts
//! for bodies that commit later in this step's order. What remains bounds the physical step;
//! none left means the walker keeps its position with a zero route budget.

use super::body::SAFETY_DIAMETER_M;
use crate::project::Vec2;

/// A neighbour heads "the same way" when its facing is within 45° of the walker's route axis.
pub const SAME_DIRECTION_COS: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// A neighbour relative to the walker's route axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Relative {
    /// Distance ahead along the axis, meters (negative behind).
    pub ahead_m: f64,
    /// Signed distance to the left of the axis, meters.
    pub side_m: f64,
}

impl Relative {
    /// `other` relative to a walker at `here` on `axis` (unit).
    pub fn of(here: Vec2, axis: Vec2, other: Vec2) -> Relative {
        let (dx, dy) = (other.x - here.x, other.y - here.y);
        Relative {
            ahead_m: dx * axis.x + dy * axis.y,
            side_m: axis.x * dy - axis.y * dx,
        }
    }
}

/// Whether a neighbour facing `facing` heads the same way as a walker on `axis`.
pub fn same_direction(facing: Vec2, axis: Vec2) -> bool {
    facing.x * axis.x + facing.y * axis.y >= SAME_DIRECTION_COS
}

/// The longitudinal gap two bodies `side_m` apart sideways need, meters; `None` when they pass
/// beside each other (`|side| ≥ D`).
pub fn longitudinal_clearance_m(side_m: f64) -> Option<f64> {
    let d = SAFETY_DIAMETER_M;
    (side_m.abs() < d).then(|| (d * d - side_m * side_m).sqrt())
}

/// The physical distance a walker may still go this step behind `leader` (ahead, same way):
/// `ahead − clearance − margin`, never negative; `None` when the leader does not constrain it
/// (behind, or beside beyond the lateral width).
pub fn room_behind_m(leader: Relative, margin_m: f64) -> Option<f64> {
    if leader.ahead_m <= 0.0 {
        return None;
    }
    let clearance = longitudinal_clearance_m(leader.side_m)?;
    Some((leader.ahead_m - clearance - margin_m).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leader_in_line_keeps_the_safety_diameter_plus_the_step_margin() {
        // Directly ahead 1.0 m, margin 0.07 m: room 1.0 − 0.63 − 0.07 = 0.30 m.
        let room = room_behind_m(
            Relative {
                ahead_m: 1.0,
                side_m: 0.0,
            },
            0.07,
        );
        assert!((room.expect("constrains") - 0.30).abs() < 1e-12);
        // Offset 0.3 m: clearance √(0.63² − 0.3²) = 0.5540 m.
        let room = room_behind_m(
            Relative {
                ahead_m: 1.0,
                side_m: 0.3,
            },
            0.07,
        );
        let clearance = (0.63f64 * 0.63 - 0.09).sqrt();
        assert!((room.expect("constrains") - (1.0 - clearance - 0.07)).abs() < 1e-12);
        // Too close: no room (never negative).
        let close = Relative {
            ahead_m: 0.65,
            side_m: 0.0,
        };
        assert_eq!(room_behind_m(close, 0.07), Some(0.0));
        // Beside beyond the lateral width, or behind: not a leader.
        let beside = Relative {
            ahead_m: 0.5,
            side_m: 0.63,
        };
        assert_eq!(room_behind_m(beside, 0.07), None);
        let behind = Relative {
            ahead_m: -0.5,
            side_m: 0.0,
        };
        assert_eq!(room_behind_m(behind, 0.07), None);
    }

    #[test]
    fn relative_components_and_heading() {
        let axis = Vec2 { x: 0.0, y: 1.0 };
        let r = Relative::of(Vec2 { x: 1.0, y: 1.0 }, axis, Vec2 { x: 0.0, y: 3.0 });
        assert_eq!((r.ahead_m, r.side_m), (2.0, 1.0));
        assert!(same_direction(Vec2 { x: 0.0, y: 1.0 }, axis));
        assert!(!same_direction(Vec2 { x: 1.0, y: 0.0 }, axis));
        assert!(!same_direction(Vec2 { x: 0.0, y: -1.0 }, axis));
    }
}
