//! Scenario documents `scenarios/<id>.scenario.ron`: observers, population sources, boxes, directives.

use super::common::{Box3, Vec3};
pub use super::motion_settings::MotionSettings;
use crate::project::decode::{decode_unit_variant, Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// Current schema version of scenarios.
pub const SCENARIO_SCHEMA: u32 = 3;

/// The fixed step a scenario gets when its file gives none, seconds.
pub const DEFAULT_FIXED_STEP_S: f64 = 0.05;
/// The longest fixed step allowed, seconds (steps are in `(0, MAX_FIXED_STEP_S]`).
pub const MAX_FIXED_STEP_S: f64 = 1.0;
/// The length a scenario gets when its file gives none, frames.
pub const DEFAULT_DURATION_FRAMES: u64 = 1200;

/// The documented range of a scenario number: what the simulation's compiler accepts
/// (`sim::scenario`, which reports a value outside it with `text`), what the Inspector's field
/// allows, and what `docs/format.md`'s range column says: each is a field's range in
/// `scenario_fields::SCENARIO_SECTIONS`. One owner per range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberRange {
    /// The lowest value accepted (refused itself when `min_open`).
    pub min: f64,
    /// Whether the range is open at `min` (`(min, max]`).
    pub min_open: bool,
    /// The highest value accepted (inclusive).
    pub max: f64,
    /// The range in words, as diagnostics and `docs/format.md` print it.
    pub text: &'static str,
}

impl NumberRange {
    /// Whether `value` is a finite number in the range.
    pub fn contains(&self, value: f64) -> bool {
        let above_min = if self.min_open {
            value > self.min
        } else {
            value >= self.min
        };
        value.is_finite() && above_min && value <= self.max
    }
}

/// The longest scenario, frames (about 14 hours at the default 0.05 s step). Past it no run
/// fits the simulation's work ceiling at any population (`sim::budget`).
pub const MAX_DURATION_FRAMES: u64 = 1_000_000;

/// `duration_frames`: 0 to [`MAX_DURATION_FRAMES`].
pub const DURATION_FRAMES_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: MAX_DURATION_FRAMES as f64,
    text: "0 to 1000000 frames",
};

/// `population.ped_frame_rate` and `population.vehicle_frame_rate`: frames per second the cycle
/// clocks count against (a game runs at 20 to a few hundred).
pub const FRAME_RATE_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: true,
    max: 1000.0,
    text: "a rate in (0, 1000] Hz",
};

/// `population.ped_cycles_per_frame` and `population.vehicle_cycles_per_frame`.
pub const CYCLES_PER_FRAME_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: true,
    max: 100.0,
    text: "(0, 100] cycles per frame",
};

/// The largest atomic batch a source may create at once.
pub const MAX_BATCH_SIZE: u32 = 64;

/// `sources[…].batch_size`: 1 to [`MAX_BATCH_SIZE`] peds.
pub const BATCH_SIZE_RANGE: NumberRange = NumberRange {
    min: 1.0,
    min_open: false,
    max: MAX_BATCH_SIZE as f64,
    text: "1 to 64 peds",
};

/// A pedestrian scenario over the content of one recipe.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scenario {
    /// Persistent id; also the file name `scenarios/<id>.scenario.ron`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The recipe whose pedestrian space the scenario runs on.
    pub recipe: String,
    /// Fixed simulation step in seconds.
    pub fixed_step_s: f64,
    /// Length of the scenario in frames.
    pub duration_frames: u64,
    /// Views that decide admission, removal and streaming.
    pub observers: Vec<Observer>,
    /// Where pedestrians come from.
    pub sources: Vec<PopulationSource>,
    /// No ambient births inside this box (inclusive).
    pub no_spawn_box: Option<Box3>,
    /// Ambient members inside this box are never retired automatically.
    pub no_removal_box: Option<Box3>,
    /// Lane-following vehicle sources.
    pub vehicle_sources: Vec<VehicleSource>,
    /// Crosswalks, signals, groups and the liveness guard.
    pub crossings: CrossingsSettings,
    /// Population cycle and pool settings.
    pub population: PopulationSettings,
    /// Motion tiers, avoidance budget and crowd governor settings.
    pub motion: MotionSettings,
    /// Scripted directives, by frame.
    pub directives: Vec<Directive>,
    /// Authored scene objects (rendezvous targets; their footprints block paths).
    pub objects: Vec<SceneObject>,
    /// Authored barriers (wall segments the paths, or only the bodies, meet).
    pub barriers: Vec<Barrier>,
}

crate::project::codec_macro::record_codec!(Scenario "Scenario" schema SCENARIO_SCHEMA {
    id: String,
    name: String = String::new(),
    recipe: String,
    fixed_step_s: f64 = DEFAULT_FIXED_STEP_S,
    duration_frames: u64 = DEFAULT_DURATION_FRAMES,
    observers: Vec<Observer> = Vec::new(),
    sources: Vec<PopulationSource> = Vec::new(),
    no_spawn_box: Option<Box3> = None,
    no_removal_box: Option<Box3> = None,
    vehicle_sources: Vec<VehicleSource> = Vec::new(),
    crossings: CrossingsSettings = CrossingsSettings::default(),
    population: PopulationSettings = PopulationSettings::default(),
    motion: MotionSettings = MotionSettings::default(),
    directives: Vec<Directive> = Vec::new(),
    objects: Vec<SceneObject> = Vec::new(),
    barriers: Vec<Barrier> = Vec::new(),
});

/// An authored scene object: a transform (translation, yaw, scale) and a box footprint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneObject {
    /// Persistent id (directives name it).
    pub id: String,
    /// Translation, meters.
    pub position: Vec3,
    /// Rotation about Z, radians.
    pub yaw_rad: f64,
    /// Scale per local axis.
    pub scale: Vec3,
    /// Half extents of the footprint before scaling, meters (zero: blocks nothing).
    pub half_extents_m: Vec3,
}

/// Scale of a scene object whose file gives none.
pub const UNIT_SCALE: Vec3 = Vec3 {
    x: 1.0,
    y: 1.0,
    z: 1.0,
};

crate::project::codec_macro::record_codec!(SceneObject "Object" {
    id: String,
    position: Vec3,
    yaw_rad: f64 = 0.0,
    scale: Vec3 = UNIT_SCALE,
    half_extents_m: Vec3 = Vec3::default(),
});

/// An authored barrier: a wall segment on the ground.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Barrier {
    /// Persistent id.
    pub id: String,
    /// One end, meters.
    pub from: Vec3,
    /// The other end, meters.
    pub to: Vec3,
    /// Thickness, meters.
    pub thickness_m: f64,
    /// Whether path queries know it (false: only bodies meet it).
    pub in_navigation: bool,
}

crate::project::codec_macro::record_codec!(Barrier "Barrier" {
    id: String,
    from: Vec3,
    to: Vec3,
    thickness_m: f64 = 0.2,
    in_navigation: bool = true,
});

/// A scenario-authored exit node that fleeing agents run to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExitNode {
    /// Persistent id.
    pub id: String,
    /// Position, meters.
    pub position: Vec3,
    /// Agents it takes before it is full.
    pub capacity: u32,
}

crate::project::codec_macro::record_codec!(ExitNode "Exit" {
    id: String,
    position: Vec3,
    capacity: u32 = 1,
});

