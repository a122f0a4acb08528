//! Exports of small synthetic products: the axis change on a known placement, grouping per
//! variant, identities in the glTF extras and the USD text, byte-determinism.

use super::*;
use crate::content::placement::{PlacedObject, Placement};
use crate::content::{PlacedProduct, Product};
use crate::identity::{pack_scatter_id, ScatterId};
use crate::project::PreviewShape;

fn id(cell_x: i16, cell_y: i16) -> ScatterId {
    pack_scatter_id(1, 0, 0, i64::from(cell_x), i64::from(cell_y)).unwrap_or_else(|e| panic!("{e}"))
}

fn object(cell: i16, x: i64, y: i64, variant: u32, rotation: u16, scale: u32) -> PlacedObject {
    PlacedObject {
        placement: Placement {
            id: id(cell, 3),
            x,
            y,
            variant,
            priority: 0,
        },
        rotation_turns_65536: rotation,
        scale,
    }
}

/// Three objects of two variants; the first at (12.5 m, 4 m), a quarter turn, scale 1.2.
fn product() -> Product {
    Product::PlacedObjects(PlacedProduct {
        family: "props".to_owned(),
        variant_ids: vec!["bench".to_owned(), "lamp".to_owned()],
        lattice_unit_m: 0.01,
        scale_unit: 0.001,
        placements_stage: 2,
        objects: vec![
            object(1, 1250, 400, 1, 16384, 1200),
            object(2, -300, 700, 0, 0, 1000),
            object(3, 50, -20, 1, 32768, 800),
        ],
    })
}

fn looks() -> Looks {
    let mut family = crate::project::AssetFamily {
        id: "props".to_owned(),
        ..Default::default()
    };
    for (id, shape) in [
        ("bench", PreviewShape::Box),
        ("lamp", PreviewShape::Cylinder),
    ] {
        family.variants.push(crate::project::AssetVariant {
            id: id.to_owned(),
            weight: 1,
            collision_radius_m: 0.3,
            height_m: 2.0,
            sockets: Vec::new(),
            shape,
            ..Default::default()
        });
    }
    Looks::of_families([&family])
}

fn scene() -> ExportScene {
    let product = product();
    let products = [StageProduct {
        recipe: "demo",
        stage: 3,
        product: &product,
    }];
    ExportScene::from_products("Demo", "ab12", &products, &looks())
}

#[test]
fn groups_hold_each_variants_instances_in_product_order() {
    let scene = scene();
    let summary: Vec<(&str, usize, bool)> = scene
        .groups
        .iter()
        .map(|g| (g.variant.as_str(), g.instances.len(), g.look_known))
        .collect();
    assert_eq!(summary, vec![("bench", 1, true), ("lamp", 2, true)]);
    assert_eq!(scene.groups[1].instances[0].id, id(1, 3));
    assert_eq!(scene.groups[1].instances[0].x_m, 12.5);
    assert_eq!(scene.groups[1].instances[0].scale, 1.2);
    assert_eq!(scene.instance_count(), 3);
}

#[test]
fn an_assembly_plans_modules_are_instances_of_their_variants() {
    use crate::content::{AssemblyModule, AssemblyPlan};
    let module = |slot: i16, x: i64, variant: u32, rotation: u16| AssemblyModule {
        id: id(slot, 0),
        x,
        y: 250,
        variant,
        rotation_turns_65536: rotation,
    };
    let product = Product::AssemblyPlan(AssemblyPlan {
        family: "props".to_owned(),
        variant_ids: vec!["bench".to_owned(), "lamp".to_owned()],
        sockets: vec!["bay".to_owned()],
        lattice_unit_m: 0.01,
        modules: vec![
            module(0, 0, 1, 0),
            module(1, 400, 0, 32768),
            module(2, 800, 1, 0),
        ],
    });
    let products = [StageProduct {
        recipe: "facades",
        stage: 7,
        product: &product,
    }];
    let scene = ExportScene::from_products("Demo", "ab12", &products, &looks());
    let summary: Vec<(&str, u32, usize)> = scene
        .groups
        .iter()
        .map(|g| (g.variant.as_str(), g.stage, g.instances.len()))
        .collect();
    assert_eq!(summary, vec![("bench", 7, 1), ("lamp", 7, 2)]);
    let bench = &scene.groups[0].instances[0];
    assert_eq!((bench.id, bench.x_m, bench.y_m), (id(1, 0), 4.0, 2.5));
    assert_eq!((bench.rotation_turns_65536, bench.scale), (32768, 1.0));
    assert_eq!(scene.instance_count(), 3);
}

