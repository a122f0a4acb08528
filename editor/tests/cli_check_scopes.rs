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
