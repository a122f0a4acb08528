//! Background regeneration for the Recipe graph: a named thread with a stage cache, fed through
//! a channel, whose results are stamped with the document revision they were made from.
//!
//! The stale-result rule: an outcome replaces the current one only if no newer revision has been
//! requested since ([`GenerationWorker::offer`]); older outcomes are dropped, never shown. The
//! worker also skips queued requests that a newer one superseded before it started them.

use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use stagecraft_runtime::generate::{
    CacheOutcome, CancelToken, ExecutionMode, ExecutionObserver, GenerateRequest, Generator,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{recipe_file, Project};
use stagecraft_runtime::recipe::{compile, RecipeSource};

/// The last output of one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageSummary {
    /// Objects generated.
    pub objects: u64,
    /// Candidates rejected (scatter) or cells pruned (streaming).
    pub rejected: u64,
    /// Whether the stage came from the cache.
    pub cache_hit: bool,
    /// Wall time of the stage in milliseconds (lookup or run), measured here at the editor edge.
    pub time_ms: Option<f64>,
    /// Why the stage failed, if it did.
    pub error: Option<String>,
}

/// One finished generation of one recipe.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The document revision it was made from.
    pub revision: u64,
    /// The recipe id.
    pub recipe: String,
    /// Per stage, by id (failed stages carry their error).
    pub stages: BTreeMap<u32, StageSummary>,
    /// Why the whole run failed (compile errors, request failures), if it did.
    pub error: Option<String>,
    /// Wall time of the run in milliseconds.
    pub elapsed_ms: f64,
}

struct Job {
    revision: u64,
    project: Arc<Project>,
    recipe: String,
}

/// A handle on the generation thread and the newest accepted outcome.
pub struct GenerationWorker {
    jobs: Option<Sender<Job>>,
    results: Receiver<Outcome>,
    requested: u64,
    current: Option<Outcome>,
}

impl Default for GenerationWorker {
    fn default() -> Self {
        GenerationWorker::spawn()
    }
}

impl GenerationWorker {
    /// Starts the `stagecraft-graph-gen` thread. If the thread cannot start, requests are
    /// dropped and no outcome arrives (the graph still edits; it shows no summaries).
    pub fn spawn() -> GenerationWorker {
        let (jobs_tx, jobs_rx) = channel::<Job>();
        let (results_tx, results_rx) = channel::<Outcome>();
        let started = std::thread::Builder::new()
            .name("stagecraft-graph-gen".into())
            .spawn(move || run(jobs_rx, results_tx))
            .is_ok();
        GenerationWorker {
            jobs: started.then_some(jobs_tx),
            results: results_rx,
            requested: 0,
            current: None,
        }
    }

    /// Asks for recipe `recipe` of `project` to be generated as revision `revision` (which
    /// should grow with every edit).
    pub fn request(&mut self, revision: u64, project: Arc<Project>, recipe: &str) {
        self.requested = self.requested.max(revision);
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(Job {
                revision,
                project,
                recipe: recipe.to_owned(),
            });
        }
    }

    /// The newest revision requested.
    pub fn requested(&self) -> u64 {
        self.requested
    }

    /// Takes finished outcomes off the channel; returns whether the current one changed.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Ok(outcome) = self.results.try_recv() {
            changed |= self.offer(outcome);
        }
        changed
    }

    /// Applies the stale-result rule: `outcome` becomes current only if it was made from the
    /// newest requested revision; returns whether it did.
    pub fn offer(&mut self, outcome: Outcome) -> bool {
        if outcome.revision < self.requested {
            return false;
        }
        self.current = Some(outcome);
        true
    }

    /// The newest accepted outcome.
    pub fn current(&self) -> Option<&Outcome> {
        self.current.as_ref()
    }

    /// Whether a requested revision has not come back yet.
    pub fn is_busy(&self) -> bool {
        self.current
            .as_ref()
            .is_none_or(|outcome| outcome.revision < self.requested)
            && self.requested > 0
    }
}

/// Times stages at the editor edge (the runtime reads no clock).
#[derive(Default)]
struct StageTimer {
    started: Mutex<BTreeMap<u32, Instant>>,
    elapsed_ms: Mutex<BTreeMap<u32, f64>>,
}

impl ExecutionObserver for StageTimer {
    fn stage_started(&self, stage: u32) {
        if let Ok(mut started) = self.started.lock() {
            started.insert(stage, Instant::now());
        }
    }

