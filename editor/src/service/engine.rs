//! What turns one request into a [`Generation`]: the runtime's compiler and generator (with its
//! stage cache), or a custom function for tests and benchmarks.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use stagecraft_runtime::generate::{
    run_isolated, CacheOutcome, CancelToken, ExecutionMode, FrozenInputs, GenerateRequest,
    Generated, Generator,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::recipe_file;
use stagecraft_runtime::recipe::{compile_in, CompiledPlan, ProjectDocs, RecipeSource};

use super::observer::{Progress, StageObserver};
use super::{Generation, GenerationError, GenerationInputs, IsolatedRun, RequestKey, StageSummary};
use crate::session::PreviewContent;

/// One request, as the thread gets it.
pub(super) struct Job {
    pub(super) key: RequestKey,
    /// `None` when the recipe is missing.
    pub(super) inputs: Option<GenerationInputs>,
    pub(super) cancel: CancelToken,
    pub(super) progress: Arc<Mutex<Option<Progress>>>,
    /// The stage to re-run alone against these frozen inputs, after the whole recipe.
    pub(super) isolation: Option<Arc<FrozenInputs>>,
}

/// Makes content from generation inputs without the runtime generator (tests and benchmarks).
pub type CustomGenerator =
    Box<dyn FnMut(&GenerationInputs) -> Result<PreviewContent, GenerationError> + Send>;

/// What turns a request into a [`Generation`]: the runtime generator with its stage cache, or a
/// custom function.
pub(super) enum Engine {
    Runtime {
        generator: Generator,
        registry: Registry,
        /// Counts runs, so each request's generation number grows (the runtime refuses older).
        runs: u64,
    },
    Custom(CustomGenerator),
}

impl Engine {
    pub(super) fn runtime() -> Engine {
        Engine::Runtime {
            generator: Generator::default(),
            registry: Registry::standard(),
            runs: 0,
        }
    }

    /// Runs one job; `progress` is filled in as stages finish.
    pub(super) fn run(&mut self, job: &Job) -> Generation {
        let started = Instant::now();
        let mut generation = Generation {
            key: job.key.clone(),
            result: Err(GenerationError::MissingRecipe(job.key.recipe.clone())),
            stages: BTreeMap::new(),
            elapsed_ms: 0.0,
            isolated: None,
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
    let docs = ProjectDocs {
        families: &inputs.families,
        libraries: &inputs.chunk_libraries,
        recipes: Some(&inputs.subrecipes),
        trees: None,
    };
    let compiled = compile_in(&inputs.recipe, docs, registry, source);
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
    let overrides = Overrides::new(inputs.overrides.clone());
    let generated = generator.generate_with(&plan, request, &overrides, &job.cancel, &observer);
    if let Some(frozen) = &job.isolation {
        generation.isolated = Some(isolated_run(
            generator, &plan, request, &overrides, frozen, job,
        ));
    }
    match generated {
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

/// Re-runs the stage `frozen` isolates against its frozen inputs, on the generator's cache (an
/// unchanged stage is a hit, a re-run is cached like any stage).
fn isolated_run(
    generator: &mut Generator,
    plan: &CompiledPlan,
    request: &GenerateRequest,
    overrides: &Overrides,
    frozen: &FrozenInputs,
    job: &Job,
) -> IsolatedRun {
    let cache = generator.cache_mut();
    let ran = run_isolated(
        plan,
        request,
        overrides,
        frozen,
        cache,
        &job.cancel,
        &stagecraft_runtime::generate::NoObserver,
    );
    IsolatedRun {
        stage: frozen.stage(),
        frozen: frozen.digest(),
        cache_hit: ran.as_ref().is_ok_and(|r| r.report.hits() == 1),
        result: ran.map(|r| r.bundle),
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
