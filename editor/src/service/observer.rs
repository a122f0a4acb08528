//! The observer of the generation service and `stagecraft generate`: stage timings at the
//! editor's edge (the runtime reads no clock) and progress — stages and candidates done — from the
//! executor's stage reports.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use stagecraft_runtime::generate::{CacheOutcome, ExecutionObserver};
use stagecraft_runtime::recipe::CompiledPlan;

/// How far the running generation is, from the executor's stage reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Stages finished (from the cache or run).
    pub stages_done: u64,
    /// Stages in the plan.
    pub stages_total: u64,
    /// Candidates of the finished stages (each stage's capacity estimate).
    pub candidates_done: u64,
    /// Candidates of the whole plan (the sum of the stages' capacity estimates).
    pub candidates_total: u64,
}

impl Progress {
    /// The finished fraction in `0..=1`: by candidates when the plan has any, else by stages.
    pub fn fraction(&self) -> f32 {
        let (done, total) = if self.candidates_total > 0 {
            (self.candidates_done, self.candidates_total)
        } else {
            (self.stages_done, self.stages_total)
        };
        if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).clamp(0.0, 1.0) as f32
        }
    }
}

/// One stage's timing and cache outcome, as [`StageObserver`] heard it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageTiming {
    /// Wall time from start to finish.
    pub elapsed: Duration,
    /// Hit, or why the stage ran.
    pub cache: CacheOutcome,
    /// Whether it produced its product.
    pub ok: bool,
}

/// Called with the progress after every finished stage (from the executor's threads).
pub type ProgressHook = Box<dyn Fn(Progress) + Send + Sync>;

/// Times stages and counts progress at the editor's edge (the runtime reads no clock): the one
/// observer of the generation service and `stagecraft generate`.
pub struct StageObserver {
    candidates: BTreeMap<u32, u64>,
    stages_total: u64,
    candidates_total: u64,
    stages_done: AtomicU64,
    candidates_done: AtomicU64,
    /// Candidates evaluated so far by stages still running, as their kernels report them.
    running: Mutex<BTreeMap<u32, u64>>,
    started: Mutex<BTreeMap<u32, Instant>>,
    finished: Mutex<BTreeMap<u32, StageTiming>>,
    hook: Option<ProgressHook>,
}

impl StageObserver {
    /// An observer of one run of `plan`.
    pub fn new(plan: &CompiledPlan) -> StageObserver {
        let candidates: BTreeMap<u32, u64> = plan
            .stages()
            .iter()
            .map(|stage| (stage.id(), stage.capacity().candidates))
            .collect();
        StageObserver {
            stages_total: candidates.len() as u64,
            candidates_total: candidates.values().fold(0u64, |a, b| a.saturating_add(*b)),
            candidates,
            stages_done: AtomicU64::new(0),
            candidates_done: AtomicU64::new(0),
            running: Mutex::new(BTreeMap::new()),
            started: Mutex::new(BTreeMap::new()),
            finished: Mutex::new(BTreeMap::new()),
            hook: None,
        }
    }

    /// Candidates the running stages have reported so far.
    fn running_candidates(&self) -> u64 {
        self.running
            .lock()
            .map(|running| running.values().fold(0u64, |a, b| a.saturating_add(*b)))
            .unwrap_or(0)
    }

    /// The same observer, calling `hook` after every finished stage.
    pub fn with_hook(mut self, hook: ProgressHook) -> StageObserver {
        self.hook = Some(hook);
        self
    }

    /// The progress so far.
    pub fn progress(&self) -> Progress {
        Progress {
            stages_done: self.stages_done.load(Ordering::Relaxed),
            stages_total: self.stages_total,
            candidates_done: self
                .candidates_done
                .load(Ordering::Relaxed)
                .saturating_add(self.running_candidates()),
            candidates_total: self.candidates_total,
        }
    }

    /// Every finished stage's timing, by stage id.
    pub fn timings(&self) -> BTreeMap<u32, StageTiming> {
        self.finished.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// The wall time of stage `stage` in milliseconds, if it finished.
    pub fn time_ms(&self, stage: u32) -> Option<f64> {
        let finished = self.finished.lock().ok()?;
        finished
            .get(&stage)
            .map(|t| t.elapsed.as_secs_f64() * 1000.0)
    }
}

impl ExecutionObserver for StageObserver {
    fn stage_started(&self, stage: u32) {
        if let Ok(mut started) = self.started.lock() {
            started.insert(stage, Instant::now());
        }
    }

    fn stage_finished(&self, stage: u32, cache: CacheOutcome, ok: bool) {
        let start = self
            .started
            .lock()
            .ok()
            .and_then(|s| s.get(&stage).copied());
        let elapsed = start.map(|s| s.elapsed()).unwrap_or_default();
        if let Ok(mut finished) = self.finished.lock() {
            finished.insert(stage, StageTiming { elapsed, cache, ok });
        }
        if let Ok(mut running) = self.running.lock() {
            running.remove(&stage);
        }
        self.stages_done.fetch_add(1, Ordering::Relaxed);
        let candidates = self.candidates.get(&stage).copied().unwrap_or(0);
        self.candidates_done
            .fetch_add(candidates, Ordering::Relaxed);
        if let Some(hook) = &self.hook {
            hook(self.progress());
        }
    }

    fn stage_progress(&self, stage: u32, candidates_done: u64) {
        let estimate = self.candidates.get(&stage).copied().unwrap_or(0);
        if let Ok(mut running) = self.running.lock() {
            running.insert(stage, candidates_done.min(estimate));
        }
        if let Some(hook) = &self.hook {
            hook(self.progress());
        }
    }
}
