//! Inspector widgets for scenarios (observers, sources, boxes, directives) and override sets.

use egui::{RichText, Ui};
use stagecraft_runtime::identity::identity_text;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    scenario_section, AimKey, Barrier, Box3, Keyframe, Observer, Override, OverrideAction,
    OverrideSet, PopulationKind, PopulationSource, RouteEnd, Scenario, SceneObject, Vec2, Vec3,
    ACTION_SCHEMA,
};
use stagecraft_runtime::recipe::{published_lanes, published_routes};

pub use super::directive::{
    command_kind, command_options, directive_summary, kind_label, new_command, new_directive,
    next_directive_frame, target_for,
};
use super::directive::{directive_ui, DirectiveIds};
use super::form::{combo_ui, vec3_ui, Form};
use super::list::{fresh_id, record_list_sorted_ui, record_list_ui, value_list_ui};
use super::schema_rows::schema_help;
use super::sections;

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
    let root = scenario_section("Scenario");
    form.schema_number_ui(ui, root.get("fixed_step_s"), &mut scenario.fixed_step_s);
    form.schema_number_ui(
        ui,
        root.get("duration_frames"),
        &mut scenario.duration_frames,
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
    sources_ui(form, ui, scenario);
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
    let lanes: Vec<String> = project
        .recipes
        .get(&scenario.recipe)
        .map(|recipe| {
            published_lanes(recipe, &project.families, &Registry::standard())
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    sections::vehicle_sources_ui(form, ui, &mut scenario.vehicle_sources, &lanes);
    sections::crossings_ui(form, ui, &mut scenario.crossings);
    sections::population_ui(form, ui, &mut scenario.population);
    sections::motion_ui(form, ui, &mut scenario.motion);
    directives_ui(form, ui, scenario);
    scene_objects_ui(form, ui, scenario);
}

/// The population sources, each on one of the routes the scenario's recipe publishes.
fn sources_ui(form: &mut Form<'_>, ui: &mut Ui, scenario: &mut Scenario) {
    let project = form.project;
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
}

/// The directives, sorted by frame, each picking among the scenario's sources, objects and
/// observers.
fn directives_ui(form: &mut Form<'_>, ui: &mut Ui, scenario: &mut Scenario) {
    let source_ids: Vec<String> = scenario.sources.iter().map(|s| s.id.clone()).collect();
    let object_ids: Vec<String> = scenario.objects.iter().map(|o| o.id.clone()).collect();
    let observer_ids: Vec<String> = scenario.observers.iter().map(|o| o.id.clone()).collect();
    let duration_frames = scenario.duration_frames;
    record_list_sorted_ui(
        form,
        ui,
        "directives",
        &mut scenario.directives,
        |directive| directive.frame,
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
}

/// The scene's objects and barriers.
fn scene_objects_ui(form: &mut Form<'_>, ui: &mut Ui, scenario: &mut Scenario) {
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
    let s = scenario_section("Object");
    form.schema_text_ui(ui, s.get("id"), &mut object.id);
    form.schema_vec3_ui(ui, s.get("position"), &mut object.position);
    form.schema_number_ui(ui, s.get("yaw_rad"), &mut object.yaw_rad);
    form.schema_vec3_ui(ui, s.get("scale"), &mut object.scale);
    form.schema_vec3_ui(ui, s.get("half_extents_m"), &mut object.half_extents_m);
}

fn barrier_ui(form: &mut Form<'_>, ui: &mut Ui, barrier: &mut Barrier) {
    let s = scenario_section("Barrier");
    form.schema_text_ui(ui, s.get("id"), &mut barrier.id);
    form.schema_vec3_ui(ui, s.get("from"), &mut barrier.from);
    form.schema_vec3_ui(ui, s.get("to"), &mut barrier.to);
    form.schema_number_ui(ui, s.get("thickness_m"), &mut barrier.thickness_m);
    form.schema_bool_ui(ui, s.get("in_navigation"), &mut barrier.in_navigation);
}

/// The observer's normal and hidden spawn ranges (a maximum left unset follows the retain
/// radius, the hidden one the normal maximum).
fn spawn_ranges_ui(form: &mut Form<'_>, ui: &mut Ui, observer: &mut Observer) {
    let s = scenario_section("Observer");
    let retain = observer.retain_radius_m;
    form.schema_number_ui(ui, s.get("spawn_min_m"), &mut observer.spawn_min_m);
    form.schema_optional_number_ui(ui, s.get("spawn_max_m"), &mut observer.spawn_max_m, retain);
    let hidden_min = s.get("hidden_spawn_min_m");
    form.schema_number_ui(ui, hidden_min, &mut observer.hidden_spawn_min_m);
    let normal_max = observer.spawn_max_m.unwrap_or(retain);
    let hidden_max = s.get("hidden_spawn_max_m");
    form.schema_optional_number_ui(ui, hidden_max, &mut observer.hidden_spawn_max_m, normal_max);
}

fn observer_ui(form: &mut Form<'_>, ui: &mut Ui, observer: &mut Observer) {
    form.text_ui(ui, "id", "Persistent id.", &mut observer.id);
    form.vec3_ui(ui, "position", "Eye position.", &mut observer.position);
    let s = scenario_section("Observer");
    for (name, value) in [
        ("yaw_rad", &mut observer.yaw_rad),
        ("pitch_rad", &mut observer.pitch_rad),
        ("fov_y_rad", &mut observer.fov_y_rad),
        ("near_m", &mut observer.near_m),
        ("far_m", &mut observer.far_m),
        ("retain_radius_m", &mut observer.retain_radius_m),
        ("remove_radius_m", &mut observer.remove_radius_m),
        ("close_m", &mut observer.close_m),
        ("fade", &mut observer.fade),
    ] {
        form.schema_number_ui(ui, s.get(name), value);
    }
    spawn_ranges_ui(form, ui, observer);
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
            form.schema_number_ui(ui, scenario_section("Key").get("frame"), &mut key.frame);
            form.schema_vec3_ui(
                ui,
                scenario_section("Key").get("position"),
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
            form.schema_number_ui(ui, scenario_section("Aim").get("frame"), &mut key.frame);
            form.schema_number_ui(ui, scenario_section("Aim").get("yaw_rad"), &mut key.yaw_rad);
            form.schema_number_ui(
                ui,
                scenario_section("Aim").get("pitch_rad"),
                &mut key.pitch_rad,
            );
        },
    );
}

/// A checkbox without text beside the row's label, named `name` for assistive technology (and
/// the UI tests).
pub(super) fn named_checkbox(ui: &mut Ui, checked: &mut bool, name: &str) -> egui::Response {
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
    form.schema_number_ui(
        ui,
        scenario_section("Source").get("target_count"),
        &mut source.target_count,
    );
    form.schema_number_ui(
        ui,
        scenario_section("Source").get("walk_speed_m_s"),
        &mut source.walk_speed_m_s,
    );
    let s = scenario_section("Source");
    form.schema_optional_number_ui(
        ui,
        s.get("capacity"),
        &mut source.capacity,
        source.target_count,
    );
    form.schema_number_ui(ui, s.get("batch_size"), &mut source.batch_size);
    optional_text_ui(form, ui, s.get("family"), &mut source.family);
    value_list_ui(
        form,
        ui,
        "candidates_m",
        &schema_help(s.get("candidates_m")),
        &mut source.candidates_m,
        |items| items.last().map_or(0.0, |m| m + 1.0),
        |form, ui, value| {
            form.row_here_ui(ui, "candidates_m", "Progress along the route.", |ui| {
                ui.add(egui::DragValue::new(value).speed(0.05).suffix(" m"))
            });
        },
    );
    form.schema_number_ui(
        ui,
        s.get("removal_multiplier"),
        &mut source.removal_multiplier,
    );
    form.choice_ui(
        ui,
        "at_route_end",
        "What its pedestrians do at the end of their route: turn back, or stop at the goal.",
        &mut source.at_route_end,
        &ROUTE_ENDS,
    );
    let law = s.get("law_enforcement");
    form.schema_bool_ui(ui, law, &mut source.law_enforcement);
    let profile = s.get("motion_profile");
    super::motion_pick::motion_profile_pick_ui(form, ui, profile, &mut source.motion_profile);
}

/// An optional id row (`None` / `Some("…")`): a checkbox, then the text.
fn optional_text_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    field: &stagecraft_runtime::project::FieldSchema,
    value: &mut Option<String>,
) {
    let help = schema_help(field);
    form.field(field.name, |form| {
        form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
            let mut set = value.is_some();
            let mut response = named_checkbox(ui, &mut set, &format!("Set {}", field.label));
            match (set, value.as_mut()) {
                (true, Some(text)) => {
                    response |= ui.add(egui::TextEdit::singleline(text).desired_width(160.0));
                }
                (true, None) => *value = Some(String::new()),
                (false, _) => *value = None,
            }
            response
        })
    });
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
                    // Wrapped, so a narrow Inspector shows every axis.
                    ui.horizontal_wrapped(|ui| {
                        ui.label("min");
                        response |= vec3_ui(ui, &mut bounds.min);
                    });
                    ui.horizontal_wrapped(|ui| {
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

/// The box a new box command starts with: 10 m × 10 m on the ground, 3 m tall.
pub(super) fn default_box() -> Box3 {
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

/// An override set: recipe, base revision, overrides and world mutations.
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
            nested: Vec::new(),
            stage: stage_ids.first().map(|(id, _)| *id).unwrap_or(0),
            target: 0,
            precedence: 0,
            base: String::new(),
            action: OverrideAction::Delete,
        },
        |index, item| {
            format!(
                "{index}: stage {}{} · target {}",
                item.stage,
                nested_text(&item.nested),
                identity_text(item.target)
            )
        },
        |form, ui, item| override_ui(form, ui, item, &stage_ids, &variants),
    );
    super::mutations::mutations_ui(form, ui, &mut set.mutations, &stage_ids);
}

