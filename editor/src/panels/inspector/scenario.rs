//! Inspector widgets for scenarios (observers, sources, boxes, directives) and override sets.

use egui::{RichText, Ui};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    AimKey, Barrier, Box3, Directive, DirectiveCommand, Keyframe, Observer, Override,
    OverrideAction, OverrideSet, PopulationKind, PopulationSource, RouteEnd, Scenario, SceneObject,
    Vec2, Vec3, VehicleRelation, ACTION_SCHEMA, DEFAULT_FIXED_STEP_S, DURATION_FRAMES_RANGE,
    MAX_DURATION_FRAMES, MAX_FIXED_STEP_S,
};
use stagecraft_runtime::recipe::published_routes;

use super::form::{combo_ui, vec3_ui, Form};
use super::list::{fresh_id, record_list_ui};

const KINDS: [(PopulationKind, &str); 2] = [
    (PopulationKind::Ambient, "Ambient"),
    (PopulationKind::Mission, "Mission"),
];

const ROUTE_ENDS: [(RouteEnd, &str); 2] = [
    (RouteEnd::TurnBack, "Turn back"),
    (RouteEnd::Stop, "Stop at the goal"),
];

/// A scenario: recipe, clock, observers, sources, boxes and directives.
pub fn scenario_ui(form: &mut Form<'_>, ui: &mut Ui, scenario: &mut Scenario) {
    let project = form.project;
    let recipes: Vec<String> = project.recipes.keys().cloned().collect();
    form.read_only_ui(ui, "id", "Persistent id; also the file name.", &scenario.id);
    form.text_ui(ui, "name", "Display name.", &mut scenario.name);
    form.id_picker_ui(
        ui,
        "recipe",
        "The recipe whose pedestrian space the scenario runs on.",
        &mut scenario.recipe,
        &recipes,
    );
    form.number_ui(
        ui,
        "fixed_step_s",
        &format!(
            "Fixed simulation step, in (0, {MAX_FIXED_STEP_S}] seconds (default {DEFAULT_FIXED_STEP_S} s)."
        ),
        &mut scenario.fixed_step_s,
        0.001..=MAX_FIXED_STEP_S,
        " s",
    );
    form.number_ui(
        ui,
        "duration_frames",
        &format!(
            "Length of the scenario in frames, {}.",
            DURATION_FRAMES_RANGE.text
        ),
        &mut scenario.duration_frames,
        0..=MAX_DURATION_FRAMES,
        " frames",
    );
    record_list_ui(
        form,
        ui,
        "observers",
        &mut scenario.observers,
        |observers| {
            Observer::with_defaults(fresh_id(
                "observer",
                observers.iter().map(|o| o.id.as_str()),
            ))
        },
        |index, observer| format!("{index}: {}", observer.id),
        observer_ui,
    );
    let routes: Vec<String> = project
        .recipes
        .get(&scenario.recipe)
        .map(|recipe| {
            published_routes(recipe, &project.families, &Registry::standard())
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    record_list_ui(
        form,
        ui,
        "sources",
        &mut scenario.sources,
        |sources| PopulationSource {
            id: fresh_id("source", sources.iter().map(|s| s.id.as_str())),
            kind: PopulationKind::Ambient,
            route: routes.first().cloned().unwrap_or_default(),
            target_count: 10,
            walk_speed_m_s: 1.4,
            ..Default::default()
        },
        |index, source| format!("{index}: {} on {}", source.id, source.route),
        |form, ui, source| source_ui(form, ui, source, &routes),
    );
    box_ui(
        form,
        ui,
        "no_spawn_box",
        "No ambient births inside this box (inclusive).",
        &mut scenario.no_spawn_box,
    );
    box_ui(
        form,
        ui,
        "no_removal_box",
        "Ambient members inside this box are never retired automatically.",
        &mut scenario.no_removal_box,
    );
    let source_ids: Vec<String> = scenario.sources.iter().map(|s| s.id.clone()).collect();
    let object_ids: Vec<String> = scenario.objects.iter().map(|o| o.id.clone()).collect();
    let observer_ids: Vec<String> = scenario.observers.iter().map(|o| o.id.clone()).collect();
    let duration_frames = scenario.duration_frames;
    record_list_ui(
        form,
        ui,
        "directives",
        &mut scenario.directives,
        |directives| {
            new_directive(
                &source_ids,
                next_directive_frame(directives, duration_frames),
            )
        },
        |index, directive| format!("{index}: {}", directive_summary(directive)),
        |form, ui, directive| {
            let ids = DirectiveIds {
                sources: &source_ids,
                objects: &object_ids,
                observers: &observer_ids,
            };
            directive_ui(form, ui, directive, &ids)
        },
    );
    record_list_ui(
        form,
        ui,
        "objects",
        &mut scenario.objects,
        |objects| SceneObject {
            id: fresh_id("object", objects.iter().map(|o| o.id.as_str())),
            scale: stagecraft_runtime::project::UNIT_SCALE,
            ..SceneObject::default()
        },
        |index, object| format!("{index}: {}", object.id),
        object_ui,
    );
    record_list_ui(
        form,
        ui,
        "barriers",
        &mut scenario.barriers,
        |barriers| Barrier {
            id: fresh_id("barrier", barriers.iter().map(|b| b.id.as_str())),
            to: Vec3 {
                x: 2.0,
                y: 0.0,
                z: 0.0,
            },
            thickness_m: 0.2,
            in_navigation: true,
            ..Barrier::default()
        },
        |index, barrier| format!("{index}: {}", barrier.id),
        barrier_ui,
    );
}

fn object_ui(form: &mut Form<'_>, ui: &mut Ui, object: &mut SceneObject) {
    form.text_ui(
        ui,
        "id",
        "Persistent id (directives name it).",
        &mut object.id,
    );
    form.vec3_ui(ui, "position", "Translation.", &mut object.position);
    form.number_ui(
        ui,
        "yaw_rad",
        "Rotation about Z.",
        &mut object.yaw_rad,
        -std::f64::consts::PI..=std::f64::consts::PI,
        " rad",
    );
    form.vec3_ui(ui, "scale", "Scale per local axis.", &mut object.scale);
    form.vec3_ui(
        ui,
        "half_extents_m",
        "Half extents of the footprint the paths avoid (zero: none).",
        &mut object.half_extents_m,
    );
}

fn barrier_ui(form: &mut Form<'_>, ui: &mut Ui, barrier: &mut Barrier) {
    form.text_ui(ui, "id", "Persistent id.", &mut barrier.id);
    form.vec3_ui(ui, "from", "One end of the wall.", &mut barrier.from);
    form.vec3_ui(ui, "to", "The other end.", &mut barrier.to);
    form.number_ui(
        ui,
        "thickness_m",
        "Wall thickness.",
        &mut barrier.thickness_m,
        0.0..=10.0,
        " m",
    );
    form.row_ui(
        ui,
        "in_navigation",
        "Whether path queries know it (off: only bodies meet it).",
        |ui| ui.checkbox(&mut barrier.in_navigation, ""),
    );
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
    Directive {
        frame,
        target: stagecraft_runtime::project::Target::Born {
            source: source_ids.first().cloned().unwrap_or_default(),
            ordinal: 0,
        },
        command: DirectiveCommand::Hold,
    }
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

fn observer_ui(form: &mut Form<'_>, ui: &mut Ui, observer: &mut Observer) {
    use std::f64::consts::PI;
    form.text_ui(ui, "id", "Persistent id.", &mut observer.id);
    form.vec3_ui(ui, "position", "Eye position.", &mut observer.position);
    form.number_ui(
        ui,
        "yaw_rad",
        "Heading around Z (0 looks along +X).",
        &mut observer.yaw_rad,
        -PI..=PI,
        " rad",
    );
    form.number_ui(
        ui,
        "pitch_rad",
        "Pitch (negative looks down).",
        &mut observer.pitch_rad,
        -PI / 2.0..=PI / 2.0,
        " rad",
    );
    form.number_ui(
        ui,
        "fov_y_rad",
        "Vertical field of view, in (0, π).",
        &mut observer.fov_y_rad,
        0.01..=3.1,
        " rad",
    );
    form.number_ui(
        ui,
        "near_m",
        "Near plane distance.",
        &mut observer.near_m,
        0.01..=1000.0,
        " m",
    );
    form.number_ui(
        ui,
        "far_m",
        "Far plane distance.",
        &mut observer.far_m,
        0.1..=100_000.0,
        " m",
    );
    form.number_ui(
        ui,
        "retain_radius_m",
        "Members within this horizontal distance are retained (Rout).",
        &mut observer.retain_radius_m,
        0.0..=10_000.0,
        " m",
    );
    form.number_ui(
        ui,
        "remove_radius_m",
        "Members beyond this horizontal distance are removable (Rin).",
        &mut observer.remove_radius_m,
        0.0..=10_000.0,
        " m",
    );
    form.number_ui(
        ui,
        "close_m",
        "Closer than this to the camera (3D), a visible birth is refused.",
        &mut observer.close_m,
        0.0..=10_000.0,
        " m",
    );
    form.number_ui(
        ui,
        "fade",
        "Fade at the start: 0 is clear, 1 is black (hidden startup needs more than 0.9).",
        &mut observer.fade,
        0.0..=1.0,
        "",
    );
    form.row_ui(
        ui,
        "valid",
        "Whether the view is valid at the start (an invalid view never authorizes a birth or a removal).",
        |ui| named_checkbox(ui, &mut observer.valid, "Valid"),
    );
    let eye = observer.position;
    form.row_ui(
        ui,
        "center",
        "The population center ranges are measured from (the eye when unset).",
        |ui| {
            let mut set = observer.center.is_some();
            let mut response = named_checkbox(ui, &mut set, "Center");
            match (set, observer.center.as_mut()) {
                (true, Some(center)) => response |= vec3_ui(ui, center),
                (true, None) => observer.center = Some(eye),
                (false, _) => observer.center = None,
            }
            response
        },
    );
    let start = observer.position;
    record_list_ui(
        form,
        ui,
        "path",
        &mut observer.path,
        |keys| Keyframe {
            frame: keys.last().map_or(0, |k| k.frame + 100),
            position: keys.last().map_or(start, |k| k.position),
        },
        |index, key| {
            format!(
                "{index}: frame {} at ({:.1}, {:.1}, {:.1})",
                key.frame, key.position.x, key.position.y, key.position.z
            )
        },
        |form, ui, key| {
            form.number_ui(
                ui,
                "frame",
                "The frame the eye reaches this position (keyframes ascend by frame).",
                &mut key.frame,
                0..=10_000_000,
                "",
            );
            form.vec3_ui(
                ui,
                "position",
                "Eye position at that frame.",
                &mut key.position,
            );
        },
    );
    aim_keys_ui(form, ui, observer);
}

/// The observer's aim keys: where its camera looks from each key's frame.
fn aim_keys_ui(form: &mut Form<'_>, ui: &mut Ui, observer: &mut Observer) {
    let (yaw_rad, pitch_rad) = (observer.yaw_rad, observer.pitch_rad);
    record_list_ui(
        form,
        ui,
        "aim",
        &mut observer.aim,
        |keys| AimKey {
            frame: keys.last().map_or(0, |k| k.frame + 100),
            yaw_rad: keys.last().map_or(yaw_rad, |k| k.yaw_rad),
            pitch_rad: keys.last().map_or(pitch_rad, |k| k.pitch_rad),
        },
        |index, key| {
            format!(
                "{index}: frame {} looking {:.0}° / {:.0}°",
                key.frame,
                key.yaw_rad.to_degrees(),
                key.pitch_rad.to_degrees()
            )
        },
        |form, ui, key| {
            form.number_ui(
                ui,
                "frame",
                "The frame the camera looks this way (aim keys ascend by frame).",
                &mut key.frame,
                0..=10_000_000,
                "",
            );
            form.number_ui(
                ui,
                "yaw_rad",
                "Heading around Z at that frame (0 looks along +X); between keys it turns the shorter way.",
                &mut key.yaw_rad,
                -std::f64::consts::PI..=std::f64::consts::PI,
                " rad",
            );
            form.number_ui(
                ui,
                "pitch_rad",
                "Pitch at that frame (negative looks down).",
                &mut key.pitch_rad,
                -std::f64::consts::FRAC_PI_2..=std::f64::consts::FRAC_PI_2,
                " rad",
            );
        },
    );
}

/// A checkbox without text beside the row's label, named `name` for assistive technology (and
/// the UI tests).
fn named_checkbox(ui: &mut Ui, checked: &mut bool, name: &str) -> egui::Response {
    let response = ui.checkbox(checked, "");
    let now = *checked;
    response
        .widget_info(|| egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, now, name));
    response
}

fn source_ui(form: &mut Form<'_>, ui: &mut Ui, source: &mut PopulationSource, routes: &[String]) {
    form.text_ui(ui, "id", "Persistent id.", &mut source.id);
    form.choice_ui(
        ui,
        "kind",
        "Ambient (managed by the population system) or Mission (owned by a script).",
        &mut source.kind,
        &KINDS,
    );
    form.id_picker_ui(
        ui,
        "route",
        "The route of the recipe's pedestrian space the source spawns on.",
        &mut source.route,
        routes,
    );
    form.number_ui(
        ui,
        "target_count",
        "How many pedestrians the source aims to keep alive.",
        &mut source.target_count,
        0..=100_000,
        "",
    );
    form.number_ui(
        ui,
        "walk_speed_m_s",
        "Preferred walking speed.",
        &mut source.walk_speed_m_s,
        0.05..=10.0,
        " m/s",
    );
    form.choice_ui(
        ui,
        "at_route_end",
        "What its pedestrians do at the end of their route: turn back, or stop at the goal.",
        &mut source.at_route_end,
        &ROUTE_ENDS,
    );
}

/// A box row: an edit that would put a min past its max, or make a coordinate non-finite, is
/// refused (the box keeps its last valid bounds, so no edit is recorded) with the reason shown
/// under the row until the box changes.
fn box_ui(form: &mut Form<'_>, ui: &mut Ui, name: &str, help: &str, value: &mut Option<Box3>) {
    let refusal_id = egui::Id::new(("box-refusal", form.path().field(name).to_string()));
    form.row_ui(ui, name, help, |ui| {
        let mut enabled = value.is_some();
        let mut response = ui.checkbox(&mut enabled, "");
        match (enabled, value.as_mut()) {
            (true, Some(bounds)) => {
                let before = *bounds;
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        ui.label("min");
                        response |= vec3_ui(ui, &mut bounds.min);
                    });
                    ui.horizontal(|ui| {
                        ui.label("max");
                        response |= vec3_ui(ui, &mut bounds.max);
                    });
                    // The reason is kept with the bounds it refused to change, so it shows only
                    // while the box still has them (not under another scenario's box).
                    if let Some(why) = box_refusal(name, bounds) {
                        *bounds = before;
                        ui.data_mut(|d| d.insert_temp(refusal_id, (why, before)));
                    }
                    let refused = ui.data(|d| d.get_temp::<(String, Box3)>(refusal_id));
                    if let Some((why, _)) = refused.filter(|(_, kept)| kept == bounds) {
                        ui.label(RichText::new(why).color(ui.visuals().error_fg_color));
                    }
                });
            }
            (true, None) => *value = Some(default_box()),
            (false, _) => *value = None,
        }
        response
    });
}

