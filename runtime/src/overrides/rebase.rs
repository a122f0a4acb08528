//! Rebase: after a seed, parameter or family change, which edits still apply, which are orphaned
//! and which conflict — and, from one decision per edit (keep, drop, re-target, materialize), the
//! new set.
//!
//! The report is read off a generation with [`super::Overrides::preview`], which evaluates every
//! set as if bound to the generation's seed, so it says what each edit would do after a rebase;
//! nothing of that generation is published. [`rebase`] is a pure function of the old set, the
//! report and the decisions: kept and re-targeted edits record their target's base revision in
//! the new base, and the set is bound to the report's seed. A seed change never reapplies an edit
//! by itself: it takes this explicit step.

use std::collections::BTreeMap;

use thiserror::Error;

use super::base::StageBase;
use super::rebase_nested::{nested_bases, stage_path_text, NestedStageBase};
use super::{ConflictReason, EditList, EditOutcome, EditRef};
use crate::generate::GeneratedBundle;
use crate::identity::{identity_text, ScatterId};
use crate::project::schema::{OverrideAction, OverrideSet};

/// Where an edit stands against the new base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// It would apply as written.
    Applies,
    /// Its target is not in the new base (after a seed change: the identity names another
    /// object, so the edit's object is gone).
    Orphaned,
    /// It would not apply, for this reason.
    Conflict(ConflictReason),
}

impl Standing {
    /// The standing's stable name.
    pub fn name(&self) -> &'static str {
        match self {
            Standing::Applies => "applies",
            Standing::Orphaned => "orphaned",
            Standing::Conflict(_) => "conflict",
        }
    }
}

/// One edit in a rebase report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebaseEntry {
    /// The edit.
    pub edit: EditRef,
    /// The stage it names.
    pub stage: u32,
    /// Its `nested` path below that stage (empty for an edit of the recipe's own stage).
    pub nested: Vec<u32>,
    /// Its target.
    pub target: u64,
    /// The action's name.
    pub action: &'static str,
    /// Where it stands.
    pub standing: Standing,
    /// The target's base revision in the new base, when it has a generated target there.
    pub found_base: Option<String>,
}

/// What a rebase against one generation would find, edit by edit (sets by id, overrides before
/// mutations, each in written order).
#[derive(Debug, Clone, PartialEq)]
pub struct RebaseReport {
    /// The recipe.
    pub recipe: String,
    /// The new base's root seed.
    pub seed: u64,
    /// Digest of the new generated base (without overrides), recorded as the sets' base revision.
    pub base_revision: String,
    /// What re-targeting needs to know of each scatter stage.
    pub stages: Vec<StageBase>,
    /// The same of each scatter stage of a subrecipe child run that edits name, by its path.
    pub nested_stages: Vec<NestedStageBase>,
    /// The edits.
    pub entries: Vec<RebaseEntry>,
}

impl RebaseReport {
    /// How many entries stand as `name` (`applies`, `orphaned`, `conflict`).
    pub fn count(&self, name: &str) -> usize {
        self.entries
            .iter()
            .filter(|e| e.standing.name() == name)
            .count()
    }
}

/// The report of `sets` against `preview`, a generation with [`super::Overrides::preview`] of
/// them; `base_revision` is the digest of the same generation without overrides.
pub fn rebase_report(
    sets: &[OverrideSet],
    preview: &GeneratedBundle,
    base_revision: &str,
) -> RebaseReport {
    let seed_of: BTreeMap<&str, Option<u64>> =
        sets.iter().map(|s| (s.id.as_str(), s.base_seed)).collect();
    let mut outcomes: Vec<&EditOutcome> = preview.edit_outcomes().collect();
    outcomes.sort_by(|a, b| a.edit.cmp(&b.edit));
    let entries = outcomes
        .into_iter()
        .map(|o| {
            let seed_changed = seed_of
                .get(o.edit.set.as_str())
                .is_some_and(|s| *s != Some(preview.root_seed));
            RebaseEntry {
                edit: o.edit.clone(),
                stage: o.stage,
                nested: nested_of(sets, &o.edit),
                target: o.target,
                action: o.action,
                standing: standing(&o.result, seed_changed),
                found_base: o.found_base.clone(),
            }
        })
        .collect();
    RebaseReport {
        recipe: preview.recipe_id.clone(),
        seed: preview.root_seed,
        base_revision: base_revision.to_owned(),
        stages: preview
            .stages
            .iter()
            .filter_map(|s| s.provenance.edit_base.clone())
            .collect(),
        nested_stages: nested_bases(preview),
        entries,
    }
}

