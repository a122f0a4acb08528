//! The Inspector's directives: the command kinds, their fields and defaults, all from the
//! runtime's directive table (`project::DIRECTIVE_SCHEMA`: kind, label, targets, fields with
//! units and help); the Timeline's "+ Directive" uses the same functions.

use egui::Ui;
use stagecraft_runtime::project::{
    directive_schema, Directive, DirectiveCommand, DirectiveSchema, FieldSchema, Vec3,
    VehicleRelation, DIRECTIVE_SCHEMA,
};

use super::form::{combo_ui, Form};
use super::scenario::default_box;

/// Field `name` of a directive kind in the runtime's table (the tests check every kind's
/// fields against the file's; a name it lacks gives a blank row rather than a panic).
fn dfield(table: &'static DirectiveSchema, name: &str) -> &'static FieldSchema {
    table.field(name).unwrap_or(&FieldSchema::BLANK)
}

/// The frame of a directive added after `directives`: 20 frames past the last one, never past the
/// scenario's end (a directive there would never run, which is an error).
pub fn next_directive_frame(directives: &[Directive], duration_frames: u64) -> u64 {
    directives
        .last()
        .map_or(0, |d| d.frame.saturating_add(20))
        .min(duration_frames)
}

/// The directive "add" creates at `frame`: a Hold of the first source's first pedestrian (the
/// Inspector's list and the Timeline's "+ Directive" both use it).
pub fn new_directive(source_ids: &[String], frame: u64) -> Directive {
    let target = stagecraft_runtime::project::Target::Born {
        source: source_ids.first().cloned().unwrap_or_default(),
        ordinal: 0,
    };
    Directive::new(frame, target, DirectiveCommand::Hold)
}

/// One line naming a directive: "frame 40 · courier #0 · Claim".
pub fn directive_summary(directive: &Directive) -> String {
    format!(
        "frame {} · {} · {}",
        directive.frame,
        directive.target,
        command_name(&directive.command)
    )
}

/// The kind of `command`: its name in the runtime's directive table (`Hold`, `Stand`).
pub fn command_kind(command: &DirectiveCommand) -> &'static str {
    command.name()
}

fn command_name(command: &DirectiveCommand) -> &'static str {
    command.schema().label
}

/// The label of directive kind `kind` in the runtime's directive table.
pub fn kind_label(kind: &str) -> &'static str {
    directive_schema(kind).map_or("?", |schema| schema.label)
}

/// The kinds offered (name, label), in the directive table's order: the Inspector's combo box
/// and the Timeline's "+ Directive" kind.
pub fn command_options() -> Vec<(&'static str, &'static str)> {
    DIRECTIVE_SCHEMA.iter().map(|d| (d.name, d.label)).collect()
}

/// The goal or threat a command carries, kept when switching between commands that have one.
fn command_point(command: &DirectiveCommand) -> Vec3 {
    match command {
        DirectiveCommand::Rendezvous { goal } | DirectiveCommand::Redirect { goal } => *goal,
        DirectiveCommand::Escape { threat, .. } => *threat,
        DirectiveCommand::Panic { center, .. } => *center,
        _ => Vec3::default(),
    }
}

