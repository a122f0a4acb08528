//! The executor's side of overrides: which edits enter a stage's cache key, and running a stage's
//! kernel with them (exclusions before, occupants, tombstones and mutations after).

use super::{apply_placed, apply_scatter, exclusions_lattice, ConflictReason, EditOutcome};
use super::{Overrides, StageBase, StageEdits};
use crate::content::{Product, ProductKind, StageProvenance};
use crate::ops::registry::{KernelContext, StageError, StageInputs, StageOutput, StageParams};
use crate::recipe::{CompiledStage, InputSource};

/// The stage whose edits a stage applies: its own for a scatter stage, its placements stage's for
/// select-and-place (which keeps their transforms), its own otherwise (reported as unsupported).
fn edited_stage(stage: &CompiledStage) -> u32 {
    if stage.output() == ProductKind::PlacedObjects && stage.subrecipe().is_none() {
        if let Some(id) = stage.inputs().iter().find_map(|b| match b.source {
            InputSource::Stage(id) => Some(id),
            InputSource::Family { .. } | InputSource::Outer { .. } => None,
        }) {
            return id;
        }
    }
    stage.id()
}

/// The edits that decide `stage`'s product, for its cache key; `None` when there are none. A
/// subrecipe stage's are every edit naming it or an object of its child runs.
pub fn key_digest(overrides: &Overrides, stage: &CompiledStage, seed: u64) -> Option<[u8; 32]> {
    let edits = match stage.subrecipe() {
        Some(_) => overrides.for_subtree(stage.id(), seed),
        None => overrides.for_stage(edited_stage(stage), seed),
    };
    (!edits.is_empty()).then(|| edits.digest())
}

/// The edits digest `stage`'s own provenance records when it runs under `overrides` — what the
/// bundle digest reads of it: the digest of the edits naming it, or `None` when none do or when
/// it only reads an edited stage (select-and-place, whose edits are its placements stage's). A
/// stage served from a cache that keeps no provenance gets this digest back without running.
pub fn provenance_edits_digest(
    overrides: &Overrides,
    stage: &CompiledStage,
    seed: u64,
) -> Option<[u8; 32]> {
    if stage.output() == ProductKind::PlacedObjects && stage.subrecipe().is_none() {
        return None;
    }
    key_digest(overrides, stage, seed)
}

/// The outcomes of the edits of subrecipe stage `stage` and their digest (its key's); `None`
/// when none names it. An edit naming the stage itself is `unsupported-stage` (it has no objects
/// of its own); one naming an object of its child run (a `nested` path) was applied there, and
/// its outcome, read from the child run's stages in `nested`, is reported here, as this stage's;
/// one whose path reaches no stage that applies edits is `unsupported-stage` too.
pub fn subrecipe_edits(
    overrides: &Overrides,
    stage: &CompiledStage,
    seed: u64,
    nested: Option<&crate::content::NestedRun>,
) -> Option<(Vec<EditOutcome>, [u8; 32])> {
    let edits = overrides.for_subtree(stage.id(), seed);
    if edits.is_empty() {
        return None;
    }
    let mut outcomes: Vec<EditOutcome> = nested
        .into_iter()
        .flat_map(|run| run.stages.iter())
        .flat_map(|child| child.provenance.edits.iter())
        .map(|outcome| EditOutcome {
            stage: stage.id(),
            ..outcome.clone()
        })
        .collect();
    let unapplied = StageEdits {
        edits: edits
            .edits
            .iter()
            .filter(|(at, _, _)| !outcomes.iter().any(|o| o.edit == *at))
            .cloned()
            .collect(),
    };
    outcomes.extend(unsupported(&unapplied, stage.id()));
    outcomes.sort_by(|a, b| a.edit.cmp(&b.edit));
    Some((outcomes, edits.digest()))
}

/// Runs `stage`'s kernel with the edits naming it. `upstream` gives the provenance of a finished
/// stage (for select-and-place, the outcomes of its placements stage).
pub fn run_kernel<'a>(
    stage: &CompiledStage,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
    overrides: &Overrides,
    upstream: &dyn Fn(u32) -> Option<&'a StageProvenance>,
) -> Result<StageOutput, StageError> {
    run_kernel_with(
        stage,
        inputs,
        context,
        overrides,
        upstream,
        &stage.operator().kernel,
    )
}

