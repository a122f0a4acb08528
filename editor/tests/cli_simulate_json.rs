//! `stagecraft simulate --json` per-source counts per sampled frame (`source_frames`, every
//! `--every` frames and the last), checked against the run's own event log and final source
//! table; and `--events` as structured JSON (`docs/events.md`).

mod support;

use support::{repo_root, stagecraft, stdout};

/// `simulate` of the street-lifecycle example's `retire-reuse` for 300 frames with `extra`
/// arguments, writing the event log: (report, event log).
fn retire_reuse(extra: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let events = dir.path().join("events.json");
    let project = repo_root().join("projects").join("street-lifecycle");
    let (project, events_arg) = (project.display().to_string(), events.display().to_string());
    let mut args = vec![
        "simulate",
        &project,
        "--scenario",
        "retire-reuse",
        "--frames",
        "300",
        "--json",
        "--events",
        &events_arg,
    ];
    args.extend_from_slice(extra);
    let output = stagecraft(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report = serde_json::from_str(&stdout(&output)).expect("a JSON report");
    let log = std::fs::read_to_string(&events).expect("events written");
    (report, serde_json::from_str(&log).expect("events JSON"))
}

fn sampled_frames(report: &serde_json::Value) -> Vec<u64> {
    report["source_frames"]
        .as_array()
        .expect("source_frames")
        .iter()
        .map(|s| s["frame"].as_u64().expect("frame"))
        .collect()
}

/// Events of `kind` about source `source` in the log.
fn count(log: &serde_json::Value, kind: &str, source: &str) -> u64 {
    log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == kind && e["source"] == source)
        .count() as u64
}

#[test]
fn source_counts_are_sampled_every_n_frames_and_agree_with_the_event_log() {
    let (report, log) = retire_reuse(&[]);
    assert_eq!(report["schema"], "stagecraft.simulate/1");
    assert_eq!(report["source_frame_every"], 60);
    assert_eq!(sampled_frames(&report), [60, 120, 180, 240, 300]);
    // The existing fields are kept.
    assert_eq!(report["frames"].as_array().map(Vec::len), Some(300));
    let samples = report["source_frames"].as_array().expect("samples");
    let last = &samples[samples.len() - 1]["sources"][0];
    let table = &report["sources"][0];
    assert_eq!(last["id"], table["id"]);
    assert_eq!(last["alive"], table["attached"]);
    assert_eq!(last["pooled"], table["pooled"]);
    let id = last["id"].as_str().expect("id");
    assert_eq!(
        log["dropped"], 0,
        "every event is held, so the log counts them all"
    );
    assert_eq!(last["retired"].as_u64(), Some(count(&log, "retired", id)));
    assert!(last["retired"].as_u64() > Some(0));
    let realized = count(&log, "realized", id);
    let born_and_reused =
        last["born"].as_u64().expect("born") + last["reused"].as_u64().expect("reused");
    assert_eq!(born_and_reused, realized);
    assert_eq!(last["rejected"].as_u64(), Some(count(&log, "rejected", id)));
    // Cumulative counts never decrease from one sample to the next.
    for pair in samples.windows(2) {
        for key in ["born", "reused", "retired", "rejected"] {
            assert!(pair[0]["sources"][0][key].as_u64() <= pair[1]["sources"][0][key].as_u64());
        }
    }
}

#[test]
fn every_sets_the_sampling_interval_and_zero_keeps_only_the_last_frame() {
    let (report, _) = retire_reuse(&["--every", "100"]);
    assert_eq!(sampled_frames(&report), [100, 200, 300]);
    let (report, _) = retire_reuse(&["--every", "0"]);
    assert_eq!(sampled_frames(&report), [300]);
    let (report, _) = retire_reuse(&["--every", "70"]);
    assert_eq!(sampled_frames(&report), [70, 140, 210, 280, 300]);
}

#[test]
fn the_event_log_is_structured_with_positions_and_per_kind_drops() {
    let (_, log) = retire_reuse(&[]);
    assert_eq!(log["schema"], "stagecraft.events/1");
    let by_kind = log["dropped_by_kind"].as_object().expect("per kind");
    assert_eq!(by_kind.len(), 23);
    assert_eq!(by_kind.values().filter_map(|v| v.as_u64()).sum::<u64>(), 0);
    let events = log["events"].as_array().expect("events");
    let retired = events
        .iter()
        .find(|e| e["kind"] == "retired")
        .expect("a retirement");
    assert_eq!(retired["detail"]["type"], "retirement");
    assert_eq!(retired["detail"]["pooled"], true);
    assert!(retired["position_m"]
        .as_array()
        .is_some_and(|p| p.len() == 2));
    for event in events {
        let kind = event["kind"].as_str().expect("kind");
        let positioned = ["admitted", "realized", "retired", "retire_refused"].contains(&kind);
        if positioned {
            assert!(event["position_m"].is_array(), "{event}");
        }
        // Details are objects (or null), never the debug strings of before.
        assert!(
            event["detail"].is_object() || event["detail"].is_null(),
            "{event}"
        );
    }
}
