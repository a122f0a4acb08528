//! The directive table: every directive command kind with its label, the targets it takes
//! (a world command or a pedestrian command), its fields with units, ranges and help. The
//! compiler (`is_world`, the field checks), the Inspector, the Timeline's "+ Directive",
//! `stagecraft schema` and `docs/format.md` read it; nothing else lists the kinds.

use super::fields::{FieldDefault as D, FieldSchema, FINITE, POSITIVE, UNIT_INTERVAL};
use super::scenario::DirectiveCommand;
use super::scenario_fields::DIRECTIVE_DURATION_RANGE;

/// Who a directive kind is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectiveTargets {
    /// A pedestrian: `Born(…)`, `Handle(…)` or `NearestAmbient(…)`.
    Ped,
    /// The world: `World`.
    World,
}

impl DirectiveTargets {
    /// The target kinds it accepts, as a file writes them.
    pub fn kinds(self) -> &'static [&'static str] {
        match self {
            DirectiveTargets::Ped => &["Born", "Handle", "NearestAmbient"],
            DirectiveTargets::World => &["World"],
        }
    }

    /// `ped` or `world`.
    pub fn name(self) -> &'static str {
        match self {
            DirectiveTargets::Ped => "ped",
            DirectiveTargets::World => "world",
        }
    }
}

/// One directive command kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectiveSchema {
    /// Its name in the file (`Hold`, `Stand`).
    pub name: &'static str,
    /// Its name in menus.
    pub label: &'static str,
    /// A world command or a pedestrian command.
    pub targets: DirectiveTargets,
    /// Its fields, in canonical order (none for a unit command).
    pub fields: &'static [FieldSchema],
    /// One line: what it does.
    pub help: &'static str,
}

