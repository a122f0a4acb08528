//! Inspector rows drawn from the runtime's field schemas (`project::SCENARIO_SECTIONS`): the
//! schema gives each row its label, unit, range, default (with a reset to it) and help, so
//! the Inspector, `check` and `docs/format.md` agree on every field.

use egui::{DragValue, Response, Ui};
use stagecraft_runtime::project::{FieldDefault, FieldSchema, Vec3};

use super::form::{number_speed, vec3_ui, Form};

/// The hover text of a schema row: its help, unit, range and default.
pub fn schema_help(field: &FieldSchema) -> String {
    let mut help = field.help.to_owned();
    if field.range.is_some() || !field.rule.is_empty() {
        help.push_str(&format!("\nRange: {}", field.range_text()));
    }
    if field.default != FieldDefault::Required {
        help.push_str(&format!(
            "\nDefault: {}",
            field.default.text(field.is_integer()).replace('`', "")
        ));
    }
    help
}

/// The drag range of a field: its checked range (an open end nudged inwards), or `full`.
fn drag_range<N: egui::emath::Numeric>(field: &FieldSchema) -> std::ops::RangeInclusive<N> {
    let (low, high) = match field.range {
        Some(range) => {
            let step = if N::INTEGRAL { 1.0 } else { 1e-3 };
            let low = if range.min_open {
                range.min + step
            } else {
                range.min
            };
            (low, range.max)
        }
        None => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let clamp = |v: f64| v.clamp(N::MIN.to_f64(), N::MAX.to_f64());
    N::from_f64(clamp(low))..=N::from_f64(clamp(high))
}

/// A reset button (heard as "Reset `path`", the field's full path such as
/// `crossings.lanes`) shown while `at_default` is false; true when clicked.
pub fn reset_button(ui: &mut Ui, path: &str, default: &str, at_default: bool) -> bool {
    if at_default {
        return false;
    }
    let reset = ui
        .small_button("⟲")
        .on_hover_text(format!("Reset to the default, {default}"));
    let label = format!("Reset {path}");
    reset.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &label));
    reset.clicked()
}

impl Form<'_> {
    /// A number row from `field`: its label, unit suffix, range, help and a reset to its default.
    pub fn schema_number_ui<N: egui::emath::Numeric>(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut N,
    ) -> Response {
        let help = schema_help(field);
        let range = drag_range::<N>(field);
        let speed = number_speed(&range);
        self.field(field.name, |form| {
            let path = form.path().to_string();
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
                let mut response = ui.add(
                    DragValue::new(value)
                        .range(range)
                        .clamp_existing_to_range(false)
                        .update_while_editing(false)
                        .speed(speed)
                        .suffix(field.suffix()),
                );
                if let Some(default) = field.default.number() {
                    let text = field.default.text(field.is_integer()).replace('`', "");
                    let at_default = value.to_f64() == default;
                    if reset_button(ui, &path, &text, at_default) {
                        *value = N::from_f64(default);
                        response.mark_changed();
                    }
                }
                response
            })
        })
    }

    /// A checkbox row from `field`, with a reset to its default.
    pub fn schema_bool_ui(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut bool,
    ) -> Response {
        let help = schema_help(field);
        self.field(field.name, |form| {
            let path = form.path().to_string();
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
                let mut response = ui.checkbox(value, "");
                let now = *value;
                response.widget_info(|| {
                    egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, now, field.label)
                });
                if let FieldDefault::Bool(default) = field.default {
                    if reset_button(ui, &path, &default.to_string(), *value == default) {
                        *value = default;
                        response.mark_changed();
                    }
                }
                response
            })
        })
    }

    /// A single-line text row from `field`.
    pub fn schema_text_ui(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut String,
    ) -> Response {
        let help = schema_help(field);
        self.field(field.name, |form| {
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
                ui.add(egui::TextEdit::singleline(value).desired_width(220.0))
            })
        })
    }

    /// A point row from `field`.
    pub fn schema_vec3_ui(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut Vec3,
    ) -> Response {
        let help = schema_help(field);
        self.field(field.name, |form| {
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| vec3_ui(ui, value))
        })
    }

    /// An optional number row from `field` (`None` / `Some(n)`): a checkbox, then the number.
    pub fn schema_optional_number_ui<N: egui::emath::Numeric>(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut Option<N>,
        initial: N,
    ) -> Response {
        let help = schema_help(field);
        self.field(field.name, |form| {
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
                let mut set = value.is_some();
                let mut response = ui.checkbox(&mut set, "");
                let label = format!("Set {}", field.label);
                response.widget_info(|| {
                    egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, set, &label)
                });
                match (set, value.as_mut()) {
                    (true, Some(number)) => {
                        response |= ui.add(
                            DragValue::new(number)
                                .update_while_editing(false)
                                .speed(0.2)
                                .suffix(field.suffix()),
                        );
                    }
                    (true, None) => *value = Some(initial),
                    (false, _) => *value = None,
                }
                response
            })
        })
    }
}

impl Form<'_> {
    /// A tier field row (`motion.full_enter_m`, …): the value the scenario runs — its own when
    /// it gives one, else `policy_value`, the tier policy's, marked "(policy)". Editing it gives
    /// the field; the reset (shown while given) leaves it to the policy again.
    pub fn schema_policy_number_ui<N: egui::emath::Numeric>(
        &mut self,
        ui: &mut Ui,
        field: &FieldSchema,
        value: &mut Option<N>,
        policy_value: N,
    ) -> Response {
        let help = format!(
            "{}\nThe tier policy's value: {}",
            schema_help(field),
            policy_value.to_f64()
        );
        let range = drag_range::<N>(field);
        let speed = number_speed(&range);
        self.field(field.name, |form| {
            let path = form.path().to_string();
            form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
                let mut shown = value.unwrap_or(policy_value);
                let mut response = ui.add(
                    DragValue::new(&mut shown)
                        .range(range)
                        .clamp_existing_to_range(false)
                        .update_while_editing(false)
                        .speed(speed)
                        .suffix(field.suffix()),
                );
                if response.changed() {
                    *value = Some(shown);
                }
                if value.is_none() {
                    ui.weak("(policy)");
                }
                let text = format!("the tier policy's, {}", policy_value.to_f64());
                if reset_button(ui, &path, &text, value.is_none()) {
                    *value = None;
                    response.mark_changed();
                }
                response
            })
        })
    }
}
