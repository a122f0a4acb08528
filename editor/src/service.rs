//! The one generation service: the editor's only pipeline from a recipe to generated content,
//! owned by the app and read by the Viewport, the Recipe graph, Provenance and Diagnostics.
//!
//! One named background thread (`stagecraft-gen`) keeps one runtime [`Generator`] with its stage
//! cache. Requests are stamped with the [`Document`]'s identity and revision, so noticing an edit
//! costs two integer comparisons a frame: nothing is cloned or compared until the revision moves.
//! The newest request wins: a running generation that a newer request supersedes is cancelled
//! through its [`CancelToken`], queued ones are skipped unstarted, and a result made from anything
//! but the newest request is dropped, never shown. Results carry typed errors
//! ([`GenerationError`]) and per-stage summaries timed by [`StageObserver`], the observer that
//! `stagecraft generate` uses too.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stagecraft_runtime::generate::{
    CacheOutcome, CancelToken, ExecutionMode, ExecutionObserver, FailureKind, GenerateError,
    GenerateRequest, Generated, Generator,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    recipe_file, AssetFamily, Diagnostic, OverrideSet, Project, Recipe,
};
use stagecraft_runtime::recipe::{compile, CompiledPlan, RecipeSource};

use crate::document::Document;
use crate::edits::DocId;
use crate::session::PreviewContent;

/// The name of the generation thread.
pub const THREAD_NAME: &str = "stagecraft-gen";

/// Which state of which document a request was made from.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestKey {
    /// [`Document::id`] of the document.
    pub document: u64,
    /// [`Document::revision`] when the request was made.
    pub revision: u64,
    /// The recipe generated.
    pub recipe: String,
}

/// Everything a generation reads: one recipe, the families, the overrides of the recipe and the
/// root seed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerationInputs {
    /// The recipe.
    pub recipe: Recipe,
    /// Every asset family of the project, by id.
    pub families: BTreeMap<String, AssetFamily>,
    /// The override sets of this recipe, in id order.
    pub overrides: Vec<OverrideSet>,
    /// The root seed.
    pub seed: u64,
}

impl GenerationInputs {
    /// The inputs of recipe `recipe` of `project`, if it has one by that id.
    pub fn of(project: &Project, recipe: &str) -> Option<GenerationInputs> {
        let recipe = project.recipes.get(recipe)?;
        Some(GenerationInputs {
            recipe: recipe.clone(),
            families: project.families.clone(),
            overrides: project
                .overrides
                .values()
                .filter(|set| set.recipe == recipe.id)
                .cloned()
                .collect(),
            seed: project.manifest.root_seed,
        })
    }

    /// Whether these are the inputs of recipe `recipe` of `project` (compared in place).
    fn matches(&self, project: &Project, recipe: &str) -> bool {
        let Some(current) = project.recipes.get(recipe) else {
            return false;
        };
        let overrides = project
            .overrides
            .values()
            .filter(|set| set.recipe == current.id);
        self.recipe == *current
            && self.seed == project.manifest.root_seed
            && self.families == project.families
            && self.overrides.iter().eq(overrides)
    }
}

/// Why a generation produced no content.
#[derive(Clone, Debug, PartialEq)]
pub enum GenerationError {
    /// The project has no recipe by that id.
    MissingRecipe(String),
    /// The recipe does not compile; its diagnostics (the Diagnostics tab shows them located,
    /// from validation).
    Compile {
        /// The recipe.
        recipe: String,
        /// The compiler's diagnostics, errors first.
        diagnostics: Vec<Diagnostic>,
    },
    /// The executor refused or failed: the cause first, then the stages it took along.
    Generate(GenerateError),
    /// A generator other than the runtime's (tests, fixtures) failed.
    Other(String),
}

impl std::fmt::Display for GenerationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerationError::MissingRecipe(id) => write!(f, "the recipe `{id}` is missing"),
            GenerationError::Compile {
                recipe,
                diagnostics,
            } => {
                let first = diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or("it has errors", |d| d.message.as_str());
                write!(f, "the recipe `{recipe}` does not compile: {first}")
            }
            GenerationError::Generate(error) => write!(f, "generation failed: {error}"),
            GenerationError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for GenerationError {}

