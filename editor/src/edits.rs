//! The edit enum: every mutation of the project is one [`ProjectEdit`] value in one undo record.
//!
//! An edit replaces whole documents. The value an edit holds is swapped with the project's on
//! apply and again on undo, so applying, undoing and redoing are O(1) moves whatever the size of
//! the history, and the history holds exactly one copy of each state it can return to. Typing and
//! slider drags produce one edit per frame; edits that carry the same [`MergeKey`] for the same
//! document merge into the first one, which still holds the state before the gesture.

use stagecraft_runtime::project::{
    family_file, motion_file, overrides_file, recipe_file, scenario_file, AssetFamily, FieldPath,
    Manifest, MotionProfileDoc, OverrideSet, Project, Recipe, Scenario, MANIFEST_FILE,
};
use undo::{Edit, Merged};

/// One document of a project, named by kind and id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocId {
    /// `stagecraft.ron`.
    Manifest,
    /// `recipes/<id>.recipe.ron`.
    Recipe(String),
    /// `scenarios/<id>.scenario.ron`.
    Scenario(String),
    /// `overrides/<id>.overrides.ron`.
    Overrides(String),
    /// An asset family `<asset path>/<id>.family.ron`.
    Family(String),
    /// A motion profile `<asset path>/<id>.motion.ron`.
    Motion(String),
}

impl DocId {
    /// The document's file, relative to the project folder, or `None` for an asset family the
    /// project does not know the file of.
    pub fn file(&self, project: &Project) -> Option<String> {
        match self {
            DocId::Manifest => Some(MANIFEST_FILE.to_owned()),
            DocId::Recipe(id) => Some(recipe_file(id)),
            DocId::Scenario(id) => Some(scenario_file(id)),
            DocId::Overrides(id) => Some(overrides_file(id)),
            DocId::Family(id) => project.family_files.get(id).cloned(),
            DocId::Motion(id) => project.motion_files.get(id).cloned(),
        }
    }

    /// The document a project file holds, by its path.
    pub fn of_file(project: &Project, file: &str) -> Option<DocId> {
        use stagecraft_runtime::project::{classify, DocKind};
        let (kind, id) = classify(file)?;
        Some(match kind {
            DocKind::Manifest => DocId::Manifest,
            DocKind::Recipe => DocId::Recipe(id),
            DocKind::Scenario => DocId::Scenario(id),
            DocKind::Overrides => DocId::Overrides(id),
            DocKind::Family => {
                // A family is known by id; make sure the path is the one the project holds.
                let known = project.family_files.get(&id).map(String::as_str) == Some(file);
                if !known && project.families.contains_key(&id) {
                    return None;
                }
                DocId::Family(id)
            }
            DocKind::Motion => {
                // Known by id too; a second file of the same id is not this document.
                let known = project.motion_files.get(&id).map(String::as_str) == Some(file);
                if !known && project.motions.contains_key(&id) {
                    return None;
                }
                DocId::Motion(id)
            }
        })
    }

    /// A short label such as `recipe street-block`.
    pub fn label(&self) -> String {
        match self {
            DocId::Manifest => "manifest".to_owned(),
            DocId::Recipe(id) => format!("recipe {id}"),
            DocId::Scenario(id) => format!("scenario {id}"),
            DocId::Overrides(id) => format!("override set {id}"),
            DocId::Family(id) => format!("asset family {id}"),
            DocId::Motion(id) => format!("motion profile {id}"),
        }
    }
}

/// The value of one document.
// A scenario (with its population settings) is the largest variant; values live one or two per
// undo record, so boxing would only add an indirection to every match on them.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum DocValue {
    /// The manifest.
    Manifest(Manifest),
    /// A recipe.
    Recipe(Recipe),
    /// A scenario.
    Scenario(Scenario),
    /// An override set.
    Overrides(OverrideSet),
    /// An asset family and its file (relative to the project folder).
    Family(AssetFamily, String),
    /// A motion profile and its file (relative to the project folder).
    Motion(MotionProfileDoc, String),
}

/// What is selected: a document and a field path inside it (the root path selects the document).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selection {
    /// The selected document, if any.
    pub doc: Option<DocId>,
    /// The selected field inside the document.
    pub path: FieldPath,
}

