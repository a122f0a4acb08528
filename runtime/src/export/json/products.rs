//! The products of a bundle as JSON documents, one type per product kind: street blocks,
//! scatter placements (with rejected candidates), placed objects, mission layouts and streaming
//! plans.

use schemars::JsonSchema;
use serde::Serialize;

use crate::content::geometry::Rect;
use crate::content::{
    MissionProduct, PlacedObject, PlacedProduct, Placement, PointM, Product, RectM, RejectReason,
    RejectedCandidate, ScatterProduct, StreamingCell, StreamingProduct, StreetBlock,
};

/// Where the objects of one product come from: recipe, stage, operator.
pub(super) struct Origin<'a> {
    pub recipe: &'a str,
    pub stage: u32,
    pub operator: &'a str,
}

/// A product, by kind (`kind` is the manifest's product kind).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum ProductJson {
    /// From `street.block`.
    StreetBlock(StreetBlockJson),
    /// From `environment.scatter`.
    Placements(ScatterJson),
    /// From `environment.select-and-place`.
    PlacedObjects(PlacedJson),
    /// From `layout.grid-mission`.
    MissionLayout(MissionJson),
    /// From `streaming.plan`.
    StreamingPlan(StreamingJson),
    /// From `assembly`.
    AssemblyPlan(AssemblyJson),
}

/// An assembly plan: modules of a family in the sockets of a frame repeated along a row.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssemblyJson {
    /// The module family.
    pub family: String,
    /// Its variant ids, indexed by a module's `variant`.
    pub variants: Vec<String>,
    /// The socket type of each slot of a frame.
    pub sockets: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// The modules, by (frame, slot).
    pub modules: Vec<ModuleJson>,
}

/// One placed module.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModuleJson {
    /// Persistent identity: the packed id, `0x` + 16 hex digits.
    #[schemars(pattern(r"^0x[0-9a-f]{16}$"))]
    pub id: String,
    /// The frame along the row.
    pub frame: i16,
    /// The slot of the frame.
    pub slot: u8,
    /// The slot's socket type.
    pub socket: String,
    /// Index of the module in the plan's `variants`.
    pub variant: u32,
    /// The module's variant id.
    pub variant_id: String,
    /// Where the module stands.
    pub transform: TransformJson,
}

/// A street block: pedestrian space (routes, crosswalks, portals), surfaces, vehicle lanes,
/// scatter areas and keep-outs.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreetBlockJson {
    /// Length along the street, meters.
    pub length_m: f64,
    /// Road width, meters.
    pub road_width_m: f64,
    /// Sidewalk width, meters.
    pub sidewalk_width_m: f64,
    /// Walkable routes (sidewalks and crosswalks), sorted by id.
    pub routes: Vec<RouteJson>,
    /// Signalled crosswalks, sorted by id.
    pub crosswalks: Vec<CrosswalkJson>,
    /// Where pedestrians enter and leave, sorted by id.
    pub portals: Vec<PortalJson>,
    /// Ground polygons (road, sidewalks, crosswalks).
    pub surfaces: Vec<SurfaceJson>,
    /// Vehicle lanes.
    pub lanes: Vec<LaneJson>,
    /// Areas for scatter stages.
    pub scatter_areas: Vec<NamedRectJson>,
    /// Areas scatter stages keep out of.
    pub keep_outs: Vec<NamedRectJson>,
}

/// A walkable polyline.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteJson {
    /// Route id.
    pub id: String,
    /// `sidewalk` or `crosswalk`.
    #[schemars(extend("enum" = ["sidewalk", "crosswalk"]))]
    pub kind: String,
    /// Walkable width, meters.
    pub width_m: f64,
    /// The polyline, meters (x, y).
    pub points_m: Vec<[f64; 2]>,
}

/// A signalled crosswalk joining two sidewalks.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrosswalkJson {
    /// Crosswalk id.
    pub id: String,
    /// Its crosswalk route.
    pub route: String,
    /// The signal that controls it.
    pub signal: String,
    /// Width, meters.
    pub width_m: f64,
    /// Vehicle lanes it crosses.
    pub lanes_crossed: u32,
    /// Its two sides.
    pub sides: Vec<CrosswalkSideJson>,
}

