//! The eframe application: owns the open document, the per-user state and the dock, and is the
//! one place where panel commands and menu actions change anything.
//!
//! Per-user state that is saved between runs ([`persist::Persisted`]) is kept apart from runtime
//! resources (the [`Workspace`]: document, file watcher; the generation service and the
//! simulation session) and from transient UI state (dialogs). The app owns the one
//! [`GenerationService`] and the preview (with the session) and brings both up to date once per
//! frame before any tab draws; the tabs borrow them.

pub mod actions;
pub mod cook_dialog;
pub mod dialogs;
pub mod fonts;
pub mod persist;
pub mod rebase_dialog;
pub mod screenshot;
pub mod snapshot_dialog;

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use egui::{RichText, Ui, ViewportCommand};
use egui_dock::{DockArea, Style};

use crate::document::watch::{Watcher, DEBOUNCE};
use crate::document::{autosave, DiskChange, Document, SaveReport};
use crate::edits::{DocId, Selection};
use crate::panels::{Command, Panels, Tab, TabViewer};
use crate::project_io;
use crate::service::GenerationService;
use crate::viewport::{Preview, SharedPreview};
use actions::Action;
use dialogs::{Dialog, Pending};
use persist::Persisted;
use screenshot::ScreenshotTask;

/// What `stagecraft [PROJECT] [--screenshot PATH]` asks the editor to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunArgs {
    /// The project folder to open.
    pub project: Option<PathBuf>,
    /// Capture the window to this PNG after the first frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Open the Timeline at this simulated frame.
    pub frame: Option<u64>,
    /// Bring this dock tab to the front.
    pub tab: Option<Tab>,
    /// Open this scenario (its id) instead of the project's first one.
    pub scenario: Option<String>,
    /// Select this field of the open scenario in the Inspector (`crossings`, `motion.exits[0]`).
    pub inspect: Option<String>,
    /// Aim the Viewport at ground point (x, y) with a circle of this radius in view, meters,
    /// instead of framing all the content.
    pub look_at: Option<[f32; 3]>,
    /// Show exactly these Viewport layers (names of [`OverlayOptions::LAYER_NAMES`]).
    ///
    /// [`OverlayOptions::LAYER_NAMES`]: crate::viewport::OverlayOptions::LAYER_NAMES
    pub layers: Option<Vec<String>>,
    /// Step the Viewport through the recipe up to this many stages of its execution order
    /// (`stagecraft --step N`).
    pub step: Option<usize>,
    /// Isolate this stage with its inputs frozen once it is generated (`stagecraft --isolate
    /// STAGE`).
    pub isolate: Option<u32>,
    /// Draw this heatmap over the ground (`stagecraft --heatmap MODE`).
    pub heatmap: Option<stagecraft_runtime::content::heatmap::HeatmapMode>,
}

