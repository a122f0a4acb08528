//! Compiled crossing settings: crosswalk lanes and queues, signal timing, the liveness guard's
//! thresholds, groups and the hazard vehicle.

use crate::content::encode::ByteWriter;

/// The specification's hazard vehicle, when a scenario has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HazardSpec {
    /// The line it drives along, y meters.
    pub y_m: f64,
    /// Its speed along +x, meters per second.
    pub speed_m_s: f64,
}

/// How a scenario's crosswalks, signals and groups behave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossingSettings {
    /// Lateral lanes across each crossing (1–5).
    pub lanes: u32,
    /// Queue rows per lane behind each waiting point (capacity = lanes × rows).
    pub queue_rows: u32,
    /// A walker binds to a crosswalk this far before its entry kerb, meters.
    pub entry_range_m: f64,
    /// Crosswalk queries processed per step (the rest are deferred to the next).
    pub queries_per_step: u32,
    /// Signal phase durations.
    pub timing: SignalTiming,
    /// An agent this long without progress is flagged stuck, seconds.
    pub stuck_after_s: f64,
    /// A committed crosser this long without progress is cleared to its exit, seconds.
    pub forced_clear_after_s: f64,
    /// Share of agents in groups (0–1).
    pub group_share: f64,
    /// Largest group (2–3; smaller disables groups).
    pub max_group_size: u32,
    /// The hazard vehicle.
    pub hazard: Option<HazardSpec>,
}

impl Default for CrossingSettings {
    fn default() -> Self {
        CrossingSettings {
            lanes: 2,
            queue_rows: 3,
            entry_range_m: 4.0,
            queries_per_step: 128,
            timing: SignalTiming::default(),
            stuck_after_s: 15.0,
            forced_clear_after_s: 10.0,
            group_share: 0.25,
            max_group_size: 3,
            hazard: None,
        }
    }
}

/// Phase durations, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignalTiming {
    /// Shortest vehicle green before demand is served.
    pub vehicle_green_s: f64,
    /// Each all-stop interval (before the walk phase and the clearance after it).
    pub all_stop_s: f64,
    /// The pedestrian walk phase.
    pub pedestrian_s: f64,
}

impl Default for SignalTiming {
    fn default() -> Self {
        SignalTiming {
            vehicle_green_s: 4.0,
            all_stop_s: 2.0,
            pedestrian_s: 6.0,
        }
    }
}

impl CrossingSettings {
    /// Canonical bytes (part of the world configuration's digest).
    pub fn write_canonical(&self, w: &mut ByteWriter) {
        w.u32(self.lanes)
            .u32(self.queue_rows)
            .f64(self.entry_range_m)
            .u32(self.queries_per_step)
            .f64(self.timing.vehicle_green_s)
            .f64(self.timing.all_stop_s)
            .f64(self.timing.pedestrian_s)
            .f64(self.stuck_after_s)
            .f64(self.forced_clear_after_s)
            .f64(self.group_share)
            .u32(self.max_group_size);
        match self.hazard {
            Some(h) => {
                w.u8(1).f64(h.y_m).f64(h.speed_m_s);
            }
            None => {
                w.u8(0);
            }
        }
    }
}
