//! The runtime scenario: a scenario document compiled into what the world runs — sources,
//! observers, boxes and directives with their targets resolved to indices, sorted by frame — and
//! the diagnostics (with field paths) of what the world cannot run.
//!
//! Compiling reads the document once; the world never sees a document type. Rules here are the
//! ones the runtime itself depends on (finite numbers, positive steps and speeds, ordered boxes,
//! directives naming a source of the scenario, sizes that fit the indices); the document's
//! authoring rules and their located messages stay in `project::validate`.

use std::collections::BTreeSet;

use super::crossings::{CrossingSettings, HazardSpec, SignalTiming};
use super::motion::disguise::Factions;
use super::obstacles::Obstacle;
use super::population::{AttachFault, ClockConfig, ClocksConfig};
pub use super::tasks::rendezvous::{BarrierSpec, SceneObjectSpec};
use crate::content::encode::ByteWriter;
use crate::project::{scenario_field, FieldSchema};
use crate::project::{
    Box3, CrossingsSettings, DirectiveCommand, FieldPath, MotionSettings, NumberRange, Observer,
    PopulationKind, PopulationSettings, PopulationSource, RouteEnd, Scenario, Target, Vec2, Vec3,
    VehicleRelation,
};
use crate::sim::state::{AgentHandle, BoxSlot};

/// An axis-aligned box, inclusive on both ends, meters.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct SimBox {
    /// Lowest corner `[x, y, z]`.
    pub min_m: [f64; 3],
    /// Highest corner `[x, y, z]`.
    pub max_m: [f64; 3],
}

impl SimBox {
    /// Inclusive containment of a point.
    pub fn contains(&self, point_m: [f64; 3]) -> bool {
        (0..3).all(|axis| (self.min_m[axis]..=self.max_m[axis]).contains(&point_m[axis]))
    }
}

/// A view that admission, removal and streaming read.
#[derive(Clone, Debug, PartialEq)]
pub struct ObserverSpec {
    /// The observer's id.
    pub id: String,
    /// Eye position `[x, y, z]`, meters.
    pub position_m: [f64; 3],
    /// Heading around Z, radians.
    pub yaw_rad: f64,
    /// Pitch, radians.
    pub pitch_rad: f64,
    /// Vertical field of view, radians.
    pub fov_y_rad: f64,
    /// Near plane, meters.
    pub near_m: f64,
    /// Far plane, meters.
    pub far_m: f64,
    /// Retained within this horizontal distance (Rout), meters.
    pub retain_radius_m: f64,
    /// Removable beyond this horizontal distance (Rin), meters.
    pub remove_radius_m: f64,
    /// Closer than this to the camera (3D) a visible birth is refused, meters.
    pub close_m: f64,
    /// The population center ranges are measured from (the camera's position when `None`);
    /// it moves with the camera along the path.
    pub center_m: Option<[f64; 3]>,
    /// Keyframed camera positions, ascending by frame (empty: the camera stays put).
    pub path: Vec<ObserverKey>,
    /// Keyframed aim `(frame, yaw_rad, pitch_rad)`, ascending by frame (empty: `yaw_rad` and
    /// `pitch_rad` throughout).
    pub aim: Vec<(u64, f64, f64)>,
    /// Fade at the start, 0 (clear) to 1 (black).
    pub fade: f64,
    /// Whether the view is valid at the start.
    pub valid: bool,
}

/// One keyframe of an observer's path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObserverKey {
    /// The frame.
    pub frame: u64,
    /// Camera position at that frame, meters.
    pub position_m: [f64; 3],
}

/// Default 3D distance within which a visible birth is refused, meters.
pub const DEFAULT_CLOSE_M: f64 = 3.0;

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
    /// Index of the appearance family its peds need in [`CompiledScenario::families`].
    pub family: Option<u16>,
    /// Authored candidate progresses along the route, meters (empty: drawn at random).
    pub candidates_m: Vec<f64>,
    /// The removal-distance multiplier every admission applies (the model default).
    pub removal_multiplier: f64,
    /// Whether its peds stop at their route's goal (otherwise they turn back).
    pub stops_at_route_end: bool,
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
        }
    }
}

/// Who a directive is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DirectiveTarget {
    /// The `ordinal`-th agent (0-based, in birth order) of source `source`.
    Born {
        /// Index of the source in [`CompiledScenario::sources`].
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
        /// Index of the object in [`CompiledScenario::objects`].
        object: u16,
        /// Local approach offset, meters.
        offset: [f64; 3],
    },
    /// Replace the goal by a scene object's approach point.
    RedirectTo {
        /// Index of the object in [`CompiledScenario::objects`].
        object: u16,
        /// Local approach offset, meters.
        offset: [f64; 3],
    },
    /// Cancel the directive.
    Cancel,
    /// Flee from a threat.
    Escape {
        /// Threat position, meters.
        threat: Vec2,
        /// Safe distance from the threat, meters.
        safe_distance_m: f64,
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
    /// Make an appearance family available or not.
    SetFamilyAvailable {
        /// Index of the family in [`CompiledScenario::families`].
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
        }
    }
}

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
}

