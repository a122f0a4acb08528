//! Modal dialogs: open, new project, save as, cook, rebase, unsaved changes, files a save could
//! not write, disk conflicts, autosave recovery and errors. Folder fields are typed paths with a "Browse…" button: the system dialog runs on
//! its own thread (it may not exist at all, e.g. without an XDG portal) and never blocks the UI.

use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;

use egui::{Id, Modal, RichText, Ui};
use stagecraft_runtime::project::ProjectSources;

use super::actions::Action;
use super::cook_dialog::{start_cook, start_verify, CookSummary};
use super::StagecraftApp;
use crate::document::autosave::{self, Recovery};
use crate::document::{side_file, template, HeldChoice};
use crate::project_io;

/// What to do after the user answered the unsaved-changes question.
#[derive(Clone, Debug, PartialEq)]
pub enum Pending {
    /// Run this action.
    Action(Action),
    /// Close the window.
    Quit,
}

/// The dialog on screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Dialog {
    /// Choose a project folder to open.
    Open {
        /// The typed folder.
        path: String,
    },
    /// Create a project from the template.
    New {
        /// The folder to create.
        path: String,
        /// The project's name.
        name: String,
        /// What the project starts with.
        template: template::Template,
    },
    /// Save into another folder.
    SaveAs {
        /// The typed folder.
        path: String,
    },
    /// The document has unsaved edits: save, discard or cancel?
    Unsaved {
        /// What happens after save or discard.
        then: Pending,
    },
    /// A save left held files with edits unwritten (their text on disk cannot be read): overwrite
    /// them, keep both (the edited document in a side file), or keep the edits unsaved.
    Unwritable {
        /// Each file with why its text on disk cannot be read.
        files: Vec<(String, String)>,
        /// What happens once they are written (a quit, say); nothing on Cancel.
        then: Option<Pending>,
    },
    /// Files changed on disk while the document has unsaved edits.
    DiskConflict {
        /// The changed files.
        files: Vec<String>,
        /// What the disk holds now.
        sources: ProjectSources,
    },
    /// A newer autosave exists: recover it?
    Recovery(Recovery),
    /// Cook the project's saved files into a bundle folder; then verify it.
    Cook {
        /// The typed bundle folder.
        path: String,
        /// The last cook's (or verify's) result.
        summary: Option<CookSummary>,
        /// The last cook's error.
        error: Option<String>,
    },
    /// Rebase a recipe's override sets to a seed, with a decision per edit.
    Rebase(super::rebase_dialog::RebaseDialog),
    /// Something failed.
    Error(String),
}

impl Dialog {
    /// The open dialog, pre-filled with the most recent project.
    pub fn open(recent: &[PathBuf]) -> Dialog {
        Dialog::Open {
            path: recent
                .first()
                .map(|dir| dir.display().to_string())
                .unwrap_or_default(),
        }
    }

    /// The new-project dialog.
    pub fn new_project() -> Dialog {
        Dialog::New {
            path: String::new(),
            name: "New project".to_owned(),
            template: template::Template::StreetBlock,
        }
    }

    /// The cook dialog, pre-filled with `<project>-bundle` next to the project folder.
    pub fn cook(dir: &Path) -> Dialog {
        let name = dir.file_name().map_or_else(
            || "project".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Dialog::Cook {
            path: dir
                .with_file_name(format!("{name}-bundle"))
                .display()
                .to_string(),
            summary: None,
            error: None,
        }
    }

    /// The save-as dialog, pre-filled with the current folder.
    pub fn save_as(dir: &Path) -> Dialog {
        Dialog::SaveAs {
            path: dir.display().to_string(),
        }
    }
}

/// The start screen without a project: new, open, recent.
pub fn welcome_ui(ui: &mut Ui, recent: &[PathBuf]) -> Option<Action> {
    let mut action = None;
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() * 0.2);
        ui.heading("Stagecraft");
        ui.label("Procedural-content recipes and pedestrian scenarios");
        ui.add_space(16.0);
        if ui.button("📂 Open project…").clicked() {
            action = Some(Action::Open);
        }
        if ui.button("✨ New project…").clicked() {
            action = Some(Action::New);
        }
        if !recent.is_empty() {
            ui.add_space(16.0);
            ui.label(RichText::new("Recent").strong());
            for dir in recent {
                if ui.link(dir.display().to_string()).clicked() {
                    action = Some(Action::OpenPath(dir.clone()));
                }
            }
        }
    });
    action
}

