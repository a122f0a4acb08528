//! `stagecraft simulate --threads N`: the run steps on a pool of N threads (the walkers in bands
//! over it) and ends in the same state digest on any number of threads as on the global pool;
//! zero threads is refused by the argument parser.

use std::path::{Path, PathBuf};

use clap::Parser as _;
use stagecraft_editor::cli::{simulate, Cli, SimulateOptions};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(name)
}

fn digest(project: &str, scenario: &str, threads: Option<usize>) -> String {
    let options = SimulateOptions {
        scenario,
        frames: Some(240),
        json: true,
        threads,
        ..SimulateOptions::default()
    };
    let mut out = Vec::new();
    let code = simulate(&example(project), &options, &mut out).expect("simulate runs");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(code, 0, "{text}");
    let report: serde_json::Value = serde_json::from_str(&text).expect("a JSON report");
    report["state_digest"]
        .as_str()
        .expect("a digest")
        .to_owned()
}

#[test]
fn every_thread_count_ends_in_the_global_pools_digest() {
    for (project, scenario) in [
        ("street-block", "crosswalk-rush"),
        ("street-lifecycle", "retire-reuse"),
    ] {
        let global = digest(project, scenario, None);
        assert_eq!(global.len(), 64);
        for threads in [1, 2, 7] {
            assert_eq!(
                digest(project, scenario, Some(threads)),
                global,
                "{project} / {scenario} on {threads} threads"
            );
        }
    }
}

#[test]
fn threads_take_a_positive_count() {
    let parse = |threads: &str| {
        Cli::try_parse_from([
            "stagecraft",
            "simulate",
            "projects/street-block",
            "--scenario",
            "crosswalk-rush",
            "--threads",
            threads,
        ])
    };
    assert!(parse("4").is_ok());
    let refused = parse("0").expect_err("zero threads").to_string();
    assert!(refused.contains("--threads"), "{refused}");
}
