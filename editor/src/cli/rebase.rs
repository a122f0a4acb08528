//! `stagecraft rebase`: where each author override and world mutation stands against the project's
//! generation at a seed (the manifest's, or `--seed`): applies, orphaned or conflict, with the
//! reason. With `--write` it rebases every set of the recipe to that seed: edits that apply are
//! kept (recording their targets' new base revisions), orphans are dropped, and a conflict stops
//! it with nothing written (those need a decision per edit, as the editor's rebase dialog asks).
//! `--write --materialize` turns every lock, transform lock, move and freeze that does not apply
//! into an authored object at its recorded transform (`Decision::Materialize`) instead.
//! `--write --retarget EDIT=ID` points one edit at another object of its stage (of the child run
//! its `nested` path reaches, for an edit inside a subrecipe); a re-target that cannot be made is
//! a located error at the edit's `target` ([`super::rebase_retarget`]).
//!
//! The report comes from `authoring::rebase::report_of_plan` (the runtime's
//! `overrides::rebase_report`, the same function the editor's Rebase dialog calls) and the new sets
//! from `overrides::rebase`; this module only reads, prints and writes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use stagecraft_runtime::overrides::rebase_nested::stage_path_text;
use stagecraft_runtime::overrides::{
    rebase, Decision, EditRef, Overrides, RebaseError, RebaseReport, Standing,
};
use stagecraft_runtime::project::{canonical_text, has_errors, overrides_file, OverrideSet};
use stagecraft_runtime::recipe::compile_project_recipe;

use super::error::CliError;
use super::identity::identity_text;
use super::rebase_retarget::{add_retargets, parse_retarget, refused, unknown_retarget};
use crate::authoring::rebase::report_of_plan;
use crate::project_io::atomic_write;

/// Options of `stagecraft rebase`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RebaseOptions<'a> {
    /// Only this recipe (default: every recipe that has override sets).
    pub recipe: Option<&'a str>,
    /// The seed to rebase to (default: the manifest's).
    pub seed: Option<u64>,
    /// JSON on stdout.
    pub json: bool,
    /// Write the rebased sets (keep what applies, drop orphans; refused on any conflict).
    pub write: bool,
    /// With `write`: materialize every lock, transform lock, move and freeze that does not apply
    /// as written (`Decision::Materialize`) instead of dropping or refusing it.
    pub materialize: bool,
    /// With `write`: `EDIT=ID` re-targets (`Decision::Retarget`).
    pub retarget: &'a [String],
}