/// One side of a crosswalk.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrosswalkSideJson {
    /// The sidewalk route it meets.
    pub sidewalk: String,
    /// The node of that sidewalk it meets.
    pub node: u32,
    /// The kerb point, meters.
    pub kerb_m: [f64; 2],
    /// Where pedestrians wait, meters.
    pub waiting_point_m: [f64; 2],
}

/// Where pedestrians enter and leave.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortalJson {
    /// Portal id.
    pub id: String,
    /// The route it is on.
    pub route: String,
    /// The route node it is at.
    pub node: u32,
    /// Its position, meters.
    pub position_m: [f64; 2],
}

/// A ground polygon.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurfaceJson {
    /// Surface id.
    pub id: String,
    /// `road`, `sidewalk` or `crosswalk`.
    #[schemars(extend("enum" = ["road", "sidewalk", "crosswalk"]))]
    pub kind: String,
    /// The outline, counter-clockwise, meters.
    pub outline_m: Vec<[f64; 2]>,
}

/// A vehicle lane.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LaneJson {
    /// Lane id.
    pub id: String,
    /// `eastbound` or `westbound`.
    #[schemars(extend("enum" = ["eastbound", "westbound"]))]
    pub direction: String,
    /// Width, meters.
    pub width_m: f64,
    /// The centerline, meters.
    pub centerline_m: Vec<[f64; 2]>,
    /// The crosswalks it crosses.
    pub crosswalks: Vec<String>,
}

/// A named rectangle in meters.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedRectJson {
    /// Its id.
    pub id: String,
    /// The rectangle.
    pub rect_m: RectJson,
}

/// A rectangle in meters: min inclusive, max exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RectJson {
    /// West edge.
    pub min_x: f64,
    /// South edge.
    pub min_y: f64,
    /// East edge.
    pub max_x: f64,
    /// North edge.
    pub max_y: f64,
}

/// A rectangle in lattice units: min inclusive, max exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatticeRectJson {
    /// Lower x.
    pub min_x: i64,
    /// Lower y.
    pub min_y: i64,
    /// Upper x.
    pub max_x: i64,
    /// Upper y.
    pub max_y: i64,
}

/// Scatter placements: accepted placements and rejected candidates, layer by layer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScatterJson {
    /// The asset family scattered.
    pub family: String,
    /// Its variant ids, indexed by a placement's `variant`.
    pub variants: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// Cell edge, lattice units.
    pub cell_size: i64,
    /// Candidates drawn per cell.
    pub candidates_per_cell: u32,
    /// The stage whose areas gave the layers' regions, if any.
    pub area_stage: Option<u32>,
    /// Layers in ascending layer id.
    pub layers: Vec<LayerJson>,
}

/// One scatter layer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LayerJson {
    /// The layer id packed into its identities.
    pub layer: u8,
    /// The room (recipe instance) ordinal packed into its identities.
    pub room: u16,
    /// The upstream area it filled, if any.
    pub area: Option<String>,
    /// Its region, lattice units.
    pub region: LatticeRectJson,
    /// Its keep-outs, lattice units.
    pub keep_outs: Vec<LatticeRectJson>,
    /// Accepted placements in canonical order (cell y, cell x, candidate).
    pub placements: Vec<PlacementJson>,
    /// Rejected candidates in canonical order, each with its reason.
    pub rejected: Vec<RejectedJson>,
}

/// Placed objects: placements with rotation and scale.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacedJson {
    /// The asset family.
    pub family: String,
    /// Its variant ids, indexed by an object's `variant`.
    pub variants: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// The value of one scale step.
    pub scale_unit: f64,
    /// The scatter stage the placements came from.
    pub placements_stage: u32,
    /// The objects, in the scatter's order.
    pub objects: Vec<PlacementJson>,
}

/// One placed instance: identity, variant, transform and provenance.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacementJson {
    /// Persistent identity: the packed scatter id, `0x` + 16 hex digits.
    #[schemars(pattern(r"^0x[0-9a-f]{16}$"))]
    pub id: String,
    /// Index of the variant in the product's `variants`.
    pub variant: u32,
    /// The variant's id.
    pub variant_id: String,
    /// Where the instance stands.
    pub transform: TransformJson,
    /// What made it.
    pub provenance: ProvenanceJson,
}

