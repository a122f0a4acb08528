//! Serial stepping and stage isolation: a recipe generated up to one stage of its execution order,
//! and the intermediate bundles an inspector shows.
//!
//! Step `k` (1-based) is the plan's first `k` stages in execution order (ascending depth, then
//! id): a prefix reads nothing outside itself, so it runs as a plan of its own. Its stages have
//! the same cache keys as in the whole plan, so stepping through a warm cache runs nothing, and
//! the product of every stage of step `k` is byte for byte the one a full generation makes
//! ([`GeneratedBundle::through`] of the full bundle equals [`run_plan_through`], tested). A
//! stepped bundle publishes the plan's outputs among its stages, then the stepped-to stage.

use std::sync::Arc;

use super::bundle::GeneratedBundle;
use super::executor::{run_plan_with, Generated};
use super::failure::{FailureKind, GenerateError};
use super::{CancelToken, ExecutionObserver, GenerateRequest, StageCache};
use crate::overrides::Overrides;
use crate::recipe::CompiledPlan;

/// The stage ids in the order serial stepping visits them (the plan's execution order).
pub fn step_order(plan: &CompiledPlan) -> Vec<u32> {
    plan.stages().iter().map(|stage| stage.id()).collect()
}

/// Generates the first `steps` stages of `plan` in execution order (serial stepping up to the
/// `steps`-th stage) with `overrides`, reading and filling `cache` exactly as a full generation
/// does. `steps` of 0 or past the plan is an invalid request, never a panic.
pub fn run_plan_through(
    plan: &CompiledPlan,
    request: &GenerateRequest,
    overrides: &Overrides,
    cache: &mut StageCache,
    cancel: &CancelToken,
    observer: &dyn ExecutionObserver,
    steps: usize,
) -> Result<Generated, GenerateError> {
    let Some(prefix) = plan.prefix(steps) else {
        return Err(GenerateError::request(
            FailureKind::InvalidInput,
            format!(
                "step {steps} is outside the plan's stages 1 to {}",
                plan.stages().len()
            ),
        ));
    };
    run_plan_with(&prefix, request, overrides, cache, cancel, observer)
}

impl GeneratedBundle {
    /// The bundle of its first `steps` stages (the intermediate product of serial stepping up to
    /// the `steps`-th stage), sharing their products; `None` when `steps` is 0 or past the end.
    /// Equal, digest included, to what [`run_plan_through`] generates for that step.
    pub fn through(&self, steps: usize) -> Option<GeneratedBundle> {
        let stages = self.stages.get(..steps).filter(|s| !s.is_empty())?.to_vec();
        let last = stages.last().map(|s| s.stage)?;
        let mut outputs: Vec<u32> = self
            .outputs
            .iter()
            .copied()
            .filter(|id| stages.iter().any(|s| s.stage == *id))
            .collect();
        if !outputs.contains(&last) {
            outputs.push(last);
        }
        Some(self.with_stages(stages, outputs))
    }

    /// The bundle of stage `stage` alone (an isolated stage's product, as an inspector pins it),
    /// sharing its product; `None` when the bundle has no such stage.
    pub fn isolated(&self, stage: u32) -> Option<GeneratedBundle> {
        let record = self.stage(stage)?.clone();
        Some(self.with_stages(vec![record], vec![stage]))
    }

    fn with_stages(&self, stages: Vec<super::StageRecord>, outputs: Vec<u32>) -> GeneratedBundle {
        GeneratedBundle::new(
            self.recipe_id.clone(),
            self.source_digest,
            self.root_seed,
            self.address_schema,
            stages,
            outputs,
        )
    }
}

