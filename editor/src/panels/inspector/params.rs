//! Stage parameters drawn from the operator's parameter schema ([`ParamSpec`]): one typed widget
//! per declared parameter with its range and unit, its default (and a reset to it), its one-line
//! doc as hover text, and every problem the schema finds (unknown names, wrong types, values out of
//! range, missing required values) shown in place as an error.
//!
//! The schema is the operator's, from [`Registry::standard`]: the Inspector knows no operator by
//! name, so a new operator gets its widgets without an editor change.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use egui::{DragValue, Response, RichText, Ui};
use stagecraft_runtime::ops::registry::{
    OperatorDescriptor, ParamDefault, ParamProblem, ParamRange, ParamSpec, ParamType, Preset,
    Registry,
};
use stagecraft_runtime::project::{ParamValue, PathSeg};

use super::form::{section_colour, Form};
use super::recipe::param_ui;

/// The standard operator registry, built once.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::standard)
}

/// The schema's problems with `parameters`, by parameter name (`""`: the map as a whole).
pub fn problems(
    op: &OperatorDescriptor,
    parameters: &BTreeMap<String, ParamValue>,
) -> BTreeMap<String, Vec<ParamProblem>> {
    let mut by_name: BTreeMap<String, Vec<ParamProblem>> = BTreeMap::new();
    if let Err(found) = op.check_params(parameters) {
        for problem in found {
            by_name
                .entry(problem.field.clone())
                .or_default()
                .push(problem);
        }
    }
    by_name
}

/// The hover text of a parameter: its doc, type, range, unit and default.
pub fn help_text(spec: &ParamSpec) -> String {
    let mut text = format!("{}\n{}", spec.doc, spec.ty.describe());
    if spec.range != ParamRange::Any {
        text.push_str(&format!(", range {}", spec.range.describe()));
    }
    if !spec.unit.is_empty() {
        text.push_str(&format!(", in {}", spec.unit));
    }
    text.push_str(&format!("\n{}", default_text(spec)));
    text
}

/// What leaving the parameter out means.
pub fn default_text(spec: &ParamSpec) -> String {
    match spec.default {
        ParamDefault::Required => "required".to_owned(),
        ParamDefault::Optional => "optional (absent: the operator decides)".to_owned(),
        ParamDefault::Bool(value) => format!("default {value}"),
        ParamDefault::Int(value) => format!("default {value}"),
        ParamDefault::Float(value) => format!("default {value}"),
        ParamDefault::EmptyList => "default: empty".to_owned(),
    }
}

/// The parameters of a stage of operator `op`: every declared parameter in schema order, then
/// any the schema does not know (as errors, with a remove button).
pub fn schema_parameters_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    op: &OperatorDescriptor,
    parameters: &mut BTreeMap<String, ParamValue>,
) {
    let found = problems(op, parameters);
    form.field("parameters", |form| {
        let worst = form
            .worst_below()
            .or((!found.is_empty()).then_some(stagecraft_runtime::project::Severity::Error));
        ui.label(
            RichText::new(format!("Parameters of {} v{}", op.id, op.algorithm))
                .color(section_colour(ui, worst)),
        )
        .on_hover_text(op.summary);
        let mut remove = None;
        let chosen = op.presets.chosen(parameters);
        ui.indent(form.path().to_string(), |ui| {
            for spec in op.params {
                let problems = found.get(spec.name).map(Vec::as_slice).unwrap_or_default();
                let preset = chosen.and_then(|preset| preset_value(preset, spec.name));
                spec_row_ui(form, ui, spec, (parameters, preset), problems);
            }
            let unknown: Vec<String> = parameters
                .keys()
                .filter(|name| !op.params.iter().any(|spec| spec.name == name.as_str()))
                .cloned()
                .collect();
            for name in unknown {
                let Some(value) = parameters.get_mut(&name) else {
                    continue;
                };
                let problems = found.get(&name).map(Vec::as_slice).unwrap_or_default();
                form.at(PathSeg::Key(name.clone()), |form| {
                    let salt = form.path().clone();
                    form.row_here_ui(ui, &name, "Not a parameter of this operator.", |ui| {
                        let mut response = param_ui(ui, egui::Id::new(&salt), value);
                        if ui.small_button("🗑").on_hover_text("Remove").clicked() {
                            remove = Some(name.clone());
                            response.mark_changed();
                        }
                        problems_ui(ui, problems);
                        response
                    });
                });
            }
        });
        if let Some(name) = remove {
            parameters.remove(&name);
            form.change = None;
            form.changed_structure("Remove from");
        }
    });
}

/// The value the chosen preset gives parameter `name`, with the preset's name.
fn preset_value(preset: &'static Preset, name: &str) -> Option<(&'static str, ParamValue)> {
    preset
        .values
        .iter()
        .find(|(param, _)| *param == name)
        .map(|(_, value)| (preset.name, value.value()))
}