/// A lane-following vehicle source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VehicleSource {
    /// Persistent id.
    pub id: String,
    /// The lane of the recipe's street block it drives.
    pub lane: String,
    /// Vehicles it keeps on the lane.
    pub target_count: u32,
    /// Driving speed, meters per second.
    pub speed_m_s: f64,
}

crate::project::codec_macro::record_codec!(VehicleSource "VehicleSource" {
    id: String,
    lane: String,
    target_count: u32,
    speed_m_s: f64 = 8.0,
});

/// How crosswalks, signals, groups and the liveness guard behave (the specification gives the queue
/// spacing, the lane range, the group share and size; the signal durations are ours).
#[derive(Clone, Debug, PartialEq)]
pub struct CrossingsSettings {
    /// Lateral lanes across each crossing (1–5).
    pub lanes: u32,
    /// Queue rows per lane behind each waiting point (0.75 m apart).
    pub queue_rows: u32,
    /// A walker binds to a crosswalk this far before its entry kerb, meters.
    pub entry_range_m: f64,
    /// Crosswalk queries processed per step; the rest are deferred.
    pub queries_per_step: u32,
    /// Shortest vehicle green before pedestrian demand is served, seconds.
    pub vehicle_green_s: f64,
    /// Each all-stop interval (before the walk phase and the clearance after it), seconds.
    pub all_stop_s: f64,
    /// The pedestrian walk phase, seconds.
    pub pedestrian_s: f64,
    /// An agent without progress this long is flagged stuck, seconds.
    pub stuck_after_s: f64,
    /// A committed crosser without progress this long is cleared to its exit, seconds.
    pub forced_clear_after_s: f64,
    /// Share of agents walking in groups (0–1).
    pub group_share: f64,
    /// Largest group (2–3; 0 or 1 disables groups).
    pub max_group_size: u32,
    /// The specification's hazard vehicle, driving along x through the crosswalks.
    pub hazard: Option<HazardVehicle>,
}

impl Default for CrossingsSettings {
    fn default() -> Self {
        CrossingsSettings {
            lanes: 2,
            queue_rows: 3,
            entry_range_m: 4.0,
            queries_per_step: 128,
            vehicle_green_s: 4.0,
            all_stop_s: 2.0,
            pedestrian_s: 6.0,
            stuck_after_s: 15.0,
            forced_clear_after_s: 10.0,
            group_share: 0.25,
            max_group_size: 3,
            hazard: None,
        }
    }
}

crate::project::codec_macro::record_codec!(CrossingsSettings "Crossings" {
    lanes: u32 = 2,
    queue_rows: u32 = 3,
    entry_range_m: f64 = 4.0,
    queries_per_step: u32 = 128,
    vehicle_green_s: f64 = 4.0,
    all_stop_s: f64 = 2.0,
    pedestrian_s: f64 = 6.0,
    stuck_after_s: f64 = 15.0,
    forced_clear_after_s: f64 = 10.0,
    group_share: f64 = 0.25,
    max_group_size: u32 = 3,
    hazard: Option<HazardVehicle> = None,
});

/// The specification's hazard vehicle: a box at constant speed along +x on the line `y_m`, starting
/// at x = −12 m and wrapping past +12 m; it advances only while every vehicle gate is open.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HazardVehicle {
    /// The line it drives along, meters.
    pub y_m: f64,
    /// Its speed, meters per second.
    pub speed_m_s: f64,
}

crate::project::codec_macro::record_codec!(HazardVehicle "Hazard" {
    y_m: f64,
    speed_m_s: f64 = 4.0,
});

/// Population cycles and the reuse pool.
#[derive(Clone, Debug, PartialEq)]
pub struct PopulationSettings {
    /// Frames per second the ped clock counts against.
    pub ped_frame_rate: f64,
    /// Ped cycles per such frame.
    pub ped_cycles_per_frame: f64,
    /// Frames per second the vehicle clock counts against.
    pub vehicle_frame_rate: f64,
    /// Vehicle cycles per such frame.
    pub vehicle_cycles_per_frame: f64,
    /// Longest elapsed time one update adds to the clocks, seconds.
    pub max_frame_time_s: f64,
    /// Entries the reuse pool holds.
    pub pool_capacity: u32,
    /// Whether the intermediate band removes offscreen members.
    pub aggressive_cleanup: bool,
    /// A provoked attachment failure (fault-injection scenarios).
    pub fault: Option<AttachFaultSpec>,
    /// The special removal scale: removal distances of a ped that qualifies (a suppress-cleanup
    /// request, an extra-distance flag) and is not law enforcement.
    pub special_removal_scale: f64,
    /// The cops removal scale: selected instead of the special one (never multiplied with it)
    /// for a qualifying ped of a law-enforcement source.
    pub cops_removal_scale: f64,
    /// Whether a world starts with the startup flag set (a hidden-startup reason until the
    /// first fill completes).
    pub startup_at_world_start: bool,
}

impl Default for PopulationSettings {
    fn default() -> Self {
        PopulationSettings {
            ped_frame_rate: 20.0,
            ped_cycles_per_frame: 1.0,
            vehicle_frame_rate: 20.0,
            vehicle_cycles_per_frame: 1.0,
            max_frame_time_s: 0.1,
            pool_capacity: 16,
            aggressive_cleanup: true,
            fault: None,
            special_removal_scale: DEFAULT_SPECIAL_REMOVAL_SCALE,
            cops_removal_scale: DEFAULT_SPECIAL_REMOVAL_SCALE,
            startup_at_world_start: false,
        }
    }
}

/// The special removal scale the specification gives (and the cops scale's default: the
/// specification gives it no number of its own).
pub const DEFAULT_SPECIAL_REMOVAL_SCALE: f64 = 1.6;

crate::project::codec_macro::record_codec!(PopulationSettings "Population" {
    ped_frame_rate: f64 = 20.0,
    ped_cycles_per_frame: f64 = 1.0,
    vehicle_frame_rate: f64 = 20.0,
    vehicle_cycles_per_frame: f64 = 1.0,
    max_frame_time_s: f64 = 0.1,
    pool_capacity: u32 = 16,
    aggressive_cleanup: bool = true,
    fault: Option<AttachFaultSpec> = None,
} optional {
    special_removal_scale: f64 = DEFAULT_SPECIAL_REMOVAL_SCALE,
    cops_removal_scale: f64 = DEFAULT_SPECIAL_REMOVAL_SCALE,
    startup_at_world_start: bool = false,
});

/// The attachment of item `item` of realization batch `batch` fails (with `fail_restore`,
/// putting reused peds back into the pool fails too).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttachFaultSpec {
    /// Realization batch ordinal (from 0).
    pub batch: u64,
    /// Item within the batch.
    pub item: u32,
    /// Whether restoring reused items fails as well.
    pub fail_restore: bool,
}

crate::project::codec_macro::record_codec!(AttachFaultSpec "AttachFault" {
    batch: u64,
    item: u32,
    fail_restore: bool = false,
});