/// Why the Inspector refuses `bounds` for the box field `name`: a non-finite coordinate, or a
/// min past its max on some axis (inclusive containment allows min = max); `None` when valid.
pub fn box_refusal(name: &str, bounds: &Box3) -> Option<String> {
    let name = name.replace('_', " ");
    let axes = [
        ("x", bounds.min.x, bounds.max.x),
        ("y", bounds.min.y, bounds.max.y),
        ("z", bounds.min.z, bounds.max.z),
    ];
    for (axis, min, max) in axes {
        if !(min.is_finite() && max.is_finite()) {
            return Some(format!(
                "refused: the {name}'s {axis} must be a finite number of meters"
            ));
        }
        if min > max {
            return Some(format!(
                "refused: the {name}'s min {axis} {min:.2} m would pass its max {axis} {max:.2} m"
            ));
        }
    }
    None
}

/// The kinds of directive command the editor offers (the Inspector's combo box and the
/// Timeline's "+ Directive" kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandKind {
    /// `Claim`.
    Claim,
    /// `Release`.
    Release,
    /// `Rendezvous` (a point).
    Rendezvous,
    /// `Hold` (until `Continue`).
    Hold,
    /// `Continue`.
    Continue,
    /// `Stand` (timed standing).
    Stand,
    /// `Redirect` (a point).
    Redirect,
    /// `Cancel`.
    Cancel,
    /// `Escape`.
    Escape,
    /// `RendezvousWith` (a scene object).
    RendezvousWith,
    /// `RedirectTo` (a scene object).
    RedirectTo,
    /// `Knockdown`.
    Knockdown,
    /// `Destroy`.
    Destroy,
    /// `Panic` (a world stimulus).
    Panic,
    /// `SetRelevance`.
    SetRelevance,
    /// `LineOfSight`.
    LineOfSight,
    /// `SetVehicleIntent`.
    SetVehicleIntent,
    /// `SetVehicleRelation` (seated, entering, exiting, intent, none).
    SetVehicleRelation,
    /// `QueueEvent` (an event candidate with a duration).
    QueueEvent,
    /// `SetNoSpawnBox`.
    SetNoSpawnBox,
    /// `ClearNoSpawnBox`.
    ClearNoSpawnBox,
    /// `SetNoRemovalBox`.
    SetNoRemovalBox,
    /// `ClearNoRemovalBox`.
    ClearNoRemovalBox,
    /// `SuppressCleanup`.
    SuppressCleanup,
    /// `ForcedInit` (a window, seconds).
    ForcedInit,
    /// `InstantFill`.
    InstantFill,
    /// `PausePopulation` (a pause of the population clocks, seconds).
    PausePopulation,
    /// `PlaceObstacle` (a wall segment placed in the physical scene).
    PlaceObstacle,
    /// `RemoveObstacle` (a placed or authored obstacle leaves the physical scene).
    RemoveObstacle,
    /// `SetObserverFade`.
    SetObserverFade,
    /// `SetObserverValid`.
    SetObserverValid,
    /// `SetRemovalMultiplier`.
    SetRemovalMultiplier,
    /// `SetFamilyAvailable`.
    SetFamilyAvailable,
}