/// Opens the editor window and runs until it closes.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if let (Some(dir), Some(id)) = (&args.project, &args.scenario) {
        check_scenario(dir, id)?;
    }
    if let Some(path) = &args.screenshot {
        // Refused before the window opens, by the rule every output follows.
        crate::output_file::output_file_kind(path)?;
    }
    let screenshot = args.screenshot.clone();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Stagecraft")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([640.0, 400.0]),
        renderer: eframe::Renderer::Glow,
        // The 3D viewport draws inside egui's frame and needs a depth buffer there.
        depth_buffer: 24,
        // A screenshot run must not depend on, or change, the user's saved layout.
        persist_window: screenshot.is_none(),
        ..Default::default()
    };
    if let Some(path) = &screenshot {
        // A stale file from an earlier run must not pass for this run's capture.
        let _ = std::fs::remove_file(path);
    }
    let started = Instant::now();
    eframe::run_native(
        "Stagecraft",
        options,
        Box::new(move |cc| {
            let mut app = StagecraftApp::new(cc, args);
            app.started = Some(started);
            Ok(Box::new(app))
        }),
    )
    .map_err(|error| anyhow!("the editor window failed: {error}"))?;
    match screenshot {
        Some(path) if !path.exists() => {
            Err(anyhow!("no screenshot was written to {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// The runtime resources of an open project.
pub struct Workspace {
    /// The document.
    pub document: Document,
    watcher: Option<Watcher>,
}

/// The Stagecraft editor.
pub struct StagecraftApp {
    persisted: Persisted,
    workspace: Option<Workspace>,
    /// The one generation service.
    service: GenerationService,
    /// The simulation session, the picked thing and the scene (the tabs that show it hold a
    /// handle and borrow it while they draw).
    preview: SharedPreview,
    panels: Panels,
    dialog: Option<Dialog>,
    /// A file dialog running on its own thread, if any.
    picker: Option<Receiver<Option<PathBuf>>>,
    /// A cook or verify started from the Cook dialog, running on its thread.
    cook_job: Option<cook_dialog::CookJob>,
    /// The Rebase dialog's report, made on its thread.
    rebase_job: Option<rebase_dialog::RebaseJob>,
    /// The snapshot file dialog in flight.
    snapshot_picker: Option<snapshot_dialog::SnapshotPicker>,
    status: Option<(String, bool)>,
    screenshot: Option<ScreenshotTask>,
    title: String,
    /// Set once the user confirmed quitting, so the next close request goes through.
    allow_close: bool,
    ctx: egui::Context,
    /// When the process started the window; screenshot runs report the time to the first frame.
    started: Option<Instant>,
    frames: u64,
}

impl StagecraftApp {
    /// Creates the app, restoring per-user state and opening `args.project` if given.
    pub fn new(cc: &eframe::CreationContext<'_>, args: RunArgs) -> Self {
        StagecraftApp::with_service(cc, args, GenerationService::background())
    }

    /// [`StagecraftApp::new`] with a given generation service (tests give one whose generator
    /// they control).
    pub fn with_service(
        cc: &eframe::CreationContext<'_>,
        args: RunArgs,
        service: GenerationService,
    ) -> Self {
        fonts::install(&cc.egui_ctx);
        let persisted = if args.screenshot.is_some() {
            Persisted::default()
        } else {
            Persisted::load(cc.storage)
        };
        let preview = Preview::shared();
        let mut app = StagecraftApp {
            persisted,
            workspace: None,
            service,
            panels: Panels::new(preview.clone()),
            preview,
            dialog: None,
            picker: None,
            cook_job: None,
            rebase_job: None,
            snapshot_picker: None,
            status: None,
            screenshot: args.screenshot.map(ScreenshotTask::new),
            title: String::new(),
            allow_close: false,
            ctx: cc.egui_ctx.clone(),
            started: None,
            frames: 0,
        };
        app.preview.borrow_mut().seek_on_open = args.frame;
        if let Some(layers) = &args.layers {
            let shown: Vec<&str> = layers.iter().map(String::as_str).collect();
            app.preview.borrow_mut().options.show_only(&shown);
        }
        app.preview.borrow_mut().options.heatmap = args.heatmap;
        app.preview.borrow_mut().look_on_open = args.look_at.map(|[x, y, radius]| {
            crate::viewport::picking::Aabb::new(
                three_d::vec3(x - radius, y - radius, 0.0),
                three_d::vec3(x + radius, y + radius, 0.0),
            )
        });
        if let Some(path) = args.tab.and_then(|tab| app.persisted.dock.find_tab(&tab)) {
            let _ = app.persisted.dock.set_active_tab(path);
        }
        if let Some(dir) = args.project {
            app.open_project(&dir);
        }
        if let Some(steps) = args.step {
            app.preview.borrow_mut().inspect.start_at(steps);
        }
        if let Some(stage) = args.isolate {
            app.preview.borrow_mut().inspect.isolate_at_start(stage);
        }
        if let Some(id) = &args.scenario {
            app.open_scenario(id);
        }
        if let Some(field) = &args.inspect {
            app.inspect_scenario_field(field);
        }
        app
    }

    /// Selects field `field` (`crossings`, `motion.exits[0]`) of the scenario the editor runs,
    /// so the Inspector shows it open.
    pub fn inspect_scenario_field(&mut self, field: &str) {
        let Some(document) = self.workspace.as_mut().map(|w| &mut w.document) else {
            return;
        };
        let id = match document.selection().doc.clone() {
            Some(DocId::Scenario(id)) => Some(id),
            _ => document.project().scenarios.keys().next().cloned(),
        };
        if let Some(id) = id {
            document.select(Selection::field(DocId::Scenario(id), field_path(field)));
        }
    }

    /// Selects scenario `id` of the open project, so the Timeline, Viewport and panels run it;
    /// the status line says so when the project has no such scenario.
    pub fn open_scenario(&mut self, id: &str) {
        let Some(document) = self.workspace.as_mut().map(|w| &mut w.document) else {
            return;
        };
        if document.project().scenarios.contains_key(id) {
            document.select(Selection::doc(DocId::Scenario(id.to_owned())));
        } else {
            let known = scenario_list(document.project());
            self.status = Some((format!("No scenario `{id}` (scenarios: {known})"), true));
        }
    }

    /// The open document, if any.
    pub fn document(&self) -> Option<&Document> {
        self.workspace.as_ref().map(|w| &w.document)
    }

    /// The open document, mutably (tests use it to set the autosave interval).
    pub fn document_mut(&mut self) -> Option<&mut Document> {
        self.workspace.as_mut().map(|w| &mut w.document)
    }

    /// The generation service.
    pub fn service(&self) -> &GenerationService {
        &self.service
    }

    /// The preview state: the simulation session, the picked thing and the scene.
    pub fn preview(&self) -> &SharedPreview {
        &self.preview
    }

    /// The tabs' state.
    pub fn panels(&self) -> &Panels {
        &self.panels
    }

    /// The tabs' state, mutably (tests aim the Viewport's camera).
    pub fn panels_mut(&mut self) -> &mut Panels {
        &mut self.panels
    }

    /// Brings tab `tab` to the front of its dock node.
    pub fn show_tab(&mut self, tab: Tab) {
        if let Some(path) = self.persisted.dock.find_tab(&tab) {
            let _ = self.persisted.dock.set_active_tab(path);
        }
    }

    /// The status line's message, if any, and whether it reports an error.
    pub fn status(&self) -> Option<(&str, bool)> {
        self.status
            .as_ref()
            .map(|(text, error)| (text.as_str(), *error))
    }

    /// The dialog on screen, if any.
    pub fn dialog(&self) -> Option<&Dialog> {
        self.dialog.as_ref()
    }

    /// The window title the app last set.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The per-user state.
    pub fn persisted(&self) -> &Persisted {
        &self.persisted
    }

    /// Opens the project in `dir`, replacing the current one (callers ask about unsaved edits).
    pub fn open_project(&mut self, dir: &Path) {
        match Document::open(dir) {
            Ok(mut document) => {
                document.select(first_selection(document.project()));
                let recovery = autosave::recovery(dir, &document.project().canonical_files());
                let watcher = self.watch(&document);
                self.workspace = Some(Workspace { document, watcher });
                self.panels.project_opened(&self.preview);
                self.persisted.remember(dir);
                self.status = Some((format!("Opened {}", dir.display()), false));
                if let Some(recovery) = recovery {
                    self.dialog = Some(Dialog::Recovery(recovery));
                }
            }
            Err(error) => {
                self.dialog = Some(Dialog::Error(format!(
                    "Cannot open {}:\n{error}",
                    dir.display()
                )));
            }
        }
    }

    fn watch(&self, document: &Document) -> Option<Watcher> {
        let dir = document.dir();
        let outside: Vec<PathBuf> = document
            .project()
            .manifest
            .asset_paths
            .iter()
            .filter(|path| path.starts_with(".."))
            .map(|path| dir.join(path))
            .collect();
        let ctx = self.ctx.clone();
        let wake = move || ctx.request_repaint_after(DEBOUNCE + Duration::from_millis(10));
        match Watcher::new(dir, &outside, wake) {
            Ok(watcher) => Some(watcher),
            Err(error) => {
                eprintln!("file watching is off: {error}");
                None
            }
        }
    }

    /// Applies what the panels asked for.
    fn apply_commands(&mut self, commands: Vec<Command>) {
        let Some(workspace) = &mut self.workspace else {
            return;
        };
        let document = &mut workspace.document;
        for command in commands {
            match command {
                Command::Select(selection) => document.select(selection),
                Command::Apply(edit) => document.apply(edit),
                Command::Inspect(command) => {
                    let mut preview = self.preview.borrow_mut();
                    let content = preview.session.content().cloned();
                    preview.inspect.apply(command, content.as_deref());
                    preview.update_scene();
                }
                Command::ShowDiagnostic(diagnostic) => {
                    if let Some(doc) = DocId::of_file(document.project(), &diagnostic.file) {
                        document.select(Selection::field(doc, diagnostic.path.clone()));
                        if let Some(path) = self.persisted.dock.find_tab(&Tab::Inspector) {
                            let _ = self.persisted.dock.set_active_tab(path);
                        }
                    }
                }
            }
        }
    }

    /// Watcher, autosave and validation: the document's background duties, once per frame.
    fn housekeeping(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        let Some(workspace) = &mut self.workspace else {
            return;
        };
        if let Some(watcher) = &mut workspace.watcher {
            if watcher.poll(now) {
                match project_io::read_sources(workspace.document.dir()) {
                    Ok(sources) => match &mut self.dialog {
                        // A conflict is on screen: show the newest disk state in it.
                        Some(Dialog::DiskConflict {
                            files,
                            sources: held,
                        }) => {
                            *files = workspace.document.changed_files(&sources);
                            *held = sources;
                        }
                        _ => match workspace.document.disk_changed(sources.clone()) {
                            DiskChange::None => {}
                            DiskChange::Reloaded(files) => {
                                self.status = Some((
                                    format!("Reloaded from disk: {}", files.join(", ")),
                                    false,
                                ));
                            }
                            DiskChange::Conflict(files) => {
                                self.dialog = Some(Dialog::DiskConflict { files, sources });
                            }
                        },
                    },
                    Err(error) => {
                        self.status =
                            Some((format!("Cannot read the project folder: {error}"), true));
                    }
                }
            }
            if watcher.is_pending() {
                ctx.request_repaint_after(Duration::from_millis(40));
            }
        }
        let document = &mut workspace.document;
        match document.autosave_if_due(now) {
            Ok(true) => self.status = Some(("Autosaved unsaved edits".to_owned(), false)),
            Ok(false) => {}
            Err(error) => self.status = Some((format!("Autosave failed: {error}"), true)),
        }
        if document.is_dirty() {
            ctx.request_repaint_after(document.autosave_wait(now));
        }
        document.validate_if_due();
    }

    /// Brings the generation service, the session and the scene up to date with the document,
    /// once per frame and before any tab draws (whether or not a tab showing them is visible).
    fn preview_update(&mut self, ctx: &egui::Context) {
        let Some(workspace) = &self.workspace else {
            return;
        };
        self.preview
            .borrow_mut()
            .frame_update(ctx, &workspace.document, &mut self.service);
        self.panels.recipe_graph.follow(&self.service);
        self.panels.recipe_graph.stage_marks =
            crate::panels::recipe_graph::StageMarks::of(&self.preview.borrow());
        self.panels.diagnostics.follow(&self.service);
        self.panels.diagnostics.refresh(&workspace.document);
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = match self.document() {
            Some(document) => {
                let dirty = if document.is_dirty() { " ●" } else { "" };
                format!("{}{dirty} — Stagecraft", document.name())
            }
            None => "Stagecraft".to_owned(),
        };
        if title != self.title {
            ctx.send_viewport_cmd(ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    fn handle_close_request(&mut self, ctx: &egui::Context) {
        let close_requested = ctx.input(|input| input.viewport().close_requested());
        if !close_requested || self.allow_close || self.screenshot.is_some() {
            return;
        }
        if self.document().is_some_and(Document::is_dirty) {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
            self.dialog = Some(Dialog::Unsaved {
                then: Pending::Quit,
            });
        }
    }

    fn main_ui(&mut self, ui: &mut Ui) {
        let mut commands = Vec::new();
        match &self.workspace {
            Some(workspace) => {
                let mut viewer = TabViewer {
                    panels: &mut self.panels,
                    document: &workspace.document,
                    out: &mut commands,
                };
                DockArea::new(&mut self.persisted.dock)
                    .style(Style::from_egui(ui.style().as_ref()))
                    .show_leaf_close_all_buttons(false)
                    .show_leaf_collapse_buttons(false)
                    .show_inside(ui, &mut viewer);
            }
            None => {
                if let Some(action) = dialogs::welcome_ui(ui, &self.persisted.recent) {
                    self.perform(action);
                }
            }
        }
        if !commands.is_empty() {
            self.apply_commands(commands);
            if let Some(dir) = self.document().map(|d| d.dir().to_path_buf()) {
                self.panels.carry_rename(&dir);
            }
            ui.ctx().request_repaint();
        }
    }

    /// The status line; returns the action its Cancel button asks for.
    fn status_ui(&self, ui: &mut Ui) -> Option<Action> {
        let mut action = None;
        ui.horizontal(|ui| {
            if self.service.is_busy() && self.document().is_some() {
                action = generation_progress_ui(ui, &self.service);
                ui.separator();
            }
            if let Some(document) = self.document() {
                // The Diagnostics tab's own count of what it lists.
                let tally = self.panels.diagnostics.tally;
                ui.label(format!("⛔ {}  ⚠ {}", tally.errors, tally.warnings));
                ui.separator();
                ui.label(if document.is_dirty() {
                    "Unsaved changes"
                } else {
                    "Saved"
                });
                ui.separator();
                if let Some(edit) = document.record().undo_string() {
                    ui.weak(format!("Undo: {edit}"));
                }
            }
            if let Some((message, is_error)) = &self.status {
                ui.separator();
                let text = RichText::new(message);
                if *is_error {
                    ui.label(text.color(ui.visuals().error_fg_color));
                } else {
                    ui.weak(message);
                }
            }
        });
        action
    }
}

impl eframe::App for StagecraftApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.frames += 1;
        if let (Some(started), 2, Some(_)) = (self.started, self.frames, &self.screenshot) {
            // The second frame starts once the first one is on screen.
            eprintln!(
                "first frame shown {} ms after start (project opened and laid out)",
                started.elapsed().as_millis()
            );
        }
        if let Some(task) = &mut self.screenshot {
            let ready = !self.service.is_busy();
            task.step(&ctx, ready);
        }
        self.handle_close_request(&ctx);
        if self.dialog.is_none() {
            let playback = self.preview.borrow().session.timeline().is_some();
            for action in actions::shortcuts(&ctx, playback) {
                self.perform(action);
            }
        }
        self.poll_picker();
        self.poll_cook();
        self.poll_rebase();
        self.poll_snapshot_picker();
        self.housekeeping(&ctx);
        self.preview_update(&ctx);
        egui::Panel::top("stagecraft-menu").show(ui, |ui| {
            if let Some(action) = actions::menu_bar_ui(ui, self) {
                self.perform(action);
            }
        });
        let status = egui::Panel::bottom("stagecraft-status")
            .show(ui, |ui| self.status_ui(ui))
            .inner;
        if let Some(action) = status {
            self.perform(action);
        }
        egui::CentralPanel::default().show(ui, |ui| self.main_ui(ui));
        self.dialogs_ui(&ctx);
        if let Some(workspace) = &mut self.workspace {
            if workspace.document.validate_if_due() {
                ctx.request_repaint();
            }
        }
        self.update_title(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.screenshot.is_none() {
            self.persisted.store(storage);
        }
    }
}

/// Refuses `--scenario ID` before the window opens when the project in `dir` has no such
/// scenario (a project that does not load opens as usual and shows its diagnostics).
fn check_scenario(dir: &Path, id: &str) -> anyhow::Result<()> {
    let Ok((_, loaded)) = project_io::load_dir(dir) else {
        return Ok(());
    };
    match loaded.project {
        Some(project) if !project.scenarios.contains_key(id) => Err(anyhow!(
            "{} has no scenario `{id}` (scenarios: {})",
            dir.display(),
            scenario_list(&project)
        )),
        _ => Ok(()),
    }
}

/// The project's scenario ids, comma-separated (`none` when it has none).
fn scenario_list(project: &stagecraft_runtime::project::Project) -> String {
    let ids: Vec<&str> = project.scenarios.keys().map(String::as_str).collect();
    if ids.is_empty() {
        "none".to_owned()
    } else {
        ids.join(", ")
    }
}

/// What a freshly opened project shows: its first scenario, else its first recipe
/// ([`crate::service::first_recipe`]: a subrecipe cannot run alone), else the manifest, so the
/// Inspector starts with something to inspect.
fn first_selection(project: &stagecraft_runtime::project::Project) -> Selection {
    let doc = if let Some(id) = project.scenarios.keys().next() {
        DocId::Scenario(id.clone())
    } else if let Some(id) = crate::service::first_recipe(project) {
        DocId::Recipe(id)
    } else {
        DocId::Manifest
    };
    Selection::doc(doc)
}

/// `1 error`, `2 errors`.
pub fn count_text(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The running generation's progress bar (stages and candidates done) and its Cancel button.
fn generation_progress_ui(ui: &mut Ui, service: &GenerationService) -> Option<Action> {
    let recipe = service.recipe().unwrap_or_default();
    let (fraction, text) = match service.progress() {
        Some(progress) => (
            progress.fraction(),
            format!(
                "Generating {recipe}: {}/{} stages, {}/{} candidates",
                progress.stages_done,
                progress.stages_total,
                progress.candidates_done,
                progress.candidates_total
            ),
        ),
        None => (0.0, format!("Generating {recipe}…")),
    };
    ui.add(
        egui::ProgressBar::new(fraction)
            .text(text)
            .desired_width(320.0)
            .animate(true),
    );
    ui.button("Cancel")
        .on_hover_text("Stop generating; the previous content stays on show")
        .clicked()
        .then_some(Action::CancelGeneration)
}

/// Whether `action` would throw away unsaved edits.
fn discards_edits(action: &Action) -> bool {
    matches!(
        action,
        Action::New | Action::Open | Action::OpenPath(_) | Action::Quit
    )
}

impl StagecraftApp {
    /// Performs a menu action or shortcut, asking first when it would discard unsaved edits.
    pub fn perform(&mut self, action: Action) {
        if discards_edits(&action) && self.document().is_some_and(Document::is_dirty) {
            self.dialog = Some(Dialog::Unsaved {
                then: Pending::Action(action),
            });
            return;
        }
        self.perform_now(action);
    }

    fn perform_now(&mut self, action: Action) {
        match action {
            Action::New => self.dialog = Some(Dialog::new_project()),
            Action::Open => self.dialog = Some(Dialog::open(&self.persisted.recent)),
            Action::OpenPath(dir) => self.open_project(&dir),
            Action::Save => {
                self.save();
            }
            Action::Cook => {
                if let Some(document) = self.document() {
                    self.dialog = Some(Dialog::cook(document.dir()));
                }
            }
            Action::SaveSnapshot => self.pick_snapshot_file(true),
            Action::RestoreSnapshot => self.pick_snapshot_file(false),
            Action::SaveSnapshotTo(path) => self.save_snapshot_to(&path),
            Action::RestoreSnapshotFrom(path) => self.restore_snapshot_from(path),
            Action::Rebase => {
                if let Some(document) = self.document() {
                    let dialog = rebase_dialog::RebaseDialog::new(document.project());
                    self.dialog = Some(Dialog::Rebase(dialog));
                }
            }
            Action::SaveAs => {
                if let Some(document) = self.document() {
                    self.dialog = Some(Dialog::save_as(document.dir()));
                }
            }
            Action::Undo => {
                if let Some(document) = self.document_mut() {
                    document.undo();
                }
            }
            Action::Redo => {
                if let Some(document) = self.document_mut() {
                    document.redo();
                }
            }
            Action::Quit => {
                self.allow_close = true;
                self.ctx.send_viewport_cmd(ViewportCommand::Close);
            }
            Action::ResetLayout => self.persisted.reset_layout(),
            Action::Select(selection) => {
                if let Some(document) = self.document_mut() {
                    document.select(selection);
                }
            }
            Action::TogglePlay => self.preview.borrow_mut().session.toggle_play(),
            Action::StepFrame => self.preview.borrow_mut().session.step(1),
            Action::StepBack => self.preview.borrow_mut().session.step_back(),
            Action::Stage(command) => self.apply_commands(vec![Command::Inspect(command)]),
            Action::CancelGeneration => {
                self.service.cancel();
                self.status = Some((
                    "Generation cancelled; the previous content stays on show".to_owned(),
                    false,
                ));
            }
        }
    }

    /// Saves the open document; true when everything was written (errors go to a dialog).
    fn save(&mut self) -> bool {
        let Some(workspace) = &mut self.workspace else {
            return false;
        };
        let result = workspace.document.save();
        self.report_save(result, None)
    }

    /// Says what a save did in the status line; true when everything was written. A failure is
    /// an error dialog; files left unwritten ([`SaveReport::unwritten`]) are the question of
    /// what to do with them, after which `then` runs.
    pub(super) fn report_save(
        &mut self,
        result: std::io::Result<SaveReport>,
        then: Option<Pending>,
    ) -> bool {
        let Some(document) = self.workspace.as_mut().map(|w| &mut w.document) else {
            return false;
        };
        let report = match result {
            Ok(report) => report,
            Err(error) => {
                self.dialog = Some(Dialog::Error(format!("Saving failed: {error}")));
                return false;
            }
        };
        let mut message = if report.written.is_empty() {
            "Saved (no file changed)".to_owned()
        } else {
            format!("Saved {}", report.written.join(", "))
        };
        if !report.removed.is_empty() {
            message = format!("{message}; removed {}", report.removed.join(", "));
        }
        if !report.unwritten.is_empty() {
            message = format!(
                "{message}; not saved: {} (unreadable on disk)",
                report.unwritten.join(", ")
            );
            let files = report
                .unwritten
                .iter()
                .map(|file| {
                    let why = document
                        .held()
                        .get(file)
                        .and_then(|h| h.diagnostics.first());
                    let why = why.map_or_else(|| "cannot be read".to_owned(), ToString::to_string);
                    (file.clone(), why)
                })
                .collect();
            self.dialog = Some(Dialog::Unwritable { files, then });
            self.status = Some((message, true));
            return false;
        }
        // Saving with errors is allowed, never silent.
        document.validate_if_due();
        let errors = document.error_count();
        self.status = Some(if errors > 0 {
            (
                format!(
                    "{message} — the saved project has {}; see Diagnostics",
                    count_text(errors, "error")
                ),
                true,
            )
        } else {
            (message, false)
        });
        true
    }
}

/// `motion.exits[0]` as a field path.
pub fn field_path(text: &str) -> stagecraft_runtime::project::FieldPath {
    use stagecraft_runtime::project::{FieldPath, PathSeg};
    let mut path = FieldPath::root();
    for part in text.split('.').filter(|p| !p.is_empty()) {
        let (name, rest) = part.split_once('[').unwrap_or((part, ""));
        path.0.push(PathSeg::Field(name.to_owned()));
        for index in rest.split('[') {
            if let Ok(index) = index.trim_end_matches(']').parse() {
                path.0.push(PathSeg::Index(index));
            }
        }
    }
    path
}
