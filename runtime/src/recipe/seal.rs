//! Sealing a compiled plan: Kahn's algorithm over the resolved stages with ascending-id tie
//! breaks, depths, execution order (depth, id); then, in that order, each operator's outline and
//! its rules across its inputs, and capacity estimates checked against ceilings.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::limits::{estimated_bytes, MAX_PLAN_OBJECTS, MAX_STAGE_CANDIDATES};
use super::plan::{BoundInput, CompiledPlan, CompiledStage, InputSource, Subrecipe};
use super::report::{stage_path, Reporter};
use super::scope_flow::{check_scope_flow, ScopedStage};
use crate::content::ProductKind;
use crate::ops::registry::{
    Capacity, InputOutline, OperatorDescriptor, Outline, ParamSet, StageParams,
};
use crate::project::{canonical_text, FieldPath, Recipe};

/// A stage after operator resolution and port binding, before ordering.
pub(super) struct Resolved {
    /// Its index in the recipe's stage list.
    pub(super) index: usize,
    pub(super) operator: OperatorDescriptor,
    pub(super) params: StageParams,
    pub(super) param_set: ParamSet,
    /// Bound inputs, in port order.
    pub(super) inputs: Vec<BoundInput>,
    /// Each bound port and the input slot bound to it, for placing diagnostics.
    pub(super) ports: Vec<(&'static str, usize)>,
    /// The product kind it publishes.
    pub(super) output: ProductKind,
    /// What a `subrecipe` stage runs.
    pub(super) subrecipe: Option<Arc<Subrecipe>>,
}

/// Orders the resolved stages by (depth, id), estimates capacities and seals the plan.
pub(super) fn order_and_seal(
    recipe: &Recipe,
    mut resolved: BTreeMap<u32, Resolved>,
    memory_budget_bytes: u64,
    r: &mut Reporter<'_>,
) -> Option<CompiledPlan> {
    let depth = stage_depths(&resolved)?;
    let mut order: Vec<(u32, u32)> = depth.iter().map(|(id, d)| (*d, *id)).collect();
    order.sort_unstable();
    let mut stages: Vec<CompiledStage> = Vec::with_capacity(order.len());
    let mut capacities: BTreeMap<u32, Capacity> = BTreeMap::new();
    let mut outlines: BTreeMap<u32, Outline> = BTreeMap::new();
    let mut total_objects: u64 = 0;
    let mut total_bytes: u64 = 0;
    for (d, id) in order {
        let stage = resolved.remove(&id)?;
        let authored = &recipe.stages[stage.index];
        let (scopes, outline, capacity) = match &stage.subrecipe {
            Some(sub) => sub.sealed(),
            None => {
                let input_outlines = input_outlines(&stage, &outlines);
                let scopes = (stage.operator.scopes)(&stage.params, &input_outlines);
                let problems = (stage.operator.check)(&stage.params, &input_outlines);
                r.param_problems(stage.index, authored, &stage.ports, problems);
                let inputs: Vec<Capacity> = stage_deps(&stage)
                    .iter()
                    .filter_map(|dep| capacities.get(dep).copied())
                    .collect();
                let capacity = (stage.operator.estimate)(&stage.params, &inputs);
                (scopes, (stage.operator.outline)(&stage.params), capacity)
            }
        };
        let scoped = ScopedStage {
            index: stage.index,
            id,
            operator: &stage.operator,
            inputs: &stage.inputs,
            ports: &stage.ports,
        };
        let upstream = |dep: u32| stages.iter().find(|s| s.id == dep).map(|s| s.operator);
        check_scope_flow(&scoped, &upstream, r);
        let stage_bytes = check_stage_capacity(id, stage.index, capacity, memory_budget_bytes, r);
        total_bytes = total_bytes.saturating_add(stage_bytes);
        total_objects = total_objects.saturating_add(capacity.objects);
        capacities.insert(id, capacity);
        outlines.insert(id, outline.clone());
        stages.push(CompiledStage {
            id,
            label: authored.label.clone(),
            operator: stage.operator,
            param_bytes: match &stage.subrecipe {
                Some(sub) => sub.param_bytes(),
                None => stage.param_set.canonical_bytes(),
            },
            params: stage.params,
            param_set: stage.param_set,
            inputs: stage.inputs,
            depth: d,
            capacity,
            outline,
            scopes,
            output: stage.output,
            subrecipe: stage.subrecipe,
        });
    }
    check_scopes(recipe, &stages, r);
    check_plan_totals(total_bytes, total_objects, memory_budget_bytes, r);
    // Input liveness: a stage whose product reaches no output is checked like any other (and
    // warned about by `structure`) but left out of the plan, so it never runs.
    retain_live(&mut stages, &recipe.outputs);
    Some(CompiledPlan {
        recipe_id: recipe.id.clone(),
        address_schema: recipe.address_schema,
        source_digest: *blake3::hash(canonical_text(recipe).as_bytes()).as_bytes(),
        stages,
        outputs: recipe.outputs.clone(),
    })
}

/// Keeps the stages an output reads, directly or through others (the outputs among them);
/// execution order lists every reader after what it reads, so one backward pass finds them.
fn retain_live(stages: &mut Vec<CompiledStage>, outputs: &[u32]) {
    let mut live: BTreeSet<u32> = outputs.iter().copied().collect();
    for stage in stages.iter().rev() {
        if live.contains(&stage.id) {
            live.extend(stage.dependencies());
        }
    }
    stages.retain(|stage| live.contains(&stage.id));
}

/// The ids of the stages `stage` reads (family inputs are not stages).
fn stage_deps(stage: &Resolved) -> Vec<u32> {
    stage
        .inputs
        .iter()
        .filter_map(|b| match b.source {
            InputSource::Stage(id) => Some(id),
            InputSource::Family { .. } | InputSource::Outer { .. } => None,
        })
        .collect()
}

/// Each stage's depth (0 for stages reading no stage, else one more than its deepest input), by
/// Kahn's algorithm over ids in ascending order; `None` if some stage never becomes ready (the
/// graph is acyclic, checked before).
fn stage_depths(resolved: &BTreeMap<u32, Resolved>) -> Option<BTreeMap<u32, u32>> {
    let mut depth: BTreeMap<u32, u32> = BTreeMap::new();
    let mut remaining: BTreeSet<u32> = resolved.keys().copied().collect();
    while !remaining.is_empty() {
        let ready: Vec<u32> = remaining
            .iter()
            .copied()
            .filter(|id| {
                resolved
                    .get(id)
                    .is_some_and(|s| stage_deps(s).iter().all(|d| depth.contains_key(d)))
            })
            .collect();
        if ready.is_empty() {
            return None;
        }
        for id in ready {
            let d = resolved
                .get(&id)
                .map(|s| {
                    stage_deps(s)
                        .iter()
                        .filter_map(|d| depth.get(d))
                        .map(|d| d + 1)
                        .max()
                        .unwrap_or(0)
                })
                .unwrap_or(0);
            depth.insert(id, d);
            remaining.remove(&id);
        }
    }
    Some(depth)
}

/// The outline of each of `stage`'s bound inputs: a family's, or the outline of the stage it
/// reads (sealed before it).
fn input_outlines<'a>(
    stage: &'a Resolved,
    outlines: &'a BTreeMap<u32, Outline>,
) -> Vec<(&'static str, InputOutline<'a>)> {
    stage
        .inputs
        .iter()
        .filter_map(|b| match &b.source {
            InputSource::Family { family, .. } => Some((b.port, InputOutline::Family(family))),
            InputSource::Stage(dep) => outlines
                .get(dep)
                .map(|outline| (b.port, InputOutline::Product(outline))),
            InputSource::Outer { .. } => None,
        })
        .collect()
}

