//! `stagecraft check --json` reports the scope manifest of every recipe instance: each stage's
//! locality, packed address scopes and random domains.

mod support;

use serde_json::{json, Value};
use support::{example, stagecraft};

#[test]
fn check_json_reports_the_scope_manifest_of_each_recipe() {
    let facades = example("street-facades");
    let output = stagecraft(&["check", facades.dir.to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(
        report["scopes"],
        json!([{
            "address_schema": 1,
            "recipe": "street-facades",
            "stages": [{
                "data_scope": "object",
                "domains": [2, 3],
                "locality": "object-local",
                "operator": "assembly",
                "scopes": [[1, 0]],
                "stage": 1,
            }],
        }])
    );
    let street = example("street-block");
    let output = stagecraft(&["check", street.dir.to_str().expect("utf-8"), "--json"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    let stages = &report["scopes"][0]["stages"];
    let rows: Vec<(u64, &str, &str, Value, Value)> = stages
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| {
            (
                s["stage"].as_u64().expect("id"),
                s["operator"].as_str().expect("operator"),
                s["data_scope"].as_str().expect("data scope"),
                s["scopes"].clone(),
                s["domains"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (1, "street.block", "regional", json!([]), json!([])),
            // One layer per sidewalk of the block.
            (
                2,
                "environment.scatter",
                "cell",
                json!([[1, 0], [1, 1]]),
                json!([1, 2])
            ),
            (
                3,
                "environment.select-and-place",
                "object",
                json!([]),
                json!([3])
            ),
        ]
    );
}

/// A subrecipe stage's entry holds its child run's manifest, under the child's nested instance:
/// the scopes and domains street-planting draws from through its two sidewalk-props runs.
#[test]
fn check_json_folds_each_subrecipe_run_into_its_stage() {
    let planting = example("street-planting");
    let output = stagecraft(&["check", planting.dir.to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    let scopes = report["scopes"].as_array().expect("scopes");
    // The child file is also a recipe of the project, compiled (not run) on its own.
    let ids: Vec<&str> = scopes
        .iter()
        .map(|m| m["recipe"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["sidewalk-props", "street-planting"]);
    let child = |stage: u32| {
        json!({
            "address_schema": 1,
            "recipe": format!("street-planting/{stage}:sidewalk-props"),
            "stages": [
                {
                    "data_scope": "cell",
                    "domains": [1, 2],
                    "locality": "finite-neighborhood",
                    "operator": "environment.scatter",
                    "scopes": [[1, 0], [1, 1]],
                    "stage": 1,
                },
                {
                    "data_scope": "object",
                    "domains": [3],
                    "locality": "object-local",
                    "operator": "environment.select-and-place",
                    "scopes": [],
                    "stage": 2,
                },
            ],
        })
    };
    let block = |stage: u32| {
        json!({
            "data_scope": "regional",
            "domains": [],
            "locality": "object-local",
            "operator": "street.block",
            "scopes": [],
            "stage": stage,
        })
    };
    let subrecipe = |stage: u32| {
        json!({
            "data_scope": "object",
            "domains": [],
            "locality": "parent-planned",
            "operator": "subrecipe",
            "scopes": [],
            "stage": stage,
            "subrecipe": child(stage),
        })
    };
    assert_eq!(
        scopes[1],
        json!({
            "address_schema": 1,
            "recipe": "street-planting",
            "stages": [block(1), block(2), subrecipe(10), subrecipe(20)],
        })
    );
}