/// The recipe's stages to choose an edit's stage from, with `stage` listed as missing when the
/// recipe no longer has it (so the edit still shows what it names).
pub(super) fn stage_choices(stage_ids: &[(u32, String)], stage: u32) -> Vec<(u32, String)> {
    let mut stages = stage_ids.to_vec();
    if !stages.iter().any(|(id, _)| *id == stage) {
        stages.push((stage, format!("stage {stage} (missing)")));
    }
    stages
}

fn override_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    item: &mut Override,
    stage_ids: &[(u32, String)],
    variants: &[String],
) {
    let stages = stage_choices(stage_ids, item.stage);
    form.choice_ui(
        ui,
        "stage",
        "The stage that emitted the target (for a nested path: the subrecipe stage).",
        &mut item.stage,
        &stages,
    );
    nested_ui(form, ui, &mut item.nested);
    form.identity_ui(
        ui,
        "target",
        "The target's packed generated identity, shown in hex (type hex or decimal).",
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

/// An override's (or a mutation's) nested path as the list summary shows it: ` › 1 › 3` below the stage, nothing
/// for the recipe's own stages.
pub(super) fn nested_text(nested: &[u32]) -> String {
    nested.iter().map(|id| format!(" › {id}")).collect()
}

/// The `nested` path of an override or a mutation: the child stage ids below a subrecipe stage, one row each.
pub(super) fn nested_ui(form: &mut Form<'_>, ui: &mut Ui, nested: &mut Vec<u32>) {
    value_list_ui(
        form,
        ui,
        "nested",
        "For an object of a subrecipe stage's child run: the stage ids from the child of `stage` \
         down to the stage that emitted the target; empty for the recipe's own stages.",
        nested,
        |items| items.last().copied().unwrap_or(1),
        |form, ui, id| {
            form.row_here_ui(ui, "nested", "A stage id of the child run.", |ui| {
                ui.add(egui::DragValue::new(id).range(0..=u32::MAX))
            });
        },
    );
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
            form.rotation_ui(ui, "rotation", rotation_help, rotation);
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
    form.rotation_ui(ui, "rotation", rotation_help, rotation);
    form.number_ui(ui, "scale", scale_help, scale, 0..=u32::MAX, "scale units");
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::{Directive, Vec3};

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
