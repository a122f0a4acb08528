//! Benchmarks of the editor shell: undo and redo at the head of a 10,000-edit history, the same
//! with validation, and opening the largest example up to its first (headless) frame.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::document::{template, Document};
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::project_io;
use stagecraft_runtime::project::FieldPath;

const EDITS: usize = 10_000;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The example with the most bytes of project files.
fn largest_example() -> Option<PathBuf> {
    let projects = std::fs::read_dir(repo_root().join("projects")).ok()?;
    projects
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|dir| dir.join("stagecraft.ron").is_file())
        .max_by_key(|dir| {
            project_io::read_sources(dir)
                .map(|s| s.files.values().map(String::len).sum::<usize>())
                .unwrap_or(0)
        })
}

/// The largest example (or the template) with `EDITS` recorded edits of its first scenario.
fn document_with_history() -> Document {
    let mut document = match largest_example().map(|dir| Document::open(&dir)) {
        Some(Ok(document)) => document,
        _ => {
            let project = template::new_project("bench");
            Document::from_parts(Path::new("."), project, Default::default())
        }
    };
    let Some(id) = document.project().scenarios.keys().next().cloned() else {
        return document;
    };
    let doc = DocId::Scenario(id.clone());
    for step in 0..EDITS {
        let mut scenario = document.project().scenarios[&id].clone();
        scenario.duration_frames = 1000 + step as u64;
        let selection = Selection::field(doc.clone(), FieldPath::root().field("duration_frames"));
        document.apply(ProjectEdit::replace(
            doc.clone(),
            Some(DocValue::Scenario(scenario)),
            selection,
            "Set duration_frames",
        ));
    }
    document.validate();
    assert_eq!(document.record().len(), EDITS);
    document
}

fn undo_redo(c: &mut Criterion) {
    let mut document = document_with_history();
    c.bench_function("undo+redo at the head of 10k edits", |b| {
        b.iter(|| {
            document.undo();
            document.redo();
        })
    });
    c.bench_function("undo+redo at the head of 10k edits, validated", |b| {
        b.iter(|| {
            document.undo();
            document.validate();
            document.redo();
            document.validate();
        })
    });
    c.bench_function("undo 10k edits then redo them", |b| {
        b.iter(|| {
            while document.undo() {}
            while document.redo() {}
        })
    });
}

fn open_first_frame(c: &mut Criterion) {
    let Some(dir) = largest_example() else {
        return;
    };
    let mut group = c.benchmark_group("open");
    group.sample_size(10);
    group.bench_function("open largest example to first headless frame", |b| {
        b.iter(|| {
            let args = RunArgs {
                project: Some(dir.clone()),
                screenshot: None,
                frame: None,
                tab: None,
                ..RunArgs::default()
            };
            let mut harness = egui_kittest::Harness::builder()
                .with_size(egui::vec2(1280.0, 800.0))
                .build_eframe(move |cc| StagecraftApp::new(cc, args));
            harness.step();
            harness
        })
    });
    group.finish();
}

criterion_group!(benches, undo_redo, open_first_frame);
criterion_main!(benches);