#[test]
fn the_axis_change_maps_z_up_to_y_up() {
    assert_eq!(y_up([12.5, 4.0, 0.0]), [12.5, 0.0, -4.0]);
    assert_eq!(y_up([1.0, 0.0, 2.0]), [1.0, 2.0, 0.0]);
    // A quarter turn about Z (x towards y) is a quarter turn about +Y: x goes to -z.
    let [qx, qy, qz, qw] = yaw_quaternion(std::f64::consts::FRAC_PI_2);
    assert_eq!((qx, qz), (0.0, 0.0));
    assert!((qy - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-7);
    assert!((qw - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-7);
    // Rotating (1, 0, 0) by q: x' = 1 - 2(qy² + qz²), z' = 2(qx·qz - qw·qy).
    let x = 1.0 - 2.0 * (qy * qy + qz * qz);
    let z = 2.0 * (qx * qz - qw * qy);
    assert!(x.abs() < 1e-6 && (z + 1.0).abs() < 1e-6, "({x}, {z})");
    // The variant's mesh stands on the ground: heights go to +Y, 0..2 m.
    let mesh = mesh::variant_mesh(&scene().groups[0].look);
    let (min, max) = mesh.bounds();
    assert_eq!((min[1], max[1]), (0.0, 2.0));
    assert_eq!((min[0], max[0], min[2], max[2]), (-0.3, 0.3, -0.3, 0.3));
}

fn read_glb(bytes: &[u8]) -> ::gltf::Gltf {
    ::gltf::Gltf::from_slice(bytes).unwrap_or_else(|e| panic!("glb reads back: {e}"))
}

fn f32s(blob: &[u8], accessor: &::gltf::Accessor<'_>) -> Vec<f32> {
    let view = accessor.view().unwrap_or_else(|| panic!("view"));
    let start = view.offset() + accessor.offset();
    let len = accessor.count() * accessor.size();
    blob[start..start + len]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn the_glb_instances_each_variant_with_identities_in_its_extras() {
    let bytes = gltf::to_glb(&scene()).unwrap_or_else(|e| panic!("{e}"));
    let gltf = read_glb(&bytes);
    let blob = gltf
        .blob
        .as_deref()
        .unwrap_or_else(|| panic!("binary chunk"));
    assert_eq!(
        gltf.extensions_used().collect::<Vec<_>>(),
        vec!["EXT_mesh_gpu_instancing"]
    );
    let lamp = gltf
        .nodes()
        .find(|n| n.name() == Some("demo.3.props.lamp"))
        .unwrap_or_else(|| panic!("lamp node"));
    let extras: serde_json::Value =
        serde_json::from_str(lamp.extras().as_ref().map_or("null", |raw| raw.get()))
            .unwrap_or_else(|e| panic!("{e}"));
    let expected = serde_json::json!({
        "recipe": "demo", "stage": 3, "family": "props", "variant": "lamp", "look_known": true,
        "ids": [id(1, 3).to_string(), id(3, 3).to_string()],
    });
    assert_eq!(extras, expected);
    let attributes = lamp
        .extension_value(gltf::EXT_INSTANCING)
        .and_then(|e| e.get("attributes"))
        .unwrap_or_else(|| panic!("instancing extension"));
    let accessor = |name: &str| {
        let index = attributes[name]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}"));
        gltf.accessors()
            .nth(index as usize)
            .unwrap_or_else(|| panic!("accessor {index}"))
    };
    assert_eq!(accessor("TRANSLATION").count(), 2);
    assert_eq!(
        f32s(blob, &accessor("TRANSLATION")),
        vec![12.5, 0.0, -4.0, 0.5, 0.0, 0.2]
    );
    assert_eq!(f32s(blob, &accessor("SCALE"))[..3], [1.2, 1.2, 1.2]);
    let rotation = f32s(blob, &accessor("ROTATION"));
    assert!(
        (rotation[5] - 1.0).abs() < 1e-6,
        "half a turn about +Y: {rotation:?}"
    );
    let ids: Vec<u32> = f32s(blob, &accessor("_ID"))
        .iter()
        .map(|f| f.to_bits())
        .collect();
    assert_eq!(ids, vec![0, 1]);
    assert_eq!(gltf.meshes().count(), 2);
}

#[test]
fn exports_are_byte_deterministic() {
    let (a, b) = (scene(), scene());
    assert_eq!(gltf::to_glb(&a), gltf::to_glb(&b));
    assert_eq!(usd::to_usda(&a), usd::to_usda(&b));
}

#[test]
fn the_usda_has_one_instancer_per_family_with_ids_and_provenance() {
    let text = usd::to_usda(&scene());
    assert!(text.starts_with("#usda 1.0\n"));
    assert!(text.contains("    metersPerUnit = 1\n    upAxis = \"Y\"\n"));
    assert_eq!(text.matches("def PointInstancer").count(), 1);
    let bench = id(2, 3).bits() as i64;
    let lamps = (id(1, 3).bits() as i64, id(3, 3).bits() as i64);
    let ids = format!("int64[] ids = [{bench}, {}, {}]", lamps.0, lamps.1);
    assert!(text.contains(&ids), "{text}");
    assert!(text.contains("int[] protoIndices = [0, 1, 1]"));
    assert!(text.contains("point3f[] positions = [(-3, 0, -7), (12.5, 0, -4), (0.5, 0, 0.2)]"));
    let identity = format!("[\"{}\", \"{}\", \"{}\"]", id(2, 3), id(1, 3), id(3, 3));
    assert!(text.contains(&format!(
        "string[] primvars:stagecraft:identity = {identity}"
    )));
    assert!(text.contains("rel prototypes = [</World/demo_3_props/Prototypes/bench>, </World/demo_3_props/Prototypes/lamp>]"));
}