/// An instance's transform, `T · R · S`: a uniform scale, then a rotation about +z, then the
/// translation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransformJson {
    /// Translation (x east, y north, z up), meters.
    pub translation_m: [f64; 3],
    /// Rotation about +z, counter-clockwise seen from above, in turns (0 ≤ r < 1; 0 before
    /// select-and-place).
    pub rotation_turns: f64,
    /// The same rotation as a unit quaternion (x, y, z, w).
    pub rotation_xyzw: [f64; 4],
    /// Uniform scale (1 before select-and-place).
    pub scale: f64,
}

/// What made an instance: its recipe and stage, the fields of its identity, and its parent.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvenanceJson {
    /// The recipe (instance) that generated it.
    pub recipe: String,
    /// The stage that emitted it.
    pub stage: u32,
    /// That stage's operator.
    pub operator: String,
    /// Room (recipe instance) ordinal, from the identity.
    pub room: u16,
    /// Scatter layer, from the identity.
    pub layer: u8,
    /// Scatter cell (column, row), from the identity.
    pub cell: [i16; 2],
    /// Candidate index within the cell, from the identity.
    pub candidate: u8,
    /// Whether an author added it (an override's `Add`) rather than the generator.
    pub authored: bool,
    /// Lattice position (x, y), the exact integer position.
    pub lattice: [i64; 2],
    /// Thinning priority it was drawn with.
    pub priority: u32,
    /// The object it was made from (the scatter placement of a placed object).
    pub parent: Option<ParentJson>,
}

/// An instance's parent: stage and identity.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParentJson {
    /// The parent's stage.
    pub stage: u32,
    /// The parent's identity.
    #[schemars(pattern(r"^0x[0-9a-f]{16}$"))]
    pub id: String,
}

/// A scatter candidate that was not accepted.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectedJson {
    /// The candidate's identity.
    #[schemars(pattern(r"^0x[0-9a-f]{16}$"))]
    pub id: String,
    /// Its position, meters.
    pub position_m: [f64; 2],
    /// Its lattice position.
    pub lattice: [i64; 2],
    /// Why it was rejected.
    pub reason: RejectReasonJson,
}

/// Why a scatter candidate was rejected.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RejectReasonJson {
    /// Outside the layer's region.
    OutsideRegion,
    /// Inside a keep-out.
    KeepOut {
        /// Index into the layer's `keep_outs`.
        keep_out: u32,
    },
    /// Lost to a conflicting candidate of higher (priority, id).
    Conflict {
        /// The winner's identity.
        #[schemars(pattern(r"^0x[0-9a-f]{16}$"))]
        with: String,
    },
}

/// A solved grid mission layout. Cell (x, y) (y grows south) is centred at
/// ((x + ½)·s, −(y + ½)·s) meters.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MissionJson {
    /// Edge of a grid cell, meters.
    pub cell_size_m: f64,
    /// The seed the layout was solved with.
    pub seed: u64,
    /// The attempt that succeeded.
    pub attempt: u32,
    /// That attempt's seed.
    pub attempt_seed: u64,
    /// Grid width, cells.
    pub width: u32,
    /// Grid height, cells.
    pub height: u32,
    /// The spawn cell (x, y).
    pub spawn: [u32; 2],
    /// The extraction cell.
    pub extraction: [u32; 2],
    /// Objective cells.
    pub objectives: Vec<[u32; 2]>,
    /// Every chunk of the grid.
    pub chunks: Vec<ChunkJson>,
    /// The bot's proof path, cell by cell.
    pub bot_path: Vec<[u32; 2]>,
    /// Cells that admit NPCs.
    pub npc_cells: Vec<[u32; 2]>,
    /// The daily key, if the layout has one.
    pub daily: Option<DailyKeyJson>,
}