/// The shared bundle of a step, for callers holding the full bundle in an [`Arc`].
pub fn bundle_through(full: &Arc<GeneratedBundle>, steps: usize) -> Option<Arc<GeneratedBundle>> {
    if steps == full.stages.len() {
        return Some(Arc::clone(full));
    }
    full.through(steps).map(Arc::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::tests::{plan, request, street_text, PLACE, SCATTER};
    use crate::generate::{CacheOutcome, ExecutionMode, NoObserver};

    fn through(
        plan: &CompiledPlan,
        cache: &mut StageCache,
        steps: usize,
    ) -> Result<Generated, GenerateError> {
        let req = request(ExecutionMode::Serial);
        let (none, cancel) = (Overrides::none(), CancelToken::new());
        run_plan_through(plan, &req, &none, cache, &cancel, &NoObserver, steps)
    }

    /// Each step's products are the full generation's intermediates, byte for byte, and a warm
    /// cache serves every step without running anything.
    #[test]
    fn each_step_equals_the_full_generations_prefix() {
        let plan = plan(&street_text(SCATTER, PLACE));
        assert_eq!(step_order(&plan), vec![1, 2, 3]);
        let mut cache = StageCache::default();
        let full = through(&plan, &mut cache, 3).expect("full");
        for steps in 1..=3 {
            let stepped = through(&plan, &mut cache, steps).expect("step");
            assert_eq!(stepped.report.hits(), steps, "step {steps} ran something");
            let expected = full.bundle.through(steps).expect("prefix");
            assert_eq!(*stepped.bundle, expected);
            assert_eq!(stepped.bundle.digest(), expected.digest());
            let ids: Vec<u32> = stepped.bundle.stages.iter().map(|s| s.stage).collect();
            assert_eq!(ids, (1..=steps as u32).collect::<Vec<_>>());
            for (s, f) in stepped.bundle.stages.iter().zip(&full.bundle.stages) {
                assert_eq!((s.stage, s.digest, s.key), (f.stage, f.digest, f.key));
            }
        }
        // Outputs: the plan's outputs among the stages, then the stepped-to stage.
        assert_eq!(full.bundle.through(1).map(|b| b.outputs), Some(vec![1]));
        assert_eq!(full.bundle.through(2).map(|b| b.outputs), Some(vec![1, 2]));
        assert_eq!(full.bundle.through(3).map(|b| b.outputs), Some(vec![1, 3]));
        // The whole plan stepped is the full generation itself.
        assert_eq!(
            full.bundle.through(3).map(|b| b.digest()),
            Some(full.bundle.digest())
        );
    }

    /// Stepping a cold cache runs the prefix only: step 2 runs stages 1 and 2, never stage 3.
    #[test]
    fn a_cold_step_runs_only_its_prefix() {
        let plan = plan(&street_text(SCATTER, PLACE));
        let mut cache = StageCache::default();
        let stepped = through(&plan, &mut cache, 2).expect("step");
        assert_eq!(stepped.report.ran(), vec![1, 2]);
        let full = through(&plan, &mut cache, 3).expect("full");
        assert_eq!(
            full.report
                .stages
                .iter()
                .map(|s| s.cache)
                .collect::<Vec<_>>()[..2],
            [CacheOutcome::Hit, CacheOutcome::Hit]
        );
        assert_eq!(full.report.ran(), vec![3]);
    }

    #[test]
    fn a_step_outside_the_plan_is_an_invalid_request() {
        let plan = plan(&street_text(SCATTER, PLACE));
        let mut cache = StageCache::default();
        for steps in [0, 4] {
            let error = through(&plan, &mut cache, steps).expect_err("outside");
            assert_eq!(error.failures.len(), 1);
            assert_eq!(error.failures[0].kind, FailureKind::InvalidInput);
            assert_eq!(
                error.failures[0].message,
                format!("step {steps} is outside the plan's stages 1 to 3")
            );
        }
        assert!(plan.prefix(0).is_none() && plan.prefix(4).is_none());
    }

    /// An isolated stage is its record alone, product shared, published as the only output.
    #[test]
    fn an_isolated_stage_holds_its_product_alone() {
        let plan = plan(&street_text(SCATTER, PLACE));
        let mut cache = StageCache::default();
        let full = through(&plan, &mut cache, 3).expect("full");
        let isolated = full.bundle.isolated(2).expect("stage 2");
        assert_eq!(isolated.outputs, vec![2]);
        assert_eq!(isolated.stages.len(), 1);
        let record = full.bundle.stage(2).expect("record");
        assert!(Arc::ptr_eq(&isolated.stages[0].product, &record.product));
        assert_eq!(isolated.stages[0].digest, record.digest);
        assert!(full.bundle.isolated(9).is_none());
        let shared = bundle_through(&full.bundle, 3).expect("all");
        assert!(Arc::ptr_eq(&shared, &full.bundle));
    }
}
