//! The steering fan: candidate directions 0°, ±25°, ±50°, ±75°, ±90° around the desired
//! direction, scored by their dot product with it plus a 0.03 preference for positive
//! (counter-clockwise, leftward) angles that breaks symmetric opposing choices. The score of a
//! candidate depends on its angle only, so the candidates are tried best first and the first
//! safe one is the choice; the preference never makes an unsafe candidate admissible.

use crate::project::Vec2;

/// The fan's angles, degrees (positive = counter-clockwise seen from above).
pub const FAN_ANGLES_DEG: [i8; 9] = [0, 25, -25, 50, -50, 75, -75, 90, -90];
/// Score added to a candidate with a positive angle.
pub const POSITIVE_ANGLE_PREFERENCE: f64 = 0.03;

/// One candidate direction: its angle and the rotation that turns the desired direction into it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FanCandidate {
    /// Angle from the desired direction, degrees.
    pub angle_deg: i8,
    /// cos of the angle.
    pub cos: f64,
    /// sin of the angle.
    pub sin: f64,
    /// `dot(candidate, desired) + preference`.
    pub score: f64,
}

impl FanCandidate {
    /// The candidate direction for unit `desired`.
    pub fn direction(&self, desired: Vec2) -> Vec2 {
        Vec2 {
            x: desired.x * self.cos - desired.y * self.sin,
            y: desired.x * self.sin + desired.y * self.cos,
        }
    }
}

/// The fan's candidates, best score first (computed once per Motion phase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fan {
    /// Candidates in descending score (ties: the smaller angle first, never hit by this fan).
    pub candidates: [FanCandidate; 9],
}

impl Default for Fan {
    fn default() -> Fan {
        let mut candidates = FAN_ANGLES_DEG.map(|angle_deg| {
            let radians = f64::from(angle_deg).to_radians();
            let (sin, cos) = radians.sin_cos();
            FanCandidate {
                angle_deg,
                cos,
                sin,
                score: score(cos, angle_deg),
            }
        });
        candidates.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.angle_deg.cmp(&b.angle_deg))
        });
        Fan { candidates }
    }
}

/// `dot(candidate, desired) + 0.03` for positive angles: with unit vectors the dot product is
/// the cosine of the angle between them.
pub fn score(cos: f64, angle_deg: i8) -> f64 {
    cos + if angle_deg > 0 {
        POSITIVE_ANGLE_PREFERENCE
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_tried_by_score_with_the_positive_preference() {
        let fan = Fan::default();
        let order: Vec<i8> = fan.candidates.iter().map(|c| c.angle_deg).collect();
        assert_eq!(order, [0, 25, -25, 50, -50, 75, -75, 90, -90]);
        let scores: Vec<f64> = fan.candidates.iter().map(|c| c.score).collect();
        let expected = [
            1.0,
            25f64.to_radians().cos() + 0.03,
            25f64.to_radians().cos(),
            50f64.to_radians().cos() + 0.03,
            50f64.to_radians().cos(),
            75f64.to_radians().cos() + 0.03,
            75f64.to_radians().cos(),
            0.03,
            0.0,
        ];
        for (got, want) in scores.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        // +90° and −90° differ by exactly the preference.
        assert!((scores[7] - scores[8] - 0.03).abs() < 1e-12);
    }

    #[test]
    fn positive_angles_turn_counter_clockwise() {
        let fan = Fan::default();
        let east = Vec2 { x: 1.0, y: 0.0 };
        let left = fan.candidates[7].direction(east);
        assert_eq!(fan.candidates[7].angle_deg, 90);
        assert!(
            left.x.abs() < 1e-12 && (left.y - 1.0).abs() < 1e-12,
            "{left:?}"
        );
        let right25 = fan.candidates[2].direction(east);
        assert!(right25.y < 0.0 && (right25.x - 25f64.to_radians().cos()).abs() < 1e-12);
    }
}
