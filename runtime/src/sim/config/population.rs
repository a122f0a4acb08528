//! Compiled population settings: sources, vehicle sources, the cycle clocks, the reuse pool and
//! a provoked attachment fault.

use crate::project::PopulationKind;

/// A population source as the world runs it (its route is resolved against the space when the
/// world is built).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSpec {
    /// The source's id.
    pub id: String,
    /// Ambient or Mission.
    pub kind: PopulationKind,
    /// The id of the route it spawns on.
    pub route: String,
    /// How many agents it keeps alive.
    pub target_count: u32,
    /// Mean walking speed, meters per second.
    pub walk_speed_m_s: f64,
    /// Attached peds (ambient and mission) the source may host.
    pub capacity: u32,
    /// Peds one demand creates at once (an atomic batch).
    pub batch_size: u32,
    /// Index of the appearance family its peds need in [`CompiledScenario::families`](super::CompiledScenario::families).
    pub family: Option<u16>,
    /// Authored candidate progresses along the route, meters (empty: drawn at random).
    pub candidates_m: Vec<f64>,
    /// The removal-distance multiplier every admission applies (the model default).
    pub removal_multiplier: f64,
    /// Whether its peds stop at their route's goal (otherwise they turn back).
    pub stops_at_route_end: bool,
    /// Whether its peds are classified law enforcement (the cops removal scale).
    pub law_enforcement: bool,
    /// The motion profile a task installed on one of its peds walks with, by id (`None`: the
    /// default for the task's kind; an id the world's table lacks is the default too — `check`
    /// reports it).
    pub motion_profile: Option<String>,
}

/// A vehicle source: vehicles driving one lane of the space.
#[derive(Clone, Debug, PartialEq)]
pub struct VehicleSourceSpec {
    /// The source's id.
    pub id: String,
    /// The id of its lane.
    pub lane: String,
    /// Vehicles it keeps on the lane.
    pub target_count: u32,
    /// Driving speed, meters per second.
    pub speed_m_s: f64,
}

/// Population parameters of a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PopulationParams {
    /// The cycle clocks.
    pub clocks: ClocksConfig,
    /// Entries the reuse pool holds.
    pub pool_capacity: u32,
    /// Whether the intermediate band removes offscreen peds.
    pub aggressive_cleanup: bool,
    /// A provoked attachment failure (tests and fault scenarios).
    pub fault: Option<AttachFault>,
    /// The removal scales a qualifying ped selects by its classification.
    pub removal_scales: RemovalScales,
    /// Whether the world starts with the startup flag set.
    pub startup_at_world_start: bool,
}

/// The removal scales of qualifying peds (a suppress-cleanup request, an ordinary or a task
/// extra-distance flag): the classification selects one — cops for law enforcement, special
/// otherwise — and the two never multiply; the ped's own multiplier applies after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RemovalScales {
    /// Qualifying peds that are not law enforcement (default 1.6).
    pub special: f64,
    /// Qualifying law-enforcement peds.
    pub cops: f64,
}

impl Default for RemovalScales {
    fn default() -> Self {
        RemovalScales {
            special: crate::project::DEFAULT_SPECIAL_REMOVAL_SCALE,
            cops: crate::project::DEFAULT_SPECIAL_REMOVAL_SCALE,
        }
    }
}

impl RemovalScales {
    /// The scale of a ped: 1 unless it qualifies; then the cops scale for law enforcement and
    /// the special scale otherwise — selected, never multiplied together.
    pub fn select(&self, qualifying: bool, law_enforcement: bool) -> f64 {
        match (qualifying, law_enforcement) {
            (false, _) => 1.0,
            (true, true) => self.cops,
            (true, false) => self.special,
        }
    }

    /// The smallest scale any qualifying ped selects.
    pub fn least(&self) -> f64 {
        self.special.min(self.cops)
    }
}

impl Default for PopulationParams {
    fn default() -> Self {
        let clock = ClockConfig {
            frame_rate: 20.0,
            cycles_per_frame: 1.0,
        };
        PopulationParams {
            clocks: ClocksConfig {
                ped: clock,
                vehicle: clock,
                max_frame_time_s: 0.1,
            },
            pool_capacity: 16,
            aggressive_cleanup: true,
            fault: None,
            removal_scales: RemovalScales::default(),
            startup_at_world_start: false,
        }
    }
}

/// One population type's clock configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockConfig {
    /// Frames per second the type's cycles are counted against.
    pub frame_rate: f64,
    /// Cycles per such frame.
    pub cycles_per_frame: f64,
}

impl ClockConfig {
    /// Cycles per second: `frameRate × cyclesPerFrame`.
    pub fn rate(&self) -> f64 {
        self.frame_rate * self.cycles_per_frame
    }
}

/// Both clocks' configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClocksConfig {
    /// Pedestrian clock.
    pub ped: ClockConfig,
    /// Vehicle clock.
    pub vehicle: ClockConfig,
    /// Longest elapsed time one update adds, seconds (default 0.1).
    pub max_frame_time_s: f64,
}

/// A scenario-level fault: the attachment of item `item` of realization batch `batch` (the
/// world's batch ordinal, from 0) fails; with `fail_restore`, putting a reused ped back into the
/// pool fails too, so the rollback cannot complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachFault {
    /// Batch ordinal.
    pub batch: u64,
    /// Item within the batch.
    pub item: u32,
    /// Whether restoring reused items fails as well.
    pub fail_restore: bool,
}