/// `stagecraft rebase`: exit 0 after a report (or a write), 1 on project or generation errors or
/// when `--write` meets a conflict.
pub fn rebase_command(
    project: &Path,
    options: &RebaseOptions<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let registry = super::registry(None);
    let (sources, loaded) = super::load_with(project, &registry)?;
    let Some(doc) = loaded
        .project
        .as_ref()
        .filter(|_| !has_errors(&loaded.diagnostics))
    else {
        let message = format!(
            "{}: the project has errors; nothing rebased",
            project.display()
        );
        let error = CliError::new(1, "project_errors", message)
            .with_diagnostics(&loaded.diagnostics, &sources);
        return Err(error.into());
    };
    let seed = options.seed.unwrap_or(doc.manifest.root_seed);
    let retargets = options
        .retarget
        .iter()
        .map(|text| parse_retarget(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|why| CliError::new(2, "usage", why))?;
    let recipes: Vec<&String> = doc
        .recipes
        .keys()
        .filter(|id| options.recipe.is_none_or(|only| only == id.as_str()))
        .filter(|id| doc.overrides.values().any(|set| &set.recipe == *id))
        .collect();
    let mut reports = Vec::new();
    let mut written = Vec::new();
    let mut conflicts = Vec::new();
    for id in recipes {
        let Some(plan) = compile_project_recipe(&loaded, id, &registry).and_then(|o| o.plan) else {
            anyhow::bail!("recipe `{id}` does not compile");
        };
        let sets: Vec<OverrideSet> = Overrides::of_recipe(doc, id).sets().to_vec();
        // The same report the editor's Rebase dialog shows (one function makes both).
        let report = report_of_plan(&plan, &sets, seed).map_err(|e| anyhow::anyhow!(e))?;
        reports.push(report);
    }
    if let Some(why) = unknown_retarget(&reports, &retargets) {
        return Err(CliError::new(2, "usage", why).into());
    }
    for report in reports.iter().filter(|_| options.write) {
        let sets: Vec<OverrideSet> = Overrides::of_recipe(doc, &report.recipe).sets().to_vec();
        let mut decisions = cli_decisions(report, options.materialize);
        add_retargets(&mut decisions, report, &retargets);
        let refuse = |e: &RebaseError| refused(e, &loaded, &sources);
        match write_sets(project, &sets, report, &decisions, &refuse)? {
            Ok(files) => written.extend(files),
            Err(conflict) => conflicts.push(conflict),
        }
    }
    let exit = i32::from(!conflicts.is_empty());
    if options.json {
        let json: Vec<serde_json::Value> = reports.iter().map(report_json).collect();
        let document = serde_json::json!({
            "project": project.display().to_string(),
            "seed": seed,
            "write": options.write,
            "recipes": json,
            "written": written,
            "refused": conflicts,
        });
        super::json_out::write_document(out, "rebase", &document)?;
        return Ok(exit);
    }
    for file in &written {
        writeln!(out, "rebased {file} to seed {seed}")?;
    }
    for report in &reports {
        write!(out, "{}", report_text(report))?;
    }
    if !conflicts.is_empty() {
        return Err(CliError::new(1, "rebase_conflict", conflicts.join("\n")).into());
    }
    Ok(exit)
}

/// Writes each set rebased with `decisions` and returns the files written; refuses (writing
/// nothing) on a conflict left, saying why, or with `refuse`'s located error when a decision
/// cannot be made.
fn write_sets(
    project: &Path,
    sets: &[OverrideSet],
    report: &RebaseReport,
    decisions: &BTreeMap<EditRef, Decision>,
    refuse: &dyn Fn(&RebaseError) -> CliError,
) -> anyhow::Result<Result<Vec<String>, String>> {
    let conflicts: Vec<_> = report
        .entries
        .iter()
        .filter(|e| !decisions.contains_key(&e.edit))
        .collect();
    if !conflicts.is_empty() {
        return Ok(Err(format!(
            "recipe {}: {} edits conflict and need a decision; nothing written",
            report.recipe,
            conflicts.len()
        )));
    }
    let mut texts = Vec::new();
    for set in sets {
        let next = rebase(set, report, decisions).map_err(|e| refuse(&e))?;
        texts.push((overrides_file(&set.id), canonical_text(&next)));
    }
    let mut written = Vec::new();
    for (file, text) in texts {
        let path = project.join(&file);
        atomic_write(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(file);
    }
    Ok(Ok(written))
}

/// The decision of every entry `--write` decides: keep what applies, drop orphans, and, with
/// `materialize`, materialize every lock, transform lock, move and freeze that does not apply
/// (orphaned or in conflict). Conflicts of other edits are left undecided.
pub fn cli_decisions(report: &RebaseReport, materialize: bool) -> BTreeMap<EditRef, Decision> {
    let materializable = |action: &str| {
        matches!(
            action,
            "LockSelection" | "LockTransform" | "Move" | "FreezeSubtree"
        )
    };
    report
        .entries
        .iter()
        .filter_map(|e| {
            let decision = match &e.standing {
                Standing::Applies => Decision::Keep,
                _ if materialize && materializable(e.action) => Decision::Materialize,
                Standing::Orphaned => Decision::Drop,
                Standing::Conflict(_) => return None,
            };
            Some((e.edit.clone(), decision))
        })
        .collect()
}

fn report_text(report: &RebaseReport) -> String {
    let mut text = format!(
        "recipe {} at seed {}: {} apply, {} orphaned, {} conflict\n",
        report.recipe,
        report.seed,
        report.count("applies"),
        report.count("orphaned"),
        report.count("conflict")
    );
    for entry in &report.entries {
        let detail = match &entry.standing {
            Standing::Applies => "applies".to_owned(),
            Standing::Orphaned => "orphaned".to_owned(),
            Standing::Conflict(reason) => format!("conflict ({}): {reason}", reason.name()),
        };
        text.push_str(&format!(
            "  {} {} {} (stage {}): {detail}\n",
            entry.edit,
            entry.action,
            identity_text(entry.target),
            stage_path_text(entry.stage, &entry.nested)
        ));
    }
    text
}

fn report_json(report: &RebaseReport) -> serde_json::Value {
    serde_json::json!({
        "recipe": report.recipe,
        "seed": report.seed,
        "base_revision": report.base_revision,
        "applies": report.count("applies"),
        "orphaned": report.count("orphaned"),
        "conflict": report.count("conflict"),
        "entries": report.entries.iter().map(|e| serde_json::json!({
            "edit": e.edit.to_string(),
            "stage": e.stage,
            "nested": e.nested,
            "target": identity_text(e.target),
            "action": e.action,
            "standing": e.standing.name(),
            "reason": match &e.standing {
                Standing::Conflict(reason) => Some(reason.name()),
                _ => None,
            },
            "found_base": e.found_base,
        })).collect::<Vec<_>>(),
    })
}
