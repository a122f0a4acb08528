//! Acceptance of `stagecraft export`: every example is cooked, exported as glTF and USD, and
//! read back — the glTF with the `gltf` crate, the USD text by its `ids` arrays. Instance counts
//! and identities per (recipe, stage, variant) equal the bundle's (read with `verify`'s reader,
//! independently of the exporter), the files are byte-deterministic, a known placement lands
//! where the axis change says, and authored overrides are exported as applied.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

mod export_support;

use export_support::{cook, export};
use stagecraft_editor::cli::export::{ExportArgs, ExportFormat};
use stagecraft_editor::cli::Command;
use stagecraft_editor::cook::read_bundle;
use stagecraft_runtime::content::Product;
use stagecraft_tests::{example_project, example_projects};

/// (recipe, stage, variant) → identities in hex, in product order.
type Expected = BTreeMap<(String, u32, String), Vec<String>>;

/// What the bundle holds, by the viewport's rule: placed objects, and scatters no
/// select-and-place stage consumes.
fn expected(bundle: &Path) -> Expected {
    let read = read_bundle(bundle).unwrap_or_else(|e| panic!("{e}"));
    let consumed: Vec<(String, u32)> = read
        .products
        .iter()
        .filter_map(|p| match &p.product {
            Product::PlacedObjects(placed) => Some((p.recipe.clone(), placed.placements_stage)),
            _ => None,
        })
        .collect();
    let mut map = Expected::new();
    for p in &read.products {
        let (variants, items): (&[String], Vec<(u32, String)>) = match &p.product {
            Product::PlacedObjects(placed) => (
                &placed.variant_ids,
                placed
                    .objects
                    .iter()
                    .map(|o| (o.placement.variant, o.placement.id.to_string()))
                    .collect(),
            ),
            Product::Placements(scatter) if !consumed.contains(&(p.recipe.clone(), p.stage)) => (
                &scatter.variant_ids,
                scatter
                    .placements()
                    .map(|at| (at.variant, at.id.to_string()))
                    .collect(),
            ),
            Product::AssemblyPlan(plan) => (
                &plan.variant_ids,
                plan.modules
                    .iter()
                    .map(|m| (m.variant, m.id.to_string()))
                    .collect(),
            ),
            _ => continue,
        };
        for (variant, id) in items {
            let name = variants[variant as usize].clone();
            map.entry((p.recipe.clone(), p.stage, name))
                .or_default()
                .push(id);
        }
    }
    map
}

/// One instanced node of the glTF as read back: extras and the instance transforms.
struct GltfGroup {
    ids: Vec<String>,
    translations: Vec<[f32; 3]>,
    scales: Vec<[f32; 3]>,
}

fn gltf_groups(bytes: &[u8]) -> BTreeMap<(String, u32, String), GltfGroup> {
    let gltf = gltf::Gltf::from_slice(bytes).unwrap_or_else(|e| panic!("glb reads back: {e}"));
    let blob = gltf.blob.clone().unwrap_or_default();
    let floats = |index: u64| -> Vec<[f32; 3]> {
        let accessor = gltf.accessors().nth(index as usize).expect("accessor");
        assert_eq!(accessor.data_type(), gltf::accessor::DataType::F32);
        let view = accessor.view().expect("view");
        let start = view.offset() + accessor.offset();
        blob[start..start + accessor.count() * 12]
            .chunks(12)
            .map(|c| [0, 4, 8].map(|k| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]])))
            .collect()
    };
    let mut groups = BTreeMap::new();
    for node in gltf.nodes() {
        let Some(ext) = node.extension_value("EXT_mesh_gpu_instancing") else {
            continue;
        };
        let extras: serde_json::Value =
            serde_json::from_str(node.extras().as_ref().expect("extras").get()).expect("json");
        let attribute = |name: &str| ext["attributes"][name].as_u64().expect(name);
        let group = GltfGroup {
            ids: serde_json::from_value(extras["ids"].clone()).expect("ids"),
            translations: floats(attribute("TRANSLATION")),
            scales: floats(attribute("SCALE")),
        };
        assert!(node.mesh().is_some(), "an instanced node draws a mesh");
        assert_eq!(group.translations.len(), group.ids.len());
        let key = (
            extras["recipe"].as_str().expect("recipe").to_owned(),
            extras["stage"].as_u64().expect("stage") as u32,
            extras["variant"].as_str().expect("variant").to_owned(),
        );
        groups.insert(key, group);
    }
    groups
}

