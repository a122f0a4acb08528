//! Runs a compiled plan level by level — serially (the reference) or on the current rayon pool —
//! with the stage cache, and assembles the bundle.
//!
//! Both modes do the same work in the same order of decisions: per level (stages of one depth,
//! ascending id) every stage is looked up in the cache, the misses run (one after another, or in
//! parallel; a parallel scatter also splits its rows), and results are taken in plan order. Kernels
//! write only their own products, so the outputs are bit-identical whatever the thread count. A
//! level with a failure ends the run: nothing is published and the error lists the cause, the other
//! failures of that level and every dependent stage.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;

use super::bundle::{GeneratedBundle, StageRecord};
use super::cache::{CacheKey, CacheOutcome, CachedStage, KeyParts, MissReason, StageCache};
use super::failure::{FailureKind, GenerateError, StageFailure};
use super::{CancelToken, ExecutionMode, ExecutionObserver, GenerateRequest};
use crate::ops::registry::{InputValue, KernelContext, StageError, StageInputs};
use crate::overrides::stage::{key_digest, run_kernel, subrecipe_edits};
use crate::overrides::Overrides;
use crate::recipe::{CompiledPlan, CompiledStage, InputSource, SUPPORTED_ADDRESS_SCHEMAS};

pub(super) use super::nested::Outer;

/// Whether one stage was served from the cache or run, in a [`RunReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageRun {
    /// The stage.
    pub stage: u32,
    /// Hit, or the reason it ran.
    pub cache: CacheOutcome,
}

/// How a generation went, stage by stage (in plan order). Not part of the bundle: the same bundle
/// can come from a cold or a warm cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunReport {
    /// One entry per stage, in plan order.
    pub stages: Vec<StageRun>,
}

impl RunReport {
    /// Stages served from the cache.
    pub fn hits(&self) -> usize {
        self.stages
            .iter()
            .filter(|s| s.cache == CacheOutcome::Hit)
            .count()
    }

    /// Stages that ran.
    pub fn misses(&self) -> usize {
        self.stages.len() - self.hits()
    }

    /// The ids of the stages that ran, in plan order.
    pub fn ran(&self) -> Vec<u32> {
        self.stages
            .iter()
            .filter(|s| s.cache != CacheOutcome::Hit)
            .map(|s| s.stage)
            .collect()
    }
}

/// A finished generation: the bundle and how it was made.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The bundle.
    pub bundle: Arc<GeneratedBundle>,
    /// Cache hits and misses per stage.
    pub report: RunReport,
}

pub(super) type Done = BTreeMap<u32, (CacheKey, Arc<CachedStage>)>;

/// Runs `plan` for `request` without overrides, reading and filling `cache`.
pub fn run_plan(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    cache: &mut StageCache,
    cancel: &CancelToken,
    observer: &dyn ExecutionObserver,
) -> Result<Generated, GenerateError> {
    run_plan_with(plan, request, &Overrides::none(), cache, cancel, observer)
}

/// Runs `plan` for `request` with the recipe's author overrides and world mutations applied,
/// reading and filling `cache` (the edits naming a stage are part of its key).
pub fn run_plan_with(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    overrides: &Overrides,
    cache: &mut StageCache,
    cancel: &CancelToken,
    observer: &dyn ExecutionObserver,
) -> Result<Generated, GenerateError> {
    let outer = Outer::root(plan);
    let run = Run {
        plan,
        request,
        overrides,
        cancel,
        observer,
        outer: &outer,
    };
    run.execute(cache)
}

/// One run of a plan: the root recipe's, or a subrecipe's child run (`super::nested`).
#[derive(Clone, Copy)]
pub(super) struct Run<'a> {
    pub(super) plan: &'a CompiledPlan,
    pub(super) request: &'a GenerateRequest,
    pub(super) overrides: &'a Overrides,
    pub(super) cancel: &'a CancelToken,
    pub(super) observer: &'a dyn ExecutionObserver,
    pub(super) outer: &'a Outer,
}

impl Run<'_> {
    /// Runs the plan level by level, reading and filling `cache`.
    pub(super) fn execute(&self, cache: &mut StageCache) -> Result<Generated, GenerateError> {
        let Run {
            plan,
            request,
            overrides,
            cancel,
            observer,
            outer,
        } = *self;
        execute(plan, request, overrides, cache, cancel, observer, outer)
    }
}

