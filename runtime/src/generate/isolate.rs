//! Lock-and-isolate of a stage's inputs: the products that feed one stage, frozen as they were,
//! and that stage alone re-run against them while its parameters or overrides are edited.
//!
//! [`FrozenInputs::freeze`] keeps the finished products of a stage's stage inputs (its direct
//! dependencies) out of a bundle, with a digest over their product digests. [`run_isolated`]
//! runs that one stage of a (re)compiled plan with those products bound in place of the live
//! upstream: the same cache key as in a full run when the inputs are the same (the key reads the
//! inputs' product digests), so it looks the stage cache up and fills it exactly as a full run
//! does, and its product is byte for byte the one a full run makes from the same inputs (tested
//! on the street-block and pine-clearing stages in `tests/tests/isolate.rs`). Families are read
//! from the plan, live: only stage products freeze. A frozen input that the stage no longer
//! reads, or reads as another kind (the stage was rewired), is a located [`StageFailure`] naming
//! the stage and port. Nothing here draws a random number outside the stage's own kernel.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::bundle::GeneratedBundle;
use super::cache::{CacheKey, CacheOutcome, CachedStage, StageCache};
use super::executor::{
    key_parts, run_stage, stage_record, Done, Generated, Outer, Run, RunReport, StageRun,
};
use super::failure::{FailureKind, GenerateError, StageFailure};
use super::{CancelToken, ExecutionObserver, GenerateRequest};
use crate::content::encode::ByteWriter;
use crate::ops::registry::PortKind;
use crate::overrides::Overrides;
use crate::recipe::{CompiledPlan, CompiledStage, InputSource, SUPPORTED_ADDRESS_SCHEMAS};

/// The products feeding one stage, frozen as they were in a generated bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct FrozenInputs {
    recipe: String,
    stage: u32,
    /// Upstream stage id → its finished product (and the cache key it had).
    inputs: BTreeMap<u32, (CacheKey, Arc<CachedStage>)>,
    digest: [u8; 32],
}

impl FrozenInputs {
    /// Freezes the products `bundle` holds for the stage inputs of stage `stage` (none for a
    /// stage reading only families); `None` when the bundle lacks the stage or one of them.
    pub fn freeze(bundle: &GeneratedBundle, stage: u32) -> Option<FrozenInputs> {
        let record = bundle.stage(stage)?;
        let mut inputs = BTreeMap::new();
        for id in &record.dependencies {
            let upstream = bundle.stage(*id)?;
            let cached = CachedStage {
                product: Arc::clone(&upstream.product),
                provenance: Arc::clone(&upstream.provenance),
                digest: upstream.digest,
                summary: upstream.summary,
            };
            inputs.insert(*id, (CacheKey(upstream.key), Arc::new(cached)));
        }
        let mut w = ByteWriter::tagged(b"FROZEN01");
        w.str(&bundle.recipe_id).u32(stage).count(inputs.len());
        for (id, (_, cached)) in &inputs {
            w.u32(*id).bytes(&cached.digest);
        }
        Some(FrozenInputs {
            recipe: bundle.recipe_id.clone(),
            stage,
            digest: w.digest(),
            inputs,
        })
    }

    /// The recipe the stage belongs to.
    pub fn recipe(&self) -> &str {
        &self.recipe
    }

    /// The isolated stage.
    pub fn stage(&self) -> u32 {
        self.stage
    }

