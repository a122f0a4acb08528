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

/// The crowd-governor example (tier policy `crowd-radii`): 400 agents at relevance 0.9 (≥ 0.85)
/// are all Hero, asking for 400 × 0.035 = 14 ms; the governor demotes 300 of them one rung to fit 8 ms exactly (100 Hero × 0.035 +
/// 300 Medium × 0.015), every step, and `simulate` says so in text, JSON and the motion rows.
#[test]
fn the_governor_example_fits_400_agents_into_8_ms() {
    let governor = concat!(env!("CARGO_MANIFEST_DIR"), "/../projects/crowd-governor");
    let args = [
        "simulate",
        governor,
        "--scenario",
        "governor",
        "--frames",
        "300",
        "--every",
        "0",
    ];
    let output = stagecraft(&args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = stdout(&output);
    assert!(
        text.contains(
            "governor estimate 8.000 / 8.000 ms, 300 demotions, tiers full 100 simulated 300 stub 0\n"
        ),
        "{text}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let json: serde_json::Value =
        serde_json::from_slice(&stagecraft(&json_args).stdout).expect("json");
    assert_eq!(json["agents"], 400);
    assert_eq!(
        json["governor"],
        serde_json::json!({"estimate_ms": 8.0, "budget_ms": 8.0, "demotions": 300})
    );
    let last = json["motion"]
        .as_array()
        .and_then(|m| m.last())
        .expect("motion rows");
    assert_eq!(last["governor_demotions"], 300.0);
    assert_eq!(
        (last["full"].clone(), last["simulated"].clone()),
        (100.0.into(), 300.0.into())
    );
    assert_eq!(json["hlod"], serde_json::Value::Null, "no streaming plan");
}

/// The `LineOfSight` disguise example: a guard (own faction Guard, hostile to Intruder, accepting
/// KitchenStaff) presented KitchenStaff recognises a disguise; the next guard, presented
/// Intruder, recognises a hostile (the specification's two edges).
#[test]
fn the_disguise_example_recognises_a_disguise_then_a_hostile() {
    let project = concat!(env!("CARGO_MANIFEST_DIR"), "/../projects/crowd-governor");
    let dir = tempfile::tempdir().expect("temp dir");
    let events = dir.path().join("events.json");
    let output = stagecraft(&[
        "simulate",
        project,
        "--scenario",
        "disguise",
        "--frames",
        "200",
        "--events",
        events.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&events).expect("events")).expect("json");
    let list = json
        .as_array()
        .or_else(|| json["events"].as_array())
        .expect("events");
    let recognised: Vec<(u64, String, String)> = list
        .iter()
        .filter(|e| e["kind"] == "recognised")
        .map(|e| {
            (
                e["frame"].as_u64().unwrap_or(0),
                e["source"].as_str().unwrap_or("").to_owned(),
                e["detail"]["recognised"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        recognised,
        [
            (100, "north-walkers".to_owned(), "disguised".to_owned()),
            (120, "north-walkers".to_owned(), "hostile".to_owned()),
        ]
    );
}