#[allow(clippy::too_many_arguments)] // the fields of a `Run`, spread for the loop below
fn execute(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    overrides: &Overrides,
    cache: &mut StageCache,
    cancel: &CancelToken,
    observer: &dyn ExecutionObserver,
    outer: &Outer,
) -> Result<Generated, GenerateError> {
    if !SUPPORTED_ADDRESS_SCHEMAS.contains(&plan.address_schema()) {
        return Err(GenerateError::request(
            FailureKind::UnsupportedProfile,
            format!("address schema {} is not supported", plan.address_schema()),
        ));
    }
    let mut done: Done = BTreeMap::new();
    let mut runs: Vec<StageRun> = Vec::with_capacity(plan.stages().len());
    for level in plan.levels() {
        if cancel.is_cancelled() {
            return Err(GenerateError::request(
                FailureKind::Cancellation,
                "cancelled",
            ));
        }
        let mut pending: Vec<(&CompiledStage, CacheKey, MissReason)> = Vec::new();
        for stage in level {
            let parts = key_parts(plan, stage, request, overrides, &done, outer);
            match cache.lookup(&parts) {
                (key, Ok(cached)) => {
                    observer.stage_started(stage.id());
                    observer.stage_finished(stage.id(), CacheOutcome::Hit, true);
                    done.insert(stage.id(), (key, cached));
                    runs.push(StageRun {
                        stage: stage.id(),
                        cache: CacheOutcome::Hit,
                    });
                }
                (key, Err(reason)) => pending.push((stage, key, reason)),
            }
        }
        let run_one = |(stage, _, reason): &(&CompiledStage, CacheKey, MissReason)| {
            let run = Run {
                plan,
                request,
                overrides,
                cancel,
                observer,
                outer,
            };
            let result = run_stage(&run, stage, &done);
            observer.stage_finished(stage.id(), CacheOutcome::Miss(*reason), result.is_ok());
            result
        };
        let results: Vec<Result<CachedStage, StageError>> = match request.mode {
            ExecutionMode::Serial => pending.iter().map(run_one).collect(),
            ExecutionMode::Parallel => pending.par_iter().map(run_one).collect(),
        };
        let mut failures = record_level_results(pending, results, cache, &mut done, &mut runs);
        if !failures.is_empty() {
            add_dependency_failures(plan, &done, &mut failures);
            return Err(GenerateError { failures });
        }
    }
    assemble_generated(plan, request, &done, runs)
}

/// Puts the level's run stages in the cache and `done`, recording their misses in `runs`;
/// returns the failures of the stages that did not run, in level order.
fn record_level_results(
    pending: Vec<(&CompiledStage, CacheKey, MissReason)>,
    results: Vec<Result<CachedStage, StageError>>,
    cache: &mut StageCache,
    done: &mut Done,
    runs: &mut Vec<StageRun>,
) -> Vec<StageFailure> {
    let mut failures = Vec::new();
    for ((stage, key, reason), result) in pending.into_iter().zip(results) {
        match result {
            Ok(cached) => {
                let cached = Arc::new(cached);
                cache.insert(key, Arc::clone(&cached));
                done.insert(stage.id(), (key, cached));
                runs.push(StageRun {
                    stage: stage.id(),
                    cache: CacheOutcome::Miss(reason),
                });
            }
            Err(error) => failures.push(StageFailure {
                stage: Some(stage.id()),
                kind: error.kind,
                field: error.field,
                message: error.message,
            }),
        }
    }
    failures
}

/// Adds a dependency failure for every stage reading a failed one, directly or not, naming the
/// stages it reads that failed or did not run.
fn add_dependency_failures(plan: &CompiledPlan, done: &Done, failures: &mut Vec<StageFailure>) {
    let failed: Vec<u32> = failures.iter().filter_map(|f| f.stage).collect();
    let dependents: BTreeSet<u32> = failed.iter().flat_map(|id| plan.dependents(*id)).collect();
    for stage in dependents {
        let reads: Vec<String> = plan
            .stage(stage)
            .map(|s| s.dependencies())
            .unwrap_or_default()
            .into_iter()
            .filter(|dep| failed.contains(dep) || !done.contains_key(dep))
            .map(|dep| dep.to_string())
            .collect();
        failures.push(StageFailure {
            stage: Some(stage),
            kind: FailureKind::DependencyFailure,
            field: None,
            message: format!(
                "not run: it depends on stage {} (failed or not run)",
                reads.join(", ")
            ),
        });
    }
}

