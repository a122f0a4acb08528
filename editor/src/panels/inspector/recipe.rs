//! Inspector widgets for recipes: inputs, stages with their inputs and parameters (from the
//! operator's schema, see [`super::params`]), outputs.

use std::collections::BTreeMap;

use egui::{RichText, Ui};
use stagecraft_runtime::content::ProductKind;
use stagecraft_runtime::project::{ParamValue, PathSeg, Recipe, RecipeInput, Stage, StageInput};
use stagecraft_runtime::recipe::bind::PRODUCT_KINDS;

use super::form::{combo_ui, id_combo_ui, section_colour, Form};
use super::list::{record_list_choice_ui, value_list_ui};
use super::operator_pick::{operator_at, operator_choices, operator_combo_ui};

/// A recipe: label, address schema, named inputs, stages and outputs.
pub fn recipe_ui(form: &mut Form<'_>, ui: &mut Ui, recipe: &mut Recipe) {
    form.read_only_ui(ui, "id", "Persistent id; also the file name.", &recipe.id);
    form.text_ui(
        ui,
        "label",
        "Display label (renaming never changes an identity).",
        &mut recipe.label,
    );
    form.number_ui(
        ui,
        "address_schema",
        "Version of the addressed-RNG layout the stages use.",
        &mut recipe.address_schema,
        1..=u32::MAX,
        "",
    );
    inputs_ui(form, ui, &mut recipe.inputs);
    let input_names: Vec<String> = recipe.inputs.keys().cloned().collect();
    let stage_ids: Vec<u32> = recipe.stages.iter().map(|stage| stage.id).collect();
    // A new stage's operator is picked from the registry's list, the same as the graph's palette.
    let registry = super::params::registry();
    record_list_choice_ui(
        form,
        ui,
        "stages",
        &mut recipe.stages,
        &operator_choices(registry),
        |stages, choice| {
            let id = stages
                .iter()
                .map(|s| s.id)
                .max()
                .unwrap_or(0)
                .saturating_add(1);
            match operator_at(registry, choice) {
                Some(op) => crate::panels::recipe_graph::interop::new_stage(id, op),
                None => Stage {
                    id,
                    algorithm: 1,
                    ..Stage::default()
                },
            }
        },
        |_, stage| {
            let label = if stage.label.is_empty() {
                stage.operator.as_str()
            } else {
                stage.label.as_str()
            };
            format!("Stage {}: {label}", stage.id)
        },
        |form, ui, stage| stage_ui(form, ui, stage, &input_names, &stage_ids),
    );
    value_list_ui(
        form,
        ui,
        "outputs",
        "The stages whose products the recipe publishes.",
        &mut recipe.outputs,
        |outputs| {
            stage_ids
                .iter()
                .copied()
                .find(|id| !outputs.contains(id))
                .unwrap_or(0)
        },
        |form, ui, output| {
            let salt = form.path().clone();
            form.row_here_ui(ui, "stage", "", |ui| {
                combo_ui(ui, &salt, output, &stage_choices(&stage_ids, *output))
            });
        },
    );
}

/// The stage ids as combo options, keeping a missing current value visible.
fn stage_choices(stage_ids: &[u32], current: u32) -> Vec<(u32, String)> {
    let mut ids: Vec<u32> = stage_ids.to_vec();
    if !ids.contains(&current) {
        ids.push(current);
    }
    ids.sort_unstable();
    ids.into_iter()
        .map(|id| {
            let missing = if stage_ids.contains(&id) {
                ""
            } else {
                " (missing)"
            };
            (id, format!("stage {id}{missing}"))
        })
        .collect()
}

