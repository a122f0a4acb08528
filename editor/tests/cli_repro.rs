//! `stagecraft repro`: a package written from every example regenerates to the same digests from
//! the package alone; a tampered input byte is a mismatch naming the stage it changes; a damaged
//! package is a located `invalid_package` error.

mod support;

use serde_json::Value;
use stagecraft_editor::cli::repro::{compare, package_of, parse_package, PACKAGE_SCHEMA};
use support::{example, repo_root, stagecraft, stderr, stdout};

/// Every example's package survives its JSON text and reproduces every digest; the project
/// folder is gone before the check.
#[test]
fn every_example_round_trips_through_its_package() {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("projects"))
        .expect("projects")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 7, "examples: {names:?}");
    for name in &names {
        let copy = example(name);
        let sources = stagecraft_io::read_sources(&copy.dir).expect("sources");
        let package = package_of(&sources).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        drop(copy);
        assert_eq!(package.schema, PACKAGE_SCHEMA);
        assert_eq!(package.inputs.len(), sources.files.len(), "{name}");
        assert!(package.inputs.iter().any(|i| i.path == "stagecraft.ron"));
        let text = serde_json::to_string_pretty(&package).expect("json");
        let read = parse_package(text.as_bytes()).expect("parses");
        assert_eq!(read, package, "{name}: the package survives its text");
        let rows = compare(&read);
        let stages: usize = package.expected.iter().map(|r| r.stages.len()).sum();
        assert_eq!(
            rows.len(),
            package.inputs.len() + stages + package.expected.len(),
            "{name}: one row per input, stage and bundle"
        );
        let bad: Vec<_> = rows.iter().filter(|r| !r.ok).collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
    }
}

/// The pinned golden digest of pine-clearing (tests/tests/generate.rs) is what a package records.
#[test]
fn the_package_records_the_golden_bundle_digest() {
    let copy = example("pine-clearing");
    let sources = stagecraft_io::read_sources(&copy.dir).expect("sources");
    let package = package_of(&sources).expect("package");
    let generated = stagecraft(&["generate", copy.dir.to_str().expect("utf-8"), "--json"]);
    let report: Value = serde_json::from_slice(&generated.stdout).expect("json");
    let digest = report["recipes"][0]["digest"].as_str().expect("digest");
    assert_eq!(package.expected[0].recipe, "pine-clearing");
    assert_eq!(package.expected[0].digest, digest);
    let ids: Vec<u32> = package.expected[0].stages.iter().map(|s| s.stage).collect();
    assert_eq!(ids, vec![1001, 1002]);
}

fn write_package(dir: &std::path::Path, file: &std::path::Path) {
    let output = stagecraft(&[
        "repro",
        dir.to_str().expect("utf-8"),
        "--out",
        file.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("2 stage digests"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_cli_writes_and_checks_a_package_without_the_project() {
    let copy = example("pine-clearing");
    let temp = tempfile::tempdir().expect("temp");
    let file = temp.path().join("pine.repro.json");
    write_package(&copy.dir, &file);
    drop(copy); // The check reads the package alone.
    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("recipe pine-clearing stage 1001 environment.scatter v1: ok"),
        "{text}"
    );
    assert!(text.contains("reproduced: all"), "{text}");
}

#[test]
fn a_tampered_input_byte_is_a_mismatch_naming_the_stage() {
    let copy = example("pine-clearing");
    let temp = tempfile::tempdir().expect("temp");
    let file = temp.path().join("pine.repro.json");
    write_package(&copy.dir, &file);
    let mut package: Value =
        serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    let recipe = package["inputs"]
        .as_array_mut()
        .expect("inputs")
        .iter_mut()
        .find(|i| i["path"] == "recipes/pine-clearing.recipe.ron")
        .expect("the recipe file");
    let text = recipe["text"].as_str().expect("text");
    assert!(text.contains("\"scale_max\": 1150"));
    // One byte: the largest scale 1.150 → 1.140 changes the placing stage, not the scatter.
    recipe["text"] = Value::from(text.replace("\"scale_max\": 1150", "\"scale_max\": 1140"));
    std::fs::write(&file, serde_json::to_vec_pretty(&package).expect("json")).expect("write");

    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("input recipes/pine-clearing.recipe.ron: DIFFERS"),
        "{text}"
    );
    assert!(
        text.contains("recipe pine-clearing stage 1001 environment.scatter v1: ok"),
        "{text}"
    );
    assert!(
        text.contains(
            "recipe pine-clearing stage 1002 environment.select-and-place v1: DIFFERS: expected"
        ),
        "{text}"
    );
    assert!(
        text.contains("recipe pine-clearing bundle: DIFFERS"),
        "{text}"
    );
    assert!(text.contains("NOT reproduced: 3 of"), "{text}");

    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(report["schema"], "stagecraft.repro_check/1");
    assert_eq!(report["ok"], false);
    assert_eq!(report["differing"], 3);
    let stages: Vec<u64> = report["comparisons"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["kind"] == "stage" && r["ok"] == false)
        .map(|r| r["stage"].as_u64().expect("id"))
        .collect();
    assert_eq!(stages, vec![1002]);
}

#[test]
fn a_damaged_package_is_a_located_error() {
    let copy = example("pine-clearing");
    let temp = tempfile::tempdir().expect("temp");
    let file = temp.path().join("pine.repro.json");
    write_package(&copy.dir, &file);
    let bytes = std::fs::read(&file).expect("read");
    // Cut in the middle: not JSON any more.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).expect("write");
    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(error["schema"], "stagecraft.error/1");
    assert_eq!(error["code"], "invalid_package");
    assert!(error["line"].as_u64().expect("a line") > 1, "{error}");
    assert!(error["message"]
        .as_str()
        .expect("message")
        .contains("not a reproduction package: EOF while parsing"));

    // Whole JSON, one digest damaged: the field is named.
    let mut package: Value = serde_json::from_slice(&bytes).expect("json");
    package["expected"][0]["stages"][1]["digest"] = Value::from("xyz");
    std::fs::write(&file, serde_json::to_vec(&package).expect("json")).expect("write");
    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "expected[0].stages[1].digest is `xyz`, expected a BLAKE3 digest (64 lowercase hex digits)"
        ),
        "{}",
        stderr(&output)
    );

    // Another document altogether.
    std::fs::write(&file, b"{\"schema\": \"stagecraft.check/1\"}").expect("write");
    let output = stagecraft(&["repro", "--check", file.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a reproduction package: missing field"),
        "{}",
        stderr(&output)
    );
}