/// The bundle of every stage's cached result, in plan order, with the run report.
fn assemble_generated(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    done: &Done,
    mut runs: Vec<StageRun>,
) -> Result<Generated, GenerateError> {
    let order = |id: u32| plan.stages().iter().position(|s| s.id() == id);
    runs.sort_by_key(|run| order(run.stage));
    let mut stages = Vec::with_capacity(plan.stages().len());
    for stage in plan.stages() {
        let Some((key, cached)) = done.get(&stage.id()) else {
            return Err(GenerateError::request(
                FailureKind::InvalidInput,
                format!("stage {} did not run", stage.id()),
            ));
        };
        stages.push(stage_record(stage, *key, cached));
    }
    let bundle = GeneratedBundle::new(
        plan.recipe_id().to_owned(),
        plan.source_digest(),
        request.root_seed,
        plan.address_schema(),
        stages,
        plan.outputs().to_vec(),
    );
    Ok(Generated {
        bundle: Arc::new(bundle),
        report: RunReport { stages: runs },
    })
}

/// The record of `stage` finished as `cached` under `key`, as a bundle holds it.
pub(super) fn stage_record(
    stage: &CompiledStage,
    key: CacheKey,
    cached: &CachedStage,
) -> StageRecord {
    StageRecord {
        stage: stage.id(),
        label: stage.label().to_owned(),
        operator: stage.operator().id,
        algorithm: stage.operator().algorithm,
        depth: stage.depth(),
        dependencies: stage.dependencies(),
        key: key.0,
        digest: cached.digest,
        summary: cached.summary,
        product: Arc::clone(&cached.product),
        provenance: Arc::clone(&cached.provenance),
    }
}

/// The cache-key parts of `stage`; its stage inputs are in `done` (they ran at a lower depth).
pub(super) fn key_parts(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    request: &GenerateRequest,
    overrides: &Overrides,
    done: &Done,
    outer: &Outer,
) -> KeyParts {
    let mut parts = parts_with(plan, stage, request.root_seed, overrides, &|id| {
        done.get(&id).map_or([0; 32], |(_, c)| c.digest)
    });
    // A child run's stages are keyed by its instance and the products bound to its inputs.
    parts.scope.clone_from(&outer.instance);
    for ((_, digest), bound) in parts.inputs.iter_mut().zip(stage.inputs()) {
        if let InputSource::Outer { input } = &bound.source {
            *digest = outer.input(input).map_or([0; 32], |(_, c)| c.digest);
        }
    }
    // A `subrecipe.output` stage reads its running stage's whole key (as that stage is keyed
    // here, within a child run too).
    if let Some(running) = run_stage_of(plan, stage) {
        let key = key_parts(plan, running, request, overrides, done, outer).key();
        if let Some((_, digest)) = parts.inputs.first_mut() {
            *digest = key.0;
        }
    }
    parts
}

/// The `subrecipe` stage whose child run `stage` republishes an output of, for a
/// `subrecipe.output` stage.
fn run_stage_of<'p>(plan: &'p CompiledPlan, stage: &CompiledStage) -> Option<&'p CompiledStage> {
    plan.stage(stage.subrecipe()?.run_by?)
}

/// The cache-key parts of `stage` of `plan` for `root_seed` with the recipe's `overrides`,
/// reading each upstream stage's product digest from `upstream`; `Err` names the first upstream
/// stage whose digest is not known. The executor keys its stage cache with exactly these parts,
/// so an on-disk cache (cooking) computes the same keys before running anything.
pub fn stage_key_parts(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    root_seed: u64,
    overrides: &Overrides,
    upstream: &dyn Fn(u32) -> Option<[u8; 32]>,
) -> Result<KeyParts, u32> {
    if let Some(missing) = stage
        .dependencies()
        .into_iter()
        .find(|id| upstream(*id).is_none())
    {
        return Err(missing);
    }
    Ok(parts_with(plan, stage, root_seed, overrides, &|id| {
        upstream(id).unwrap_or([0; 32])
    }))
}

/// The key parts of `stage`; a `subrecipe.output` stage's one input is its running stage's key
/// (which decides the whole child run), not that stage's published product's digest.
fn parts_with(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    root_seed: u64,
    overrides: &Overrides,
    digest_of: &dyn Fn(u32) -> [u8; 32],
) -> KeyParts {
    let mut parts = own_parts(plan, stage, root_seed, overrides, digest_of);
    if let Some(running) = run_stage_of(plan, stage) {
        let key = own_parts(plan, running, root_seed, overrides, digest_of).key();
        if let Some((_, digest)) = parts.inputs.first_mut() {
            *digest = key.0;
        }
    }
    parts
}