impl Selection {
    /// The whole document `doc`.
    pub fn doc(doc: DocId) -> Self {
        Selection {
            doc: Some(doc),
            path: FieldPath::root(),
        }
    }

    /// The field `path` of document `doc`.
    pub fn field(doc: DocId, path: FieldPath) -> Self {
        Selection {
            doc: Some(doc),
            path,
        }
    }
}

/// Identifies one continuous gesture (a drag, or typing into one focused field).
///
/// Consecutive edits of the same document with equal keys merge into one undo step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MergeKey(pub u64);

/// Every mutation of the project the editor makes.
#[derive(Clone, Debug, PartialEq)]
pub enum ProjectEdit {
    /// Puts `value` in place of document `doc` (`None`: the document is absent).
    ///
    /// The project's previous value is swapped into the edit, so undo swaps it back.
    Replace {
        /// The document replaced.
        doc: DocId,
        /// The value to swap in; after applying, the value that was there before.
        value: Option<Box<DocValue>>,
        /// The selection the edit was made with; undo and redo restore it.
        selection: Selection,
        /// Set for edits from a continuous gesture, so the gesture is one undo step.
        merge: Option<MergeKey>,
        /// What the edit does, for the Edit menu ("Set fixed_step_s").
        label: String,
    },
    /// Several edits applied in order as one step and undone in reverse order.
    Batch {
        /// The edits.
        edits: Vec<ProjectEdit>,
        /// The selection to restore on undo and redo.
        selection: Selection,
        /// What the edits do together ("Reload from disk").
        label: String,
    },
}

impl ProjectEdit {
    /// An edit that replaces document `doc` by `value`, made with `selection`.
    pub fn replace(
        doc: DocId,
        value: Option<DocValue>,
        selection: Selection,
        label: impl Into<String>,
    ) -> Self {
        ProjectEdit::Replace {
            doc,
            value: value.map(Box::new),
            selection,
            merge: None,
            label: label.into(),
        }
    }

    /// This edit, merging with the previous one of the same gesture.
    pub fn merging(mut self, key: Option<MergeKey>) -> Self {
        if let ProjectEdit::Replace { merge, .. } = &mut self {
            *merge = key;
        }
        self
    }

    /// The selection the edit restores.
    pub fn selection(&self) -> &Selection {
        match self {
            ProjectEdit::Replace { selection, .. } | ProjectEdit::Batch { selection, .. } => {
                selection
            }
        }
    }

    /// The selection undo restores: a batch's first edit's when it names a document (a rename's
    /// first edit selects the old name, which the batch's own selection no longer names), else
    /// the edit's own selection.
    pub fn undo_selection(&self) -> &Selection {
        match self {
            ProjectEdit::Batch { edits, .. } => edits
                .first()
                .map(ProjectEdit::undo_selection)
                .filter(|selection| selection.doc.is_some())
                .unwrap_or(self.selection()),
            ProjectEdit::Replace { selection, .. } => selection,
        }
    }

    /// What the edit does.
    pub fn label(&self) -> &str {
        match self {
            ProjectEdit::Replace { label, .. } | ProjectEdit::Batch { label, .. } => label,
        }
    }

    /// The documents the edit touches, sorted.
    pub fn docs(&self) -> Vec<DocId> {
        let mut docs = Vec::new();
        self.collect_docs(&mut docs);
        docs.sort();
        docs.dedup();
        docs
    }

    fn collect_docs(&self, into: &mut Vec<DocId>) {
        match self {
            ProjectEdit::Replace { doc, .. } => into.push(doc.clone()),
            ProjectEdit::Batch { edits, .. } => {
                for edit in edits {
                    edit.collect_docs(into);
                }
            }
        }
    }

    /// Swaps the held values with the project's (its own inverse).
    fn swap(&mut self, project: &mut Project, forward: bool) {
        match self {
            ProjectEdit::Replace { doc, value, .. } => {
                let previous = take_doc(project, doc);
                if let Some(value) = value.take() {
                    put_doc(project, doc, *value);
                }
                *value = previous.map(Box::new);
            }
            ProjectEdit::Batch { edits, .. } => {
                if forward {
                    edits.iter_mut().for_each(|edit| edit.swap(project, true));
                } else {
                    edits
                        .iter_mut()
                        .rev()
                        .for_each(|edit| edit.swap(project, false));
                }
            }
        }
    }
}