/// Reports a stage whose estimate passes the candidate ceiling or the memory budget; returns
/// its estimated bytes.
fn check_stage_capacity(
    id: u32,
    index: usize,
    capacity: Capacity,
    memory_budget_bytes: u64,
    r: &mut Reporter<'_>,
) -> u64 {
    if capacity.candidates > MAX_STAGE_CANDIDATES {
        r.error(
            stage_path(index).field("parameters"),
            format!(
                "stage {id} could evaluate {} candidates, over the ceiling of {MAX_STAGE_CANDIDATES}",
                capacity.candidates
            ),
            "a smaller region, larger cells or fewer candidates per cell",
        );
    }
    let stage_bytes = estimated_bytes(capacity.candidates, capacity.objects);
    if stage_bytes > memory_budget_bytes {
        r.error(
            stage_path(index).field("parameters"),
            format!(
                "stage {id} could need {} of memory, over the budget of {}",
                mib(stage_bytes),
                mib(memory_budget_bytes)
            ),
            "a smaller stage (region, cells, candidates per cell), or a larger memory budget (`--memory-budget-mib`)",
        );
    }
    stage_bytes
}

/// Reports a plan whose stages together pass the memory budget or the object ceiling.
fn check_plan_totals(
    total_bytes: u64,
    total_objects: u64,
    memory_budget_bytes: u64,
    r: &mut Reporter<'_>,
) {
    if total_bytes > memory_budget_bytes {
        r.error(
            FieldPath::root().field("stages"),
            format!(
                "the recipe could need {} of memory, over the budget of {}",
                mib(total_bytes),
                mib(memory_budget_bytes)
            ),
            "smaller stages, or a larger memory budget (`--memory-budget-mib`)",
        );
    }
    if total_objects > MAX_PLAN_OBJECTS {
        r.error(
            FieldPath::root().field("stages"),
            format!("the recipe could produce {total_objects} objects, over the ceiling of {MAX_PLAN_OBJECTS}"),
            "smaller stages",
        );
    }
}

