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

mod engine;
mod observer;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use stagecraft_io::scenario::recipe_overrides;
use stagecraft_runtime::generate::{
    CancelToken, FailureKind, FrozenInputs, GenerateError, GeneratedBundle,
};
use stagecraft_runtime::project::chunk_library::ChunkLibrary;
use stagecraft_runtime::project::{AssetFamily, Diagnostic, OverrideSet, Project, Recipe};

use crate::document::Document;
use crate::edits::DocId;
use crate::session::PreviewContent;
pub use engine::CustomGenerator;
use engine::{Engine, Job};
pub use observer::{Progress, ProgressHook, StageObserver, StageTiming};

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
    /// The isolated stage re-run against frozen inputs with it, and the frozen inputs' digest
    /// ([`GenerationService::isolate`]).
    pub isolation: Option<(u32, [u8; 32])>,
}

/// Everything a generation reads: one recipe, the families, the overrides of the recipe and the
/// root seed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerationInputs {
    /// The recipe.
    pub recipe: Recipe,
    /// Every asset family of the project, by id.
    pub families: BTreeMap<String, AssetFamily>,
    /// Every chunk library of the project, by id.
    pub chunk_libraries: BTreeMap<String, ChunkLibrary>,
    /// The override sets of this recipe, in id order.
    pub overrides: Vec<OverrideSet>,
    /// The root seed.
    pub seed: u64,
    /// The recipes it runs through subrecipe stages, directly or not, by id.
    pub subrecipes: BTreeMap<String, Recipe>,
}

/// The recipes `recipe` of `project` reaches through subrecipe stages, directly or not, by id
/// (a cycle or a missing file is the compiler's to report).
pub fn subrecipes_of(project: &Project, recipe: &Recipe) -> BTreeMap<String, Recipe> {
    let mut found: BTreeMap<String, Recipe> = BTreeMap::new();
    let mut pending: Vec<&Recipe> = vec![recipe];
    while let Some(next) = pending.pop() {
        for file in next.subrecipe_files() {
            let Some((_, id)) = stagecraft_runtime::project::classify(file) else {
                continue;
            };
            if let Some(child) = project.recipes.get(&id) {
                if let std::collections::btree_map::Entry::Vacant(entry) = found.entry(id) {
                    entry.insert(child.clone());
                    pending.push(child);
                }
            }
        }
    }
    found
}

/// Compiles recipe `id` of `project` (the document as edited) as the generation service does:
/// with the project's recipes, so its subrecipe stages compile with their child runs. `None`
/// when the project has no recipe `id`.
pub fn compile_recipe(
    project: &Project,
    id: &str,
    registry: &stagecraft_runtime::ops::registry::Registry,
) -> Option<stagecraft_runtime::recipe::CompileOutcome> {
    stagecraft_runtime::recipe::compile_recipe_of(project, None, id, registry)
}

impl GenerationInputs {
    /// The inputs of recipe `recipe` of `project`, if it has one by that id.
    pub fn of(project: &Project, recipe: &str) -> Option<GenerationInputs> {
        let recipe = project.recipes.get(recipe)?;
        Some(GenerationInputs {
            recipe: recipe.clone(),
            families: project.families.clone(),
            chunk_libraries: project.chunk_libraries.clone(),
            // The sets `stagecraft simulate`, `generate` and Python apply to this recipe.
            overrides: recipe_overrides(project, &recipe.id).sets().to_vec(),
            seed: project.manifest.root_seed,
            subrecipes: subrecipes_of(project, recipe),
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
            && self.chunk_libraries == project.chunk_libraries
            && self.overrides.iter().eq(overrides)
            && self.subrecipes == subrecipes_of(project, current)
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
    /// The isolated stage re-run against its frozen inputs, when the request asked for one and
    /// the recipe compiled.
    pub isolated: Option<IsolatedRun>,
}

/// One stage re-run alone against frozen inputs (`stagecraft_runtime::generate::isolate`), as a
/// generation answers an isolating request.
#[derive(Clone, Debug)]
pub struct IsolatedRun {
    /// The stage.
    pub stage: u32,
    /// The digest of the frozen inputs it ran against.
    pub frozen: [u8; 32],
    /// The stage's output alone, or why it did not run (a rewired stage, a failed kernel).
    pub result: Result<Arc<GeneratedBundle>, GenerateError>,
    /// Whether the stage cache served it.
    pub cache_hit: bool,
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
    /// The stage whose inputs are frozen: every request re-runs it against them.
    isolation: Option<Arc<FrozenInputs>>,
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
            isolation: None,
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
            isolation: self
                .isolation_for(recipe)
                .map(|frozen| (frozen.stage(), frozen.digest())),
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
                && newest.isolation == key.isolation
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
            isolation: self.isolation_for(&key.recipe).cloned(),
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
        let mut generation = generation;
        self.keep_content_of_same_inputs(&mut generation);
        if let Ok(content) = &generation.result {
            self.content = Some(Arc::clone(content));
        }
        self.latest = Some(Arc::new(generation));
        self.version += 1;
        true
    }

    /// A generation of the same document state as the one on show (it asked for another
    /// isolation only) made the same content: the content on show stays, so nothing downstream
    /// (the simulated world) is rebuilt.
    fn keep_content_of_same_inputs(&self, generation: &mut Generation) {
        let Some(previous) = &self.latest else {
            return;
        };
        let same_state = previous.key.document == generation.key.document
            && previous.key.revision == generation.key.revision
            && previous.key.recipe == generation.key.recipe;
        if let (true, Some(shown), Ok(content)) =
            (same_state, previous.content(), &generation.result)
        {
            if shown.bundle.digest() == content.bundle.digest() {
                generation.result = Ok(Arc::clone(shown));
            }
        }
    }

    /// Freezes the inputs of a stage (`Some`) or releases them (`None`): every later request
    /// for their recipe also re-runs that stage alone against them
    /// ([`Generation::isolated`]); changing it asks again at the next sync.
    pub fn isolate(&mut self, frozen: Option<Arc<FrozenInputs>>) {
        let same = match (&self.isolation, &frozen) {
            (Some(a), Some(b)) => a.digest() == b.digest() && a.stage() == b.stage(),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.isolation = frozen;
            self.seen = None;
        }
    }

    /// The frozen inputs, when they belong to `recipe`.
    fn isolation_for(&self, recipe: &str) -> Option<&Arc<FrozenInputs>> {
        self.isolation
            .as_ref()
            .filter(|frozen| frozen.recipe() == recipe)
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

    /// Points `held` at the newest generation when it is not that one already (a pointer
    /// comparison, so following the service each frame costs nothing while nothing changed).
    pub fn follow_latest(&self, held: &mut Option<Arc<Generation>>) {
        let newest = self.latest();
        let same = match (&*held, newest) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            *held = newest.cloned();
        }
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
/// running) scenario, else the last one previewed, else the first the manifest lists (not a
/// subrecipe only other recipes use), else the first.
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
    first_recipe(project)
}

/// The recipe a project opens on: the first the manifest lists (not a subrecipe only other
/// recipes use, which cannot run alone), else the first by id.
pub fn first_recipe(project: &Project) -> Option<String> {
    project
        .manifest
        .recipes
        .iter()
        .find(|id| project.recipes.contains_key(*id))
        .or_else(|| project.recipes.keys().next())
        .cloned()
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
