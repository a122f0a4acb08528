//! Export benchmarks: a bundle of 100,000 placed objects (four variants of one family, 1 cm
//! lattice, rotations and scales varied) from decoded products to `.glb` bytes (scene extraction
//! and the glTF writer; target ≤ 200 ms), and to `.usda` text for comparison.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use stagecraft_runtime::content::placement::{PlacedObject, Placement};
use stagecraft_runtime::content::{PlacedProduct, Product};
use stagecraft_runtime::export::{gltf, usd, ExportScene, Looks, StageProduct};
use stagecraft_runtime::identity::pack_scatter_id;
use stagecraft_runtime::project::{AssetFamily, AssetVariant, PreviewShape};

mod support;
use support::cpu_ms;

const OBJECTS: usize = 100_000;

fn product() -> Product {
    let objects = (0..OBJECTS)
        .map(|k| {
            let (cx, cy) = ((k % 316) as i64, (k / 316) as i64);
            let id = pack_scatter_id(1, 0, 0, cx, cy).expect("packs");
            PlacedObject {
                placement: Placement {
                    id,
                    x: cx * 300 + 17,
                    y: cy * 300 + 41,
                    variant: (k % 4) as u32,
                    priority: k as u32,
                },
                rotation_turns_65536: (k * 7919 % 65536) as u16,
                scale: 850 + (k % 300) as u32,
            }
        })
        .collect();
    Product::PlacedObjects(PlacedProduct {
        family: "props".to_owned(),
        variant_ids: ["a", "b", "c", "d"].map(str::to_owned).to_vec(),
        lattice_unit_m: 0.01,
        scale_unit: 0.001,
        placements_stage: 1,
        objects,
    })
}

fn looks() -> Looks {
    let shapes = [
        PreviewShape::Box,
        PreviewShape::Cylinder,
        PreviewShape::Cone,
        PreviewShape::Box,
    ];
    let family = AssetFamily {
        id: "props".to_owned(),
        name: "Props".to_owned(),
        variants: ["a", "b", "c", "d"]
            .iter()
            .zip(shapes)
            .map(|(id, shape)| AssetVariant {
                id: (*id).to_owned(),
                weight: 1,
                collision_radius_m: 0.4,
                height_m: 2.0,
                sockets: Vec::new(),
                shape,
                ..AssetVariant::default()
            })
            .collect(),
    };
    Looks::of_families([&family])
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let product = product();
    let looks = looks();
    let products = [StageProduct {
        recipe: "big",
        stage: 2,
        product: &product,
    }];
    let export = || {
        let scene = ExportScene::from_products("Big", "00", &products, &looks);
        gltf::to_glb(&scene).expect("exports")
    };
    let bytes = export().len();
    if let Some(ms) = cpu_ms(10, || {
        black_box(export());
    }) {
        println!("CPU time per glTF export of {OBJECTS} placements: {ms:.1} ms ({bytes} bytes)");
    }
    let scene = ExportScene::from_products("Big", "00", &products, &looks);
    if let Some(ms) = cpu_ms(5, || {
        black_box(usd::to_usda(&scene));
    }) {
        println!("CPU time per USD export of {OBJECTS} placements: {ms:.1} ms");
    }
    let mut group = c.benchmark_group("export");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("gltf-100k", |bench| bench.iter(|| black_box(export())));
    group.bench_function("usda-100k", |bench| {
        bench.iter(|| black_box(usd::to_usda(&scene)))
    });
    group.finish();
    c.final_summary();
}
