//! Tests of product files, the manifest, key records, miss reasons, eviction and shards.

use std::collections::BTreeSet;

use super::codec::{decode_payload, encode_payload, HEADER_BYTES};
use super::*;
use crate::content::ProductKind;
use crate::generate::tests::{plan, request, run, street_text, PLACE, SCATTER};
use crate::generate::{ExecutionMode, GeneratedBundle};

pub(crate) const MISSION: &str = "Recipe(schema: 1, id: \"m\", address_schema: 1, stages: [
    Stage(id: 1, operator: \"layout.grid-mission\", algorithm: 1, parameters: {
        \"width\": 6, \"height\": 5, \"min_extraction_distance\": 5, \"cell_size_m\": 20.0,
        \"chunks\": [(\"s\", \"spawn\", false), (\"o\", \"objective\", false),
                     (\"e\", \"extraction\", false), (\"h\", \"connector\", true),
                     (\"w\", \"blocker\", false)]}),
    Stage(id: 2, operator: \"streaming.plan\", algorithm: 1, inputs: [1]),
], outputs: [1, 2])";

fn street() -> GeneratedBundle {
    (*run(&plan(&street_text(SCATTER, PLACE)), ExecutionMode::Serial).bundle).clone()
}

fn mission() -> GeneratedBundle {
    (*run(&plan(MISSION), ExecutionMode::Serial).bundle).clone()
}

#[test]
fn every_product_kind_round_trips_through_its_file() {
    let _ = request(ExecutionMode::Serial);
    let (a, b) = (street(), mission());
    let mut kinds = BTreeSet::new();
    for stage in a.stages.iter().chain(&b.stages) {
        let bytes = encode_product_file(stage.stage, &stage.product);
        let (header, product) = decode_product_file(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(header.stage, stage.stage);
        assert_eq!(header.elements, stage.summary.objects);
        assert_eq!(header.payload_bytes as usize, bytes.len() - HEADER_BYTES);
        assert_eq!(&product, stage.product.as_ref(), "stage {}", stage.stage);
        assert_eq!(product.digest(), stage.digest);
        kinds.insert(product.kind());
    }
    assert_eq!(
        kinds.len(),
        5,
        "street, placements, placed, mission, streaming"
    );
}

#[test]
fn a_cooked_manifest_round_trips_and_checks_its_products() {
    let bundle = street();
    let (recipe, files) = cook_recipe(&bundle);
    let manifest = CookedManifest {
        project: "Test".to_owned(),
        root_seed: bundle.root_seed,
        families: [("props".to_owned(), "ab".repeat(32))]
            .into_iter()
            .collect(),
        overrides: Default::default(),
        recipes: vec![recipe],
    };
    let text = manifest.to_text();
    let back = parse_manifest(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, manifest);
    assert_eq!(back.to_text(), text, "canonical");
    for ((_, stage), (path, bytes)) in back.stages().zip(&files) {
        assert_eq!(&stage.file, path);
        let product = check_product(stage, bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::content::encode::hex(&product.digest()), stage.digest);
    }
}

fn first_stage(bundle: &GeneratedBundle) -> (CookedStage, Vec<u8>) {
    let (recipe, mut files) = cook_recipe(bundle);
    let stage = recipe.stages[1].clone();
    (stage, files.swap_remove(1).1)
}

/// Damages a product file and re-signs its manifest entry (size and file digest), so the check
/// reaches the layer under test.
fn resigned(stage: &CookedStage, bytes: Vec<u8>) -> (CookedStage, Vec<u8>) {
    let mut stage = stage.clone();
    stage.bytes = bytes.len() as u64;
    stage.file_digest = blake3::hash(&bytes).to_hex().to_string();
    (stage, bytes)
}

fn error_of(stage: &CookedStage, bytes: &[u8]) -> String {
    match check_product(stage, bytes) {
        Ok(_) => panic!("accepted a damaged product"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn damaged_products_are_rejected_with_a_clear_error() {
    let (stage, bytes) = first_stage(&street());
    let file = stage.file.clone();
    let check = |damage: &dyn Fn(&mut Vec<u8>), resign: bool, expected: &str| {
        let mut damaged = bytes.clone();
        damage(&mut damaged);
        let (s, b) = if resign {
            resigned(&stage, damaged)
        } else {
            (stage.clone(), damaged)
        };
        let message = error_of(&s, &b);
        assert!(message.starts_with(&format!("{file}: ")), "{message}");
        assert!(
            message.contains(expected),
            "{message} should contain {expected}"
        );
    };
    check(
        &|b| b[HEADER_BYTES + 20] ^= 1,
        false,
        "file: digest mismatch",
    );
    check(&|b| b.truncate(b.len() - 3), false, "declared");
    check(
        &|b| b[0] = b'X',
        true,
        "expected `SCBPROD1`, found `XCBPROD1`",
    );
    check(
        &|b| b[8] = 9,
        true,
        "product format version 9 is not supported",
    );
    check(&|b| b.truncate(b.len() - 3), true, "payload: declared");
    check(
        &|b| {
            let n = b.len() as u64 - HEADER_BYTES as u64 - 3;
            b[32..40].copy_from_slice(&n.to_le_bytes());
            b.truncate(b.len() - 3);
        },
        true,
        "layer output length: count 1626 needs at least 1626 bytes, only 1623 remain",
    );
    check(
        &|b| b.truncate(18),
        true,
        "truncated: reading stage id at byte 16 needs 4 bytes, 2 remain",
    );
    check(
        &|b| b[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes()),
        true,
        "element count is 1099511627776, over the limit",
    );
    check(&|b| b[24] ^= 1, true, "element count: declared");
    // A placement count far beyond the payload's size.
    check(
        &|b| {
            let at = find(b, b"SCATTER1") + 8;
            b[at..at + 8].copy_from_slice(&(1u64 << 50).to_le_bytes());
        },
        true,
        "placements: count 1125899906842624 needs at least",
    );
    // A changed priority still decodes, but is not the product the manifest names.
    check(
        &|b| {
            let at = find(b, b"SCATTER1") + 16 + 28;
            b[at] ^= 1;
        },
        true,
        "product: digest mismatch",
    );
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("needle"))
}

#[test]
fn manifests_naming_paths_outside_the_bundle_or_unknown_versions_are_refused() {
    let bundle = street();
    let (recipe, _) = cook_recipe(&bundle);
    let manifest = CookedManifest {
        project: "T".to_owned(),
        root_seed: 1,
        families: Default::default(),
        overrides: Default::default(),
        recipes: vec![recipe],
    };
    let text = manifest.to_text();
    let file = manifest.recipes[0].stages[0].file.clone();
    for (bad, expected) in [
        (
            "../outside.bin",
            "escapes the bundle folder: it is not inside `products/`",
        ),
        ("products/../../etc/passwd.bin", "contains `..`"),
        ("products/sub/x.bin", "has a separator"),
        ("/etc/passwd", "not inside `products/`"),
    ] {
        let damaged = text.replacen(&file, bad, 1);
        let error = parse_manifest(&damaged)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{bad}: {error}");
    }
    let error = parse_manifest(&text.replacen("schema: 2", "schema: 7", 1))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "manifest schema version 7 is not supported (this build reads version 2)"
    );
    let error = parse_manifest(&text.replacen("project:", "extra: 1, project:", 1))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `extra`"), "{error}");
    let error = parse_manifest("CookedBundle(")
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("manifest.ron:1:"), "{error}");
}

#[test]
fn a_manifest_changed_after_cooking_or_written_differently_is_refused() {
    let (recipe, _) = cook_recipe(&street());
    let manifest = CookedManifest {
        project: "T".to_owned(),
        root_seed: 1,
        families: Default::default(),
        overrides: Default::default(),
        recipes: vec![recipe],
    };
    let text = manifest.to_text();
    let digest = manifest.digest_hex();
    assert!(
        text.starts_with(&format!(
            "CookedBundle(\n    schema: 2,\n    digest: \"{digest}\",\n"
        )),
        "{text}"
    );
    let error_of = |text: &str| parse_manifest(text).map(|_| ()).unwrap_err().to_string();
    // A value edited after cooking: the recorded digest no longer matches.
    let error = error_of(&text.replacen("project: \"T\"", "project: \"U\"", 1));
    assert_eq!(
        error,
        format!(
            "manifest.ron:3:13: `digest`: the manifest records {digest}, its content hashes to {}: \
             the manifest was changed after cooking (or damaged)",
            CookedManifest {
                project: "U".to_owned(),
                ..manifest.clone()
            }
            .digest_hex()
        )
    );
    // The same values written differently.
    let error = error_of(&text.replacen("    root_seed: 1,", "    root_seed:  1,", 1));
    assert_eq!(
        error,
        "manifest.ron:5:1: not canonical: found `    root_seed:  1,`, the canonical writer gives \
         `    root_seed: 1,` (a manifest is written only by `stagecraft cook`)"
    );
    // An output naming no stage, even when the digest is recomputed.
    let mut bad = manifest.clone();
    bad.recipes[0].outputs.push(9);
    let error = error_of(&bad.to_text());
    assert!(
        error.contains(
            "recipe `street`: output 9 names no stage of the recipe (its stages are 1, 2, 3)"
        ),
        "{error}"
    );
    assert!(error.starts_with("manifest.ron:"), "{error}");
}

#[test]
fn payloads_of_every_kind_reject_truncation_anywhere_without_panicking() {
    for bundle in [street(), mission()] {
        for stage in &bundle.stages {
            let payload = encode_payload(&stage.product);
            for len in (0..payload.len()).step_by(7) {
                assert!(decode_payload(stage.kind(), &payload[..len]).is_err());
            }
        }
    }
}

#[test]
fn a_product_file_is_its_header_then_the_payload_of_every_kind() {
    let mut kinds = std::collections::BTreeSet::new();
    for bundle in [street(), mission()] {
        for stage in &bundle.stages {
            let file = super::codec::encode_product_file(stage.stage, &stage.product);
            let payload = encode_payload(&stage.product);
            assert_eq!(&file[HEADER_BYTES..], payload.as_slice());
            assert_eq!(file[32..40], (payload.len() as u64).to_le_bytes());
            kinds.insert(stage.kind().name());
        }
    }
    assert!(
        kinds.contains("Placements") && kinds.contains("PlacedObjects"),
        "{kinds:?}"
    );
}

#[test]
fn a_miss_names_what_changed_in_the_key() {
    let bundle = street();
    let parts = |plan: &crate::recipe::CompiledPlan, id: u32, digests: &GeneratedBundle| {
        let stage = plan.stage(id).unwrap_or_else(|| panic!("stage"));
        crate::generate::stage_key_parts(
            plan,
            stage,
            7,
            &crate::overrides::Overrides::none(),
            &|s| digests.stage(s).map(|r| r.digest),
        )
        .unwrap_or_else(|s| panic!("{s}"))
    };
    let base = plan(&street_text(SCATTER, PLACE));
    let old = KeyRecord::of(&parts(&base, 2, &bundle));
    assert_eq!(
        old.key,
        crate::content::encode::hex(&bundle.stage(2).map(|s| s.key).unwrap_or_default())
    );
    assert_eq!(KeyRecord::parse(&old.to_text()), Ok(old.clone()));
    let edited = plan(&street_text(
        "\"cell_size\": 300, \"candidates_per_cell\": 3",
        PLACE,
    ));
    let new = KeyRecord::of(&parts(&edited, 2, &bundle));
    assert_eq!(
        explain_miss(Some(&old), &new),
        StoreMiss::KeyChanged(vec![KeyChange::Parameters])
    );
    assert_eq!(explain_miss(None, &new), StoreMiss::NoEntry);
    assert_eq!(explain_miss(Some(&new), &new), StoreMiss::NoEntry);
    let mut moved_input = new.clone();
    moved_input.inputs[0].1 = "00".repeat(32);
    moved_input.key = "11".repeat(32);
    assert_eq!(
        explain_miss(Some(&new), &moved_input).to_string(),
        format!("key changed: input `{}`", new.inputs[0].0)
    );
}

#[test]
fn eviction_follows_the_budget_and_never_touches_an_entry_in_use() {
    let entry = |key: &str, bytes, last_use| CacheEntryInfo {
        key: key.to_owned(),
        bytes,
        last_use,
    };
    let entries = [
        entry("a", 100, 3),
        entry("b", 100, 1),
        entry("c", 100, 2),
        entry("d", 100, 4),
    ];
    assert_eq!(
        plan_eviction(&entries, 400, &BTreeSet::new()),
        Vec::<String>::new()
    );
    assert_eq!(plan_eviction(&entries, 250, &BTreeSet::new()), ["b", "c"]);
    let in_use: BTreeSet<String> = ["b".to_owned()].into_iter().collect();
    assert_eq!(plan_eviction(&entries, 250, &in_use), ["c", "a"]);
    let all: BTreeSet<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
    assert_eq!(plan_eviction(&entries, 0, &all), Vec::<String>::new());
}

#[test]
fn shards_split_the_work_items_round_robin() {
    assert_eq!(
        ShardSpec::parse("2/3"),
        Ok(ShardSpec { index: 2, count: 3 })
    );
    for bad in ["0/3", "4/3", "x", "1/0", "1/"] {
        assert!(ShardSpec::parse(bad).is_err(), "{bad}");
    }
    let shards: Vec<usize> = (0..7).map(|i| shard_of(i, 3)).collect();
    assert_eq!(shards, [1, 2, 3, 1, 2, 3, 1]);
    let spec = ShardSpec { index: 3, count: 3 };
    assert!(spec.owns(2) && spec.owns(5) && !spec.owns(0));
}

#[test]
fn a_streamed_canonical_check_accepts_exactly_the_canonical_bytes() {
    let bundle = street();
    let mut checked = 0;
    for (_, product) in bundle.products() {
        let canonical = product.canonical_bytes();
        assert!(
            product.is_canonical_encoding(&canonical),
            "{:?}",
            product.kind()
        );
        let mut flipped = canonical.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(!product.is_canonical_encoding(&flipped), "a flipped byte");
        let mut longer = canonical.clone();
        longer.push(0);
        assert!(!product.is_canonical_encoding(&longer), "a trailing byte");
        assert!(
            !product.is_canonical_encoding(&canonical[..canonical.len() - 1]),
            "a truncated encoding"
        );
        checked += 1;
    }
    assert_eq!(checked, bundle.products().count());
    assert!(
        checked >= 2,
        "the street bundle has a scatter and its placed objects"
    );
}

/// Scatter products and placed objects are decoded losslessly, which is why verifying them does
/// not re-encode them: every payload their decoders accept after any one byte of a real payload
/// is changed (each byte, two ways) re-encodes to exactly those bytes.
#[test]
fn a_scatter_or_placed_payload_that_decodes_is_its_canonical_encoding() {
    let bundle = street();
    let mut decoded = 0;
    let mut kinds = BTreeSet::new();
    for stage in &bundle.stages {
        let kind = stage.kind();
        if !matches!(kind, ProductKind::Placements | ProductKind::PlacedObjects) {
            continue;
        }
        kinds.insert(kind);
        let payload = encode_payload(&stage.product);
        for at in 0..payload.len() {
            for flip in [0x01u8, 0x80] {
                let mut damaged = payload.clone();
                damaged[at] ^= flip;
                if let Ok(product) = decode_payload(kind, &damaged) {
                    decoded += 1;
                    assert_eq!(encode_payload(&product), damaged, "byte {at} ^ {flip:#x}");
                }
            }
        }
    }
    assert_eq!(kinds.len(), 2);
    assert!(decoded > 1_000, "{decoded} damaged payloads decoded");
}