/// What the user answered in a dialog.
enum Answer {
    None,
    Close,
    OpenFolder(PathBuf),
    CreateProject(PathBuf, String, template::Template),
    SaveAs(PathBuf),
    SaveThen(Pending),
    DiscardThen(Pending),
    SaveHeld(HeldChoice, Option<Pending>),
    KeepMine,
    LoadFromDisk,
    Recover,
    DiscardAutosave,
    Browse,
    StartCook(PathBuf),
    Verify(CookSummary),
    ApplyEdit(crate::edits::ProjectEdit),
    StartRebaseReport,
}

impl StagecraftApp {
    /// Draws the dialog on screen, if any, and carries out the answer.
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        let cooking = self
            .cook_job
            .as_ref()
            .map(|job| (job.progress(), job.verifying));
        let unsaved = self.document().is_some_and(|d| d.is_dirty());
        // Only the Rebase dialog reads the selection: no lookup on frames without it.
        let selected = if matches!(self.dialog, Some(Dialog::Rebase(_))) {
            self.selected_id()
        } else {
            None
        };
        let Some(dialog) = &mut self.dialog else {
            return;
        };
        let browsing = self.picker.is_some();
        let project = self.workspace.as_ref().map(|w| w.document.project());
        let modal = Modal::new(Id::new("stagecraft-dialog")).show(ctx, |ui| {
            ui.set_max_width(if matches!(dialog, Dialog::Rebase(_)) {
                760.0
            } else {
                520.0
            });
            match (&mut *dialog, project) {
                (dialog @ Dialog::Cook { .. }, _) => {
                    cook_ui(ui, dialog, browsing, cooking, unsaved)
                }
                (Dialog::Rebase(rebase), Some(project)) => {
                    match super::rebase_dialog::rebase_ui(ui, rebase, project, selected) {
                        super::rebase_dialog::RebaseAnswer::None => Answer::None,
                        super::rebase_dialog::RebaseAnswer::Close => Answer::Close,
                        super::rebase_dialog::RebaseAnswer::Run => Answer::StartRebaseReport,
                        super::rebase_dialog::RebaseAnswer::Apply(edit) => Answer::ApplyEdit(edit),
                    }
                }
                (dialog, _) => dialog_ui(ui, dialog, browsing),
            }
        });
        let answer = match modal.inner {
            Answer::None if modal.should_close() && !is_question(dialog) => Answer::Close,
            answer => answer,
        };
        self.answer(answer);
    }

    /// Starts the Rebase dialog's report on its thread over a copy of the document as edited.
    fn start_rebase_report(&mut self) {
        let Some(project) = self.document().map(|d| d.project().clone()) else {
            return;
        };
        let Some(Dialog::Rebase(dialog)) = &mut self.dialog else {
            return;
        };
        let ctx = self.ctx.clone();
        let (recipe, seed) = (dialog.recipe.clone(), dialog.seed);
        match super::rebase_dialog::start_report(project, recipe, seed, move || {
            ctx.request_repaint()
        }) {
            Ok(job) => {
                dialog.running = true;
                self.rebase_job = Some(job);
            }
            Err(why) => dialog.error = Some(why),
        }
    }

    /// Takes a finished rebase report into the Rebase dialog (dropped if the dialog is gone).
    pub(super) fn poll_rebase(&mut self) {
        let Some(result) = self.rebase_job.as_ref().and_then(|job| job.poll()) else {
            return;
        };
        self.rebase_job = None;
        if let Some(Dialog::Rebase(dialog)) = &mut self.dialog {
            dialog.finish(result);
        }
    }

    /// The packed id of the generated object selected in the viewport, if one is.
    fn selected_id(&self) -> Option<u64> {
        let preview = self.preview.borrow();
        let content = preview.session.content()?;
        let pick = preview.selected.as_ref()?;
        crate::authoring::target_of(content, pick).map(|t| t.id.bits())
    }

    fn answer(&mut self, answer: Answer) {
        match answer {
            Answer::None => {}
            Answer::StartRebaseReport => self.start_rebase_report(),
            Answer::ApplyEdit(edit) => self.apply_dialog_edit(edit),
            Answer::Close => self.dialog = None,
            Answer::Browse => self.browse(),
            Answer::StartCook(out) => self.answer_start_cook(&out),
            Answer::Verify(summary) => {
                let ctx = self.ctx.clone();
                match start_verify(summary, move || ctx.request_repaint()) {
                    Ok(job) => self.cook_job = Some(job),
                    Err(message) => self.status = Some((message, true)),
                }
            }
            Answer::OpenFolder(dir) => {
                self.dialog = None;
                self.open_project(&dir);
            }
            Answer::CreateProject(dir, name, template) => {
                self.dialog = None;
                match create_project(&dir, &name, template) {
                    Ok(()) => self.open_project(&dir),
                    Err(message) => self.dialog = Some(Dialog::Error(message)),
                }
            }
            Answer::SaveAs(dir) => self.answer_save_as(&dir),
            Answer::SaveThen(then) => self.answer_save_then(then),
            Answer::SaveHeld(choice, then) => self.answer_save_held(choice, then),
            Answer::DiscardThen(then) => {
                self.dialog = None;
                // Discarded edits must not come back as a recovery offer on the next open.
                if let Some(document) = self.document() {
                    autosave::clear(document.dir());
                }
                self.continue_with(then);
            }
            Answer::KeepMine | Answer::LoadFromDisk => {
                self.answer_disk_conflict(matches!(answer, Answer::KeepMine));
            }
            Answer::Recover => {
                if let (Some(Dialog::Recovery(recovery)), Some(workspace)) =
                    (self.dialog.take(), &mut self.workspace)
                {
                    workspace.document.recover(&recovery.autosave.files);
                    self.status = Some(("Recovered autosaved edits".to_owned(), false));
                }
            }
            Answer::DiscardAutosave => {
                self.dialog = None;
                if let Some(document) = self.document() {
                    autosave::clear(document.dir());
                }
            }
        }
    }

    /// Applies an edit a dialog asked for, closing the dialog.
    fn apply_dialog_edit(&mut self, edit: crate::edits::ProjectEdit) {
        self.dialog = None;
        let label = edit.label().to_owned();
        if let Some(document) = self.document_mut() {
            document.apply(edit);
            self.status = Some((format!("{label} (undoable)"), false));
        }
    }

    /// Starts cooking the open project's saved files into `out`.
    fn answer_start_cook(&mut self, out: &Path) {
        let Some(dir) = self.document().map(|d| d.dir().to_owned()) else {
            return;
        };
        let ctx = self.ctx.clone();
        match start_cook(&dir, out, move || ctx.request_repaint()) {
            Ok(job) => self.cook_job = Some(job),
            Err(message) => self.status = Some((message, true)),
        }
    }

    /// Saves the project into `dir` and watches it there.
    fn answer_save_as(&mut self, dir: &Path) {
        self.dialog = None;
        if let Some(workspace) = &mut self.workspace {
            match workspace.document.save_as(dir) {
                Ok(_) => {
                    workspace.watcher = None;
                    let watcher = self.watch_current();
                    if let Some(workspace) = &mut self.workspace {
                        workspace.watcher = watcher;
                    }
                    self.persisted.remember(dir);
                    self.status = Some((format!("Saved as {}", dir.display()), false));
                }
                Err(error) => {
                    self.dialog = Some(Dialog::Error(format!("Saving failed: {error}")));
                }
            }
        }
    }

    /// Saves, then goes on with `then` unless the save needs another answer.
    fn answer_save_then(&mut self, then: Pending) {
        self.dialog = None;
        if let Some(workspace) = &mut self.workspace {
            let result = workspace.document.save();
            if !self.report_save(result, Some(then.clone())) {
                return;
            }
        }
        self.continue_with(then);
    }

    /// Saves the held files as `choice` says, then goes on with `then` if the save went through.
    fn answer_save_held(&mut self, choice: HeldChoice, then: Option<Pending>) {
        self.dialog = None;
        let Some(workspace) = &mut self.workspace else {
            return;
        };
        let result = workspace.document.save_held(choice);
        if self.report_save(result, then.clone()) {
            if let Some(then) = then {
                self.continue_with(then);
            }
        }
    }

    /// Settles a disk conflict: keep the editor's documents, or load the disk's.
    fn answer_disk_conflict(&mut self, keep_mine: bool) {
        if let (Some(Dialog::DiskConflict { sources, .. }), Some(workspace)) =
            (self.dialog.take(), &mut self.workspace)
        {
            if keep_mine {
                workspace.document.keep_mine(sources);
            } else {
                workspace.document.load_from_disk(sources);
            }
        }
    }

    fn continue_with(&mut self, then: Pending) {
        match then {
            Pending::Action(action) => self.perform_now(action),
            Pending::Quit => self.perform_now(Action::Quit),
        }
    }

    fn watch_current(&self) -> Option<crate::document::watch::Watcher> {
        self.workspace
            .as_ref()
            .and_then(|w| self.watch(&w.document))
    }

    /// Starts the system folder dialog on its own thread.
    fn browse(&mut self) {
        if self.picker.is_some() {
            return;
        }
        let (sender, receiver) = channel();
        let ctx = self.ctx.clone();
        let spawned = std::thread::Builder::new()
            .name("folder-dialog".to_owned())
            .spawn(move || {
                let folder = rfd::FileDialog::new()
                    .set_title("Choose a project folder")
                    .pick_folder();
                let _ = sender.send(folder);
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => self.picker = Some(receiver),
            Err(error) => self.status = Some((format!("No folder dialog: {error}"), true)),
        }
    }

    /// Takes the folder dialog's answer, when it has one, into the dialog's path field.
    pub(super) fn poll_picker(&mut self) {
        let Some(receiver) = &self.picker else {
            return;
        };
        let Ok(folder) = receiver.try_recv() else {
            return;
        };
        self.picker = None;
        let Some(folder) = folder else {
            self.status = Some((
                "The system folder dialog returned nothing; type the path instead.".to_owned(),
                false,
            ));
            return;
        };
        let text = folder.display().to_string();
        match &mut self.dialog {
            Some(Dialog::Open { path })
            | Some(Dialog::New { path, .. })
            | Some(Dialog::SaveAs { path })
            | Some(Dialog::Cook { path, .. }) => *path = text,
            _ => {}
        }
    }
}