/// A command of `kind`, keeping the point, object and offset `previous` carries where the new
/// kind has one.
pub fn new_command(kind: &str, previous: &DirectiveCommand) -> DirectiveCommand {
    let point = command_point(previous);
    let (object, offset) = match previous {
        DirectiveCommand::RendezvousWith { object, offset }
        | DirectiveCommand::RedirectTo { object, offset } => (object.clone(), *offset),
        _ => (String::new(), Vec3::default()),
    };
    match kind {
        "Claim" => DirectiveCommand::Claim {
            owner: "script".to_owned(),
            allow_transfer: false,
        },
        "Release" => DirectiveCommand::Release {
            owner: "script".to_owned(),
        },
        "Rendezvous" => DirectiveCommand::Rendezvous { goal: point },
        "Hold" => DirectiveCommand::Hold,
        "Continue" => DirectiveCommand::Continue,
        "Redirect" => DirectiveCommand::Redirect { goal: point },
        "Cancel" => DirectiveCommand::Cancel,
        "Escape" => DirectiveCommand::Escape {
            threat: point,
            safe_distance_m: 20.0,
            endpoint: None,
            restore_interrupted: false,
        },
        "ClearEvents" => DirectiveCommand::ClearEvents {
            event_type: "threat".to_owned(),
            event_source: String::new(),
            tag: 0,
        },
        "RendezvousWith" => DirectiveCommand::RendezvousWith { object, offset },
        "RedirectTo" => DirectiveCommand::RedirectTo { object, offset },
        "Knockdown" => DirectiveCommand::Knockdown {
            impulse_n_s: Vec3 {
                x: 120.0,
                y: 0.0,
                z: 0.0,
            },
        },
        "Stand" => DirectiveCommand::Stand { duration_s: 3.0 },
        "Destroy" => DirectiveCommand::Destroy,
        "Panic" => DirectiveCommand::Panic {
            center: point,
            radius_m: 10.0,
            strength: 1.0,
        },
        "SetRelevance" => DirectiveCommand::SetRelevance { relevance: 1.0 },
        "LineOfSight" => DirectiveCommand::LineOfSight {
            presented: String::new(),
            own: String::new(),
            allied: Vec::new(),
            hostile: Vec::new(),
            accepted_disguises: Vec::new(),
        },
        "SetVehicleIntent" => DirectiveCommand::SetVehicleIntent { intent: true },
        "SetVehicleRelation" => DirectiveCommand::SetVehicleRelation {
            relation: VehicleRelation::Seated,
        },
        "QueueEvent" => DirectiveCommand::QueueEvent { duration_s: 5.0 },
        other => population_command(other, previous),
    }
}

/// A population-lifecycle command of `kind` with sensible defaults (a box keeps the box
/// `previous` set, the observer and family ids the ones it named).
fn population_command(kind: &str, previous: &DirectiveCommand) -> DirectiveCommand {
    let bounds = match previous {
        DirectiveCommand::SetNoSpawnBox { bounds }
        | DirectiveCommand::SetNoRemovalBox { bounds } => *bounds,
        _ => default_box(),
    };
    let observer = match previous {
        DirectiveCommand::SetObserverFade { observer, .. }
        | DirectiveCommand::SetObserverValid { observer, .. } => observer.clone(),
        _ => String::new(),
    };
    match kind {
        "SetNoSpawnBox" => DirectiveCommand::SetNoSpawnBox { bounds },
        "ClearNoSpawnBox" => DirectiveCommand::ClearNoSpawnBox,
        "SetNoRemovalBox" => DirectiveCommand::SetNoRemovalBox { bounds },
        "ClearNoRemovalBox" => DirectiveCommand::ClearNoRemovalBox,
        "SuppressCleanup" => DirectiveCommand::SuppressCleanup,
        "ForcedInit" => DirectiveCommand::ForcedInit {
            duration_s: stagecraft_runtime::project::DEFAULT_FORCED_INIT_S,
        },
        "InstantFill" => DirectiveCommand::InstantFill,
        "PausePopulation" => DirectiveCommand::PausePopulation { duration_s: 2.0 },
        "PlaceObstacle" => DirectiveCommand::PlaceObstacle {
            obstacle: obstacle_of(previous),
            from: Vec3::default(),
            to: Vec3 {
                x: 0.0,
                y: 2.0,
                z: 0.0,
            },
            thickness_m: stagecraft_runtime::project::DEFAULT_OBSTACLE_THICKNESS_M,
        },
        "RemoveObstacle" => DirectiveCommand::RemoveObstacle {
            obstacle: obstacle_of(previous),
        },
        "SetObserverFade" => DirectiveCommand::SetObserverFade {
            observer,
            fade: 1.0,
        },
        "SetObserverValid" => DirectiveCommand::SetObserverValid {
            observer,
            valid: false,
        },
        "SetRemovalMultiplier" => DirectiveCommand::SetRemovalMultiplier { multiplier: 1.0 },
        "ExtendRemovalDistance" => DirectiveCommand::ExtendRemovalDistance { task: false },
        "SetFamilyAvailable" => DirectiveCommand::SetFamilyAvailable {
            family: String::new(),
            available: true,
        },
        // Every other kind is made by `new_command`.
        _ => previous.clone(),
    }
}

