//! Edits that stop applying, as located warnings: every override or world mutation that a
//! generation did not apply becomes a warning at its entry in its overrides file, naming why and
//! the rebase that decides it. `stagecraft check` reports them for the project's generation at
//! the manifest's seed ([`check_overrides`]); the editor's Diagnostics tab for its newest preview
//! ([`outcome_warnings`] over that generation's outcomes).
//!
//! A rebase that cannot be made is one located error too ([`rebase_error_diagnostic`]): at the
//! field of the edit the decision failed on (a re-target's `target`, a kept edit's `base`).
//!
//! A set bound to another seed than the generation's is already one warning at its `base_seed`
//! (`project::validate`), so its edits' `seed-not-bound` outcomes are not repeated here.

use std::collections::BTreeMap;

use super::{ConflictReason, EditList, EditOutcome, EditRef, Overrides, RebaseError};
use crate::generate::{CancelToken, ExecutionMode, GenerateRequest, Generator, NoObserver};
use crate::ops::registry::Registry;
use crate::project::node::{Locator, Node};
use crate::project::{overrides_file, Diagnostic, FieldPath, LoadedProject, Severity};
use crate::recipe::compile_project_recipe;

/// What a warning about an edit that does not apply says is expected of it.
pub const REBASE_HINT: &str = "an edit that applies: decide keep, drop, re-target or materialize with `stagecraft rebase PROJECT` (or Edit → Rebase overrides…)";

/// The warnings of `outcomes` (one per edit that was not applied, but for `seed-not-bound`),
/// each placed at the edit's entry of `overrides/<set>.overrides.ron` through the file's syntax
/// tree as `tree_of` gives it (line 1, column 1 without one). Sorted.
pub fn outcome_warnings<'a>(
    outcomes: impl IntoIterator<Item = &'a EditOutcome>,
    tree_of: &dyn Fn(&str) -> Option<&'a Node>,
) -> Vec<Diagnostic> {
    let mut locators: BTreeMap<String, Option<(Locator, &'a Node)>> = BTreeMap::new();
    let mut found = Vec::new();
    for outcome in outcomes {
        let Err(reason) = &outcome.result else {
            continue;
        };
        if matches!(reason, ConflictReason::SeedNotBound { .. }) {
            continue;
        }
        let file = overrides_file(&outcome.edit.set);
        let path = entry_path(&outcome.edit);
        let located = locators
            .entry(file.clone())
            .or_insert_with(|| tree_of(&file).map(|tree| (Locator::new(tree), tree)));
        let (line, column) = match located {
            Some((locator, tree)) => {
                let span = locator.deepest_at(tree, &path).span;
                (span.line, span.column)
            }
            None => (1, 1),
        };
        found.push(Diagnostic {
            severity: Severity::Warning,
            file,
            line,
            column,
            path,
            message: format!(
                "{} of {} (stage {}) does not apply ({}): {reason}",
                outcome.action,
                crate::identity::identity_text(outcome.target),
                outcome.stage,
                reason.name()
            ),
            expected: REBASE_HINT.to_owned(),
        });
    }
    found.sort();
    found
}

/// The warnings of every edit that the project's generation at the manifest's seed does not
/// apply: each recipe with edits is generated (serially) with its override sets. Recipes that do
/// not compile or fail to generate are skipped: their own diagnostics explain them.
pub fn check_overrides(loaded: &LoadedProject, registry: &Registry) -> Vec<Diagnostic> {
    let Some(project) = loaded.project.as_ref() else {
        return Vec::new();
    };
    let request = GenerateRequest {
        root_seed: project.manifest.root_seed,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let mut found = Vec::new();
    for id in project.recipes.keys() {
        let overrides = Overrides::of_recipe(project, id);
        if overrides.is_empty() {
            continue;
        }
        let Some(plan) = compile_project_recipe(loaded, id, registry).and_then(|o| o.plan) else {
            continue;
        };
        let generated = Generator::new().generate_with(
            &plan,
            &request,
            &overrides,
            &CancelToken::new(),
            &NoObserver,
        );
        if let Ok(generated) = generated {
            let tree_of = |file: &str| loaded.trees.get(file);
            found.extend(outcome_warnings(generated.bundle.edit_outcomes(), &tree_of));
        }
    }
    found.sort();
    found
}

/// The located error of a rebase that cannot be made: in `overrides/<set>.overrides.ron`, at the
/// `target` of an edit whose re-target names no candidate, the `base` of a kept edit with no base
/// in the new generation, the entry of any other; placed through the file's syntax tree as
/// `tree_of` gives it (line 1, column 1 without one).
pub fn rebase_error_diagnostic<'a>(
    error: &RebaseError,
    tree_of: &dyn Fn(&str) -> Option<&'a Node>,
) -> Diagnostic {
    let (edit, field, expected) = match error {
        RebaseError::BadRetarget {
            edit,
            stage,
            nested,
            ..
        } => (
            edit,
            Some("target"),
            format!(
                "the packed id of a candidate of stage {} in the new generation",
                super::rebase_nested::stage_path_text(*stage, nested)
            ),
        ),
        RebaseError::NoBase(edit) => (
            edit,
            Some("base"),
            "a target the new generation has (re-target or drop the edit)".to_owned(),
        ),
        RebaseError::Undecided(edit) | RebaseError::CannotMaterialize { edit, .. } => {
            (edit, None, REBASE_HINT.to_owned())
        }
    };
    let file = overrides_file(&edit.set);
    let mut path = entry_path(edit);
    if let Some(field) = field {
        path = path.field(field);
    }
    let (line, column) = match tree_of(&file) {
        Some(tree) => {
            let span = Locator::new(tree).deepest_at(tree, &path).span;
            (span.line, span.column)
        }
        None => (1, 1),
    };
    Diagnostic {
        severity: Severity::Error,
        file,
        line,
        column,
        path,
        message: error.to_string(),
        expected,
    }
}

/// The field path of edit `edit`'s entry in its set's file (`overrides[2]`, `mutations[0]`).
fn entry_path(edit: &EditRef) -> FieldPath {
    let list = match edit.list {
        EditList::Override => "overrides",
        EditList::Mutation => "mutations",
    };
    FieldPath::root().field(list).index(edit.index)
}
