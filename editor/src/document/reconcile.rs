//! Reconciling the document with files other programs changed: reload, ask, or hold.
//!
//! The editor's own saves update [`Document::disk`] with the bytes they wrote, so when the watcher
//! reports them the texts compare equal and nothing happens. A file that changed into something
//! unreadable keeps its last good document (the file is *held*): its diagnostics are shown and a
//! save does not write it unasked ([`super::held`]). Changes on disk never replace unsaved edits
//! silently: while the document is dirty (edits to a held file included) they are a
//! [`DiskChange::Conflict`] for the user to decide.

use std::collections::{BTreeMap, BTreeSet};

use stagecraft_runtime::project::{load_project, Diagnostic, LoadedProject, ProjectSources};

use super::{Document, Held};
use crate::edits::{get_doc, DocId, ProjectEdit, Selection};

/// What a look at the disk found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiskChange {
    /// The disk holds what the editor last read or wrote.
    None,
    /// The files changed and the document had no unsaved edits: they were reloaded.
    Reloaded(Vec<String>),
    /// The files changed while the document has unsaved edits: the user must choose between
    /// keeping the editor's version and loading the disk's.
    Conflict(Vec<String>),
}

impl Document {
    /// The files whose text in `sources` differs from what the editor last read or wrote, sorted.
    pub fn changed_files(&self, sources: &ProjectSources) -> Vec<String> {
        let paths: BTreeSet<&String> = sources
            .files
            .keys()
            .chain(sources.unreadable.keys())
            .chain(self.disk.files.keys())
            .chain(self.disk.unreadable.keys())
            .collect();
        paths
            .into_iter()
            .filter(|path| {
                sources.files.get(*path) != self.disk.files.get(*path)
                    || sources.unreadable.get(*path) != self.disk.unreadable.get(*path)
            })
            .cloned()
            .collect()
    }

    /// Takes in the project files as now read from disk: reloads changed files when there are no
    /// unsaved edits, otherwise reports a conflict and changes nothing.
    pub fn disk_changed(&mut self, sources: ProjectSources) -> DiskChange {
        let changed = self.changed_files(&sources);
        if changed.is_empty() {
            return DiskChange::None;
        }
        if self.is_dirty() {
            return DiskChange::Conflict(changed);
        }
        self.load_from_disk(sources);
        self.record.set_saved();
        DiskChange::Reloaded(changed)
    }

    /// Resolves a conflict by keeping the editor's documents: the next save overwrites the disk.
    pub fn keep_mine(&mut self, sources: ProjectSources) {
        self.disk = sources;
        self.held.clear();
        self.validation_due = true;
    }

    /// Loads every changed file from `sources` as one undoable edit (so "load from disk" after a
    /// conflict can still be undone). Unreadable files keep their last good document.
    pub fn load_from_disk(&mut self, sources: ProjectSources) {
        let changed = self.changed_files(&sources);
        let was_saved = !self.is_dirty();
        self.adopt(&sources, &changed, "Reload from disk");
        self.disk = sources;
        // A changed file is the editor's again when it now holds a document, and not otherwise.
        let now = super::dropped::document_files(&self.project);
        for path in changed {
            if now.contains(&path) {
                self.owned.insert(path);
            } else {
                self.owned.remove(&path);
            }
        }
        if was_saved {
            self.record.set_saved();
        }
        self.validation_due = true;
    }

    /// Recovers autosaved documents: every file whose autosaved text differs from the current
    /// canonical text is adopted as one undoable edit, leaving the document dirty.
    pub fn recover(&mut self, autosaved: &BTreeMap<String, String>) {
        let current = self.project.canonical_files();
        let mut files = self.disk.files.clone();
        files.extend(current.clone());
        let mut changed = Vec::new();
        for (path, text) in autosaved {
            if current.get(path) != Some(text) {
                files.insert(path.clone(), text.clone());
                changed.push(path.clone());
            }
        }
        let sources = ProjectSources {
            files,
            ..self.disk.clone()
        };
        self.adopt(&sources, &changed, "Recover autosave");
        self.held.clear();
        self.validation_due = true;
    }

    /// Replaces the documents of `changed` files by their values in `sources`, as one edit.
    fn adopt(&mut self, sources: &ProjectSources, changed: &[String], label: &str) {
        let loaded = load_project(sources);
        let mut edits = Vec::new();
        // The project as last read or written, loaded only if a file newly becomes held.
        let mut old = None;
        for path in changed {
            match adopt_file(self, &loaded, sources, path) {
                Adopt::Edit(edit) => {
                    self.held.remove(path);
                    edits.push(edit);
                }
                Adopt::Same => {
                    self.held.remove(path);
                }
                Adopt::Hold(diagnostics) => {
                    // What the file last held readably: the document before it broke.
                    let saved = match self.held.remove(path) {
                        Some(held) => held.saved,
                        None => self.last_readable(path, &mut old),
                    };
                    let held = Held { diagnostics, saved };
                    self.held.insert(path.clone(), held);
                }
            }
        }
        if edits.is_empty() {
            return;
        }
        let selection = edits
            .first()
            .map(|edit| edit.selection().clone())
            .unwrap_or_default();
        self.apply(ProjectEdit::Batch {
            edits,
            selection,
            label: label.to_owned(),
        });
    }
}

enum Adopt {
    /// The document changed: replace it with this edit.
    Edit(ProjectEdit),
    /// The document is as it was.
    Same,
    /// The file cannot be read: keep the current document; these are the file's diagnostics.
    Hold(Vec<Diagnostic>),
}

fn adopt_file(
    document: &Document,
    loaded: &LoadedProject,
    sources: &ProjectSources,
    path: &str,
) -> Adopt {
    let current_project = &document.project;
    let Some(doc) = DocId::of_file(current_project, path).or_else(|| {
        loaded
            .project
            .as_ref()
            .and_then(|p| DocId::of_file(p, path))
    }) else {
        return Adopt::Same;
    };
    let current = get_doc(current_project, &doc);
    // A file that exists but cannot be read as text (not UTF-8, a folder, a broken link) is held
    // like a file that does not parse: it is not a deletion.
    let exists_on_disk = sources.files.contains_key(path) || sources.unreadable.contains_key(path);
    let new = loaded
        .project
        .as_ref()
        .and_then(|project| get_doc(project, &doc));
    // Without a readable manifest nothing on disk can be judged, so every changed file is held.
    if new.is_none() && (exists_on_disk || loaded.project.is_none()) {
        let diagnostics: Vec<Diagnostic> = loaded.diagnostics_of(path).cloned().collect();
        // A file that was never readable has no good version to keep; validation shows it.
        return match current {
            Some(_) => Adopt::Hold(diagnostics),
            None => Adopt::Same,
        };
    }
    if new == current {
        return Adopt::Same;
    }
    let label = if exists_on_disk {
        format!("Reload {path}")
    } else {
        format!("Remove {path} (deleted on disk)")
    };
    Adopt::Edit(ProjectEdit::replace(
        doc.clone(),
        new,
        Selection::doc(doc),
        label,
    ))
}