/// A camera-like view used by admission, removal and streaming.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observer {
    /// Persistent id.
    pub id: String,
    /// Eye position, meters.
    pub position: Vec3,
    /// Heading around Z, radians (0 looks along +X).
    pub yaw_rad: f64,
    /// Pitch, radians (negative looks down).
    pub pitch_rad: f64,
    /// Vertical field of view, radians.
    pub fov_y_rad: f64,
    /// Near plane distance, meters.
    pub near_m: f64,
    /// Far plane distance, meters.
    pub far_m: f64,
    /// Members within this horizontal distance are retained (Rout).
    pub retain_radius_m: f64,
    /// Members beyond this horizontal distance are removable (Rin).
    pub remove_radius_m: f64,
    /// Closer than this to the camera (3D) a visible birth is refused, meters.
    pub close_m: f64,
    /// The normal spawn range's minimum: a birth (not hidden) closer than this horizontally to
    /// the population center of any valid view is refused, meters.
    pub spawn_min_m: f64,
    /// The normal spawn range's maximum: a birth (not hidden) needs some valid view within
    /// this horizontal distance, meters (absent: `retain_radius_m`).
    pub spawn_max_m: Option<f64>,
    /// The hidden spawn range's minimum (during hidden startup), meters.
    pub hidden_spawn_min_m: f64,
    /// The hidden spawn range's maximum (during hidden startup), meters (absent: the normal
    /// maximum).
    pub hidden_spawn_max_m: Option<f64>,
    /// The population center ranges are measured from (the eye when absent).
    pub center: Option<Vec3>,
    /// Keyframed eye positions, ascending by frame.
    pub path: Vec<Keyframe>,
    /// Keyframed aim (where the camera looks), ascending by frame; empty: the yaw and pitch
    /// above throughout.
    pub aim: Vec<AimKey>,
    /// Fade at the start, 0 (clear) to 1 (black).
    pub fade: f64,
    /// Whether the view is valid at the start.
    pub valid: bool,
}

/// One keyframe of an observer's path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keyframe {
    /// The frame.
    pub frame: u64,
    /// Eye position at that frame, meters.
    pub position: Vec3,
}

crate::project::codec_macro::record_codec!(Keyframe "Key" {
    frame: u64,
    position: Vec3,
});

/// One keyframe of an observer's aim: the camera's heading and pitch at a frame (linear
/// between keys, the heading along the shorter way round; held before the first and after the
/// last).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AimKey {
    /// The frame.
    pub frame: u64,
    /// Heading around Z at that frame, radians (0 looks along +X).
    pub yaw_rad: f64,
    /// Pitch at that frame, radians (negative looks down).
    pub pitch_rad: f64,
}

crate::project::codec_macro::record_codec!(AimKey "Aim" {
    frame: u64,
    yaw_rad: f64,
    pitch_rad: f64 = 0.0,
});

impl Observer {
    /// Vertical field of view of an observer whose file gives none, radians.
    pub const DEFAULT_FOV_Y_RAD: f64 = 1.0;
    /// Near plane of an observer whose file gives none, meters.
    pub const DEFAULT_NEAR_M: f64 = 0.1;
    /// Far plane of an observer whose file gives none, meters.
    pub const DEFAULT_FAR_M: f64 = 200.0;
    /// Retain radius (Rout) of an observer whose file gives none, meters.
    pub const DEFAULT_RETAIN_RADIUS_M: f64 = 40.0;
    /// Remove radius (Rin) of an observer whose file gives none, meters.
    pub const DEFAULT_REMOVE_RADIUS_M: f64 = 80.0;
    /// Close-view distance of an observer whose file gives none, meters.
    pub const DEFAULT_CLOSE_M: f64 = 3.0;

    /// An observer at the origin with every optional field at its default (what a file that
    /// names only `id` and `position` reads as).
    pub fn with_defaults(id: String) -> Observer {
        Observer {
            id,
            position: Vec3::default(),
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            fov_y_rad: Observer::DEFAULT_FOV_Y_RAD,
            near_m: Observer::DEFAULT_NEAR_M,
            far_m: Observer::DEFAULT_FAR_M,
            retain_radius_m: Observer::DEFAULT_RETAIN_RADIUS_M,
            remove_radius_m: Observer::DEFAULT_REMOVE_RADIUS_M,
            close_m: Observer::DEFAULT_CLOSE_M,
            spawn_min_m: 0.0,
            spawn_max_m: None,
            hidden_spawn_min_m: 0.0,
            hidden_spawn_max_m: None,
            center: None,
            path: Vec::new(),
            aim: Vec::new(),
            fade: 0.0,
            valid: true,
        }
    }
}

crate::project::codec_macro::record_codec!(Observer "Observer" {
    id: String,
    position: Vec3,
    yaw_rad: f64 = 0.0,
    pitch_rad: f64 = 0.0,
    fov_y_rad: f64 = Observer::DEFAULT_FOV_Y_RAD,
    near_m: f64 = Observer::DEFAULT_NEAR_M,
    far_m: f64 = Observer::DEFAULT_FAR_M,
    retain_radius_m: f64 = Observer::DEFAULT_RETAIN_RADIUS_M,
    remove_radius_m: f64 = Observer::DEFAULT_REMOVE_RADIUS_M,
    close_m: f64 = Observer::DEFAULT_CLOSE_M,
    center: Option<Vec3> = None,
    path: Vec<Keyframe> = Vec::new(),
    aim: Vec<AimKey> = Vec::new(),
    fade: f64 = 0.0,
    valid: bool = true,
} optional {
    spawn_min_m: f64 = 0.0,
    spawn_max_m: Option<f64> = None,
    hidden_spawn_min_m: f64 = 0.0,
    hidden_spawn_max_m: Option<f64> = None,
});

/// Whether a source's pedestrians are ambient population or owned by a script.
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
)]
pub enum PopulationKind {
    /// Managed by the population system: born, retired and pooled automatically.
    #[default]
    Ambient,
    /// Owned by a script: never retired or pooled automatically.
    Mission,
}

const POPULATION_KINDS: [&str; 2] = ["Ambient", "Mission"];

impl Decode for PopulationKind {
    fn expected() -> String {
        "`Ambient` or `Mission`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        decode_unit_variant(node, cx, &POPULATION_KINDS).map(|index| match index {
            0 => PopulationKind::Ambient,
            _ => PopulationKind::Mission,
        })
    }
}

impl Encode for PopulationKind {
    fn encode(&self) -> Doc {
        Doc::Unit(POPULATION_KINDS[*self as usize])
    }
}

/// A pedestrian's relationship with a vehicle, as far as retirement cares: each non-`None`
/// relation protects it from automatic retirement (seated: occupancy; intent: about to use
/// one; entering or exiting: an entry/exit interaction under way).
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
)]
pub enum VehicleRelation {
    /// No vehicle relationship.
    #[default]
    None,
    /// Intends to enter a vehicle.
    Intent,
    /// Getting into a vehicle.
    Entering,
    /// Getting out of a vehicle.
    Exiting,
    /// Occupying a vehicle's seat.
    Seated,
}

const VEHICLE_RELATIONS: [&str; 5] = ["None", "Intent", "Entering", "Exiting", "Seated"];

impl VehicleRelation {
    /// Every relation, in code order.
    pub const ALL: [VehicleRelation; 5] = [
        VehicleRelation::None,
        VehicleRelation::Intent,
        VehicleRelation::Entering,
        VehicleRelation::Exiting,
        VehicleRelation::Seated,
    ];