fn own_parts(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    root_seed: u64,
    overrides: &Overrides,
    digest_of: &dyn Fn(u32) -> [u8; 32],
) -> KeyParts {
    KeyParts {
        operator: stage.operator().id,
        algorithm: stage.operator().algorithm,
        output: stage.output(),
        scope: plan.recipe_id().to_owned(),
        stage: stage.id(),
        params: stage.param_bytes().to_vec(),
        seed: root_seed,
        address_schema: plan.address_schema(),
        inputs: stage
            .inputs()
            .iter()
            .map(|bound| {
                let digest = match &bound.source {
                    InputSource::Family { family, .. } => {
                        family.digest_for(stage.operator().family_reads)
                    }
                    InputSource::Stage(id) => digest_of(*id),
                    InputSource::Outer { .. } => [0; 32],
                };
                (bound.port, digest)
            })
            .collect(),
        edits: key_digest(overrides, stage, root_seed),
    }
}

pub(super) fn run_stage(
    run: &Run<'_>,
    stage: &CompiledStage,
    done: &Done,
) -> Result<CachedStage, StageError> {
    let Run {
        plan,
        request,
        overrides,
        cancel,
        observer,
        outer,
    } = *run;
    if cancel.is_cancelled() {
        return Err(StageError::new(
            FailureKind::Cancellation,
            None,
            "cancelled",
        ));
    }
    observer.stage_started(stage.id());
    if let Some(subrecipe) = stage.subrecipe() {
        let mut cached = match subrecipe.run_by {
            Some(running) => super::nested::republish(run, subrecipe, running, done)?,
            None => super::nested::run_subrecipe(run, stage, subrecipe, done)?,
        };
        // Edits of its child run's objects were applied there; each is reported here.
        let nested = cached.provenance.nested.clone();
        if let Some((outcomes, digest)) =
            subrecipe_edits(overrides, stage, request.root_seed, nested.as_deref())
        {
            let provenance = Arc::make_mut(&mut cached.provenance);
            provenance.edits = outcomes;
            provenance.edits_digest = Some(digest);
        }
        return Ok(cached);
    }
    let mut inputs = StageInputs::default();
    for bound in stage.inputs() {
        match &bound.source {
            InputSource::Family { family, .. } => {
                inputs.bind(bound.port, InputValue::Family(family))
            }
            InputSource::Stage(id) => {
                let Some((_, cached)) = done.get(id) else {
                    return Err(StageError::new(
                        FailureKind::DependencyFailure,
                        Some(bound.port),
                        format!("stage {id} has no product"),
                    ));
                };
                inputs.bind(
                    bound.port,
                    InputValue::Product {
                        stage: *id,
                        product: &cached.product,
                    },
                );
            }
            InputSource::Outer { input } => {
                let Some((stage, cached)) = outer.input(input) else {
                    return Err(StageError::new(
                        FailureKind::InvalidInput,
                        Some(bound.port),
                        format!(
                            "input `{input}` is bound only when recipe `{}` runs as a subrecipe stage",
                            plan.recipe_id()
                        ),
                    ));
                };
                inputs.bind(
                    bound.port,
                    InputValue::Product {
                        stage,
                        product: &cached.product,
                    },
                );
            }
        }
    }
    let stage_id = stage.id();
    let progress = |candidates_done: u64| observer.stage_progress(stage_id, candidates_done);
    let context = KernelContext {
        recipe: &outer.instance,
        stage: stage.id(),
        seed: request.root_seed,
        parallel: request.mode == ExecutionMode::Parallel,
        cancel,
        progress: &progress,
    };
    let upstream = |id: u32| done.get(&id).map(|(_, cached)| cached.provenance.as_ref());
    let output = run_kernel(stage, &inputs, &context, overrides, &upstream)?;
    if output.product.kind() != stage.output() {
        return Err(StageError::new(
            FailureKind::InvalidInput,
            None,
            format!(
                "operator `{}` returned a {}, not its declared {}",
                stage.operator().id,
                output.product.kind().name(),
                stage.output().name()
            ),
        ));
    }
    Ok(match request.mode {
        ExecutionMode::Serial => CachedStage::new(output.product, output.provenance),
        ExecutionMode::Parallel => CachedStage::new_par(output.product, output.provenance),
    })
}
