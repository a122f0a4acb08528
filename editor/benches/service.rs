//! Benchmarks of the generation service, as the editor uses it:
//!
//! - edit-to-preview latency: one scatter parameter of a 1 km² recipe (4 m cells, 2 candidates per
//!   cell: 125,000 candidates) changed, through the service (new revision, compile, generate with
//!   a warm stage cache) and the session taking the new content (target ≤ 16 ms). Two cases: a
//!   value never seen (the scatter and what reads it run again) and a value the cache still holds;
//! - per-frame change detection with 100 recipes open and nothing edited: the service's and the
//!   session's sync (target ≤ 0.1 ms).

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use stagecraft_editor::document::Document;
use stagecraft_editor::edits::DocId;
use stagecraft_editor::project_io;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::session::Session;
use stagecraft_runtime::project::{ParamValue, Project, ProjectSources};

/// The editor's allocator (see `editor/src/main.rs`): the latency measured is the editor's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const RECIPE: &str = "pine-clearing";

/// The pine clearing example grown to 1 km × 1 km (lattice unit 1 cm) without keep-outs.
fn square_km() -> (Project, ProjectSources) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
    let (sources, loaded) = project_io::load_dir(&dir).expect("example readable");
    let mut project = loaded.project.expect("example loads");
    let recipe = project.recipes.get_mut(RECIPE).expect("recipe");
    let scatter = recipe
        .stages
        .iter_mut()
        .find(|s| s.operator == "environment.scatter")
        .expect("a scatter stage");
    let unit = |v: i64| ParamValue::Int(v);
    scatter.parameters.insert(
        "region".into(),
        ParamValue::Tuple(vec![unit(0), unit(0), unit(100_000), unit(100_000)]),
    );
    scatter
        .parameters
        .insert("keep_outs".into(), ParamValue::List(Vec::new()));
    scatter.parameters.insert("cell_size".into(), unit(400));
    scatter
        .parameters
        .insert("candidates_per_cell".into(), unit(2));
    (project, sources)
}

/// Widens the square kilometre by `extra_cm` to the east: a value never seen before for the
/// same work (the cells stay 4 m, so the candidates stay about 125,000).
fn set_region_extra(project: &mut Project, extra_cm: i64) {
    if let Some(stage) = project.recipes.get_mut(RECIPE).and_then(|r| {
        r.stages
            .iter_mut()
            .find(|s| s.operator == "environment.scatter")
    }) {
        let unit = |v: i64| ParamValue::Int(v);
        stage.parameters.insert(
            "region".into(),
            ParamValue::Tuple(vec![
                unit(0),
                unit(0),
                unit(100_000 + extra_cm),
                unit(100_000),
            ]),
        );
    }
}

fn set_cell_size(project: &mut Project, cell_size: i64) {
    if let Some(stage) = project.recipes.get_mut(RECIPE).and_then(|r| {
        r.stages
            .iter_mut()
            .find(|s| s.operator == "environment.scatter")
    }) {
        stage
            .parameters
            .insert("cell_size".into(), ParamValue::Int(cell_size));
    }
}

/// CPU time every thread of this process has run so far, nanoseconds (Linux
/// `/proc/self/task/*/schedstat`): the generator's worker threads persist, so the difference over
/// a run is the run's CPU time, readable on a loaded machine where wall time includes waiting.
fn process_cpu_ns() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let text = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// Resident memory of this process, MiB (Linux `/proc/self/status`).
fn resident_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

/// Prints the mean CPU time and the median wall time of an edit with a value never seen
/// (`runs` edits), so the figure is readable on a loaded machine.
fn report_cpu(project: &mut Project, service: &mut GenerationService, session: &mut Session) {
    let runs = 20;
    let mut revision = 1_000;
    let mut walls = Vec::new();
    println!("resident before the edits: {} MiB", resident_mib());
    let start = process_cpu_ns();
    for size in 0..runs {
        // 3.80–3.99 m cells: at least the 125,000 candidates of the 4 m recipe, each value new.
        set_cell_size(project, 399 - size);
        revision += 1;
        let wall = std::time::Instant::now();
        assert!(service.sync_parts(1, revision, project, Some(RECIPE)));
        session.sync_project(project, None, service);
        walls.push(wall.elapsed());
    }
    walls.sort();
    println!("resident after the edits: {} MiB", resident_mib());
    if let (Some(start), Some(end)) = (start, process_cpu_ns()) {
        println!(
            "edit-to-preview, new value: {:.1} ms CPU (all threads) per edit, median wall {:.1} ms",
            (end - start) as f64 / 1e6 / runs as f64,
            walls[walls.len() / 2].as_secs_f64() * 1e3
        );
    }
}

