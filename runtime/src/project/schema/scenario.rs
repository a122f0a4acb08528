//! Scenario documents `scenarios/<id>.scenario.ron`: observers, population sources, boxes, directives.

use super::common::{Box3, Vec3};
use crate::project::decode::{decode_unit_variant, Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// Current schema version of scenarios.
pub const SCENARIO_SCHEMA: u32 = 1;

/// The fixed step a scenario gets when its file gives none, seconds.
pub const DEFAULT_FIXED_STEP_S: f64 = 0.05;
/// The longest fixed step allowed, seconds (steps are in `(0, MAX_FIXED_STEP_S]`).
pub const MAX_FIXED_STEP_S: f64 = 1.0;
/// The length a scenario gets when its file gives none, frames.
pub const DEFAULT_DURATION_FRAMES: u64 = 1200;

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
    /// Scripted directives, by frame.
    pub directives: Vec<Directive>,
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
    directives: Vec<Directive> = Vec::new(),
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
}

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
});

/// Whether a source's pedestrians are ambient population or owned by a script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
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

/// A population source: pedestrians born along one route of the pedestrian space.
#[derive(Clone, Debug, Default, PartialEq)]
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
}

crate::project::codec_macro::record_codec!(PopulationSource "Source" {
    id: String,
    kind: PopulationKind = PopulationKind::Ambient,
    route: String,
    target_count: u32,
    walk_speed_m_s: f64 = 1.4,
});

/// One scripted command at one frame for one pedestrian of a source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Directive {
    /// The frame at which the command is issued.
    pub frame: u64,
    /// The population source of the pedestrian.
    pub source: String,
    /// Which of the source's pedestrians (0-based, in birth order).
    pub agent: u32,
    /// What to do.
    pub command: DirectiveCommand,
}

crate::project::codec_macro::record_codec!(Directive "Directive" {
    frame: u64,
    source: String,
    agent: u32,
    command: DirectiveCommand,
});

/// A scripted command (the tasks-and-directives seed).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum DirectiveCommand {
    /// Claim the pedestrian for a script owner (Ambient → Mission).
    Claim {
        /// The owner id.
        owner: String,
    },
    /// Release a claimed pedestrian back to the ambient population.
    Release,
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
    /// Replace the goal.
    Redirect {
        /// New goal position, meters.
        goal: Vec3,
    },
    /// Cancel the directive.
    Cancel,
    /// Flee away from a threat.
    Escape {
        /// Threat position, meters.
        threat: Vec3,
        /// Safe distance from the threat, meters.
        safe_distance_m: f64,
    },
}

const COMMANDS: &str =
    "one of `Claim(owner: …)`, `Release`, `Rendezvous(goal: …)`, `Hold`, `Continue`, `Redirect(goal: …)`, `Cancel`, `Escape(threat: …, safe_distance_m: …)`";

impl Decode for DirectiveCommand {
    fn expected() -> String {
        COMMANDS.to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) => match ident.name.as_str() {
                "Release" => Some(DirectiveCommand::Release),
                "Hold" => Some(DirectiveCommand::Hold),
                "Continue" => Some(DirectiveCommand::Continue),
                "Cancel" => Some(DirectiveCommand::Cancel),
                other => {
                    cx.error(node.span, format!("unknown command `{other}`"), COMMANDS);
                    None
                }
            },
            NodeKind::Struct {
                name: Some(name), ..
            } => match name.name.as_str() {
                "Claim" => {
                    let record = cx.record(node, "Claim", &["owner"])?;
                    let owner = cx.required(&record, "owner")?;
                    Some(DirectiveCommand::Claim { owner })
                }
                "Rendezvous" => {
                    let record = cx.record(node, "Rendezvous", &["goal"])?;
                    let goal = cx.required(&record, "goal")?;
                    Some(DirectiveCommand::Rendezvous { goal })
                }
                "Redirect" => {
                    let record = cx.record(node, "Redirect", &["goal"])?;
                    let goal = cx.required(&record, "goal")?;
                    Some(DirectiveCommand::Redirect { goal })
                }
                "Escape" => {
                    let record = cx.record(node, "Escape", &["threat", "safe_distance_m"])?;
                    let threat = cx.required(&record, "threat");
                    let safe_distance_m = cx.required(&record, "safe_distance_m");
                    Some(DirectiveCommand::Escape {
                        threat: threat?,
                        safe_distance_m: safe_distance_m?,
                    })
                }
                other => {
                    cx.error(name.span, format!("unknown command `{other}`"), COMMANDS);
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
    fn encode(&self) -> Doc {
        match self {
            DirectiveCommand::Claim { owner } => {
                Doc::Struct("Claim", vec![("owner", owner.encode())])
            }
            DirectiveCommand::Release => Doc::Unit("Release"),
            DirectiveCommand::Rendezvous { goal } => {
                Doc::Struct("Rendezvous", vec![("goal", goal.encode())])
            }
            DirectiveCommand::Hold => Doc::Unit("Hold"),
            DirectiveCommand::Continue => Doc::Unit("Continue"),
            DirectiveCommand::Redirect { goal } => {
                Doc::Struct("Redirect", vec![("goal", goal.encode())])
            }
            DirectiveCommand::Cancel => Doc::Unit("Cancel"),
            DirectiveCommand::Escape {
                threat,
                safe_distance_m,
            } => Doc::Struct(
                "Escape",
                vec![
                    ("threat", threat.encode()),
                    ("safe_distance_m", safe_distance_m.encode()),
                ],
            ),
        }
    }
}