/// The `nested` path of edit `at` of `sets` (empty when it has none or is not there).
fn nested_of(sets: &[OverrideSet], at: &EditRef) -> Vec<u32> {
    let Some(set) = sets.iter().find(|s| s.id == at.set) else {
        return Vec::new();
    };
    let nested = match at.list {
        EditList::Override => set.overrides.get(at.index).map(|o| &o.nested),
        EditList::Mutation => set.mutations.get(at.index).map(|m| &m.nested),
    };
    nested.cloned().unwrap_or_default()
}

fn standing(result: &Result<(), ConflictReason>, seed_changed: bool) -> Standing {
    match result {
        Ok(()) => Standing::Applies,
        Err(ConflictReason::TargetGone) => Standing::Orphaned,
        Err(ConflictReason::BaseRevisionMismatch { .. }) if seed_changed => Standing::Orphaned,
        Err(reason) => Standing::Conflict(reason.clone()),
    }
}

/// What the user decided for one edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Keep it, expecting its target's base revision in the new base.
    Keep,
    /// Remove it.
    Drop,
    /// Point it at another generated object (packed id) of the same stage.
    Retarget(u64),
    /// Turn the locked, moved or frozen generated object into an authored object: an `Add` of
    /// its recorded variant at its recorded position (and a `Rotate` of it when a rotation was
    /// recorded), with an identity of the authored space, so no later change of the generated
    /// base can take it away (see [`super::materialize`]).
    Materialize,
}

/// A rebase cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RebaseError {
    /// An edit that does not apply as written has no decision.
    #[error("{0} does not apply as written and needs a decision (keep, drop or re-target)")]
    Undecided(EditRef),
    /// A kept edit's target has no base in the new generation.
    #[error("{0} cannot be kept: its target has no base in the new generation")]
    NoBase(EditRef),
    /// A materialize cannot be made from what the set records.
    #[error("{edit} cannot be materialized: {why}")]
    CannotMaterialize {
        /// The edit.
        edit: EditRef,
        /// What is missing.
        why: String,
    },
    /// A re-target names an object that is not a candidate of the stage (or, for a nested
    /// edit, of the child run's stage its path ends at).
    #[error("{edit} cannot be re-targeted to {}: {why}", identity_text(*target))]
    BadRetarget {
        /// The edit.
        edit: EditRef,
        /// The new target.
        target: u64,
        /// Its stage.
        stage: u32,
        /// Its `nested` path below the stage.
        nested: Vec<u32>,
        /// Why not.
        why: String,
    },
}

/// The new version of `set` after a rebase to `report`'s base. Edits that apply as written keep
/// by default; every other edit needs a decision. Kept and re-targeted edits with a generated
/// target record the new base revision; a migrated `LockSelection(variant: "")` records the new
/// base's variant.
pub fn rebase(
    set: &OverrideSet,
    report: &RebaseReport,
    decisions: &BTreeMap<EditRef, Decision>,
) -> Result<OverrideSet, RebaseError> {
    let mut next = OverrideSet {
        base_seed: Some(report.seed),
        base_revision: report.base_revision.clone(),
        overrides: Vec::new(),
        mutations: Vec::new(),
        ..set.clone()
    };
    let mut authored = super::materialize::Authored::new(report);
    for (index, o) in set.overrides.iter().enumerate() {
        let at = EditRef {
            set: set.id.clone(),
            list: EditList::Override,
            index,
        };
        let entry = entry_of(report, &at);
        let targeted = !matches!(
            o.action,
            OverrideAction::Add { .. } | OverrideAction::Exclude { .. }
        );
        match decide(&at, entry, decisions)? {
            Decision::Drop => {}
            Decision::Keep => {
                let mut kept = o.clone();
                if targeted {
                    kept.base = entry
                        .and_then(|e| e.found_base.clone())
                        .ok_or_else(|| RebaseError::NoBase(at.clone()))?;
                    fill_variant(&mut kept.action, report, o.stage, &o.nested, o.target);
                }
                next.overrides.push(kept);
            }
            Decision::Retarget(target) => {
                let mut moved = o.clone();
                moved.target = target;
                if targeted {
                    moved.base = retarget_base(report, &at, o.stage, &o.nested, target)?;
                    fill_variant(&mut moved.action, report, o.stage, &o.nested, target);
                }
                next.overrides.push(moved);
            }
            Decision::Materialize => {
                let made = authored.materialize(set, index, &at)?;
                next.overrides.extend(made);
            }
        }
    }
    next.mutations = rebase_mutations(set, report, decisions)?;
    Ok(next)
}

