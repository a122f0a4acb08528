//! The Rebase dialog alone in a kittest harness, over a project opened from a folder: the
//! dialog's answers handled as the app handles them (an edit applied to the document, a run done
//! in place where the app runs it on a thread). Shared by the rebase dialog tests.

use egui_kittest::Harness;
use stagecraft_editor::app::rebase_dialog::{rebase_ui, RebaseAnswer, RebaseDialog};
use stagecraft_editor::document::Document;
use stagecraft_runtime::project::OverrideSet;

/// The document the dialog edits, and the dialog.
pub struct State {
    pub document: Document,
    pub dialog: RebaseDialog,
}

/// The dialog over the project at `dir`, at `seed` when given (else the dialog's default), in a
/// window `width` points wide, after two frames.
pub fn dialog_harness(
    dir: &std::path::Path,
    seed: Option<u64>,
    width: f32,
) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let mut dialog = RebaseDialog::new(document.project());
    if let Some(seed) = seed {
        dialog.seed = seed;
    }
    let state = State { document, dialog };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(width, 800.0))
        .build_ui_state(
            |ui, state: &mut State| {
                match rebase_ui(ui, &mut state.dialog, state.document.project(), None) {
                    RebaseAnswer::Apply(edit) => {
                        state.document.apply(edit);
                        state.dialog.report = None;
                    }
                    // The app runs it on a thread; here it runs in place.
                    RebaseAnswer::Run => state.dialog.run(state.document.project()),
                    RebaseAnswer::None | RebaseAnswer::Close => {}
                }
            },
            state,
        );
    harness.run_steps(2);
    harness
}

/// The override set `set` of the harness's document as it stands.
pub fn override_set(harness: &Harness<'_, State>, set: &str) -> OverrideSet {
    harness.state().document.project().overrides[set].clone()
}
