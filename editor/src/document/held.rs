//! Files held after an unreadable change on disk, and what a save does with them.
//!
//! A file that changed on disk into something unreadable keeps its last good document (the file is
//! *held*) and a save never overwrites it unasked: someone may be editing it. When the document of
//! a held file has edits the file never held, those edits exist only in the editor, so the
//! document stays dirty, the autosave holds them, and a save reports the file as unwritten until
//! the user chooses ([`HeldChoice`]): overwrite the file on disk with the edited document, or keep
//! both by writing the edited document to a side file ([`side_file`]) beside it.

use std::collections::BTreeMap;
use std::io;

use stagecraft_runtime::project::{load_project, Diagnostic, LoadedProject};

use super::Document;
use crate::edits::{get_doc, DocId, DocValue};
use crate::project_io;

/// A held file: its text on disk cannot be read while the editor keeps a document for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Held {
    /// The diagnostics of the text on disk.
    pub diagnostics: Vec<Diagnostic>,
    /// The document as the file last held it readably (read from or written to disk, or written
    /// beside it by [`HeldChoice::KeepBoth`]); `None` when it never held one.
    pub(super) saved: Option<DocValue>,
}

/// What a save did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// The files written, sorted.
    pub written: Vec<String>,
    /// Held files whose document has edits the file never held, left unwritten, sorted: the
    /// document stays dirty until the user chooses a [`HeldChoice`].
    pub unwritten: Vec<String>,
    /// Files of documents an edit took away (a rename's old name) that the save removed, sorted.
    pub removed: Vec<String>,
}

/// What to do with a held file whose document has unsaved edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldChoice {
    /// Write the edited document over the unreadable file.
    Overwrite,
    /// Leave the unreadable file as it is and write the edited document to [`side_file`].
    KeepBoth,
}

/// Where [`HeldChoice::KeepBoth`] writes the edited document of `file`: `.edited` before its
/// `.ron` (`recipes/street-block.recipe.edited.ron`), a name the project never reads as a document.
pub fn side_file(file: &str) -> String {
    match file.strip_suffix(".ron") {
        Some(stem) => format!("{stem}.edited.ron"),
        None => format!("{file}.edited"),
    }
}

impl Document {
    /// Held files whose document differs from what the file last held readably: their edits
    /// exist only in the editor (and its autosave), and a save does not write them. Sorted.
    pub fn unwritable(&self) -> Vec<String> {
        self.held
            .iter()
            .filter(|(path, held)| {
                let now = DocId::of_file(&self.project, path).and_then(|doc| self.get(&doc));
                now.is_some() && now != held.saved
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// Saves, first writing the unwritable files ([`Document::unwritable`]) as `choice` says;
    /// the report lists the side files among the written ones.
    pub fn save_held(&mut self, choice: HeldChoice) -> io::Result<SaveReport> {
        let unwritable = self.unwritable();
        let mut beside = Vec::new();
        match choice {
            HeldChoice::Overwrite => {
                for path in &unwritable {
                    self.held.remove(path);
                }
            }
            HeldChoice::KeepBoth => {
                let canonical = self.project.canonical_files();
                let sides: BTreeMap<String, String> = unwritable
                    .iter()
                    .filter_map(|path| Some((side_file(path), canonical.get(path)?.clone())))
                    .collect();
                beside = project_io::save_files(&self.dir, &sides)?;
                for path in &unwritable {
                    let now = DocId::of_file(&self.project, path).and_then(|doc| self.get(&doc));
                    if let Some(held) = self.held.get_mut(path) {
                        held.saved = now;
                    }
                }
            }
        }
        let mut report = self.save()?;
        report.written.extend(beside);
        report.written.sort();
        Ok(report)
    }

    /// The document `path` held as last read or written (`self.disk`), loading that project
    /// once into `old` when first asked.
    pub(super) fn last_readable(
        &self,
        path: &str,
        old: &mut Option<LoadedProject>,
    ) -> Option<DocValue> {
        let loaded = old.get_or_insert_with(|| load_project(&self.disk));
        let project = loaded.project.as_ref()?;
        get_doc(project, &DocId::of_file(project, path)?)
    }
}

#[cfg(test)]
mod tests {
    use super::side_file;

    #[test]
    fn side_files_are_never_read_as_documents() {
        use stagecraft_runtime::project::classify;
        for (file, side) in [
            (
                "recipes/street-block.recipe.ron",
                "recipes/street-block.recipe.edited.ron",
            ),
            ("stagecraft.ron", "stagecraft.edited.ron"),
            (
                "../../assets/street-props.family.ron",
                "../../assets/street-props.family.edited.ron",
            ),
        ] {
            assert_eq!(side_file(file), side);
            assert!(classify(file).is_some(), "{file}");
            assert_eq!(classify(side), None, "{side}");
        }
    }
}
