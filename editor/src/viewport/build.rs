//! Layers built from generated content: placements as instanced preview shapes, rejected
//! candidates, and the content overlays (street surfaces, lanes, routes, crosswalks with waiting
//! points, scatter areas, keep-outs, mission cells by role, streaming cells).

use std::collections::BTreeSet;

use three_d::{vec3, Mat4, Srgba, Vec3};

use super::layer::{ColourBy, LayerData};
use super::meshes::Shape;
use super::overlays::{marker, standing_transform};
use super::palette;
use super::picking::{Aabb, PickId};
use crate::session::PreviewContent;
use stagecraft_runtime::content::{
    MissionProduct, PointM, Product, StreamingCell, StreamingProduct, StreetBlock, SurfaceKind,
};
use stagecraft_runtime::identity::ScatterId;

/// Height of the raised sidewalk surface, meters.
pub const SIDEWALK_TOP_M: f32 = 0.15;

/// Size used for objects whose family or variant the project does not know, meters.
const UNKNOWN_RADIUS_M: f32 = 0.5;

/// One placed object, flattened for drawing.
struct Drawn<'a> {
    x_m: f32,
    y_m: f32,
    rotation_rad: f32,
    scale: f32,
    family: &'a str,
    variant: u32,
}

impl<'a> Drawn<'a> {
    /// An object at lattice point (`x`, `y`) of `unit_m` meters, turned by `turns_65536`
    /// 65536ths of a turn, scaled by `scale`, of `variant` in `family`.
    fn at(
        (x, y): (i64, i64),
        unit_m: f64,
        turns_65536: u16,
        scale: f32,
        (family, variant): (&'a str, u32),
    ) -> Drawn<'a> {
        let turns = f32::from(turns_65536) / 65_536.0;
        Drawn {
            x_m: (x as f64 * unit_m) as f32,
            y_m: (y as f64 * unit_m) as f32,
            rotation_rad: turns * std::f32::consts::TAU,
            scale,
            family,
            variant,
        }
    }
}

/// Generated objects as instanced preview shapes, coloured by `colour_by`.
///
/// Select-and-place products and assembly modules are drawn; a scatter product is drawn only
/// when no select-and-place stage consumes it, so an object never appears twice.
pub fn placements(content: &PreviewContent, colour_by: ColourBy) -> LayerData {
    let consumed: BTreeSet<u32> = content
        .stages()
        .iter()
        .filter_map(|s| match s.product.as_ref() {
            Product::PlacedObjects(placed) => Some(placed.placements_stage),
            _ => None,
        })
        .collect();
    let total: usize = content
        .stages()
        .iter()
        .map(|s| match s.product.as_ref() {
            Product::PlacedObjects(placed) => placed.objects.len(),
            Product::AssemblyPlan(plan) => plan.modules.len(),
            Product::Placements(scatter) if !consumed.contains(&s.stage) => {
                scatter.placement_count()
            }
            _ => 0,
        })
        .sum();
    let mut data = LayerData::default();
    data.picks.reserve(total);
    let recipe_colour = palette::category_of_name(content.recipe());
    for stage in content.stages() {
        let emitter = ObjectEmitter {
            content,
            colour_by,
            stage: stage.stage,
            stage_colour: palette::category(content.stage_ordinal(stage.stage)),
            recipe_colour,
        };
        match stage.product.as_ref() {
            Product::PlacedObjects(placed) => {
                for object in &placed.objects {
                    let p = &object.placement;
                    let scale = (f64::from(object.scale) * placed.scale_unit) as f32;
                    let what = (placed.family.as_str(), p.variant);
                    let unit = placed.lattice_unit_m;
                    let drawn =
                        Drawn::at((p.x, p.y), unit, object.rotation_turns_65536, scale, what);
                    emitter.emit(&mut data, p.id, drawn);
                }
            }
            Product::AssemblyPlan(plan) => {
                for m in &plan.modules {
                    let what = (plan.family.as_str(), m.variant);
                    let unit = plan.lattice_unit_m;
                    let drawn = Drawn::at((m.x, m.y), unit, m.rotation_turns_65536, 1.0, what);
                    emitter.emit(&mut data, m.id, drawn);
                }
            }
            Product::Placements(scatter) if !consumed.contains(&stage.stage) => {
                for p in scatter.placements() {
                    let what = (scatter.family.as_str(), p.variant);
                    let drawn = Drawn::at((p.x, p.y), scatter.lattice_unit_m, 0, 1.0, what);
                    emitter.emit(&mut data, p.id, drawn);
                }
            }
            _ => {}
        }
    }
    data
}

