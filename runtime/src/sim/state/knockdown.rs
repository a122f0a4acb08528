//! Knockdown records shared with the event log: the recovery phase and why a body stays down
//! (the recovery rules live in `sim::knockdown::recovery`).

/// Where a recovery is.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum RecoveryPhase {
    /// Physics drives the body; age and stable time accumulate.
    Simulating,
    /// Stable long enough, but there is no room to stand; physics still drives the body.
    WaitingForSpace,
    /// Physics is off; the pose blends towards standing.
    Blending,
    /// The blend is frozen because support or clearance was lost (its progress is kept).
    BlendPaused,
    /// The blend finished: the body's constraint is released.
    Complete,
}

impl RecoveryPhase {
    /// A stable small number for digests and event logs.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A short lowercase name for panels and logs.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryPhase::Simulating => "simulating",
            RecoveryPhase::WaitingForSpace => "waiting for space",
            RecoveryPhase::Blending => "blending",
            RecoveryPhase::BlendPaused => "blend paused",
            RecoveryPhase::Complete => "complete",
        }
    }
}

/// Why a recovery changed phase (or why a knockdown was refused or its intent changed).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum KnockdownReason {
    /// An impulse knocked the ped down: physics took the body.
    Impulse,
    /// No walkable surface supports the body.
    Unsupported,
    /// The core linear speed is above the settled limit (or not finite).
    TooFast,
    /// The angular speed is above the settled limit (or not finite).
    Spinning,
    /// A prop stands where the ped would stand.
    PropInTheWay,
    /// Another ped stands where the ped would stand.
    PedInTheWay,
    /// Age, stability, support and clearance all hold: the blend starts.
    SettledWithSpace,
    /// Support and clearance hold again: the paused blend continues.
    SafeAgain,
    /// The blend finished and the retained intent resumes from the actual position.
    Resumed,
    /// The blend finished; the intent was cancelled meanwhile, so the ped stays where it is.
    IntentEnded,
    /// A cancel arrived during the knockdown: the intent ends, the recovery goes on.
    IntentCancelled,
    /// Refused: the ped is in the reuse pool.
    RefusedPooled,
    /// Refused: the ped is already knocked down.
    RefusedAlreadyDown,
    /// Refused: the ped has a vehicle relationship (intent, entering, exiting or seated).
    RefusedVehicleIntent,
    /// The ped was removed from the world while knocked down; its body went with it.
    BodyRemoved,
}

impl KnockdownReason {
    /// A stable small number for digests and event logs.
    pub fn code(self) -> u8 {
        self as u8
    }
}
