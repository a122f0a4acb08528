//! A stage's operator, picked from the runtime registry's list (its summary as help), never
//! typed: the registry is the one list of operators, so a new operator appears here without an
//! editor change.

use egui::{Response, RichText, Ui};
use stagecraft_runtime::ops::registry::{OperatorDescriptor, Registry};
use stagecraft_runtime::project::Stage;

/// `op id vN`, how the pickers name an operator version.
pub fn operator_label(id: &str, algorithm: u32) -> String {
    format!("{id} v{algorithm}")
}

/// The registry's operators as add-menu choices: (label, help), in the registry's order.
pub fn operator_choices(registry: &Registry) -> Vec<(String, String)> {
    registry
        .operators()
        .map(|op| (operator_label(op.id, op.algorithm), op.summary.to_owned()))
        .collect()
}

/// The `index`-th operator of the registry (the order of [`operator_choices`]).
pub fn operator_at(registry: &Registry, index: usize) -> Option<&OperatorDescriptor> {
    registry.operators().nth(index)
}

/// A combo choosing `stage`'s operator among the registry's; an unregistered one stays shown,
/// marked. Picking another operator sets its algorithm and puts the parameters at the new
/// operator's defaults (another version of the same operator keeps them).
pub fn operator_combo_ui(
    ui: &mut Ui,
    salt: &(impl std::hash::Hash + std::fmt::Debug),
    stage: &mut Stage,
    registry: &Registry,
) -> Response {
    let current = registry.get(&stage.operator, stage.algorithm);
    let shown = match current {
        Some(op) => RichText::new(operator_label(op.id, op.algorithm)),
        None if stage.operator.is_empty() => RichText::new("(choose an operator)").italics(),
        None => RichText::new(format!(
            "{} (not registered)",
            operator_label(&stage.operator, stage.algorithm)
        ))
        .color(ui.visuals().error_fg_color),
    };
    let mut picked = None;
    let mut response = egui::ComboBox::from_id_salt(egui::Id::new(salt))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for op in registry.operators() {
                let selected =
                    current.is_some_and(|c| c.id == op.id && c.algorithm == op.algorithm);
                let label = ui
                    .selectable_label(selected, operator_label(op.id, op.algorithm))
                    .on_hover_text(op.summary);
                if label.clicked() && !selected {
                    picked = Some(op);
                }
            }
        })
        .response;
    if let Some(current) = current {
        response = response.on_hover_text(current.summary);
    }
    if let Some(op) = picked {
        if op.id != stage.operator {
            stage.parameters = default_parameters(op);
        }
        stage.operator = op.id.to_owned();
        stage.algorithm = op.algorithm;
        response.mark_changed();
    }
    response
}

/// The parameters of `op` that have defaults, at them.
pub fn default_parameters(
    op: &OperatorDescriptor,
) -> std::collections::BTreeMap<String, stagecraft_runtime::project::ParamValue> {
    op.params
        .iter()
        .filter_map(|spec| spec.default.value().map(|v| (spec.name.to_owned(), v)))
        .collect()
}