impl StagecraftApp {
    /// Takes a finished cook or verify into the Cook dialog (and the status line).
    pub(super) fn poll_cook(&mut self) {
        let Some(result) = self.cook_job.as_ref().and_then(|job| job.poll()) else {
            return;
        };
        self.cook_job = None;
        self.status = Some(match &result {
            Ok(s) => match &s.verified {
                Some(Ok(_)) => (format!("Verified {}", s.out.display()), false),
                Some(Err(e)) => (format!("Verify failed: {e}"), true),
                None => (
                    format!(
                        "Cooked {} ({} hits, {} misses)",
                        s.out.display(),
                        s.hits,
                        s.misses
                    ),
                    false,
                ),
            },
            Err(e) => (format!("Cooking failed: {e}"), true),
        });
        if let Some(Dialog::Cook { summary, error, .. }) = &mut self.dialog {
            match result {
                Ok(s) => {
                    *summary = Some(s);
                    *error = None;
                }
                Err(e) => *error = Some(e),
            }
        }
    }
}

/// The Cook dialog: bundle folder, Cook, progress while it runs, the summary, Verify.
fn cook_ui(
    ui: &mut Ui,
    dialog: &mut Dialog,
    browsing: bool,
    cooking: Option<(crate::service::Progress, bool)>,
    unsaved: bool,
) -> Answer {
    let Dialog::Cook {
        path,
        summary,
        error,
    } = dialog
    else {
        return Answer::None;
    };
    ui.heading("Cook bundle");
    ui.label(
        "Writes manifest.ron and products/*.bin (the bundle folder is replaced when complete).",
    );
    if unsaved {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "The project has unsaved edits: cooking reads the saved files.",
        );
    }
    let entered = folder_field_ui(ui, path, browsing);
    let dir = PathBuf::from(path.trim());
    let mut answer = Answer::None;
    match cooking {
        Some((progress, verifying)) => {
            let text = if verifying {
                "Verifying…".to_owned()
            } else {
                format!(
                    "Cooking… stage {}/{}",
                    progress.stages_done, progress.stages_total
                )
            };
            ui.add(egui::ProgressBar::new(progress.fraction()).text(text));
        }
        None => {
            ui.horizontal(|ui| {
                let valid = !path.trim().is_empty();
                if ui.add_enabled(valid, egui::Button::new("Cook")).clicked() || (valid && entered)
                {
                    answer = Answer::StartCook(dir.clone());
                }
                if ui.button("Browse…").clicked() {
                    answer = Answer::Browse;
                }
                if let Some(done) = summary.as_ref() {
                    if ui.button("Verify").clicked() {
                        answer = Answer::Verify(done.clone());
                    }
                }
                if ui.button("Close").clicked() {
                    answer = Answer::Close;
                }
            });
        }
    }
    if let Some(message) = error {
        ui.colored_label(ui.visuals().error_fg_color, message.as_str());
    }
    if let Some(done) = summary {
        cook_summary_ui(ui, done);
    }
    answer
}

