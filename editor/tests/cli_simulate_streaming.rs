//! `stagecraft simulate` prints the HLOD donut planned around the views at the last step, within
//! or over its budget, and leaves the state digest alone (the donut is derived).

mod support;

use support::{stagecraft, stdout};

const PROJECT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../projects/streaming-crowd");

fn run(extra: &[&str]) -> (Vec<String>, serde_json::Value) {
    let mut args = vec![
        "simulate",
        PROJECT,
        "--scenario",
        "ring-walk",
        "--frames",
        "300",
        "--every",
        "0",
    ];
    args.extend_from_slice(extra);
    let output = stagecraft(&args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let lines = stdout(&output).lines().map(str::to_owned).collect();
    args.push("--json");
    let json = serde_json::from_slice(&stagecraft(&args).stdout).expect("json");
    (lines, json)
}

#[test]
fn the_hlod_donut_is_reported_within_and_over_its_budget() {
    // The example's Paris-like profile: radius-2 donut around a one-cell ring, 16 cells × 6 MB.
    let (lines, json) = run(&[]);
    assert!(
        lines.contains(&"hlod 16 cells, 0 pruned, 96 / 96 MB".to_owned()),
        "{lines:?}"
    );
    assert_eq!(
        json["hlod"],
        serde_json::json!({"cells": 16, "pruned": 0, "requested_mb": 96, "estimated_mb": 96, "budget_mb": 96, "over_budget": false})
    );
    assert_eq!(json["governor"], serde_json::Value::Null);
    // A 72 MB budget keeps 12 cells and says the donut asked for more.
    let (tight, tight_json) = run(&["--set", "2.hlod_budget_mb=72"]);
    assert!(
        tight
            .contains(&"hlod 12 cells, 4 pruned, 72 / 72 MB (over budget: 96 MB asked)".to_owned()),
        "{tight:?}"
    );
    assert_eq!(tight_json["hlod"]["over_budget"], true);
    // The donut is derived from the views: the state digest does not move.
    assert_eq!(tight_json["state_digest"], json["state_digest"]);
}