/// One declared parameter: its typed widget (or, when absent, what applies — the chosen preset's
/// value, else the default — and a button to set it), a reset, and its problems.
fn spec_row_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    spec: &ParamSpec,
    (parameters, preset): (
        &mut BTreeMap<String, ParamValue>,
        Option<(&'static str, ParamValue)>,
    ),
    problems: &[ParamProblem],
) {
    let help = help_text(spec);
    form.at(PathSeg::Key(spec.name.to_owned()), |form| {
        let salt = egui::Id::new(form.path());
        form.row_here_ui(ui, spec.name, &help, |ui| {
            // Leaving the parameter out gives the preset's value when the chosen preset sets it.
            let (default, reset_text) = match &preset {
                Some((name, value)) => (
                    Some(value.clone()),
                    format!("preset {name}: {}", value_text(value)),
                ),
                None => (spec.default.value(), default_text(spec)),
            };
            let response = match parameters.get_mut(spec.name) {
                Some(value) => {
                    let mut response = typed_ui(ui, salt, spec, value);
                    let at_default = default.as_ref().is_some_and(|d| same_value(d, value));
                    if !at_default && spec.default != ParamDefault::Required {
                        let reset = ui
                            .small_button("⟲")
                            .on_hover_text(format!("Reset: {reset_text}"));
                        reset.widget_info(|| button_info(&format!("Reset {}", spec.name)));
                        if reset.clicked() {
                            parameters.remove(spec.name);
                            response.mark_changed();
                        }
                    }
                    response
                }
                None => absent_ui(ui, spec, parameters, preset),
            };
            if !spec.unit.is_empty() {
                ui.weak(spec.unit);
            }
            problems_ui(ui, problems);
            response
        });
    });
}

