//! Population records shared with the event log and the task phase: claim, retirement and
//! spawn refusals and rules, and the vehicle rows the crossings gate (their rules live in
//! `sim::population`).

/// Why a claim or release was refused.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum ClaimRefusal {
    /// The ped is in the reuse pool.
    Pooled,
    /// Another owner holds it and the claim has no transfer permission.
    OtherOwner,
    /// A release by someone who is not the current owner.
    NotOwner,
    /// A release of a ped nobody has claimed.
    NotClaimed,
}

/// Which rule took a ped from its source (the detail of its `Retired` event).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum RetireRule {
    /// In some view's intermediate band (`Rout < d ≤ Rin`), offscreen for every view, with
    /// aggressive cleanup allowed.
    Band,
    /// Beyond every valid view's removal distance (`d > Rin`).
    Range,
    /// An explicit `Destroy` directive (lifetime authority outside the population's rules).
    ExplicitDestroy,
}

impl RetireRule {
    /// A stable small number.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The rule in words.
    pub fn describe(self) -> &'static str {
        match self {
            RetireRule::Band => "offscreen in the band between the retain and remove radii",
            RetireRule::Range => "beyond the remove radius of every view",
            RetireRule::ExplicitDestroy => "destroyed explicitly by a directive",
        }
    }
}

/// Why a ped is not retired.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum RetireRefusal {
    /// Owned by a script.
    Mission,
    /// Already in the pool.
    Pooled,
    /// About to enter (or leave) a vehicle.
    VehicleIntent,
    /// Holding, travelling, fleeing or otherwise running a task population does not own.
    NonDefaultTask,
    /// Inside the no-removal box.
    NoRemovalBox,
    /// Within some view's Rout.
    WithinRetainRadius,
    /// In some view's intermediate band and visible in a view.
    OnscreenInBand,
    /// In some view's intermediate band while aggressive cleanup is off (or suppressed).
    CleanupDisabledInBand,
    /// No valid view: missing observations never authorize removal.
    NoValidView,
    /// An active directive parent (travelling, waiting for a signal or awaiting a decision)
    /// holds the ped.
    DirectiveTask,
    /// Occupies a vehicle seat.
    VehicleSeat,
    /// In a crosswalk transaction (requested, waiting, crossing or clearing): its queue slot or
    /// its place on the crossing is still held.
    CrosswalkTransaction,
    /// Entering or exiting a vehicle.
    EntryExit,
    /// A submitted task waits to execute (a path is pending, or it is suspended).
    PendingTask,
    /// Handling a current event.
    CurrentEvent,
    /// An event candidate waits for the next Tasks update.
    QueuedEvent,
    /// In some view's intermediate band while another view is invalid: a missing view is no
    /// evidence of being offscreen.
    UnobservedInBand,
}

/// Why a birth (or a demand) was refused: one variant per gate.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum SpawnRejection {
    /// The candidate is inside the no-spawn box.
    NoSpawnBox,
    /// The population sampler could not draw a candidate.
    SamplerExhausted,
    /// Every agent slot is taken (2^32 agents).
    NoSlot,
    /// The candidate's coordinates are not finite.
    NonFinite,
    /// The candidate stands on a lane a vehicle is close to, or on a signalled crossing whose
    /// signal does not show the pedestrian phase.
    CrossingConflict,
    /// No valid view: generation defers.
    NoValidView,
    /// Too close to a view's camera (and not hidden).
    TooCloseToView,
    /// Inside a view's frustum (and not hidden).
    InsideFrustum,
    /// Outside every view's range.
    OutOfRange,
    /// A logical ped of some source stands there.
    OccupiedByPed,
    /// A candidate accepted earlier in the same batch stands there.
    OccupiedInBatch,
    /// The spawn capsule overlaps a prop.
    BlockedByProp,
    /// The source's appearance family is unavailable: nothing is created until it is.
    ResourcesNotReady,
    /// A compatible pool entry is still in quarantine: the whole batch waits.
    PoolQuarantine,
    /// The source already hosts its capacity of attached peds.
    CapacityFull,
    /// An item could not attach; the batch was rolled back completely.
    AttachFailed,
    /// An item could not attach and the rollback did not complete.
    RollbackFailed,
}