/// Every kind offered, with its label, in menu order.
pub const COMMANDS: [(CommandKind, &str); 33] = [
    (CommandKind::Claim, "Claim"),
    (CommandKind::Release, "Release"),
    (CommandKind::Rendezvous, "Rendezvous"),
    (CommandKind::Hold, "Hold"),
    (CommandKind::Continue, "Continue"),
    (CommandKind::Stand, "Stand (timed)"),
    (CommandKind::Redirect, "Redirect"),
    (CommandKind::Cancel, "Cancel"),
    (CommandKind::Escape, "Escape"),
    (CommandKind::RendezvousWith, "Rendezvous with object"),
    (CommandKind::RedirectTo, "Redirect to object"),
    (CommandKind::Knockdown, "Knockdown"),
    (CommandKind::Destroy, "Destroy"),
    (CommandKind::Panic, "Panic"),
    (CommandKind::SetRelevance, "Set relevance"),
    (CommandKind::LineOfSight, "Line of sight"),
    (CommandKind::SetVehicleIntent, "Set vehicle intent"),
    (CommandKind::SetVehicleRelation, "Set vehicle relation"),
    (CommandKind::QueueEvent, "Queue event"),
    (CommandKind::SetNoSpawnBox, "Set no-spawn box"),
    (CommandKind::ClearNoSpawnBox, "Clear no-spawn box"),
    (CommandKind::SetNoRemovalBox, "Set no-removal box"),
    (CommandKind::ClearNoRemovalBox, "Clear no-removal box"),
    (CommandKind::SuppressCleanup, "Suppress cleanup"),
    (CommandKind::ForcedInit, "Forced init window"),
    (CommandKind::InstantFill, "Instant fill"),
    (CommandKind::PausePopulation, "Pause population"),
    (CommandKind::PlaceObstacle, "Place obstacle"),
    (CommandKind::RemoveObstacle, "Remove obstacle"),
    (CommandKind::SetObserverFade, "Set observer fade"),
    (CommandKind::SetObserverValid, "Set observer validity"),
    (CommandKind::SetRemovalMultiplier, "Set removal multiplier"),
    (CommandKind::SetFamilyAvailable, "Set family availability"),
];

