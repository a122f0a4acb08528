//! The Inspector's form: labelled rows of typed widgets that track the field path they edit.
//!
//! A form edits a *copy* of one document. Each row knows its [`FieldPath`], so it can show that
//! field's diagnostics, highlight and scroll to itself when selected, and report which field
//! changed (the edit's selection) and whether the change came from a continuous gesture (a drag
//! or typing, whose frames merge into one undo step).
//!
//! A typed number is one edit: number fields take the text only when it is committed (Enter or
//! leaving the field), so a half-typed value never enters the document, its undo record or the
//! generation service.

use egui::{Color32, DragValue, Response, RichText, Ui};
use stagecraft_runtime::project::{Diagnostic, FieldPath, Project, Severity, Vec2, Vec3};

/// Width of the label column, in points, where the Inspector is wide enough…
const LABEL_WIDTH: f32 = 150.0;

/// …else this share of the row's width (never under [`MIN_LABEL_WIDTH`]), leaving the widgets
/// room in a narrow column; a label longer than its column is elided, whole on hover.
const LABEL_SHARE: f32 = 0.4;

/// The narrowest the label column gets, points.
const MIN_LABEL_WIDTH: f32 = 96.0;

/// The label column's width in a row `row_w` points wide.
pub fn label_width(row_w: f32) -> f32 {
    (row_w * LABEL_SHARE).clamp(MIN_LABEL_WIDTH, LABEL_WIDTH)
}

/// What a change in the form was.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The field that changed.
    pub path: FieldPath,
    /// The widget of a continuous gesture (drag or focused typing), if it was one.
    pub gesture: Option<egui::Id>,
    /// What the change did, for the Edit menu.
    pub label: String,
}

/// A form over one document.
pub struct Form<'a> {
    path: FieldPath,
    /// The selected field inside this document; its row is highlighted and scrolled to.
    focus: &'a FieldPath,
    /// Scroll to the focused row this frame (the selection just changed).
    scroll_to_focus: bool,
    /// Diagnostics of this document's file.
    diagnostics: &'a [&'a Diagnostic],
    /// The whole project, for the id pickers.
    pub project: &'a Project,
    /// The first change made this frame.
    pub change: Option<Change>,
}

