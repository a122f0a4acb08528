//! Asset folders added to or removed from the manifest by an edit: the families and motion
//! profiles in an added folder are read at once and join the same edit (one undo step), so they
//! show — in the Project tab, the recipes' inputs, the preview — before the manifest is saved;
//! those of a removed folder leave with it.

use std::collections::BTreeSet;

use stagecraft_runtime::project::names::normal_asset_path;
use stagecraft_runtime::project::{
    classify, read_document, AssetFamily, DocKind, Manifest, MotionProfileDoc,
};

use super::Document;
use crate::edits::{DocId, DocValue, ProjectEdit};
use crate::project_io;

impl Document {
    /// `edit`, with the families of the asset folders it adds to the manifest put in and those
    /// of the folders it removes taken out, as one batch; `edit` itself when it changes no folder.
    pub(super) fn with_asset_families(&self, edit: ProjectEdit) -> ProjectEdit {
        let Some(next) = manifest_after(&edit) else {
            return edit;
        };
        let before = folders(&self.project.manifest);
        let after = folders(next);
        if before == after {
            return edit;
        }
        // Documents the edit sets itself (a reload brings its own families) are left to it.
        let own = edit.docs();
        let selection = edit.selection().clone();
        let mut families = Vec::new();
        for folder in after.difference(&before) {
            families.extend(self.folder_families(folder, &own, &families));
        }
        let files = self
            .project
            .family_files
            .iter()
            .map(|(id, file)| (DocId::Family(id.clone()), file));
        let motions = self
            .project
            .motion_files
            .iter()
            .map(|(id, file)| (DocId::Motion(id.clone()), file));
        for (doc, file) in files.chain(motions) {
            let gone = !after.iter().any(|folder| inside(file, folder));
            if gone && !own.contains(&doc) {
                families.push((doc, None));
            }
        }
        if families.is_empty() {
            return edit;
        }
        let label = edit.label().to_owned();
        let mut edits = vec![edit];
        edits.extend(
            families
                .into_iter()
                .map(|(doc, value)| ProjectEdit::replace(doc, value, selection.clone(), "")),
        );
        ProjectEdit::Batch {
            edits,
            selection,
            label,
        }
    }

    /// The families of `folder` that the project does not have yet (nor `own`, nor `taken`),
    /// read from disk; files that do not read as a family are left out (a save and the
    /// diagnostics of the next open report them).
    fn folder_families(
        &self,
        folder: &str,
        own: &[DocId],
        taken: &[(DocId, Option<DocValue>)],
    ) -> Vec<(DocId, Option<DocValue>)> {
        let sources = project_io::read_asset_folder(&self.dir, folder);
        let mut found = Vec::new();
        for (file, text) in &sources.files {
            let (doc, held) = match classify(file) {
                Some((DocKind::Family, id)) => {
                    let held = self.project.families.contains_key(&id);
                    (DocId::Family(id), held)
                }
                Some((DocKind::Motion, id)) => {
                    let held = self.project.motions.contains_key(&id);
                    (DocId::Motion(id), held)
                }
                _ => continue,
            };
            let known =
                held || own.contains(&doc) || taken.iter().chain(&found).any(|(d, _)| *d == doc);
            if known {
                continue;
            }
            if let Some(value) = read_asset(&doc, file, text) {
                found.push((doc, Some(value)));
            }
        }
        found
    }
}

/// The family or motion profile `doc` read from `file`, when it reads as one with that id.
fn read_asset(doc: &DocId, file: &str, text: &str) -> Option<DocValue> {
    match doc {
        DocId::Family(id) => {
            let (family, _, _) = read_document::<AssetFamily>(DocKind::Family, file, text);
            let family = family.filter(|f| f.id == *id)?;
            Some(DocValue::Family(family, file.to_owned()))
        }
        DocId::Motion(id) => {
            let (profile, _, _) = read_document::<MotionProfileDoc>(DocKind::Motion, file, text);
            let profile = profile.filter(|p| p.id == *id)?;
            Some(DocValue::Motion(profile, file.to_owned()))
        }
        _ => None,
    }
}

/// The manifest `edit` leaves, if it replaces the manifest.
fn manifest_after(edit: &ProjectEdit) -> Option<&Manifest> {
    match edit {
        ProjectEdit::Replace {
            doc: DocId::Manifest,
            value,
            ..
        } => match value.as_deref() {
            Some(DocValue::Manifest(manifest)) => Some(manifest),
            _ => None,
        },
        ProjectEdit::Replace { .. } => None,
        ProjectEdit::Batch { edits, .. } => edits.iter().rev().find_map(manifest_after),
    }
}

/// The manifest's asset folders, each in its one spelling.
fn folders(manifest: &Manifest) -> BTreeSet<String> {
    manifest
        .asset_paths
        .iter()
        .map(|path| normal_asset_path(path))
        .collect()
}

/// Whether family file `file` lies directly in asset folder `folder`.
fn inside(file: &str, folder: &str) -> bool {
    file.rsplit_once('/')
        .is_some_and(|(parent, _)| normal_asset_path(parent) == folder)
}