    /// BLAKE3 over the recipe, the stage and each frozen input's stage id and product digest.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The first 8 hex digits of [`FrozenInputs::digest`], as an inspector shows it.
    pub fn short_digest(&self) -> String {
        self.digest[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The frozen inputs: upstream stage id and product digest, by id.
    pub fn inputs(&self) -> Vec<(u32, [u8; 32])> {
        self.inputs
            .iter()
            .map(|(id, (_, cached))| (*id, cached.digest))
            .collect()
    }

    /// The frozen upstream stages whose product in `live` differs from the frozen one (or that
    /// `live` lacks): what upstream edits have changed since freezing.
    pub fn changed_upstream(&self, live: &GeneratedBundle) -> Vec<u32> {
        self.inputs
            .iter()
            .filter(|(id, (_, cached))| live.stage(**id).map(|r| r.digest) != Some(cached.digest))
            .map(|(id, _)| *id)
            .collect()
    }
}

/// Runs the stage `frozen` isolates, of `plan` (its recipe, compiled again after edits), against
/// the frozen products with `overrides`, reading and filling `cache` as a full run would. The
/// bundle holds that stage alone (equal, digest included, to [`GeneratedBundle::isolated`] of a
/// full run from the same inputs). A stage gone from the plan, or reading a stage whose product
/// was not frozen or was frozen as another kind than its port takes, is an error naming the
/// stage and the port.
pub fn run_isolated(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    overrides: &Overrides,
    frozen: &FrozenInputs,
    cache: &mut StageCache,
    cancel: &CancelToken,
    observer: &dyn ExecutionObserver,
) -> Result<Generated, GenerateError> {
    let stage = check_frozen(plan, frozen)?;
    if cancel.is_cancelled() {
        return Err(GenerateError::request(
            FailureKind::Cancellation,
            "cancelled",
        ));
    }
    let done: Done = frozen
        .inputs
        .iter()
        .map(|(id, (key, cached))| (*id, (*key, Arc::clone(cached))))
        .collect();
    let outer = Outer::root(plan);
    let parts = key_parts(plan, stage, request, overrides, &done, &outer);
    let (key, outcome, cached) = match cache.lookup(&parts) {
        (key, Ok(cached)) => {
            observer.stage_started(stage.id());
            observer.stage_finished(stage.id(), CacheOutcome::Hit, true);
            (key, CacheOutcome::Hit, cached)
        }
        (key, Err(reason)) => {
            let run = Run {
                plan,
                request,
                overrides,
                cancel,
                observer,
                outer: &outer,
            };
            let result = run_stage(&run, stage, &done);
            observer.stage_finished(stage.id(), CacheOutcome::Miss(reason), result.is_ok());
            let cached = Arc::new(result.map_err(|error| GenerateError {
                failures: vec![StageFailure {
                    stage: Some(stage.id()),
                    kind: error.kind,
                    field: error.field,
                    message: error.message,
                }],
            })?);
            cache.insert(key, Arc::clone(&cached));
            (key, CacheOutcome::Miss(reason), cached)
        }
    };
    let bundle = GeneratedBundle::new(
        plan.recipe_id().to_owned(),
        plan.source_digest(),
        request.root_seed,
        plan.address_schema(),
        vec![stage_record(stage, key, &cached)],
        vec![stage.id()],
    );
    Ok(Generated {
        bundle: Arc::new(bundle),
        report: RunReport {
            stages: vec![StageRun {
                stage: stage.id(),
                cache: outcome,
            }],
        },
    })
}

/// The isolated stage of `plan`, once every stage input it reads is frozen as the kind its port
/// takes; otherwise every mismatch, located at the stage and port.
fn check_frozen<'p>(
    plan: &'p CompiledPlan,
    frozen: &FrozenInputs,
) -> Result<&'p CompiledStage, GenerateError> {
    if !SUPPORTED_ADDRESS_SCHEMAS.contains(&plan.address_schema()) {
        return Err(GenerateError::request(
            FailureKind::UnsupportedProfile,
            format!("address schema {} is not supported", plan.address_schema()),
        ));
    }
    if plan.recipe_id() != frozen.recipe {
        return Err(GenerateError::request(
            FailureKind::InvalidInput,
            format!(
                "the inputs were frozen for recipe `{}`, not `{}`",
                frozen.recipe,
                plan.recipe_id()
            ),
        ));
    }
    let failure = |field: Option<&str>, message: String| StageFailure {
        stage: Some(frozen.stage),
        kind: FailureKind::InvalidInput,
        field: field.map(str::to_owned),
        message,
    };
    let Some(stage) = plan.stage(frozen.stage) else {
        return Err(GenerateError {
            failures: vec![failure(
                None,
                format!(
                    "stage {} is no longer in recipe `{}`: release its isolation",
                    frozen.stage, frozen.recipe
                ),
            )],
        });
    };
    let frozen_ids: Vec<String> = frozen.inputs.keys().map(u32::to_string).collect();
    let mut failures = Vec::new();
    for bound in stage.inputs() {
        let InputSource::Stage(id) = bound.source else {
            continue;
        };
        let Some((_, cached)) = frozen.inputs.get(&id) else {
            failures.push(failure(
                Some(bound.port),
                format!(
                    "port `{}` reads stage {id}, whose product was not frozen (frozen: stage {}); \
                     release and isolate again",
                    bound.port,
                    if frozen_ids.is_empty() {
                        "none".to_owned()
                    } else {
                        frozen_ids.join(", ")
                    }
                ),
            ));
            continue;
        };
        let declared = stage
            .operator()
            .inputs
            .iter()
            .find(|port| port.name == bound.port)
            .map(|port| port.kind);
        let actual = cached.product.kind();
        if let Some(PortKind::Product(kind)) = declared.filter(|k| *k != PortKind::Product(actual))
        {
            failures.push(failure(
                Some(bound.port),
                format!(
                    "port `{}` takes a {}, but the frozen input from stage {id} is a {}; \
                     release and isolate again",
                    bound.port,
                    kind.name(),
                    actual.name()
                ),
            ));
        }
    }
    if failures.is_empty() {
        Ok(stage)
    } else {
        Err(GenerateError { failures })
    }
}

#[cfg(test)]
mod tests;
