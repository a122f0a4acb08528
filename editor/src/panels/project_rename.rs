//! Renaming in the Project tab: the row of a document being renamed (F2, or "Rename…" in its
//! menu), with the new id, live refusals and Enter/Escape; the edit is [`crate::rename`]'s.

use egui::Ui;

use super::Command;
use crate::document::Document;
use crate::edits::DocId;

/// A rename in progress: the document and the name typed so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Renaming {
    /// The document renamed.
    pub doc: DocId,
    /// The new id as typed.
    pub text: String,
    /// Set until the field has taken the keyboard focus.
    focus: bool,
}

impl Renaming {
    /// A rename of `doc` starting from its id, the field to be focused with the id selected.
    pub(super) fn of(doc: DocId) -> Renaming {
        let text = match &doc {
            DocId::Recipe(id) | DocId::Scenario(id) | DocId::Overrides(id) => id.clone(),
            DocId::Manifest | DocId::Family(_) | DocId::Motion(_) => String::new(),
        };
        Renaming {
            doc,
            text,
            focus: true,
        }
    }
}

/// Whether `doc` is renamed here: recipes, scenarios and override sets.
pub(super) fn renamable(doc: &DocId) -> bool {
    matches!(
        doc,
        DocId::Recipe(_) | DocId::Scenario(_) | DocId::Overrides(_)
    )
}

/// The row of a document being renamed: the new id, Rename and Cancel, and why the typed name is
/// refused, live. Enter renames, Escape cancels.
pub(super) fn rename_row_ui(
    ui: &mut Ui,
    document: &Document,
    out: &mut Vec<Command>,
    renaming: &mut Option<Renaming>,
    renamed: &mut Option<(DocId, String)>,
) {
    let Some(state) = renaming.as_mut() else {
        return;
    };
    // Files on disk take their names, except those the next save removes (a rename's old name,
    // so renaming back is allowed).
    let disk = document.disk();
    let dropped = document.dropped_files();
    let files = disk
        .files
        .keys()
        .chain(disk.unreadable.keys())
        .filter(|path| !dropped.contains(*path));
    let edit = crate::rename::rename_edit(document.project(), files, &state.doc, &state.text);
    let mut done = false;
    let mut apply = false;
    ui.horizontal(|ui| {
        let label = ui.label(format!("Rename {} to", state.doc.label()));
        let field = ui
            .add(egui::TextEdit::singleline(&mut state.text).desired_width(160.0))
            .labelled_by(label.id);
        if std::mem::take(&mut state.focus) {
            // The whole old name selected, so what is typed replaces it.
            field.request_focus();
            let mut edit_state =
                egui::text_edit::TextEditState::load(ui.ctx(), field.id).unwrap_or_default();
            let all = egui::text::CCursorRange::two(
                egui::text::CCursor::new(0),
                egui::text::CCursor::new(state.text.chars().count()),
            );
            edit_state.cursor.set_char_range(Some(all));
            edit_state.store(ui.ctx(), field.id);
        }
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if entered && edit.is_err() {
            // A refused name stays in the field, to be corrected.
            field.request_focus();
        }
        let escaped = ui.input(|i| i.key_pressed(egui::Key::Escape));
        if ui
            .add_enabled(edit.is_ok(), egui::Button::new("Rename"))
            .clicked()
            || entered
        {
            apply = true;
        }
        if ui.button("Cancel").clicked() || escaped {
            done = true;
        }
    });
    match edit {
        Ok(edit) if apply => {
            out.push(Command::Apply(edit));
            *renamed = Some((state.doc.clone(), state.text.trim().to_owned()));
            done = true;
        }
        Ok(_) => {}
        Err(crate::rename::RenameRefusal::Unchanged) if apply => done = true,
        Err(why) => {
            ui.colored_label(ui.visuals().error_fg_color, why.to_string());
        }
    }
    if done {
        *renaming = None;
    }
}
