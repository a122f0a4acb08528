//! Benchmark: read + validate and canonical write of a large project held in memory
//! (100 recipes × 100 stages and a scenario with 10,000 directives).

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stagecraft_runtime::project::*;

fn large_project() -> Project {
    let mut project = Project::default();
    project.manifest.name = "Large".into();
    project.manifest.root_seed = 1;
    project.manifest.asset_paths = vec!["assets".into()];
    let family = AssetFamily {
        id: "fam".into(),
        name: String::new(),
        variants: vec![AssetVariant {
            id: "a".into(),
            weight: 1,
            exclusion_radius: 100,
            collision_radius_m: 0.5,
            height_m: 2.0,
            sockets: Vec::new(),
            shape: PreviewShape::Cone,
            colour: Rgb(1, 2, 3),
        }],
    };
    project.families.insert("fam".into(), family);
    project
        .family_files
        .insert("fam".into(), family_file("assets", "fam"));
    for recipe_index in 0..100 {
        let id = format!("recipe-{recipe_index:03}");
        let stages = (1..=100u32)
            .map(|stage_id| {
                let mut parameters = BTreeMap::new();
                parameters.insert("cell_size".to_owned(), ParamValue::Int(400));
                parameters.insert("lattice_unit_m".to_owned(), ParamValue::Float(0.01));
                parameters.insert(
                    "region".to_owned(),
                    ParamValue::Tuple(vec![
                        ParamValue::Int(0),
                        ParamValue::Int(0),
                        ParamValue::Int(6000),
                        ParamValue::Int(6000),
                    ]),
                );
                let inputs = if stage_id == 1 {
                    vec![StageInput::Named("family".into())]
                } else {
                    vec![StageInput::Stage(stage_id - 1)]
                };
                Stage {
                    id: stage_id,
                    label: format!("Stage {stage_id}"),
                    operator: "environment.scatter".into(),
                    algorithm: 1,
                    inputs,
                    parameters,
                }
            })
            .collect();
        let mut inputs = BTreeMap::new();
        inputs.insert("family".to_owned(), RecipeInput::Family("fam".into()));
        project.recipes.insert(
            id.clone(),
            Recipe {
                id: id.clone(),
                label: String::new(),
                address_schema: 1,
                inputs,
                stages,
                outputs: vec![100],
            },
        );
        project.manifest.recipes.push(id);
    }
    let directives = (0..10_000u64)
        .map(|frame| Directive {
            frame: frame / 10,
            target: stagecraft_runtime::project::Target::Born {
                source: "walkers".into(),
                ordinal: (frame % 7) as u32,
            },
            command: if frame % 2 == 0 {
                DirectiveCommand::Hold
            } else {
                DirectiveCommand::Redirect {
                    goal: Vec3 {
                        x: frame as f64 * 0.25,
                        y: -3.5,
                        z: 0.0,
                    },
                }
            },
            ..Default::default()
        })
        .collect();
    project.scenarios.insert(
        "busy".into(),
        Scenario {
            id: "busy".into(),
            name: "Busy".into(),
            recipe: "recipe-000".into(),
            fixed_step_s: 0.05,
            duration_frames: 1000,
            sources: vec![PopulationSource {
                id: "walkers".into(),
                kind: PopulationKind::Ambient,
                route: "sidewalk.north".into(),
                target_count: 10,
                walk_speed_m_s: 1.4,
                ..Default::default()
            }],
            directives,
            ..Scenario::default()
        },
    );
    project.manifest.scenarios.push("busy".into());
    project
}

fn bench_project_documents(c: &mut Criterion) {
    let project = large_project();
    let files = project.canonical_files();
    let bytes: usize = files.values().map(String::len).sum();
    let sources = ProjectSources {
        files,
        ..ProjectSources::default()
    };
    // The generated project is valid apart from its street-block route, which this recipe lacks.
    let loaded = load_project(&sources);
    assert!(loaded.project.is_some());
    let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");

    let mut group = c.benchmark_group("project_documents");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("read_and_validate", |b| {
        b.iter(|| black_box(load_project(black_box(&sources))))
    });
    group.bench_function("canonical_write", |b| {
        b.iter(|| black_box(project.canonical_files()))
    });
    group.finish();

    let runs = 10;
    let start = Instant::now();
    for _ in 0..runs {
        black_box(load_project(&sources));
    }
    let read_ms = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    let start = Instant::now();
    for _ in 0..runs {
        black_box(project.canonical_files());
    }
    let write_ms = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    let megabytes = bytes as f64 / 1e6;
    println!(
        "project of {megabytes:.2} MB in {} files: read+validate {read_ms:.1} ms ({:.0} MB/s), canonical write {write_ms:.1} ms ({:.0} MB/s)",
        sources.files.len(),
        megabytes / (read_ms / 1000.0),
        megabytes / (write_ms / 1000.0)
    );
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, bench_project_documents);
criterion_main!(benches);