impl<'a> Form<'a> {
    /// A form at the document root.
    pub fn new(
        project: &'a Project,
        focus: &'a FieldPath,
        scroll_to_focus: bool,
        diagnostics: &'a [&'a Diagnostic],
    ) -> Self {
        Form {
            path: FieldPath::root(),
            focus,
            scroll_to_focus,
            diagnostics,
            project,
            change: None,
        }
    }

    /// The path the form is at.
    pub fn path(&self) -> &FieldPath {
        &self.path
    }

    /// Runs `f` one step deeper, at `seg` below the current path.
    pub fn at<R>(
        &mut self,
        seg: stagecraft_runtime::project::PathSeg,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.path.0.push(seg);
        let result = f(self);
        self.path.0.pop();
        result
    }

    /// Runs `f` at field `name` below the current path.
    pub fn field<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.at(
            stagecraft_runtime::project::PathSeg::Field(name.to_owned()),
            f,
        )
    }

    /// Runs `f` at list index `index` below the current path.
    pub fn index<R>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        self.at(stagecraft_runtime::project::PathSeg::Index(index), f)
    }

    /// True when the selection is this path or inside it.
    pub fn is_focused(&self) -> bool {
        self.focus.0.starts_with(&self.path.0) && !self.path.0.is_empty()
    }

    /// True when the selection is exactly this path.
    pub fn is_exact_focus(&self) -> bool {
        *self.focus == self.path
    }

    /// True when this row is the selection and the Inspector scrolls to it this frame (the
    /// selection changed lately).
    pub fn scrolls_here(&self) -> bool {
        self.scroll_to_focus && self.is_exact_focus()
    }

    /// Diagnostics at exactly the current path.
    pub fn diagnostics_here(&self) -> impl Iterator<Item = &&'a Diagnostic> + '_ {
        self.diagnostics.iter().filter(move |d| d.path == self.path)
    }

    /// Records that the value at the current path changed through `response`.
    pub fn changed(&mut self, response: &Response, what: &str) {
        if self.change.is_some() {
            return;
        }
        // The frame that commits typing (Enter, or focus moving on) still belongs to the gesture,
        // so the last keystroke and the commit are never an undo step of their own.
        let continuous = response.dragged() || response.has_focus() || response.lost_focus();
        self.change = Some(Change {
            path: self.path.clone(),
            gesture: continuous.then_some(response.id),
            label: format!("{what} {}", self.path),
        });
    }

    /// Records a structural change (add, remove, reorder) of the list at the current path.
    pub fn changed_structure(&mut self, what: &str) {
        if self.change.is_none() {
            self.change = Some(Change {
                path: self.path.clone(),
                gesture: None,
                label: format!("{what} {}", self.path),
            });
        }
    }

    /// A labelled row for field `name`: `add` draws the widget and returns its response.
    ///
    /// The row shows the field's diagnostics, highlights itself when selected, and records a
    /// change when the response says so.
    pub fn row_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        add: impl FnOnce(&mut Ui) -> Response,
    ) -> Response {
        self.field(name, |form| form.row_here_ui(ui, name, help, add))
    }

    /// Like [`Form::row`] for the current path (list items, map values).
    pub fn row_here_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        add: impl FnOnce(&mut Ui) -> Response,
    ) -> Response {
        self.labelled_row_here_ui(ui, name, &humanize(name), help, add)
    }

    /// A row at the current path labelled `label` (a schema's label).
    pub fn labelled_row_here_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        label: &str,
        help: &str,
        add: impl FnOnce(&mut Ui) -> Response,
    ) -> Response {
        let worst = self.diagnostics_here().map(|d| d.severity).min();
        let messages: Vec<String> = self
            .diagnostics_here()
            .map(|d| format!("{}\nexpected: {}", d.message, d.expected))
            .collect();
        let focused = self.is_exact_focus();
        let inner = highlight_frame(ui, focused).show(ui, |ui| {
            ui.horizontal(|ui| {
                let text = label.to_owned();
                let text = match worst {
                    Some(Severity::Error) => RichText::new(text).color(ui.visuals().error_fg_color),
                    Some(Severity::Warning) => {
                        RichText::new(text).color(ui.visuals().warn_fg_color)
                    }
                    None => RichText::new(text),
                };
                let label_w = label_width(ui.available_width());
                let size = egui::vec2(label_w, ui.spacing().interact_size.y);
                let layout = egui::Layout::left_to_right(egui::Align::Center);
                let label = ui
                    .allocate_ui_with_layout(size, layout, |ui| {
                        ui.set_min_width(label_w);
                        ui.add(egui::Label::new(text).truncate())
                    })
                    .inner
                    .on_hover_text(format!("`{name}`: {help}"));
                let response = add(ui).labelled_by(label.id);
                if !messages.is_empty() {
                    ui.label(RichText::new("⚠").color(ui.visuals().error_fg_color))
                        .on_hover_text(messages.join("\n\n"));
                }
                response
            })
            .inner
        });
        if focused && self.scroll_to_focus {
            inner.response.scroll_to_me(Some(egui::Align::Center));
        }
        let response = inner.inner;
        if response.changed() {
            self.changed(&response, "Set");
        }
        response
    }

    /// A number row with a range and a unit suffix such as `" m"`.
    pub fn number_ui<N: egui::emath::Numeric>(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        value: &mut N,
        range: std::ops::RangeInclusive<N>,
        suffix: &str,
    ) -> Response {
        let speed = number_speed(&range);
        self.row_ui(ui, name, help, |ui| {
            // An out-of-range value on disk is shown as it is (validation reports it); only
            // the user's own dragging and typing is kept in range.
            ui.add(
                DragValue::new(value)
                    .range(range)
                    .clamp_existing_to_range(false)
                    .update_while_editing(false)
                    .speed(speed)
                    .suffix(suffix.to_owned()),
            )
        })
    }

    /// A rotation row: stored in 1/65536 turns (the documents' unit), shown and typed in degrees
    /// (`90°` is 16384); a typed value is wrapped into one turn.
    pub fn rotation_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        turns: &mut u16,
    ) -> Response {
        self.row_ui(ui, name, help, |ui| {
            let mut degrees = rotation_degrees(*turns);
            let response = ui.add(
                DragValue::new(&mut degrees)
                    .range(0.0..=360.0)
                    .speed(1.0)
                    .max_decimals(2)
                    .update_while_editing(false)
                    .suffix("°"),
            );
            if response.changed() {
                *turns = rotation_turns(degrees);
            }
            response
        })
    }

    /// A single-line text row.
    pub fn text_ui(&mut self, ui: &mut Ui, name: &str, help: &str, value: &mut String) -> Response {
        self.row_ui(ui, name, help, |ui| {
            ui.add(egui::TextEdit::singleline(value).desired_width(220.0))
        })
    }

    /// A read-only row (ids that name files cannot change here).
    pub fn read_only_ui(&mut self, ui: &mut Ui, name: &str, help: &str, value: &str) {
        self.row_ui(ui, name, help, |ui| {
            ui.label(RichText::new(value).monospace()).on_hover_text(
                "The id is the file name. Recipes, scenarios and override sets are renamed \
                     in the Project tab (F2), with every reference.",
            )
        });
    }

    /// A `u64` row edited as text, so values above 2^53 keep every digit.
    pub fn u64_text_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        value: &mut u64,
    ) -> Response {
        self.row_ui(ui, name, help, |ui| u64_ui(ui, value))
    }

    /// A packed identity, shown as every panel writes one (`0x` + 16 hex digits); typed in hex
    /// or decimal.
    pub fn identity_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        value: &mut u64,
    ) -> Response {
        self.row_ui(ui, name, help, |ui| {
            u64_written_ui(ui, value, |bits| {
                stagecraft_runtime::identity::identity_text(*bits)
            })
        })
    }

    /// A point `(x, y, z)` in meters.
    pub fn vec3_ui(&mut self, ui: &mut Ui, name: &str, help: &str, value: &mut Vec3) -> Response {
        self.row_ui(ui, name, help, |ui| vec3_ui(ui, value))
    }

    /// A point `(x, y)` in meters.
    pub fn vec2_ui(&mut self, ui: &mut Ui, name: &str, help: &str, value: &mut Vec2) -> Response {
        self.row_ui(ui, name, help, |ui| {
            let mut response = axis_ui(ui, "x", &mut value.x);
            response |= axis_ui(ui, "y", &mut value.y);
            response
        })
    }

    /// A combo box row choosing `value` among `options` (value, label).
    pub fn choice_ui<T: PartialEq + Clone, L: AsRef<str>>(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        value: &mut T,
        options: &[(T, L)],
    ) -> Response {
        let id = self.path.field(name);
        self.row_ui(ui, name, help, |ui| combo_ui(ui, &id, value, options))
    }

    /// A combo box row choosing an id among `ids`; a value that is not among them stays shown,
    /// marked missing.
    pub fn id_picker_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        help: &str,
        value: &mut String,
        ids: &[String],
    ) -> Response {
        let salt = self.path.field(name);
        self.row_ui(ui, name, help, |ui| id_combo_ui(ui, &salt, value, ids))
    }

    /// A combo box for an id at the current path (list items).
    pub fn id_picker_here_ui(
        &mut self,
        ui: &mut Ui,
        name: &str,
        value: &mut String,
        ids: &[String],
    ) {
        let salt = self.path.clone();
        self.row_here_ui(ui, name, "", |ui| id_combo_ui(ui, &salt, value, ids));
    }
}

