//! The open project: its documents, the undo record of edits, dirty state, validation, saving and
//! reconciling with changes other programs make on disk.
//!
//! Architecture invariant: the project changes only through [`Document::apply`], [`Document::undo`]
//! and [`Document::redo`], so every change is one [`ProjectEdit`] in the record — including
//! reloads from disk and autosave recovery, which are undoable like any other edit.

pub mod asset_families;
pub mod autosave;
pub mod dropped;
pub mod held;
pub mod reconcile;
pub mod template;
pub mod watch;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{Diagnostic, Project, ProjectSources};
use stagecraft_runtime::recipe::load_and_check;
use undo::Record;

use crate::edits::{get_doc, DocId, DocValue, ProjectEdit, Selection};
use crate::project_io;

pub use held::{side_file, Held, HeldChoice, SaveReport};
pub use reconcile::DiskChange;

/// How often unsaved edits are written to the autosave folder.
pub const AUTOSAVE_INTERVAL: Duration = Duration::from_secs(30);

/// Gives every document of the process its own [`Document::id`].
static NEXT_DOCUMENT_ID: AtomicU64 = AtomicU64::new(1);

/// Every diagnostic of a project's texts, as `stagecraft check` prints them: the reader's and
/// validation's, then the recipe compiler's (operators, ports, parameter schemas), sorted.
pub fn project_diagnostics(sources: &ProjectSources) -> Vec<Diagnostic> {
    load_and_check(sources, &Registry::standard()).diagnostics
}

/// An open project with its edit history.
pub struct Document {
    /// Unique in the process, so a revision of one document is never taken for another's.
    id: u64,
    /// Counts changes to the project (edits, undo, redo, reloads).
    revision: u64,
    dir: PathBuf,
    project: Project,
    record: Record<ProjectEdit>,
    selection: Selection,
    /// The text of every project file as last read from or written to disk.
    disk: ProjectSources,
    /// Files whose text on disk cannot be read, while the editor keeps the last good document,
    /// with the diagnostics of the disk text. Saving skips them, so nothing is overwritten
    /// unasked ([`held`]).
    held: BTreeMap<String, Held>,
    /// The files of the documents the project held as last read or written; a save removes
    /// those whose documents are gone ([`dropped`]).
    owned: BTreeSet<String>,
    diagnostics: Vec<Diagnostic>,
    validation_due: bool,
    /// Counts changes to the project, so autosave knows whether it has written the current state.
    change_serial: u64,
    autosaved_serial: u64,
    last_autosave: Option<Instant>,
    /// How often [`Document::autosave_if_due`] writes; [`AUTOSAVE_INTERVAL`] unless a test changes it.
    pub autosave_interval: Duration,
}