/// The obstacle id an obstacle command names (a new one starts with `obstacle`).
fn obstacle_of(previous: &DirectiveCommand) -> String {
    match previous {
        DirectiveCommand::PlaceObstacle { obstacle, .. }
        | DirectiveCommand::RemoveObstacle { obstacle } => obstacle.clone(),
        _ => "obstacle".to_owned(),
    }
}

/// The target a command of this kind needs: the world for a world command, otherwise the
/// pedestrian `target` names (the first source's first pedestrian if it named the world).
pub fn target_for(
    command: &DirectiveCommand,
    target: &stagecraft_runtime::project::Target,
    source_ids: &[String],
) -> stagecraft_runtime::project::Target {
    use stagecraft_runtime::project::Target;
    match (command.is_world(), target) {
        (true, _) => Target::World,
        (false, Target::World) => Target::Born {
            source: source_ids.first().cloned().unwrap_or_default(),
            ordinal: 0,
        },
        (false, other) => other.clone(),
    }
}

/// The ids a directive's fields pick from.
pub(super) struct DirectiveIds<'a> {
    pub sources: &'a [String],
    pub objects: &'a [String],
    pub observers: &'a [String],
}

pub(super) fn directive_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    directive: &mut Directive,
    ids: &DirectiveIds<'_>,
) {
    let sources = ids.sources;
    form.schema_number_ui(
        ui,
        stagecraft_runtime::project::scenario_field("Directive", "frame"),
        &mut directive.frame,
    );
    form.field("target", |form| {
        target_ui(form, ui, &mut directive.target, sources)
    });
    form.field("command", |form| {
        let salt = form.path().clone();
        form.row_here_ui(ui, "command", "What to do.", |ui| {
            let mut kind = command_kind(&directive.command);
            let before = kind;
            let response = combo_ui(ui, &salt, &mut kind, &command_options());
            if kind != before {
                directive.command = new_command(kind, &directive.command);
                directive.target = target_for(&directive.command, &directive.target, sources);
            }
            response
        });
        command_fields_ui(form, ui, &mut directive.command, ids);
    });
    if !directive.command.is_world() {
        let field = |name| stagecraft_runtime::project::scenario_field("Directive", name);
        form.schema_text_ui(ui, field("source"), &mut directive.source);
        form.schema_number_ui(ui, field("session"), &mut directive.session);
    }
    if directive.command.is_route() || directive.motion_profile.is_some() {
        let field = stagecraft_runtime::project::scenario_field("Directive", "motion_profile");
        super::motion_pick::motion_profile_pick_ui(form, ui, field, &mut directive.motion_profile);
    }
}

/// An escape's optional endpoint: a checkbox (supplied or selected), then the point (a new one
/// starts at the threat).
fn endpoint_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    field: &'static stagecraft_runtime::project::FieldSchema,
    endpoint: &mut Option<Vec3>,
    threat: Vec3,
) {
    let help = super::schema_rows::schema_help(field);
    form.field(field.name, |form| {
        form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
            let mut set = endpoint.is_some();
            let mut response = ui.checkbox(&mut set, "");
            let label = format!("Set {}", field.label);
            response.widget_info(|| {
                egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, set, &label)
            });
            match (set, endpoint.as_mut()) {
                (true, Some(point)) => response |= super::form::vec3_ui(ui, point),
                (true, None) => *endpoint = Some(threat),
                (false, _) => *endpoint = None,
            }
            response
        })
    });
}

/// The target's fields: a born pedestrian's source and ordinal (other targets are shown).
fn target_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    target: &mut stagecraft_runtime::project::Target,
    sources: &[String],
) {
    match target {
        stagecraft_runtime::project::Target::Born { source, ordinal } => {
            form.id_picker_ui(
                ui,
                "source",
                "The population source of the pedestrian.",
                source,
                sources,
            );
            form.number_ui(
                ui,
                "ordinal",
                "Which of the source's pedestrians (0-based, in birth order).",
                ordinal,
                0..=u32::MAX,
                "",
            );
        }
        other => {
            ui.label(format!("target: {other}"));
        }
    }
}