/// The last output of one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageSummary {
    /// Objects generated.
    pub objects: u64,
    /// Candidates rejected (scatter) or cells pruned (streaming).
    pub rejected: u64,
    /// Whether the stage came from the cache.
    pub cache_hit: bool,
    /// Wall time of the stage in milliseconds (lookup or run), measured at the editor edge.
    pub time_ms: Option<f64>,
    /// Why the stage failed, if it did.
    pub error: Option<String>,
}

/// One finished generation of one recipe.
#[derive(Clone, Debug)]
pub struct Generation {
    /// The request it answers.
    pub key: RequestKey,
    /// The content, or why there is none.
    pub result: Result<Arc<PreviewContent>, GenerationError>,
    /// Per stage, by id (failed stages carry their error).
    pub stages: BTreeMap<u32, StageSummary>,
    /// Wall time of compile and generation, milliseconds.
    pub elapsed_ms: f64,
}

impl Generation {
    /// The recipe generated.
    pub fn recipe(&self) -> &str {
        &self.key.recipe
    }

    /// The content, if generation succeeded.
    pub fn content(&self) -> Option<&Arc<PreviewContent>> {
        self.result.as_ref().ok()
    }

    /// The bundle digest as hex, if generation succeeded.
    pub fn digest_hex(&self) -> Option<String> {
        self.content().map(|c| c.bundle.digest_hex())
    }
}

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
            started: Mutex::new(BTreeMap::new()),
            finished: Mutex::new(BTreeMap::new()),
            hook: None,
        }
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
            candidates_done: self.candidates_done.load(Ordering::Relaxed),
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
        self.stages_done.fetch_add(1, Ordering::Relaxed);
        let candidates = self.candidates.get(&stage).copied().unwrap_or(0);
        self.candidates_done
            .fetch_add(candidates, Ordering::Relaxed);
        if let Some(hook) = &self.hook {
            hook(self.progress());
        }
    }
}

/// Makes content from generation inputs without the runtime generator (tests and benchmarks).
pub type CustomGenerator =
    Box<dyn FnMut(&GenerationInputs) -> Result<PreviewContent, GenerationError> + Send>;

/// What turns a request into a [`Generation`]: the runtime generator with its stage cache, or a
/// custom function.
enum Engine {
    Runtime {
        generator: Generator,
        registry: Registry,
        /// Counts runs, so each request's generation number grows (the runtime refuses older).
        runs: u64,
    },
    Custom(CustomGenerator),
}

impl Engine {
    fn runtime() -> Engine {
        Engine::Runtime {
            generator: Generator::default(),
            registry: Registry::standard(),
            runs: 0,
        }
    }

    /// Runs one job; `progress` is filled in as stages finish.
    fn run(&mut self, job: &Job) -> Generation {
        let started = Instant::now();
        let mut generation = Generation {
            key: job.key.clone(),
            result: Err(GenerationError::MissingRecipe(job.key.recipe.clone())),
            stages: BTreeMap::new(),
            elapsed_ms: 0.0,
        };
        let Some(inputs) = &job.inputs else {
            return generation;
        };
        match self {
            Engine::Custom(generate) => {
                generation.result = generate(inputs).map(Arc::new);
            }
            Engine::Runtime {
                generator,
                registry,
                runs,
            } => {
                *runs += 1;
                let request = GenerateRequest {
                    root_seed: inputs.seed,
                    mode: ExecutionMode::Parallel,
                    generation: *runs,
                };
                run_runtime(generator, registry, &request, job, inputs, &mut generation);
            }
        }
        generation.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        generation
    }
}

