//! Preview content made without the generator, for tests and benchmarks: the example street
//! block, a synthetic field of placed objects of any size, and a world of crossers on one
//! signalled crosswalk.

use std::collections::BTreeMap;
use std::sync::Arc;

use stagecraft_runtime::content::{
    ObjectProvenance, PlacedObject, PlacedProduct, Placement, Product, StageProvenance,
};
use stagecraft_runtime::generate::{GeneratedBundle, StageRecord};
use stagecraft_runtime::identity::{pack_scatter_id, ChildKey};
use stagecraft_runtime::ops::street_block::{build_street_block, StreetBlockParams};
use stagecraft_runtime::project::{AssetFamily, AssetVariant, PreviewShape, Rgb};

use super::content::PreviewContent;

/// A stage record for `product`, with its digest and summary computed (no cache key).
pub fn stage_record(
    stage: u32,
    label: &str,
    operator: &'static str,
    product: Product,
    provenance: StageProvenance,
) -> StageRecord {
    StageRecord {
        stage,
        label: label.to_owned(),
        operator,
        algorithm: 1,
        depth: 0,
        dependencies: Vec::new(),
        key: [0; 32],
        digest: product.digest(),
        summary: product.summary(),
        product: Arc::new(product),
        provenance: Arc::new(provenance),
    }
}

/// Content of `recipe` made of `stages` (sorted here by stage id) with `families`.
pub fn content_of(
    recipe: &str,
    mut stages: Vec<StageRecord>,
    families: BTreeMap<String, AssetFamily>,
) -> PreviewContent {
    stages.sort_by_key(|s| s.stage);
    let outputs = stages.iter().map(|s| s.stage).collect();
    PreviewContent {
        bundle: Arc::new(GeneratedBundle::new(
            recipe.to_owned(),
            [0; 32],
            7,
            1,
            stages,
            outputs,
        )),
        families,
    }
}

/// `content` with `record` added (replacing a stage of the same id).
pub fn with_stage(content: &PreviewContent, record: StageRecord) -> PreviewContent {
    let mut stages: Vec<StageRecord> = content
        .stages()
        .iter()
        .filter(|s| s.stage != record.stage)
        .cloned()
        .collect();
    stages.push(record);
    content_of(content.recipe(), stages, content.families.clone())
}

/// The street block of the example project (80 m, two lanes, one crosswalk) as stage 1.
pub fn street_content(recipe: &str) -> PreviewContent {
    let params = StreetBlockParams {
        length_m: 80.0,
        road_width_m: 7.0,
        sidewalk_width_m: 4.0,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    };
    // The parameters are the example's, which the operator accepts.
    let stages = build_street_block(&params)
        .map(|block| {
            stage_record(
                1,
                "Block layout",
                "street.block",
                Product::StreetBlock(block),
                StageProvenance::default(),
            )
        })
        .into_iter()
        .collect();
    content_of(recipe, stages, BTreeMap::new())
}

/// A family of four preview shapes (box, cylinder, cone, box) named `props`.
pub fn props_family() -> AssetFamily {
    let variant = |id: &str, shape, colour, radius, height| AssetVariant {
        id: id.into(),
        weight: 1,
        exclusion_radius: 50,
        collision_radius_m: radius,
        height_m: height,
        sockets: Vec::new(),
        shape,
        colour,
    };
    AssetFamily {
        id: "props".into(),
        name: "Props".into(),
        variants: vec![
            variant("bench", PreviewShape::Box, Rgb(139, 94, 60), 0.9, 0.9),
            variant("bin", PreviewShape::Cylinder, Rgb(60, 70, 80), 0.3, 1.0),
            variant("tree", PreviewShape::Cone, Rgb(60, 140, 70), 1.2, 6.0),
            variant("planter", PreviewShape::Box, Rgb(84, 140, 70), 0.6, 0.8),
        ],
    }
}