/// The USD layer's instance ids (every `int64[] ids` array, in order), as hex identities.
fn usd_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("int64[] ids = ["))
        .flat_map(|list| {
            list.trim_end_matches(']')
                .split(", ")
                .map(|n| format!("{:#018x}", n.parse::<i64>().expect("int64") as u64))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_example_exports_its_placements_with_their_identities() {
    for project in example_projects() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bundle = cook(&project, dir.path());
        let expected = expected(&bundle);
        let glb = export(
            &bundle,
            &project,
            ExportFormat::Gltf,
            &dir.path().join("a.glb"),
        );
        let groups = gltf_groups(&glb);
        let found: Expected = groups
            .iter()
            .map(|(k, g)| (k.clone(), g.ids.clone()))
            .collect();
        assert_eq!(found, expected, "{}", project.display());
        let usda = export(
            &bundle,
            &project,
            ExportFormat::Usd,
            &dir.path().join("a.usda"),
        );
        let text = String::from_utf8(usda.clone()).expect("utf-8");
        // The same identities (instancers are ordered by variant index, the map by name).
        let mut all: Vec<String> = expected.values().flatten().cloned().collect();
        let mut ids = usd_ids(&text);
        all.sort();
        ids.sort();
        assert_eq!(ids, all, "{}", project.display());
        // Byte-determinism: the same bundle exports to the same bytes.
        let again = export(
            &bundle,
            &project,
            ExportFormat::Gltf,
            &dir.path().join("b.glb"),
        );
        assert!(again == glb, "{}: glTF bytes differ", project.display());
        let again = export(
            &bundle,
            &project,
            ExportFormat::Usd,
            &dir.path().join("b.usda"),
        );
        assert!(again == usda, "{}: USD bytes differ", project.display());
    }
}

#[test]
fn pine_clearing_exports_its_overrides_as_applied_in_y_up() {
    let project = example_project("pine-clearing");
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = cook(&project, dir.path());
    let glb = export(
        &bundle,
        &project,
        ExportFormat::Gltf,
        &dir.path().join("p.glb"),
    );
    let groups = gltf_groups(&glb);
    let find = |target: u64| {
        let hex = format!("{target:#018x}");
        groups.iter().find_map(|(key, g)| {
            let k = g.ids.iter().position(|id| *id == hex)?;
            Some((key.2.clone(), g.translations[k], g.scales[k]))
        })
    };
    // `Add` a boulder at (47, 24): authored identity, Y-up translation (47, 0, -24).
    let (variant, at, scale) = find(282_033_323_180_038).expect("the added boulder");
    assert_eq!(variant, "boulder");
    assert_eq!(at, [47.0, 0.0, -24.0]);
    assert!(
        (0.85..=1.15).contains(&scale[0]),
        "the recipe's scale range: {scale:?}"
    );
    // `LockTransform` at (44.72, 6.81), scale 929/1000.
    let (_, at, scale) = find(281_474_977_431_553).expect("the locked transform");
    assert_eq!(at, [44.72, 0.0, -6.81]);
    assert_eq!(scale, [0.929; 3]);
    // `LockSelection` to pine-young.
    assert_eq!(find(281_474_976_776_192).expect("locked").0, "pine-young");
    // `Delete` and a harvested mutation leave nothing behind.
    assert!(find(281_474_977_628_161).is_none(), "deleted");
    assert!(find(281_474_977_234_957).is_none(), "harvested");
}

#[test]
fn street_block_exports_roads_walkways_and_crosswalks_as_meshes() {
    let project = example_project("street-block");
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = cook(&project, dir.path());
    let glb = export(
        &bundle,
        &project,
        ExportFormat::Gltf,
        &dir.path().join("s.glb"),
    );
    let gltf = gltf::Gltf::from_slice(&glb).expect("reads");
    let surfaces: Vec<(String, usize)> = gltf
        .nodes()
        .filter(|n| n.extension_value("EXT_mesh_gpu_instancing").is_none() && n.mesh().is_some())
        .map(|n| {
            let extras: serde_json::Value =
                serde_json::from_str(n.extras().as_ref().expect("extras").get()).expect("json");
            let kind = extras["kind"].as_str().expect("kind").to_owned();
            (kind, extras["ids"].as_array().expect("ids").len())
        })
        .collect();
    let kinds: Vec<&str> = surfaces.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, vec!["road", "sidewalk", "crosswalk"]);
    assert!(surfaces.iter().all(|(_, n)| *n >= 1), "{surfaces:?}");
}

#[test]
fn a_project_whose_family_changed_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("project");
    let source = example_project("street-block");
    fs::create_dir_all(project.join("assets")).expect("mkdir");
    for entry in ["stagecraft.ron", "recipes", "overrides", "scenarios"] {
        copy(&source.join(entry), &project.join(entry));
    }
    let family = stagecraft_tests::repo_root().join("assets/street-props.family.ron");
    copy(&family, &project.join("assets/street-props.family.ron"));
    let manifest = fs::read_to_string(project.join("stagecraft.ron")).expect("manifest");
    fs::write(
        project.join("stagecraft.ron"),
        manifest.replace("\"../../assets\"", "\"assets\""),
    )
    .expect("write");
    let bundle = cook(&project, dir.path());
    let edited = fs::read_to_string(project.join("assets/street-props.family.ron"))
        .expect("family")
        .replace("height_m: 4.5", "height_m: 5.5");
    fs::write(project.join("assets/street-props.family.ron"), edited).expect("write");
    let file = dir.path().join("x.glb");
    let args = ExportArgs {
        bundle,
        format: ExportFormat::Gltf,
        out: file.clone(),
        project: Some(project),
        json: false,
    };
    let (mut report, mut errors) = (Vec::new(), Vec::new());
    let code =
        stagecraft_editor::cli::entry::run(&Command::Export(args), false, &mut report, &mut errors);
    assert_eq!(String::from_utf8_lossy(&report), "", "errors go to stderr");
    let report = String::from_utf8_lossy(&errors);
    assert_eq!(code, 1, "{report}");
    assert!(
        report.contains(
            "asset family `street-props` differs from the one the bundle was cooked with"
        ),
        "{report}"
    );
    assert!(!file.exists(), "nothing written");
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        fs::create_dir_all(to).expect("mkdir");
        for entry in fs::read_dir(from).expect("list") {
            let entry = entry.expect("entry");
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
}