/// Compiles and generates one job's recipe with the runtime, summarising each stage.
fn run_runtime(
    generator: &mut Generator,
    registry: &Registry,
    request: &GenerateRequest,
    job: &Job,
    inputs: &GenerationInputs,
    generation: &mut Generation,
) {
    let file = recipe_file(&inputs.recipe.id);
    let source = RecipeSource {
        file: &file,
        tree: None,
    };
    let compiled = compile(&inputs.recipe, &inputs.families, registry, source);
    let Some(plan) = compiled.plan else {
        let mut diagnostics = compiled.diagnostics;
        diagnostics.sort_by_key(|d| !d.is_error());
        generation.result = Err(GenerationError::Compile {
            recipe: inputs.recipe.id.clone(),
            diagnostics,
        });
        return;
    };
    let shared = Arc::clone(&job.progress);
    let observer = StageObserver::new(&plan).with_hook(Box::new(move |progress| {
        if let Ok(mut slot) = shared.lock() {
            *slot = Some(progress);
        }
    }));
    if let Ok(mut slot) = job.progress.lock() {
        *slot = Some(observer.progress());
    }
    match generator.generate(&plan, request, &job.cancel, &observer) {
        Ok(generated) => {
            generation.stages = summaries(&generated, &observer);
            generation.result = Ok(Arc::new(PreviewContent {
                bundle: generated.bundle,
                families: inputs.families.clone(),
            }));
        }
        Err(error) => {
            for failure in &error.failures {
                if let Some(stage) = failure.stage {
                    generation.stages.insert(
                        stage,
                        StageSummary {
                            objects: 0,
                            rejected: 0,
                            cache_hit: false,
                            time_ms: observer.time_ms(stage),
                            error: Some(format!("{}: {}", failure.kind.name(), failure.message)),
                        },
                    );
                }
            }
            generation.result = Err(GenerationError::Generate(error));
        }
    }
}

fn summaries(generated: &Generated, observer: &StageObserver) -> BTreeMap<u32, StageSummary> {
    generated
        .bundle
        .stages
        .iter()
        .map(|record| {
            let cache_hit = generated
                .report
                .stages
                .iter()
                .any(|run| run.stage == record.stage && run.cache == CacheOutcome::Hit);
            let summary = StageSummary {
                objects: record.summary.objects,
                rejected: record.summary.rejected,
                cache_hit,
                time_ms: observer.time_ms(record.stage),
                error: None,
            };
            (record.stage, summary)
        })
        .collect()
}

/// One request, as the thread gets it.
struct Job {
    key: RequestKey,
    /// `None` when the recipe is missing.
    inputs: Option<GenerationInputs>,
    cancel: CancelToken,
    progress: Arc<Mutex<Option<Progress>>>,
}

/// Where requests run.
enum Runner {
    /// In the calling thread, at once (tests, benchmarks, or when the thread cannot start).
    Inline(Engine),
    /// On the `stagecraft-gen` thread.
    Background {
        jobs: Sender<Job>,
        results: Receiver<Generation>,
    },
}

/// The generation service.
pub struct GenerationService {
    runner: Runner,
    /// The document state last synced with.
    seen: Option<RequestKey>,
    /// The newest request sent and the inputs it was made from.
    requested: Option<(RequestKey, Option<GenerationInputs>)>,
    /// The cancel token and progress of the newest request while it runs.
    running: Option<(CancelToken, Arc<Mutex<Option<Progress>>>)>,
    /// The newest accepted generation.
    latest: Option<Arc<Generation>>,
    /// The newest successful content (kept when a later generation fails or is cancelled).
    content: Option<Arc<PreviewContent>>,
    /// Bumped whenever [`GenerationService::latest`] changes.
    version: u64,
    /// Runs started (cache hits included): one per edit that changes what is generated.
    started: Arc<AtomicU64>,
    /// Whether the user cancelled the newest request.
    cancelled: bool,
}

impl Default for GenerationService {
    fn default() -> Self {
        GenerationService::inline()
    }
}

impl GenerationService {
    /// A service that generates in the calling thread, with the runtime generator.
    pub fn inline() -> GenerationService {
        GenerationService::with_runner(Runner::Inline(Engine::runtime()))
    }

    /// A service that generates in the calling thread with `generate` (tests, benchmarks).
    pub fn custom(
        generate: impl FnMut(&GenerationInputs) -> Result<PreviewContent, GenerationError>
            + Send
            + 'static,
    ) -> GenerationService {
        GenerationService::with_runner(Runner::Inline(Engine::Custom(Box::new(generate))))
    }

    /// A service that generates on the `stagecraft-gen` thread (in the calling thread if the
    /// thread cannot start).
    pub fn background() -> GenerationService {
        GenerationService::spawn(Engine::runtime())
    }

    /// Like [`GenerationService::custom`], on the background thread.
    pub fn custom_background(
        generate: impl FnMut(&GenerationInputs) -> Result<PreviewContent, GenerationError>
            + Send
            + 'static,
    ) -> GenerationService {
        GenerationService::spawn(Engine::Custom(Box::new(generate)))
    }

