//! What a panel or the Viewport asks the app to do: [`Command`]s, which the app applies in one
//! place (where edits enter the undo record). Below both, so the Viewport names no panel.

use stagecraft_runtime::project::Diagnostic;

use crate::authoring::AuthoringRefusal;
use crate::edits::{ProjectEdit, Selection};

/// What a panel asks the app to do.
#[must_use]
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Change the selection.
    Select(Selection),
    /// Apply an edit (and record it for undo).
    Apply(ProjectEdit),
    /// Select the document and field a diagnostic is about and bring the Inspector forward.
    ShowDiagnostic(Diagnostic),
}

/// Sends `result`'s edit to `out`; returns the refusal in words, if it was refused.
pub fn emit(
    result: Result<ProjectEdit, AuthoringRefusal>,
    out: &mut Vec<Command>,
) -> Option<String> {
    match result {
        Ok(edit) => {
            out.push(Command::Apply(edit));
            None
        }
        Err(why) => Some(format!("refused: {why}")),
    }
}
