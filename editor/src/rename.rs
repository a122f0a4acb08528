//! Renaming a recipe, a scenario or an override set: its id (which is its file name), its entry
//! in the manifest and every document that names it, as one [`ProjectEdit`] (one undo step).
//!
//! What names what: the manifest lists every id; a scenario names its recipe (`recipe:`), and so
//! does an override set. Nothing names a scenario or an override set but the manifest. Generated
//! identities and override targets never contain a recipe id, so a rename changes no generated
//! object. The old file is removed by the next save ([`crate::document::Document::dropped_files`]).

use stagecraft_runtime::project::names::{id_problem, ID_EXPECTED};
use stagecraft_runtime::project::{Manifest, Project};

use crate::edits::{get_doc, DocId, DocValue, ProjectEdit, Selection};

/// Why a rename is refused; its text says what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenameRefusal {
    /// Only recipes, scenarios and override sets are renamed here.
    NotRenamable(String),
    /// The document is not in the project.
    Missing(String),
    /// The new id is the old one.
    Unchanged,
    /// The new id cannot name a file.
    BadId {
        /// The id typed.
        id: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A document of the same kind (or a file of that name) exists already.
    Clash {
        /// The document that would be overwritten, as a label (`recipe street-block`).
        existing: String,
        /// Its file.
        file: String,
    },
}

impl std::fmt::Display for RenameRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenameRefusal::NotRenamable(what) => write!(
                f,
                "{what} cannot be renamed here; recipes, scenarios and override sets can"
            ),
            RenameRefusal::Missing(what) => write!(f, "the project has no {what}"),
            RenameRefusal::Unchanged => write!(f, "type a new name"),
            RenameRefusal::BadId { id, problem } => {
                write!(
                    f,
                    "`{id}` cannot be an id: {problem}; expected {ID_EXPECTED}"
                )
            }
            RenameRefusal::Clash { existing, file } => write!(
                f,
                "the project already has {existing} ({file}); choose another name"
            ),
        }
    }
}

/// The one edit that renames `doc` to `new_id` in `project` and updates every reference to it.
/// `files` are the project's files on disk (a name taken by a file the editor could not read is
/// refused too, so a rename never overwrites it).
pub fn rename_edit<'a>(
    project: &Project,
    files: impl IntoIterator<Item = &'a String>,
    doc: &DocId,
    new_id: &str,
) -> Result<ProjectEdit, RenameRefusal> {
    let new_id = new_id.trim();
    let new_doc = renamed(doc, new_id).ok_or_else(|| RenameRefusal::NotRenamable(doc.label()))?;
    let mut value = get_doc(project, doc).ok_or_else(|| RenameRefusal::Missing(doc.label()))?;
    if new_doc == *doc {
        return Err(RenameRefusal::Unchanged);
    }
    if let Some(problem) = id_problem(new_id) {
        return Err(RenameRefusal::BadId {
            id: new_id.to_owned(),
            problem,
        });
    }
    let file = new_doc.file(project).unwrap_or_default();
    let on_disk = files.into_iter().any(|path| *path == file);
    if get_doc(project, &new_doc).is_some() || on_disk {
        return Err(RenameRefusal::Clash {
            existing: new_doc.label(),
            file,
        });
    }
    set_id(&mut value, new_id);
    let old_selection = Selection::doc(doc.clone());
    let selection = Selection::doc(new_doc.clone());
    let mut edits = vec![
        // First: undo restores the selection of the batch's first edit, the old name.
        ProjectEdit::replace(doc.clone(), None, old_selection, ""),
        ProjectEdit::replace(new_doc.clone(), Some(value), selection.clone(), ""),
        ProjectEdit::replace(
            DocId::Manifest,
            Some(DocValue::Manifest(renamed_manifest(
                &project.manifest,
                doc,
                new_id,
            ))),
            selection.clone(),
            "",
        ),
    ];
    if let DocId::Recipe(old) = doc {
        edits.extend(recipe_references(project, old, new_id, &selection));
    }
    Ok(ProjectEdit::Batch {
        edits,
        selection,
        label: format!("Rename {} to {new_id}", doc.label()),
    })
}

/// `doc` under the id `id`, for the kinds a rename applies to.
fn renamed(doc: &DocId, id: &str) -> Option<DocId> {
    match doc {
        DocId::Recipe(_) => Some(DocId::Recipe(id.to_owned())),
        DocId::Scenario(_) => Some(DocId::Scenario(id.to_owned())),
        DocId::Overrides(_) => Some(DocId::Overrides(id.to_owned())),
        DocId::Manifest | DocId::Family(_) | DocId::Motion(_) => None,
    }
}

fn set_id(value: &mut DocValue, id: &str) {
    match value {
        DocValue::Recipe(recipe) => recipe.id = id.to_owned(),
        DocValue::Scenario(scenario) => scenario.id = id.to_owned(),
        DocValue::Overrides(set) => set.id = id.to_owned(),
        DocValue::Manifest(_) | DocValue::Family(..) | DocValue::Motion(..) => {}
    }
}