    fn spawn(engine: Engine) -> GenerationService {
        let (jobs_tx, jobs_rx) = channel::<Job>();
        let (results_tx, results_rx) = channel::<Generation>();
        let started = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&started);
        // The engine moves into the thread only if it starts; otherwise it runs here.
        let slot = Arc::new(Mutex::new(Some(engine)));
        let thread_slot = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                let engine = thread_slot.lock().ok().and_then(|mut e| e.take());
                if let Some(engine) = engine {
                    run(engine, jobs_rx, results_tx, counter);
                }
            });
        let runner = match spawned {
            Ok(_) => Runner::Background {
                jobs: jobs_tx,
                results: results_rx,
            },
            Err(_) => {
                let engine = slot.lock().ok().and_then(|mut e| e.take());
                Runner::Inline(engine.unwrap_or_else(Engine::runtime))
            }
        };
        let mut service = GenerationService::with_runner(runner);
        service.started = started;
        service
    }

    fn with_runner(runner: Runner) -> GenerationService {
        GenerationService {
            runner,
            seen: None,
            requested: None,
            running: None,
            latest: None,
            content: None,
            version: 0,
            started: Arc::new(AtomicU64::new(0)),
            cancelled: false,
        }
    }

    /// Brings the service up to date with `document` for recipe `recipe` (`None`: nothing to
    /// preview): asks for a generation when the document moved on and what the recipe is made of
    /// changed, and takes the newest result. Returns true when [`GenerationService::latest`]
    /// changed.
    pub fn sync(&mut self, document: &Document, recipe: Option<&str>) -> bool {
        self.sync_parts(
            document.id(),
            document.revision(),
            document.project(),
            recipe,
        )
    }

    /// [`GenerationService::sync`] over a bare project: `document` and `revision` identify its
    /// state (the revision must grow whenever the project changes).
    pub fn sync_parts(
        &mut self,
        document: u64,
        revision: u64,
        project: &Project,
        recipe: Option<&str>,
    ) -> bool {
        let Some(recipe) = recipe else {
            return self.clear();
        };
        let key = RequestKey {
            document,
            revision,
            recipe: recipe.to_owned(),
        };
        let mut changed = false;
        if self.seen.as_ref() != Some(&key) {
            changed = self.request(key, project);
        }
        self.poll() || changed
    }

    /// Asks for recipe `key.recipe` of `project` unless the inputs are those of the newest request
    /// (an edit elsewhere in the project): then the newest request, running or done, answers it.
    /// Returns true when a generation made here at once was shown.
    fn request(&mut self, key: RequestKey, project: &Project) -> bool {
        self.seen = Some(key.clone());
        if let Some((newest, inputs)) = &self.requested {
            let unchanged = newest.document == key.document
                && newest.recipe == key.recipe
                && match inputs {
                    Some(inputs) => inputs.matches(project, &key.recipe),
                    None => !project.recipes.contains_key(&key.recipe),
                };
            if unchanged {
                return false;
            }
        }
        if let Some((cancel, _)) = self.running.take() {
            cancel.cancel();
        }
        self.cancelled = false;
        let inputs = GenerationInputs::of(project, &key.recipe);
        let job = Job {
            key: key.clone(),
            inputs: inputs.clone(),
            cancel: CancelToken::new(),
            progress: Arc::new(Mutex::new(None)),
        };
        self.requested = Some((key, inputs));
        let job = match &mut self.runner {
            Runner::Inline(_) => job,
            Runner::Background { jobs, .. } => {
                self.running = Some((job.cancel.clone(), Arc::clone(&job.progress)));
                match jobs.send(job) {
                    Ok(()) => return false,
                    Err(unsent) => {
                        // The thread has gone: generate here from now on.
                        self.runner = Runner::Inline(Engine::runtime());
                        self.running = None;
                        unsent.0
                    }
                }
            }
        };
        let Runner::Inline(engine) = &mut self.runner else {
            return false;
        };
        self.started.fetch_add(1, Ordering::Relaxed);
        let generation = engine.run(&job);
        self.accept(generation)
    }

    /// Takes finished generations off the channel; returns true when the newest one arrived.
    pub fn poll(&mut self) -> bool {
        let Runner::Background { results, .. } = &self.runner else {
            return false;
        };
        let mut arrived = Vec::new();
        while let Ok(generation) = results.try_recv() {
            arrived.push(generation);
        }
        let mut changed = false;
        for generation in arrived {
            changed |= self.accept(generation);
        }
        changed
    }

    /// Applies the stale-result rule: `generation` is shown only if it answers the newest request
    /// and the user did not cancel it. Returns whether it was.
    fn accept(&mut self, generation: Generation) -> bool {
        let newest = self.requested.as_ref().map(|(key, _)| key);
        if newest != Some(&generation.key) || self.cancelled {
            return false;
        }
        if let Err(GenerationError::Generate(error)) = &generation.result {
            if error.kind() == FailureKind::Cancellation {
                return false;
            }
        }
        self.running = None;
        if let Ok(content) = &generation.result {
            self.content = Some(Arc::clone(content));
        }
        self.latest = Some(Arc::new(generation));
        self.version += 1;
        true
    }

    /// Forgets everything (no recipe to preview); returns whether anything was shown.
    fn clear(&mut self) -> bool {
        if let Some((cancel, _)) = self.running.take() {
            cancel.cancel();
        }
        let had = self.latest.is_some() || self.content.is_some();
        self.seen = None;
        self.requested = None;
        self.latest = None;
        self.content = None;
        if had {
            self.version += 1;
        }
        had
    }

    /// Cancels the running generation; the previous content stays on show. The next edit asks
    /// again.
    pub fn cancel(&mut self) {
        if let Some((cancel, _)) = self.running.take() {
            cancel.cancel();
            self.cancelled = true;
        }
    }

    /// Whether the user cancelled the newest request.
    pub fn was_cancelled(&self) -> bool {
        self.cancelled
    }

    /// Whether the newest request is still being generated.
    pub fn is_busy(&self) -> bool {
        self.running.is_some()
    }

    /// How far the running generation is (`None` when idle or before its plan is compiled).
    pub fn progress(&self) -> Option<Progress> {
        let (_, progress) = self.running.as_ref()?;
        progress.lock().ok().and_then(|p| *p)
    }

    /// The newest accepted generation (its result may be an error).
    pub fn latest(&self) -> Option<&Arc<Generation>> {
        self.latest.as_ref()
    }

    /// The newest successful content.
    pub fn content(&self) -> Option<&Arc<PreviewContent>> {
        self.content.as_ref()
    }

    /// Why the newest accepted generation has no content, if it has none.
    pub fn problem(&self) -> Option<&GenerationError> {
        self.latest.as_ref()?.result.as_ref().err()
    }

    /// Bumped whenever [`GenerationService::latest`] changes.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The recipe of the newest request.
    pub fn recipe(&self) -> Option<&str> {
        self.requested.as_ref().map(|(key, _)| key.recipe.as_str())
    }

    /// How many generations have started (a cache hit counts): an edit that changes what the
    /// previewed recipe is made of starts exactly one.
    pub fn generations_started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }
}

