//! What the vehicle gate holds back: the specification's hazard vehicle (advances only while every
//! gate is open, wraps at x > 12 m to −12 m, safety radius 2.6 m) and the lane vehicles of the
//! street block, which stop at a closed crosswalk's stop line; and the conflict zone a vehicle must
//! have left before pedestrians may start.

use crate::project::Vec2;
use crate::sim::space::{SimCrosswalk, SimLane};
use crate::sim::{
    space::{lane_length_m, lane_point},
    state::Vehicles,
};

/// The hazard wraps once past this x, meters (specification: 1200 cm).
pub const HAZARD_WRAP_X_M: f64 = 12.0;
/// Safety radius of the hazard vehicle, meters (specification: 260 cm).
pub const HAZARD_SAFETY_RADIUS_M: f64 = 2.6;
/// A lane vehicle stops this far before the edge of a crossing's conflict zone, meters.
pub const STOP_LINE_MARGIN_M: f64 = 1.0;

/// The hazard vehicle (a constant-speed box driving along x).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct HazardState {
    /// Position, meters.
    pub position: Vec2,
    /// Speed along +x, meters per second.
    pub speed_m_s: f64,
    /// Steps it advanced.
    pub advanced_steps: u64,
    /// Steps a closed gate stopped it.
    pub stopped_steps: u64,
}

impl HazardState {
    /// The hazard at the start of a world: at x = −12 m on the line `y_m`.
    pub fn new(y_m: f64, speed_m_s: f64) -> HazardState {
        HazardState {
            position: Vec2 {
                x: -HAZARD_WRAP_X_M,
                y: y_m,
            },
            speed_m_s,
            advanced_steps: 0,
            stopped_steps: 0,
        }
    }