/// Why a project could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The folder could not be read.
    Io(io::Error),
    /// The manifest could not be read; the diagnostics say why.
    Invalid(Vec<Diagnostic>),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(error) => write!(f, "cannot read the project folder: {error}"),
            OpenError::Invalid(diagnostics) => {
                write!(f, "the project manifest cannot be read")?;
                if let Some(first) = diagnostics.first() {
                    write!(f, ": {first}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for OpenError {}

impl Document {
    /// Opens the project in `dir`. Documents that cannot be read are left out and their
    /// diagnostics shown; only an unreadable manifest fails.
    pub fn open(dir: &Path) -> Result<Document, OpenError> {
        let (sources, loaded) = project_io::load_dir(dir).map_err(OpenError::Io)?;
        let Some(project) = loaded.project else {
            return Err(OpenError::Invalid(loaded.diagnostics));
        };
        Ok(Document::from_parts(dir, project, sources))
    }

    /// A document over `project`, whose files on disk read `disk`.
    pub fn from_parts(dir: &Path, project: Project, disk: ProjectSources) -> Document {
        let owned = dropped::document_files(&project);
        let mut document = Document {
            id: NEXT_DOCUMENT_ID.fetch_add(1, Ordering::Relaxed),
            revision: 0,
            dir: dir.to_path_buf(),
            project,
            record: Record::new(),
            selection: Selection::default(),
            disk,
            held: BTreeMap::new(),
            owned,
            diagnostics: Vec::new(),
            validation_due: true,
            change_serial: 0,
            autosaved_serial: 0,
            last_autosave: None,
            autosave_interval: AUTOSAVE_INTERVAL,
        };
        document.validate();
        document
    }

    /// This document's id, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Grows with every change to the project (edit, undo, redo, reload), never otherwise: what
    /// derives from the project (generation, the session) compares it instead of the documents.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The project folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The documents as they are now.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// A copy of one document.
    pub fn get(&self, doc: &DocId) -> Option<DocValue> {
        get_doc(&self.project, doc)
    }

    /// The project's display name.
    pub fn name(&self) -> &str {
        &self.project.manifest.name
    }

    /// True when the project has edits that are not saved: since the last save, or to a held
    /// file that the save could not write ([`Document::unwritable`]).
    pub fn is_dirty(&self) -> bool {
        !self.record.is_saved() || !self.unwritable().is_empty()
    }

    /// What is selected.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// Selects `selection` (not an edit: selection is not part of the project).
    pub fn select(&mut self, selection: Selection) {
        self.selection = selection;
    }

    /// The diagnostics of the last validation, sorted by file, line and column.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Files changed on disk into something unreadable, with their diagnostics; the editor keeps
    /// the last good version of each.
    pub fn held(&self) -> &BTreeMap<String, Held> {
        &self.held
    }

    /// The file texts on disk as last read or written.
    pub fn disk(&self) -> &ProjectSources {
        &self.disk
    }

    /// The undo record.
    pub fn record(&self) -> &Record<ProjectEdit> {
        &self.record
    }

    /// Applies `edit` and records it.
    pub fn apply(&mut self, edit: ProjectEdit) {
        // An asset folder added to the manifest brings its families at once ([`asset_families`]).
        let edit = self.with_asset_families(edit);
        let selection = self.record.edit(&mut self.project, edit);
        self.changed(selection);
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.record.undo(&mut self.project) {
            Some(selection) => {
                self.changed(selection);
                true
            }
            None => false,
        }
    }

    /// Redoes the next edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        match self.record.redo(&mut self.project) {
            Some(selection) => {
                self.changed(selection);
                true
            }
            None => false,
        }
    }

    fn changed(&mut self, selection: Selection) {
        if selection.doc.is_some() {
            self.selection = selection;
        }
        self.change_serial += 1;
        self.revision += 1;
        self.validation_due = true;
    }

    /// Runs validation if an edit happened since the last one. Returns true if it ran.
    pub fn validate_if_due(&mut self) -> bool {
        // Returning true only when it ran matters: the app repaints on true, and a constant
        // true kept the idle editor repainting every frame.
        if !self.validation_due {
            return false;
        }
        self.validate();
        true
    }

    /// Validates the project as it would be saved: the canonical text of every document, plus the
    /// disk text of files that could not be read (so their diagnostics stay visible). The
    /// diagnostics are those `stagecraft check` prints for the same texts
    /// ([`project_diagnostics`]), the compiler's included.
    pub fn validate(&mut self) {
        self.diagnostics = project_diagnostics(&self.validation_sources());
        self.validation_due = false;
    }

    /// The number of errors among the diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    fn validation_sources(&self) -> ProjectSources {
        let mut sources = self.disk.clone();
        for path in self.dropped_files() {
            sources.files.remove(&path);
        }
        sources.files.extend(self.project.canonical_files());
        sources
    }

    /// The canonical texts a save writes: every document except those held after an unreadable
    /// change on disk.
    pub fn files_to_save(&self) -> BTreeMap<String, String> {
        let mut files = self.project.canonical_files();
        files.retain(|path, _| !self.held.contains_key(path));
        // A canonical text over the size limit would not load again; validation reports it on
        // the file, and the file on disk keeps its readable text.
        files.retain(|_, text| text.len() <= stagecraft_runtime::project::parse::MAX_SOURCE_BYTES);
        files
    }

    /// Saves every changed document with the atomic writer, except held files
    /// ([`Document::held`]). When one of those has edits ([`Document::unwritable`]), the
    /// document stays dirty and the autosave is written at once, so it holds those edits; the
    /// report names the files, for the caller to ask ([`Document::save_held`]).
    pub fn save(&mut self) -> io::Result<SaveReport> {
        let files = self.files_to_save();
        let written = project_io::save_files(&self.dir, &files)?;
        for path in files.keys() {
            self.disk.unreadable.remove(path);
        }
        self.owned.extend(files.keys().cloned());
        self.disk.files.extend(files);
        let removed = self.remove_dropped()?;
        let unwritten = self.unwritable();
        if unwritten.is_empty() {
            self.record.set_saved();
            self.autosaved_serial = self.change_serial;
            autosave::clear(&self.dir);
        } else if autosave::write(&self.dir, &self.project.canonical_files()).is_ok() {
            // On failure the periodic autosave tries again.
            self.autosaved_serial = self.change_serial;
        }
        Ok(SaveReport {
            written,
            unwritten,
            removed,
        })
    }

    /// Saves the project into `dir` and makes that its folder. Asset families outside the
    /// project folder (paths starting with `..`) are shared and not copied: edits to them are
    /// saved where they are, before the copy is written.
    ///
    /// Refuses (writing nothing) a folder from which a shared asset path of the manifest would
    /// name a different folder, since the copy would open without those families.
    pub fn save_as(&mut self, dir: &Path) -> io::Result<Vec<String>> {
        let stranded = self.stranded_asset_paths(dir);
        if !stranded.is_empty() {
            let folders: Vec<String> = stranded
                .iter()
                .map(|(path, target)| format!("`{path}` ({})", target.display()))
                .collect();
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "from {}, the shared asset folder {} would name another folder, and the copy \
                     would open without its families; choose a folder from which it still names \
                     the same one (beside {}, say), or move the families into the project",
                    dir.display(),
                    folders.join(", "),
                    self.dir.display()
                ),
            ));
        }
        // The new folder has no unreadable file to spare: every document is written there, held
        // ones included; a held shared file stays as it is where it is.
        let (mut shared, files): (BTreeMap<_, _>, BTreeMap<_, _>) = self
            .project
            .canonical_files()
            .into_iter()
            .filter(|(_, text)| text.len() <= stagecraft_runtime::project::parse::MAX_SOURCE_BYTES)
            .partition(|(path, _)| path.starts_with(".."));
        shared.retain(|path, _| !self.held.contains_key(path));
        // Only shared files whose text changed are written (the writer skips identical ones).
        let mut written: Vec<String> = project_io::save_files(&self.dir, &shared)?;
        written.extend(project_io::save_files(dir, &files)?);
        self.dir = dir.to_path_buf();
        self.disk = project_io::read_sources(dir)?;
        self.owned = dropped::document_files(&self.project);
        self.held.retain(|path, _| path.starts_with(".."));
        self.record.set_saved();
        self.autosaved_serial = self.change_serial;
        self.validation_due = true;
        Ok(written)
    }

    /// The manifest's asset paths outside the project folder that name a different folder from
    /// `dir` than from the project folder, each with the folder it names now.
    fn stranded_asset_paths(&self, dir: &Path) -> Vec<(String, PathBuf)> {
        let here = normalised(&self.dir);
        let mut stranded = Vec::new();
        for path in &self.project.manifest.asset_paths {
            let target = normalised(&self.dir.join(path));
            if !target.starts_with(&here) && target != normalised(&dir.join(path)) {
                stranded.push((path.clone(), target));
            }
        }
        stranded
    }

    /// Writes unsaved edits to the autosave folder when the interval has passed since the last
    /// autosave and the project changed since. Returns true when it wrote.
    ///
    /// An autosave always holds the document's current state or nothing: when the document is
    /// back at its saved state (an undo to the save point, say) the autosave is removed at once,
    /// so a reopen never offers to restore edits that were taken back.
    pub fn autosave_if_due(&mut self, now: Instant) -> io::Result<bool> {
        if !self.is_dirty() {
            if self.autosaved_serial != self.change_serial {
                autosave::clear(&self.dir);
                self.autosaved_serial = self.change_serial;
            }
            return Ok(false);
        }
        let last = *self.last_autosave.get_or_insert(now);
        let due = now.duration_since(last) >= self.autosave_interval;
        if !due || !self.is_dirty() || self.autosaved_serial == self.change_serial {
            return Ok(false);
        }
        self.last_autosave = Some(now);
        autosave::write(&self.dir, &self.project.canonical_files())?;
        self.autosaved_serial = self.change_serial;
        Ok(true)
    }

    /// Time until the next autosave could be due, for scheduling a repaint.
    pub fn autosave_wait(&self, now: Instant) -> Duration {
        match self.last_autosave {
            Some(last) => self
                .autosave_interval
                .saturating_sub(now.duration_since(last)),
            None => self.autosave_interval,
        }
    }
}

/// `path` made absolute, with `.` and `..` resolved by name (without touching the disk, so the
/// folder need not exist).
fn normalised(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
