//! The Inspector tab: typed widgets for the selected document.
//!
//! The Inspector draws a copy of the selected document and, when the copy differs afterwards,
//! returns one [`ProjectEdit`] replacing the document. Frames of one drag or of typing into one
//! field carry the same [`MergeKey`], so the gesture is one undo step; numbers are taken only
//! when their text is committed, so a typed number is one edit. Stage parameters are drawn from
//! the operators' schemas ([`params`]).

pub mod directive;
pub mod form;
pub mod list;
pub mod manifest;
pub mod motion_pick;
pub mod motion_profile;
pub mod mutations;
pub mod operator_pick;
pub mod params;
pub mod recipe;
pub mod scenario;
pub mod schema_rows;
pub mod sections;

use std::hash::{Hash, Hasher};

use egui::{RichText, Ui};
use stagecraft_runtime::project::Diagnostic;

use super::{Command, Panel};
use crate::document::Document;
use crate::edits::{DocValue, MergeKey, ProjectEdit, Selection};
use form::Form;

/// The Inspector's state between frames.
#[derive(Default)]
pub struct InspectorPanel {
    /// Counts frames in which no widget is dragged or focused: a new count starts a new gesture.
    gesture_serial: u64,
    /// The selection shown last frame, to scroll to a newly selected field once.
    last_selection: Option<Selection>,
}

impl Panel for InspectorPanel {
    fn title(&self) -> &'static str {
        "Inspector"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let ctx = ui.ctx().clone();
        let idle = ctx.dragged_id().is_none() && ctx.memory(|m| m.focused().is_none());
        if idle {
            self.gesture_serial += 1;
        }
        let selection = document.selection().clone();
        let scroll_to_focus = self.last_selection.as_ref() != Some(&selection);
        self.last_selection = Some(selection.clone());
        let Some(doc) = selection.doc.clone() else {
            ui.weak("Select a document in the Project tab.");
            return;
        };
        let Some(original) = document.get(&doc) else {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "The {} could not be read. Its problems are listed in Diagnostics.",
                    doc.label()
                ),
            );
            return;
        };
        let file = doc.file(document.project()).unwrap_or_default();
        ui.horizontal(|ui| {
            let heading = RichText::new(capitalized(&doc.label())).heading();
            super::elide::label(ui, heading, &file);
            super::elide::label(ui, RichText::new(&file).weak(), "");
        });
        if let Some(held) = document.held().get(&file) {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "The file on disk changed and cannot be read ({} problem(s)); showing the last good version.",
                    held.diagnostics.len()
                ),
            );
        }
        ui.separator();
        let diagnostics: Vec<&Diagnostic> = document
            .diagnostics()
            .iter()
            .filter(|d| d.file == file)
            .collect();
        let mut value = original.clone();
        let change = egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let mut form = Form::new(
                    document.project(),
                    &selection.path,
                    scroll_to_focus,
                    &diagnostics,
                );
                document_ui(&mut form, ui, &mut value);
                form.change
            })
            .inner;
        if value == original {
            return;
        }
        let (path, gesture, label) = match change {
            Some(change) => (change.path, change.gesture, change.label),
            None => (selection.path.clone(), None, "Edit".to_owned()),
        };
        let merge = gesture.map(|id| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (id, self.gesture_serial).hash(&mut hasher);
            MergeKey(hasher.finish())
        });
        let edit =
            ProjectEdit::replace(doc.clone(), Some(value), Selection::field(doc, path), label)
                .merging(merge);
        out.push(Command::Apply(edit));
    }
}

/// Draws the widgets of any document.
fn document_ui(form: &mut Form<'_>, ui: &mut Ui, value: &mut DocValue) {
    match value {
        DocValue::Manifest(manifest) => manifest::manifest_ui(form, ui, manifest),
        DocValue::Recipe(recipe) => recipe::recipe_ui(form, ui, recipe),
        DocValue::Scenario(scenario) => scenario::scenario_ui(form, ui, scenario),
        DocValue::Overrides(set) => scenario::overrides_ui(form, ui, set),
        DocValue::Family(family, _) => manifest::family_ui(form, ui, family),
        DocValue::Motion(profile, _) => motion_profile::motion_profile_ui(form, ui, profile),
    }
    ui.add_space(8.0);
    ui.label(RichText::new("Changes are validated as you type; Ctrl+Z undoes.").weak());
}

/// `scenario x` → `Scenario x`.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
