//! `stagecraft simulate` on the `crosswalk-demo` example: the crossing columns of the text report
//! and the `crossings` / `crosswalks` fields of `--json`, against the editor session's world at
//! the same frame.

mod support;

use support::{stagecraft, stdout};

use stagecraft_editor::project_io::load_dir;
use stagecraft_editor::service::{focus_recipe_in, GenerationService};
use stagecraft_editor::session::Session;
use stagecraft_runtime::sim::CROSSING_SAMPLE_NAMES;

fn demo() -> String {
    support::repo_root()
        .join("projects")
        .join("crosswalk-demo")
        .display()
        .to_string()
}

/// The editor's session over the demo, stepped to `frame`.
fn session_at(frame: u64) -> Session {
    let (_, loaded) = load_dir(std::path::Path::new(&demo())).expect("demo readable");
    let project = loaded.project.expect("demo loads");
    let mut session = Session::default();
    let mut service = GenerationService::inline();
    session.choose_scenario_for(&project, None);
    let recipe = focus_recipe_in(&project, None, session.scenario_id(), service.recipe());
    service.sync_parts(0, 1, &project, recipe.as_deref());
    session.sync_project(&project, None, &service);
    session.step(frame);
    session
}

#[test]
fn the_json_report_has_every_crossing_field_of_every_frame() {
    let output = stagecraft(&[
        "simulate",
        &demo(),
        "--scenario",
        "ping-pong",
        "--frames",
        "400",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let frames = report["crossings"].as_array().expect("crossings");
    assert_eq!(frames.len(), 400);
    let session = session_at(400);
    let world = session.world().expect("a world");
    let last = frames.last().expect("a frame");
    let sample = world.crossing_sample();
    for (name, value) in sample.rows() {
        assert_eq!(last[name].as_f64(), Some(value), "{name}");
    }
    let mut keys: Vec<&str> = last
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut names = CROSSING_SAMPLE_NAMES.to_vec();
    names.sort_unstable();
    assert_eq!(keys, names, "every crossing counter, by name");
    let crosswalks = report["crosswalks"].as_array().expect("crosswalks");
    let reports = world.crosswalk_reports();
    assert_eq!(crosswalks.len(), reports.len());
    let (json, report) = (&crosswalks[0], &reports[0]);
    assert_eq!(json["id"], "crosswalk.0");
    assert_eq!(json["signal_phase"], report.signal.phase.name());
    assert_eq!(json["gate_open"], report.signal.gate_open);
    assert_eq!(json["walk_phases"], report.signal.walk_phases);
    assert_eq!(json["phases"]["waiting"], report.phases[2]);
    assert_eq!(json["phases"]["crossing"], report.phases[3]);
    assert_eq!(json["queued"][0], report.queued[0]);
    assert_eq!(
        json["time_in_phase_s"].as_f64(),
        Some(report.signal.elapsed_s)
    );
}

#[test]
fn the_text_report_has_a_crossing_table_and_a_line_per_crosswalk() {
    let output = stagecraft(&[
        "simulate",
        &demo(),
        "--scenario",
        "ping-pong",
        "--frames",
        "120",
        "--every",
        "60",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    let header = format!("  frame  {}", CROSSING_SAMPLE_NAMES.join("  "));
    let table = text.split("crossings\n").nth(1).expect("a crossings table");
    assert!(table.starts_with(&header), "{table}");
    let rows: Vec<&str> = table.lines().skip(1).take(2).collect();
    assert!(rows[0].trim_start().starts_with("60 "), "{rows:?}");
    assert!(rows[1].trim_start().starts_with("120 "), "{rows:?}");
    let session = session_at(120);
    let world = session.world().expect("a world");
    let report = &world.crosswalk_reports()[0];
    let line = format!(
        "crosswalk crosswalk.0 (signal signal.0): {} for {:.2} s",
        report.signal.phase.name(),
        report.signal.elapsed_s
    );
    assert!(text.contains(&line), "{text}");
}