/// The frame around a row: highlighted when the row is selected.
fn highlight_frame(ui: &Ui, focused: bool) -> egui::Frame {
    let frame = egui::Frame::new().inner_margin(egui::Margin::symmetric(4, 1));
    if focused {
        frame
            .fill(ui.visuals().selection.bg_fill.gamma_multiply(0.35))
            .stroke(ui.visuals().selection.stroke)
            .corner_radius(3.0)
    } else {
        frame
    }
}

/// `fixed_step_s` → `Fixed step`; units stay in the widget's suffix.
pub fn humanize(name: &str) -> String {
    let trimmed = ["_m_s", "_rad", "_m", "_s"]
        .iter()
        .find_map(|unit| name.strip_suffix(unit))
        .unwrap_or(name);
    let mut text = trimmed.replace('_', " ");
    if let Some(first) = text.get(0..1) {
        let upper = first.to_uppercase();
        text.replace_range(0..1, &upper);
    }
    text
}

/// How fast a drag moves a number: a thousandth of its range (integers 0.2 per point).
pub fn number_speed<N: egui::emath::Numeric>(range: &std::ops::RangeInclusive<N>) -> f64 {
    if N::INTEGRAL {
        return 0.2;
    }
    let span = range.end().to_f64() - range.start().to_f64();
    if span.is_finite() && span > 0.0 {
        (span / 1000.0).clamp(0.001, 0.1)
    } else {
        0.05
    }
}

