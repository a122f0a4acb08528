//! Files of documents an edit took away (a rename's old name): the editor read or wrote them, the
//! project no longer holds their documents, so a save removes them — unless someone changed the
//! file on disk since, which a save never destroys unasked.
//!
//! Until the save, validation and the Project tab treat them as gone, so a rename shows no "not
//! listed in the manifest" warning or "unreadable file" for its old name.

use std::collections::BTreeSet;

use stagecraft_runtime::project::MANIFEST_FILE;
use stagecraft_runtime::project::{overrides_file, recipe_file, scenario_file, Project};

use super::Document;
use crate::project_io;

/// The file of every document `project` holds.
pub fn document_files(project: &Project) -> BTreeSet<String> {
    let mut files = BTreeSet::from([MANIFEST_FILE.to_owned()]);
    files.extend(project.recipes.keys().map(|id| recipe_file(id)));
    files.extend(project.scenarios.keys().map(|id| scenario_file(id)));
    files.extend(project.overrides.keys().map(|id| overrides_file(id)));
    files.extend(
        project
            .families
            .keys()
            .filter_map(|id| project.family_files.get(id).cloned()),
    );
    files.extend(
        project
            .motions
            .keys()
            .filter_map(|id| project.motion_files.get(id).cloned()),
    );
    files
}

impl Document {
    /// Files the editor read or wrote as documents that the project no longer holds (an edit
    /// renamed or removed them): the next save removes them. Sorted.
    pub fn dropped_files(&self) -> Vec<String> {
        let now = document_files(&self.project);
        self.owned
            .iter()
            .filter(|path| !now.contains(*path))
            .cloned()
            .collect()
    }

    /// Removes the dropped files whose text on disk is still what the editor last read or wrote;
    /// returns those removed. The others are no longer the editor's (they show as documents
    /// again when next read).
    pub(super) fn remove_dropped(&mut self) -> std::io::Result<Vec<String>> {
        let dropped = self.dropped_files();
        let ours: Vec<(String, String)> = dropped
            .iter()
            .filter_map(|path| Some((path.clone(), self.disk.files.get(path)?.clone())))
            .collect();
        let removed = project_io::remove_unchanged_files(&self.dir, &ours)?;
        for path in &dropped {
            self.disk.files.remove(path);
            self.owned.remove(path);
        }
        Ok(removed)
    }
}