/// The manifest with `doc`'s entry renamed in place (its order kept).
fn renamed_manifest(manifest: &Manifest, doc: &DocId, new_id: &str) -> Manifest {
    let mut next = manifest.clone();
    let (list, old) = match doc {
        DocId::Recipe(old) => (&mut next.recipes, old),
        DocId::Scenario(old) => (&mut next.scenarios, old),
        DocId::Overrides(old) => (&mut next.overrides, old),
        DocId::Manifest | DocId::Family(_) | DocId::Motion(_) => return next,
    };
    for entry in list.iter_mut().filter(|entry| *entry == old) {
        *entry = new_id.to_owned();
    }
    next
}

/// The scenarios and override sets naming recipe `old`, each naming `new_id` instead.
fn recipe_references(
    project: &Project,
    old: &str,
    new_id: &str,
    selection: &Selection,
) -> Vec<ProjectEdit> {
    let mut edits = Vec::new();
    for (id, scenario) in project.scenarios.iter().filter(|(_, s)| s.recipe == old) {
        let mut next = scenario.clone();
        next.recipe = new_id.to_owned();
        edits.push(ProjectEdit::replace(
            DocId::Scenario(id.clone()),
            Some(DocValue::Scenario(next)),
            selection.clone(),
            "",
        ));
    }
    for (id, set) in project.overrides.iter().filter(|(_, s)| s.recipe == old) {
        let mut next = set.clone();
        next.recipe = new_id.to_owned();
        edits.push(ProjectEdit::replace(
            DocId::Overrides(id.clone()),
            Some(DocValue::Overrides(next)),
            selection.clone(),
            "",
        ));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::{OverrideSet, Recipe, Scenario};
    use undo::Record;

    fn project() -> Project {
        let mut project = Project::default();
        project.manifest.recipes = vec!["a".into(), "b".into()];
        project.manifest.scenarios = vec!["s".into()];
        project.manifest.overrides = vec!["o".into()];
        for id in ["a", "b"] {
            let recipe = Recipe {
                id: id.into(),
                ..Recipe::default()
            };
            project.recipes.insert(id.into(), recipe);
        }
        let scenario = Scenario {
            id: "s".into(),
            recipe: "a".into(),
            ..Scenario::default()
        };
        project.scenarios.insert("s".into(), scenario);
        let set = OverrideSet {
            id: "o".into(),
            recipe: "a".into(),
            ..OverrideSet::default()
        };
        project.overrides.insert("o".into(), set);
        project
    }

    #[test]
    fn a_recipe_rename_updates_every_reference_and_undoes_in_one_step() {
        let mut project = project();
        let before = project.clone();
        let edit = rename_edit(&project, &[], &DocId::Recipe("a".into()), " c ").expect("renames");
        assert_eq!(edit.label(), "Rename recipe a to c");
        let mut record = Record::new();
        let selection = record.edit(&mut project, edit);
        assert_eq!(selection, Selection::doc(DocId::Recipe("c".into())));
        assert_eq!(
            project.manifest.recipes,
            vec!["c".to_owned(), "b".to_owned()]
        );
        assert_eq!(project.recipes.keys().collect::<Vec<_>>(), vec!["b", "c"]);
        assert_eq!(project.recipes["c"].id, "c");
        assert_eq!(project.scenarios["s"].recipe, "c");
        assert_eq!(project.overrides["o"].recipe, "c");
        let selection = record.undo(&mut project);
        assert_eq!(project, before);
        assert_eq!(selection, Some(Selection::doc(DocId::Recipe("a".into()))));
        assert_eq!(record.len(), 1);
    }

    #[test]
    fn scenarios_and_override_sets_rename_with_their_manifest_entry() {
        let mut project = project();
        let edit = rename_edit(&project, &[], &DocId::Scenario("s".into()), "t").expect("renames");
        Record::new().edit(&mut project, edit);
        assert_eq!(project.manifest.scenarios, vec!["t".to_owned()]);
        assert_eq!(project.scenarios["t"].id, "t");
        assert_eq!(project.scenarios["t"].recipe, "a");
        let edit = rename_edit(&project, &[], &DocId::Overrides("o".into()), "p").expect("renames");
        Record::new().edit(&mut project, edit);
        assert_eq!(project.manifest.overrides, vec!["p".to_owned()]);
        assert_eq!(project.overrides["p"].id, "p");
    }

    #[test]
    fn clashes_bad_ids_and_other_kinds_are_refused_with_a_reason() {
        let project = project();
        let a = DocId::Recipe("a".into());
        let clash = rename_edit(&project, &[], &a, "b").expect_err("b exists");
        assert_eq!(
            clash.to_string(),
            "the project already has recipe b (recipes/b.recipe.ron); choose another name"
        );
        let unreadable = ["recipes/x.recipe.ron".to_owned()];
        assert!(matches!(
            rename_edit(&project, &unreadable, &a, "x"),
            Err(RenameRefusal::Clash { .. })
        ));
        assert!(matches!(
            rename_edit(&project, &[], &a, "../x"),
            Err(RenameRefusal::BadId { .. })
        ));
        assert_eq!(
            rename_edit(&project, &[], &a, "a"),
            Err(RenameRefusal::Unchanged)
        );
        assert!(matches!(
            rename_edit(&project, &[], &DocId::Manifest, "m"),
            Err(RenameRefusal::NotRenamable(_))
        ));
        assert!(matches!(
            rename_edit(&project, &[], &DocId::Recipe("zz".into()), "m"),
            Err(RenameRefusal::Missing(_))
        ));
    }
}
