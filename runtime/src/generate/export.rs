//! A generated bundle as a canonical document tree, for `stagecraft generate --out`.
//!
//! The tree is written as canonical RON by [`crate::project::write::to_canonical_string`] (or
//! converted to JSON by the command line), so the products can be checked outside the project:
//! every placement carries its packed id, cell, candidate index, lattice position, variant index
//! (and id), priority, and — after select-and-place — rotation and scale.

use crate::content::encode::hex;
use crate::content::{
    MissionProduct, PlacedProduct, Placement, PointM, Product, RejectReason, ScatterProduct,
    StreamingCell, StreamingProduct, StreetBlock,
};
use crate::overrides::EditOutcome;
use crate::project::write::Doc;

use super::bundle::{GeneratedBundle, StageRecord};

/// The bundle as a document tree.
pub fn bundle_doc(bundle: &GeneratedBundle) -> Doc {
    Doc::Struct(
        "GeneratedBundle",
        vec![
            ("recipe", Doc::Str(bundle.recipe_id.clone())),
            ("root_seed", Doc::Int(bundle.root_seed.into())),
            ("address_schema", Doc::Int(bundle.address_schema.into())),
            ("digest", Doc::Str(bundle.digest_hex())),
            ("source_digest", Doc::Str(hex(&bundle.source_digest))),
            (
                "outputs",
                Doc::List(
                    bundle
                        .outputs
                        .iter()
                        .map(|o| Doc::Int((*o).into()))
                        .collect(),
                ),
            ),
            (
                "stages",
                Doc::List(bundle.stages.iter().map(stage_doc).collect()),
            ),
        ]
        .into_iter()
        .chain(edits_fields(bundle))
        .collect(),
    )
}

/// `edits` (every override and mutation with its outcome) and `regrown` (each regrown placement's
/// ordinal and variant), only for a bundle that has edits, so other exports are unchanged.
fn edits_fields(bundle: &GeneratedBundle) -> Vec<(&'static str, Doc)> {
    let outcomes: Vec<&EditOutcome> = bundle.edit_outcomes().collect();
    if outcomes.is_empty() {
        return Vec::new();
    }
    let edits = outcomes
        .iter()
        .map(|o| {
            let result = match &o.result {
                Ok(()) => Doc::Unit("Applied"),
                Err(reason) => Doc::Variant("Conflict", vec![Doc::Str(reason.name().to_owned())]),
            };
            Doc::Struct(
                "Edit",
                vec![
                    ("edit", Doc::Str(o.edit.to_string())),
                    ("stage", int(o.stage)),
                    ("target", int(o.target)),
                    ("action", Doc::Str(o.action.to_owned())),
                    ("result", result),
                ],
            )
        })
        .collect();
    let regrown = outcomes
        .iter()
        .filter_map(|o| {
            let (ordinal, variant) = o.regrow?;
            let variant_id = bundle
                .stage(o.stage)
                .and_then(|s| match &*s.product {
                    Product::Placements(scatter) => scatter.variant_ids.get(variant as usize),
                    _ => None,
                })
                .cloned()
                .unwrap_or_default();
            Some(Doc::Struct(
                "Regrown",
                vec![
                    ("stage", int(o.stage)),
                    ("id", int(o.target)),
                    ("ordinal", int(ordinal)),
                    ("variant", int(variant)),
                    ("variant_id", Doc::Str(variant_id)),
                ],
            ))
        })
        .collect();
    vec![("edits", Doc::List(edits)), ("regrown", Doc::List(regrown))]
}

fn stage_doc(stage: &StageRecord) -> Doc {
    let bounds = match stage.summary.bounds_m {
        Some(b) => Doc::Variant(
            "Some",
            vec![Doc::Tuple(vec![
                Doc::Float(b.min_x),
                Doc::Float(b.min_y),
                Doc::Float(b.max_x),
                Doc::Float(b.max_y),
            ])],
        ),
        None => Doc::Unit("None"),
    };
    Doc::Struct(
        "Stage",
        vec![
            ("id", Doc::Int(stage.stage.into())),
            ("label", Doc::Str(stage.label.clone())),
            ("operator", Doc::Str(stage.operator.to_owned())),
            ("algorithm", Doc::Int(stage.algorithm.into())),
            ("digest", Doc::Str(hex(&stage.digest))),
            ("objects", Doc::Int(stage.summary.objects.into())),
            ("rejected", Doc::Int(stage.summary.rejected.into())),
            ("bounds_m", bounds),
            ("product", product_doc(&stage.product)),
        ],
    )
}

