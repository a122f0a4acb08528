//! Menu actions and keyboard shortcuts.

use std::path::PathBuf;

use egui::{Key, KeyboardShortcut, Modifiers, Ui};

use super::StagecraftApp;
use crate::document::Document;
use crate::edits::{DocId, Selection};

/// Something the user asks the app to do from a menu or a shortcut.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// New project from the template (asks for a folder).
    New,
    /// Open a project (asks for a folder).
    Open,
    /// Open the project in this folder.
    OpenPath(PathBuf),
    /// Save every changed document.
    Save,
    /// Save into another folder.
    SaveAs,
    /// Undo the last edit.
    Undo,
    /// Redo the next edit.
    Redo,
    /// Close the window.
    Quit,
    /// Put the default dock layout back.
    ResetLayout,
    /// Select something (the Edit menu's "Select manifest").
    Select(Selection),
    /// Play or pause the simulation.
    TogglePlay,
    /// Pause and step the simulation one frame.
    StepFrame,
    /// Pause and step the simulation one frame back.
    StepBack,
    /// Stop the running generation, keeping the content on show.
    CancelGeneration,
    /// Cook the project into a bundle (asks for a folder).
    Cook,
    /// Rebase the override sets to a seed (the Rebase dialog).
    Rebase,
    /// Save the simulation's current frame as a snapshot file (asks for a file).
    SaveSnapshot,
    /// Restore a snapshot file into the simulation (asks for a file).
    RestoreSnapshot,
    /// Save the simulation's current frame to this snapshot file.
    SaveSnapshotTo(PathBuf),
    /// Restore this snapshot file into the simulation.
    RestoreSnapshotFrom(PathBuf),
    /// Move the Viewport's stage stepping (F10, Shift+F10) or locked stage.
    Stage(crate::command::StageCommand),
}

const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const REDO_SHIFT: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
const REDO_Y: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
const SAVE_AS: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S);
const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const NEW: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::N);

/// The playback shortcuts: Space plays or pauses, period steps one frame, comma one frame back.
pub const PLAYBACK: [(KeyboardShortcut, Action); 3] = [
    (
        KeyboardShortcut::new(Modifiers::NONE, Key::Space),
        Action::TogglePlay,
    ),
    (
        KeyboardShortcut::new(Modifiers::NONE, Key::Period),
        Action::StepFrame,
    ),
    (
        KeyboardShortcut::new(Modifiers::NONE, Key::Comma),
        Action::StepBack,
    ),
];

/// Serial stepping through the recipe's stages: F10 one stage further, Shift+F10 one back
/// (Shift first: plain F10 would also match it); F9 isolates the stage reached with frozen
/// inputs, or releases it.
pub const STAGE_STEPS: [(KeyboardShortcut, Action); 3] = [
    (
        KeyboardShortcut::new(Modifiers::NONE, Key::F9),
        Action::Stage(crate::command::StageCommand::IsolateHere),
    ),
    (
        KeyboardShortcut::new(Modifiers::SHIFT, Key::F10),
        Action::Stage(crate::command::StageCommand::Back),
    ),
    (
        KeyboardShortcut::new(Modifiers::NONE, Key::F10),
        Action::Stage(crate::command::StageCommand::Next),
    ),
];

/// The actions whose shortcuts were pressed this frame (the key events are consumed, so a
/// focused text field does not also handle Ctrl+Z itself). The playback keys count only when
/// `playback` holds (a simulation runs) and no text field has the keyboard; the stage steps
/// whenever no text field has it.
pub fn shortcuts(ctx: &egui::Context, playback: bool) -> Vec<Action> {
    let mut actions = document_shortcuts(ctx);
    if !ctx.egui_wants_keyboard_input() {
        ctx.input_mut(|input| {
            for (shortcut, action) in STAGE_STEPS {
                if input.consume_shortcut(&shortcut) {
                    actions.push(action);
                }
            }
        });
    }
    if playback && !ctx.egui_wants_keyboard_input() {
        ctx.input_mut(|input| {
            for (shortcut, action) in PLAYBACK {
                if input.consume_shortcut(&shortcut) {
                    actions.push(action);
                }
            }
        });
    }
    actions
}

fn document_shortcuts(ctx: &egui::Context) -> Vec<Action> {
    // Shift variants first: a plain Ctrl+Z shortcut would also match Ctrl+Shift+Z.
    let table = [
        (REDO_SHIFT, Action::Redo),
        (UNDO, Action::Undo),
        (REDO_Y, Action::Redo),
        (SAVE_AS, Action::SaveAs),
        (SAVE, Action::Save),
        (OPEN, Action::Open),
        (NEW, Action::New),
    ];
    ctx.input_mut(|input| {
        table
            .into_iter()
            .filter(|(shortcut, _)| input.consume_shortcut(shortcut))
            .map(|(_, action)| action)
            .collect()
    })
}