/// The kind of `command`.
pub fn command_kind(command: &DirectiveCommand) -> CommandKind {
    match command {
        DirectiveCommand::Claim { .. } => CommandKind::Claim,
        DirectiveCommand::Release { .. } => CommandKind::Release,
        DirectiveCommand::Rendezvous { .. } => CommandKind::Rendezvous,
        DirectiveCommand::Hold => CommandKind::Hold,
        DirectiveCommand::Continue => CommandKind::Continue,
        DirectiveCommand::Redirect { .. } => CommandKind::Redirect,
        DirectiveCommand::Cancel => CommandKind::Cancel,
        DirectiveCommand::Escape { .. } => CommandKind::Escape,
        DirectiveCommand::RendezvousWith { .. } => CommandKind::RendezvousWith,
        DirectiveCommand::RedirectTo { .. } => CommandKind::RedirectTo,
        DirectiveCommand::Knockdown { .. } => CommandKind::Knockdown,
        DirectiveCommand::Stand { .. } => CommandKind::Stand,
        DirectiveCommand::Destroy => CommandKind::Destroy,
        DirectiveCommand::Panic { .. } => CommandKind::Panic,
        DirectiveCommand::SetRelevance { .. } => CommandKind::SetRelevance,
        DirectiveCommand::LineOfSight { .. } => CommandKind::LineOfSight,
        DirectiveCommand::SetVehicleIntent { .. } => CommandKind::SetVehicleIntent,
        DirectiveCommand::SetVehicleRelation { .. } => CommandKind::SetVehicleRelation,
        DirectiveCommand::QueueEvent { .. } => CommandKind::QueueEvent,
        DirectiveCommand::PausePopulation { .. } => CommandKind::PausePopulation,
        DirectiveCommand::PlaceObstacle { .. } => CommandKind::PlaceObstacle,
        DirectiveCommand::RemoveObstacle { .. } => CommandKind::RemoveObstacle,
        DirectiveCommand::SetNoSpawnBox { .. } => CommandKind::SetNoSpawnBox,
        DirectiveCommand::ClearNoSpawnBox => CommandKind::ClearNoSpawnBox,
        DirectiveCommand::SetNoRemovalBox { .. } => CommandKind::SetNoRemovalBox,
        DirectiveCommand::ClearNoRemovalBox => CommandKind::ClearNoRemovalBox,
        DirectiveCommand::SuppressCleanup => CommandKind::SuppressCleanup,
        DirectiveCommand::ForcedInit { .. } => CommandKind::ForcedInit,
        DirectiveCommand::InstantFill => CommandKind::InstantFill,
        DirectiveCommand::SetObserverFade { .. } => CommandKind::SetObserverFade,
        DirectiveCommand::SetObserverValid { .. } => CommandKind::SetObserverValid,
        DirectiveCommand::SetRemovalMultiplier { .. } => CommandKind::SetRemovalMultiplier,
        DirectiveCommand::SetFamilyAvailable { .. } => CommandKind::SetFamilyAvailable,
    }
}