/// Draws the objects of one stage: what colouring each object needs.
struct ObjectEmitter<'a> {
    content: &'a PreviewContent,
    colour_by: ColourBy,
    stage: u32,
    stage_colour: Srgba,
    recipe_colour: Srgba,
}

impl ObjectEmitter<'_> {
    /// One object: its variant's shape and size (a grey box when the project does not know
    /// it), coloured by `colour_by`, with its pick box.
    fn emit(&self, data: &mut LayerData, id: ScatterId, drawn: Drawn<'_>) {
        let variant = self.content.variant(drawn.family, drawn.variant);
        let (shape, colour, radius, height) = match variant {
            Some(v) => (
                Shape::of_preview(v.shape),
                palette::of_rgb(v.colour),
                v.collision_radius_m as f32,
                v.height_m as f32,
            ),
            None => (
                Shape::Box,
                palette::rgb(160, 160, 160),
                UNKNOWN_RADIUS_M,
                1.0,
            ),
        };
        let colour = match self.colour_by {
            ColourBy::Asset => colour,
            ColourBy::Stage => self.stage_colour,
            ColourBy::Recipe => self.recipe_colour,
            ColourBy::Variant => palette::category(drawn.variant as usize),
        };
        let radius = radius.max(0.05) * drawn.scale;
        let height = height.max(0.05) * drawn.scale;
        let transform = standing_transform(
            drawn.x_m,
            drawn.y_m,
            0.0,
            drawn.rotation_rad,
            [2.0 * radius, 2.0 * radius, height],
        );
        data.shape(shape).push(transform, colour);
        data.picks.push((
            PickId::Object {
                stage: self.stage,
                id,
            },
            Aabb::standing(drawn.x_m, drawn.y_m, 0.0, radius, height),
        ));
    }
}

/// Rejected scatter candidates as small markers coloured by their reason.
pub fn rejected(content: &PreviewContent) -> LayerData {
    let mut data = LayerData::default();
    for stage in content.stages() {
        let Product::Placements(scatter) = stage.product.as_ref() else {
            continue;
        };
        let unit = scatter.lattice_unit_m;
        for layer in &scatter.layers {
            for candidate in &layer.output.rejected {
                let (x, y) = (
                    (candidate.x as f64 * unit) as f32,
                    (candidate.y as f64 * unit) as f32,
                );
                let colour = palette::reject_reason(&candidate.reason());
                // An upside-down cone: a "not here" pin that reads differently from any asset.
                let transform = Mat4::from_translation(vec3(x, y, 0.9))
                    * Mat4::from_angle_x(three_d::radians(std::f32::consts::PI))
                    * Mat4::from_nonuniform_scale(0.35, 0.35, 0.9);
                data.shape(Shape::Cone).push(transform, colour);
                data.picks.push((
                    PickId::Rejected {
                        stage: stage.stage,
                        id: candidate.id,
                    },
                    Aabb::standing(x, y, 0.0, 0.18, 0.9),
                ));
            }
        }
    }
    data
}