impl DirectiveSchema {
    /// Whether it acts on the world rather than on a pedestrian.
    pub fn is_world(&self) -> bool {
        self.targets == DirectiveTargets::World
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldSchema> {
        self.fields.iter().find(|f| f.name == name)
    }
}

const fn f(
    name: &'static str,
    ty: &'static str,
    unit: &'static str,
    default: D,
    help: &'static str,
) -> FieldSchema {
    FieldSchema {
        name,
        label: "",
        ty,
        unit,
        range: None,
        rule: "",
        default,
        help,
    }
}

const fn r(field: FieldSchema, range: crate::project::NumberRange) -> FieldSchema {
    FieldSchema {
        range: Some(range),
        ..field
    }
}

const fn l(label: &'static str, field: FieldSchema) -> FieldSchema {
    FieldSchema { label, ..field }
}

const P3: &str = "(x, y, z)";
const OWNER: FieldSchema = l(
    "Owner",
    f("owner", "string", "", D::Required, "the script owner's id"),
);
const GOAL: FieldSchema = l(
    "Goal",
    r(
        f(
            "goal",
            P3,
            "m",
            D::Required,
            "goal position (its ground point)",
        ),
        FINITE,
    ),
);
const OBJECT: FieldSchema = l(
    "Object",
    f("object", "id", "", D::Required, "the scene object's id"),
);
const OFFSET: FieldSchema = l(
    "Offset",
    r(
        f(
            "offset",
            P3,
            "m",
            D::Text("(0.0, 0.0, 0.0)"),
            "local approach offset (the object's transform applies)",
        ),
        FINITE,
    ),
);
const DURATION: FieldSchema = l(
    "Duration",
    r(
        f("duration_s", "float", "s", D::Required, "how long"),
        DIRECTIVE_DURATION_RANGE,
    ),
);
const BOUNDS: FieldSchema = l(
    "Bounds",
    f(
        "bounds",
        "`Box3(min, max)`",
        "m",
        D::Required,
        "the box (an inverted one is refused, keeping the old one)",
    ),
);
const OBSTACLE: FieldSchema = l(
    "Obstacle",
    f("obstacle", "id", "", D::Required, "the obstacle's id"),
);
const OBSERVER: FieldSchema = l(
    "Observer",
    f("observer", "id", "", D::Required, "the observer it changes"),
);

const NONE: [FieldSchema; 0] = [];

/// Every directive command kind, in menu order.
pub const DIRECTIVE_SCHEMA: &[DirectiveSchema] = &[
    DirectiveSchema { name: "Claim", label: "Claim", targets: DirectiveTargets::Ped, fields: &[OWNER, l("Allow transfer", f("allow_transfer", "bool", "", D::Bool(false), "whether taking another owner's pedestrian is permitted"))], help: "claim the pedestrian for a script owner (Ambient → Mission)" },
    DirectiveSchema { name: "Release", label: "Release", targets: DirectiveTargets::Ped, fields: &[OWNER], help: "release a claimed pedestrian back to the ambient population (its owner only)" },
    DirectiveSchema { name: "Rendezvous", label: "Rendezvous", targets: DirectiveTargets::Ped, fields: &[GOAL], help: "walk to a goal" },
    DirectiveSchema { name: "Hold", label: "Hold", targets: DirectiveTargets::Ped, fields: &NONE, help: "stop and wait for `Continue`, keeping the goal" },
    DirectiveSchema { name: "Continue", label: "Continue", targets: DirectiveTargets::Ped, fields: &NONE, help: "resume after `Hold`" },
    DirectiveSchema { name: "Stand", label: "Stand (timed)", targets: DirectiveTargets::Ped, fields: &[DURATION], help: "stand still for a time, then walk on (a `Redirect` replaces it; `Continue` does not release it)" },
    DirectiveSchema { name: "Redirect", label: "Redirect", targets: DirectiveTargets::Ped, fields: &[GOAL], help: "replace the goal" },
    DirectiveSchema { name: "Cancel", label: "Cancel", targets: DirectiveTargets::Ped, fields: &NONE, help: "cancel the directive" },
    DirectiveSchema { name: "Escape", label: "Escape", targets: DirectiveTargets::Ped, fields: &[l("Threat", r(f("threat", P3, "m", D::Required, "threat position"), FINITE)), l("Safe distance", r(f("safe_distance_m", "float", "m", D::Required, "safe distance from the threat"), FINITE)), l("Endpoint", r(f("endpoint", P3, "m", D::Text("none"), "an externally supplied escape endpoint, refused at queuing unless farther than safe + 0.15 m from the threat; absent: the selection policy picks one (written only when given)"), FINITE)), l("Restore interrupted", f("restore_interrupted", "bool", "", D::Bool(false), "whether the task the escape interrupts comes back when it ends; by default its goal is only kept for diagnostics (written only when `true`)"))], help: "queue a threat event (type `threat`, the directive's source, a new session tag); the next Tasks update checks it and starts its escape (start count 1), which ends the event" },
    DirectiveSchema { name: "RendezvousWith", label: "Rendezvous with object", targets: DirectiveTargets::Ped, fields: &[OBJECT, OFFSET], help: "walk to a scene object's approach point" },
    DirectiveSchema { name: "RedirectTo", label: "Redirect to object", targets: DirectiveTargets::Ped, fields: &[OBJECT, OFFSET], help: "replace the goal by a scene object's approach point" },
    DirectiveSchema { name: "Knockdown", label: "Knockdown", targets: DirectiveTargets::Ped, fields: &[l("Impulse", r(f("impulse_n_s", P3, "N·s", D::Required, "impulse applied at the chest"), FINITE))], help: "knock the pedestrian down: a rigid body takes over until it recovers" },
    DirectiveSchema { name: "Destroy", label: "Destroy", targets: DirectiveTargets::Ped, fields: &NONE, help: "destroy the pedestrian explicitly" },
    DirectiveSchema { name: "Panic", label: "Panic", targets: DirectiveTargets::World, fields: &[l("Center", r(f("center", P3, "m", D::Required, "centre of the stimulus"), FINITE)), l("Radius", r(f("radius_m", "float", "m", D::Required, "radius it reaches"), POSITIVE)), l("Strength", r(f("strength", "float", "", D::Required, "panic added at the centre (linear falloff clamped to [0.25, 1])"), UNIT_INTERVAL))], help: "a panic stimulus: pedestrians within the radius panic and flee to exits" },
    DirectiveSchema { name: "SetRelevance", label: "Set relevance", targets: DirectiveTargets::Ped, fields: &[l("Relevance", r(f("relevance", "float", "", D::Required, "relevance for the tiers and the crowd governor"), UNIT_INTERVAL))], help: "set the pedestrian's relevance" },
    DirectiveSchema { name: "LineOfSight", label: "Line of sight", targets: DirectiveTargets::Ped, fields: &[l("Presented", f("presented", "string", "", D::Required, "the faction or disguise presented to it")), l("Own", f("own", "string", "", D::Required, "its own faction")), l("Allied", f("allied", "list of strings", "", D::Text("[]"), "factions allied to it")), l("Hostile", f("hostile", "list of strings", "", D::Text("[]"), "factions hostile to it")), l("Accepted disguises", f("accepted_disguises", "list of strings", "", D::Text("[]"), "disguises it accepts"))], help: "the pedestrian (an observer with factions) sees a presented faction on line of sight" },
    DirectiveSchema { name: "SetVehicleIntent", label: "Set vehicle intent", targets: DirectiveTargets::Ped, fields: &[l("Intent", f("intent", "bool", "", D::Required, "whether it intends to enter a vehicle"))], help: "set the pedestrian's vehicle intent (`Intent` or `None`)" },
    DirectiveSchema { name: "SetVehicleRelation", label: "Set vehicle relation", targets: DirectiveTargets::Ped, fields: &[l("Relation", f("relation", "`None`, `Intent`, `Entering`, `Exiting` or `Seated`", "", D::Required, "its vehicle relationship: any but `None` keeps it from retirement and suspends its task's movement"))], help: "set the pedestrian's vehicle relationship" },
    DirectiveSchema { name: "QueueEvent", label: "Queue event", targets: DirectiveTargets::Ped, fields: &[DURATION], help: "queue an event candidate the next Tasks update makes current for `duration_s`; both keep the ped from retirement" },
    DirectiveSchema { name: "SetNoSpawnBox", label: "Set no-spawn box", targets: DirectiveTargets::World, fields: &[BOUNDS], help: "set the no-spawn box" },
    DirectiveSchema { name: "ClearNoSpawnBox", label: "Clear no-spawn box", targets: DirectiveTargets::World, fields: &NONE, help: "clear the no-spawn box" },
    DirectiveSchema { name: "SetNoRemovalBox", label: "Set no-removal box", targets: DirectiveTargets::World, fields: &[BOUNDS], help: "set the no-removal box" },
    DirectiveSchema { name: "ClearNoRemovalBox", label: "Clear no-removal box", targets: DirectiveTargets::World, fields: &NONE, help: "clear the no-removal box" },
    DirectiveSchema { name: "SuppressCleanup", label: "Suppress cleanup", targets: DirectiveTargets::World, fields: &NONE, help: "suppress aggressive cleanup at the next Control update" },
    DirectiveSchema { name: "ForcedInit", label: "Forced init window", targets: DirectiveTargets::World, fields: &[l("Duration", r(f("duration_s", "float", "s", D::Number(0.7), "its length"), DIRECTIVE_DURATION_RANGE))], help: "open (or extend) a forced-init window (`ForcedInit` alone: 0.7 s)" },
    DirectiveSchema { name: "InstantFill", label: "Instant fill", targets: DirectiveTargets::World, fields: &NONE, help: "request an instant fill" },
    DirectiveSchema { name: "PausePopulation", label: "Pause population", targets: DirectiveTargets::World, fields: &[DURATION], help: "the population clocks plan no cycles and add no debt for that long; debt owed and pending demands are kept" },
    DirectiveSchema { name: "PlaceObstacle", label: "Place obstacle", targets: DirectiveTargets::World, fields: &[OBSTACLE, l("From", r(f("from", P3, "m", D::Required, "one end"), FINITE)), l("To", r(f("to", P3, "m", D::Required, "the other end"), FINITE)), l("Thickness", r(f("thickness_m", "float", "m", D::Number(0.2), "its thickness"), POSITIVE))], help: "a wall segment, 1 m tall, enters the physical scene (walkers, admission and recovery meet it), unknown to the path service; placing an id again moves it; the id may not be an object's or barrier's" },
    DirectiveSchema { name: "RemoveObstacle", label: "Remove obstacle", targets: DirectiveTargets::World, fields: &[OBSTACLE], help: "the placed obstacle, or the authored object's footprint or barrier, of that id leaves the physical scene (the path service keeps an authored one)" },
    DirectiveSchema { name: "SetObserverFade", label: "Set observer fade", targets: DirectiveTargets::World, fields: &[OBSERVER, l("Fade", r(f("fade", "float", "", D::Required, "0 clear to 1 black"), UNIT_INTERVAL))], help: "set an observer's fade" },
    DirectiveSchema { name: "SetObserverValid", label: "Set observer validity", targets: DirectiveTargets::World, fields: &[OBSERVER, l("Valid", f("valid", "bool", "", D::Required, "whether the view is valid"))], help: "set an observer's validity" },
    DirectiveSchema { name: "SetRemovalMultiplier", label: "Set removal multiplier", targets: DirectiveTargets::Ped, fields: &[l("Multiplier", r(f("multiplier", "float", "×", D::Required, "scales the pedestrian's removal distances"), POSITIVE))], help: "set the pedestrian's removal-distance multiplier" },
    DirectiveSchema { name: "ExtendRemovalDistance", label: "Extend removal distance", targets: DirectiveTargets::Ped, fields: &[l("Task", f("task", "bool", "", D::Bool(false), "the task flag, asserted by the pedestrian's active primary task at every full task update while it stays active (the directive's source and tag must match it); else the ordinary flag, for the next Control update only"))], help: "ask for an extra-distance retirement flag: the pedestrian's removal distances take the removal scale its classification selects (cops or special)" },
    DirectiveSchema { name: "ClearEvents", label: "Clear events", targets: DirectiveTargets::World, fields: &[l("Event type", f("event_type", "`threat`, `incident` or empty", "", D::Text("\"\""), "the type matched (empty: any)")), l("Event source", f("event_source", "string", "", D::Text("\"\""), "the source matched (empty: any)")), l("Tag", f("tag", "integer (u32)", "", D::Number(0.0), "the session tag matched (0: any)"))], help: "end the queued and active ped events matching type, source and tag (an active threat event's escape is cancelled with it); other events stay" },
    DirectiveSchema { name: "SetFamilyAvailable", label: "Set family availability", targets: DirectiveTargets::World, fields: &[l("Family", f("family", "id", "", D::Required, "the appearance family's id")), l("Available", f("available", "bool", "", D::Required, "whether its bindings are ready"))], help: "make an appearance family available or not" },
];

/// The directive kind written `name` in files.
pub fn directive_schema(name: &str) -> Option<&'static DirectiveSchema> {
    DIRECTIVE_SCHEMA.iter().find(|s| s.name == name)
}