    /// One step: advances only through an open gate, wrapping past +12 m to −12 m.
    pub fn advance(&mut self, gate_open: bool, dt_s: f64) {
        if !gate_open {
            self.stopped_steps += 1;
            return;
        }
        self.advanced_steps += 1;
        self.position.x += self.speed_m_s * dt_s;
        if self.position.x > HAZARD_WRAP_X_M {
            self.position.x = -HAZARD_WRAP_X_M;
        }
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        for v in [self.position.x, self.position.y, self.speed_m_s] {
            bytes.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        bytes.extend_from_slice(&self.advanced_steps.to_le_bytes());
        bytes.extend_from_slice(&self.stopped_steps.to_le_bytes());
    }
}

/// Distance from `p` to a crosswalk's kerb-to-kerb segment, meters.
pub fn distance_to_crossing_m(crosswalk: &SimCrosswalk, p: Vec2) -> f64 {
    let (a, b) = (crosswalk.sides[0].kerb, crosswalk.sides[1].kerb);
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let length_sq = dx * dx + dy * dy;
    let t = if length_sq > 0.0 {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / length_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p.x - a.x - dx * t).hypot(p.y - a.y - dy * t)
}

/// Whether a vehicle at `p` is inside a crossing's conflict zone: within half the crossing's
/// width plus the safety radius of its kerb-to-kerb line.
pub fn in_conflict_zone(crosswalk: &SimCrosswalk, p: Vec2) -> bool {
    distance_to_crossing_m(crosswalk, p) < crosswalk.width_m / 2.0 + HAZARD_SAFETY_RADIUS_M
}

/// Where along `lane` it meets `crosswalk` (the projection of the crossing's midpoint), meters.
pub fn crossing_distance_on_lane_m(lane: &SimLane, crosswalk: &SimCrosswalk) -> f64 {
    let (a, b) = (crosswalk.sides[0].kerb, crosswalk.sides[1].kerb);
    let mid = Vec2 {
        x: (a.x + b.x) / 2.0,
        y: (a.y + b.y) / 2.0,
    };
    super::crosswalk::closest_on_polyline(&lane.centerline, mid).map_or(0.0, |(_, along_m)| along_m)
}

/// The stop line of `crosswalk` on `lane`, meters along the lane: the near edge of the
/// crossing's conflict zone (half its width plus the safety radius) less the margin, so a
/// vehicle holding at its line is never in the zone and never keeps the crossers waiting.
pub fn stop_line_m(lane: &SimLane, crosswalk: &SimCrosswalk) -> f64 {
    let zone_m = crosswalk.width_m / 2.0 + HAZARD_SAFETY_RADIUS_M;
    (crossing_distance_on_lane_m(lane, crosswalk) - zone_m - STOP_LINE_MARGIN_M)
        .clamp(0.0, lane_length_m(lane))
}

/// The farthest a lane vehicle at `from_m` on `lane` may drive this step: up to the stop line
/// of the first crossing ahead whose gate is closed (a vehicle already past a stop line drives
/// on and clears the crossing).
pub fn lane_limit_m(
    lane: &SimLane,
    crosswalks: &[SimCrosswalk],
    gate_of: impl Fn(&SimCrosswalk) -> bool,
    from_m: f64,
) -> f64 {
    lane.crosswalks
        .iter()
        .filter_map(|c| crosswalks.get(usize::from(*c)))
        .filter(|c| !gate_of(c))
        .map(|c| stop_line_m(lane, c))
        .filter(|line| *line >= from_m)
        .fold(f64::INFINITY, f64::min)
}

/// Whether any lane vehicle is inside `crosswalk`'s conflict zone.
pub fn lane_vehicle_in_zone(
    vehicles: &Vehicles,
    lanes: &[SimLane],
    crosswalk: &SimCrosswalk,
) -> bool {
    (0..vehicles.len()).any(|i| {
        lanes
            .get(usize::from(vehicles.lane[i]))
            .is_some_and(|lane| {
                in_conflict_zone(crosswalk, lane_point(lane, vehicles.distance_m[i]))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::crossings::fixtures::crosswalk;

    #[test]
    fn the_hazard_advances_only_through_an_open_gate_and_wraps() {
        let mut hazard = HazardState::new(-1.75, 4.0);
        hazard.advance(true, 0.05);
        assert_eq!(hazard.position, Vec2 { x: -11.8, y: -1.75 });
        hazard.advance(false, 0.05);
        assert_eq!(hazard.position.x, -11.8);
        hazard.position.x = 11.9;
        hazard.advance(true, 0.05);
        assert_eq!(hazard.position.x, -12.0);
        assert_eq!((hazard.advanced_steps, hazard.stopped_steps), (2, 1));
    }

    #[test]
    fn lane_vehicles_stop_at_a_closed_crossing_and_clear_an_open_one() {
        let lane = SimLane {
            id: "lane.0".into(),
            centerline: vec![Vec2 { x: -40.0, y: -1.75 }, Vec2 { x: 40.0, y: -1.75 }],
            width_m: 3.5,
            crosswalks: vec![0],
        };
        let crosswalks = [crosswalk(3.5, 3.5)];
        // The crossing's midpoint is 40 m along; its conflict zone begins 2 + 2.6 m before it,
        // at 35.4 m; the stop line is 1 m before that.
        let stop_m = stop_line_m(&lane, &crosswalks[0]);
        assert_eq!(
            stop_m,
            40.0 - (2.0 + HAZARD_SAFETY_RADIUS_M) - STOP_LINE_MARGIN_M
        );
        assert!(!in_conflict_zone(&crosswalks[0], lane_point(&lane, stop_m)));
        assert!(in_conflict_zone(
            &crosswalks[0],
            lane_point(&lane, stop_m + 1.01)
        ));
        assert_eq!(lane_limit_m(&lane, &crosswalks, |_| false, 30.0), stop_m);
        assert_eq!(
            lane_limit_m(&lane, &crosswalks, |_| true, 30.0),
            f64::INFINITY
        );
        // Past the stop line it drives on.
        assert_eq!(
            lane_limit_m(&lane, &crosswalks, |_| false, stop_m + 0.5),
            f64::INFINITY
        );
        assert!(in_conflict_zone(&crosswalks[0], Vec2 { x: 4.5, y: -1.75 }));
        assert!(!in_conflict_zone(&crosswalks[0], Vec2 { x: 4.7, y: -1.75 }));
    }
}
