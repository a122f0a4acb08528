//! A world mutation of a subrecipe child run's placement (`Mutation(stage: 10, nested: [1], …)`)
//! on the command line: `check` is clean, `generate` applies it (stage 10 loses exactly that
//! placement, the edit is reported applied), `simulate` builds its world over the same mutated
//! bundle, `rebase` reports it as stage 10 › 1's, and a path below a stage that is no subrecipe is a
//! located error in `check`.
//!
//! The fixture: the street-planting example with a harvest of a placement both child runs emit
//! (packed id 0x00010100fff9fffe; the side street's twin stays), and a copy of street-block's
//! `crosswalk-rush` scenario over the street-planting recipe.

mod support;

use std::path::Path;

use support::{example, stagecraft, stdout};

/// A placement of the main street's child run (stage 10 › 1) that the side street's run emits too.
const TARGET: u64 = 0x0001_0100_fff9_fffe;

/// Writes the fixture into the example copy at `dir`: the set harvests [`TARGET`] at `stage` with
/// path `[1]` (and the base revision `rebase --write` records for it), and the scenario.
fn write_fixture(dir: &Path, stage: u32) {
    let set = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    mutations: [Mutation(stage: {stage}, target: {TARGET}, base: \"014150eca04114c2\", harvested: true, nested: [1])])\n"
    );
    std::fs::create_dir_all(dir.join("overrides")).expect("folder");
    std::fs::write(dir.join("overrides/edits.overrides.ron"), set).expect("set");
    let scenario = std::fs::read_to_string(
        support::repo_root().join("projects/street-block/scenarios/crosswalk-rush.scenario.ron"),
    )
    .expect("scenario")
    .replace("recipe: \"street-block\"", "recipe: \"street-planting\"");
    std::fs::create_dir_all(dir.join("scenarios")).expect("folder");
    std::fs::write(dir.join("scenarios/crosswalk-rush.scenario.ron"), scenario).expect("scenario");
    let manifest = std::fs::read_to_string(dir.join("stagecraft.ron"))
        .expect("manifest")
        .replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],")
        .replace(
            "scenarios: [],",
            "scenarios: [\n        \"crosswalk-rush\",\n    ],",
        );
    std::fs::write(dir.join("stagecraft.ron"), manifest).expect("manifest");
}

fn json(args: &[&str]) -> serde_json::Value {
    let output = stagecraft(args);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&output)))
}

/// The bundle digest and the number of objects of stage `stage` of `generate --json`.
fn generated(dir: &str, stage: u64) -> (String, u64, serde_json::Value) {
    let report = json(&["generate", dir, "--json"]);
    let recipe = &report["recipes"][0];
    let objects = recipe["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .find(|s| s["stage"] == stage)
        .and_then(|s| s["objects"].as_u64())
        .expect("the stage's objects");
    let digest = recipe["digest"].as_str().expect("digest").to_owned();
    (digest, objects, recipe["edits"].clone())
}

#[test]
fn a_nested_harvest_checks_generates_simulates_and_rebases() {
    let plain = example("street-planting");
    let plain_dir = plain.dir.display().to_string();
    let (plain_digest, plain_main, _) = generated(&plain_dir, 10);
    let (_, plain_side, _) = generated(&plain_dir, 20);

    let edited = example("street-planting");
    write_fixture(&edited.dir, 10);
    let dir = edited.dir.display().to_string();
    let check = stagecraft(&["check", &dir]);
    assert!(check.status.success(), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("0 errors, 0 warnings"),
        "{}",
        stdout(&check)
    );

    // Applied to exactly that placement of stage 10's run; the side street's run keeps its twin.
    let (digest, main, edits) = generated(&dir, 10);
    assert_eq!(main, plain_main - 1);
    assert_eq!(generated(&dir, 20).1, plain_side);
    assert_ne!(digest, plain_digest);
    assert_eq!(edits.as_array().map(Vec::len), Some(1));
    assert_eq!(edits[0]["action"], "Harvest");
    assert_eq!(edits[0]["applied"], true);
    assert_eq!(edits[0]["stage"], 10);
    assert_eq!(edits[0]["target"], "0x00010100fff9fffe");

    // `simulate` runs over the same mutated bundle.
    let run = json(&[
        "simulate",
        &dir,
        "--scenario",
        "crosswalk-rush",
        "--frames",
        "10",
        "--json",
    ]);
    assert_eq!(run["bundle_digest"], serde_json::Value::String(digest));

    // `rebase` reports it as stage 10's edit.
    let rebase = stagecraft(&["rebase", &dir]);
    assert!(
        stdout(&rebase)
            .contains("edits:mutations[0] Harvest 0x00010100fff9fffe (stage 10 › 1): applies"),
        "{}",
        stdout(&rebase)
    );
}

#[test]
fn check_locates_a_mutations_path_below_a_stage_that_is_no_subrecipe() {
    let edited = example("street-planting");
    write_fixture(&edited.dir, 1);
    let dir = edited.dir.display().to_string();
    let check = stagecraft(&["check", &dir, "--json"]);
    assert_eq!(check.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).expect("json");
    let errors: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            format!(
                "{}:{}:{} {}: {}",
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["path"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        errors,
        ["overrides/edits.overrides.ron:2:112 mutations[0].nested: mutation has a nested path below stage 1, which is not a subrecipe stage of recipe `street-planting`"]
    );
}