/// The cooked bundle: folder, digest, cache counts, the cook's lines and the verify outcome.
fn cook_summary_ui(ui: &mut Ui, done: &CookSummary) {
    ui.separator();
    ui.label(format!("Bundle {}", done.out.display()));
    ui.monospace(format!("digest {}", done.digest));
    ui.label(format!("Cache: {} hits, {} misses", done.hits, done.misses));
    for line in &done.lines {
        ui.monospace(line);
    }
    match &done.verified {
        Some(Ok(text)) => {
            ui.label(format!("Verified: {text}"));
        }
        Some(Err(problem)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Verify failed: {problem}"),
            );
        }
        None => {}
    }
}

/// Questions must be answered with a button; Escape or a click outside does not dismiss them.
fn is_question(dialog: &Dialog) -> bool {
    matches!(
        dialog,
        Dialog::Unsaved { .. }
            | Dialog::Unwritable { .. }
            | Dialog::DiskConflict { .. }
            | Dialog::Recovery(_)
    )
}

fn dialog_ui(ui: &mut Ui, dialog: &mut Dialog, browsing: bool) -> Answer {
    match dialog {
        Dialog::Open { path } => open_ui(ui, path, browsing),
        Dialog::New {
            path,
            name,
            template,
        } => new_project_ui(ui, path, name, template, browsing),
        Dialog::SaveAs { path } => {
            ui.heading("Save project as");
            let entered = folder_field_ui(ui, path, browsing);
            let dir = PathBuf::from(path.trim());
            buttons_ui(ui, !path.trim().is_empty(), "Save", entered, || {
                Answer::SaveAs(dir.clone())
            })
        }
        Dialog::Unsaved { then } => unsaved_ui(ui, then),
        Dialog::Unwritable { files, then } => unwritable_ui(ui, files, then),
        Dialog::DiskConflict { files, .. } => disk_conflict_ui(ui, files),
        Dialog::Recovery(recovery) => recovery_ui(ui, recovery),
        // Drawn by `cook_ui`, which also needs the running job's progress.
        Dialog::Cook { .. } => Answer::None,
        // Drawn by `rebase_ui`, which needs the project; without one there is nothing to rebase.
        Dialog::Rebase(_) => {
            if ui.button("Close").clicked() {
                Answer::Close
            } else {
                Answer::None
            }
        }
        Dialog::Error(message) => {
            ui.heading("Something went wrong");
            ui.label(message.as_str());
            if ui.button("OK").clicked() {
                Answer::Close
            } else {
                Answer::None
            }
        }
    }
}

