//! First contact: the scenario a new project starts with (the template the editor's "new
//! scenario" copies) spawns pedestrians without any hidden-startup fade, and a source that starves
//! is explained.

mod support;

use stagecraft_editor::document::template;
use support::{stagecraft, stdout};

/// `stagecraft simulate` of the template's scenario for `frames` frames: the JSON report.
fn simulate_template(frames: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("first");
    let files = template::new_project("first").canonical_files();
    stagecraft_editor::project_io::save_files(&project, &files).expect("write template");
    let path = project.display().to_string();
    let output = stagecraft(&[
        "simulate",
        &path,
        "--scenario",
        template::TEMPLATE_SCENARIO,
        "--frames",
        frames,
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    serde_json::from_str(&stdout(&output)).expect("a JSON report")
}

#[test]
fn a_new_projects_scenario_has_births_within_its_first_100_frames() {
    let report = simulate_template("100");
    let births = report["final"]["births"].as_u64().expect("births");
    assert!(births > 0, "{report:#}");
    let alive = report["final"]["alive"].as_u64().expect("alive");
    assert_eq!(alive, births, "nobody retired yet");
    let source = &report["sources"][0];
    assert_eq!(source["id"], "walkers");
    assert!(source["attached"].as_u64().unwrap_or(0) > 0, "{source:#}");
}

#[test]
fn the_template_source_reaches_its_target_of_twelve() {
    let report = simulate_template("1200");
    assert_eq!(
        report["sources"][0]["ambient"].as_u64(),
        Some(12),
        "{report:#}"
    );
}