/// The fields of the chosen command.
fn command_fields_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    command: &mut DirectiveCommand,
    ids: &DirectiveIds<'_>,
) {
    let objects = ids.objects;
    let table = command.schema();
    match command {
        DirectiveCommand::Claim {
            owner,
            allow_transfer,
        } => {
            form.schema_text_ui(ui, dfield(table, "owner"), owner);
            form.row_ui(
                ui,
                "allow_transfer",
                "Whether taking a pedestrian another owner holds is permitted.",
                |ui| ui.checkbox(allow_transfer, ""),
            );
        }
        DirectiveCommand::Release { owner } => {
            form.schema_text_ui(ui, dfield(table, "owner"), owner);
        }
        DirectiveCommand::Rendezvous { goal } | DirectiveCommand::Redirect { goal } => {
            form.schema_vec3_ui(ui, dfield(table, "goal"), goal);
        }
        DirectiveCommand::Escape {
            threat,
            safe_distance_m,
            endpoint,
            restore_interrupted,
        } => {
            form.schema_vec3_ui(ui, dfield(table, "threat"), threat);
            form.schema_number_ui(ui, dfield(table, "safe_distance_m"), safe_distance_m);
            endpoint_ui(form, ui, dfield(table, "endpoint"), endpoint, *threat);
            form.schema_bool_ui(
                ui,
                dfield(table, "restore_interrupted"),
                restore_interrupted,
            );
        }
        DirectiveCommand::RendezvousWith { object, offset }
        | DirectiveCommand::RedirectTo { object, offset } => {
            form.id_picker_ui(
                ui,
                "object",
                "The scene object whose transform gives the goal (read at command time).",
                object,
                objects,
            );
            form.schema_vec3_ui(ui, dfield(table, "offset"), offset);
        }
        DirectiveCommand::Knockdown { impulse_n_s } => {
            form.schema_vec3_ui(ui, dfield(table, "impulse_n_s"), impulse_n_s);
        }
        other => crowd_command_ui(form, ui, other, ids.observers),
    }
}

/// The fields of the stand, panic, relevance, line-of-sight and vehicle-intent commands.
fn crowd_command_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    command: &mut DirectiveCommand,
    observers: &[String],
) {
    let table = command.schema();
    match command {
        DirectiveCommand::Stand { duration_s } => {
            form.schema_number_ui(ui, dfield(table, "duration_s"), duration_s);
        }
        DirectiveCommand::Panic {
            center,
            radius_m,
            strength,
        } => {
            form.schema_vec3_ui(ui, dfield(table, "center"), center);
            form.schema_number_ui(ui, dfield(table, "radius_m"), radius_m);
            form.schema_number_ui(ui, dfield(table, "strength"), strength);
        }
        DirectiveCommand::SetRelevance { relevance } => {
            form.schema_number_ui(ui, dfield(table, "relevance"), relevance);
        }
        DirectiveCommand::LineOfSight {
            presented,
            own,
            allied,
            hostile,
            accepted_disguises,
        } => {
            form.schema_text_ui(ui, dfield(table, "presented"), presented);
            form.schema_text_ui(ui, dfield(table, "own"), own);
            list_text_ui(
                form,
                ui,
                "allied",
                "Allied factions, comma separated.",
                allied,
            );
            list_text_ui(
                form,
                ui,
                "hostile",
                "Hostile factions, comma separated.",
                hostile,
            );
            list_text_ui(
                form,
                ui,
                "accepted_disguises",
                "Disguises it accepts, comma separated.",
                accepted_disguises,
            );
        }
        DirectiveCommand::SetVehicleIntent { intent } => {
            form.row_ui(
                ui,
                "intent",
                "Whether it intends to enter a vehicle.",
                |ui| ui.checkbox(intent, ""),
            );
        }
        DirectiveCommand::SetVehicleRelation { relation } => {
            let options = VehicleRelation::ALL.map(|r| (r, r.name()));
            form.row_ui(
                ui,
                "relation",
                "Its vehicle relationship: any but None keeps it from retirement.",
                |ui| combo_ui(ui, &"vehicle-relation", relation, &options),
            );
        }
        DirectiveCommand::QueueEvent { duration_s } => {
            form.schema_number_ui(ui, dfield(table, "duration_s"), duration_s);
        }
        other => population_command_ui(form, ui, other, observers),
    }
}