/// The Open dialog: a folder that must hold `stagecraft.ron`.
fn open_ui(ui: &mut Ui, path: &mut String, browsing: bool) -> Answer {
    ui.heading("Open project");
    ui.label("The project folder is the one holding stagecraft.ron.");
    let entered = folder_field_ui(ui, path, browsing);
    let dir = PathBuf::from(path.trim());
    let valid = dir
        .join(stagecraft_runtime::project::MANIFEST_FILE)
        .is_file();
    if !path.trim().is_empty() && !valid {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "No stagecraft.ron in this folder.",
        );
    }
    buttons_ui(ui, valid, "Open", entered, || {
        Answer::OpenFolder(dir.clone())
    })
}

/// The New project dialog: name, template and a folder that holds no project yet.
fn new_project_ui(
    ui: &mut Ui,
    path: &mut String,
    name: &mut String,
    template: &mut template::Template,
    browsing: bool,
) -> Answer {
    ui.heading("New project");
    ui.horizontal(|ui| {
        let label = ui.label("Name");
        ui.text_edit_singleline(name).labelled_by(label.id);
    });
    egui::ComboBox::from_label("Template")
        .selected_text(template.id())
        .show_ui(ui, |ui| {
            for choice in template::Template::ALL {
                ui.selectable_value(template, choice, choice.id())
                    .on_hover_text(choice.description());
            }
        });
    ui.label("The folder is created if missing; it must be empty.");
    let entered = folder_field_ui(ui, path, browsing);
    let dir = PathBuf::from(path.trim());
    let taken = dir
        .join(stagecraft_runtime::project::MANIFEST_FILE)
        .exists();
    if taken {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "This folder already holds a project.",
        );
    }
    let valid = !path.trim().is_empty() && !taken && !name.trim().is_empty();
    ui.weak(format!("Starts with {}.", template.description()));
    let name = name.trim().to_owned();
    let template = *template;
    buttons_ui(ui, valid, "Create", entered, || {
        Answer::CreateProject(dir.clone(), name.clone(), template)
    })
}

