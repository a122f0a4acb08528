//! Serial stepping in the editor to the last stage of street-block (target ≤ 16 ms per step): one
//! step is the inspection's cursor moved, the stepped content derived from the published bundle
//! (`StageInspect::shown`) and the scene's layers rebuilt from it (no GPU upload), as the Viewport
//! does when F10 is pressed. The cursor cycles 1, 2, 3, all, so every step changes what is drawn.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use stagecraft_editor::command::StageCommand;
use stagecraft_editor::session::fixtures::example_content;
use stagecraft_editor::viewport::inspect::StageInspect;
use stagecraft_editor::viewport::{OverlayOptions, SceneBuilder, SceneInputs};
use stagecraft_runtime::content::heatmap::HeatmapMode;

fn stepping(c: &mut Criterion) {
    let content = Arc::new(example_content("street-block", "street-block").expect("generates"));
    let stages = content.stages().len();
    for (name, heatmap) in [
        ("", None),
        (", candidates heatmap", Some(HeatmapMode::Candidates)),
    ] {
        let options = OverlayOptions {
            show_rejected: true,
            heatmap,
            ..OverlayOptions::default()
        };
        let mut inspect = StageInspect::default();
        let mut scene = SceneBuilder::default();
        c.bench_function(
            &format!("street-block: one stage step and scene rebuild{name}"),
            |b| {
                b.iter(|| {
                    let command = if inspect.step() == Some(stages) {
                        StageCommand::All
                    } else {
                        StageCommand::Next
                    };
                    inspect.apply(command, Some(&content));
                    let (shown, version) = inspect.shown(&content, 1);
                    let inputs = SceneInputs {
                        content: Some((shown.as_ref(), version)),
                        scenario: None,
                        world: None,
                        options: &options,
                        selected: None,
                        hovered: None,
                    };
                    black_box(scene.update(&inputs))
                });
            },
        );
    }
}

criterion_group!(benches, stepping);
criterion_main!(benches);