    fn stage_finished(&self, stage: u32, _cache: CacheOutcome, _ok: bool) {
        let start = self
            .started
            .lock()
            .ok()
            .and_then(|s| s.get(&stage).copied());
        if let (Some(start), Ok(mut elapsed)) = (start, self.elapsed_ms.lock()) {
            elapsed.insert(stage, start.elapsed().as_secs_f64() * 1000.0);
        }
    }
}

impl StageTimer {
    fn time_ms(&self, stage: u32) -> Option<f64> {
        self.elapsed_ms.lock().ok()?.get(&stage).copied()
    }
}

/// The thread body: newest job first, older queued jobs skipped.
fn run(jobs: Receiver<Job>, results: Sender<Outcome>) {
    let mut generator = Generator::default();
    let registry = Registry::standard();
    while let Ok(mut job) = jobs.recv() {
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        let outcome = generate(&mut generator, &registry, &job);
        if results.send(outcome).is_err() {
            return;
        }
    }
}

/// Compiles and generates one job's recipe, summarising each stage.
fn generate(generator: &mut Generator, registry: &Registry, job: &Job) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        revision: job.revision,
        recipe: job.recipe.clone(),
        stages: BTreeMap::new(),
        error: None,
        elapsed_ms: 0.0,
    };
    let Some(recipe) = job.project.recipes.get(&job.recipe) else {
        outcome.error = Some(format!("the recipe `{}` is missing", job.recipe));
        return outcome;
    };
    let file = recipe_file(&job.recipe);
    let source = RecipeSource {
        file: &file,
        tree: None,
    };
    let compiled = compile(recipe, &job.project.families, registry, source);
    match compiled.plan {
        None => {
            let first = compiled
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.message.clone())
                .unwrap_or_else(|| "it has errors".to_owned());
            outcome.error = Some(format!("does not compile: {first}"));
        }
        Some(plan) => {
            let request = GenerateRequest {
                root_seed: job.project.manifest.root_seed,
                mode: ExecutionMode::Parallel,
                generation: job.revision,
            };
            let timer = StageTimer::default();
            match generator.generate(&plan, &request, &CancelToken::new(), &timer) {
                Ok(generated) => {
                    for record in &generated.bundle.stages {
                        let cache_hit =
                            generated.report.stages.iter().any(|run| {
                                run.stage == record.stage && run.cache == CacheOutcome::Hit
                            });
                        outcome.stages.insert(
                            record.stage,
                            StageSummary {
                                objects: record.summary.objects,
                                rejected: record.summary.rejected,
                                cache_hit,
                                time_ms: timer.time_ms(record.stage),
                                error: None,
                            },
                        );
                    }
                }
                Err(error) => {
                    for failure in &error.failures {
                        let text = format!("{}: {}", failure.kind.name(), failure.message);
                        match failure.stage {
                            Some(stage) => {
                                outcome.stages.insert(
                                    stage,
                                    StageSummary {
                                        objects: 0,
                                        rejected: 0,
                                        cache_hit: false,
                                        time_ms: timer.time_ms(stage),
                                        error: Some(text),
                                    },
                                );
                            }
                            None => outcome.error = Some(text),
                        }
                    }
                }
            }
        }
    }
    outcome.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(revision: u64) -> Outcome {
        Outcome {
            revision,
            recipe: "r".into(),
            stages: BTreeMap::new(),
            error: None,
            elapsed_ms: 0.0,
        }
    }

    #[test]
    fn stale_results_are_dropped() {
        let mut worker = GenerationWorker::spawn();
        let project = Arc::new(Project::default());
        worker.request(1, project.clone(), "r");
        worker.request(2, project, "r");
        assert!(!worker.offer(outcome(1)), "revision 1 is older than 2");
        assert!(worker.current().is_none(), "a stale result is never shown");
        assert!(worker.is_busy());
        assert!(worker.offer(outcome(2)));
        assert_eq!(worker.current().map(|o| o.revision), Some(2));
        assert!(!worker.is_busy());
        assert!(!worker.offer(outcome(1)));
        assert_eq!(worker.current().map(|o| o.revision), Some(2));
    }

    #[test]
    fn the_thread_answers_the_newest_request() {
        let mut worker = GenerationWorker::spawn();
        let project = Arc::new(Project::default());
        worker.request(1, project.clone(), "missing");
        worker.request(2, project, "missing");
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while worker.current().map(|o| o.revision) != Some(2) && Instant::now() < deadline {
            worker.poll();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let current = worker.current().expect("an outcome");
        assert_eq!(current.revision, 2);
        assert!(current
            .error
            .as_deref()
            .is_some_and(|e| e.contains("missing")));
    }
}