fn inputs_ui(form: &mut Form<'_>, ui: &mut Ui, inputs: &mut BTreeMap<String, RecipeInput>) {
    let families: Vec<String> = form.project.families.keys().cloned().collect();
    form.field("inputs", |form| {
        let colour = section_colour(ui, form.worst_below());
        ui.label(RichText::new(format!("Inputs ({})", inputs.len())).color(colour))
            .on_hover_text("Named inputs the stages read: asset families or literal values.");
        let mut remove = None;
        ui.indent("recipe-inputs", |ui| {
            for (name, input) in inputs.iter_mut() {
                form.at(PathSeg::Key(name.clone()), |form| {
                    let salt = form.path().clone();
                    form.row_here_ui(ui, name, "A named recipe input.", |ui| {
                        let mut response = input_ui(ui, &salt, input, &families);
                        if ui.small_button("🗑").on_hover_text("Remove").clicked() {
                            remove = Some(name.clone());
                            response.mark_changed();
                        }
                        response
                    });
                });
            }
            let new_name_id = ui.make_persistent_id("new-input-name");
            let mut new_name: String = ui
                .ctx()
                .data(|d| d.get_temp(new_name_id))
                .unwrap_or_default();
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut new_name)
                        .hint_text("new input name")
                        .desired_width(140.0),
                );
                let valid = !new_name.trim().is_empty() && !inputs.contains_key(new_name.trim());
                if ui
                    .add_enabled(valid, egui::Button::new("+ Add input"))
                    .clicked()
                {
                    let value = match families.first() {
                        Some(family) => RecipeInput::Family(family.clone()),
                        None => RecipeInput::Value(ParamValue::Int(0)),
                    };
                    inputs.insert(new_name.trim().to_owned(), value);
                    new_name.clear();
                    form.changed_structure("Add to");
                }
            });
            ui.ctx().data_mut(|d| d.insert_temp(new_name_id, new_name));
        });
        if let Some(name) = remove {
            inputs.remove(&name);
            form.change = None;
            form.changed_structure("Remove from");
        }
    });
}

fn input_ui(
    ui: &mut Ui,
    salt: &(impl std::hash::Hash + std::fmt::Debug),
    input: &mut RecipeInput,
    families: &[String],
) -> egui::Response {
    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Family,
        Value,
        Product,
    }
    let mut kind = match input {
        RecipeInput::Family(_) => Kind::Family,
        RecipeInput::Value(_) => Kind::Value,
        RecipeInput::Product(_) => Kind::Product,
    };
    let before = kind;
    let mut response = combo_ui(
        ui,
        &(salt, "kind"),
        &mut kind,
        &[
            (Kind::Family, "Family"),
            (Kind::Value, "Value"),
            (Kind::Product, "Product"),
        ],
    );
    if kind != before {
        *input = match kind {
            Kind::Family => RecipeInput::Family(families.first().cloned().unwrap_or_default()),
            Kind::Value => RecipeInput::Value(ParamValue::Int(0)),
            Kind::Product => RecipeInput::Product(ProductKind::StreetBlock.name().to_owned()),
        };
    }
    response |= match input {
        RecipeInput::Family(family) => id_combo_ui(ui, &(salt, "family"), family, families),
        RecipeInput::Value(value) => param_ui(ui, egui::Id::new((salt, "value")), value),
        RecipeInput::Product(kind) => {
            let kinds: Vec<String> = PRODUCT_KINDS.iter().map(|k| k.name().to_owned()).collect();
            id_combo_ui(ui, &(salt, "product"), kind, &kinds)
        }
    };
    response
}