/// The kernel a stage's edits wrap: the operator's, or a scatter kernel fed by tiles.
pub type WrappedKernel<'k> = dyn Fn(&StageParams, &StageInputs<'_>, &KernelContext<'_>) -> Result<StageOutput, StageError>
    + 'k;

/// The parameters `stage`'s kernel runs with under `overrides` at `seed`: a scatter stage's
/// keep-outs followed by its edits' exclusions, any other stage's own.
pub fn kernel_params(stage: &CompiledStage, overrides: &Overrides, seed: u64) -> StageParams {
    let edits = overrides.for_stage(edited_stage(stage), seed);
    match (stage.output(), stage.params()) {
        (ProductKind::Placements, StageParams::Scatter(p)) if !edits.is_empty() => {
            let mut params = p.clone();
            params
                .keep_outs
                .extend(exclusions_lattice(&edits, p.lattice_unit_m));
            StageParams::Scatter(params)
        }
        (_, params) => params.clone(),
    }
}

/// [`run_kernel`] with `kernel` in place of the operator's kernel.
pub fn run_kernel_with<'a>(
    stage: &CompiledStage,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
    overrides: &Overrides,
    upstream: &dyn Fn(u32) -> Option<&'a StageProvenance>,
    kernel: &WrappedKernel<'_>,
) -> Result<StageOutput, StageError> {
    let edited = edited_stage(stage);
    let edits = overrides.for_stage(edited, context.seed);
    if edits.is_empty() {
        return kernel(stage.params(), inputs, context);
    }
    match (stage.output(), stage.params()) {
        (ProductKind::Placements, StageParams::Scatter(p)) => {
            let params = kernel_params(stage, overrides, context.seed);
            let mut output = kernel(&params, inputs, context)?;
            let family = inputs.family("family")?;
            let base = StageBase::new(
                stage.id(),
                context.seed,
                family,
                p.cell_size,
                p.candidates_per_cell,
                p.lattice_unit_m,
            );
            if let Product::Placements(product) = &mut output.product {
                output.provenance.edits = apply_scatter(product, &base, &edits);
            }
            output.provenance.edits_digest = Some(edits.digest());
            output.provenance.edit_base = Some(base);
            Ok(output)
        }
        (ProductKind::AssemblyPlan, _) => {
            let mut output = kernel(stage.params(), inputs, context)?;
            let family = inputs.family("modules")?;
            if let Product::AssemblyPlan(plan) = &mut output.product {
                output.provenance.edits =
                    super::assembly::apply_assembly(plan, family, &edits, stage.id(), context.seed);
                retain_placed(&mut output.provenance, plan);
            }
            output.provenance.edits_digest = Some(edits.digest());
            Ok(output)
        }
        (ProductKind::PlacedObjects, _) => {
            let mut output = kernel(stage.params(), inputs, context)?;
            let outcomes: &[EditOutcome] = upstream(edited).map_or(&[], |p| p.edits.as_slice());
            if let Product::PlacedObjects(product) = &mut output.product {
                apply_placed(product, &edits, outcomes);
            }
            Ok(output)
        }
        _ => {
            let mut output = kernel(stage.params(), inputs, context)?;
            output.provenance.edits = unsupported(&edits, stage.id());
            output.provenance.edits_digest = Some(edits.digest());
            Ok(output)
        }
    }
}

/// Keeps the provenance of the modules still placed, with their variants after the edits.
fn retain_placed(provenance: &mut StageProvenance, plan: &crate::content::AssemblyPlan) {
    provenance.objects.retain(|object| match &object.key {
        crate::identity::ChildKey::Scatter(id) => plan.position_of(id.bits()).is_some(),
        _ => true,
    });
    for object in &mut provenance.objects {
        if let crate::identity::ChildKey::Scatter(id) = &object.key {
            object.variant = plan.module(id.bits()).map(|m| m.variant);
        }
    }
}

fn unsupported(edits: &StageEdits, stage: u32) -> Vec<EditOutcome> {
    edits
        .edits
        .iter()
        .map(|(at, edit, _)| {
            let (target, action) = match edit {
                super::Edit::Override(o) => (o.target, super::action_name(&o.action)),
                super::Edit::Mutation(m) => (m.target, "Harvest"),
            };
            EditOutcome {
                edit: at.clone(),
                stage,
                target,
                action,
                found_base: None,
                result: Err(ConflictReason::UnsupportedStage),
                regrow: None,
            }
        })
        .collect()
}