/// A product as a document tree.
pub fn product_doc(product: &Product) -> Doc {
    match product {
        Product::StreetBlock(block) => street_doc(block),
        Product::Placements(scatter) => scatter_doc(scatter),
        Product::PlacedObjects(placed) => placed_doc(placed),
        Product::MissionLayout(mission) => mission_doc(mission),
        Product::StreamingPlan(streaming) => streaming_doc(streaming),
        Product::AssemblyPlan(plan) => assembly_doc(plan),
    }
}

fn assembly_doc(plan: &crate::content::AssemblyPlan) -> Doc {
    let modules = plan.modules.iter().map(|m| {
        let variant_id = plan.variant_ids.get(m.variant as usize);
        Doc::Struct(
            "Module",
            vec![
                ("id", int(m.id.bits())),
                ("frame", int(m.frame())),
                ("slot", int(m.slot())),
                ("socket", Doc::Str(plan.socket_of(m).to_owned())),
                ("position", Doc::Tuple(vec![int(m.x), int(m.y)])),
                ("variant", int(m.variant)),
                (
                    "variant_id",
                    Doc::Str(variant_id.cloned().unwrap_or_default()),
                ),
                ("rotation_turns_65536", int(m.rotation_turns_65536)),
            ],
        )
    });
    Doc::Variant(
        "AssemblyPlan",
        vec![Doc::Struct(
            "Assembly",
            vec![
                ("family", Doc::Str(plan.family.clone())),
                ("variants", strings(&plan.variant_ids)),
                ("sockets", strings(&plan.sockets)),
                ("lattice_unit_m", Doc::Float(plan.lattice_unit_m)),
                ("modules", Doc::List(modules.collect())),
            ],
        )],
    )
}

fn int(value: impl Into<i128>) -> Doc {
    Doc::Int(value.into())
}

fn point(p: PointM) -> Doc {
    Doc::Tuple(vec![Doc::Float(p.x), Doc::Float(p.y)])
}

fn points(list: &[PointM]) -> Doc {
    Doc::List(list.iter().map(|p| point(*p)).collect())
}

fn strings(list: &[String]) -> Doc {
    Doc::List(list.iter().map(|s| Doc::Str(s.clone())).collect())
}

fn placement_fields(p: &Placement, variant_ids: &[String]) -> Vec<(&'static str, Doc)> {
    vec![
        ("id", int(p.id.bits())),
        ("cell", Doc::Tuple(vec![int(p.cell_x()), int(p.cell_y())])),
        ("candidate", int(p.candidate())),
        ("position", Doc::Tuple(vec![int(p.x), int(p.y)])),
        ("variant", int(p.variant)),
        (
            "variant_id",
            Doc::Str(
                variant_ids
                    .get(p.variant as usize)
                    .cloned()
                    .unwrap_or_default(),
            ),
        ),
        ("priority", int(p.priority)),
    ]
}

fn scatter_doc(scatter: &ScatterProduct) -> Doc {
    let layers = scatter.layers.iter().map(|layer| {
        let rect = |r: &crate::ops::scatter::Rect| {
            Doc::Tuple(vec![int(r.min_x), int(r.min_y), int(r.max_x), int(r.max_y)])
        };
        let placements = layer
            .output
            .placements
            .iter()
            .map(|p| Doc::Struct("Placement", placement_fields(p, &scatter.variant_ids)))
            .collect();
        let rejected = layer
            .output
            .rejected
            .iter()
            .map(|r| {
                let reason = match r.reason() {
                    RejectReason::OutsideRegion => Doc::Unit("OutsideRegion"),
                    RejectReason::InKeepOut { keep_out } => {
                        Doc::Variant("InKeepOut", vec![int(keep_out)])
                    }
                    RejectReason::Conflict { with } => {
                        Doc::Variant("Conflict", vec![int(with.bits())])
                    }
                };
                Doc::Struct(
                    "Rejected",
                    vec![
                        ("id", int(r.id.bits())),
                        ("cell", Doc::Tuple(vec![int(r.cell_x()), int(r.cell_y())])),
                        ("candidate", int(r.candidate())),
                        ("position", Doc::Tuple(vec![int(r.x), int(r.y)])),
                        ("reason", reason),
                    ],
                )
            })
            .collect();
        Doc::Struct(
            "Layer",
            vec![
                ("layer", int(layer.layer)),
                ("room", int(layer.room)),
                (
                    "area",
                    match &layer.area {
                        Some(area) => Doc::Variant("Some", vec![Doc::Str(area.clone())]),
                        None => Doc::Unit("None"),
                    },
                ),
                ("region", rect(&layer.region)),
                (
                    "keep_outs",
                    Doc::List(layer.keep_outs.iter().map(rect).collect()),
                ),
                ("placements", Doc::List(placements)),
                ("rejected", Doc::List(rejected)),
            ],
        )
    });
    Doc::Variant(
        "Placements",
        vec![Doc::Struct(
            "Scatter",
            vec![
                ("family", Doc::Str(scatter.family.clone())),
                ("variants", strings(&scatter.variant_ids)),
                ("lattice_unit_m", Doc::Float(scatter.lattice_unit_m)),
                ("cell_size", int(scatter.cell_size)),
                ("candidates_per_cell", int(scatter.candidates_per_cell)),
                ("layers", Doc::List(layers.collect())),
            ],
        )],
    )
}