    /// A stable small number (`None` 0 and `Intent` 1, the bytes the former intent flag had).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The name a scenario file uses.
    pub fn name(self) -> &'static str {
        VEHICLE_RELATIONS[self as usize]
    }
}

impl Decode for VehicleRelation {
    fn expected() -> String {
        "one of `None`, `Intent`, `Entering`, `Exiting`, `Seated`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        decode_unit_variant(node, cx, &VEHICLE_RELATIONS).map(|index| VehicleRelation::ALL[index])
    }
}

impl Encode for VehicleRelation {
    fn encode(&self) -> Doc {
        Doc::Unit(self.name())
    }
}

/// What a source's pedestrians do at the end of their route.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum RouteEnd {
    /// Turn round and walk the route back (ping-pong).
    #[default]
    TurnBack,
    /// Stop at the route's goal: the walk is complete and the pedestrian stands there.
    Stop,
}

const ROUTE_ENDS: [&str; 2] = ["TurnBack", "Stop"];

impl Decode for RouteEnd {
    fn expected() -> String {
        "`TurnBack` or `Stop`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        decode_unit_variant(node, cx, &ROUTE_ENDS).map(|index| match index {
            0 => RouteEnd::TurnBack,
            _ => RouteEnd::Stop,
        })
    }
}

impl Encode for RouteEnd {
    fn encode(&self) -> Doc {
        Doc::Unit(ROUTE_ENDS[*self as usize])
    }
}

/// A population source: pedestrians born along one route of the pedestrian space.
#[derive(Clone, Debug, PartialEq)]
pub struct PopulationSource {
    /// Persistent id.
    pub id: String,
    /// Ambient or Mission.
    pub kind: PopulationKind,
    /// The route of the recipe's pedestrian space the source spawns on.
    pub route: String,
    /// How many pedestrians the source aims to keep alive.
    pub target_count: u32,
    /// Preferred walking speed, meters per second.
    pub walk_speed_m_s: f64,
    /// Attached peds (ambient and mission) it may host; its target when absent.
    pub capacity: Option<u32>,
    /// Peds one demand creates at once (an atomic batch).
    pub batch_size: u32,
    /// The appearance family its peds need (availability can be toggled by directives).
    pub family: Option<String>,
    /// Authored candidate progresses along the route, meters (empty: drawn at random).
    pub candidates_m: Vec<f64>,
    /// The removal-distance multiplier every admission applies.
    pub removal_multiplier: f64,
    /// What its pedestrians do at the end of their route.
    pub at_route_end: RouteEnd,
    /// Whether its peds are classified law enforcement (a qualifying ped then takes the cops
    /// removal scale instead of the special one).
    pub law_enforcement: bool,
    /// The motion profile a task installed on one of its peds walks with (a standard one,
    /// `walking` or `running`, or a project's `*.motion.ron` id); `None`: `walking` (an escape
    /// runs with `running` either way unless its directive names a profile).
    pub motion_profile: Option<String>,
}

impl Default for PopulationSource {
    fn default() -> Self {
        PopulationSource {
            id: String::new(),
            kind: PopulationKind::Ambient,
            route: String::new(),
            target_count: 0,
            walk_speed_m_s: 1.4,
            capacity: None,
            batch_size: 1,
            family: None,
            candidates_m: Vec::new(),
            removal_multiplier: 1.0,
            at_route_end: RouteEnd::TurnBack,
            law_enforcement: false,
            motion_profile: None,
        }
    }
}

crate::project::codec_macro::record_codec!(PopulationSource "Source" {
    id: String,
    kind: PopulationKind = PopulationKind::Ambient,
    route: String,
    target_count: u32,
    walk_speed_m_s: f64 = 1.4,
    capacity: Option<u32> = None,
    batch_size: u32 = 1,
    family: Option<String> = None,
    candidates_m: Vec<f64> = Vec::new(),
    removal_multiplier: f64 = 1.0,
    at_route_end: RouteEnd = RouteEnd::TurnBack,
} optional {
    law_enforcement: bool = false,
    motion_profile: Option<String> = None,
});

/// Who a directive is for.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Target {
    /// The `ordinal`-th pedestrian (0-based, in birth order) of a source.
    Born {
        /// The population source.
        source: String,
        /// Birth ordinal.
        ordinal: u32,
    },
    /// The pedestrian a handle names (slot index and generation).
    Handle {
        /// Slot index.
        index: u32,
        /// Slot generation.
        generation: u32,
    },
    /// The ambient pedestrian nearest (horizontally) to a point at that frame.
    NearestAmbient {
        /// The point, meters.
        point: Vec3,
    },
    /// The world (boxes, requests, observers, families).
    #[default]
    World,
}

impl std::fmt::Display for Target {
    /// A short label: `walkers #0`, `handle 3:1`, `nearest ambient to (1, 2)`, `world`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Born { source, ordinal } => write!(f, "{source} #{ordinal}"),
            Target::Handle { index, generation } => write!(f, "handle {index}:{generation}"),
            Target::NearestAmbient { point } => {
                write!(f, "nearest ambient to ({}, {})", point.x, point.y)
            }
            Target::World => f.write_str("world"),
        }
    }
}

const TARGETS: &str =
    "one of `Born(source: …, ordinal: …)`, `Handle(index: …, generation: …)`, `NearestAmbient(point: …)`, `World`";

impl Decode for Target {
    fn expected() -> String {
        TARGETS.to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) if ident.name == "World" => Some(Target::World),
            NodeKind::Struct {
                name: Some(name), ..
            } => match name.name.as_str() {
                "Born" => {
                    let record = cx.record(node, "Born", &["source", "ordinal"])?;
                    let source = cx.required(&record, "source");
                    let ordinal = cx.required(&record, "ordinal");
                    Some(Target::Born {
                        source: source?,
                        ordinal: ordinal?,
                    })
                }
                "Handle" => {
                    let record = cx.record(node, "Handle", &["index", "generation"])?;
                    let index = cx.required(&record, "index");
                    let generation = cx.required(&record, "generation");
                    Some(Target::Handle {
                        index: index?,
                        generation: generation?,
                    })
                }
                "NearestAmbient" => {
                    let record = cx.record(node, "NearestAmbient", &["point"])?;
                    let point = cx.required(&record, "point")?;
                    Some(Target::NearestAmbient { point })
                }
                other => {
                    cx.error(name.span, format!("unknown target `{other}`"), TARGETS);
                    None
                }
            },
            _ => {
                cx.wrong_type(node, TARGETS);
                None
            }
        }
    }
}

impl Encode for Target {
    fn encode(&self) -> Doc {
        match self {
            Target::Born { source, ordinal } => Doc::Struct(
                "Born",
                vec![("source", source.encode()), ("ordinal", ordinal.encode())],
            ),
            Target::Handle { index, generation } => Doc::Struct(
                "Handle",
                vec![
                    ("index", index.encode()),
                    ("generation", generation.encode()),
                ],
            ),
            Target::NearestAmbient { point } => {
                Doc::Struct("NearestAmbient", vec![("point", point.encode())])
            }
            Target::World => Doc::Unit("World"),
        }
    }
}

/// The source a directive names when it names none: the scenario's script.
pub const DEFAULT_DIRECTIVE_SOURCE: &str = "script";

