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
    /// Move the Viewport's stage inspection (view state, not an edit).
    Inspect(StageCommand),
}

/// What the Viewport's stage inspection is asked to do ([`crate::viewport::inspect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageCommand {
    /// One stage further in execution order (F10).
    Next,
    /// One stage back (Shift+F10).
    Back,
    /// The whole recipe again.
    All,
    /// Step to this stage: it and every stage before it in execution order are shown.
    To(u32),
    /// Lock and isolate this stage, or release it when it is the locked one.
    TogglePin(u32),
    /// Isolate this stage with its inputs frozen as they are now (its own edits re-run it,
    /// upstream edits wait), or release it when it is the isolated one.
    ToggleIsolate(u32),
    /// F9: isolate the stage the stepping cursor is on (else the last stage) with frozen
    /// inputs, or release the isolated one.
    IsolateHere,
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