fn placed_doc(placed: &PlacedProduct) -> Doc {
    let objects = placed.objects.iter().map(|object| {
        let mut fields = placement_fields(&object.placement, &placed.variant_ids);
        fields.push(("rotation_turns_65536", int(object.rotation_turns_65536)));
        fields.push(("scale", int(object.scale)));
        Doc::Struct("Placed", fields)
    });
    Doc::Variant(
        "PlacedObjects",
        vec![Doc::Struct(
            "Placed",
            vec![
                ("family", Doc::Str(placed.family.clone())),
                ("variants", strings(&placed.variant_ids)),
                ("lattice_unit_m", Doc::Float(placed.lattice_unit_m)),
                ("scale_unit", Doc::Float(placed.scale_unit)),
                ("placements_stage", int(placed.placements_stage)),
                ("objects", Doc::List(objects.collect())),
            ],
        )],
    )
}

fn street_doc(block: &StreetBlock) -> Doc {
    let space = &block.space;
    Doc::Variant(
        "StreetBlock",
        vec![Doc::Struct(
            "Block",
            vec![
                ("length_m", Doc::Float(block.length_m)),
                ("road_width_m", Doc::Float(block.road_width_m)),
                ("sidewalk_width_m", Doc::Float(block.sidewalk_width_m)),
                (
                    "routes",
                    Doc::List(space.routes.iter().map(route_doc).collect()),
                ),
                (
                    "crosswalks",
                    Doc::List(space.crosswalks.iter().map(crosswalk_doc).collect()),
                ),
                (
                    "portals",
                    Doc::List(space.portals.iter().map(portal_doc).collect()),
                ),
                (
                    "surfaces",
                    Doc::List(block.surfaces.iter().map(surface_doc).collect()),
                ),
                (
                    "lanes",
                    Doc::List(block.lanes.iter().map(lane_doc).collect()),
                ),
                (
                    "scatter_areas",
                    Doc::List(
                        block
                            .scatter_areas
                            .iter()
                            .map(|a| rect_doc(&a.id, &a.rect))
                            .collect(),
                    ),
                ),
                (
                    "keep_outs",
                    Doc::List(
                        block
                            .keep_outs
                            .iter()
                            .map(|k| rect_doc(&k.id, &k.rect))
                            .collect(),
                    ),
                ),
            ],
        )],
    )
}

fn route_doc(r: &crate::content::Route) -> Doc {
    Doc::Struct(
        "Route",
        vec![
            ("id", Doc::Str(r.id.clone())),
            ("kind", Doc::Str(r.kind.name().to_owned())),
            ("width_m", Doc::Float(r.width_m)),
            ("points", points(&r.points)),
        ],
    )
}

fn crosswalk_doc(c: &crate::content::Crosswalk) -> Doc {
    let sides = c.sides.iter().map(|s| {
        Doc::Struct(
            "Side",
            vec![
                ("sidewalk", Doc::Str(s.sidewalk.clone())),
                ("node", int(s.node)),
                ("kerb", point(s.kerb)),
                ("waiting_point", point(s.waiting_point)),
            ],
        )
    });
    Doc::Struct(
        "Crosswalk",
        vec![
            ("id", Doc::Str(c.id.clone())),
            ("route", Doc::Str(c.route.clone())),
            ("signal", Doc::Str(c.signal_id.clone())),
            ("width_m", Doc::Float(c.width_m)),
            ("lanes_crossed", int(c.lanes_crossed)),
            ("sides", Doc::List(sides.collect())),
        ],
    )
}

