//! Tests of the bundle JSON: every product kind converted with computed values, the manifest
//! carried whole, and mismatched inputs refused.

use super::*;
use crate::content::{Product, ProductKind};
use crate::cook::cook_recipe;
use crate::generate::tests::{plan, run, street_text, PLACE, SCATTER};
use crate::generate::{ExecutionMode, GeneratedBundle};

const MISSION: &str = "Recipe(schema: 1, id: \"m\", address_schema: 1, stages: [
    Stage(id: 1, operator: \"layout.grid-mission\", algorithm: 1, parameters: {
        \"width\": 6, \"height\": 5, \"min_extraction_distance\": 5, \"cell_size_m\": 20.0,
        \"chunks\": [(\"s\", \"spawn\", false), (\"o\", \"objective\", false),
                     (\"e\", \"extraction\", false), (\"h\", \"connector\", true),
                     (\"w\", \"blocker\", false)]}),
    Stage(id: 2, operator: \"streaming.plan\", algorithm: 1, inputs: [1]),
], outputs: [1, 2])";

fn generated(text: &str) -> GeneratedBundle {
    (*run(&plan(text), ExecutionMode::Serial).bundle).clone()
}

/// A manifest of the street and mission recipes, and their products in manifest order.
fn cooked() -> (CookedManifest, Vec<Product>) {
    let bundles = [generated(&street_text(SCATTER, PLACE)), generated(MISSION)];
    let manifest = CookedManifest {
        project: "Test".to_owned(),
        root_seed: bundles[0].root_seed,
        families: [("props".to_owned(), "ab".repeat(32))]
            .into_iter()
            .collect(),
        overrides: Default::default(),
        recipes: bundles.iter().map(|b| cook_recipe(b).0).collect(),
    };
    let products = bundles
        .iter()
        .flat_map(|b| b.stages.iter().map(|s| (*s.product).clone()))
        .collect();
    (manifest, products)
}

fn check(document: &BundleJson, kind: ProductKind) -> Vec<&StageProductJson> {
    document
        .products
        .iter()
        .filter(|p| {
            let name = match p.product {
                ProductJson::StreetBlock(_) => "StreetBlock",
                ProductJson::Placements(_) => "Placements",
                ProductJson::PlacedObjects(_) => "PlacedObjects",
                ProductJson::MissionLayout(_) => "MissionLayout",
                ProductJson::AssemblyPlan(_) => "AssemblyPlan",
                ProductJson::StreamingPlan(_) => "StreamingPlan",
            };
            name == kind.name()
        })
        .collect()
}

#[test]
fn the_manifest_is_carried_whole_with_its_digest() {
    let (manifest, products) = cooked();
    let document = bundle_json(&manifest, &products).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(document.schema, "stagecraft.bundle/1");
    assert_eq!(document.manifest.schema, MANIFEST_SCHEMA);
    assert_eq!(document.manifest.digest, manifest.digest_hex());
    assert_eq!(document.manifest.root_seed, manifest.root_seed);
    assert_eq!(document.manifest.recipes.len(), 2);
    let stages: Vec<(String, u32, String)> = manifest
        .stages()
        .map(|(r, s)| (r.id.clone(), s.id, s.file_digest.clone()))
        .collect();
    let exported: Vec<(String, u32, String)> = document
        .manifest
        .recipes
        .iter()
        .flat_map(|r| {
            r.stages
                .iter()
                .map(move |s| (r.id.clone(), s.id, s.file_digest.clone()))
        })
        .collect();
    assert_eq!(exported, stages);
    let order: Vec<(String, u32)> = document
        .products
        .iter()
        .map(|p| (p.recipe.clone(), p.stage))
        .collect();
    let listed: Vec<(String, u32)> = stages.iter().map(|(r, s, _)| (r.clone(), *s)).collect();
    assert_eq!(order, listed);
}

#[test]
fn placements_carry_identity_variant_transform_and_provenance() {
    let (manifest, products) = cooked();
    let document = bundle_json(&manifest, &products).unwrap_or_else(|e| panic!("{e}"));
    let scatter = products
        .iter()
        .find_map(|p| match p {
            Product::Placements(s) => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a scatter product"));
    let exported = check(&document, ProductKind::Placements);
    assert_eq!(exported.len(), 1);
    let ProductJson::Placements(json) = &exported[0].product else {
        panic!("placements");
    };
    let placements: Vec<&PlacementJson> = json.layers.iter().flat_map(|l| &l.placements).collect();
    assert_eq!(placements.len(), scatter.placement_count());
    assert!(!placements.is_empty());
    let rejected: usize = json.layers.iter().map(|l| l.rejected.len()).sum();
    assert_eq!(rejected, scatter.rejected_count());
    assert_eq!(exported[0].elements, scatter.placement_count() as u64);
    for (p, placement) in scatter.placements().zip(&placements) {
        assert_eq!(placement.id, format!("{:#018x}", p.id.bits()));
        assert_eq!(placement.variant, p.variant);
        assert_eq!(
            placement.variant_id,
            scatter.variant_ids[p.variant as usize]
        );
        let unit = scatter.lattice_unit_m;
        assert_eq!(
            placement.transform.translation_m,
            [p.x as f64 * unit, p.y as f64 * unit, 0.0]
        );
        assert_eq!(placement.transform.rotation_xyzw, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(placement.transform.scale, 1.0);
        let provenance = &placement.provenance;
        assert_eq!(provenance.recipe, exported[0].recipe);
        assert_eq!(provenance.stage, exported[0].stage);
        assert_eq!(provenance.cell, [p.cell_x(), p.cell_y()]);
        assert_eq!(provenance.candidate, p.candidate());
        assert_eq!(provenance.priority, p.priority);
        assert_eq!(provenance.parent, None);
    }
}

#[test]
fn placed_objects_carry_rotation_scale_and_their_parent() {
    let (manifest, products) = cooked();
    let document = bundle_json(&manifest, &products).unwrap_or_else(|e| panic!("{e}"));
    let placed = products
        .iter()
        .find_map(|p| match p {
            Product::PlacedObjects(s) => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a placed product"));
    let exported = check(&document, ProductKind::PlacedObjects);
    let ProductJson::PlacedObjects(json) = &exported[0].product else {
        panic!("placed objects");
    };
    assert_eq!(json.objects.len(), placed.objects.len());
    for (o, object) in placed.objects.iter().zip(&json.objects) {
        let turns = f64::from(o.rotation_turns_65536) / 65536.0;
        assert_eq!(object.transform.rotation_turns, turns);
        let [x, y, z, w] = object.transform.rotation_xyzw;
        assert_eq!((x, y), (0.0, 0.0));
        assert!((z.hypot(w) - 1.0).abs() < 1e-12);
        // The quaternion turns +x by the rotation's angle.
        let angle = 2.0 * z.atan2(w);
        let expected = turns * std::f64::consts::TAU;
        let wrapped = (angle - expected).rem_euclid(std::f64::consts::TAU);
        assert!(wrapped.min(std::f64::consts::TAU - wrapped) < 1e-9);
        assert_eq!(
            object.transform.scale,
            f64::from(o.scale) * placed.scale_unit
        );
        let parent = object.provenance.parent.as_ref();
        assert_eq!(parent.map(|p| p.stage), Some(placed.placements_stage));
        assert_eq!(parent.map(|p| p.id.as_str()), Some(object.id.as_str()));
    }
}

#[test]
fn every_product_kind_is_exported() {
    let (manifest, products) = cooked();
    let document = bundle_json(&manifest, &products).unwrap_or_else(|e| panic!("{e}"));
    for kind in [
        ProductKind::StreetBlock,
        ProductKind::Placements,
        ProductKind::PlacedObjects,
        ProductKind::MissionLayout,
        ProductKind::StreamingPlan,
    ] {
        assert_eq!(check(&document, kind).len(), 1, "{kind:?}");
    }
    let mission = products
        .iter()
        .find_map(|p| match p {
            Product::MissionLayout(m) => Some(m),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a mission"));
    let ProductJson::MissionLayout(json) = &check(&document, ProductKind::MissionLayout)[0].product
    else {
        panic!("mission");
    };
    assert_eq!(json.chunks.len(), mission.layout.chunks.len());
    let first = &mission.layout.chunks[0];
    let center = mission.cell_center_m(first.cell.x, first.cell.y);
    assert_eq!(json.chunks[0].center_m, [center.x, center.y]);
    assert_eq!(json.spawn, [mission.layout.spawn.x, mission.layout.spawn.y]);
    let street = products
        .iter()
        .find_map(|p| match p {
            Product::StreetBlock(b) => Some(b),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a street"));
    let ProductJson::StreetBlock(json) = &check(&document, ProductKind::StreetBlock)[0].product
    else {
        panic!("street");
    };
    assert_eq!(json.routes.len(), street.space.routes.len());
    assert_eq!(
        json.routes[0].points_m.len(),
        street.space.routes[0].points.len()
    );
    assert_eq!(json.surfaces.len(), street.surfaces.len());
}

#[test]
fn products_that_do_not_match_the_manifest_are_refused() {
    let (manifest, mut products) = cooked();
    let listed = products.len();
    let last = products.pop().unwrap_or_else(|| panic!("products"));
    assert_eq!(
        bundle_json(&manifest, &products),
        Err(ExportError::ProductCount {
            listed,
            given: listed - 1
        })
    );
    products.insert(0, last);
    assert!(matches!(
        bundle_json(&manifest, &products),
        Err(ExportError::KindMismatch { stage: 1, .. })
    ));
}

#[test]
fn the_text_is_json_that_reads_back_to_the_same_counts() {
    let (manifest, products) = cooked();
    let text = bundle_json_text(&manifest, &products).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.ends_with("}\n"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(value["schema"], "stagecraft.bundle/1");
    assert_eq!(
        value["products"].as_array().map(Vec::len),
        Some(products.len())
    );
    assert_eq!(value["products"][1]["product"]["kind"], "Placements");
}