/// A scenario compiled for the runtime.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledScenario {
    /// The scenario's id.
    pub id: String,
    /// The recipe whose content it runs on.
    pub recipe: String,
    /// Fixed step, seconds.
    pub fixed_step_s: f64,
    /// Length, frames.
    pub duration_frames: u64,
    /// Views, in file order.
    pub observers: Vec<ObserverSpec>,
    /// Sources, in file order (directives and agents index them).
    pub sources: Vec<SourceSpec>,
    /// No ambient births inside this box.
    pub no_spawn_box: Option<SimBox>,
    /// Ambient members inside this box are never retired automatically.
    pub no_removal_box: Option<SimBox>,
    /// Directives sorted by frame (file order within a frame).
    pub directives: Vec<DirectiveSpec>,
    /// Vehicle sources, in file order.
    pub vehicle_sources: Vec<VehicleSourceSpec>,
    /// Appearance families the sources name, sorted and unique.
    pub families: Vec<String>,
    /// Population parameters.
    pub population: PopulationParams,
    /// Motion tiers, avoidance budget, crowd governor and exits (checked).
    pub motion: MotionSettings,
    /// Crosswalks, signals, groups and the liveness guard.
    pub crossings: CrossingSettings,
    /// Authored scene objects, in file order (rendezvous goals, footprints the paths avoid).
    pub objects: Vec<SceneObjectSpec>,
    /// Authored barriers, in file order.
    pub barriers: Vec<BarrierSpec>,
}

pub use super::problems::{SimBuildError, SimDiagnostic, SimProblem};

/// Collects diagnostics while compiling.
struct Problems {
    diagnostics: Vec<SimDiagnostic>,
}

impl Problems {
    fn push(&mut self, path: FieldPath, problem: SimProblem) {
        self.diagnostics.push(SimDiagnostic { path, problem });
    }

    fn finite(&mut self, path: FieldPath, values: &[f64]) {
        if values.iter().any(|v| !v.is_finite()) {
            self.push(path, SimProblem::NonFinite);
        }
    }

    fn positive(&mut self, path: FieldPath, value: f64) {
        if !value.is_finite() {
            self.push(path, SimProblem::NonFinite);
        } else if value <= 0.0 {
            self.push(path, SimProblem::NotPositive { value });
        }
    }

    /// `value` against the range of its field schema (`project::SCENARIO_SECTIONS`): a
    /// positive range is reported as "not a positive number", any other as out of range.
    fn field(&mut self, path: FieldPath, field: &FieldSchema, value: f64) {
        match field.range {
            Some(range) if range.is_positive() => self.positive(path, value),
            Some(range) => self.in_range(path, value, &range),
            None => {}
        }
    }

    /// Each of `fields` (name, value) of scenario section `section`, against its schema.
    fn section(&mut self, path: &FieldPath, section: &str, fields: &[(&str, f64)]) {
        for (name, value) in fields {
            self.field(path.field(name), scenario_field(section, name), *value);
        }
    }

    /// A number outside its documented range (`project::SCENARIO_SECTIONS`).
    fn in_range(&mut self, path: FieldPath, value: f64, range: &NumberRange) {
        if !value.is_finite() {
            self.push(path, SimProblem::NonFinite);
        } else if !range.contains(value) {
            self.push(
                path,
                SimProblem::OutOfRange {
                    value,
                    range: range.text,
                },
            );
        }
    }
}