/// Save, discard or cancel before `then`.
fn unsaved_ui(ui: &mut Ui, then: &Pending) -> Answer {
    ui.heading("Unsaved changes");
    ui.label("The project has changes that are not saved.");
    let mut answer = Answer::None;
    ui.horizontal(|ui| {
        if ui.button("Save").clicked() {
            answer = Answer::SaveThen(then.clone());
        }
        if ui.button("Discard changes").clicked() {
            answer = Answer::DiscardThen(then.clone());
        }
        if ui.button("Cancel").clicked() {
            answer = Answer::Close;
        }
    });
    answer
}

/// Files another program changed under unsaved edits: keep mine or load from disk.
fn disk_conflict_ui(ui: &mut Ui, files: &[String]) -> Answer {
    ui.heading("Files changed on disk");
    ui.label("Another program changed these files while you have unsaved edits:");
    for file in files.iter() {
        ui.monospace(file);
    }
    choices_ui(
        ui,
        [
            (
                "Keep mine",
                "Keep the editor's version; saving overwrites the disk.",
                Answer::KeepMine,
            ),
            (
                "Load from disk",
                "Replace the changed documents (Undo brings yours back).",
                Answer::LoadFromDisk,
            ),
        ],
    )
}

/// An autosave with edits never saved: recover or discard it.
fn recovery_ui(ui: &mut Ui, recovery: &Recovery) -> Answer {
    ui.heading("Recover unsaved edits?");
    let age = recovery
        .written
        .elapsed()
        .map(|age| format!("{} s ago", age.as_secs()))
        .unwrap_or_else(|_| "recently".to_owned());
    ui.label(format!(
        "An autosave from {age} holds edits that were never saved, in:"
    ));
    for file in &recovery.changed {
        ui.monospace(file);
    }
    let mut answer = Answer::None;
    ui.horizontal(|ui| {
        if ui.button("Recover").clicked() {
            answer = Answer::Recover;
        }
        if ui.button("Discard autosave").clicked() {
            answer = Answer::DiscardAutosave;
        }
    });
    answer
}

