//! Simple lane-following vehicles, so the vehicle cycle clock is real: each vehicle cycle lets
//! one vehicle source below its target enter at the start of its lane (when the entry is clear);
//! vehicles drive along the lane's centreline at their speed and leave at its end, stopping at
//! the stop line of a crosswalk whose vehicle gate is closed (`sim::crossings::gate`).

use crate::project::Vec2;
use crate::sim::config::VehicleSourceConfig;
use crate::sim::space::lane_length_m;
use crate::sim::space::lane_point;
use crate::sim::space::SimLane;
use crate::sim::spatial::closest_on_segment;
use crate::sim::state::Vehicles;

/// A vehicle closer than this to a lane's entry keeps the next one waiting, meters.
pub const ENTRY_CLEARANCE_M: f64 = 8.0;

impl Vehicles {
    /// Vehicles on the road.
    pub fn len(&self) -> usize {
        self.source.len()
    }

    /// True when no vehicle is on the road.
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// Ground position of vehicle `i`.
    pub fn position(&self, lanes: &[SimLane], i: usize) -> Vec2 {
        lane_point(&lanes[self.lane[i] as usize], self.distance_m[i])
    }

    /// One vehicle cycle: the first source (from `cursor`) below its target whose lane entry is
    /// clear gets one vehicle; returns whether one was created.
    pub fn cycle(&mut self, sources: &[VehicleSourceConfig], cursor: &mut u32) -> bool {
        let count = sources.len();
        for step in 0..count {
            let index = (*cursor as usize + step) % count;
            let source = &sources[index];
            let on_road = self.source.iter().filter(|s| **s as usize == index).count();
            let entry_busy = self
                .lane
                .iter()
                .zip(&self.distance_m)
                .any(|(l, d)| *l == source.lane && *d < ENTRY_CLEARANCE_M);
            if on_road as u64 >= u64::from(source.target_count) || entry_busy {
                continue;
            }
            self.source.push(index as u16);
            self.lane.push(source.lane);
            self.distance_m.push(0.0);
            self.created += 1;
            *cursor = ((index + 1) % count) as u32;
            return true;
        }
        false
    }

    /// Motion: every vehicle drives one step, but no farther than `limit(lane, distance)` (a
    /// closed crosswalk's stop line); those past their lane's end leave.
    pub fn advance(
        &mut self,
        sources: &[VehicleSourceConfig],
        lanes: &[SimLane],
        dt_s: f64,
        limit: impl Fn(usize, f64) -> f64,
    ) {
        let mut i = 0;
        while i < self.len() {
            let from = self.distance_m[i];
            let to = from + sources[self.source[i] as usize].speed_m_s * dt_s;
            self.distance_m[i] = to.min(limit(usize::from(self.lane[i]), from)).max(from);
            if self.distance_m[i] > lane_length_m(&lanes[self.lane[i] as usize]) {
                self.source.remove(i);
                self.lane.remove(i);
                self.distance_m.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.created.to_le_bytes());
        bytes.extend_from_slice(&(self.len() as u64).to_le_bytes());
        for i in 0..self.len() {
            bytes.extend_from_slice(&self.source[i].to_le_bytes());
            bytes.extend_from_slice(&self.lane[i].to_le_bytes());
            bytes.extend_from_slice(&self.distance_m[i].to_bits().to_le_bytes());
        }
    }
}

/// Distance from `p` to a lane's centreline, meters.
pub fn distance_to_lane_m(lane: &SimLane, p: [f64; 3]) -> f64 {
    lane.centerline
        .windows(2)
        .map(|s| {
            let c = closest_on_segment(Vec2 { x: p[0], y: p[1] }, s[0], s[1]);
            (p[0] - c.x).hypot(p[1] - c.y)
        })
        .fold(f64::INFINITY, f64::min)
}