impl std::fmt::Display for ProjectEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl Edit for ProjectEdit {
    type Target = Project;
    type Output = Selection;

    fn edit(&mut self, project: &mut Project) -> Selection {
        self.swap(project, true);
        self.selection().clone()
    }

    fn undo(&mut self, project: &mut Project) -> Selection {
        self.swap(project, false);
        self.undo_selection().clone()
    }

    fn merge(&mut self, other: Self) -> Merged<Self> {
        let same_gesture = match (&*self, &other) {
            (
                ProjectEdit::Replace {
                    doc: a,
                    merge: Some(ka),
                    ..
                },
                ProjectEdit::Replace {
                    doc: b,
                    merge: Some(kb),
                    ..
                },
            ) => a == b && ka == kb,
            _ => false,
        };
        if !same_gesture {
            return Merged::No(other);
        }
        // Keep our held value (the state before the gesture); take the later selection and label.
        if let (
            ProjectEdit::Replace {
                selection, label, ..
            },
            ProjectEdit::Replace {
                selection: later_selection,
                label: later_label,
                ..
            },
        ) = (self, other)
        {
            *selection = later_selection;
            *label = later_label;
        }
        Merged::Yes
    }
}

/// Removes document `doc` from the project, returning it.
pub fn take_doc(project: &mut Project, doc: &DocId) -> Option<DocValue> {
    match doc {
        DocId::Manifest => Some(DocValue::Manifest(std::mem::take(&mut project.manifest))),
        DocId::Recipe(id) => project.recipes.remove(id).map(DocValue::Recipe),
        DocId::Scenario(id) => project.scenarios.remove(id).map(DocValue::Scenario),
        DocId::Overrides(id) => project.overrides.remove(id).map(DocValue::Overrides),
        DocId::Family(id) => {
            let family = project.families.remove(id)?;
            let file = project
                .family_files
                .remove(id)
                .unwrap_or_else(|| family_file("assets", id));
            Some(DocValue::Family(family, file))
        }
        DocId::Motion(id) => {
            let profile = project.motions.remove(id)?;
            let file = project
                .motion_files
                .remove(id)
                .unwrap_or_else(|| motion_file("assets", id));
            Some(DocValue::Motion(profile, file))
        }
    }
}

/// A copy of document `doc`, if the project has it.
pub fn get_doc(project: &Project, doc: &DocId) -> Option<DocValue> {
    match doc {
        DocId::Manifest => Some(DocValue::Manifest(project.manifest.clone())),
        DocId::Recipe(id) => project.recipes.get(id).cloned().map(DocValue::Recipe),
        DocId::Scenario(id) => project.scenarios.get(id).cloned().map(DocValue::Scenario),
        DocId::Overrides(id) => project.overrides.get(id).cloned().map(DocValue::Overrides),
        DocId::Family(id) => {
            let family = project.families.get(id)?.clone();
            let file = project.family_files.get(id)?.clone();
            Some(DocValue::Family(family, file))
        }
        DocId::Motion(id) => {
            let profile = project.motions.get(id)?.clone();
            let file = project.motion_files.get(id)?.clone();
            Some(DocValue::Motion(profile, file))
        }
    }
}

/// Puts a document into the project under the key `doc` names (its file's id, which the value's
/// own `id` field should match; validation reports it when it does not).
fn put_doc(project: &mut Project, doc: &DocId, value: DocValue) {
    match (doc, value) {
        (DocId::Manifest, DocValue::Manifest(manifest)) => project.manifest = manifest,
        (DocId::Recipe(id), DocValue::Recipe(recipe)) => {
            project.recipes.insert(id.clone(), recipe);
        }
        (DocId::Scenario(id), DocValue::Scenario(scenario)) => {
            project.scenarios.insert(id.clone(), scenario);
        }
        (DocId::Overrides(id), DocValue::Overrides(set)) => {
            project.overrides.insert(id.clone(), set);
        }
        (DocId::Family(id), DocValue::Family(family, file)) => {
            project.family_files.insert(id.clone(), file);
            project.families.insert(id.clone(), family);
        }
        (DocId::Motion(id), DocValue::Motion(profile, file)) => {
            project.motion_files.insert(id.clone(), file);
            project.motions.insert(id.clone(), profile);
        }
        // A value of another kind than its id is a bug in whoever built the edit; dropping it
        // keeps the project consistent (the document is absent, which validation reports).
        _ => {}
    }
}