/// Street surfaces, lanes, routes, crosswalks with waiting points, scatter areas, keep-outs,
/// mission cells and streaming cells.
pub fn content_overlays(content: &PreviewContent, routes: bool, layouts: bool) -> LayerData {
    let mut data = LayerData::default();
    for stage in content.stages() {
        match stage.product.as_ref() {
            Product::StreetBlock(block) => street_block(&mut data, block, routes),
            Product::MissionLayout(mission) if layouts => mission_cells(&mut data, mission),
            Product::StreamingPlan(streaming) if layouts => streaming_cells(&mut data, streaming),
            _ => {}
        }
    }
    data
}

fn at(point: PointM, z: f32) -> Vec3 {
    vec3(point.x as f32, point.y as f32, z)
}

fn street_block(data: &mut LayerData, block: &StreetBlock, routes: bool) {
    for surface in &block.surfaces {
        let (z, colour) = match surface.kind {
            SurfaceKind::Road => (0.0, palette::ROAD),
            SurfaceKind::Sidewalk => (SIDEWALK_TOP_M, palette::SIDEWALK),
            SurfaceKind::Crosswalk => (0.01, palette::CROSSWALK),
        };
        let outline: Vec<Vec3> = surface.outline.iter().map(|p| at(*p, z)).collect();
        data.fill_convex(&outline, colour);
        if surface.kind == SurfaceKind::Crosswalk {
            zebra(data, &surface.outline);
        }
    }
    lane_markings(data, block);
    if !routes {
        return;
    }
    for area in &block.scatter_areas {
        let corners = area.rect.corners().map(|p| at(p, SIDEWALK_TOP_M + 0.01));
        data.polygon(&corners, palette::SCATTER_AREA);
    }
    for keep_out in &block.keep_outs {
        let corners = keep_out
            .rect
            .corners()
            .map(|p| at(p, SIDEWALK_TOP_M + 0.015));
        data.polygon(&corners, palette::KEEP_OUT);
    }
    for route in &block.space.routes {
        let (z, colour) = match route.kind {
            stagecraft_runtime::content::RouteKind::Sidewalk => {
                (SIDEWALK_TOP_M + 0.03, palette::ROUTE)
            }
            stagecraft_runtime::content::RouteKind::Crosswalk => (0.06, palette::CROSSING_ROUTE),
        };
        for pair in route.points.windows(2) {
            data.line(at(pair[0], z), at(pair[1], z), colour);
        }
    }
    for crosswalk in &block.space.crosswalks {
        for side in &crosswalk.sides {
            let waiting = at(side.waiting_point, SIDEWALK_TOP_M);
            marker(
                data,
                Shape::Cylinder,
                waiting,
                0.28,
                0.08,
                palette::WAITING_POINT,
            );
            let kerb = at(side.kerb, SIDEWALK_TOP_M);
            data.line(kerb, waiting, palette::WAITING_POINT);
        }
    }
    for portal in &block.space.portals {
        marker(
            data,
            Shape::Cone,
            at(portal.position, SIDEWALK_TOP_M),
            0.35,
            0.6,
            palette::ROUTE,
        );
    }
}

/// Zebra stripes across a crosswalk surface: bars along the traffic (x) direction.
fn zebra(data: &mut LayerData, outline: &[PointM]) {
    let Some(bounds) = stagecraft_runtime::content::BoundsM::of_points(outline.iter().copied())
    else {
        return;
    };
    let (stripe_m, gap_m) = (0.5, 0.5);
    let mut y = bounds.min_y + gap_m * 0.5;
    let inset = (bounds.width_m() * 0.08).min(0.3);
    while y + stripe_m <= bounds.max_y {
        let (x0, x1) = (bounds.min_x + inset, bounds.max_x - inset);
        let corners = [
            vec3(x0 as f32, y as f32, 0.02),
            vec3(x1 as f32, y as f32, 0.02),
            vec3(x1 as f32, (y + stripe_m) as f32, 0.02),
            vec3(x0 as f32, (y + stripe_m) as f32, 0.02),
        ];
        data.fill_convex(&corners, palette::STRIPE);
        y += stripe_m + gap_m;
    }
}

