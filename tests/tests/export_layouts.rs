//! The glTF export's ground heights and layout nodes, against the cooked bundle's own data (read
//! with `verify`'s reader, independently of the exporter): every instance of the street block
//! stands at the top of the surface its bundle position lies on (the raised sidewalk's 0.15 m),
//! and every mission layout and streaming plan is one node with a child per chunk or cell, at
//! the cell's centre with its role.

mod export_support;

use std::collections::BTreeMap;

use export_support::{cook, export};
use serde_json::Value;
use stagecraft_editor::cli::export::ExportFormat;
use stagecraft_editor::cook::read_bundle;
use stagecraft_runtime::content::{Product, SurfaceKind};
use stagecraft_tests::example_project;

/// Every node of a `.glb` as (name, translation, extras, children's indices).
struct ReadNode {
    name: String,
    translation: [f32; 3],
    extras: Value,
    children: Vec<usize>,
}

fn nodes(glb: &[u8]) -> (gltf::Gltf, Vec<ReadNode>) {
    let gltf = gltf::Gltf::from_slice(glb).expect("the glb reads back");
    let nodes = gltf
        .nodes()
        .map(|n| ReadNode {
            name: n.name().unwrap_or_default().to_owned(),
            translation: n.transform().decomposed().0,
            extras: n.extras().as_ref().map_or(Value::Null, |raw| {
                serde_json::from_str(raw.get()).expect("json")
            }),
            children: n.children().map(|c| c.index()).collect(),
        })
        .collect();
    (gltf, nodes)
}

/// The instance translations of every instanced node, by identity (hex).
fn translations_by_id(gltf: &gltf::Gltf) -> BTreeMap<String, [f32; 3]> {
    let blob = gltf.blob.clone().unwrap_or_default();
    let mut by_id = BTreeMap::new();
    for node in gltf.nodes() {
        let Some(ext) = node.extension_value("EXT_mesh_gpu_instancing") else {
            continue;
        };
        let extras: Value =
            serde_json::from_str(node.extras().as_ref().expect("extras").get()).expect("json");
        let index = ext["attributes"]["TRANSLATION"]
            .as_u64()
            .expect("TRANSLATION");
        let accessor = gltf.accessors().nth(index as usize).expect("accessor");
        let start = accessor.view().expect("view").offset() + accessor.offset();
        let rows = blob[start..start + accessor.count() * 12].chunks(12);
        for (id, c) in extras["ids"].as_array().expect("ids").iter().zip(rows) {
            let xyz = [0, 4, 8].map(|k| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]));
            by_id.insert(id.as_str().expect("hex").to_owned(), xyz);
        }
    }
    by_id
}

#[test]
fn street_props_stand_on_the_raised_sidewalk() {
    let project = example_project("street-block");
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = cook(&project, dir.path());
    let glb = export(
        &bundle,
        &project,
        ExportFormat::Gltf,
        &dir.path().join("s.glb"),
    );
    let (gltf, _) = nodes(&glb);
    let placed = translations_by_id(&gltf);
    let read = read_bundle(&bundle).expect("bundle");
    // The bundle's surfaces, all axis-aligned rectangles: (kind, min, max).
    let mut rects = Vec::new();
    for p in &read.products {
        if let Product::StreetBlock(block) = &p.product {
            for s in &block.surfaces {
                let xs = s.outline.iter().map(|q| q.x);
                let ys = s.outline.iter().map(|q| q.y);
                let min = (
                    xs.clone().fold(f64::MAX, f64::min),
                    ys.clone().fold(f64::MAX, f64::min),
                );
                let max = (xs.fold(f64::MIN, f64::max), ys.fold(f64::MIN, f64::max));
                assert_eq!(s.outline.len(), 4, "{}: a rectangle", s.id);
                rects.push((s.kind, min, max));
            }
        }
    }
    let top = |kind: SurfaceKind| match kind {
        SurfaceKind::Sidewalk => 0.15f32,
        SurfaceKind::Crosswalk => 0.01,
        SurfaceKind::Road => 0.0,
    };
    let mut on_sidewalk = 0;
    let mut checked = 0;
    for p in &read.products {
        let Product::PlacedObjects(objects) = &p.product else {
            continue;
        };
        for o in &objects.objects {
            let (x, y) = (
                o.placement.x as f64 * objects.lattice_unit_m,
                o.placement.y as f64 * objects.lattice_unit_m,
            );
            let expected = rects
                .iter()
                .filter(|(_, min, max)| min.0 <= x && x <= max.0 && min.1 <= y && y <= max.1)
                .map(|(kind, _, _)| top(*kind))
                .fold(0.0f32, f32::max);
            let at = placed[&o.placement.id.to_string()];
            assert_eq!(at, [x as f32, expected, -(y as f32)], "{}", o.placement.id);
            on_sidewalk += usize::from(expected == 0.15);
            checked += 1;
        }
    }
    // Every prop of the example is scattered on a sidewalk's furniture strip.
    assert_eq!(checked, placed.len());
    assert_eq!((on_sidewalk, checked), (19, 19));
}