fn command_name(command: &DirectiveCommand) -> &'static str {
    kind_label(command_kind(command))
}

/// The label of `kind` in [`COMMANDS`].
pub fn kind_label(kind: CommandKind) -> &'static str {
    COMMANDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("?", |(_, label)| *label)
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
pub fn new_command(kind: CommandKind, previous: &DirectiveCommand) -> DirectiveCommand {
    let point = command_point(previous);
    let (object, offset) = match previous {
        DirectiveCommand::RendezvousWith { object, offset }
        | DirectiveCommand::RedirectTo { object, offset } => (object.clone(), *offset),
        _ => (String::new(), Vec3::default()),
    };
    match kind {
        CommandKind::Claim => DirectiveCommand::Claim {
            owner: "script".to_owned(),
            allow_transfer: false,
        },
        CommandKind::Release => DirectiveCommand::Release {
            owner: "script".to_owned(),
        },
        CommandKind::Rendezvous => DirectiveCommand::Rendezvous { goal: point },
        CommandKind::Hold => DirectiveCommand::Hold,
        CommandKind::Continue => DirectiveCommand::Continue,
        CommandKind::Redirect => DirectiveCommand::Redirect { goal: point },
        CommandKind::Cancel => DirectiveCommand::Cancel,
        CommandKind::Escape => DirectiveCommand::Escape {
            threat: point,
            safe_distance_m: 20.0,
        },
        CommandKind::RendezvousWith => DirectiveCommand::RendezvousWith { object, offset },
        CommandKind::RedirectTo => DirectiveCommand::RedirectTo { object, offset },
        CommandKind::Knockdown => DirectiveCommand::Knockdown {
            impulse_n_s: Vec3 {
                x: 120.0,
                y: 0.0,
                z: 0.0,
            },
        },
        CommandKind::Stand => DirectiveCommand::Stand { duration_s: 3.0 },
        CommandKind::Destroy => DirectiveCommand::Destroy,
        CommandKind::Panic => DirectiveCommand::Panic {
            center: point,
            radius_m: 10.0,
            strength: 1.0,
        },
        CommandKind::SetRelevance => DirectiveCommand::SetRelevance { relevance: 1.0 },
        CommandKind::LineOfSight => DirectiveCommand::LineOfSight {
            presented: String::new(),
            own: String::new(),
            allied: Vec::new(),
            hostile: Vec::new(),
            accepted_disguises: Vec::new(),
        },
        CommandKind::SetVehicleIntent => DirectiveCommand::SetVehicleIntent { intent: true },
        CommandKind::SetVehicleRelation => DirectiveCommand::SetVehicleRelation {
            relation: VehicleRelation::Seated,
        },
        CommandKind::QueueEvent => DirectiveCommand::QueueEvent { duration_s: 5.0 },
        other => population_command(other, previous),
    }
}

