//! `stagecraft simulate` within its limits: a run past the simulation's work ceiling or memory
//! budget is refused before it starts, with a located diagnostic, and however long a run is, the
//! counters it keeps for its report stay bounded.

mod support;

use std::path::PathBuf;

use stagecraft_editor::cli::simulate::{simulate, SimulateOptions};
use support::{stagecraft, stderr, stdout};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("projects")
        .join("street-block")
}

#[test]
fn a_run_past_the_budget_is_refused_with_a_located_diagnostic() {
    let path = example().display().to_string();
    let args = ["simulate", &path, "--scenario", "crosswalk-rush"];
    // A 1 MiB budget: the scenario's own length is past it, so `check` (which simulate runs
    // first) already refuses it, at `duration_frames`.
    let output = stagecraft(&[&args[..], &["--memory-budget-mib", "1"]].concat());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(stdout(&output), "", "the refusal goes to stderr");
    let text = stderr(&output);
    assert!(text.contains("error: the scenario could need"), "{text}");
    assert!(text.contains("over the budget of 1 MiB"), "{text}");
    assert!(text.contains("= at duration_frames\n"), "{text}");
    assert!(
        text.contains("scenarios/crosswalk-rush.scenario.ron:"),
        "{text}"
    );
    assert!(!text.contains("state digest"), "{text}");
    // A billion frames of the scenario: past the work ceiling and the default budget (its births
    // table), both at `duration_frames`, before a single frame runs.
    let output = stagecraft(&[&args[..], &["--frames", "1000000000"]].concat());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(stdout(&output), "", "the refusal goes to stderr");
    let text = stderr(&output);
    assert!(
        text.contains("error: a run of 1000000000 frames with up to"),
        "{text}"
    );
    assert!(text.contains("over the ceiling of 4294967296"), "{text}");
    assert!(text.contains("= at duration_frames\n"), "{text}");
    assert!(
        text.ends_with("error: a run of 1000000000 frames of `crosswalk-rush` is refused\n"),
        "{text}"
    );
}

fn run_json(frames: u64, history_frames: Option<usize>) -> serde_json::Value {
    let options = SimulateOptions {
        scenario: "crosswalk-rush",
        frames: Some(frames),
        json: true,
        history_frames,
        ..SimulateOptions::default()
    };
    let mut out = Vec::new();
    let code = simulate(&example(), &options, &mut out).expect("simulate runs");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(code, 0, "{text}");
    serde_json::from_str(&text).expect("a JSON report")
}

#[test]
fn the_counters_a_run_keeps_stay_bounded_however_long_it_is() {
    // A history of 8 frames over a 100-frame run: the stride doubles each time it fills, to 16,
    // keeping frames 16, 32, …, 96.
    let bounded = run_json(100, Some(8));
    let kept = bounded["frames"].as_array().expect("frames");
    assert_eq!(bounded["frame_stride"], 16);
    assert_eq!(kept.len(), 6);
    assert_eq!(bounded["motion"].as_array().map(Vec::len), Some(6));
    // The kept rows are the counters of those frames, as a run that keeps every frame has them.
    let full = run_json(100, None);
    assert_eq!(full["frame_stride"], 1);
    let every = full["frames"].as_array().expect("frames");
    assert_eq!(every.len(), 100);
    for (index, row) in kept.iter().enumerate() {
        assert_eq!(
            row,
            &every[(index + 1) * 16 - 1],
            "frame {}",
            (index + 1) * 16
        );
        assert_eq!(
            bounded["motion"][index],
            full["motion"][(index + 1) * 16 - 1]
        );
    }
    assert_eq!(bounded["final"], full["final"]);
    assert_eq!(bounded["state_digest"], full["state_digest"]);
}
