//! The predicted body-clearance test, in exactly the specification's order: relative start
//! `r0 = Ps − Po`, relative end `r1 = E − Po − vo × h`, the three-dimensional closest point of
//! segment `[r0, r1]` to the origin, then its horizontal length against `2 × bodyRadius +
//! padding`. A stationary or arrived neighbour (`vo = 0`) still occupies space.

pub use crate::sim::state::body::BODY_RADIUS_M;

/// Padding added to the two radii, meters.
pub const PADDING_M: f64 = 0.03;
/// `2 × bodyRadius + padding`: the safety-diameter term, meters (0.63).
pub const SAFETY_DIAMETER_M: f64 = 2.0 * BODY_RADIUS_M + PADDING_M;

/// A point or vector in 3-D, meters (z up).
pub type V3 = [f64; 3];

/// The closest point of segment `[r0, r1]` to the origin, in three dimensions.
#[inline]
pub fn closest_point_to_origin(r0: V3, r1: V3) -> V3 {
    let d = [r1[0] - r0[0], r1[1] - r0[1], r1[2] - r0[2]];
    let length_sq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let t = if length_sq > 0.0 {
        (-(r0[0] * d[0] + r0[1] * d[1] + r0[2] * d[2]) / length_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    [r0[0] + d[0] * t, r0[1] + d[1] * t, r0[2] + d[2] * t]
}

/// `lengthXY(closest)² ≥ (2 × bodyRadius + padding)²` for a walker going from `ps` to candidate
/// endpoint `e` while a neighbour at `po` moves with observed velocity `vo` for `horizon_s`.
#[inline]
pub fn clear(ps: V3, e: V3, po: V3, vo: V3, horizon_s: f64) -> bool {
    let r0 = [ps[0] - po[0], ps[1] - po[1], ps[2] - po[2]];
    let r1 = [
        e[0] - po[0] - vo[0] * horizon_s,
        e[1] - po[1] - vo[1] * horizon_s,
        e[2] - po[2] - vo[2] * horizon_s,
    ];
    let closest = closest_point_to_origin(r0, r1);
    closest[0] * closest[0] + closest[1] * closest[1] >= SAFETY_DIAMETER_M * SAFETY_DIAMETER_M
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_safety_diameter_is_63_cm() {
        assert!((SAFETY_DIAMETER_M - 0.63).abs() < 1e-15);
    }

    #[test]
    fn head_on_and_perpendicular_approaches_conflict_and_passing_wide_does_not() {
        let here = [0.0, 0.0, 0.0];
        let ahead = [1.0, 0.0, 0.0];
        // Oncoming at 2.5 m, 1.4 m/s, horizon 1.0 / 1.4 s: relative end 1 − 2.5 + 1 = −0.5.
        assert!(!clear(
            here,
            ahead,
            [2.5, 0.0, 0.0],
            [-1.4, 0.0, 0.0],
            1.0 / 1.4
        ));
        // The same neighbour 0.7 m to the side stays clear (0.7 ≥ 0.63).
        assert!(clear(
            here,
            ahead,
            [2.5, 0.7, 0.0],
            [-1.4, 0.0, 0.0],
            1.0 / 1.4
        ));
        // A perpendicular crosser reaching the path mid-way conflicts although it is not ahead.
        assert!(!clear(
            here,
            ahead,
            [0.5, -1.0, 0.0],
            [0.0, 1.4, 0.0],
            1.0 / 1.4
        ));
        // A stationary neighbour on the path occupies space; one 0.64 m beside it does not.
        assert!(!clear(here, ahead, [0.8, 0.0, 0.0], [0.0; 3], 0.7));
        assert!(clear(here, ahead, [0.5, 0.64, 0.0], [0.0; 3], 0.7));
    }

    #[test]
    fn the_closest_point_is_three_dimensional_before_the_horizontal_length() {
        // r0 = (−1, 0.62, 1), r1 = (1, 0.62, −1): the 3-D closest point is the midpoint
        // (0, 0.62, 0), horizontal length 0.62 < 0.63 → conflict. A purely horizontal
        // closest-point formula would give the same point here, so tilt the segment: with
        // r0 = (−1, 0.62, 3) and r1 = (1, 0.62, −1) the 3-D closest point lies at t = 0.7,
        // x = 0.4, horizontal length √(0.16 + 0.3844) = 0.7378 ≥ 0.63 → clear, while the 2-D
        // closest point (x = 0) would report a conflict.
        let closest = closest_point_to_origin([-1.0, 0.62, 3.0], [1.0, 0.62, -1.0]);
        assert!((closest[0] - 0.4).abs() < 1e-12, "{closest:?}");
        assert!((closest[2] - 0.2).abs() < 1e-12, "{closest:?}");
        let ps = [-1.0, 0.62, 3.0];
        let e = [1.0, 0.62, -1.0];
        assert!(clear(ps, e, [0.0; 3], [0.0; 3], 1.0));
        assert!(!clear(
            [-1.0, 0.62, 1.0],
            [1.0, 0.62, -1.0],
            [0.0; 3],
            [0.0; 3],
            1.0
        ));
        // A degenerate segment is its start.
        assert_eq!(
            closest_point_to_origin([0.3, 0.4, 0.0], [0.3, 0.4, 0.0]),
            [0.3, 0.4, 0.0]
        );
    }
}