fn stage_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    stage: &mut Stage,
    input_names: &[String],
    stage_ids: &[u32],
) {
    form.number_ui(
        ui,
        "id",
        "Persistent numeric id, kept across reordering and relabelling.",
        &mut stage.id,
        0..=u32::MAX,
        "",
    );
    form.text_ui(ui, "label", "Display label.", &mut stage.label);
    form.field("operator", |form| {
        let salt = form.path().clone();
        form.row_here_ui(
            ui,
            "operator",
            "The registered operator the stage runs (its version sets the algorithm).",
            |ui| operator_combo_ui(ui, &salt, stage, super::params::registry()),
        );
    });
    form.number_ui(
        ui,
        "algorithm",
        "Algorithm version of the operator the stage was authored against.",
        &mut stage.algorithm,
        1..=u32::MAX,
        "",
    );
    let own_id = stage.id;
    let other_stages: Vec<u32> = stage_ids
        .iter()
        .copied()
        .filter(|id| *id != own_id)
        .collect();
    value_list_ui(
        form,
        ui,
        "inputs",
        "What the stage reads: recipe inputs by name, other stages by id.",
        &mut stage.inputs,
        |_| match input_names.first() {
            Some(name) => StageInput::Named(name.clone()),
            None => StageInput::Stage(other_stages.first().copied().unwrap_or(0)),
        },
        |form, ui, input| {
            let salt = form.path().clone();
            form.row_here_ui(ui, "input", "", |ui| {
                stage_input_ui(ui, &salt, input, input_names, &other_stages)
            });
        },
    );
    // The operator's schema draws its parameters; an unknown operator gets the free-form map.
    match super::params::registry().get(&stage.operator, stage.algorithm) {
        Some(op) => super::params::schema_parameters_ui(form, ui, op, &mut stage.parameters),
        None => parameters_ui(form, ui, &mut stage.parameters),
    }
}

fn stage_input_ui(
    ui: &mut Ui,
    salt: &(impl std::hash::Hash + std::fmt::Debug),
    input: &mut StageInput,
    input_names: &[String],
    stage_ids: &[u32],
) -> egui::Response {
    let mut is_stage = matches!(input, StageInput::Stage(_));
    let before = is_stage;
    let mut response = combo_ui(
        ui,
        &(salt, "kind"),
        &mut is_stage,
        &[(false, "Input"), (true, "Stage")],
    );
    if is_stage != before {
        *input = if is_stage {
            StageInput::Stage(stage_ids.first().copied().unwrap_or(0))
        } else {
            StageInput::Named(input_names.first().cloned().unwrap_or_default())
        };
    }
    response |= match input {
        StageInput::Named(name) => id_combo_ui(ui, &(salt, "name"), name, input_names),
        StageInput::Stage(id) => combo_ui(ui, &(salt, "stage"), id, &stage_choices(stage_ids, *id)),
    };
    response
}

fn parameters_ui(form: &mut Form<'_>, ui: &mut Ui, parameters: &mut BTreeMap<String, ParamValue>) {
    form.field("parameters", |form| {
        let colour = section_colour(ui, form.worst_below());
        ui.label(RichText::new(format!("Parameters ({})", parameters.len())).color(colour))
            .on_hover_text("Operator parameters; the operator's schema validates them.");
        let mut remove = None;
        ui.indent(form.path().to_string(), |ui| {
            for (name, value) in parameters.iter_mut() {
                form.at(PathSeg::Key(name.clone()), |form| {
                    let salt = form.path().clone();
                    form.row_here_ui(ui, name, "An operator parameter.", |ui| {
                        let mut response = param_ui(ui, egui::Id::new(&salt), value);
                        if ui.small_button("🗑").on_hover_text("Remove").clicked() {
                            remove = Some(name.clone());
                            response.mark_changed();
                        }
                        response
                    });
                });
            }
            let new_name_id = ui.make_persistent_id((form.path().to_string(), "new"));
            let mut new_name: String = ui
                .ctx()
                .data(|d| d.get_temp(new_name_id))
                .unwrap_or_default();
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut new_name)
                        .hint_text("new parameter")
                        .desired_width(140.0),
                );
                let valid =
                    !new_name.trim().is_empty() && !parameters.contains_key(new_name.trim());
                if ui
                    .add_enabled(valid, egui::Button::new("+ Add parameter"))
                    .clicked()
                {
                    parameters.insert(new_name.trim().to_owned(), ParamValue::Int(0));
                    new_name.clear();
                    form.changed_structure("Add to");
                }
            });
            ui.ctx().data_mut(|d| d.insert_temp(new_name_id, new_name));
        });
        if let Some(name) = remove {
            parameters.remove(&name);
            form.change = None;
            form.changed_structure("Remove from");
        }
    });
}