impl CompiledScenario {
    /// Compiles `scenario`; the error lists every problem with its field path.
    pub fn compile(scenario: &Scenario) -> Result<CompiledScenario, SimBuildError> {
        let root = FieldPath::root();
        let mut problems = Problems {
            diagnostics: Vec::new(),
        };
        let fixed_step = scenario_field("Scenario", "fixed_step_s").range;
        if !fixed_step.is_some_and(|range| range.contains(scenario.fixed_step_s)) {
            problems.push(
                root.field("fixed_step_s"),
                SimProblem::BadFixedStep {
                    fixed_step_s: scenario.fixed_step_s,
                },
            );
        }
        // As a float: every u64 above the range is still above it after rounding.
        problems.section(
            &root,
            "Scenario",
            &[("duration_frames", scenario.duration_frames as f64)],
        );
        let observers = scenario
            .observers
            .iter()
            .enumerate()
            .map(|(i, o)| observer(o, root.field("observers").index(i), &mut problems))
            .collect();
        let sources = sources(&scenario.sources, &root, &mut problems);
        let no_spawn_box = scenario
            .no_spawn_box
            .map(|b| sim_box(&b, root.field("no_spawn_box"), &mut problems));
        let no_removal_box = scenario
            .no_removal_box
            .map(|b| sim_box(&b, root.field("no_removal_box"), &mut problems));
        let families: Vec<String> = scenario
            .sources
            .iter()
            .filter_map(|s| s.family.clone())
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        let sources: Vec<SourceSpec> = sources
            .into_iter()
            .zip(&scenario.sources)
            .map(|(mut spec, source)| {
                spec.family = source
                    .family
                    .as_ref()
                    .and_then(|f| families.binary_search(f).ok())
                    .and_then(|i| u16::try_from(i).ok());
                spec
            })
            .collect();
        let objects = objects(scenario, &root, &mut problems);
        let barriers = barriers(scenario, &root, &mut problems);
        let directives = directives(scenario, &families, &root, &mut problems);
        let vehicle_sources = scenario
            .vehicle_sources
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let path = root.field("vehicle_sources").index(i);
                problems.section(&path, "VehicleSource", &[("speed_m_s", v.speed_m_s)]);
                VehicleSourceSpec {
                    id: v.id.clone(),
                    lane: v.lane.clone(),
                    target_count: v.target_count,
                    speed_m_s: v.speed_m_s,
                }
            })
            .collect();
        let population = population(
            &scenario.population,
            root.field("population"),
            &mut problems,
        );
        motion(&scenario.motion, root.field("motion"), &mut problems);
        let crossings = crossings(&scenario.crossings, root.field("crossings"), &mut problems);
        if !problems.diagnostics.is_empty() {
            return Err(SimBuildError {
                scenario: scenario.id.clone(),
                diagnostics: problems.diagnostics,
            });
        }
        Ok(CompiledScenario {
            id: scenario.id.clone(),
            recipe: scenario.recipe.clone(),
            fixed_step_s: scenario.fixed_step_s,
            duration_frames: scenario.duration_frames,
            observers,
            sources,
            no_spawn_box,
            no_removal_box,
            directives,
            vehicle_sources,
            families,
            population,
            motion: scenario.motion.clone(),
            crossings,
            objects,
            barriers,
        })
    }

    /// The index of source `id`.
    pub fn source_index(&self, id: &str) -> Option<usize> {
        self.sources.iter().position(|s| s.id == id)
    }

    /// Canonical bytes of the compiled scenario (floats by their bits).
    pub fn write_canonical(&self, w: &mut ByteWriter) {
        w.str(&self.id)
            .str(&self.recipe)
            .f64(self.fixed_step_s)
            .u64(self.duration_frames);
        w.count(self.observers.len());
        for o in &self.observers {
            w.str(&o.id);
            for value in o.position_m {
                w.f64(value);
            }
            for value in [
                o.yaw_rad,
                o.pitch_rad,
                o.fov_y_rad,
                o.near_m,
                o.far_m,
                o.retain_radius_m,
                o.remove_radius_m,
                o.close_m,
                o.fade,
            ] {
                w.f64(value);
            }
            w.bool(o.valid);
            match o.center_m {
                Some(c) => {
                    w.u8(1).f64(c[0]).f64(c[1]).f64(c[2]);
                }
                None => {
                    w.u8(0);
                }
            }
            w.count(o.path.len());
            for k in &o.path {
                w.u64(k.frame);
                for v in k.position_m {
                    w.f64(v);
                }
            }
            w.count(o.aim.len());
            for (frame, yaw, pitch) in &o.aim {
                w.u64(*frame).f64(*yaw).f64(*pitch);
            }
        }
        w.count(self.sources.len());
        for s in &self.sources {
            w.str(&s.id)
                .u8(s.kind as u8)
                .str(&s.route)
                .u32(s.target_count)
                .f64(s.walk_speed_m_s)
                .u32(s.capacity)
                .u32(s.batch_size)
                .u32(s.family.map_or(u32::MAX, u32::from))
                .f64(s.removal_multiplier)
                .bool(s.stops_at_route_end);
            w.count(s.candidates_m.len());
            for c in &s.candidates_m {
                w.f64(*c);
            }
        }
        for bounds in [&self.no_spawn_box, &self.no_removal_box] {
            write_box(w, bounds.as_ref());
        }
        w.count(self.directives.len());
        for d in &self.directives {
            write_directive(w, d);
        }
        w.count(self.vehicle_sources.len());
        for v in &self.vehicle_sources {
            w.str(&v.id)
                .str(&v.lane)
                .u32(v.target_count)
                .f64(v.speed_m_s);
        }
        w.count(self.families.len());
        for f in &self.families {
            w.str(f);
        }
        let p = &self.population;
        for c in [p.clocks.ped, p.clocks.vehicle] {
            w.f64(c.frame_rate).f64(c.cycles_per_frame);
        }
        w.f64(p.clocks.max_frame_time_s)
            .u32(p.pool_capacity)
            .bool(p.aggressive_cleanup);
        match p.fault {
            Some(f) => {
                w.u8(1).u64(f.batch).u32(f.item).bool(f.fail_restore);
            }
            None => {
                w.u8(0);
            }
        }
        write_motion(w, &self.motion);
        self.crossings.write_canonical(w);
        write_geometry(w, &self.objects, &self.barriers);
    }
}

/// A value that must lie in [0, 1].
fn unit_interval(problems: &mut Problems, path: FieldPath, value: f64) {
    if !(0.0..=1.0).contains(&value) {
        problems.push(
            path,
            SimProblem::OutOfRange {
                value,
                range: "a value in [0, 1]",
            },
        );
    }
}

/// The longest a timed directive (a stand, a forced-init window) may last, seconds.
pub const MAX_DIRECTIVE_DURATION_S: f64 = 3600.0;

/// Whether `duration_s` is a duration a timed directive accepts: finite, in
/// (0, [`MAX_DIRECTIVE_DURATION_S`]] seconds.
pub fn is_directive_duration(duration_s: f64) -> bool {
    crate::project::DIRECTIVE_DURATION_RANGE.contains(duration_s)
}

/// A directive's duration, which must lie in (0, 3600] seconds.
fn directive_duration(problems: &mut Problems, path: FieldPath, duration_s: f64) {
    if !is_directive_duration(duration_s) {
        problems.push(
            path,
            SimProblem::OutOfRange {
                value: duration_s,
                range: crate::project::DIRECTIVE_DURATION_RANGE.text,
            },
        );
    }
}

/// Canonical bytes of the motion settings.
fn write_motion(w: &mut ByteWriter, m: &MotionSettings) {
    for value in [
        m.full_enter_m,
        m.full_exit_m,
        m.simulated_enter_m,
        m.simulated_exit_m,
    ] {
        w.f64(value);
    }
    for value in [
        m.full_capacity,
        m.simulated_capacity,
        m.promotions_per_step,
        m.demotions_per_step,
        m.avoidance_budget.unwrap_or(u32::MAX),
    ] {
        w.u32(value);
    }
    w.bool(m.avoidance_budget.is_some())
        .bool(m.crowd_governor)
        .f64(m.crowd_budget_ms)
        .f64(m.default_relevance);
    w.count(m.exits.len());
    for exit in &m.exits {
        w.str(&exit.id)
            .f64(exit.position.x)
            .f64(exit.position.y)
            .f64(exit.position.z)
            .u32(exit.capacity);
    }
}