/// One scripted command at one frame for one target.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// The frame at which the command is issued.
    pub frame: u64,
    /// Who it is for.
    pub target: Target,
    /// What to do.
    pub command: DirectiveCommand,
    /// Who issues it: the task source a task command installs or must own
    /// ([`DEFAULT_DIRECTIVE_SOURCE`] unless named).
    pub source: String,
    /// The task session (tag) a task command targets; 0: the ped's current task of `source`.
    pub session: u32,
    /// The motion profile the task a route command installs or redirects walks with (by id);
    /// `None`: the source's, else `walking` (an escape: `running`).
    pub motion_profile: Option<String>,
}

impl Default for Directive {
    fn default() -> Self {
        Directive {
            frame: 0,
            target: Target::default(),
            command: DirectiveCommand::default(),
            source: DEFAULT_DIRECTIVE_SOURCE.to_owned(),
            session: 0,
            motion_profile: None,
        }
    }
}

impl Directive {
    /// The struct's name as written in RON.
    pub const RON_NAME: &'static str = "Directive";
    /// Every field name a file may write, in canonical order.
    pub const FIELD_NAMES: &'static [&'static str] = &[
        "frame",
        "target",
        "command",
        "source",
        "session",
        "motion_profile",
    ];

    /// A directive of the default source targeting no particular session.
    pub fn new(frame: u64, target: Target, command: DirectiveCommand) -> Directive {
        Directive {
            frame,
            target,
            command,
            ..Directive::default()
        }
    }
}

impl Decode for Directive {
    fn expected() -> String {
        "a `Directive(…)` struct".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let record = cx.record(node, Self::RON_NAME, Self::FIELD_NAMES)?;
        let frame = cx.required(&record, "frame");
        let target = cx.required(&record, "target");
        let command = cx.required(&record, "command");
        let source = cx.defaulted(&record, "source", DEFAULT_DIRECTIVE_SOURCE.to_owned());
        let session = cx.defaulted(&record, "session", 0u32);
        let motion_profile = cx.defaulted(&record, "motion_profile", None::<String>);
        Some(Directive {
            frame: frame?,
            target: target?,
            command: command?,
            source: source?,
            session: session?,
            motion_profile: motion_profile?,
        })
    }
}

impl Encode for Directive {
    /// `source`, `session` and `motion_profile` are written only when they differ from their
    /// defaults (the script, no particular session, no profile), so directives that name none
    /// read as they always did.
    fn encode(&self) -> Doc {
        let mut fields = vec![
            ("frame", self.frame.encode()),
            ("target", self.target.encode()),
            ("command", self.command.encode()),
        ];
        if self.source != DEFAULT_DIRECTIVE_SOURCE {
            fields.push(("source", self.source.encode()));
        }
        if self.session != 0 {
            fields.push(("session", self.session.encode()));
        }
        if let Some(profile) = &self.motion_profile {
            fields.push(("motion_profile", Some(profile.clone()).encode()));
        }
        Doc::Struct(Self::RON_NAME, fields)
    }
}

/// A scripted command (the tasks-and-directives and population-lifecycle specifications).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum DirectiveCommand {
    /// Claim the pedestrian for a script owner (Ambient → Mission).
    Claim {
        /// The owner id.
        owner: String,
        /// Whether taking another owner's pedestrian is permitted.
        allow_transfer: bool,
    },
    /// Release a claimed pedestrian back to the ambient population (its owner only).
    Release {
        /// Who releases.
        owner: String,
    },
    /// Walk to a goal.
    Rendezvous {
        /// Goal position, meters.
        goal: Vec3,
    },
    /// Stop and wait for `Continue`, keeping the goal.
    #[default]
    Hold,
    /// Resume after `Hold`.
    Continue,
    /// Stand still for a time, then walk on by itself (timed standing: released by the runtime
    /// clock, or replaced by a `Redirect`; a `Continue` does not release it).
    Stand {
        /// How long to stand, seconds.
        duration_s: f64,
    },
    /// Replace the goal.
    Redirect {
        /// New goal position, meters.
        goal: Vec3,
    },
    /// Walk to a scene object's approach point: its transform applied to a local offset.
    RendezvousWith {
        /// The scene object's id.
        object: String,
        /// Local approach offset, meters.
        offset: Vec3,
    },
    /// Replace the goal by a scene object's approach point.
    RedirectTo {
        /// The scene object's id.
        object: String,
        /// Local approach offset, meters.
        offset: Vec3,
    },
    /// Cancel the directive.
    Cancel,
    /// Flee away from a threat: queues a threat event whose response (an escape task) the next
    /// Tasks update starts.
    Escape {
        /// Threat position, meters.
        threat: Vec3,
        /// Safe distance from the threat, meters.
        safe_distance_m: f64,
        /// An externally supplied endpoint (checked against safe + 0.15 m at queuing); `None`:
        /// the selection policy chooses one.
        endpoint: Option<Vec3>,
        /// Whether the task it interrupts comes back when the escape ends (by default the
        /// interrupted goal is only kept for diagnostics).
        restore_interrupted: bool,
    },
    /// Destroy the pedestrian explicitly.
    Destroy,
    /// Knock the pedestrian down: a rigid body takes over until it recovers.
    Knockdown {
        /// Impulse applied at the chest, newton-seconds.
        impulse_n_s: Vec3,
    },
    /// Set the no-spawn box (an invalid box is refused, keeping the old one).
    SetNoSpawnBox {
        /// The box.
        bounds: Box3,
    },
    /// Clear the no-spawn box.
    ClearNoSpawnBox,
    /// Set the no-removal box.
    SetNoRemovalBox {
        /// The box.
        bounds: Box3,
    },
    /// Clear the no-removal box.
    ClearNoRemovalBox,
    /// Suppress aggressive cleanup at the next Control update.
    SuppressCleanup,
    /// Open (or extend) a forced-init window.
    ForcedInit {
        /// Its length, seconds.
        duration_s: f64,
    },
    /// Request an instant fill.
    InstantFill,
    /// Pause the population clocks for a time: no cycles and no new debt, while the debt
    /// already owed, pending demands and everything else stay as they are.
    PausePopulation {
        /// How long, seconds.
        duration_s: f64,
    },
    /// Place (or move) an obstacle: a wall segment of some thickness that bodies, admission and
    /// knockdown recovery meet from this frame on, unknown to navigation (a newly placed
    /// obstacle the path data has not caught up with).
    PlaceObstacle {
        /// Its id (not an authored object's or barrier's).
        obstacle: String,
        /// One end, meters.
        from: Vec3,
        /// The other end, meters.
        to: Vec3,
        /// Thickness, meters.
        thickness_m: f64,
    },
    /// Remove an obstacle from the physical scene: a placed one, or an authored scene object's
    /// footprint or barrier (navigation data keeps an authored one).
    RemoveObstacle {
        /// The id of the obstacle, object or barrier.
        obstacle: String,
    },
    /// Set an observer's fade.
    SetObserverFade {
        /// The observer's id.
        observer: String,
        /// Fade, 0 (clear) to 1 (black).
        fade: f64,
    },
    /// Set an observer's validity.
    SetObserverValid {
        /// The observer's id.
        observer: String,
        /// Whether the view is valid.
        valid: bool,
    },
    /// Set the pedestrian's removal-distance multiplier.
    SetRemovalMultiplier {
        /// The multiplier (positive).
        multiplier: f64,
    },
    /// Ask for one of the pedestrian's extra-distance retirement flags: the ordinary flag (for
    /// the next Control update only), or with `task` the task flag its active primary task
    /// asserts at every full task update while it stays active.
    ExtendRemovalDistance {
        /// The task flag (else the ordinary one).
        task: bool,
    },
    /// Set the pedestrian's vehicle intent.
    SetVehicleIntent {
        /// Whether it intends to enter a vehicle.
        intent: bool,
    },
    /// Set the pedestrian's vehicle relationship (seated, entering, exiting, intent or none).
    SetVehicleRelation {
        /// The relationship.
        relation: VehicleRelation,
    },
    /// Queue an event candidate for the pedestrian: the next Tasks update makes it the
    /// pedestrian's current event, which lasts `duration_s`; both protect it from retirement.
    QueueEvent {
        /// How long the event lasts once current, seconds.
        duration_s: f64,
    },
    /// End the ped events matching a type, a source and a session tag (each empty / 0 matches
    /// any); an active threat event's escape is cancelled with it.
    ClearEvents {
        /// `threat`, `incident` or empty (any type).
        event_type: String,
        /// The events' source, or empty (any source).
        event_source: String,
        /// The events' session tag, or 0 (any tag).
        tag: u32,
    },
    /// Make an appearance family available or not.
    SetFamilyAvailable {
        /// The family's id.
        family: String,
        /// Whether its bindings are ready.
        available: bool,
    },
    /// A panic stimulus: pedestrians within `radius_m` of `center` panic (linear falloff clamped
    /// to [0.25, 1], times `strength`) and flee to exits.
    Panic {
        /// Centre of the stimulus, meters.
        center: Vec3,
        /// Radius it reaches, meters.
        radius_m: f64,
        /// Panic added at the centre, 0..1.
        strength: f64,
    },
    /// Set the pedestrian's relevance (0..1) for the tiers and the crowd governor.
    SetRelevance {
        /// The relevance.
        relevance: f64,
    },
    /// The pedestrian (an observer with factions) sees a presented faction on line of sight.
    LineOfSight {
        /// The faction or disguise presented to it.
        presented: String,
        /// Its own faction.
        own: String,
        /// Factions allied to it.
        allied: Vec<String>,
        /// Factions hostile to it.
        hostile: Vec<String>,
        /// Disguises it accepts.
        accepted_disguises: Vec<String>,
    },
}