/// The menu bar; returns the chosen action.
pub fn menu_bar_ui(ui: &mut Ui, app: &StagecraftApp) -> Option<Action> {
    let mut action = None;
    let document = app.document();
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| file_menu_ui(ui, app, &mut action));
        ui.menu_button("Edit", |ui| edit_menu_ui(ui, document, &mut action));
        ui.menu_button("View", |ui| {
            if ui.button("Reset layout").clicked() {
                action = Some(Action::ResetLayout);
            }
        });
        if let Some(document) = document {
            ui.separator();
            title_ui(ui, document);
        }
    });
    if action.is_some() {
        ui.close();
    }
    action
}

/// The text a menu entry shows for its keyboard shortcut.
fn shortcut(ui: &Ui, shortcut: &KeyboardShortcut) -> String {
    ui.ctx().format_shortcut(shortcut)
}

/// The File menu: projects, saving, cooking, snapshots, quitting.
fn file_menu_ui(ui: &mut Ui, app: &StagecraftApp, action: &mut Option<Action>) {
    let document = app.document();
    if ui
        .add(egui::Button::new("New project…").shortcut_text(shortcut(ui, &NEW)))
        .clicked()
    {
        *action = Some(Action::New);
    }
    if ui
        .add(egui::Button::new("Open…").shortcut_text(shortcut(ui, &OPEN)))
        .clicked()
    {
        *action = Some(Action::Open);
    }
    ui.menu_button("Open recent", |ui| {
        if app.persisted().recent.is_empty() {
            ui.weak("No recent projects");
        }
        for dir in &app.persisted().recent {
            if ui.button(dir.display().to_string()).clicked() {
                *action = Some(Action::OpenPath(dir.clone()));
            }
        }
    });
    ui.separator();
    let has_document = document.is_some();
    if ui
        .add_enabled(
            has_document,
            egui::Button::new("Save").shortcut_text(shortcut(ui, &SAVE)),
        )
        .clicked()
    {
        *action = Some(Action::Save);
    }
    if ui
        .add_enabled(
            has_document,
            egui::Button::new("Save as…").shortcut_text(shortcut(ui, &SAVE_AS)),
        )
        .clicked()
    {
        *action = Some(Action::SaveAs);
    }
    if ui
        .add_enabled(has_document, egui::Button::new("Cook bundle…"))
        .clicked()
    {
        *action = Some(Action::Cook);
    }
    ui.separator();
    let simulating = app.preview.borrow().session.world().is_some();
    if ui
        .add_enabled(simulating, egui::Button::new("Save snapshot…"))
        .on_hover_text("Write the simulation's current frame to a snapshot file")
        .clicked()
    {
        *action = Some(Action::SaveSnapshot);
    }
    if ui
        .add_enabled(simulating, egui::Button::new("Restore snapshot…"))
        .on_hover_text("Continue the simulation from a snapshot file of this scenario")
        .clicked()
    {
        *action = Some(Action::RestoreSnapshot);
    }
    ui.separator();
    if ui.button("Quit").clicked() {
        *action = Some(Action::Quit);
    }
}

/// The Edit menu: undo, redo, rebase, the manifest.
fn edit_menu_ui(ui: &mut Ui, document: Option<&Document>, action: &mut Option<Action>) {
    let undo = document.and_then(|d| d.record().undo_string());
    let redo = document.and_then(|d| d.record().redo_string());
    let undo_text = undo.map_or("Undo".to_owned(), |edit| format!("Undo {edit}"));
    let redo_text = redo.map_or("Redo".to_owned(), |edit| format!("Redo {edit}"));
    let can_undo = document.is_some_and(|d| d.record().can_undo());
    let can_redo = document.is_some_and(|d| d.record().can_redo());
    if ui
        .add_enabled(
            can_undo,
            egui::Button::new(undo_text).shortcut_text(shortcut(ui, &UNDO)),
        )
        .clicked()
    {
        *action = Some(Action::Undo);
    }
    if ui
        .add_enabled(
            can_redo,
            egui::Button::new(redo_text).shortcut_text(shortcut(ui, &REDO_SHIFT)),
        )
        .clicked()
    {
        *action = Some(Action::Redo);
    }
    ui.separator();
    let has_sets = document.is_some_and(|d| !d.project().overrides.is_empty());
    if ui
        .add_enabled(has_sets, egui::Button::new("Rebase overrides…"))
        .on_hover_text(
            "Where each override stands at a seed; decide and apply as one undoable edit",
        )
        .clicked()
    {
        *action = Some(Action::Rebase);
    }
    if ui
        .add_enabled(document.is_some(), egui::Button::new("Select manifest"))
        .clicked()
    {
        *action = Some(Action::Select(Selection::doc(DocId::Manifest)));
    }
}

fn title_ui(ui: &mut Ui, document: &Document) {
    let name = if document.is_dirty() {
        format!("{} ●", document.name())
    } else {
        document.name().to_owned()
    };
    ui.strong(name)
        .on_hover_text(document.dir().display().to_string());
}