/// Checks the motion settings: positive distances with each exit band at least its enter band,
/// a positive crowd budget, relevance within 0..1, finite exits.
fn motion(m: &MotionSettings, path: FieldPath, problems: &mut Problems) {
    problems.section(
        &path,
        "Motion",
        &[
            ("full_enter_m", m.full_enter_m),
            ("full_exit_m", m.full_exit_m),
            ("simulated_enter_m", m.simulated_enter_m),
            ("simulated_exit_m", m.simulated_exit_m),
            ("crowd_budget_ms", m.crowd_budget_ms),
        ],
    );
    for (field, enter, exit, range) in [
        (
            "full_exit_m",
            m.full_enter_m,
            m.full_exit_m,
            "a distance of at least full_enter_m",
        ),
        (
            "simulated_enter_m",
            m.full_exit_m,
            m.simulated_enter_m,
            "a distance of at least full_exit_m",
        ),
        (
            "simulated_exit_m",
            m.simulated_enter_m,
            m.simulated_exit_m,
            "a distance of at least simulated_enter_m",
        ),
    ] {
        if exit.is_finite() && enter.is_finite() && exit < enter {
            problems.push(
                path.field(field),
                SimProblem::OutOfRange { value: exit, range },
            );
        }
    }
    problems.section(
        &path,
        "Motion",
        &[("default_relevance", m.default_relevance)],
    );
    let mut ids = BTreeSet::new();
    for (index, exit) in m.exits.iter().enumerate() {
        let at = path.field("exits").index(index);
        problems.finite(
            at.field("position"),
            &[exit.position.x, exit.position.y, exit.position.z],
        );
        if !ids.insert(exit.id.as_str()) {
            problems.push(
                at.field("id"),
                SimProblem::DuplicateExit {
                    id: exit.id.clone(),
                },
            );
        }
    }
    if m.exits.len() >= usize::from(u16::MAX) {
        problems.push(path.field("exits"), SimProblem::TooMany { what: "exits" });
    }
}

fn write_box(w: &mut ByteWriter, bounds: Option<&SimBox>) {
    match bounds {
        Some(bounds) => {
            w.u8(1);
            for value in bounds.min_m.iter().chain(&bounds.max_m) {
                w.f64(*value);
            }
        }
        None => {
            w.u8(0);
        }
    }
}

fn write_target(w: &mut ByteWriter, target: &DirectiveTarget) {
    match *target {
        DirectiveTarget::Born { source, ordinal } => {
            w.u8(0).u16(source).u32(ordinal);
        }
        DirectiveTarget::Handle(h) => {
            w.u8(1).u32(h.index).u32(h.generation);
        }
        DirectiveTarget::NearestAmbient { x_bits, y_bits } => {
            w.u8(2).u64(x_bits).u64(y_bits);
        }
        DirectiveTarget::World => {
            w.u8(3);
        }
    }
}

fn write_directive(w: &mut ByteWriter, d: &DirectiveSpec) {
    w.u64(d.frame).u32(d.index);
    write_target(w, &d.target);
    w.u8(d.command.code());
    match &d.command {
        Command::Claim {
            owner,
            allow_transfer,
        } => {
            w.str(owner).bool(*allow_transfer);
        }
        Command::Release { owner } => {
            w.str(owner);
        }
        Command::SetBox { slot, bounds } => {
            w.u8(*slot as u8);
            write_box(w, Some(bounds));
        }
        Command::ClearBox { slot } => {
            w.u8(*slot as u8);
        }
        Command::ForcedInit { duration_s }
        | Command::Stand { duration_s }
        | Command::QueueEvent { duration_s }
        | Command::PausePopulation { duration_s } => {
            w.f64(*duration_s);
        }
        Command::SetObserverFade { observer, fade } => {
            w.u16(*observer).f64(*fade);
        }
        Command::SetObserverValid { observer, valid } => {
            w.u16(*observer).bool(*valid);
        }
        Command::SetRemovalMultiplier { multiplier } => {
            w.f64(*multiplier);
        }
        Command::SetVehicleRelation { relation } => {
            // `None` and `Intent` write the bytes the former intent flag wrote.
            w.u8(relation.code());
        }
        Command::SetFamilyAvailable { family, available } => {
            w.u16(*family).bool(*available);
        }
        Command::Panic {
            center,
            radius_m,
            strength,
        } => {
            w.f64(center.x).f64(center.y).f64(*radius_m).f64(*strength);
        }
        Command::SetRelevance { relevance } => {
            w.f64(*relevance);
        }
        Command::LineOfSight {
            presented,
            factions,
        } => {
            w.str(presented).str(&factions.own);
            for list in [
                &factions.allied,
                &factions.hostile,
                &factions.accepted_disguises,
            ] {
                w.count(list.len());
                for name in list {
                    w.str(name);
                }
            }
        }
        Command::PlaceObstacle { id, footprint } => {
            w.str(id);
            let mut bytes = Vec::new();
            footprint.write_canonical(&mut bytes);
            w.bytes(&bytes);
        }
        Command::RemoveObstacle { id } => {
            w.str(id);
        }
        Command::Destroy | Command::SuppressCleanup | Command::InstantFill => {}
        Command::Rendezvous { goal } | Command::Redirect { goal } => {
            w.f64(goal.x).f64(goal.y);
        }
        Command::Escape {
            threat,
            safe_distance_m,
        } => {
            w.f64(threat.x).f64(threat.y).f64(*safe_distance_m);
        }
        Command::RendezvousWith { object, offset } | Command::RedirectTo { object, offset } => {
            w.u16(*object);
            for v in offset {
                w.f64(*v);
            }
        }
        Command::Hold | Command::Continue | Command::Cancel => {}
        Command::Knockdown { impulse_n_s } => {
            for v in impulse_n_s {
                w.f64(*v);
            }
        }
    }
}