impl DirectiveCommand {
    /// Whether the command acts on the world rather than on a pedestrian (the directive
    /// table's `targets`).
    pub fn is_world(&self) -> bool {
        self.schema().is_world()
    }

    /// Whether the command installs or redirects a walked route (a directive's
    /// `motion_profile` applies to these only).
    pub fn is_route(&self) -> bool {
        matches!(
            self,
            DirectiveCommand::Rendezvous { .. }
                | DirectiveCommand::RendezvousWith { .. }
                | DirectiveCommand::Redirect { .. }
                | DirectiveCommand::RedirectTo { .. }
                | DirectiveCommand::Escape { .. }
        )
    }
}

const COMMANDS: &str = "one of `Claim(owner: …)`, `Release(owner: …)`, `Rendezvous(goal: …)`, `Hold`, `Continue`, `Stand(duration_s: …)`, `Redirect(goal: …)`, `RendezvousWith(object: …, offset: …)`, `RedirectTo(object: …, offset: …)`, `Cancel`, `Escape(threat: …, safe_distance_m: …, endpoint: …, restore_interrupted: …)`, `Destroy`, `SetNoSpawnBox(bounds: …)`, `ClearNoSpawnBox`, `SetNoRemovalBox(bounds: …)`, `ClearNoRemovalBox`, `SuppressCleanup`, `ForcedInit(duration_s: …)` (or `ForcedInit`, 0.7 s), `InstantFill`, `PausePopulation(duration_s: …)`, `PlaceObstacle(obstacle: …, from: …, to: …, thickness_m: …)`, `RemoveObstacle(obstacle: …)`, `SetObserverFade(observer: …, fade: …)`, `SetObserverValid(observer: …, valid: …)`, `SetRemovalMultiplier(multiplier: …)`, `ExtendRemovalDistance(task: …)` (or `ExtendRemovalDistance`, the ordinary flag), `SetVehicleIntent(intent: …)`, `SetVehicleRelation(relation: …)`, `QueueEvent(duration_s: …)`, `SetFamilyAvailable(family: …, available: …)`, `ClearEvents(event_type: …, event_source: …, tag: …)`, `Knockdown(impulse_n_s: …)`, `Panic(center: …, radius_m: …, strength: …)`, `SetRelevance(relevance: …)`, `LineOfSight(presented: …, own: …, allied: …, hostile: …, accepted_disguises: …)`";

/// The forced-initialization window a `ForcedInit` without a duration requests, seconds (the
/// population specification's default; `sim::population::startup` keeps it in integer
/// milliseconds).
pub const DEFAULT_FORCED_INIT_S: f64 = 0.7;

fn unit_command(name: &str) -> Option<DirectiveCommand> {
    Some(match name {
        "Hold" => DirectiveCommand::Hold,
        "Continue" => DirectiveCommand::Continue,
        "Cancel" => DirectiveCommand::Cancel,
        "Destroy" => DirectiveCommand::Destroy,
        "ClearNoSpawnBox" => DirectiveCommand::ClearNoSpawnBox,
        "ClearNoRemovalBox" => DirectiveCommand::ClearNoRemovalBox,
        "SuppressCleanup" => DirectiveCommand::SuppressCleanup,
        "InstantFill" => DirectiveCommand::InstantFill,
        "ExtendRemovalDistance" => DirectiveCommand::ExtendRemovalDistance { task: false },
        "ForcedInit" => DirectiveCommand::ForcedInit {
            duration_s: DEFAULT_FORCED_INIT_S,
        },
        _ => return None,
    })
}

/// Decodes the struct commands that name one or two fields.
fn struct_command(name: &str, node: &Node, cx: &mut Decoder) -> Option<Option<DirectiveCommand>> {
    let fields = struct_command_fields(name)?;
    let Some(record) = cx.record(node, name, fields) else {
        return Some(None);
    };
    let command = match name {
        "Claim" | "Release" | "Rendezvous" | "Redirect" | "RendezvousWith" | "RedirectTo"
        | "Escape" | "Knockdown" | "Stand" => pedestrian_command(name, &record, cx),
        _ => world_command(name, &record, cx),
    };
    Some(command)
}

