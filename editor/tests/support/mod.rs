//! Shared test context for the editor's UI tests: example projects copied to temp folders and a
//! kittest harness over the real eframe app (no GPU: AccessKit only).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::document::template;
use stagecraft_editor::service::GenerationService;

/// A temp copy of an example project with the shared asset folder beside it, laid out like the
/// repository (`<tmp>/projects/<name>`, `<tmp>/assets`) so `../../assets` still resolves.
pub struct Example {
    /// Keeps the folder alive.
    pub temp: tempfile::TempDir,
    /// The project folder.
    pub dir: PathBuf,
}

/// Runs the `stagecraft` binary of this build with `args`.
pub fn stagecraft(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_stagecraft"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A command's standard output as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A command's standard error as text (where its errors go).
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Copies example `name` (or, if the repository has none by that name, writes the template).
pub fn example(name: &str) -> Example {
    let temp = tempfile::tempdir().expect("temp dir");
    let root = repo_root();
    let source = root.join("projects").join(name);
    let dir = temp.path().join("projects").join(name);
    if source.join("stagecraft.ron").is_file() {
        copy_dir(&source, &dir);
        let assets = root.join("assets");
        if assets.is_dir() {
            copy_dir(&assets, &temp.path().join("assets"));
        }
        // The copy is a repository like the original, so its shared `../../assets` stays inside
        // it (an asset path leaving the repository is warned about).
        std::fs::create_dir_all(temp.path().join(".git")).expect("repository marker");
    } else {
        let project = template::new_project(name);
        stagecraft_editor::project_io::save_files(&dir, &project.canonical_files())
            .expect("write template");
    }
    Example { temp, dir }
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// The editor with `dir` open, in a 1280×800 window.
pub fn harness(dir: &Path) -> Harness<'static, StagecraftApp> {
    harness_with_service(dir, GenerationService::background())
}

/// [`harness`] with a given generation service (one whose generator the test controls).
pub fn harness_with_service(
    dir: &Path,
    service: GenerationService,
) -> Harness<'static, StagecraftApp> {
    let args = RunArgs {
        project: Some(dir.to_path_buf()),
        screenshot: None,
        frame: None,
        tab: None,
        scenario: None,
        inspect: None,
        look_at: None,
        layers: None,
        ..RunArgs::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::with_service(cc, args, service));
    harness.run_steps(3);
    harness
}

/// Steps the harness (sleeping between steps, so background threads make progress) until
/// `done` holds; returns how long it took, or `None` after `timeout`.
pub fn wait_until(
    harness: &mut Harness<'static, StagecraftApp>,
    timeout: Duration,
    mut done: impl FnMut(&StagecraftApp) -> bool,
) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < timeout {
        harness.step();
        if done(harness.state()) {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// Every file of a folder tree (relative path → bytes), skipping `.stagecraft/`.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    collect(dir, dir, &mut files);
    files
}

fn collect(root: &Path, dir: &Path, files: &mut std::collections::BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("read folder") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if entry.file_name() == ".stagecraft" {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let relative = path
                .strip_prefix(root)
                .expect("inside")
                .display()
                .to_string();
            files.insert(relative, std::fs::read(&path).expect("read file"));
        }
    }
}

/// Applies the commands a panel emitted, as the app does: edits to the document (recorded for
/// undo), selections to its selection; diagnostics and stage-inspection requests are ignored.
pub fn apply_commands(
    document: &mut stagecraft_editor::document::Document,
    out: Vec<stagecraft_editor::panels::Command>,
) {
    use stagecraft_editor::panels::Command;
    for command in out {
        match command {
            Command::Apply(edit) => document.apply(edit),
            Command::Select(selection) => document.select(selection),
            Command::ShowDiagnostic(_) | Command::Inspect(_) => {}
        }
    }
}

/// A primary-button drag from `from` to `to` in `moves` pointer moves, a frame after each event
/// (two after the release), as a user's mouse makes it.
pub fn drag<S>(harness: &mut Harness<'_, S>, from: egui::Pos2, to: egui::Pos2, moves: u32) {
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.event(egui::Event::PointerMoved(from));
    harness.run_steps(1);
    harness.event(button(from, true));
    harness.run_steps(1);
    for step in 1..=moves {
        harness.event(egui::Event::PointerMoved(
            from + (to - from) * (step as f32 / moves as f32),
        ));
        harness.run_steps(1);
    }
    harness.event(button(to, false));
    harness.run_steps(2);
}

/// One tab drawn alone over a real document, the way the app draws it: the preview brought up
/// to date (`frame_update`) before the tab each frame.
pub struct PanelState<P> {
    /// The open project.
    pub document: stagecraft_editor::document::Document,
    /// The tab under test.
    pub panel: P,
    /// The preview the tab borrows.
    pub preview: stagecraft_editor::viewport::SharedPreview,
    /// The generation service the preview syncs with.
    pub service: GenerationService,
}

/// A harness of `size` drawing the read-only tab `make` builds over the project in `dir`, run
/// `steps` frames; a tab that emits any command fails the test with `never_edits`.
pub fn read_only_panel<P: stagecraft_editor::panels::Panel + 'static>(
    dir: &Path,
    size: egui::Vec2,
    steps: usize,
    never_edits: &'static str,
    make: impl FnOnce(stagecraft_editor::viewport::SharedPreview) -> P,
) -> Harness<'static, PanelState<P>> {
    let document = stagecraft_editor::document::Document::open(dir).expect("example opens");
    let preview = stagecraft_editor::viewport::Preview::shared();
    let state = PanelState {
        document,
        panel: make(preview.clone()),
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder().with_size(size).build_ui_state(
        move |ui, state: &mut PanelState<P>| {
            // What the app does once a frame before drawing the tabs.
            state
                .preview
                .borrow_mut()
                .frame_update(ui.ctx(), &state.document, &mut state.service);
            let mut out = Vec::new();
            state.panel.ui(ui, &state.document, &mut out);
            assert!(out.is_empty(), "{never_edits}");
        },
        state,
    );
    harness.run_steps(steps);
    harness
}

pub mod nested_rebase;
pub mod rebase_dialog;
