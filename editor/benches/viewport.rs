//! Benchmarks of the preview: rebuilding the placements layer for 100,000 placements, the CPU time
//! of one editor frame (Viewport and Timeline tabs laid out, hover picking, the simulation playing
//! one frame and the scene updated; no GPU) with 100,000 placements and 10,000 agents, and
//! scrubbing back to frame 600.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::timeline::TimelinePanel;
use stagecraft_editor::panels::viewport::ViewportPanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::project_io;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::session::fixtures::{street_content, with_placed_objects};
use stagecraft_editor::session::PreviewContent;
use stagecraft_editor::viewport::{ColourBy, Preview, SceneBuilder, SceneInputs};
use stagecraft_runtime::project::{PopulationKind, PopulationSource, Project};
use stagecraft_runtime::sim::Timeline;

const PLACEMENTS: usize = 100_000;
const AGENTS: u32 = 10_000;
/// Sources of the crowd scenario; each keeps `AGENTS / SOURCES` agents alive.
const SOURCES: u32 = 200;

fn example_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block")
}

/// The street-block example with its scenario grown to `AGENTS` agents and no no-spawn box.
fn crowd_project() -> (Project, stagecraft_runtime::project::ProjectSources) {
    let (sources, loaded) = project_io::load_dir(&example_dir()).expect("example readable");
    let mut project = loaded.project.expect("example loads");
    if let Some(scenario) = project.scenarios.get_mut("crosswalk-rush") {
        let routes = ["sidewalk.north", "sidewalk.south", "crosswalk.0"];
        scenario.sources = (0..SOURCES)
            .map(|i| PopulationSource {
                id: format!("crowd-{i}"),
                kind: PopulationKind::Ambient,
                route: routes[i as usize % routes.len()].into(),
                target_count: AGENTS / SOURCES,
                walk_speed_m_s: 1.2 + f64::from(i % 5) * 0.1,
                ..Default::default()
            })
            .collect();
        scenario.no_spawn_box = None;
        scenario.directives.clear();
        scenario.duration_frames = 100_000;
    }
    (project, sources)
}

fn big_content() -> PreviewContent {
    with_placed_objects(street_content("street-block"), PLACEMENTS)
}

fn scene_rebuild(c: &mut Criterion) {
    let content = big_content();
    let mut builder = SceneBuilder::default();
    let mut options = stagecraft_editor::viewport::OverlayOptions::default();
    let first = SceneInputs {
        content: Some((&content, 1)),
        scenario: None,
        world: None,
        options: &options,
        selected: None,
        hovered: None,
    };
    builder.update(&first);
    let mut group = c.benchmark_group("viewport");
    group.sample_size(20);
    group.bench_function("rebuild placements layer, 100k placements", |b| {
        b.iter(|| {
            // Alternating the colouring forces exactly the placements layer to rebuild.
            options.colour_by = match options.colour_by {
                ColourBy::Asset => ColourBy::Variant,
                _ => ColourBy::Asset,
            };
            let inputs = SceneInputs {
                content: Some((&content, 1)),
                scenario: None,
                world: None,
                options: &options,
                selected: None,
                hovered: None,
            };
            let rebuilt = builder.update(&inputs);
            assert_eq!(rebuilt.len(), 1);
        });
    });
    group.finish();
}

fn editor_frame(c: &mut Criterion) {
    let (project, sources) = crowd_project();
    let document = Document::from_parts(&example_dir(), project, sources);
    let preview = Preview::shared();
    let content = big_content();
    let mut service = GenerationService::custom(move |_| Ok(content.clone()));
    let mut viewport = ViewportPanel::new(preview.clone());
    let mut timeline = TimelinePanel::new(preview.clone());
    let ctx = egui::Context::default();
    let mut frame = |ctx: &egui::Context, pointer: Option<egui::Pos2>| {
        let mut input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            predicted_dt: 0.05,
            ..Default::default()
        };
        if let Some(pos) = pointer {
            input.events.push(egui::Event::PointerMoved(pos));
        }
        let output = ctx.run_ui(input, |ui| {
            // What the app does once a frame before drawing the tabs.
            preview
                .borrow_mut()
                .frame_update(ui.ctx(), &document, &mut service);
            let mut out = Vec::new();
            egui::Panel::bottom("timeline")
                .exact_size(300.0)
                .show(ui, |ui| timeline.ui(ui, &document, &mut out));
            egui::CentralPanel::default().show(ui, |ui| viewport.ui(ui, &document, &mut out));
        });
        let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
    };
    // Build the world and fill it: one birth per source per frame.
    frame(&ctx, None);
    preview
        .borrow_mut()
        .session
        .step(u64::from(AGENTS / SOURCES) + 10);
    frame(&ctx, None);
    let alive = preview
        .borrow()
        .session
        .world()
        .map_or(0, |w| w.agent_count());
    assert_eq!(alive, AGENTS as usize, "the crowd is complete");
    preview.borrow_mut().session.toggle_play();
    let mut group = c.benchmark_group("viewport");
    group.sample_size(20);
    group.bench_function(
        "editor frame, 100k placements + 10k agents playing (CPU, no GPU)",
        |b| {
            let mut x = 600.0;
            b.iter(|| {
                // Move the pointer so hover picking runs every frame.
                x = if x > 900.0 { 600.0 } else { x + 7.0 };
                frame(&ctx, Some(egui::pos2(x, 250.0)));
            });
        },
    );
    group.finish();
    let stepped = preview.borrow().session.frame();
    assert!(
        stepped > u64::from(AGENTS / SOURCES) + 10,
        "the simulation played"
    );
}

fn scrubbing(c: &mut Criterion) {
    let (project, _) = crowd_project();
    let content = street_content("street-block");
    let mut group = c.benchmark_group("viewport");
    group.sample_size(20);
    for (name, scenario) in [
        (
            "example scenario",
            project_io::load_dir(&example_dir())
                .ok()
                .and_then(|(_, loaded)| loaded.project)
                .map(|p| p.scenarios["crosswalk-rush"].clone()),
        ),
        (
            "10k agents",
            Some(project.scenarios["crosswalk-rush"].clone()),
        ),
    ] {
        let Some(scenario) = scenario else { continue };
        let world = content.world(&scenario, 7).expect("world");
        let mut timeline = Timeline::new(world);
        timeline.step_n(1200);
        group.bench_function(format!("scrub back from 1200 to frame 600, {name}"), |b| {
            b.iter_batched(
                || timeline.clone(),
                |mut t| {
                    t.seek(600);
                    t
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, scene_rebuild, editor_frame, scrubbing);
criterion_main!(benches);