/// A population-lifecycle command of `kind` with sensible defaults (a box keeps the box
/// `previous` set, the observer and family ids the ones it named).
fn population_command(kind: CommandKind, previous: &DirectiveCommand) -> DirectiveCommand {
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
        CommandKind::SetNoSpawnBox => DirectiveCommand::SetNoSpawnBox { bounds },
        CommandKind::ClearNoSpawnBox => DirectiveCommand::ClearNoSpawnBox,
        CommandKind::SetNoRemovalBox => DirectiveCommand::SetNoRemovalBox { bounds },
        CommandKind::ClearNoRemovalBox => DirectiveCommand::ClearNoRemovalBox,
        CommandKind::SuppressCleanup => DirectiveCommand::SuppressCleanup,
        CommandKind::ForcedInit => DirectiveCommand::ForcedInit {
            duration_s: stagecraft_runtime::project::DEFAULT_FORCED_INIT_S,
        },
        CommandKind::InstantFill => DirectiveCommand::InstantFill,
        CommandKind::PausePopulation => DirectiveCommand::PausePopulation { duration_s: 2.0 },
        CommandKind::PlaceObstacle => DirectiveCommand::PlaceObstacle {
            obstacle: obstacle_of(previous),
            from: Vec3::default(),
            to: Vec3 {
                x: 0.0,
                y: 2.0,
                z: 0.0,
            },
            thickness_m: stagecraft_runtime::project::DEFAULT_OBSTACLE_THICKNESS_M,
        },
        CommandKind::RemoveObstacle => DirectiveCommand::RemoveObstacle {
            obstacle: obstacle_of(previous),
        },
        CommandKind::SetObserverFade => DirectiveCommand::SetObserverFade {
            observer,
            fade: 1.0,
        },
        CommandKind::SetObserverValid => DirectiveCommand::SetObserverValid {
            observer,
            valid: false,
        },
        CommandKind::SetRemovalMultiplier => {
            DirectiveCommand::SetRemovalMultiplier { multiplier: 1.0 }
        }
        CommandKind::SetFamilyAvailable => DirectiveCommand::SetFamilyAvailable {
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

/// The box a new box command starts with: 10 m × 10 m on the ground, 3 m tall.
fn default_box() -> Box3 {
    Box3 {
        min: Vec3 {
            x: -5.0,
            y: -5.0,
            z: 0.0,
        },
        max: Vec3 {
            x: 5.0,
            y: 5.0,
            z: 3.0,
        },
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
struct DirectiveIds<'a> {
    sources: &'a [String],
    objects: &'a [String],
    observers: &'a [String],
}

fn directive_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    directive: &mut Directive,
    ids: &DirectiveIds<'_>,
) {
    let (sources, objects) = (ids.sources, ids.objects);
    form.number_ui(
        ui,
        "frame",
        "The frame at which the command is issued.",
        &mut directive.frame,
        0..=10_000_000,
        "",
    );
    form.field("target", |form| match &mut directive.target {
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
    });
    form.field("command", |form| {
        let salt = form.path().clone();
        form.row_here_ui(ui, "command", "What to do.", |ui| {
            let mut kind = command_kind(&directive.command);
            let before = kind;
            let response = combo_ui(ui, &salt, &mut kind, &COMMANDS);
            if kind != before {
                directive.command = new_command(kind, &directive.command);
                directive.target = target_for(&directive.command, &directive.target, sources);
            }
            response
        });
        match &mut directive.command {
            DirectiveCommand::Claim {
                owner,
                allow_transfer,
            } => {
                form.text_ui(ui, "owner", "The owner id.", owner);
                form.row_ui(
                    ui,
                    "allow_transfer",
                    "Whether taking a pedestrian another owner holds is permitted.",
                    |ui| ui.checkbox(allow_transfer, ""),
                );
            }
            DirectiveCommand::Release { owner } => {
                form.text_ui(ui, "owner", "The owner id.", owner);
            }
            DirectiveCommand::Rendezvous { goal } | DirectiveCommand::Redirect { goal } => {
                form.vec3_ui(ui, "goal", "Goal position.", goal);
            }
            DirectiveCommand::Escape {
                threat,
                safe_distance_m,
            } => {
                form.vec3_ui(ui, "threat", "Threat position.", threat);
                form.number_ui(
                    ui,
                    "safe_distance_m",
                    "Safe distance from the threat.",
                    safe_distance_m,
                    0.0..=10_000.0,
                    " m",
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
                form.vec3_ui(
                    ui,
                    "offset",
                    "Approach offset in the object's frame.",
                    offset,
                );
            }
            DirectiveCommand::Knockdown { impulse_n_s } => {
                form.vec3_ui(
                    ui,
                    "impulse_n_s",
                    "Impulse at the chest, newton-seconds (magnitude at most 1000).",
                    impulse_n_s,
                );
            }
            other => crowd_command_ui(form, ui, other, ids.observers),
        }
    });
}

/// The fields of the stand, panic, relevance, line-of-sight and vehicle-intent commands.
fn crowd_command_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    command: &mut DirectiveCommand,
    observers: &[String],
) {
    match command {
        DirectiveCommand::Stand { duration_s } => {
            form.number_ui(
                ui,
                "duration_s",
                "How long to stand before walking on (released by the clock, not by Continue).",
                duration_s,
                0.05..=3600.0,
                " s",
            );
        }
        DirectiveCommand::Panic {
            center,
            radius_m,
            strength,
        } => {
            form.vec3_ui(ui, "center", "Centre of the stimulus.", center);
            form.number_ui(
                ui,
                "radius_m",
                "How far it reaches.",
                radius_m,
                0.0..=1000.0,
                " m",
            );
            form.number_ui(
                ui,
                "strength",
                "Panic added at the centre.",
                strength,
                0.0..=1.0,
                "",
            );
        }
        DirectiveCommand::SetRelevance { relevance } => {
            form.number_ui(
                ui,
                "relevance",
                "Relevance for the tiers and the crowd governor.",
                relevance,
                0.0..=1.0,
                "",
            );
        }
        DirectiveCommand::LineOfSight {
            presented,
            own,
            allied,
            hostile,
            accepted_disguises,
        } => {
            form.text_ui(
                ui,
                "presented",
                "The faction or disguise it sees.",
                presented,
            );
            form.text_ui(ui, "own", "Its own faction.", own);
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
            form.number_ui(
                ui,
                "duration_s",
                "How long the event lasts once the next Tasks update makes it current.",
                duration_s,
                0.0..=3600.0,
                " s",
            );
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
    match command {
        DirectiveCommand::SetNoSpawnBox { bounds }
        | DirectiveCommand::SetNoRemovalBox { bounds } => {
            form.field("bounds", |form| {
                form.vec3_ui(ui, "min", "The box's lower corner.", &mut bounds.min);
                form.vec3_ui(ui, "max", "The box's upper corner.", &mut bounds.max);
            });
        }
        DirectiveCommand::ForcedInit { duration_s } => {
            form.number_ui(
                ui,
                "duration_s",
                "How long the forced-init window stays open (or is extended).",
                duration_s,
                0.0..=3600.0,
                " s",
            );
        }
        DirectiveCommand::PlaceObstacle {
            obstacle,
            from,
            to,
            thickness_m,
        } => {
            form.text_ui(
                ui,
                "obstacle",
                "Its id (RemoveObstacle names it; not an authored object's or barrier's).",
                obstacle,
            );
            form.vec3_ui(ui, "from", "One end of the wall segment.", from);
            form.vec3_ui(ui, "to", "The other end.", to);
            form.number_ui(
                ui,
                "thickness_m",
                "Its thickness.",
                thickness_m,
                0.01..=10.0,
                " m",
            );
        }
        DirectiveCommand::RemoveObstacle { obstacle } => {
            form.text_ui(
                ui,
                "obstacle",
                "A placed obstacle's id, or an authored scene object's or barrier's.",
                obstacle,
            );
        }
        DirectiveCommand::PausePopulation { duration_s } => {
            form.number_ui(
                ui,
                "duration_s",
                "How long the population clocks stay paused (no cycles, no new debt).",
                duration_s,
                0.0..=3600.0,
                " s",
            );
        }
        DirectiveCommand::SetObserverFade { observer, fade } => {
            form.id_picker_ui(
                ui,
                "observer",
                "The observer it changes.",
                observer,
                observers,
            );
            form.number_ui(ui, "fade", "0 clear to 1 black.", fade, 0.0..=1.0, "");
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
            form.number_ui(
                ui,
                "multiplier",
                "Scales the pedestrian's removal distances (positive).",
                multiplier,
                0.01..=100.0,
                "×",
            );
        }
        DirectiveCommand::SetFamilyAvailable { family, available } => {
            form.text_ui(ui, "family", "The appearance family's id.", family);
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

/// The override actions for the combo box, from the runtime's action schema (name, label).
fn action_options() -> Vec<(&'static str, &'static str)> {
    ACTION_SCHEMA.iter().map(|s| (s.name, s.label)).collect()
}

/// A field's one-line help from the action schema (empty for a field it does not name).
fn field_help(action: &OverrideAction, field: &str) -> &'static str {
    action
        .schema()
        .fields
        .iter()
        .find(|f| f.name == field)
        .map_or("", |f| f.doc)
}

/// A fresh action named `name` (an action of the schema), with the first variant where one is
/// needed.
fn new_action(name: &str, variants: &[String]) -> OverrideAction {
    let variant = variants.first().cloned().unwrap_or_default();
    let position = Vec2::default();
    match name {
        "LockSelection" => OverrideAction::LockSelection { variant },
        "LockTransform" => OverrideAction::LockTransform {
            position,
            rotation: 0,
            scale: 1000,
        },
        "Move" => OverrideAction::Move { position },
        "Rotate" => OverrideAction::Rotate { rotation: 0 },
        "Replace" => OverrideAction::Replace { variant },
        "Add" => OverrideAction::Add { variant, position },
        "Exclude" => OverrideAction::Exclude {
            min: position,
            max: Vec2 { x: 1.0, y: 1.0 },
        },
        "FreezeSubtree" => OverrideAction::FreezeSubtree {
            variant,
            position,
            rotation: 0,
            scale: 1000,
        },
        _ => OverrideAction::Delete,
    }
}

/// An override set: recipe, base revision and overrides.
pub fn overrides_ui(form: &mut Form<'_>, ui: &mut Ui, set: &mut OverrideSet) {
    let project = form.project;
    let recipes: Vec<String> = project.recipes.keys().cloned().collect();
    let variants: Vec<String> = project
        .families
        .values()
        .flat_map(|family| family.variants.iter().map(|v| v.id.clone()))
        .collect();
    form.read_only_ui(ui, "id", "Persistent id; also the file name.", &set.id);
    form.id_picker_ui(
        ui,
        "recipe",
        "The recipe whose generated objects are overridden.",
        &mut set.recipe,
        &recipes,
    );
    form.text_ui(
        ui,
        "base_revision",
        "Digest of the generated base the overrides were authored against.",
        &mut set.base_revision,
    );
    let stage_ids: Vec<(u32, String)> = project
        .recipes
        .get(&set.recipe)
        .map(|recipe| {
            recipe
                .stages
                .iter()
                .map(|s| (s.id, format!("stage {} {}", s.id, s.label)))
                .collect()
        })
        .unwrap_or_default();
    record_list_ui(
        form,
        ui,
        "overrides",
        &mut set.overrides,
        |_| Override {
            stage: stage_ids.first().map(|(id, _)| *id).unwrap_or(0),
            target: 0,
            precedence: 0,
            base: String::new(),
            action: OverrideAction::Delete,
        },
        |index, item| format!("{index}: stage {} · target {:#x}", item.stage, item.target),
        |form, ui, item| override_ui(form, ui, item, &stage_ids, &variants),
    );
}

fn override_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    item: &mut Override,
    stage_ids: &[(u32, String)],
    variants: &[String],
) {
    let mut stages = stage_ids.to_vec();
    if !stages.iter().any(|(id, _)| *id == item.stage) {
        stages.push((item.stage, format!("stage {} (missing)", item.stage)));
    }
    form.choice_ui(
        ui,
        "stage",
        "The stage that emitted the target.",
        &mut item.stage,
        &stages,
    );
    form.u64_text_ui(
        ui,
        "target",
        "The target's packed generated identity (decimal or 0x hex).",
        &mut item.target,
    );
    form.number_ui(
        ui,
        "precedence",
        "Higher precedence wins when two overrides touch the same property.",
        &mut item.precedence,
        0..=u32::MAX,
        "",
    );
    form.text_ui(
        ui,
        "base",
        "The expected base revision of the target (as `stagecraft rebase` prints it).",
        &mut item.base,
    );
    form.field("action", |form| {
        let salt = form.path().clone();
        form.row_here_ui(ui, "action", "What the override does.", |ui| {
            let mut name = item.action.name();
            let before = name;
            let response = combo_ui(ui, &salt, &mut name, &action_options());
            if name != before {
                item.action = new_action(name, variants);
            }
            response.on_hover_text(item.action.schema().doc)
        });
        action_fields_ui(form, ui, &mut item.action, variants);
    });
}

/// The fields of an override action, each with its help from the action schema.
fn action_fields_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    action: &mut OverrideAction,
    variants: &[String],
) {
    let help = |field: &str| field_help(action, field);
    let (variant_help, position_help) = (help("variant"), help("position"));
    let (min_help, max_help) = (help("min"), help("max"));
    let (rotation_help, scale_help) = (help("rotation"), help("scale"));
    match action {
        OverrideAction::LockSelection { variant } | OverrideAction::Replace { variant } => {
            form.id_picker_ui(ui, "variant", variant_help, variant, variants);
        }
        OverrideAction::Move { position } => {
            form.vec2_ui(ui, "position", position_help, position);
        }
        OverrideAction::Rotate { rotation } => {
            form.number_ui(
                ui,
                "rotation",
                rotation_help,
                rotation,
                0..=u16::MAX,
                "1/65536 turn",
            );
        }
        OverrideAction::Add { variant, position } => {
            form.id_picker_ui(ui, "variant", variant_help, variant, variants);
            form.vec2_ui(ui, "position", position_help, position);
        }
        OverrideAction::Exclude { min, max } => {
            form.vec2_ui(ui, "min", min_help, min);
            form.vec2_ui(ui, "max", max_help, max);
        }
        OverrideAction::LockTransform {
            position,
            rotation,
            scale,
        } => {
            form.vec2_ui(ui, "position", position_help, position);
            transform_ui(form, ui, (rotation, rotation_help), (scale, scale_help));
        }
        OverrideAction::FreezeSubtree {
            variant,
            position,
            rotation,
            scale,
        } => {
            form.id_picker_ui(ui, "variant", variant_help, variant, variants);
            form.vec2_ui(ui, "position", position_help, position);
            transform_ui(form, ui, (rotation, rotation_help), (scale, scale_help));
        }
        OverrideAction::Delete => {}
    }
}

fn transform_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    (rotation, rotation_help): (&mut u16, &str),
    (scale, scale_help): (&mut u32, &str),
) {
    form.number_ui(
        ui,
        "rotation",
        rotation_help,
        rotation,
        0..=u16::MAX,
        "1/65536 turn",
    );
    form.number_ui(ui, "scale", scale_help, scale, 0..=u32::MAX, "scale units");
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::Vec3;

    fn bounds(min: [f64; 3], max: [f64; 3]) -> Box3 {
        let v = |[x, y, z]: [f64; 3]| Vec3 { x, y, z };
        Box3 {
            min: v(min),
            max: v(max),
        }
    }

    #[test]
    fn a_new_directive_lands_twenty_frames_on_but_never_past_the_scenario_end() {
        let at = |frame: u64| Directive {
            frame,
            ..new_directive(&[], 0)
        };
        assert_eq!(next_directive_frame(&[], 240), 0);
        assert_eq!(next_directive_frame(&[at(10), at(100)], 240), 120);
        assert_eq!(next_directive_frame(&[at(230)], 240), 240);
        assert_eq!(next_directive_frame(&[at(u64::MAX)], 240), 240);
    }

    #[test]
    fn a_box_whose_min_passes_its_max_or_that_is_not_finite_is_refused_with_the_axis() {
        // Inclusive containment: a flat box (min = max) is valid.
        assert_eq!(
            box_refusal("no_spawn_box", &bounds([0.0, 1.0, 0.0], [0.0, 2.0, 3.0])),
            None
        );
        assert_eq!(
            box_refusal("no_spawn_box", &bounds([0.0, 2.5, 0.0], [1.0, 2.0, 3.0])),
            Some("refused: the no spawn box's min y 2.50 m would pass its max y 2.00 m".into())
        );
        assert_eq!(
            box_refusal("no_removal_box", &bounds([0.0, 0.0, 4.0], [1.0, 1.0, 3.0])),
            Some("refused: the no removal box's min z 4.00 m would pass its max z 3.00 m".into())
        );
        assert_eq!(
            box_refusal(
                "no_removal_box",
                &bounds([f64::NAN, 0.0, 0.0], [1.0, 1.0, 1.0])
            ),
            Some("refused: the no removal box's x must be a finite number of meters".into())
        );
    }
}