/// The fields of the box, forced-init, observer, removal-multiplier and family commands (the
/// ones without fields show none).
fn population_command_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    command: &mut DirectiveCommand,
    observers: &[String],
) {
    let table = command.schema();
    match command {
        DirectiveCommand::SetNoSpawnBox { bounds }
        | DirectiveCommand::SetNoRemovalBox { bounds } => {
            form.field("bounds", |form| {
                form.vec3_ui(ui, "min", "The box's lower corner.", &mut bounds.min);
                form.vec3_ui(ui, "max", "The box's upper corner.", &mut bounds.max);
            });
        }
        DirectiveCommand::ForcedInit { duration_s } => {
            form.schema_number_ui(ui, dfield(table, "duration_s"), duration_s);
        }
        DirectiveCommand::PlaceObstacle {
            obstacle,
            from,
            to,
            thickness_m,
        } => {
            form.schema_text_ui(ui, dfield(table, "obstacle"), obstacle);
            form.schema_vec3_ui(ui, dfield(table, "from"), from);
            form.schema_vec3_ui(ui, dfield(table, "to"), to);
            form.schema_number_ui(ui, dfield(table, "thickness_m"), thickness_m);
        }
        DirectiveCommand::RemoveObstacle { obstacle } => {
            form.schema_text_ui(ui, dfield(table, "obstacle"), obstacle);
        }
        DirectiveCommand::PausePopulation { duration_s } => {
            form.schema_number_ui(ui, dfield(table, "duration_s"), duration_s);
        }
        DirectiveCommand::SetObserverFade { observer, fade } => {
            form.id_picker_ui(
                ui,
                "observer",
                "The observer it changes.",
                observer,
                observers,
            );
            form.schema_number_ui(ui, dfield(table, "fade"), fade);
        }
        DirectiveCommand::SetObserverValid { observer, valid } => {
            form.id_picker_ui(
                ui,
                "observer",
                "The observer it changes.",
                observer,
                observers,
            );
            form.row_ui(ui, "valid", "Whether the view is valid.", |ui| {
                ui.checkbox(valid, "")
            });
        }
        DirectiveCommand::SetRemovalMultiplier { multiplier } => {
            form.schema_number_ui(ui, dfield(table, "multiplier"), multiplier);
        }
        DirectiveCommand::ExtendRemovalDistance { task } => {
            let help =
                "The task flag (asserted by its active primary task), else the ordinary flag.";
            form.row_ui(ui, "task", help, |ui| ui.checkbox(task, ""));
        }
        DirectiveCommand::ClearEvents {
            event_type,
            event_source,
            tag,
        } => {
            form.schema_text_ui(ui, dfield(table, "event_type"), event_type);
            form.schema_text_ui(ui, dfield(table, "event_source"), event_source);
            form.schema_number_ui(ui, dfield(table, "tag"), tag);
        }
        DirectiveCommand::SetFamilyAvailable { family, available } => {
            form.schema_text_ui(ui, dfield(table, "family"), family);
            form.row_ui(ui, "available", "Whether its bindings are ready.", |ui| {
                ui.checkbox(available, "")
            });
        }
        _ => {}
    }
}

/// A list of ids edited as one comma-separated line (the typed text is kept while the field has
/// focus, so a trailing comma survives until the next id is typed).
fn list_text_ui(form: &mut Form<'_>, ui: &mut Ui, name: &str, help: &str, list: &mut Vec<String>) {
    let id = ui.id().with(("list-text", form.path().field(name)));
    let mut text = ui
        .data(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| list.join(", "));
    let response = form.text_ui(ui, name, help, &mut text);
    if response.changed() {
        *list = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
    }
    if response.has_focus() {
        ui.data_mut(|d| d.insert_temp(id, text));
    } else {
        ui.data_mut(|d| d.remove::<String>(id));
    }
}