/// One chunk of a mission grid.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkJson {
    /// Its cell (x, y).
    pub cell: [u32; 2],
    /// The cell's centre, meters.
    pub center_m: [f64; 2],
    /// Its role.
    #[schemars(extend("enum" = ["spawn", "objective", "extraction", "connector", "encounter", "landmark", "blocker"]))]
    pub role: String,
    /// The library chunk chosen.
    pub chunk_id: String,
    /// Whether it blocks traversal.
    pub blocks_traversal: bool,
    /// Whether NPCs may spawn there.
    pub npc_spawn_tag: bool,
}

/// A mission's daily key.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DailyKeyJson {
    /// The cell id.
    pub cell_id: String,
    /// The date id.
    pub date_id: String,
}

/// A streaming plan around one observer. Cell (x, y) covers [x·s, (x+1)·s) × [y·s, (y+1)·s)
/// meters.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamingJson {
    /// Edge of a streaming cell, meters.
    pub cell_size_m: f64,
    /// The observer's position, meters.
    pub observer_m: [f64; 2],
    /// The observer's cell.
    pub observer_cell: [i32; 2],
    /// Cells loaded at full detail.
    pub loaded_cells: Vec<[i32; 2]>,
    /// Cells loaded as HLOD.
    pub hlod_cells: Vec<[i32; 2]>,
    /// HLOD cells pruned to fit the budget.
    pub hlod_pruned_cells: Vec<[i32; 2]>,
    /// HLOD memory requested, MB.
    pub hlod_requested_mb: u64,
    /// HLOD memory estimated after pruning, MB.
    pub hlod_estimated_mb: u64,
    /// The HLOD budget, MB.
    pub hlod_budget_mb: u64,
}

pub(super) fn product_json(origin: &Origin<'_>, product: &Product) -> ProductJson {
    match product {
        Product::StreetBlock(block) => ProductJson::StreetBlock(street_json(block)),
        Product::Placements(scatter) => ProductJson::Placements(scatter_json(origin, scatter)),
        Product::PlacedObjects(placed) => ProductJson::PlacedObjects(placed_json(origin, placed)),
        Product::MissionLayout(mission) => ProductJson::MissionLayout(mission_json(mission)),
        Product::StreamingPlan(streaming) => ProductJson::StreamingPlan(streaming_json(streaming)),
        Product::AssemblyPlan(plan) => ProductJson::AssemblyPlan(assembly_json(plan)),
    }
}

fn assembly_json(plan: &crate::content::AssemblyPlan) -> AssemblyJson {
    let unit = plan.lattice_unit_m;
    let module = |m: &crate::content::AssemblyModule| {
        let turns = f64::from(m.rotation_turns_65536) / 65536.0;
        let half_angle = turns * std::f64::consts::PI;
        ModuleJson {
            id: m.id.to_string(),
            frame: m.frame(),
            slot: m.slot(),
            socket: plan.socket_of(m).to_owned(),
            variant: m.variant,
            variant_id: plan
                .variant_ids
                .get(m.variant as usize)
                .cloned()
                .unwrap_or_default(),
            transform: TransformJson {
                translation_m: [m.x as f64 * unit, m.y as f64 * unit, 0.0],
                rotation_turns: turns,
                rotation_xyzw: [0.0, 0.0, half_angle.sin(), half_angle.cos()],
                scale: 1.0,
            },
        }
    };
    AssemblyJson {
        family: plan.family.clone(),
        variants: plan.variant_ids.clone(),
        sockets: plan.sockets.clone(),
        lattice_unit_m: unit,
        modules: plan.modules.iter().map(module).collect(),
    }
}

fn xy(p: PointM) -> [f64; 2] {
    [p.x, p.y]
}

fn xys(points: &[PointM]) -> Vec<[f64; 2]> {
    points.iter().map(|p| xy(*p)).collect()
}

fn rect_m(rect: &RectM) -> RectJson {
    RectJson {
        min_x: rect.min_x,
        min_y: rect.min_y,
        max_x: rect.max_x,
        max_y: rect.max_y,
    }
}

fn lattice_rect(rect: &Rect) -> LatticeRectJson {
    LatticeRectJson {
        min_x: rect.min_x,
        min_y: rect.min_y,
        max_x: rect.max_x,
        max_y: rect.max_y,
    }
}

