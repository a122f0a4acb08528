//! Recipe engine benchmarks over the example projects:
//!
//! - full regeneration (compile + generate with no cache) of each example, serial and on 2 threads
//!   (target ≤ 100 ms each);
//! - edit-to-result latency: one scatter parameter changed, incremental regeneration with a warm
//!   cache until the new bundle is ready — recompiling the edited recipe included (target ≤ 16 ms).
//!
//! Before criterion's own timings the bench prints medians of a few timed runs of each case.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, Generator, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    asset_paths, load_project, Project, ProjectSources, MANIFEST_FILE,
};
use stagecraft_runtime::project::{ParamValue, Recipe};
use stagecraft_runtime::recipe::{compile, CompiledPlan, RecipeSource};

/// Reads the project folder `projects/<name>` the way the editor does (the runtime does no IO).
fn read_project(name: &str) -> Project {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join("projects").join(name);
    let mut sources = ProjectSources::default();
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let manifest = read(&dir.join(MANIFEST_FILE));
    let add_folder = |folder: &str, suffix: &str, sources: &mut ProjectSources| {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            return;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.ends_with(suffix) {
                let key = format!("{}/{file}", folder.trim_end_matches('/'));
                sources.files.insert(key, read(&entry.path()));
            }
        }
    };
    add_folder("recipes", ".recipe.ron", &mut sources);
    add_folder("scenarios", ".scenario.ron", &mut sources);
    add_folder("overrides", ".overrides.ron", &mut sources);
    for assets in asset_paths(&manifest) {
        add_folder(&assets, ".family.ron", &mut sources);
    }
    sources.files.insert(MANIFEST_FILE.to_owned(), manifest);
    let loaded = load_project(&sources);
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(ToString::to_string)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    loaded.project.unwrap_or_else(|| panic!("{name} loads"))
}

fn compile_recipe(project: &Project, recipe: &Recipe) -> CompiledPlan {
    let source = RecipeSource {
        file: "bench",
        tree: None,
    };
    let outcome = compile(recipe, &project.families, &Registry::standard(), source);
    outcome
        .plan
        .unwrap_or_else(|| panic!("{:?}", outcome.diagnostics))
}

fn first_recipe(project: &Project) -> Recipe {
    project
        .recipes
        .values()
        .next()
        .cloned()
        .unwrap_or_else(|| panic!("a recipe"))
}

fn request(project: &Project, mode: ExecutionMode, generation: u64) -> GenerateRequest {
    GenerateRequest {
        root_seed: project.manifest.root_seed,
        mode,
        generation,
    }
}

/// Compile and generate from scratch (no cache).
fn full(project: &Project, recipe: &Recipe, mode: ExecutionMode) -> u64 {
    let plan = compile_recipe(project, recipe);
    let generated = run_plan(
        &plan,
        &request(project, mode, 0),
        &mut StageCache::new(0),
        &CancelToken::new(),
        &NoObserver,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    generated.bundle.object_count()
}

/// The recipe with the first scatter stage's `candidates_per_cell` set to `value`.
fn edited(recipe: &Recipe, value: i64) -> Recipe {
    let mut recipe = recipe.clone();
    if let Some(stage) = recipe
        .stages
        .iter_mut()
        .find(|s| s.operator == "environment.scatter")
    {
        stage
            .parameters
            .insert("candidates_per_cell".to_owned(), ParamValue::Int(value));
    }
    recipe
}

/// A generator whose cache holds the base recipe's stages.
fn warm(project: &Project, recipe: &Recipe) -> Generator {
    let mut generator = Generator::new();
    let plan = compile_recipe(project, recipe);
    generator
        .generate(
            &plan,
            &request(project, ExecutionMode::Parallel, 1),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    generator
}

/// Compile the edited recipe and regenerate incrementally; returns the stages that ran.
fn edit(project: &Project, generator: &mut Generator, recipe: &Recipe) -> usize {
    let plan = compile_recipe(project, recipe);
    let generated = generator
        .generate(
            &plan,
            &request(project, ExecutionMode::Parallel, 2),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    generated.report.misses()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("cannot build a {threads}-thread pool: {e}"))
}

fn median(runs: usize, mut call: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| call()).collect();
    times.sort();
    times[runs / 2]
}

fn timed(call: impl FnOnce()) -> Duration {
    let start = Instant::now();
    call();
    start.elapsed()
}

const EXAMPLES: [&str; 3] = ["pine-clearing", "street-block", "tactical-mission"];
const SCATTER_EXAMPLES: [&str; 2] = ["pine-clearing", "street-block"];

fn summary(projects: &BTreeMap<&str, (Project, Recipe)>, two: &rayon::ThreadPool) {
    for (name, (project, recipe)) in projects {
        let objects = full(project, recipe, ExecutionMode::Serial);
        let serial = median(9, || {
            timed(|| {
                black_box(full(project, recipe, ExecutionMode::Serial));
            })
        });
        let parallel = median(9, || {
            timed(|| {
                black_box(two.install(|| full(project, recipe, ExecutionMode::Parallel)));
            })
        });
        println!(
            "generate/full/{name}: serial {:.3} ms, 2 threads {:.3} ms ({objects} objects; target ≤ 100 ms)",
            serial.as_secs_f64() * 1e3,
            parallel.as_secs_f64() * 1e3
        );
    }
    for name in SCATTER_EXAMPLES {
        let Some((project, recipe)) = projects.get(name) else {
            continue;
        };
        let base = warm(project, recipe);
        let changed = edited(recipe, 3);
        let mut ran = 0;
        let latency = median(15, || {
            let mut generator = base.clone();
            two.install(|| timed(|| ran = edit(project, &mut generator, &changed)))
        });
        println!(
            "generate/edit/{name}: {:.3} ms with a warm cache, {ran} stages re-run (target ≤ 16 ms)",
            latency.as_secs_f64() * 1e3
        );
    }
}

fn bench_generate(criterion: &mut Criterion) {
    let projects: BTreeMap<&str, (Project, Recipe)> = EXAMPLES
        .iter()
        .map(|name| {
            let project = read_project(name);
            let recipe = first_recipe(&project);
            (*name, (project, recipe))
        })
        .collect();
    let two = pool(2);
    summary(&projects, &two);

    let mut group = criterion.benchmark_group("generate_full");
    group.sample_size(20);
    for (name, (project, recipe)) in &projects {
        group.bench_function(format!("{name}/serial"), |b| {
            b.iter(|| full(black_box(project), recipe, ExecutionMode::Serial))
        });
        group.bench_function(format!("{name}/2-threads"), |b| {
            b.iter(|| two.install(|| full(black_box(project), recipe, ExecutionMode::Parallel)))
        });
    }
    group.finish();

    let mut group = criterion.benchmark_group("generate_edit_latency");
    group.sample_size(30);
    for name in SCATTER_EXAMPLES {
        let Some((project, recipe)) = projects.get(name) else {
            continue;
        };
        let base = warm(project, recipe);
        let changed = edited(recipe, 3);
        group.bench_function(format!("{name}/candidates_per_cell"), |b| {
            b.iter_batched(
                || base.clone(),
                |mut generator| two.install(|| edit(project, &mut generator, &changed)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_generate(&mut criterion);
    criterion.final_summary();
}