impl DirectiveCommand {
    /// The command's name in the file (`Hold`, `Stand`).
    pub fn name(&self) -> &'static str {
        use DirectiveCommand as C;
        match self {
            C::Claim { .. } => "Claim",
            C::Release { .. } => "Release",
            C::Rendezvous { .. } => "Rendezvous",
            C::Hold => "Hold",
            C::Continue => "Continue",
            C::Stand { .. } => "Stand",
            C::Redirect { .. } => "Redirect",
            C::RendezvousWith { .. } => "RendezvousWith",
            C::RedirectTo { .. } => "RedirectTo",
            C::Cancel => "Cancel",
            C::Escape { .. } => "Escape",
            C::Destroy => "Destroy",
            C::Knockdown { .. } => "Knockdown",
            C::SetNoSpawnBox { .. } => "SetNoSpawnBox",
            C::ClearNoSpawnBox => "ClearNoSpawnBox",
            C::SetNoRemovalBox { .. } => "SetNoRemovalBox",
            C::ClearNoRemovalBox => "ClearNoRemovalBox",
            C::SuppressCleanup => "SuppressCleanup",
            C::ForcedInit { .. } => "ForcedInit",
            C::InstantFill => "InstantFill",
            C::PausePopulation { .. } => "PausePopulation",
            C::PlaceObstacle { .. } => "PlaceObstacle",
            C::RemoveObstacle { .. } => "RemoveObstacle",
            C::SetObserverFade { .. } => "SetObserverFade",
            C::SetObserverValid { .. } => "SetObserverValid",
            C::SetRemovalMultiplier { .. } => "SetRemovalMultiplier",
            C::ExtendRemovalDistance { .. } => "ExtendRemovalDistance",
            C::SetVehicleIntent { .. } => "SetVehicleIntent",
            C::SetVehicleRelation { .. } => "SetVehicleRelation",
            C::QueueEvent { .. } => "QueueEvent",
            C::SetFamilyAvailable { .. } => "SetFamilyAvailable",
            C::ClearEvents { .. } => "ClearEvents",
            C::Panic { .. } => "Panic",
            C::SetRelevance { .. } => "SetRelevance",
            C::LineOfSight { .. } => "LineOfSight",
        }
    }

    /// The command's row of [`DIRECTIVE_SCHEMA`].
    pub fn schema(&self) -> &'static DirectiveSchema {
        directive_schema(self.name()).unwrap_or(&DIRECTIVE_SCHEMA[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::decode::Encode;
    use crate::project::write::Doc;

    /// A command of every kind, as the decoder reads the kind with every field given.
    fn every_kind() -> Vec<DirectiveCommand> {
        let text = DIRECTIVE_SCHEMA.iter().map(|s| s.name).collect::<Vec<_>>();
        text.iter().filter_map(|name| sample(name)).collect()
    }

    fn sample(name: &str) -> Option<DirectiveCommand> {
        use super::super::scenario::VehicleRelation;
        use crate::project::{Box3, Vec3};
        use DirectiveCommand as C;
        let v = Vec3::default();
        Some(match name {
            "Claim" => C::Claim {
                owner: String::new(),
                allow_transfer: false,
            },
            "Release" => C::Release {
                owner: String::new(),
            },
            "Rendezvous" => C::Rendezvous { goal: v },
            "Hold" => C::Hold,
            "Continue" => C::Continue,
            "Stand" => C::Stand { duration_s: 1.0 },
            "Redirect" => C::Redirect { goal: v },
            "Cancel" => C::Cancel,
            "Escape" => C::Escape {
                threat: v,
                safe_distance_m: 1.0,
                endpoint: Some(v),
                restore_interrupted: true,
            },
            "ClearEvents" => C::ClearEvents {
                event_type: String::new(),
                event_source: String::new(),
                tag: 0,
            },
            "RendezvousWith" => C::RendezvousWith {
                object: String::new(),
                offset: v,
            },
            "RedirectTo" => C::RedirectTo {
                object: String::new(),
                offset: v,
            },
            "Knockdown" => C::Knockdown { impulse_n_s: v },
            "Destroy" => C::Destroy,
            "Panic" => C::Panic {
                center: v,
                radius_m: 1.0,
                strength: 1.0,
            },
            "SetRelevance" => C::SetRelevance { relevance: 1.0 },
            "LineOfSight" => C::LineOfSight {
                presented: String::new(),
                own: String::new(),
                allied: vec![],
                hostile: vec![],
                accepted_disguises: vec![],
            },
            "SetVehicleIntent" => C::SetVehicleIntent { intent: true },
            "SetVehicleRelation" => C::SetVehicleRelation {
                relation: VehicleRelation::Seated,
            },
            "QueueEvent" => C::QueueEvent { duration_s: 1.0 },
            "SetNoSpawnBox" => C::SetNoSpawnBox {
                bounds: Box3::default(),
            },
            "ClearNoSpawnBox" => C::ClearNoSpawnBox,
            "SetNoRemovalBox" => C::SetNoRemovalBox {
                bounds: Box3::default(),
            },
            "ClearNoRemovalBox" => C::ClearNoRemovalBox,
            "SuppressCleanup" => C::SuppressCleanup,
            "ForcedInit" => C::ForcedInit { duration_s: 1.0 },
            "InstantFill" => C::InstantFill,
            "PausePopulation" => C::PausePopulation { duration_s: 1.0 },
            "PlaceObstacle" => C::PlaceObstacle {
                obstacle: String::new(),
                from: v,
                to: v,
                thickness_m: 0.2,
            },
            "RemoveObstacle" => C::RemoveObstacle {
                obstacle: String::new(),
            },
            "SetObserverFade" => C::SetObserverFade {
                observer: String::new(),
                fade: 0.0,
            },
            "SetObserverValid" => C::SetObserverValid {
                observer: String::new(),
                valid: true,
            },
            "SetRemovalMultiplier" => C::SetRemovalMultiplier { multiplier: 1.0 },
            "ExtendRemovalDistance" => C::ExtendRemovalDistance { task: false },
            "SetFamilyAvailable" => C::SetFamilyAvailable {
                family: String::new(),
                available: true,
            },
            _ => return None,
        })
    }

    #[test]
    fn the_table_names_every_kind_once_with_the_fields_the_file_writes() {
        let commands = every_kind();
        assert_eq!(commands.len(), DIRECTIVE_SCHEMA.len());
        for (command, schema) in commands.iter().zip(DIRECTIVE_SCHEMA.iter()) {
            assert_eq!(command.name(), schema.name);
            assert_eq!(command.schema(), schema);
            let written: Vec<&str> = match command.encode() {
                Doc::Struct(name, fields) => {
                    assert_eq!(name, schema.name);
                    fields.iter().map(|(field, _)| *field).collect()
                }
                Doc::Unit(name) => {
                    assert_eq!(name, schema.name);
                    Vec::new()
                }
                other => panic!("{} encodes as {other:?}", schema.name),
            };
            let listed: Vec<&str> = schema.fields.iter().map(|f| f.name).collect();
            assert_eq!(written, listed, "{}", schema.name);
            assert!(
                schema.fields.iter().all(|f| !f.label.is_empty()),
                "{}",
                schema.name
            );
        }
        let mut labels: Vec<&str> = DIRECTIVE_SCHEMA.iter().map(|s| s.label).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), DIRECTIVE_SCHEMA.len());
    }

    #[test]
    fn world_commands_are_the_fifteen_of_the_world() {
        let world: Vec<&str> = DIRECTIVE_SCHEMA
            .iter()
            .filter(|s| s.is_world())
            .map(|s| s.name)
            .collect();
        assert_eq!(
            world,
            [
                "Panic",
                "SetNoSpawnBox",
                "ClearNoSpawnBox",
                "SetNoRemovalBox",
                "ClearNoRemovalBox",
                "SuppressCleanup",
                "ForcedInit",
                "InstantFill",
                "PausePopulation",
                "PlaceObstacle",
                "RemoveObstacle",
                "SetObserverFade",
                "SetObserverValid",
                "ClearEvents",
                "SetFamilyAvailable",
            ]
        );
        assert_eq!(DirectiveTargets::World.kinds(), ["World"]);
    }
}