/// Objects and barriers (written only when the scenario has any, so a scenario without them
/// keeps the configuration digest it had before they existed).
fn write_geometry(w: &mut ByteWriter, objects: &[SceneObjectSpec], barriers: &[BarrierSpec]) {
    if objects.is_empty() && barriers.is_empty() {
        return;
    }
    w.count(objects.len());
    for o in objects {
        w.str(&o.id);
        for v in o.position.iter().chain(&o.scale).chain(&o.half_extents_m) {
            w.f64(*v);
        }
        w.f64(o.yaw_rad);
    }
    w.count(barriers.len());
    for b in barriers {
        w.str(&b.id);
        for v in b.from.iter().chain(&b.to) {
            w.f64(*v);
        }
        w.f64(b.thickness_m).bool(b.in_navigation);
    }
}

fn xyz(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Keys must ascend by frame: the first that does not is a problem at its `frame` field.
fn ascending_frames(problems: &mut Problems, keys: FieldPath, frames: &[u64]) {
    if let Some(index) = frames.windows(2).position(|f| f[0] >= f[1]) {
        problems.push(
            keys.index(index + 1).field("frame"),
            SimProblem::UnorderedKeyframe {
                frame: frames[index + 1],
                previous: frames[index],
            },
        );
    }
}

fn observer(o: &Observer, path: FieldPath, problems: &mut Problems) -> ObserverSpec {
    problems.finite(path.field("position"), &xyz(o.position));
    problems.finite(path.field("close_m"), &[o.close_m]);
    problems.section(&path, "Observer", &[("fade", o.fade)]);
    let path_frames: Vec<u64> = o.path.iter().map(|k| k.frame).collect();
    ascending_frames(problems, path.field("path"), &path_frames);
    for (i, key) in o.path.iter().enumerate() {
        problems.finite(
            path.field("path").index(i).field("position"),
            &xyz(key.position),
        );
    }
    let aim_frames: Vec<u64> = o.aim.iter().map(|k| k.frame).collect();
    ascending_frames(problems, path.field("aim"), &aim_frames);
    for (i, key) in o.aim.iter().enumerate() {
        let key_path = path.field("aim").index(i);
        problems.finite(key_path.field("yaw_rad"), &[key.yaw_rad]);
        problems.finite(key_path.field("pitch_rad"), &[key.pitch_rad]);
    }
    for (field, value) in [
        ("yaw_rad", o.yaw_rad),
        ("pitch_rad", o.pitch_rad),
        ("fov_y_rad", o.fov_y_rad),
        ("near_m", o.near_m),
        ("far_m", o.far_m),
        ("retain_radius_m", o.retain_radius_m),
        ("remove_radius_m", o.remove_radius_m),
    ] {
        problems.finite(path.field(field), &[value]);
    }
    ObserverSpec {
        id: o.id.clone(),
        position_m: xyz(o.position),
        yaw_rad: o.yaw_rad,
        pitch_rad: o.pitch_rad,
        fov_y_rad: o.fov_y_rad,
        near_m: o.near_m,
        far_m: o.far_m,
        retain_radius_m: o.retain_radius_m,
        remove_radius_m: o.remove_radius_m,
        close_m: o.close_m,
        center_m: o.center.map(xyz),
        path: o
            .path
            .iter()
            .map(|k| ObserverKey {
                frame: k.frame,
                position_m: xyz(k.position),
            })
            .collect(),
        aim: o
            .aim
            .iter()
            .map(|k| (k.frame, k.yaw_rad, k.pitch_rad))
            .collect(),
        fade: o.fade,
        valid: o.valid,
    }
}

/// The crossings' settings, every rule checked with its field path.
fn crossings(c: &CrossingsSettings, path: FieldPath, problems: &mut Problems) -> CrossingSettings {
    problems.section(
        &path,
        "Crossings",
        &[
            ("lanes", f64::from(c.lanes)),
            ("queue_rows", f64::from(c.queue_rows)),
            ("entry_range_m", c.entry_range_m),
            ("queries_per_step", f64::from(c.queries_per_step)),
            ("vehicle_green_s", c.vehicle_green_s),
            ("all_stop_s", c.all_stop_s),
            ("pedestrian_s", c.pedestrian_s),
            ("stuck_after_s", c.stuck_after_s),
            ("forced_clear_after_s", c.forced_clear_after_s),
            ("group_share", c.group_share),
            ("max_group_size", f64::from(c.max_group_size)),
        ],
    );
    let hazard = c.hazard.as_ref().map(|h| {
        let hazard_path = path.field("hazard");
        problems.section(
            &hazard_path,
            "Hazard",
            &[("y_m", h.y_m), ("speed_m_s", h.speed_m_s)],
        );
        HazardSpec {
            y_m: h.y_m,
            speed_m_s: h.speed_m_s,
        }
    });
    CrossingSettings {
        lanes: c.lanes,
        queue_rows: c.queue_rows,
        entry_range_m: c.entry_range_m,
        queries_per_step: c.queries_per_step,
        timing: SignalTiming {
            vehicle_green_s: c.vehicle_green_s,
            all_stop_s: c.all_stop_s,
            pedestrian_s: c.pedestrian_s,
        },
        stuck_after_s: c.stuck_after_s,
        forced_clear_after_s: c.forced_clear_after_s,
        group_share: c.group_share,
        max_group_size: c.max_group_size,
        hazard,
    }
}

fn population(
    p: &PopulationSettings,
    path: FieldPath,
    problems: &mut Problems,
) -> PopulationParams {
    problems.section(
        &path,
        "Population",
        &[
            ("ped_frame_rate", p.ped_frame_rate),
            ("ped_cycles_per_frame", p.ped_cycles_per_frame),
            ("vehicle_frame_rate", p.vehicle_frame_rate),
            ("vehicle_cycles_per_frame", p.vehicle_cycles_per_frame),
            ("max_frame_time_s", p.max_frame_time_s),
        ],
    );
    PopulationParams {
        clocks: ClocksConfig {
            ped: ClockConfig {
                frame_rate: p.ped_frame_rate,
                cycles_per_frame: p.ped_cycles_per_frame,
            },
            vehicle: ClockConfig {
                frame_rate: p.vehicle_frame_rate,
                cycles_per_frame: p.vehicle_cycles_per_frame,
            },
            max_frame_time_s: p.max_frame_time_s,
        },
        pool_capacity: p.pool_capacity,
        aggressive_cleanup: p.aggressive_cleanup,
        fault: p.fault.as_ref().map(|f| AttachFault {
            batch: f.batch,
            item: f.item,
            fail_restore: f.fail_restore,
        }),
    }
}

fn sources(
    sources: &[PopulationSource],
    root: &FieldPath,
    problems: &mut Problems,
) -> Vec<SourceSpec> {
    if u16::try_from(sources.len()).is_err() {
        problems.push(
            root.field("sources"),
            SimProblem::TooMany { what: "sources" },
        );
    }
    let mut seen = BTreeSet::new();
    let mut compiled = Vec::with_capacity(sources.len());
    for (index, source) in sources.iter().enumerate() {
        let path = root.field("sources").index(index);
        if !seen.insert(source.id.as_str()) {
            problems.push(
                path.field("id"),
                SimProblem::DuplicateSource {
                    id: source.id.clone(),
                },
            );
        }
        problems.section(
            &path,
            "Source",
            &[
                ("walk_speed_m_s", source.walk_speed_m_s),
                ("removal_multiplier", source.removal_multiplier),
                ("batch_size", f64::from(source.batch_size)),
            ],
        );
        problems.finite(path.field("candidates_m"), &source.candidates_m);
        compiled.push(SourceSpec {
            id: source.id.clone(),
            kind: source.kind,
            route: source.route.clone(),
            target_count: source.target_count,
            walk_speed_m_s: source.walk_speed_m_s,
            capacity: source.capacity.unwrap_or(source.target_count),
            batch_size: source.batch_size.max(1),
            family: None,
            candidates_m: source.candidates_m.clone(),
            removal_multiplier: source.removal_multiplier,
            stops_at_route_end: source.at_route_end == RouteEnd::Stop,
        });
    }
    compiled
}

fn sim_box(bounds: &Box3, path: FieldPath, problems: &mut Problems) -> SimBox {
    let (min_m, max_m) = (xyz(bounds.min), xyz(bounds.max));
    if min_m.iter().chain(&max_m).any(|v| !v.is_finite()) {
        problems.push(path.clone(), SimProblem::NonFinite);
    } else if let Some(axis) = (0..3).find(|a| min_m[*a] > max_m[*a]) {
        problems.push(
            path.field("min"),
            SimProblem::InvertedBox {
                axis: ['x', 'y', 'z'][axis],
                min_m: min_m[axis],
                max_m: max_m[axis],
            },
        );
    }
    SimBox { min_m, max_m }
}

fn ground(v: Vec3) -> Vec2 {
    Vec2 { x: v.x, y: v.y }
}

fn directives(
    scenario: &Scenario,
    families: &[String],
    root: &FieldPath,
    problems: &mut Problems,
) -> Vec<DirectiveSpec> {
    if u32::try_from(scenario.directives.len()).is_err() {
        problems.push(
            root.field("directives"),
            SimProblem::TooMany { what: "directives" },
        );
    }
    let mut compiled = Vec::with_capacity(scenario.directives.len());
    for (index, directive) in scenario.directives.iter().enumerate() {
        let path = root.field("directives").index(index);
        let world_command = directive.command.is_world();
        if world_command != (directive.target == Target::World) {
            problems.push(
                path.field("target"),
                SimProblem::WrongTarget { world_command },
            );
        }
        let target = target(scenario, &directive.target, path.field("target"), problems);
        let cx = CommandContext {
            scenario,
            families,
            path: path.field("command"),
        };
        let command = command(&directive.command, &cx, problems);
        let (Some(target), Some(command)) = (target, command) else {
            continue;
        };
        compiled.push(DirectiveSpec {
            frame: directive.frame,
            index: u32::try_from(index).unwrap_or(u32::MAX),
            target,
            command,
        });
    }
    // Stable: file order within a frame.
    compiled.sort_by_key(|d| d.frame);
    compiled
}

fn target(
    scenario: &Scenario,
    target: &Target,
    path: FieldPath,
    problems: &mut Problems,
) -> Option<DirectiveTarget> {
    Some(match target {
        Target::Born { source, ordinal } => {
            let index = scenario
                .sources
                .iter()
                .position(|s| &s.id == source)
                .and_then(|i| u16::try_from(i).ok());
            let Some(index) = index else {
                problems.push(
                    path.field("source"),
                    SimProblem::UnknownSource {
                        source: source.clone(),
                    },
                );
                return None;
            };
            DirectiveTarget::Born {
                source: index,
                ordinal: *ordinal,
            }
        }
        Target::Handle { index, generation } => DirectiveTarget::Handle(AgentHandle {
            index: *index,
            generation: *generation,
        }),
        Target::NearestAmbient { point } => {
            problems.finite(path.field("point"), &xyz(*point));
            DirectiveTarget::nearest_ambient(point.x, point.y)
        }
        Target::World => DirectiveTarget::World,
    })
}

/// What compiling a command reads besides the command.
struct CommandContext<'a> {
    scenario: &'a Scenario,
    families: &'a [String],
    path: FieldPath,
}