/// One axis of a vector: a drag value with an axis prefix and meters suffix.
pub fn axis_ui(ui: &mut Ui, name: &str, value: &mut f64) -> Response {
    ui.add(
        DragValue::new(value)
            .update_while_editing(false)
            .speed(0.05)
            .prefix(format!("{name} "))
            .suffix(" m"),
    )
}

/// Three drag values for a point in meters.
pub fn vec3_ui(ui: &mut Ui, value: &mut Vec3) -> Response {
    let mut response = axis_ui(ui, "x", &mut value.x);
    response |= axis_ui(ui, "y", &mut value.y);
    response |= axis_ui(ui, "z", &mut value.z);
    response
}

/// A text field holding a `u64`; a valid number is written back when the text is committed
/// (Enter or leaving the field), never while it is typed (the Inspector ignores a "change" that
/// leaves the document as it was).
pub fn u64_ui(ui: &mut Ui, value: &mut u64) -> Response {
    u64_written_ui(ui, value, u64::to_string)
}

/// [`u64_ui`] showing the value as `write` writes it (a packed identity in hex, say); typing
/// accepts decimal or `0x` hex alike.
pub fn u64_written_ui(ui: &mut Ui, value: &mut u64, write: impl Fn(&u64) -> String) -> Response {
    let id = ui.next_auto_id();
    let mut text = ui
        .ctx()
        .data(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| write(value));
    let mut response = ui.add(egui::TextEdit::singleline(&mut text).desired_width(180.0));
    let parsed = parse_u64(&text);
    if response.has_focus() {
        // Typing is not a change yet: the value stays as it was until the text is committed.
        ui.ctx().data_mut(|d| d.insert_temp(id, text.clone()));
    } else {
        ui.ctx().data_mut(|d| d.remove::<String>(id));
        if let Some(number) = parsed.filter(|n| *n != *value) {
            *value = number;
            response.mark_changed();
        }
    }
    if parsed.is_none() {
        ui.label(RichText::new("not a number").color(ui.visuals().error_fg_color));
    }
    response
}