/// The files a save could not write, with the three ways on.
fn unwritable_ui(ui: &mut Ui, files: &[(String, String)], then: &Option<Pending>) -> Answer {
    ui.heading("Some edits are not saved");
    ui.label(
        "These files changed on disk into something the editor cannot read, and you edited their \
         documents here. Saving does not overwrite them unasked (someone may be editing them), so \
         your edits to them are not on disk yet; the autosave holds them.",
    );
    for (file, why) in files {
        ui.monospace(file);
        ui.weak(why);
    }
    let sides: Vec<String> = files.iter().map(|(file, _)| side_file(file)).collect();
    ui.label(format!(
        "Keep both writes your version to {}.",
        sides.join(", ")
    ));
    choices_ui(
        ui,
        [
            (
                "Overwrite",
                "Write your edited documents over the unreadable files on disk.",
                Answer::SaveHeld(HeldChoice::Overwrite, then.clone()),
            ),
            (
                "Keep both",
                "Write your edited documents beside the files and leave them as they are.",
                Answer::SaveHeld(HeldChoice::KeepBoth, then.clone()),
            ),
            (
                "Cancel",
                "Keep the edits unsaved for now (the project stays unsaved).",
                Answer::Close,
            ),
        ],
    )
}

/// A row of buttons, each with its hover text; the answer of the one clicked.
fn choices_ui<const N: usize>(ui: &mut Ui, choices: [(&str, &str, Answer); N]) -> Answer {
    let mut answer = Answer::None;
    ui.horizontal(|ui| {
        for (label, hover, choice) in choices {
            if ui.button(label).on_hover_text(hover).clicked() {
                answer = choice;
            }
        }
    });
    answer
}

/// A typed folder path with a Browse button; true when Enter was pressed in it.
fn folder_field_ui(ui: &mut Ui, path: &mut String, browsing: bool) -> bool {
    let mut entered = false;
    ui.horizontal(|ui| {
        let label = ui.label("Folder");
        let response = ui
            .add(egui::TextEdit::singleline(path).desired_width(380.0))
            .labelled_by(label.id);
        entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if browsing {
            ui.spinner();
        }
    });
    entered
}

fn buttons_ui(
    ui: &mut Ui,
    valid: bool,
    confirm: &str,
    entered: bool,
    answer: impl Fn() -> Answer,
) -> Answer {
    let mut result = Answer::None;
    ui.horizontal(|ui| {
        if ui.add_enabled(valid, egui::Button::new(confirm)).clicked() || (valid && entered) {
            result = answer();
        }
        if ui.button("Browse…").clicked() {
            result = Answer::Browse;
        }
        if ui.button("Cancel").clicked() {
            result = Answer::Close;
        }
    });
    result
}

/// Writes a project from `template` into `dir` (the same files and rules as `stagecraft new`:
/// a new or empty folder, never over an existing file).
fn create_project(dir: &Path, name: &str, template: template::Template) -> Result<(), String> {
    let files = template.files(name)?;
    project_io::write_new_project(dir, &files, false)
        .map(|_| ())
        .map_err(|error| format!("Cannot create the project: {error:#}"))
}