/// The fields of each struct command; `None` for a name that is not one.
fn struct_command_fields(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "Claim" => &["owner", "allow_transfer"],
        "Release" => &["owner"],
        "Rendezvous" | "Redirect" => &["goal"],
        "RendezvousWith" | "RedirectTo" => &["object", "offset"],
        "Escape" => &[
            "threat",
            "safe_distance_m",
            "endpoint",
            "restore_interrupted",
        ],
        "Knockdown" => &["impulse_n_s"],
        "SetNoSpawnBox" | "SetNoRemovalBox" => &["bounds"],
        "ForcedInit" | "Stand" | "QueueEvent" | "PausePopulation" => &["duration_s"],
        "PlaceObstacle" => &["obstacle", "from", "to", "thickness_m"],
        "RemoveObstacle" => &["obstacle"],
        "SetObserverFade" => &["observer", "fade"],
        "SetObserverValid" => &["observer", "valid"],
        "SetRemovalMultiplier" => &["multiplier"],
        "ExtendRemovalDistance" => &["task"],
        "SetVehicleIntent" => &["intent"],
        "SetVehicleRelation" => &["relation"],
        "SetFamilyAvailable" => &["family", "available"],
        "ClearEvents" => &["event_type", "event_source", "tag"],
        "Panic" => &["center", "radius_m", "strength"],
        "SetRelevance" => &["relevance"],
        "LineOfSight" => &[
            "presented",
            "own",
            "allied",
            "hostile",
            "accepted_disguises",
        ],
        _ => return None,
    })
}

/// Decodes the struct commands addressed to pedestrians.
fn pedestrian_command(
    name: &str,
    record: &crate::project::decode::Record<'_>,
    cx: &mut Decoder,
) -> Option<DirectiveCommand> {
    match name {
        "Claim" => {
            let owner = cx.required(record, "owner");
            let allow_transfer = cx.defaulted(record, "allow_transfer", false);
            owner
                .zip(allow_transfer)
                .map(|(owner, allow_transfer)| DirectiveCommand::Claim {
                    owner,
                    allow_transfer,
                })
        }
        "Release" => cx
            .required(record, "owner")
            .map(|owner| DirectiveCommand::Release { owner }),
        "Rendezvous" => cx
            .required(record, "goal")
            .map(|goal| DirectiveCommand::Rendezvous { goal }),
        "Redirect" => cx
            .required(record, "goal")
            .map(|goal| DirectiveCommand::Redirect { goal }),
        "RendezvousWith" | "RedirectTo" => {
            let object = cx.required(record, "object");
            let offset = cx.defaulted(record, "offset", Vec3::default());
            object.zip(offset).map(|(object, offset)| {
                if name == "RendezvousWith" {
                    DirectiveCommand::RendezvousWith { object, offset }
                } else {
                    DirectiveCommand::RedirectTo { object, offset }
                }
            })
        }
        "Escape" => {
            let threat = cx.required(record, "threat");
            let safe = cx.required(record, "safe_distance_m");
            let endpoint = cx.optional(record, "endpoint");
            let restore = cx.defaulted(record, "restore_interrupted", false);
            Some(DirectiveCommand::Escape {
                threat: threat?,
                safe_distance_m: safe?,
                endpoint: endpoint?,
                restore_interrupted: restore?,
            })
        }
        "Knockdown" => cx
            .required(record, "impulse_n_s")
            .map(|impulse_n_s| DirectiveCommand::Knockdown { impulse_n_s }),
        "Stand" => cx
            .required(record, "duration_s")
            .map(|duration_s| DirectiveCommand::Stand { duration_s }),
        _ => None,
    }
}

/// Decodes the struct commands addressed to the world: boxes, population, observers, vehicles,
/// crowds, the scene and families.
fn world_command(
    name: &str,
    record: &crate::project::decode::Record<'_>,
    cx: &mut Decoder,
) -> Option<DirectiveCommand> {
    match name {
        "SetNoSpawnBox" => cx
            .required(record, "bounds")
            .map(|bounds| DirectiveCommand::SetNoSpawnBox { bounds }),
        "SetNoRemovalBox" => cx
            .required(record, "bounds")
            .map(|bounds| DirectiveCommand::SetNoRemovalBox { bounds }),
        "ForcedInit" => cx
            .defaulted(record, "duration_s", DEFAULT_FORCED_INIT_S)
            .map(|duration_s| DirectiveCommand::ForcedInit { duration_s }),
        "SetObserverFade" => {
            let observer = cx.required(record, "observer");
            let fade = cx.required(record, "fade");
            observer
                .zip(fade)
                .map(|(observer, fade)| DirectiveCommand::SetObserverFade { observer, fade })
        }
        "SetObserverValid" => {
            let observer = cx.required(record, "observer");
            let valid = cx.required(record, "valid");
            observer
                .zip(valid)
                .map(|(observer, valid)| DirectiveCommand::SetObserverValid { observer, valid })
        }
        "SetRemovalMultiplier" => cx
            .required(record, "multiplier")
            .map(|multiplier| DirectiveCommand::SetRemovalMultiplier { multiplier }),
        "ExtendRemovalDistance" => cx
            .defaulted(record, "task", false)
            .map(|task| DirectiveCommand::ExtendRemovalDistance { task }),
        "SetVehicleIntent" => cx
            .required(record, "intent")
            .map(|intent| DirectiveCommand::SetVehicleIntent { intent }),
        "SetVehicleRelation" => cx
            .required(record, "relation")
            .map(|relation| DirectiveCommand::SetVehicleRelation { relation }),
        "QueueEvent" => cx
            .required(record, "duration_s")
            .map(|duration_s| DirectiveCommand::QueueEvent { duration_s }),
        "PausePopulation" => cx
            .required(record, "duration_s")
            .map(|duration_s| DirectiveCommand::PausePopulation { duration_s }),
        "Panic" | "SetRelevance" | "LineOfSight" => crowd_command(name, record, cx),
        "PlaceObstacle" | "RemoveObstacle" => scene_command(name, record, cx),
        "ClearEvents" => {
            let event_type = cx.defaulted(record, "event_type", String::new());
            let event_source = cx.defaulted(record, "event_source", String::new());
            let tag = cx.defaulted(record, "tag", 0u32);
            Some(DirectiveCommand::ClearEvents {
                event_type: event_type?,
                event_source: event_source?,
                tag: tag?,
            })
        }
        _ => {
            let family = cx.required(record, "family");
            let available = cx.required(record, "available");
            family
                .zip(available)
                .map(|(family, available)| DirectiveCommand::SetFamilyAvailable {
                    family,
                    available,
                })
        }
    }
}

/// The thickness of a placed obstacle whose directive gives none, meters (a barrier's default).
pub const DEFAULT_OBSTACLE_THICKNESS_M: f64 = 0.2;

/// Decodes the scene commands (`PlaceObstacle`, `RemoveObstacle`).
fn scene_command(
    name: &str,
    record: &crate::project::decode::Record<'_>,
    cx: &mut Decoder,
) -> Option<DirectiveCommand> {
    let obstacle = cx.required(record, "obstacle");
    if name == "RemoveObstacle" {
        return obstacle.map(|obstacle| DirectiveCommand::RemoveObstacle { obstacle });
    }
    let from = cx.required(record, "from");
    let to = cx.required(record, "to");
    let thickness_m = cx.defaulted(record, "thickness_m", DEFAULT_OBSTACLE_THICKNESS_M);
    Some(DirectiveCommand::PlaceObstacle {
        obstacle: obstacle?,
        from: from?,
        to: to?,
        thickness_m: thickness_m?,
    })
}

