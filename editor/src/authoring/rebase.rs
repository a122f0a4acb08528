//! Rebase as the editor and `stagecraft rebase` both run it: the runtime's report of a recipe's
//! override sets against its generation at a seed, and the one undoable edit that applies the
//! user's decisions through `overrides::rebase`.
//!
//! [`report_of_plan`] is the one way the report is made (the command line calls it on the saved
//! files, the Rebase dialog on the document as edited), so both give the same answer for the same
//! project and seed.

use std::collections::BTreeMap;

use stagecraft_runtime::generate::{
    CancelToken, ExecutionMode, GenerateRequest, Generator, NoObserver,
};
use stagecraft_runtime::overrides::diagnose::rebase_error_diagnostic;
use stagecraft_runtime::overrides::{
    rebase, rebase_report, Decision, EditRef, Overrides, RebaseError, RebaseReport, Standing,
};
use stagecraft_runtime::project::parse::parse;
use stagecraft_runtime::project::{canonical_text, overrides_file, Diagnostic};
use stagecraft_runtime::project::{OverrideSet, Project};
use stagecraft_runtime::recipe::CompiledPlan;

use crate::edits::{DocId, DocValue, ProjectEdit, Selection};

/// The rebase report of `sets` (a recipe's override sets) against `plan` generated with `seed`:
/// the base without overrides gives the new base revision, the generation with
/// `Overrides::preview` of the sets says where each edit stands.
pub fn report_of_plan(
    plan: &CompiledPlan,
    sets: &[OverrideSet],
    seed: u64,
) -> Result<RebaseReport, String> {
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let id = plan.recipe_id();
    let mut generator = Generator::new();
    let cancel = CancelToken::new();
    let base = generator
        .generate(plan, &request, &cancel, &NoObserver)
        .map_err(|e| format!("recipe `{id}`: {e}"))?;
    let preview = generator
        .generate_with(
            plan,
            &request,
            &Overrides::preview(sets.to_vec()),
            &cancel,
            &NoObserver,
        )
        .map_err(|e| format!("recipe `{id}`: {e}"))?;
    Ok(rebase_report(
        sets,
        &preview.bundle,
        &base.bundle.digest_hex(),
    ))
}

/// The report for `recipe` of `project` (the document as edited) at `seed`.
pub fn report(project: &Project, recipe: &str, seed: u64) -> Result<RebaseReport, String> {
    if !project.recipes.contains_key(recipe) {
        return Err(format!("the project has no recipe `{recipe}`"));
    }
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    // With the project's recipes, so a subrecipe stage compiles (and its child runs' edits
    // are reported and re-targeted) as in `stagecraft rebase`.
    let plan = crate::service::compile_recipe(project, recipe, &registry)
        .and_then(|outcome| outcome.plan)
        .ok_or_else(|| format!("recipe `{recipe}` does not compile; see Diagnostics"))?;
    let sets = Overrides::of_recipe(project, recipe).sets().to_vec();
    report_of_plan(&plan, &sets, seed)
}

/// The recipes of `project` that have override sets, sorted.
pub fn recipes_with_sets(project: &Project) -> Vec<String> {
    let mut recipes: Vec<String> = project
        .overrides
        .values()
        .map(|set| set.recipe.clone())
        .filter(|r| project.recipes.contains_key(r))
        .collect();
    recipes.sort();
    recipes.dedup();
    recipes
}

/// The decision an entry gets unless the user picks another: keep what applies, drop orphans;
/// a conflict has none (the user must decide).
pub fn default_decision(standing: &Standing) -> Option<Decision> {
    match standing {
        Standing::Applies => Some(Decision::Keep),
        Standing::Orphaned => Some(Decision::Drop),
        Standing::Conflict(_) => None,
    }
}

/// Where `error`, a refused rebase of `set`, is in the set's file as the editor writes it
/// (`canonical_text`): the runtime's located diagnostic, which `stagecraft rebase --write`
/// reports at the same field of the file it read.
pub fn located(set: &OverrideSet, error: &RebaseError) -> Diagnostic {
    let file = overrides_file(&set.id);
    let tree = parse(&canonical_text(set)).root;
    let tree_of = |name: &str| tree.as_ref().filter(|_| name == file);
    rebase_error_diagnostic(error, &tree_of)
}

/// A refused rebase as one line: `file:line:column path: message (expected …)` — the text the
/// Rebase dialog shows and `stagecraft rebase --write` prints as its error.
pub fn refusal_text(diagnostic: &Diagnostic) -> String {
    format!(
        "{}:{}:{} {}: {} (expected {})",
        diagnostic.file,
        diagnostic.line,
        diagnostic.column,
        diagnostic.path,
        diagnostic.message,
        diagnostic.expected
    )
}

/// The one undoable edit that rebases every set of the report's recipe in `project` with
/// `decisions` (entries without one take [`default_decision`]), or the first reason it cannot.
pub fn rebase_edit(
    project: &Project,
    report: &RebaseReport,
    decisions: &BTreeMap<EditRef, Decision>,
) -> Result<ProjectEdit, String> {
    let mut all = decisions.clone();
    for entry in &report.entries {
        if let Some(decision) = default_decision(&entry.standing) {
            all.entry(entry.edit.clone()).or_insert(decision);
        }
    }
    let mut edits = Vec::new();
    for set in project
        .overrides
        .values()
        .filter(|set| set.recipe == report.recipe)
    {
        let next = rebase(set, report, &all).map_err(|e| refusal_text(&located(set, &e)))?;
        let doc = DocId::Overrides(set.id.clone());
        edits.push(ProjectEdit::replace(
            doc.clone(),
            Some(DocValue::Overrides(next)),
            Selection::doc(doc),
            "",
        ));
    }
    if edits.is_empty() {
        return Err(format!("recipe `{}` has no override sets", report.recipe));
    }
    let selection = edits[0].selection().clone();
    Ok(ProjectEdit::Batch {
        edits,
        selection,
        label: format!("Rebase {} to seed {}", report.recipe, report.seed),
    })
}

/// A packed identity typed as decimal or `0x…` hex (underscores allowed).
pub fn parse_id(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}