/// Dashed dividers between adjacent lanes (midway between their centrelines).
fn lane_markings(data: &mut LayerData, block: &StreetBlock) {
    for pair in block.lanes.windows(2) {
        let (a, b) = (&pair[0].centerline, &pair[1].centerline);
        let (Some(a0), Some(a1), Some(b0), Some(b1)) = (a.first(), a.last(), b.first(), b.last())
        else {
            continue;
        };
        // Centrelines may run in opposite directions: pair each end with the nearer end.
        let (b0, b1) = if a0.distance(*b0) <= a0.distance(*b1) {
            (b0, b1)
        } else {
            (b1, b0)
        };
        let start = at(PointM::new((a0.x + b0.x) / 2.0, (a0.y + b0.y) / 2.0), 0.015);
        let end = at(PointM::new((a1.x + b1.x) / 2.0, (a1.y + b1.y) / 2.0), 0.015);
        let length = (end - start).x.hypot((end - start).y);
        let dashes = (length / 3.0).floor() as usize;
        for i in 0..dashes {
            let t0 = i as f32 / dashes as f32;
            let t1 = t0 + 0.5 / dashes as f32;
            data.line(
                start + (end - start) * t0,
                start + (end - start) * t1,
                palette::LANE_MARK,
            );
        }
    }
}

fn mission_cells(data: &mut LayerData, mission: &MissionProduct) {
    let s = mission.cell_size_m as f32;
    let inset = s * 0.06;
    for chunk in &mission.layout.chunks {
        let c = mission.cell_center_m(chunk.cell.x, chunk.cell.y);
        let (x, y) = (c.x as f32, c.y as f32);
        let h = s * 0.5 - inset;
        let corners = [
            vec3(x - h, y - h, 0.005),
            vec3(x + h, y - h, 0.005),
            vec3(x + h, y + h, 0.005),
            vec3(x - h, y + h, 0.005),
        ];
        data.fill_convex(&corners, palette::chunk_role(chunk.role));
        if chunk.npc_spawn_tag {
            marker(
                data,
                Shape::Cylinder,
                vec3(x, y, 0.0),
                s * 0.08,
                0.3,
                palette::MISSION_AGENT,
            );
        }
    }
    for pair in mission.layout.bot_path.windows(2) {
        let a = mission.cell_center_m(pair[0].x, pair[0].y);
        let b = mission.cell_center_m(pair[1].x, pair[1].y);
        data.line(at(a, 0.2), at(b, 0.2), palette::BOT_PATH);
    }
}

fn streaming_cells(data: &mut LayerData, streaming: &StreamingProduct) {
    let s = streaming.cell_size_m as f32;
    let plan = &streaming.plan;
    let square = |cell: &StreamingCell, z: f32, inset: f32| {
        let (x, y) = (cell.x as f32 * s, cell.y as f32 * s);
        [
            vec3(x + inset, y + inset, z),
            vec3(x + s - inset, y + inset, z),
            vec3(x + s - inset, y + s - inset, z),
            vec3(x + inset, y + s - inset, z),
        ]
    };
    let dim = |colour: Srgba| mix(colour, palette::BACKGROUND, 0.55);
    for cell in &plan.loaded_cells {
        data.fill_convex(&square(cell, -0.02, s * 0.04), dim(palette::STREAM_LOADED));
    }
    for cell in &plan.hlod_cells {
        data.fill_convex(&square(cell, -0.02, s * 0.04), dim(palette::STREAM_HLOD));
    }
    for cell in &plan.hlod_pruned_cells {
        data.polygon(&square(cell, -0.01, s * 0.08), palette::STREAM_PRUNED);
    }
    marker(
        data,
        Shape::Cone,
        at(streaming.observer_m, 0.0),
        s * 0.15,
        s * 0.4,
        palette::OBSERVER,
    );
}

/// `a` blended towards `b` by `t` (0: `a`, 1: `b`).
pub fn mix(a: Srgba, b: Srgba, t: f32) -> Srgba {
    let channel = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    Srgba::new(channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), 255)
}