fn portal_doc(p: &crate::content::Portal) -> Doc {
    Doc::Struct(
        "Portal",
        vec![
            ("id", Doc::Str(p.id.clone())),
            ("route", Doc::Str(p.route.clone())),
            ("node", int(p.node)),
            ("position", point(p.position)),
        ],
    )
}

fn surface_doc(s: &crate::content::SurfacePolygon) -> Doc {
    Doc::Struct(
        "Surface",
        vec![
            ("id", Doc::Str(s.id.clone())),
            ("kind", Doc::Str(s.kind.name().to_owned())),
            ("outline", points(&s.outline)),
        ],
    )
}

fn lane_doc(l: &crate::content::VehicleLane) -> Doc {
    Doc::Struct(
        "Lane",
        vec![
            ("id", Doc::Str(l.id.clone())),
            ("direction", Doc::Str(l.direction.name().to_owned())),
            ("width_m", Doc::Float(l.width_m)),
            ("centerline", points(&l.centerline)),
            ("crosswalks", strings(&l.crosswalks)),
        ],
    )
}

fn rect_doc(id: &str, r: &crate::content::RectM) -> Doc {
    Doc::Struct(
        "Rect",
        vec![
            ("id", Doc::Str(id.to_owned())),
            (
                "rect_m",
                Doc::Tuple(vec![
                    Doc::Float(r.min_x),
                    Doc::Float(r.min_y),
                    Doc::Float(r.max_x),
                    Doc::Float(r.max_y),
                ]),
            ),
        ],
    )
}

fn mission_doc(mission: &MissionProduct) -> Doc {
    let layout = &mission.layout;
    let cell = |x: u32, y: u32| Doc::Tuple(vec![int(x), int(y)]);
    let chunks = layout.chunks.iter().map(|c| {
        Doc::Struct(
            "Chunk",
            vec![
                ("cell", cell(c.cell.x, c.cell.y)),
                ("role", Doc::Str(c.role.name().to_owned())),
                ("chunk", Doc::Str(c.chunk_id.clone())),
                ("blocks_traversal", Doc::Bool(c.blocks_traversal)),
                ("npc_spawn_tag", Doc::Bool(c.npc_spawn_tag)),
            ],
        )
    });
    let cells = |list: &[crate::content::GridCell]| {
        Doc::List(list.iter().map(|c| cell(c.x, c.y)).collect())
    };
    Doc::Variant(
        "MissionLayout",
        vec![Doc::Struct(
            "Mission",
            vec![
                ("cell_size_m", Doc::Float(mission.cell_size_m)),
                ("seed", int(layout.seed)),
                ("attempt", int(layout.attempt)),
                ("attempt_seed", int(layout.attempt_seed)),
                ("size", cell(layout.width, layout.height)),
                ("spawn", cell(layout.spawn.x, layout.spawn.y)),
                ("extraction", cell(layout.extraction.x, layout.extraction.y)),
                ("objectives", cells(&layout.objectives)),
                ("chunks", Doc::List(chunks.collect())),
                ("bot_path", cells(&layout.bot_path)),
                ("npc_cells", cells(&layout.npc_cells)),
            ],
        )],
    )
}

fn streaming_doc(streaming: &StreamingProduct) -> Doc {
    let plan = &streaming.plan;
    let cells = |list: &[StreamingCell]| {
        Doc::List(
            list.iter()
                .map(|c| Doc::Tuple(vec![int(c.x), int(c.y)]))
                .collect(),
        )
    };
    Doc::Variant(
        "StreamingPlan",
        vec![Doc::Struct(
            "Streaming",
            vec![
                ("cell_size_m", Doc::Float(streaming.cell_size_m)),
                ("observer_m", point(streaming.observer_m)),
                ("observer_cell", cells(&[plan.observer_cell])),
                ("loaded_cells", cells(&plan.loaded_cells)),
                ("hlod_cells", cells(&plan.hlod_cells)),
                ("hlod_pruned_cells", cells(&plan.hlod_pruned_cells)),
                ("hlod_requested_mb", int(plan.hlod_requested_mb)),
                ("hlod_estimated_mb", int(plan.hlod_estimated_mb)),
                ("hlod_budget_mb", int(plan.hlod_budget_mb)),
            ],
        )],
    )
}