/// Decodes the crowd commands (`Panic`, `SetRelevance`, `LineOfSight`).
fn crowd_command(
    name: &str,
    record: &crate::project::decode::Record<'_>,
    cx: &mut Decoder,
) -> Option<DirectiveCommand> {
    match name {
        "Panic" => {
            let center = cx.required(record, "center");
            let radius_m = cx.required(record, "radius_m");
            let strength = cx.required(record, "strength");
            Some(DirectiveCommand::Panic {
                center: center?,
                radius_m: radius_m?,
                strength: strength?,
            })
        }
        "SetRelevance" => cx
            .required(record, "relevance")
            .map(|relevance| DirectiveCommand::SetRelevance { relevance }),
        _ => {
            let presented = cx.required(record, "presented");
            let own = cx.required(record, "own");
            let allied = cx.defaulted(record, "allied", Vec::new());
            let hostile = cx.defaulted(record, "hostile", Vec::new());
            let accepted = cx.defaulted(record, "accepted_disguises", Vec::new());
            Some(DirectiveCommand::LineOfSight {
                presented: presented?,
                own: own?,
                allied: allied?,
                hostile: hostile?,
                accepted_disguises: accepted?,
            })
        }
    }
}

impl Decode for DirectiveCommand {
    fn expected() -> String {
        COMMANDS.to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) => {
                let command = unit_command(&ident.name);
                if command.is_none() {
                    cx.error(
                        node.span,
                        format!("unknown command `{}`", ident.name),
                        COMMANDS,
                    );
                }
                command
            }
            NodeKind::Struct {
                name: Some(name), ..
            } => match struct_command(&name.name, node, cx) {
                Some(command) => command,
                None => {
                    cx.error(
                        name.span,
                        format!("unknown command `{}`", name.name),
                        COMMANDS,
                    );
                    None
                }
            },
            _ => {
                cx.wrong_type(node, COMMANDS);
                None
            }
        }
    }
}

impl Encode for DirectiveCommand {
    // Long because (over 80 lines): a flat table, one arm per command variant naming its
    // fields, the mirror of `struct_command_fields`; split up, it would only be scattered.
    fn encode(&self) -> Doc {
        use DirectiveCommand as C;
        let one = |name, field, value: Doc| Doc::Struct(name, vec![(field, value)]);
        match self {
            C::Claim {
                owner,
                allow_transfer,
            } => Doc::Struct(
                "Claim",
                vec![
                    ("owner", owner.encode()),
                    ("allow_transfer", allow_transfer.encode()),
                ],
            ),
            C::Release { owner } => one("Release", "owner", owner.encode()),
            C::Rendezvous { goal } => one("Rendezvous", "goal", goal.encode()),
            C::Hold => Doc::Unit("Hold"),
            C::Continue => Doc::Unit("Continue"),
            C::Stand { duration_s } => one("Stand", "duration_s", duration_s.encode()),
            C::Redirect { goal } => one("Redirect", "goal", goal.encode()),
            C::RendezvousWith { object, offset } => Doc::Struct(
                "RendezvousWith",
                vec![("object", object.encode()), ("offset", offset.encode())],
            ),
            C::RedirectTo { object, offset } => Doc::Struct(
                "RedirectTo",
                vec![("object", object.encode()), ("offset", offset.encode())],
            ),
            C::Cancel => Doc::Unit("Cancel"),
            C::Escape {
                threat,
                safe_distance_m,
                endpoint,
                restore_interrupted,
            } => {
                // The optional fields are written only when given (see `Directive`'s `source`).
                let mut fields = vec![
                    ("threat", threat.encode()),
                    ("safe_distance_m", safe_distance_m.encode()),
                ];
                if let Some(endpoint) = endpoint {
                    fields.push(("endpoint", endpoint.encode()));
                }
                if *restore_interrupted {
                    fields.push(("restore_interrupted", true.encode()));
                }
                Doc::Struct("Escape", fields)
            }
            C::Destroy => Doc::Unit("Destroy"),
            C::Knockdown { impulse_n_s } => one("Knockdown", "impulse_n_s", impulse_n_s.encode()),
            C::SetNoSpawnBox { bounds } => one("SetNoSpawnBox", "bounds", bounds.encode()),
            C::ClearNoSpawnBox => Doc::Unit("ClearNoSpawnBox"),
            C::SetNoRemovalBox { bounds } => one("SetNoRemovalBox", "bounds", bounds.encode()),
            C::ClearNoRemovalBox => Doc::Unit("ClearNoRemovalBox"),
            C::SuppressCleanup => Doc::Unit("SuppressCleanup"),
            C::ForcedInit { duration_s } => one("ForcedInit", "duration_s", duration_s.encode()),
            C::InstantFill => Doc::Unit("InstantFill"),
            C::PausePopulation { duration_s } => {
                one("PausePopulation", "duration_s", duration_s.encode())
            }
            C::PlaceObstacle {
                obstacle,
                from,
                to,
                thickness_m,
            } => Doc::Struct(
                "PlaceObstacle",
                vec![
                    ("obstacle", obstacle.encode()),
                    ("from", from.encode()),
                    ("to", to.encode()),
                    ("thickness_m", thickness_m.encode()),
                ],
            ),
            C::RemoveObstacle { obstacle } => one("RemoveObstacle", "obstacle", obstacle.encode()),
            C::SetObserverFade { observer, fade } => Doc::Struct(
                "SetObserverFade",
                vec![("observer", observer.encode()), ("fade", fade.encode())],
            ),
            C::SetObserverValid { observer, valid } => Doc::Struct(
                "SetObserverValid",
                vec![("observer", observer.encode()), ("valid", valid.encode())],
            ),
            C::SetRemovalMultiplier { multiplier } => {
                one("SetRemovalMultiplier", "multiplier", multiplier.encode())
            }
            C::ExtendRemovalDistance { task } => {
                one("ExtendRemovalDistance", "task", task.encode())
            }
            C::SetVehicleIntent { intent } => one("SetVehicleIntent", "intent", intent.encode()),
            C::SetVehicleRelation { relation } => {
                one("SetVehicleRelation", "relation", relation.encode())
            }
            C::QueueEvent { duration_s } => one("QueueEvent", "duration_s", duration_s.encode()),
            C::Panic {
                center,
                radius_m,
                strength,
            } => Doc::Struct(
                "Panic",
                vec![
                    ("center", center.encode()),
                    ("radius_m", radius_m.encode()),
                    ("strength", strength.encode()),
                ],
            ),
            C::SetRelevance { relevance } => one("SetRelevance", "relevance", relevance.encode()),
            C::LineOfSight {
                presented,
                own,
                allied,
                hostile,
                accepted_disguises,
            } => Doc::Struct(
                "LineOfSight",
                vec![
                    ("presented", presented.encode()),
                    ("own", own.encode()),
                    ("allied", allied.encode()),
                    ("hostile", hostile.encode()),
                    ("accepted_disguises", accepted_disguises.encode()),
                ],
            ),
            C::ClearEvents {
                event_type,
                event_source,
                tag,
            } => Doc::Struct(
                "ClearEvents",
                vec![
                    ("event_type", event_type.encode()),
                    ("event_source", event_source.encode()),
                    ("tag", tag.encode()),
                ],
            ),
            C::SetFamilyAvailable { family, available } => Doc::Struct(
                "SetFamilyAvailable",
                vec![
                    ("family", family.encode()),
                    ("available", available.encode()),
                ],
            ),
        }
    }
}
