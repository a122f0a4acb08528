//! Serial stepping through the street-block example to its last stage (target ≤ 16 ms per step):
//!
//! - a cold walk: a fresh cache, then steps 1, 2, 3 in turn (each step generates the stage it
//!   reaches; the earlier ones are cache hits), timed per step;
//! - a warm step k (every stage cached, as when the user steps back and forth): `run_plan_through`;
//! - the editor's step over a published bundle: `GeneratedBundle::through`;
//! - one stage isolated with frozen inputs and re-run alone on a cold cache (what an edit of
//!   the isolated stage's own parameters costs; target ≤ 16 ms): `run_isolated`.
//!
//! Before criterion's own timings the bench prints the median wall time of each step of a few
//! cold walks, and of each stage's isolated re-run.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use stagecraft_runtime::generate::{
    run_isolated, run_plan_through, CancelToken, ExecutionMode, FrozenInputs, GenerateRequest,
    GeneratedBundle, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::{
    asset_paths, load_project, Project, ProjectSources, MANIFEST_FILE,
};
use stagecraft_runtime::recipe::{compile, CompiledPlan, RecipeSource};

mod support;
use support::median;

const PROJECT: &str = "street-block";

/// Reads `projects/<name>` the way the editor does (the runtime does no IO).
fn read_project(name: &str) -> Project {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(name);
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let mut sources = ProjectSources::default();
    let manifest = read(&dir.join(MANIFEST_FILE));
    let mut folders: Vec<(String, &str)> = vec![
        ("recipes".to_owned(), ".recipe.ron"),
        ("overrides".to_owned(), ".overrides.ron"),
    ];
    folders.extend(
        asset_paths(&manifest)
            .into_iter()
            .map(|a| (a, ".family.ron")),
    );
    for (folder, suffix) in folders {
        let Ok(entries) = std::fs::read_dir(dir.join(&folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.ends_with(suffix) {
                let key = format!("{}/{file}", folder.trim_end_matches('/'));
                sources.files.insert(key, read(&entry.path()));
            }
        }
    }
    sources.files.insert(MANIFEST_FILE.to_owned(), manifest);
    load_project(&sources)
        .project
        .unwrap_or_else(|| panic!("{name} loads"))
}

struct Setup {
    plan: CompiledPlan,
    request: GenerateRequest,
    overrides: Overrides,
}

fn setup() -> Setup {
    let project = read_project(PROJECT);
    let recipe = &project.recipes[PROJECT];
    let source = RecipeSource {
        file: "bench",
        tree: None,
    };
    let plan = compile(recipe, &project.families, &Registry::standard(), source)
        .plan
        .unwrap_or_else(|| panic!("{PROJECT} compiles"));
    Setup {
        plan,
        request: GenerateRequest {
            root_seed: project.manifest.root_seed,
            mode: ExecutionMode::Serial,
            generation: 0,
        },
        overrides: Overrides::of_recipe(&project, PROJECT),
    }
}

impl Setup {
    fn step(&self, cache: &mut StageCache, steps: usize) -> usize {
        let cancel = CancelToken::new();
        let generated = run_plan_through(
            &self.plan,
            &self.request,
            &self.overrides,
            cache,
            &cancel,
            &NoObserver,
            steps,
        )
        .unwrap_or_else(|e| panic!("step {steps}: {e:?}"));
        generated.bundle.stages.len()
    }

    /// Re-runs the stage `frozen` isolates against its frozen inputs; its product's digest.
    fn isolated(&self, cache: &mut StageCache, frozen: &FrozenInputs) -> [u8; 32] {
        let cancel = CancelToken::new();
        let generated = run_isolated(
            &self.plan,
            &self.request,
            &self.overrides,
            frozen,
            cache,
            &cancel,
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("isolated: {e:?}"));
        generated.bundle.stages[0].digest
    }
}

/// Median wall time of `runs` cold isolated re-runs of each stage of `full`.
fn report_isolated(setup: &Setup, full: &GeneratedBundle, runs: usize) {
    for record in &full.stages {
        let frozen = FrozenInputs::freeze(full, record.stage).expect("freezes");
        let samples: Vec<Duration> = (0..runs)
            .map(|_| {
                let mut cache = StageCache::default();
                let start = Instant::now();
                black_box(setup.isolated(&mut cache, &frozen));
                start.elapsed()
            })
            .collect();
        println!(
            "{PROJECT} isolated re-run of stage {} `{}` (cold): median {:.3} ms wall",
            record.stage,
            record.operator,
            median(samples).as_secs_f64() * 1e3,
        );
    }
}

/// Median wall time of each step of `walks` cold walks (a step takes microseconds, below what
/// the thread's CPU-time counter resolves, so no CPU time is reported).
fn report(setup: &Setup, walks: usize) {
    let stages = setup.plan.stages().len();
    let mut wall: Vec<Vec<Duration>> = vec![Vec::new(); stages];
    for _ in 0..walks {
        let mut cache = StageCache::default();
        for step in 1..=stages {
            let start = Instant::now();
            black_box(setup.step(&mut cache, step));
            wall[step - 1].push(start.elapsed());
        }
    }
    for (step, samples) in wall.into_iter().enumerate() {
        let stage = &setup.plan.stages()[step];
        println!(
            "{PROJECT} cold step {}/{stages} (stage {} `{}`): median {:.3} ms wall",
            step + 1,
            stage.id(),
            stage.operator().id,
            median(samples).as_secs_f64() * 1e3,
        );
    }
}

fn main() {
    let setup = setup();
    let stages = setup.plan.stages().len();
    report(&setup, 21);
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("stepping");
    group.bench_function("cold walk to the last stage (all steps)", |b| {
        b.iter(|| {
            let mut cache = StageCache::default();
            for step in 1..=stages {
                black_box(setup.step(&mut cache, step));
            }
        });
    });
    let mut warm = StageCache::default();
    setup.step(&mut warm, stages);
    for step in 1..=stages {
        group.bench_function(format!("warm step {step}/{stages}"), |b| {
            b.iter(|| black_box(setup.step(&mut warm, step)));
        });
    }
    let full = {
        let mut cache = StageCache::default();
        let cancel = CancelToken::new();
        run_plan_through(
            &setup.plan,
            &setup.request,
            &setup.overrides,
            &mut cache,
            &cancel,
            &NoObserver,
            stages,
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
        .bundle
    };
    for step in 1..=stages {
        group.bench_function(format!("bundle through {step}/{stages}"), |b| {
            b.iter(|| black_box(full.through(step)));
        });
    }
    report_isolated(&setup, &full, 21);
    for record in &full.stages {
        let frozen = FrozenInputs::freeze(&full, record.stage).expect("freezes");
        let name = format!("isolated re-run of stage {} (cold)", record.stage);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut cache = StageCache::default();
                black_box(setup.isolated(&mut cache, &frozen))
            });
        });
    }
    group.finish();
    criterion.final_summary();
}