/// The report's entry of edit `at`, if it has one.
fn entry_of<'r>(report: &'r RebaseReport, at: &EditRef) -> Option<&'r RebaseEntry> {
    report.entries.iter().find(|e| &e.edit == at)
}

/// The set's world mutations after the rebase: kept (with the new base revision), re-targeted
/// or dropped as decided; a mutation cannot be materialized.
fn rebase_mutations(
    set: &OverrideSet,
    report: &RebaseReport,
    decisions: &BTreeMap<EditRef, Decision>,
) -> Result<Vec<crate::project::schema::Mutation>, RebaseError> {
    let mut mutations = Vec::new();
    for (index, m) in set.mutations.iter().enumerate() {
        let at = EditRef {
            set: set.id.clone(),
            list: EditList::Mutation,
            index,
        };
        let entry = entry_of(report, &at);
        match decide(&at, entry, decisions)? {
            Decision::Drop => {}
            Decision::Keep => {
                let mut kept = m.clone();
                kept.base = entry
                    .and_then(|e| e.found_base.clone())
                    .ok_or_else(|| RebaseError::NoBase(at.clone()))?;
                mutations.push(kept);
            }
            Decision::Retarget(target) => {
                let mut moved = m.clone();
                moved.target = target;
                moved.base = retarget_base(report, &at, m.stage, &m.nested, target)?;
                mutations.push(moved);
            }
            Decision::Materialize => {
                return Err(RebaseError::CannotMaterialize {
                    edit: at,
                    why: "a world mutation is not an object to materialize".to_owned(),
                })
            }
        }
    }
    Ok(mutations)
}

fn decide(
    at: &EditRef,
    entry: Option<&RebaseEntry>,
    decisions: &BTreeMap<EditRef, Decision>,
) -> Result<Decision, RebaseError> {
    if let Some(decision) = decisions.get(at) {
        return Ok(*decision);
    }
    match entry.map(|e| &e.standing) {
        Some(Standing::Applies) => Ok(Decision::Keep),
        _ => Err(RebaseError::Undecided(at.clone())),
    }
}

pub(super) fn stage_base(report: &RebaseReport, stage: u32) -> Option<&StageBase> {
    report.stages.iter().find(|s| s.stage == stage)
}

/// The base of `stage` (a root stage) or of the child-run stage its `nested` path ends at.
pub(super) fn base_at<'r>(
    report: &'r RebaseReport,
    stage: u32,
    nested: &[u32],
) -> Option<&'r StageBase> {
    if nested.is_empty() {
        return stage_base(report, stage);
    }
    report
        .nested_stages
        .iter()
        .find(|n| n.stage == stage && n.nested == nested)
        .map(|n| &n.base)
}

/// The base revision of `target` for an edit re-targeted to it: read off the stage's base (a
/// nested edit's from the child run's stage its path ends at), as a kept edit's is.
fn retarget_base(
    report: &RebaseReport,
    at: &EditRef,
    stage: u32,
    nested: &[u32],
    target: u64,
) -> Result<String, RebaseError> {
    let place = stage_path_text(stage, nested);
    let bad = |why: String| RebaseError::BadRetarget {
        edit: at.clone(),
        target,
        stage,
        nested: nested.to_vec(),
        why,
    };
    let Some(base) = base_at(report, stage, nested) else {
        return Err(bad(format!(
            "stage {place} has no scatter candidates in the new generation (a re-target names a candidate of the scatter stage the edit's stage and `nested` path end at)"
        )));
    };
    let within = report
        .nested_stages
        .iter()
        .find(|n| n.stage == stage && n.nested == nested)
        .map(|n| format!(" (child run {})", n.instance))
        .unwrap_or_default();
    let not_candidate = || bad(format!("not a candidate of stage {place}{within}"));
    let id = ScatterId::from_bits(target).map_err(|_| not_candidate())?;
    if u32::from(id.unpack().candidate) >= base.candidates_per_cell {
        return Err(not_candidate());
    }
    base.revision(id).ok_or_else(not_candidate)
}

/// A migrated lock with no recorded variant records the new base's variant of its target.
fn fill_variant(
    action: &mut OverrideAction,
    report: &RebaseReport,
    stage: u32,
    nested: &[u32],
    target: u64,
) {
    let OverrideAction::LockSelection { variant } = action else {
        return;
    };
    if !variant.is_empty() {
        return;
    }
    let Some(base) = base_at(report, stage, nested) else {
        return;
    };
    let Some(c) = ScatterId::from_bits(target)
        .ok()
        .and_then(|id| base.candidate(id))
    else {
        return;
    };
    if let Some(id) = base.variant_ids.get(c.variant as usize) {
        *variant = id.clone();
    }
}