/// The kinds a parameter value can take.
#[derive(Clone, Copy, PartialEq)]
enum ParamKind {
    Bool,
    Int,
    Float,
    Str,
    List,
    Tuple,
}

const PARAM_KINDS: [(ParamKind, &str); 6] = [
    (ParamKind::Bool, "bool"),
    (ParamKind::Int, "int"),
    (ParamKind::Float, "float"),
    (ParamKind::Str, "text"),
    (ParamKind::List, "list"),
    (ParamKind::Tuple, "tuple"),
];

/// A parameter value: its kind and a widget for it (lists and tuples recurse).
pub fn param_ui(ui: &mut Ui, salt: egui::Id, value: &mut ParamValue) -> egui::Response {
    let kind_of = |value: &ParamValue| match value {
        ParamValue::Bool(_) => ParamKind::Bool,
        ParamValue::Int(_) => ParamKind::Int,
        ParamValue::Float(_) => ParamKind::Float,
        ParamValue::Str(_) => ParamKind::Str,
        ParamValue::List(_) => ParamKind::List,
        ParamValue::Tuple(_) => ParamKind::Tuple,
    };
    let mut kind = kind_of(value);
    let before = kind;
    let mut response = combo_ui(ui, &salt.with("kind"), &mut kind, &PARAM_KINDS);
    if kind != before {
        *value = convert(value, kind);
    }
    response |= match value {
        ParamValue::Bool(flag) => ui.checkbox(flag, ""),
        ParamValue::Int(number) => ui.add(
            egui::DragValue::new(number)
                .update_while_editing(false)
                .speed(0.2),
        ),
        ParamValue::Float(number) => ui.add(
            egui::DragValue::new(number)
                .update_while_editing(false)
                .speed(0.01),
        ),
        ParamValue::Str(text) => ui.add(egui::TextEdit::singleline(text).desired_width(140.0)),
        ParamValue::List(items) | ParamValue::Tuple(items) => items_ui(ui, salt, items),
    };
    response
}

fn items_ui(ui: &mut Ui, salt: egui::Id, items: &mut Vec<ParamValue>) -> egui::Response {
    let mut remove = None;
    let mut add = false;
    let inner = ui.vertical(|ui| {
        let mut response: Option<egui::Response> = None;
        for (index, item) in items.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                let r = param_ui(ui, salt.with(index), item);
                if ui.small_button("🗑").clicked() {
                    remove = Some(index);
                }
                response = Some(match response.take() {
                    Some(previous) => previous | r,
                    None => r,
                });
            });
        }
        if ui.small_button("+").on_hover_text("Add an item").clicked() {
            add = true;
        }
        response
    });
    let mut response = match inner.inner {
        Some(response) => response | inner.response,
        None => inner.response,
    };
    if let Some(index) = remove {
        items.remove(index);
        response.mark_changed();
    }
    if add {
        items.push(items.last().cloned().unwrap_or(ParamValue::Int(0)));
        response.mark_changed();
    }
    response
}

/// Converts a value to another kind, keeping what carries over (numbers, single items).
fn convert(value: &ParamValue, kind: ParamKind) -> ParamValue {
    let number = value.as_f64().unwrap_or(0.0);
    match kind {
        ParamKind::Bool => ParamValue::Bool(number != 0.0),
        ParamKind::Int => ParamValue::Int(number as i64),
        ParamKind::Float => ParamValue::Float(number),
        ParamKind::Str => ParamValue::Str(match value {
            ParamValue::Str(text) => text.clone(),
            ParamValue::Int(n) => n.to_string(),
            ParamValue::Float(n) => n.to_string(),
            _ => String::new(),
        }),
        ParamKind::List => ParamValue::List(items_of(value)),
        ParamKind::Tuple => ParamValue::Tuple(items_of(value)),
    }
}

fn items_of(value: &ParamValue) -> Vec<ParamValue> {
    match value {
        ParamValue::List(items) | ParamValue::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    }
}
