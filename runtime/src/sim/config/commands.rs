//! Compiled directives: who each is for ([`DirectiveTarget`]), what it does ([`Command`]) and
//! when ([`DirectiveSpec`]), with the duration rule timed directives share.

use super::boxes::SimBox;
use super::factions::Factions;
use super::scene::Obstacle;
use crate::project::{Vec2, VehicleRelation};
use crate::sim::state::{AgentHandle, PedEventType};

use crate::sim::events::BoxSlot;

/// Who a directive is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DirectiveTarget {
    /// The `ordinal`-th agent (0-based, in birth order) of source `source`.
    Born {
        /// Index of the source in [`CompiledScenario::sources`](super::CompiledScenario::sources).
        source: u16,
        /// Birth ordinal within the source.
        ordinal: u32,
    },
    /// The agent a handle names (a stale handle is unresolvable).
    Handle(AgentHandle),
    /// The ambient, unpooled ped nearest (horizontally) to a point at that frame; ties go to
    /// the lower slot index.
    NearestAmbient {
        /// Bits of the point's `x` and `y` (meters), so the target stays `Ord`.
        x_bits: u64,
        /// See `x_bits`.
        y_bits: u64,
    },
    /// The world itself (boxes, requests, observers, families).
    World,
}

impl DirectiveTarget {
    /// A nearest-ambient selector at ground point `(x, y)`.
    pub fn nearest_ambient(x: f64, y: f64) -> DirectiveTarget {
        DirectiveTarget::NearestAmbient {
            x_bits: x.to_bits(),
            y_bits: y.to_bits(),
        }
    }
}

/// What a directive does (goals and threats on the ground plane).
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Claim for a script owner (Ambient → Mission); another owner's ped only with
    /// `allow_transfer`.
    Claim {
        /// The owner id.
        owner: String,
        /// Whether taking another owner's ped is permitted.
        allow_transfer: bool,
    },
    /// Release back to the ambient population, by its current owner only.
    Release {
        /// Who releases.
        owner: String,
    },
    /// Walk to a goal.
    Rendezvous {
        /// Goal, meters.
        goal: Vec2,
    },
    /// Stop until `Continue`.
    Hold,
    /// Resume after `Hold`.
    Continue,
    /// Stand for `duration_s`, then walk on (timed standing, released by the clock).
    Stand {
        /// How long, seconds (finite, in (0, 3600]).
        duration_s: f64,
    },
    /// Replace the goal.
    Redirect {
        /// New goal, meters.
        goal: Vec2,
    },
    /// Walk to a scene object's approach point (its transform applied to `offset`, read at
    /// command time).
    RendezvousWith {
        /// Index of the object in [`CompiledScenario::objects`](super::CompiledScenario::objects).
        object: u16,
        /// Local approach offset, meters.
        offset: [f64; 3],
    },
    /// Replace the goal by a scene object's approach point.
    RedirectTo {
        /// Index of the object in [`CompiledScenario::objects`](super::CompiledScenario::objects).
        object: u16,
        /// Local approach offset, meters.
        offset: [f64; 3],
    },
    /// Cancel the directive.
    Cancel,
    /// Queue a threat event whose response (an escape) the next Tasks update starts.
    Escape {
        /// Threat position, meters.
        threat: Vec2,
        /// Safe distance from the threat, meters.
        safe_distance_m: f64,
        /// An externally supplied endpoint (checked at queuing); `None`: selected.
        endpoint: Option<Vec2>,
        /// Whether the interrupted task comes back when the escape ends.
        restore_interrupted: bool,
    },
    /// Destroy the ped explicitly (boxes and claims do not protect from this).
    Destroy,
    /// Knock the ped down with an impulse at the chest (see `sim::knockdown`).
    Knockdown {
        /// The impulse, newton-seconds (finite, magnitude at most `MAX_IMPULSE_N_S`).
        impulse_n_s: [f64; 3],
    },
    /// Set a box slot (an invalid box is refused and the slot keeps its box).
    SetBox {
        /// Which slot.
        slot: BoxSlot,
        /// The box.
        bounds: SimBox,
    },
    /// Clear a box slot.
    ClearBox {
        /// Which slot.
        slot: BoxSlot,
    },
    /// Suppress aggressive cleanup at the next Control update.
    SuppressCleanup,
    /// Open (or extend) a forced-init window.
    ForcedInit {
        /// Its length, seconds.
        duration_s: f64,
    },
    /// Request an instant fill.
    InstantFill,
    /// Pause the population clocks (see `sim::population::control_phase`).
    PausePopulation {
        /// How long, seconds.
        duration_s: f64,
    },
    /// Place (or move) obstacle `id`: a footprint bodies, admission and recovery meet from
    /// now on, unknown to navigation (see `sim::obstacles`).
    PlaceObstacle {
        /// Its id.
        id: String,
        /// Its footprint (a thick segment).
        footprint: Obstacle,
    },
    /// Remove obstacle `id` (placed, or an authored scene object's footprint or barrier) from
    /// the physical scene.
    RemoveObstacle {
        /// Its id.
        id: String,
    },
    /// Set an observer's fade.
    SetObserverFade {
        /// Index of the observer.
        observer: u16,
        /// Fade, 0..1.
        fade: f64,
    },
    /// Set an observer's validity.
    SetObserverValid {
        /// Index of the observer.
        observer: u16,
        /// Whether it is valid.
        valid: bool,
    },
    /// Ask for one of a ped's extra-distance retirement flags (see `sim::population::extra`):
    /// the ordinary flag for the next Control update, or (`task`) the task flag its active
    /// primary task asserts at each full task update while it stays active.
    ExtendRemovalDistance {
        /// The task flag (else the ordinary one).
        task: bool,
    },
    /// Set a ped's removal-distance multiplier.
    SetRemovalMultiplier {
        /// The multiplier (positive).
        multiplier: f64,
    },
    /// Set a ped's vehicle relationship (the document's `SetVehicleIntent(intent)` is
    /// `Intent` or `None`).
    SetVehicleRelation {
        /// The relationship.
        relation: VehicleRelation,
    },
    /// Queue an event candidate for the ped (see `sim::tasks::incidents`).
    QueueEvent {
        /// How long the event lasts once current, seconds.
        duration_s: f64,
    },
    /// End the ped events matching a type, a source and a tag (see `sim::tasks::incidents`).
    ClearEvents {
        /// The type matched (`None`: any).
        kind: Option<PedEventType>,
        /// The source matched (`None`: any).
        source: Option<String>,
        /// The session tag matched (0: any).
        tag: u32,
    },
    /// Make an appearance family available or not.
    SetFamilyAvailable {
        /// Index of the family in [`CompiledScenario::families`](super::CompiledScenario::families).
        family: u16,
        /// Whether its bindings are ready.
        available: bool,
    },
    /// A panic stimulus (see `sim::motion::panic`).
    Panic {
        /// Centre on the ground, meters.
        center: Vec2,
        /// Radius, meters.
        radius_m: f64,
        /// Panic at the centre, 0..1.
        strength: f64,
    },
    /// Set a ped's relevance.
    SetRelevance {
        /// 0..1.
        relevance: f64,
    },
    /// A line-of-sight check by the ped (see `sim::motion::disguise`).
    LineOfSight {
        /// The presented faction or disguise.
        presented: String,
        /// The ped's factions.
        factions: Factions,
    },
}