/// Decimal or `0x` hexadecimal.
fn parse_u64(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A combo box choosing among `options` (value, label).
pub fn combo_ui<T: PartialEq + Clone, L: AsRef<str>>(
    ui: &mut Ui,
    salt: &(impl std::hash::Hash + std::fmt::Debug),
    value: &mut T,
    options: &[(T, L)],
) -> Response {
    let selected = options
        .iter()
        .find(|(option, _)| option == value)
        .map(|(_, label)| label.as_ref().to_owned())
        .unwrap_or_else(|| "?".to_owned());
    let mut changed = false;
    let mut response = egui::ComboBox::from_id_salt(egui::Id::new(salt))
        .selected_text(selected)
        .show_ui(ui, |ui| {
            for (option, label) in options {
                if ui
                    .selectable_label(option == value, label.as_ref())
                    .clicked()
                    && option != value
                {
                    *value = option.clone();
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

/// A combo box choosing an id; the current value stays visible even when it names nothing.
pub fn id_combo_ui(
    ui: &mut Ui,
    salt: &(impl std::hash::Hash + std::fmt::Debug),
    value: &mut String,
    ids: &[String],
) -> Response {
    let missing = !ids.contains(value);
    let shown = if value.is_empty() {
        RichText::new("(none)").italics()
    } else if missing {
        RichText::new(format!("{value} (missing)")).color(ui.visuals().error_fg_color)
    } else {
        RichText::new(value.as_str())
    };
    let mut changed = false;
    let mut response = egui::ComboBox::from_id_salt(egui::Id::new(salt))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            if ids.is_empty() {
                ui.label(RichText::new("nothing to choose from").italics());
            }
            for id in ids {
                if ui.selectable_label(id == value, id.as_str()).clicked() && id != value {
                    value.clone_from(id);
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

/// A heading for a group of rows, coloured when the group holds a diagnostic.
pub fn section_colour(ui: &Ui, worst: Option<Severity>) -> Color32 {
    match worst {
        Some(Severity::Error) => ui.visuals().error_fg_color,
        Some(Severity::Warning) => ui.visuals().warn_fg_color,
        None => ui.visuals().strong_text_color(),
    }
}

impl Form<'_> {
    /// The worst severity of diagnostics at or below the current path.
    pub fn worst_below(&self) -> Option<Severity> {
        self.diagnostics
            .iter()
            .filter(|d| d.path.0.starts_with(&self.path.0))
            .map(|d| d.severity)
            .min()
    }
}

/// A rotation in 1/65536 turns, in degrees.
pub fn rotation_degrees(turns: u16) -> f64 {
    f64::from(turns) * 360.0 / 65536.0
}

/// A rotation in degrees, in 1/65536 turns (nearest; 360° wraps to 0).
pub fn rotation_turns(degrees: f64) -> u16 {
    let turns = (degrees.rem_euclid(360.0) * 65536.0 / 360.0).round();
    // In [0, 65536]: 65536 (a value just under 360° rounding up) is a whole turn, 0.
    (turns as u32 % 65536) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_column_narrows_with_the_inspector() {
        assert_eq!(label_width(600.0), LABEL_WIDTH);
        assert_eq!(label_width(290.0), 116.0);
        assert_eq!(label_width(150.0), MIN_LABEL_WIDTH);
    }

    #[test]
    fn humanize_drops_units() {
        assert_eq!(humanize("fixed_step_s"), "Fixed step");
        assert_eq!(humanize("walk_speed_m_s"), "Walk speed");
        assert_eq!(humanize("yaw_rad"), "Yaw");
        assert_eq!(humanize("name"), "Name");
    }

    #[test]
    fn rotations_read_in_degrees_and_round_trip_through_turns() {
        assert_eq!(rotation_degrees(16384), 90.0);
        assert_eq!(rotation_degrees(16199), 88.9837646484375);
        assert_eq!(rotation_turns(90.0), 16384);
        assert_eq!(rotation_turns(-90.0), 49152);
        assert_eq!(rotation_turns(359.999), 0);
        for turns in [0_u16, 1, 16199, 32768, 65535] {
            assert_eq!(rotation_turns(rotation_degrees(turns)), turns);
        }
    }

    #[test]
    fn u64_parses_decimal_and_hex() {
        assert_eq!(parse_u64("42"), Some(42));
        assert_eq!(parse_u64("0xff"), Some(255));
        assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64("x"), None);
    }
}