fn command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    let observer = |id: &str, problems: &mut Problems| {
        let found = cx
            .scenario
            .observers
            .iter()
            .position(|o| o.id == id)
            .and_then(|i| u16::try_from(i).ok());
        if found.is_none() {
            problems.push(
                path.field("observer"),
                SimProblem::UnknownObserver {
                    observer: id.to_owned(),
                },
            );
        }
        found
    };
    Some(match command {
        DirectiveCommand::Claim {
            owner,
            allow_transfer,
        } => Command::Claim {
            owner: owner.clone(),
            allow_transfer: *allow_transfer,
        },
        DirectiveCommand::Release { owner } => Command::Release {
            owner: owner.clone(),
        },
        DirectiveCommand::Rendezvous { goal } => {
            problems.finite(path.field("goal"), &xyz(*goal));
            Command::Rendezvous {
                goal: ground(*goal),
            }
        }
        DirectiveCommand::Hold => Command::Hold,
        DirectiveCommand::Continue => Command::Continue,
        DirectiveCommand::Stand { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::Stand {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::Redirect { goal } => {
            problems.finite(path.field("goal"), &xyz(*goal));
            Command::Redirect {
                goal: ground(*goal),
            }
        }
        DirectiveCommand::RendezvousWith { object, offset } => {
            problems.finite(path.field("offset"), &xyz(*offset));
            Command::RendezvousWith {
                object: object_index(cx.scenario, object, path, problems)?,
                offset: xyz(*offset),
            }
        }
        DirectiveCommand::RedirectTo { object, offset } => {
            problems.finite(path.field("offset"), &xyz(*offset));
            Command::RedirectTo {
                object: object_index(cx.scenario, object, path, problems)?,
                offset: xyz(*offset),
            }
        }
        DirectiveCommand::Cancel => Command::Cancel,
        DirectiveCommand::Escape {
            threat,
            safe_distance_m,
        } => {
            problems.finite(path.field("threat"), &xyz(*threat));
            problems.finite(path.field("safe_distance_m"), &[*safe_distance_m]);
            Command::Escape {
                threat: ground(*threat),
                safe_distance_m: *safe_distance_m,
            }
        }
        DirectiveCommand::Destroy => Command::Destroy,
        DirectiveCommand::Knockdown { impulse_n_s } => {
            let impulse = xyz(*impulse_n_s);
            problems.finite(path.field("impulse_n_s"), &impulse);
            let magnitude = impulse.iter().map(|v| v * v).sum::<f64>().sqrt();
            if magnitude > crate::sim::knockdown::MAX_IMPULSE_N_S {
                problems.push(
                    path.field("impulse_n_s"),
                    SimProblem::OutOfRange {
                        value: magnitude,
                        range: "a magnitude of at most 1000 N·s",
                    },
                );
            }
            Command::Knockdown {
                impulse_n_s: impulse,
            }
        }
        // Boxes are checked when applied: an invalid one is refused at run time and logged,
        // keeping the slot's box (the seed's rule); `check` still warns about it.
        DirectiveCommand::SetNoSpawnBox { bounds } => Command::SetBox {
            slot: BoxSlot::NoSpawn,
            bounds: SimBox {
                min_m: xyz(bounds.min),
                max_m: xyz(bounds.max),
            },
        },
        DirectiveCommand::SetNoRemovalBox { bounds } => Command::SetBox {
            slot: BoxSlot::NoRemoval,
            bounds: SimBox {
                min_m: xyz(bounds.min),
                max_m: xyz(bounds.max),
            },
        },
        DirectiveCommand::ClearNoSpawnBox => Command::ClearBox {
            slot: BoxSlot::NoSpawn,
        },
        DirectiveCommand::ClearNoRemovalBox => Command::ClearBox {
            slot: BoxSlot::NoRemoval,
        },
        DirectiveCommand::SuppressCleanup => Command::SuppressCleanup,
        DirectiveCommand::ForcedInit { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::ForcedInit {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::InstantFill => Command::InstantFill,
        DirectiveCommand::PlaceObstacle {
            obstacle,
            from,
            to,
            thickness_m,
        } => {
            problems.finite(path.field("from"), &xyz(*from));
            problems.finite(path.field("to"), &xyz(*to));
            problems.positive(path.field("thickness_m"), *thickness_m);
            if is_authored_obstacle(cx.scenario, obstacle) {
                problems.push(
                    path.field("obstacle"),
                    SimProblem::AuthoredObstacleId {
                        obstacle: obstacle.clone(),
                    },
                );
            }
            Command::PlaceObstacle {
                id: obstacle.clone(),
                footprint: Obstacle::Segment {
                    from: ground(*from),
                    to: ground(*to),
                    half_thickness_m: thickness_m / 2.0,
                },
            }
        }
        DirectiveCommand::RemoveObstacle { obstacle } => {
            let placed = cx.scenario.directives.iter().any(|d| {
                matches!(&d.command, DirectiveCommand::PlaceObstacle { obstacle: o, .. } if o == obstacle)
            });
            if !placed && !is_authored_obstacle(cx.scenario, obstacle) {
                problems.push(
                    path.field("obstacle"),
                    SimProblem::UnknownObstacle {
                        obstacle: obstacle.clone(),
                    },
                );
            }
            Command::RemoveObstacle {
                id: obstacle.clone(),
            }
        }
        DirectiveCommand::SetObserverFade { observer: id, fade } => {
            if !(0.0..=1.0).contains(fade) {
                problems.push(
                    path.field("fade"),
                    SimProblem::OutOfRange {
                        value: *fade,
                        range: "a value in [0, 1]",
                    },
                );
            }
            Command::SetObserverFade {
                observer: observer(id, problems)?,
                fade: *fade,
            }
        }
        DirectiveCommand::SetObserverValid {
            observer: id,
            valid,
        } => Command::SetObserverValid {
            observer: observer(id, problems)?,
            valid: *valid,
        },
        DirectiveCommand::SetRemovalMultiplier { multiplier } => {
            problems.positive(path.field("multiplier"), *multiplier);
            Command::SetRemovalMultiplier {
                multiplier: *multiplier,
            }
        }
        DirectiveCommand::SetVehicleIntent { intent } => Command::SetVehicleRelation {
            relation: if *intent {
                VehicleRelation::Intent
            } else {
                VehicleRelation::None
            },
        },
        DirectiveCommand::SetVehicleRelation { relation } => Command::SetVehicleRelation {
            relation: *relation,
        },
        DirectiveCommand::PausePopulation { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::PausePopulation {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::QueueEvent { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::QueueEvent {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::Panic {
            center,
            radius_m,
            strength,
        } => {
            problems.finite(path.field("center"), &xyz(*center));
            problems.positive(path.field("radius_m"), *radius_m);
            unit_interval(problems, path.field("strength"), *strength);
            Command::Panic {
                center: ground(*center),
                radius_m: *radius_m,
                strength: *strength,
            }
        }
        DirectiveCommand::SetRelevance { relevance } => {
            unit_interval(problems, path.field("relevance"), *relevance);
            Command::SetRelevance {
                relevance: *relevance,
            }
        }
        DirectiveCommand::LineOfSight {
            presented,
            own,
            allied,
            hostile,
            accepted_disguises,
        } => Command::LineOfSight {
            presented: presented.clone(),
            factions: Factions {
                own: own.clone(),
                allied: allied.clone(),
                hostile: hostile.clone(),
                accepted_disguises: accepted_disguises.clone(),
            },
        },
        DirectiveCommand::SetFamilyAvailable { family, available } => {
            let Some(index) = cx
                .families
                .iter()
                .position(|f| f == family)
                .and_then(|i| u16::try_from(i).ok())
            else {
                problems.push(
                    path.field("family"),
                    SimProblem::UnknownFamily {
                        family: family.clone(),
                    },
                );
                return None;
            };
            Command::SetFamilyAvailable {
                family: index,
                available: *available,
            }
        }
    })
}

/// Whether `id` names an authored obstacle: a scene object with a footprint, or a barrier.
fn is_authored_obstacle(scenario: &Scenario, id: &str) -> bool {
    let footprint = |h: Vec3, s: Vec3| (h.x * s.x).abs() > 0.0 && (h.y * s.y).abs() > 0.0;
    scenario
        .objects
        .iter()
        .any(|o| o.id == id && footprint(o.half_extents_m, o.scale))
        || scenario.barriers.iter().any(|b| b.id == id)
}

/// The index of scene object `id`, or a diagnostic.
fn object_index(
    scenario: &Scenario,
    id: &str,
    path: &FieldPath,
    problems: &mut Problems,
) -> Option<u16> {
    let found = scenario
        .objects
        .iter()
        .position(|o| o.id == id)
        .and_then(|i| u16::try_from(i).ok());
    if found.is_none() {
        problems.push(
            path.field("object"),
            SimProblem::UnknownObject {
                object: id.to_owned(),
            },
        );
    }
    found
}

fn objects(scenario: &Scenario, root: &FieldPath, problems: &mut Problems) -> Vec<SceneObjectSpec> {
    if u16::try_from(scenario.objects.len()).is_err() {
        problems.push(
            root.field("objects"),
            SimProblem::TooMany { what: "objects" },
        );
    }
    scenario
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let path = root.field("objects").index(i);
            problems.finite(path.field("position"), &xyz(o.position));
            problems.finite(path.field("yaw_rad"), &[o.yaw_rad]);
            problems.finite(path.field("scale"), &xyz(o.scale));
            problems.finite(path.field("half_extents_m"), &xyz(o.half_extents_m));
            SceneObjectSpec {
                id: o.id.clone(),
                position: xyz(o.position),
                yaw_rad: o.yaw_rad,
                scale: xyz(o.scale),
                half_extents_m: xyz(o.half_extents_m),
            }
        })
        .collect()
}

fn barriers(scenario: &Scenario, root: &FieldPath, problems: &mut Problems) -> Vec<BarrierSpec> {
    scenario
        .barriers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let path = root.field("barriers").index(i);
            problems.finite(path.field("from"), &xyz(b.from));
            problems.finite(path.field("to"), &xyz(b.to));
            problems.finite(path.field("thickness_m"), &[b.thickness_m]);
            BarrierSpec {
                id: b.id.clone(),
                from: xyz(b.from),
                to: xyz(b.to),
                thickness_m: b.thickness_m,
                in_navigation: b.in_navigation,
            }
        })
        .collect()
}
