//! End-to-end tests of `stagecraft export BUNDLE --format json`: the export of a cooked example
//! holds as many placements per stage as the bundle, carries the manifest's digest, and shows
//! the authored overrides' result (deleted, moved, added, locked objects) — compared with the
//! same project cooked without its override set; a damaged bundle exports nothing.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use stagecraft_editor::cook::read_bundle;
use stagecraft_runtime::content::Product;
use support::{example, stagecraft, stdout};

// Targets of `projects/pine-clearing/overrides/pine-clearing-edits.overrides.ron`.
const DELETED: u64 = 281474977628161;
const MOVED: u64 = 281474976710658;
const ADDED: u64 = 282033323180038;
const LOCKED_VARIANT: u64 = 281474976776192;
const LOCKED_TRANSFORM: u64 = 281474977431553;

/// Cooks `project` into `bundle` and exports it as JSON: (the export, the `--json` report).
fn cook_and_export(project: &Path, bundle: &Path) -> (serde_json::Value, serde_json::Value) {
    let text = |p: &Path| p.display().to_string();
    let cache = bundle.with_extension("cache");
    let cooked = stagecraft(&[
        "cook",
        &text(project),
        "--out",
        &text(bundle),
        "--cache",
        &text(&cache),
    ]);
    assert_eq!(cooked.status.code(), Some(0), "{}", stdout(&cooked));
    let file = bundle.with_extension("json");
    let exported = stagecraft(&[
        "export",
        &text(bundle),
        "--format",
        "json",
        "--out",
        &text(&file),
        "--json",
    ]);
    assert_eq!(exported.status.code(), Some(0), "{}", stdout(&exported));
    let report = serde_json::from_str(&stdout(&exported)).expect("a JSON report");
    let document = std::fs::read_to_string(&file).expect("the export is written");
    (serde_json::from_str(&document).expect("JSON"), report)
}

/// Stage → (object id → object) of every placement and placed object of an export.
fn objects(export: &serde_json::Value) -> BTreeMap<u64, BTreeMap<u64, serde_json::Value>> {
    let mut stages = BTreeMap::new();
    for product in export["products"].as_array().expect("products") {
        let data = &product["product"];
        let list: Vec<&serde_json::Value> = match data["kind"].as_str() {
            Some("Placements") => data["layers"]
                .as_array()
                .expect("layers")
                .iter()
                .flat_map(|l| l["placements"].as_array().expect("placements"))
                .collect(),
            Some("PlacedObjects") => data["objects"]
                .as_array()
                .expect("objects")
                .iter()
                .collect(),
            _ => continue,
        };
        let by_id = list
            .into_iter()
            .map(|o| {
                let hex = o["id"].as_str().expect("hex id").trim_start_matches("0x");
                (u64::from_str_radix(hex, 16).expect("hex"), o.clone())
            })
            .collect();
        stages.insert(product["stage"].as_u64().expect("stage"), by_id);
    }
    stages
}

fn translation(object: &serde_json::Value) -> (f64, f64) {
    let t = &object["transform"]["translation_m"];
    (t[0].as_f64().expect("x"), t[1].as_f64().expect("y"))
}

#[test]
fn an_export_holds_the_bundles_placements_and_manifest() {
    let project = example("pine-clearing");
    let bundle = project.temp.path().join("bundle");
    let (export, report) = cook_and_export(&project.dir, &bundle);
    let read = read_bundle(&bundle).expect("the bundle verifies");
    assert_eq!(export["schema"], "stagecraft.bundle/1");
    assert_eq!(export["manifest"]["digest"], read.digest.as_str());
    assert_eq!(export["manifest"]["root_seed"], read.manifest.root_seed);
    let stages = objects(&export);
    let mut total = 0;
    for product in &read.products {
        let count = match &product.product {
            Product::Placements(scatter) => scatter.placement_count(),
            Product::PlacedObjects(placed) => placed.objects.len(),
            _ => continue,
        };
        assert_eq!(stages[&u64::from(product.stage)].len(), count);
        assert_eq!(count as u64, product.elements, "the manifest's count");
        total += count as u64;
    }
    assert!(total > 100, "{total}");
    assert_eq!(report["instances"], total);
    assert_eq!(report["products"], read.products.len());
}

#[test]
fn an_export_shows_the_overridden_result() {
    let project = example("pine-clearing");
    let (edited, _) = cook_and_export(&project.dir, &project.temp.path().join("edited"));
    // The same project without its override set.
    let manifest = project.dir.join("stagecraft.ron");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let plain_text = text.replace(
        "    overrides: [\n        \"pine-clearing-edits\",\n    ],",
        "    overrides: [],",
    );
    assert_ne!(plain_text, text);
    std::fs::write(&manifest, plain_text).expect("manifest written");
    std::fs::remove_dir_all(project.dir.join("overrides")).expect("overrides removed");
    let (plain, _) = cook_and_export(&project.dir, &project.temp.path().join("plain"));
    let (edited, plain) = (objects(&edited), objects(&plain));
    for stage in [1001, 1002] {
        let (e, p) = (&edited[&stage], &plain[&stage]);
        assert!(p.contains_key(&DELETED) && !e.contains_key(&DELETED));
        assert_eq!(translation(&e[&MOVED]), (3.0, 13.0), "stage {stage}");
        assert_ne!(translation(&p[&MOVED]), (3.0, 13.0));
        assert!(!p.contains_key(&ADDED));
        assert_eq!(translation(&e[&ADDED]), (47.0, 24.0));
        assert_eq!(e[&ADDED]["variant_id"], "boulder");
        assert_eq!(e[&ADDED]["provenance"]["authored"], true);
        assert_eq!(e[&LOCKED_VARIANT]["variant_id"], "pine-young");
    }
    let locked = &edited[&1002][&LOCKED_TRANSFORM]["transform"];
    assert_eq!(locked["rotation_turns"].as_f64(), Some(16199.0 / 65536.0));
    assert_eq!(locked["scale"].as_f64(), Some(929.0 * 0.001));
    let parent = &edited[&1002][&LOCKED_TRANSFORM]["provenance"]["parent"];
    assert_eq!(parent["stage"], 1001);
}

#[test]
fn a_damaged_bundle_exports_nothing() {
    let project = example("pine-clearing");
    let bundle = project.temp.path().join("bundle");
    let _ = cook_and_export(&project.dir, &bundle);
    let product = bundle.join("products").join("pine-clearing.1001.bin");
    let mut bytes = std::fs::read(&product).expect("product");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&product, bytes).expect("damaged");
    let out = project.temp.path().join("damaged.json");
    let output = stagecraft(&[
        "export",
        &bundle.display().to_string(),
        "--format",
        "json",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "", "errors go to stderr");
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("invalid bundle: products/pine-clearing.1001.bin"),
        "{text}"
    );
    assert!(!out.exists());
}
