//! `stagecraft daily dispatch|show|generate` on a copy of the tactical example: the
//! specification's round trip (seed 424242 on 2026-05-23) with its exact values.

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn stagecraft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagecraft"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const DISPATCHED: &str =
    "PCG_Tactical:2026-05-23 seed 424242 signature \"sig-424242\" dispatched 2026-05-23T00:00:00Z";

#[test]
fn the_daily_seed_round_trips_through_the_project_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    support::copy_dir(&repo().join("projects/tactical-mission"), dir.path());
    let folder = dir.path().to_str().expect("utf-8");
    let dispatch = |seed: &str| {
        stagecraft(&[
            "daily",
            "dispatch",
            folder,
            "--cell",
            "PCG_Tactical",
            "--date",
            "2026-05-23",
            "--seed",
            seed,
            "--signature",
            "sig-424242",
            "--at",
            "2026-05-23T00:00:00Z",
        ])
    };
    // A first dispatch of another seed, replaced by the specification's.
    let first = dispatch("7");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let output = dispatch("424242");
    assert_eq!(stdout(&output), format!("replaced {DISPATCHED}\n"));
    assert_eq!(
        fs::read_to_string(dir.path().join("daily-seeds.ron")).expect("file"),
        "DailySeeds(\n    schema: 1,\n    seeds: [\n        DailySeed(\n            cell_id: \"PCG_Tactical\",\n            date_id: \"2026-05-23\",\n            seed: 424242,\n            server_signature: \"sig-424242\",\n            dispatch_utc: \"2026-05-23T00:00:00Z\",\n        ),\n    ],\n)\n"
    );
    let output = stagecraft(&["daily", "show", folder]);
    assert_eq!(stdout(&output), format!("{DISPATCHED}\n1 daily seeds\n"));

    // Generate: the layout carries seed 424242 and the date id, and is the same on every run.
    let output = stagecraft(&[
        "daily",
        "generate",
        folder,
        "--cell",
        "PCG_Tactical",
        "--date",
        "2026-05-23",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], DISPATCHED);
    assert_eq!(
        lines[1],
        "seed 424242 attempt 0 grid 6×5 spawn (0, 4) extraction (5, 2) objectives 3 critical path 17 steps"
    );
    assert_eq!(
        lines[2..7],
        [".O****", ".*O***", "...#*X", ".##.O.", "S****#"]
    );
    assert!(lines[7].starts_with(
        "signature seed=424242;attempt=0;size=6x5;spawn=0,4;extraction=5,2;objectives=4,3|2,1|1,0|;chunks=0,0:encounter:0:tactical/checkpoint|"
    ));
    assert!(lines[7].ends_with("|5,4:blocker:1:tactical/wall|;daily=PCG_Tactical:2026-05-23"));
    let again = stagecraft(&[
        "daily",
        "generate",
        folder,
        "--cell",
        "PCG_Tactical",
        "--date",
        "2026-05-23",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("json");
    assert_eq!(report["schema"], "stagecraft.daily/1");
    assert_eq!(report["layout"]["seed"], 424242);
    assert_eq!(report["layout"]["date"], "2026-05-23");
    assert_eq!(report["layout"]["critical_path_steps"], 17);
    assert_eq!(
        report["layout"]["objectives"],
        serde_json::json!([[4, 3], [2, 1], [1, 0]])
    );
    assert_eq!(
        format!(
            "signature {}",
            report["layout"]["signature"].as_str().expect("signature")
        ),
        lines[7]
    );
    assert_eq!(report["record"]["dispatch_utc"], "2026-05-23T00:00:00Z");
}

#[test]
fn a_day_without_a_seed_and_a_bad_date_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    support::copy_dir(&repo().join("projects/tactical-mission"), dir.path());
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&[
        "daily",
        "generate",
        folder,
        "--cell",
        "PCG_Tactical",
        "--date",
        "2026-05-24",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("no daily seed dispatched for PCG_Tactical:2026-05-24"),
        "{output:?}"
    );
    let output = stagecraft(&[
        "daily",
        "dispatch",
        folder,
        "--cell",
        "PCG_Tactical",
        "--date",
        "2026-02-30",
        "--seed",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("\"2026-02-30\" is not a calendar day"),
        "{output:?}"
    );
    assert!(!dir.path().join("daily-seeds.ron").exists());
}