impl Command {
    /// A stable small number for canonical bytes.
    pub fn code(&self) -> u8 {
        match self {
            Command::Claim { .. } => 0,
            Command::Release { .. } => 1,
            Command::Rendezvous { .. } => 2,
            Command::Hold => 3,
            Command::Continue => 4,
            Command::Redirect { .. } => 5,
            Command::Cancel => 6,
            Command::Escape { .. } => 7,
            Command::Destroy => 8,
            Command::SetBox { .. } => 9,
            Command::ClearBox { .. } => 10,
            Command::SuppressCleanup => 11,
            Command::ForcedInit { .. } => 12,
            Command::InstantFill => 13,
            Command::SetObserverFade { .. } => 14,
            Command::SetObserverValid { .. } => 15,
            Command::SetRemovalMultiplier { .. } => 16,
            Command::SetVehicleRelation { .. } => 17,
            Command::SetFamilyAvailable { .. } => 18,
            Command::Panic { .. } => 19,
            Command::SetRelevance { .. } => 20,
            Command::LineOfSight { .. } => 21,
            Command::RendezvousWith { .. } => 22,
            Command::RedirectTo { .. } => 23,
            Command::Knockdown { .. } => 24,
            Command::Stand { .. } => 25,
            Command::QueueEvent { .. } => 26,
            Command::PausePopulation { .. } => 27,
            Command::PlaceObstacle { .. } => 28,
            Command::RemoveObstacle { .. } => 29,
            Command::ClearEvents { .. } => 30,
            Command::ExtendRemovalDistance { .. } => 31,
        }
    }
}

/// The source of a directive that names none (the document's `DEFAULT_DIRECTIVE_SOURCE`, which
/// the compiler's tests check it equals).
pub const DEFAULT_SOURCE: &str = "script";

/// One scheduled directive.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectiveSpec {
    /// The frame at which it applies.
    pub frame: u64,
    /// Its index in the scenario's directive list (for messages and event logs).
    pub index: u32,
    /// Who it is for.
    pub target: DirectiveTarget,
    /// What it does.
    pub command: Command,
    /// Who issues it (the task source; `script` unless the directive names one).
    pub source: String,
    /// The session tag a task command targets (0: the ped's current task of `source`).
    pub session: u32,
    /// The motion profile a route command's task walks with, by id (`None`: the source's, else
    /// the default for the task's kind).
    pub motion_profile: Option<String>,
}

/// The largest impulse a knockdown accepts, newton-seconds (a 70 kg body at about 14 m/s):
/// the compiler refuses a larger one and `sim::knockdown` clamps to it.
pub const MAX_IMPULSE_N_S: f64 = 1000.0;

/// The longest a timed directive (a stand, a forced-init window) may last, seconds.
pub const MAX_DIRECTIVE_DURATION_S: f64 = 3600.0;

/// Whether `duration_s` is a duration a timed directive accepts: finite, in
/// (0, [`MAX_DIRECTIVE_DURATION_S`]] seconds.
pub fn is_directive_duration(duration_s: f64) -> bool {
    crate::project::DIRECTIVE_DURATION_RANGE.contains(duration_s)
}
