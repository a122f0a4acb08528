//! The executor: runs a compiled plan (serial reference or rayon-parallel, bit-identical), with an
//! in-memory stage cache, and returns a [`GeneratedBundle`] with provenance — or a typed failure
//! that leaves the previously published bundle untouched.
//!
//! The runtime reads no clock: timings are the caller's business, through an
//! [`ExecutionObserver`] that hears when each stage starts and finishes.

pub mod bundle;
pub mod cache;
pub mod executor;
pub mod export;
pub mod failure;
pub mod isolate;
pub mod nested;
pub mod stepping;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use bundle::{GeneratedBundle, ProvenanceView, StageRecord};
pub use cache::{
    CacheKey, CacheOutcome, CacheStats, CachedStage, KeyParts, MissReason, StageCache,
    DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRIES,
};
pub use executor::{run_plan, run_plan_with, stage_key_parts, Generated, RunReport, StageRun};
pub use failure::{FailureKind, GenerateError, StageFailure};
pub use isolate::{run_isolated, FrozenInputs};
pub use stepping::{bundle_through, run_plan_through, step_order};

use crate::overrides::Overrides;
use crate::recipe::CompiledPlan;

/// Serial (the reference) or parallel on the current rayon pool; the results are identical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExecutionMode {
    /// One stage after another, each on the calling thread.
    Serial,
    /// Independent stages and scatter rows on the current rayon pool.
    #[default]
    Parallel,
}

/// The number of threads a parallel generation runs on here (the current rayon pool's size,
/// which `RAYON_NUM_THREADS` sets for the global pool).
pub fn worker_threads() -> usize {
    rayon::current_num_threads()
}

/// One request to generate a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GenerateRequest {
    /// The root seed (from the project manifest unless overridden).
    pub root_seed: u64,
    /// Serial or parallel.
    pub mode: ExecutionMode,
    /// The request generation: the editor's edit counter when the request was made. A
    /// [`Generator`] refuses a request older than the bundle it has published.
    pub generation: u64,
}

/// A shared flag that cancels a running generation at the next stage boundary.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels every generation holding a clone of this token.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the token was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Hears stage starts and ends (possibly from several threads), e.g. to time them.
pub trait ExecutionObserver: Sync {
    /// A stage is about to run (or is being served from the cache).
    fn stage_started(&self, _stage: u32) {}
    /// A stage finished: from the cache or run, successfully or not.
    fn stage_finished(&self, _stage: u32, _cache: CacheOutcome, _ok: bool) {}
    /// A running stage has evaluated `candidates_done` candidates so far (long kernels report
    /// between pieces of their work; the count never exceeds the stage's capacity estimate).
    fn stage_progress(&self, _stage: u32, _candidates_done: u64) {}
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl ExecutionObserver for NoObserver {}

/// Owns the stage cache and the currently published bundle of one session.
///
/// A successful generation replaces the published bundle; a failed, cancelled or stale one
/// leaves it exactly as it was.
#[derive(Debug, Clone, Default)]
pub struct Generator {
    cache: StageCache,
    current: Option<Arc<GeneratedBundle>>,
    published_generation: Option<u64>,
}

impl Generator {
    /// A generator with an empty cache of the default size.
    pub fn new() -> Generator {
        Generator::default()
    }

    /// A generator whose cache keeps at most `entries` stages (0 disables caching).
    pub fn with_cache_entries(entries: usize) -> Generator {
        Generator {
            cache: StageCache::new(entries),
            ..Generator::default()
        }
    }

    /// Generates `plan` without overrides and, on success, publishes the bundle.
    pub fn generate(
        &mut self,
        plan: &CompiledPlan,
        request: &GenerateRequest,
        cancel: &CancelToken,
        observer: &dyn ExecutionObserver,
    ) -> Result<Generated, GenerateError> {
        self.generate_with(plan, request, &Overrides::none(), cancel, observer)
    }

    /// Generates `plan` with the recipe's overrides and mutations and, on success, publishes the
    /// bundle. `stagecraft generate` and the editor's generation service both come here.
    pub fn generate_with(
        &mut self,
        plan: &CompiledPlan,
        request: &GenerateRequest,
        overrides: &Overrides,
        cancel: &CancelToken,
        observer: &dyn ExecutionObserver,
    ) -> Result<Generated, GenerateError> {
        if let Some(published) = self.published_generation {
            if request.generation < published {
                return Err(GenerateError::request(
                    FailureKind::StaleRequest,
                    format!(
                        "request generation {} is older than the published generation {published}",
                        request.generation
                    ),
                ));
            }
        }
        let generated = run_plan_with(plan, request, overrides, &mut self.cache, cancel, observer)?;
        self.current = Some(Arc::clone(&generated.bundle));
        self.published_generation = Some(request.generation);
        Ok(generated)
    }

    /// The published bundle, if any.
    pub fn current(&self) -> Option<&Arc<GeneratedBundle>> {
        self.current.as_ref()
    }

    /// The generation of the published bundle, if any.
    pub fn published_generation(&self) -> Option<u64> {
        self.published_generation
    }

    /// The stage cache.
    pub fn cache(&self) -> &StageCache {
        &self.cache
    }

    /// The stage cache, mutably (to clear it).
    pub fn cache_mut(&mut self) -> &mut StageCache {
        &mut self.cache
    }
}

#[cfg(test)]
pub(crate) mod tests;