fn street_json(block: &StreetBlock) -> StreetBlockJson {
    let space = &block.space;
    StreetBlockJson {
        length_m: block.length_m,
        road_width_m: block.road_width_m,
        sidewalk_width_m: block.sidewalk_width_m,
        routes: space
            .routes
            .iter()
            .map(|r| RouteJson {
                id: r.id.clone(),
                kind: r.kind.name().to_owned(),
                width_m: r.width_m,
                points_m: xys(&r.points),
            })
            .collect(),
        crosswalks: space
            .crosswalks
            .iter()
            .map(|c| CrosswalkJson {
                id: c.id.clone(),
                route: c.route.clone(),
                signal: c.signal_id.clone(),
                width_m: c.width_m,
                lanes_crossed: c.lanes_crossed,
                sides: c
                    .sides
                    .iter()
                    .map(|s| CrosswalkSideJson {
                        sidewalk: s.sidewalk.clone(),
                        node: s.node,
                        kerb_m: xy(s.kerb),
                        waiting_point_m: xy(s.waiting_point),
                    })
                    .collect(),
            })
            .collect(),
        portals: space
            .portals
            .iter()
            .map(|p| PortalJson {
                id: p.id.clone(),
                route: p.route.clone(),
                node: p.node,
                position_m: xy(p.position),
            })
            .collect(),
        surfaces: block
            .surfaces
            .iter()
            .map(|s| SurfaceJson {
                id: s.id.clone(),
                kind: s.kind.name().to_owned(),
                outline_m: xys(&s.outline),
            })
            .collect(),
        lanes: block
            .lanes
            .iter()
            .map(|l| LaneJson {
                id: l.id.clone(),
                direction: l.direction.name().to_owned(),
                width_m: l.width_m,
                centerline_m: xys(&l.centerline),
                crosswalks: l.crosswalks.clone(),
            })
            .collect(),
        scatter_areas: block
            .scatter_areas
            .iter()
            .map(|a| named_rect(&a.id, &a.rect))
            .collect(),
        keep_outs: block
            .keep_outs
            .iter()
            .map(|k| named_rect(&k.id, &k.rect))
            .collect(),
    }
}

fn named_rect(id: &str, rect: &RectM) -> NamedRectJson {
    NamedRectJson {
        id: id.to_owned(),
        rect_m: rect_m(rect),
    }
}

/// One placement as JSON at `unit` meters per lattice unit, rotated by `turns_65536` and scaled
/// by `scale`, made from `parent` (a placed object's scatter placement) if any.
fn placement_json(
    origin: &Origin<'_>,
    placement: &Placement,
    variants: &[String],
    unit: f64,
    (turns_65536, scale): (u16, f64),
    parent: Option<ParentJson>,
) -> PlacementJson {
    let key = placement.id.unpack();
    let turns = f64::from(turns_65536) / 65536.0;
    let half_angle = turns * std::f64::consts::PI;
    PlacementJson {
        id: placement.id.to_string(),
        variant: placement.variant,
        variant_id: variants
            .get(placement.variant as usize)
            .cloned()
            .unwrap_or_default(),
        transform: TransformJson {
            translation_m: [placement.x as f64 * unit, placement.y as f64 * unit, 0.0],
            rotation_turns: turns,
            rotation_xyzw: [0.0, 0.0, half_angle.sin(), half_angle.cos()],
            scale,
        },
        provenance: ProvenanceJson {
            recipe: origin.recipe.to_owned(),
            stage: origin.stage,
            operator: origin.operator.to_owned(),
            room: key.room.get(),
            layer: key.layer,
            cell: [key.cell_x, key.cell_y],
            candidate: key.candidate,
            authored: placement.id.is_authored(),
            lattice: [placement.x, placement.y],
            priority: placement.priority,
            parent,
        },
    }
}

fn rejected_json(rejected: &RejectedCandidate, unit: f64) -> RejectedJson {
    RejectedJson {
        id: rejected.id.to_string(),
        position_m: [rejected.x as f64 * unit, rejected.y as f64 * unit],
        lattice: [rejected.x, rejected.y],
        reason: match rejected.reason() {
            RejectReason::OutsideRegion => RejectReasonJson::OutsideRegion,
            RejectReason::InKeepOut { keep_out } => RejectReasonJson::KeepOut { keep_out },
            RejectReason::Conflict { with } => RejectReasonJson::Conflict {
                with: with.to_string(),
            },
        },
    }
}

