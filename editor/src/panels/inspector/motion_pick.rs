//! The `motion_profile` row of a population source and of a route directive: a combo of the known
//! profile ids (the standard ones and the project's `*.motion.ron` documents) plus "(default)".
//!
//! A value that names no known profile stays shown, marked "⚠ name (unknown)", and stays
//! selectable, so opening the combo loses nothing; `stagecraft check` reports it as a located
//! error. A pick is one change of the form, so one undoable edit.

use egui::{Response, RichText, Ui};
use stagecraft_runtime::project::schema::motion::STANDARD_MOTION_PROFILES;
use stagecraft_runtime::project::{FieldSchema, Project};

use super::form::Form;
use super::schema_rows::schema_help;

/// The combo's text for `None`.
pub const DEFAULT_LABEL: &str = "(default)";

/// The profile ids a `motion_profile` may name: the standard ones first, then the project's
/// motion profile documents (sorted, those with a standard id not repeated).
pub fn known_motion_profiles(project: &Project) -> Vec<String> {
    let mut ids: Vec<String> = STANDARD_MOTION_PROFILES.map(str::to_owned).to_vec();
    for id in project.motions.keys() {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    ids
}

/// What the closed combo shows for `value`: "(default)", the id, or the id marked unknown.
pub fn shown_motion_profile(value: Option<&str>, known: &[String]) -> String {
    match value {
        None => DEFAULT_LABEL.to_owned(),
        Some(id) if known.iter().any(|k| k == id) => id.to_owned(),
        Some(id) => format!("⚠ {id} (unknown)"),
    }
}

/// The `motion_profile` row for `field` (a source's or a directive's) at the current path.
pub(super) fn motion_profile_pick_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    field: &FieldSchema,
    value: &mut Option<String>,
) {
    let known = known_motion_profiles(form.project);
    let help = schema_help(field);
    form.field(field.name, |form| {
        let salt = form.path().to_string();
        form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
            profile_combo_ui(ui, &salt, value, &known)
        })
    });
}

/// The combo itself: "(default)", each known id, and an unknown current value (kept listed).
fn profile_combo_ui(
    ui: &mut Ui,
    salt: &str,
    value: &mut Option<String>,
    known: &[String],
) -> Response {
    let shown_text = shown_motion_profile(value.as_deref(), known);
    let unknown = value.as_ref().filter(|id| !known.contains(id)).cloned();
    let shown = match (&value, &unknown) {
        (None, _) => RichText::new(shown_text).italics(),
        (Some(_), Some(_)) => RichText::new(shown_text).color(ui.visuals().error_fg_color),
        (Some(_), None) => RichText::new(shown_text),
    };
    let mut options: Vec<(Option<String>, String)> = vec![(None, DEFAULT_LABEL.to_owned())];
    options.extend(known.iter().map(|id| (Some(id.clone()), id.clone())));
    if let Some(id) = unknown {
        let label = shown_motion_profile(Some(&id), known);
        options.push((Some(id), label));
    }
    let mut picked = None;
    let mut response = egui::ComboBox::from_id_salt(egui::Id::new(("motion-profile", salt)))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for (option, label) in options {
                let selected = option == *value;
                if ui.selectable_label(selected, label).clicked() && !selected {
                    picked = Some(option);
                }
            }
        })
        .response;
    if let Some(option) = picked {
        *value = option;
        response.mark_changed();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_ids_are_the_standard_ones_then_the_project_documents() {
        let mut project = Project::default();
        for id in ["running", "jogging", "amble"] {
            project.motions.insert(id.to_owned(), Default::default());
        }
        assert_eq!(
            known_motion_profiles(&project),
            ["walking", "running", "amble", "jogging"]
        );
    }

    #[test]
    fn shown_text_marks_an_unknown_id() {
        let known = vec!["walking".to_owned(), "running".to_owned()];
        assert_eq!(shown_motion_profile(None, &known), "(default)");
        assert_eq!(shown_motion_profile(Some("running"), &known), "running");
        assert_eq!(
            shown_motion_profile(Some("sprint"), &known),
            "⚠ sprint (unknown)"
        );
    }
}