/// `content` plus a select-and-place stage (id 3, over scatter stage 2) of `count` objects of
/// [`props_family`] on a 2 m grid centred on the origin, variants cycling, with provenance.
pub fn with_placed_objects(content: PreviewContent, count: usize) -> PreviewContent {
    let side = (count as f64).sqrt().ceil().max(1.0) as i64;
    let mut objects = Vec::with_capacity(count);
    let mut records = Vec::with_capacity(count);
    for index in 0..count as i64 {
        let (cell_x, cell_y) = (index % side - side / 2, index / side - side / 2);
        let Ok(id) = pack_scatter_id(1, 0, 0, cell_x, cell_y) else {
            continue;
        };
        let variant = (index % 4) as u32;
        objects.push(PlacedObject {
            placement: Placement {
                id,
                x: cell_x * 200,
                y: cell_y * 200,
                variant,
                priority: 0,
            },
            rotation_turns_65536: (index * 4099 % 65_536) as u16,
            scale: 1000,
        });
        records.push(ObjectProvenance {
            key: ChildKey::Scatter(id),
            parent: None,
            variant: Some(variant),
            draws: Vec::new(),
            constraints: Vec::new(),
        });
    }
    let family = props_family();
    let record = stage_record(
        3,
        "Place props",
        "environment.select-and-place",
        Product::PlacedObjects(PlacedProduct {
            family: family.id.clone(),
            variant_ids: family.variants.iter().map(|v| v.id.clone()).collect(),
            lattice_unit_m: 0.01,
            scale_unit: 0.001,
            placements_stage: 2,
            objects,
        }),
        StageProvenance {
            family: Some(family.id.clone()),
            objects: records,
            ..StageProvenance::default()
        },
    );
    let mut content = with_stage(&content, record);
    content.families.insert(family.id.clone(), family);
    content
}

/// A world of `crossers` ambient crossers at 1.2 m/s on one signalled crosswalk of a 40 m street
/// block, with the hazard vehicle, running `duration_frames` frames (a window of twelve crossers
/// holds one group of three).
pub fn crossing_world(crossers: u32, duration_frames: u64) -> stagecraft_runtime::sim::World {
    use stagecraft_runtime::project::{
        CrossingsSettings, HazardVehicle, PopulationKind, PopulationSource, Scenario,
    };
    use stagecraft_runtime::sim::{build_world, CompiledScenario};

    let block = build_street_block(&StreetBlockParams {
        length_m: 40.0,
        road_width_m: 7.0,
        sidewalk_width_m: 12.0,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    })
    .expect("block");
    let space = stagecraft_runtime::sim::SimSpace::from_street_blocks(&[&block]).expect("space");
    let scenario = Scenario {
        id: "crossings".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames,
        sources: vec![PopulationSource {
            id: "crossers".into(),
            kind: PopulationKind::Ambient,
            route: "crosswalk.0".into(),
            target_count: crossers,
            walk_speed_m_s: 1.2,
            ..Default::default()
        }],
        crossings: CrossingsSettings {
            hazard: Some(HazardVehicle {
                y_m: -1.75,
                speed_m_s: 4.0,
            }),
            ..CrossingsSettings::default()
        },
        ..Default::default()
    };
    let compiled = CompiledScenario::compile(&scenario).expect("compiles");
    build_world(&Arc::new(space), &Arc::new(compiled), 10).expect("world")
}

/// Recipe `recipe` of the example project `project` (under `projects/`), generated with its
/// overrides as the preview shows it; `None` when it does not load, compile or generate.
pub fn example_content(project: &str, recipe: &str) -> Option<PreviewContent> {
    use stagecraft_runtime::overrides::Overrides;
    use stagecraft_runtime::recipe::{compile, RecipeSource};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(project);
    let (_, loaded) = crate::project_io::load_dir(&dir).ok()?;
    let project = loaded.project?;
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    let source = RecipeSource {
        file: "recipe",
        tree: None,
    };
    let plan = compile(
        project.recipes.get(recipe)?,
        &project.families,
        &registry,
        source,
    )
    .plan?;
    let overrides = Overrides::of_recipe(&project, recipe);
    let bundle = crate::cook::generate_plan(&plan, project.manifest.root_seed, &overrides).ok()?;
    Some(PreviewContent {
        bundle: Arc::new(bundle),
        families: project.families.clone(),
    })
}