fn edit_to_preview(c: &mut Criterion) {
    let (mut project, _) = square_km();
    let mut service = GenerationService::inline();
    let mut session = Session::default();
    let mut revision = 1;
    service.sync_parts(1, revision, &project, Some(RECIPE));
    session.sync_project(&project, None, &service);
    let objects = service.content().map_or(0, |c| c.bundle.object_count());
    let candidates: u64 = service.latest().map_or(0, |g| {
        g.stages
            .values()
            .map(|s| s.objects + s.rejected)
            .max()
            .unwrap_or(0)
    });
    println!("1 km² recipe: {objects} objects, {candidates} scatter candidates");
    assert!(objects > 10_000, "a full square kilometre");
    report_cpu(&mut project, &mut service, &mut session);
    let mut group = c.benchmark_group("service_edit_to_preview_1km2");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    // Cell sizes 400 ↔ 401 (lattice units): both stay cached after the first round.
    let mut toggle = false;
    group.bench_function("warm_cache_revisit", |b| {
        b.iter(|| {
            toggle = !toggle;
            set_cell_size(&mut project, if toggle { 401 } else { 400 });
            revision += 1;
            assert!(service.sync_parts(1, revision, &project, Some(RECIPE)));
            session.sync_project(&project, None, &service);
        })
    });
    // A value never seen on every iteration, at the recipe's own 4 m cells: the region grows by
    // one more centimetre each time (cycling through cell sizes would soon revisit values the
    // stage cache holds, and larger cells would shrink the work).
    set_cell_size(&mut project, 400);
    let mut extra_cm = 0;
    group.bench_function("new_value_scatter_reruns", |b| {
        b.iter(|| {
            extra_cm += 1;
            set_region_extra(&mut project, extra_cm);
            revision += 1;
            assert!(service.sync_parts(1, revision, &project, Some(RECIPE)));
            session.sync_project(&project, None, &service);
        })
    });
    set_region_extra(&mut project, 0);
    // The same revisits straight through the runtime (compile + generate), for comparison: what
    // the service adds on top is the difference.
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    let mut generator = stagecraft_runtime::generate::Generator::new();
    let mut generation = 0;
    group.bench_function("runtime_only_warm_cache_revisit", |b| {
        b.iter(|| {
            toggle = !toggle;
            set_cell_size(&mut project, if toggle { 401 } else { 400 });
            generation += 1;
            let recipe = &project.recipes[RECIPE];
            let file = stagecraft_runtime::project::recipe_file(RECIPE);
            let source = stagecraft_runtime::recipe::RecipeSource {
                file: &file,
                tree: None,
            };
            let plan =
                stagecraft_runtime::recipe::compile(recipe, &project.families, &registry, source)
                    .plan
                    .expect("compiles");
            let request = stagecraft_runtime::generate::GenerateRequest {
                root_seed: project.manifest.root_seed,
                mode: stagecraft_runtime::generate::ExecutionMode::Parallel,
                generation,
            };
            generator
                .generate(
                    &plan,
                    &request,
                    &stagecraft_runtime::generate::CancelToken::new(),
                    &stagecraft_runtime::generate::NoObserver,
                )
                .expect("generates")
        })
    });
    group.finish();
}

fn change_detection(c: &mut Criterion) {
    let (project, sources) = square_km();
    let mut many = project.clone();
    let template = project.recipes[RECIPE].clone();
    for index in 0..100 {
        let id = format!("recipe-{index:03}");
        let mut recipe = template.clone();
        recipe.id = id.clone();
        many.recipes.insert(id.clone(), recipe);
        many.manifest.recipes.push(id);
    }
    // A small recipe is the one previewed, so setting up does not wait for a square kilometre.
    let mut small = template;
    small.id = "recipe-small".into();
    if let Some(stage) = small
        .stages
        .iter_mut()
        .find(|s| s.operator == "environment.scatter")
    {
        stage.parameters.insert(
            "region".into(),
            ParamValue::Tuple(vec![
                ParamValue::Int(0),
                ParamValue::Int(0),
                ParamValue::Int(4_000),
                ParamValue::Int(4_000),
            ]),
        );
    }
    many.recipes.insert("recipe-small".into(), small);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
    let mut document = Document::from_parts(&dir, many, sources);
    document.select(stagecraft_editor::edits::Selection::doc(DocId::Recipe(
        "recipe-small".into(),
    )));
    let mut service = GenerationService::inline();
    let mut session = Session::default();
    let recipe = Some("recipe-small");
    service.sync(&document, recipe);
    session.sync(&document, &service);
    assert_eq!(document.project().recipes.len(), 102);
    let mut group = c.benchmark_group("service_change_detection");
    group.measurement_time(Duration::from_secs(2));
    group.bench_function("frame_with_100_recipes_no_edit", |b| {
        b.iter(|| {
            let changed = service.sync(&document, recipe);
            let rebuilt = session.sync(&document, &service);
            assert!(!changed && !rebuilt);
        })
    });
    group.finish();
}

criterion_group!(benches, edit_to_preview, change_detection);
criterion_main!(benches);