impl SpawnRejection {
    /// Whether an observer gate refused (no valid view, too close to a camera, inside a view,
    /// out of every view's range): such a refusal ends the source's current use.
    pub fn is_observer_gate(self) -> bool {
        matches!(
            self,
            SpawnRejection::NoValidView
                | SpawnRejection::TooCloseToView
                | SpawnRejection::InsideFrustum
                | SpawnRejection::OutOfRange
        )
    }

    /// What rejected the candidate, in words.
    pub fn describe(self) -> &'static str {
        match self {
            SpawnRejection::NoSpawnBox => "the drawn position is inside the no-spawn box",
            SpawnRejection::SamplerExhausted => "the population sampler ran out of attempts",
            SpawnRejection::NoSlot => "every agent slot is taken",
            SpawnRejection::NonFinite => "the candidate's coordinates are not finite",
            SpawnRejection::CrossingConflict => {
                "the candidate stands on a lane a vehicle is near, or on a crossing against its signal"
            }
            SpawnRejection::NoValidView => "no observer is valid, so generation defers",
            SpawnRejection::TooCloseToView => "the candidate is too close to an observer",
            SpawnRejection::InsideFrustum => "the candidate is inside an observer's view",
            SpawnRejection::OutOfRange => "the candidate is outside every observer's range",
            SpawnRejection::OccupiedByPed => "a pedestrian already stands there",
            SpawnRejection::OccupiedInBatch => {
                "an earlier candidate of the same batch stands there"
            }
            SpawnRejection::BlockedByProp => "the spawn capsule overlaps a prop",
            SpawnRejection::ResourcesNotReady => "the source's appearance family is unavailable",
            SpawnRejection::PoolQuarantine => {
                "a compatible pooled pedestrian is still in quarantine"
            }
            SpawnRejection::CapacityFull => "the source hosts its capacity of attached pedestrians",
            SpawnRejection::AttachFailed => "an attachment failed and the batch was rolled back",
            SpawnRejection::RollbackFailed => {
                "an attachment failed and the rollback did not complete"
            }
        }
    }

    /// What would unblock it, in words (for panels and reports).
    pub fn remedy(self) -> &'static str {
        match self {
            SpawnRejection::NoSpawnBox => "clear the no-spawn box or draw outside it",
            SpawnRejection::SamplerExhausted => "a route long enough to draw on",
            SpawnRejection::NoSlot => "fewer agents",
            SpawnRejection::NonFinite => "a route with finite coordinates",
            SpawnRejection::CrossingConflict => {
                "the vehicle on the lane moving on, or the crossing's pedestrian phase"
            }
            SpawnRejection::NoValidView => "a valid observer",
            SpawnRejection::TooCloseToView => "the observer moving away, or hidden startup",
            SpawnRejection::InsideFrustum => "a candidate offscreen, or hidden startup",
            SpawnRejection::OutOfRange => "an observer's population center coming within range",
            SpawnRejection::OccupiedByPed => "the ped standing there moving away",
            SpawnRejection::OccupiedInBatch => "batch candidates further apart",
            SpawnRejection::BlockedByProp => "a candidate clear of props",
            SpawnRejection::ResourcesNotReady => "the appearance family becoming available",
            SpawnRejection::PoolQuarantine => "two Control updates passing",
            SpawnRejection::CapacityFull => "an attached ped retiring or being released",
            SpawnRejection::AttachFailed => "a later attempt (the batch was undone)",
            SpawnRejection::RollbackFailed => "nothing automatic: compensation did not complete",
        }
    }
}

/// The vehicles, one column per property.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Vehicles {
    /// Source index of each vehicle.
    pub source: Vec<u16>,
    /// Lane index of each vehicle.
    pub lane: Vec<u16>,
    /// Distance along the lane, meters.
    pub distance_m: Vec<f64>,
    /// Vehicles created so far.
    pub created: u64,
}