/// The children of the node of `kind` (each layout or plan), by parent name.
fn layout_nodes<'a>(nodes: &'a [ReadNode], kind: &str) -> Vec<(&'a ReadNode, Vec<&'a ReadNode>)> {
    nodes
        .iter()
        .filter(|n| n.extras["kind"] == kind)
        .map(|n| (n, n.children.iter().map(|c| &nodes[*c]).collect()))
        .collect()
}

#[test]
fn mission_layouts_export_a_node_per_chunk_at_its_cell() {
    let project = example_project("tactical-mission");
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = cook(&project, dir.path());
    let glb = export(
        &bundle,
        &project,
        ExportFormat::Gltf,
        &dir.path().join("m.glb"),
    );
    let (_, nodes) = nodes(&glb);
    let read = read_bundle(&bundle).expect("bundle");
    let missions: Vec<_> = read
        .products
        .iter()
        .filter_map(|p| match &p.product {
            Product::MissionLayout(m) => Some((p, m)),
            _ => None,
        })
        .collect();
    let exported = layout_nodes(&nodes, "mission_layout");
    assert_eq!(exported.len(), missions.len());
    assert!(!missions.is_empty(), "the example has a mission layout");
    for ((p, mission), (node, chunks)) in missions.iter().zip(&exported) {
        let layout = &mission.layout;
        assert_eq!(node.name, format!("{}.{}.mission", p.recipe, p.stage));
        assert_eq!(node.extras["width"], layout.width);
        assert_eq!(node.extras["seed"], layout.seed);
        assert_eq!(
            node.extras["spawn"],
            serde_json::json!([layout.spawn.x, layout.spawn.y])
        );
        assert_eq!(
            node.extras["bot_path"].as_array().map(Vec::len),
            Some(layout.bot_path.len())
        );
        assert_eq!(chunks.len(), layout.chunks.len());
        assert_eq!(chunks.len(), (layout.width * layout.height) as usize);
        for (chunk, read) in layout.chunks.iter().zip(chunks) {
            let center = mission.cell_center_m(chunk.cell.x, chunk.cell.y);
            let half = (mission.cell_size_m / 2.0) as f32;
            let (x, z) = (center.x as f32, -(center.y as f32));
            assert_eq!(read.translation, [x, 0.0, z]);
            assert_eq!(read.extras["role"], chunk.role.name());
            assert_eq!(read.extras["chunk_id"], chunk.chunk_id.as_str());
            assert_eq!(read.extras["blocks_traversal"], chunk.blocks_traversal);
            assert_eq!(
                read.extras["bounds_min_m"],
                serde_json::json!([x - half, 0.0, z - half])
            );
            assert_eq!(
                read.extras["bounds_max_m"],
                serde_json::json!([x + half, 0.0, z + half])
            );
        }
    }
}

#[test]
fn streaming_plans_export_a_node_per_planned_cell() {
    let project = example_project("streaming-crowd");
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = cook(&project, dir.path());
    let glb = export(
        &bundle,
        &project,
        ExportFormat::Gltf,
        &dir.path().join("p.glb"),
    );
    let (_, nodes) = nodes(&glb);
    let read = read_bundle(&bundle).expect("bundle");
    let plans: Vec<_> = read
        .products
        .iter()
        .filter_map(|p| match &p.product {
            Product::StreamingPlan(s) => Some(s),
            _ => None,
        })
        .collect();
    let exported = layout_nodes(&nodes, "streaming_plan");
    assert_eq!(exported.len(), plans.len());
    assert!(!plans.is_empty(), "the example has a streaming plan");
    for (product, (node, cells)) in plans.iter().zip(&exported) {
        let plan = &product.plan;
        let count = |role: &str| cells.iter().filter(|c| c.extras["role"] == role).count();
        assert_eq!(count("loaded"), plan.loaded_cells.len());
        assert_eq!(count("hlod"), plan.hlod_cells.len());
        assert_eq!(count("hlod_pruned"), plan.hlod_pruned_cells.len());
        assert_eq!(node.extras["loaded"], plan.loaded_cells.len());
        assert_eq!(node.extras["hlod_budget_mb"], plan.hlod_budget_mb);
        assert!(!plan.loaded_cells.is_empty());
        let size = product.cell_size_m;
        let loaded = cells.iter().filter(|c| c.extras["role"] == "loaded");
        for (cell, read) in plan.loaded_cells.iter().zip(loaded) {
            let x = ((f64::from(cell.x) + 0.5) * size) as f32;
            let z = -(((f64::from(cell.y) + 0.5) * size) as f32);
            assert_eq!(read.translation, [x, 0.0, z]);
            assert_eq!(read.extras["cell"], serde_json::json!([cell.x, cell.y]));
        }
    }
}