/// Two stages of the recipe packing the same `(room, layer)` scope would emit identical
/// identities and draws: an admission error at the later stage's (in file order) `room`, or
/// `layer` when only that is authored, naming the stage that uses the scope first.
fn check_scopes(recipe: &Recipe, stages: &[CompiledStage], r: &mut Reporter<'_>) {
    let mut by_index: Vec<(usize, &CompiledStage)> = stages
        .iter()
        .filter_map(|s| {
            let index = recipe.stages.iter().position(|a| a.id == s.id)?;
            Some((index, s))
        })
        .collect();
    by_index.sort_by_key(|(index, _)| *index);
    let mut claimed: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for (index, stage) in by_index {
        let mut reported = false;
        for scope in &stage.scopes {
            match claimed.get(scope) {
                Some(first) if !reported => {
                    reported = true;
                    let authored = &recipe.stages[index];
                    r.error(
                        scope_path(index, authored),
                        scope_collision(stage.id, *scope, &format!("stage {first}")),
                        "a `room` or `layer` no other scatter stage of the project packs",
                    );
                }
                Some(_) => {}
                None => {
                    claimed.insert(*scope, stage.id);
                }
            }
        }
    }
}

/// Where a scope collision of stage `index` is reported: its `room`, else its `layer`, else its
/// parameters.
pub(super) fn scope_path(index: usize, stage: &crate::project::Stage) -> FieldPath {
    let params = stage_path(index).field("parameters");
    ["room", "layer"]
        .into_iter()
        .find(|name| stage.parameters.contains_key(*name))
        .map_or(params.clone(), |name| params.key(name))
}

/// The message of a scope collision of stage `stage` with `first` (a stage, or a stage of
/// another recipe).
pub(super) fn scope_collision(stage: u32, (room, layer): (u32, u32), first: &str) -> String {
    format!(
        "stage {stage} packs identities in room {room}, layer {layer}, which {first} already packs: both would emit the same identities and draws"
    )
}

/// Bytes for a diagnostic: exact below a mebibyte, else mebibytes rounded up.
fn mib(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}