/// A parameter the stage leaves out: what applies (the chosen preset's value, else the default),
/// and a button to write that value.
fn absent_ui(
    ui: &mut Ui,
    spec: &ParamSpec,
    parameters: &mut BTreeMap<String, ParamValue>,
    preset: Option<(&'static str, ParamValue)>,
) -> Response {
    let text = match (&preset, spec.default.value()) {
        (Some((name, value)), _) => format!("{} (preset {name})", value_text(value)),
        (None, Some(value)) => format!("{} (default)", value_text(&value)),
        (None, None) => default_text(spec),
    };
    ui.weak(text);
    let mut response = ui
        .small_button("Set")
        .on_hover_text("Write a value for this parameter");
    response.widget_info(|| button_info(&format!("Set {}", spec.name)));
    if response.clicked() {
        let value = preset
            .map(|(_, value)| value)
            .or_else(|| spec.default.value())
            .unwrap_or_else(|| initial_value(spec));
        parameters.insert(spec.name.to_owned(), value);
        response.mark_changed();
    }
    response
}

/// What a screen reader (and a UI test) hears a small button as.
fn button_info(label: &str) -> egui::WidgetInfo {
    egui::WidgetInfo::labeled(egui::WidgetType::Button, true, label)
}

/// A value of the parameter's type for a parameter without a default.
fn initial_value(spec: &ParamSpec) -> ParamValue {
    match (spec.ty, spec.range) {
        (ParamType::Bool, _) => ParamValue::Bool(false),
        (ParamType::Int, ParamRange::Int { min, .. }) => ParamValue::Int(min.max(0)),
        (ParamType::Int, _) => ParamValue::Int(0),
        (ParamType::Float, ParamRange::Float { min, .. }) => ParamValue::Float(min.max(0.0)),
        (ParamType::Float, _) => ParamValue::Float(0.0),
        (ParamType::Str, ParamRange::Choice(names)) => {
            ParamValue::Str(names.first().copied().unwrap_or_default().to_owned())
        }
        (ParamType::Str | ParamType::ChunkLibrary, _) => ParamValue::Str(String::new()),
        (ParamType::Rect, _) => ParamValue::Tuple(vec![ParamValue::Int(0); 4]),
        (ParamType::Point, _) => ParamValue::Tuple(vec![ParamValue::Float(0.0); 2]),
        (ParamType::RectList | ParamType::ChunkList | ParamType::StrList, _) => {
            ParamValue::List(Vec::new())
        }
    }
}

/// The widget of the parameter's type; a value of another type gets the free-form editor (its
/// problem is shown beside it).
fn typed_ui(ui: &mut Ui, salt: egui::Id, spec: &ParamSpec, value: &mut ParamValue) -> Response {
    match (spec.ty, value) {
        (ParamType::Bool, ParamValue::Bool(flag)) => ui.checkbox(flag, ""),
        (ParamType::Int, ParamValue::Int(number)) => {
            let (min, max) = match spec.range {
                ParamRange::Int { min, max } => (min, max),
                _ => (i64::MIN, i64::MAX),
            };
            ui.add(
                DragValue::new(number)
                    .range(min..=max)
                    .clamp_existing_to_range(false)
                    .update_while_editing(false)
                    .speed(0.2),
            )
        }
        (ParamType::Float, value @ (ParamValue::Float(_) | ParamValue::Int(_))) => {
            float_ui(ui, spec, value)
        }
        (ParamType::Str, ParamValue::Str(text)) => match spec.range {
            ParamRange::Choice(names) => choice_ui(ui, salt, names, text),
            _ => ui.add(egui::TextEdit::singleline(text).desired_width(160.0)),
        },
        (ParamType::ChunkLibrary, ParamValue::Str(text)) => {
            ui.add(egui::TextEdit::singleline(text).desired_width(160.0))
        }
        (_, value) => param_ui(ui, salt, value),
    }
}

/// A choice among names (an operator's presets): a combo box; one pick is one change.
fn choice_ui(ui: &mut Ui, salt: egui::Id, names: &[&str], text: &mut String) -> Response {
    let mut changed = false;
    let mut response = egui::ComboBox::from_id_salt(salt)
        .selected_text(text.as_str())
        .show_ui(ui, |ui| {
            for name in names {
                if ui.selectable_label(text == name, *name).clicked() && text != name {
                    *text = (*name).to_owned();
                    changed = true;
                }
            }
        })
        .response;
    if changed {
        response.mark_changed();
    }
    response
}

/// A number parameter (an integer given for it stays an integer until the number changes).
fn float_ui(ui: &mut Ui, spec: &ParamSpec, value: &mut ParamValue) -> Response {
    let (min, max) = match spec.range {
        ParamRange::Float { min, max } => (min, max),
        _ => (f64::MIN, f64::MAX),
    };
    let before = value.as_f64().unwrap_or(0.0);
    let mut number = before;
    let span = max - min;
    let speed = if span.is_finite() && span > 0.0 {
        (span / 1000.0).clamp(0.001, 0.1)
    } else {
        0.05
    };
    let response = ui.add(
        DragValue::new(&mut number)
            .range(min..=max)
            .clamp_existing_to_range(false)
            .update_while_editing(false)
            .speed(speed),
    );
    if number != before {
        *value = ParamValue::Float(number);
    }
    response
}

/// Whether two values are the same parameter value (an integer equals the same number).
fn same_value(a: &ParamValue, b: &ParamValue) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// A value as one short text.
fn value_text(value: &ParamValue) -> String {
    match value {
        ParamValue::Bool(v) => v.to_string(),
        ParamValue::Int(v) => v.to_string(),
        ParamValue::Float(v) => v.to_string(),
        ParamValue::Str(v) => format!("{v:?}"),
        ParamValue::List(items) if items.is_empty() => "empty".to_owned(),
        ParamValue::List(items) | ParamValue::Tuple(items) => format!("{} items", items.len()),
    }
}

/// The schema's problems with one parameter, in place.
fn problems_ui(ui: &mut Ui, problems: &[ParamProblem]) {
    for problem in problems {
        ui.label(RichText::new(&problem.message).color(ui.visuals().error_fg_color))
            .on_hover_text(format!("expected {}", problem.expected));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scatter() -> &'static OperatorDescriptor {
        registry()
            .get("environment.scatter", 1)
            .expect("scatter is registered")
    }

    #[test]
    fn problems_name_their_parameter() {
        let op = scatter();
        let mut parameters = BTreeMap::new();
        parameters.insert("no_such_thing".to_owned(), ParamValue::Int(3));
        let found = problems(op, &parameters);
        let unknown = found
            .get("no_such_thing")
            .expect("unknown parameter reported");
        assert!(unknown[0].message.contains("unknown parameter"));
        // Every parameter of the schema has a hover text with its doc and its default.
        for spec in op.params {
            let help = help_text(spec);
            assert!(help.starts_with(spec.doc), "{help}");
            assert!(help.contains(&default_text(spec)), "{help}");
        }
    }

    #[test]
    fn an_out_of_range_value_is_a_problem_of_that_parameter() {
        let op = scatter();
        let spec = op
            .params
            .iter()
            .find(|spec| {
                matches!(
                    spec.range,
                    ParamRange::Int { .. } | ParamRange::Float { .. }
                )
            })
            .expect("a ranged parameter");
        let too_big = match spec.range {
            ParamRange::Int { max, .. } => ParamValue::Int(max.saturating_add(1)),
            ParamRange::Float { max, .. } => ParamValue::Float(max * 2.0 + 1.0),
            ParamRange::Any | ParamRange::Choice(_) => unreachable!("ranged"),
        };
        let mut parameters = BTreeMap::new();
        parameters.insert(spec.name.to_owned(), too_big);
        let found = problems(op, &parameters);
        assert!(found.contains_key(spec.name), "{found:?}");
    }

    #[test]
    fn integers_equal_the_same_number() {
        assert!(same_value(&ParamValue::Int(4), &ParamValue::Float(4.0)));
        assert!(!same_value(&ParamValue::Int(4), &ParamValue::Float(4.5)));
        assert_eq!(value_text(&ParamValue::List(Vec::new())), "empty");
    }
}
