//! The Daily tab driven through kittest: the tactical example's mission previewed for
//! PCG_Tactical on 2026-05-23 with the dispatched seed 424242, read from `daily-seeds.ron`, as
//! `stagecraft daily generate` solves it.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::panels::daily::DailyPanel;
use support::example;

type State = support::PanelState<DailyPanel>;

fn daily_tab(dir: &std::path::Path) -> Harness<'static, State> {
    support::read_only_panel(
        dir,
        egui::vec2(900.0, 600.0),
        2,
        "the Daily tab never edits the project",
        |_| DailyPanel::default(),
    )
}

const SEEDS: &str = "DailySeeds(\n    schema: 1,\n    seeds: [\n        DailySeed(\n            cell_id: \"PCG_Tactical\",\n            date_id: \"2026-05-23\",\n            seed: 424242,\n            server_signature: \"sig-424242\",\n            dispatch_utc: \"2026-05-23T00:00:00Z\",\n        ),\n    ],\n)\n";

#[test]
fn the_dispatched_seed_previews_the_days_mission() {
    let example = example("tactical-mission");
    std::fs::write(example.dir.join("daily-seeds.ron"), SEEDS).expect("seed file");
    let mut harness = daily_tab(&example.dir);
    // The first showing already previewed the default day with its dispatched seed.
    let first = harness.state().panel.result.clone().expect("previewed");
    assert_eq!(first.map(|l| l.seed), Ok(424_242));
    harness.state_mut().panel.seed = 1;
    harness.get_by_label("Dispatched seed").click();
    harness.run_steps(2);
    assert_eq!(harness.state().panel.seed, 424_242);
    assert!(harness
        .query_by_label_contains("seed 424242 dispatched 2026-05-23T00:00:00Z")
        .is_some());
    harness.get_by_label("Preview").click();
    harness.run_steps(2);
    let layout = harness
        .state()
        .panel
        .result
        .clone()
        .expect("previewed")
        .expect("solved");
    assert_eq!(layout.seed, 424_242);
    assert_eq!(
        layout.daily.as_ref().map(|d| d.date_id.as_str()),
        Some("2026-05-23")
    );
    assert_eq!(
        layout.ascii_map(),
        ".O****\n.*O***\n...#*X\n.##.O.\nS****#\n"
    );
    assert!(harness
        .query_by_label_contains(
            "seed 424242 · attempt 0 · 6×5 · spawn (0, 4) · extraction (5, 2) · 3 objectives · critical path 17 steps"
        )
        .is_some());
    assert!(harness
        .query_by_label_contains(";daily=PCG_Tactical:2026-05-23")
        .is_some());

    // A day without a dispatched seed says so and keeps the typed seed.
    harness.state_mut().panel.date = "2026-05-24".to_owned();
    harness.get_by_label("Dispatched seed").click();
    harness.run_steps(2);
    assert_eq!(harness.state().panel.seed, 424_242);
    assert!(harness
        .query_by_label_contains("no seed dispatched for PCG_Tactical:2026-05-24")
        .is_some());
}