/// The recipe the editor previews: the selected recipe, else the recipe of the selected (or
/// running) scenario, else the last one previewed, else the first.
pub fn focus_recipe(
    document: &Document,
    scenario: Option<&str>,
    last: Option<&str>,
) -> Option<String> {
    focus_recipe_in(
        document.project(),
        document.selection().doc.as_ref(),
        scenario,
        last,
    )
}

/// [`focus_recipe`] over a bare project and the selected document.
pub fn focus_recipe_in(
    project: &Project,
    selected: Option<&DocId>,
    scenario: Option<&str>,
    last: Option<&str>,
) -> Option<String> {
    if let Some(DocId::Recipe(id)) = selected {
        if project.recipes.contains_key(id) {
            return Some(id.clone());
        }
    }
    let scenario = match selected {
        Some(DocId::Scenario(id)) if project.scenarios.contains_key(id) => Some(id.as_str()),
        _ => scenario,
    };
    if let Some(scenario) = scenario.and_then(|id| project.scenarios.get(id)) {
        return Some(scenario.recipe.clone());
    }
    if let Some(last) = last.filter(|id| project.recipes.contains_key(*id)) {
        return Some(last.to_owned());
    }
    project.recipes.keys().next().cloned()
}

/// The thread body: the newest queued job first, older ones skipped unstarted.
fn run(
    mut engine: Engine,
    jobs: Receiver<Job>,
    results: Sender<Generation>,
    started: Arc<AtomicU64>,
) {
    while let Ok(mut job) = jobs.recv() {
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        if job.cancel.is_cancelled() {
            continue;
        }
        started.fetch_add(1, Ordering::Relaxed);
        let generation = engine.run(&job);
        if results.send(generation).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