fn scatter_json(origin: &Origin<'_>, scatter: &ScatterProduct) -> ScatterJson {
    let unit = scatter.lattice_unit_m;
    let variants = &scatter.variant_ids;
    ScatterJson {
        family: scatter.family.clone(),
        variants: variants.clone(),
        lattice_unit_m: unit,
        cell_size: scatter.cell_size,
        candidates_per_cell: scatter.candidates_per_cell,
        area_stage: scatter.area_stage,
        layers: scatter
            .layers
            .iter()
            .map(|layer| LayerJson {
                layer: layer.layer,
                room: layer.room,
                area: layer.area.clone(),
                region: lattice_rect(&layer.region),
                keep_outs: layer.keep_outs.iter().map(lattice_rect).collect(),
                placements: layer
                    .output
                    .placements
                    .iter()
                    .map(|p| placement_json(origin, p, variants, unit, (0, 1.0), None))
                    .collect(),
                rejected: layer
                    .output
                    .rejected
                    .iter()
                    .map(|r| rejected_json(r, unit))
                    .collect(),
            })
            .collect(),
    }
}

fn placed_json(origin: &Origin<'_>, placed: &PlacedProduct) -> PlacedJson {
    let object = |o: &PlacedObject| {
        let parent = ParentJson {
            stage: placed.placements_stage,
            id: o.placement.id.to_string(),
        };
        let transform = (
            o.rotation_turns_65536,
            f64::from(o.scale) * placed.scale_unit,
        );
        placement_json(
            origin,
            &o.placement,
            &placed.variant_ids,
            placed.lattice_unit_m,
            transform,
            Some(parent),
        )
    };
    PlacedJson {
        family: placed.family.clone(),
        variants: placed.variant_ids.clone(),
        lattice_unit_m: placed.lattice_unit_m,
        scale_unit: placed.scale_unit,
        placements_stage: placed.placements_stage,
        objects: placed.objects.iter().map(object).collect(),
    }
}

fn mission_json(mission: &MissionProduct) -> MissionJson {
    let layout = &mission.layout;
    let cell = |c: &crate::content::GridCell| [c.x, c.y];
    MissionJson {
        cell_size_m: mission.cell_size_m,
        seed: layout.seed,
        attempt: layout.attempt,
        attempt_seed: layout.attempt_seed,
        width: layout.width,
        height: layout.height,
        spawn: cell(&layout.spawn),
        extraction: cell(&layout.extraction),
        objectives: layout.objectives.iter().map(cell).collect(),
        chunks: layout
            .chunks
            .iter()
            .map(|c| ChunkJson {
                cell: cell(&c.cell),
                center_m: xy(mission.cell_center_m(c.cell.x, c.cell.y)),
                role: c.role.name().to_owned(),
                chunk_id: c.chunk_id.clone(),
                blocks_traversal: c.blocks_traversal,
                npc_spawn_tag: c.npc_spawn_tag,
            })
            .collect(),
        bot_path: layout.bot_path.iter().map(cell).collect(),
        npc_cells: layout.npc_cells.iter().map(cell).collect(),
        daily: layout.daily.as_ref().map(|d| DailyKeyJson {
            cell_id: d.cell_id.clone(),
            date_id: d.date_id.clone(),
        }),
    }
}

fn streaming_json(streaming: &StreamingProduct) -> StreamingJson {
    let plan = &streaming.plan;
    let cells = |list: &[StreamingCell]| list.iter().map(|c| [c.x, c.y]).collect();
    StreamingJson {
        cell_size_m: streaming.cell_size_m,
        observer_m: xy(streaming.observer_m),
        observer_cell: [plan.observer_cell.x, plan.observer_cell.y],
        loaded_cells: cells(&plan.loaded_cells),
        hlod_cells: cells(&plan.hlod_cells),
        hlod_pruned_cells: cells(&plan.hlod_pruned_cells),
        hlod_requested_mb: plan.hlod_requested_mb,
        hlod_estimated_mb: plan.hlod_estimated_mb,
        hlod_budget_mb: plan.hlod_budget_mb,
    }
}