impl DocValue {
    /// The id of the document this value is.
    pub fn id(&self) -> DocId {
        match self {
            DocValue::Manifest(_) => DocId::Manifest,
            DocValue::Recipe(recipe) => DocId::Recipe(recipe.id.clone()),
            DocValue::Scenario(scenario) => DocId::Scenario(scenario.id.clone()),
            DocValue::Overrides(set) => DocId::Overrides(set.id.clone()),
            DocValue::Family(family, _) => DocId::Family(family.id.clone()),
            DocValue::Motion(profile, _) => DocId::Motion(profile.id.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use undo::Record;

    fn project() -> Project {
        let mut project = Project::default();
        project.manifest.name = "Test".into();
        project.recipes.insert(
            "a".into(),
            Recipe {
                id: "a".into(),
                label: "first".into(),
                ..Recipe::default()
            },
        );
        project
    }

    fn relabel(project: &Project, label: &str, merge: Option<u64>) -> ProjectEdit {
        let mut recipe = project.recipes["a"].clone();
        recipe.label = label.into();
        ProjectEdit::replace(
            DocId::Recipe("a".into()),
            Some(DocValue::Recipe(recipe)),
            Selection::field(DocId::Recipe("a".into()), FieldPath::root().field("label")),
            "Set label",
        )
        .merging(merge.map(MergeKey))
    }

    #[test]
    fn undo_and_redo_swap_documents() {
        let mut project = project();
        let mut record = Record::new();
        let edit = relabel(&project, "second", None);
        record.edit(&mut project, edit);
        assert_eq!(project.recipes["a"].label, "second");
        let selection = record.undo(&mut project);
        assert_eq!(project.recipes["a"].label, "first");
        assert_eq!(
            selection.and_then(|s| s.doc),
            Some(DocId::Recipe("a".into()))
        );
        record.redo(&mut project);
        assert_eq!(project.recipes["a"].label, "second");
    }

    #[test]
    fn one_gesture_is_one_step() {
        let mut project = project();
        let mut record = Record::new();
        for label in ["f", "fi", "fir", "firs"] {
            let edit = relabel(&project, label, Some(7));
            record.edit(&mut project, edit);
        }
        let edit = relabel(&project, "other", Some(8));
        record.edit(&mut project, edit);
        assert_eq!(record.len(), 2);
        record.undo(&mut project);
        assert_eq!(project.recipes["a"].label, "firs");
        record.undo(&mut project);
        assert_eq!(project.recipes["a"].label, "first");
    }

    #[test]
    fn batch_adds_and_removes_documents() {
        let mut project = project();
        let mut record = Record::new();
        let mut manifest = project.manifest.clone();
        manifest.recipes.push("b".into());
        let recipe = Recipe {
            id: "b".into(),
            ..Recipe::default()
        };
        let edit = ProjectEdit::Batch {
            edits: vec![
                ProjectEdit::replace(
                    DocId::Recipe("b".into()),
                    Some(DocValue::Recipe(recipe)),
                    Selection::default(),
                    "",
                ),
                ProjectEdit::replace(
                    DocId::Manifest,
                    Some(DocValue::Manifest(manifest)),
                    Selection::default(),
                    "",
                ),
            ],
            selection: Selection::doc(DocId::Recipe("b".into())),
            label: "New recipe".into(),
        };
        assert_eq!(
            edit.docs(),
            vec![DocId::Manifest, DocId::Recipe("b".into())]
        );
        record.edit(&mut project, edit);
        assert!(project.recipes.contains_key("b"));
        assert_eq!(project.manifest.recipes, vec!["b".to_owned()]);
        record.undo(&mut project);
        assert!(!project.recipes.contains_key("b"));
        assert!(project.manifest.recipes.is_empty());
    }
}
