//! The glTF nodes of a scene's mission layouts and streaming plans: no meshes, only empty nodes
//! an engine reads — one per layout or plan (its data in extras) with one child per chunk or
//! streaming cell, translated to the cell's centre (Y up) and carrying the cell's bounds and
//! role in extras (`docs/export.md`).

use serde_json::{json, Value};

use gltf::json::{Index, Node};

use super::{raw, Document};
use crate::content::{BoundsM, GridCell, PointM};
use crate::export::layouts::{MissionGroup, StreamingGroup};
use crate::export::{y_up, ExportError};

/// A point of the ground plane in the glTF frame.
fn ground_point(p: PointM) -> [f32; 3] {
    y_up([p.x as f32, p.y as f32, 0.0])
}

/// `bounds` as the glTF frame's `(min, max)` corners on the ground (y = 0).
fn gltf_bounds(bounds: &BoundsM) -> (Value, Value) {
    let a = ground_point(PointM::new(bounds.min_x, bounds.max_y));
    let b = ground_point(PointM::new(bounds.max_x, bounds.min_y));
    (json!(a), json!(b))
}

fn cell_pair(cell: GridCell) -> Value {
    json!([cell.x, cell.y])
}

/// An empty node at `center` with `extras`.
fn cell_node(
    doc: &mut Document,
    name: String,
    center: PointM,
    extras: &Value,
) -> Result<Index<Node>, ExportError> {
    Ok(doc.root.push(Node {
        name: Some(name),
        translation: Some(ground_point(center)),
        extras: Some(raw(extras)?),
        ..Node::default()
    }))
}

/// The node of one mission layout, with a child per chunk.
pub(super) fn mission_node(
    doc: &mut Document,
    group: &MissionGroup,
) -> Result<Index<Node>, ExportError> {
    let layout = &group.product.layout;
    let mut children = Vec::with_capacity(layout.chunks.len());
    for chunk in &layout.chunks {
        let (min, max) = gltf_bounds(&group.cell_bounds_m(chunk.cell));
        let extras = json!({
            "kind": "mission_chunk",
            "cell": cell_pair(chunk.cell),
            "role": chunk.role.name(),
            "chunk_id": chunk.chunk_id,
            "blocks_traversal": chunk.blocks_traversal,
            "npc_spawn_tag": chunk.npc_spawn_tag,
            "bounds_min_m": min,
            "bounds_max_m": max,
        });
        let name = format!(
            "{}.{}.chunk.{}_{}",
            group.recipe, group.stage, chunk.cell.x, chunk.cell.y
        );
        let center = group.cell_center_m(chunk.cell);
        children.push(cell_node(doc, name, center, &extras)?);
    }
    let cells = |cells: &[GridCell]| Value::Array(cells.iter().map(|c| cell_pair(*c)).collect());
    let extras = json!({
        "kind": "mission_layout",
        "recipe": group.recipe,
        "stage": group.stage,
        "cell_size_m": group.product.cell_size_m,
        "grid": "cell [column, row]: column grows east (+X), row south (+Z), from the origin",
        "width": layout.width,
        "height": layout.height,
        "seed": layout.seed,
        "attempt": layout.attempt,
        "attempt_seed": layout.attempt_seed,
        "spawn": cell_pair(layout.spawn),
        "extraction": cell_pair(layout.extraction),
        "objectives": cells(&layout.objectives),
        "bot_path": cells(&layout.bot_path),
        "npc_cells": cells(&layout.npc_cells),
        "daily": layout.daily.as_ref().map(|d| json!({"cell_id": d.cell_id, "date_id": d.date_id})),
        "chunks": layout.chunks.len(),
    });
    Ok(doc.root.push(Node {
        name: Some(format!("{}.{}.mission", group.recipe, group.stage)),
        children: (!children.is_empty()).then_some(children),
        extras: Some(raw(&extras)?),
        ..Node::default()
    }))
}

/// The node of one streaming plan, with a child per planned cell.
pub(super) fn streaming_node(
    doc: &mut Document,
    group: &StreamingGroup,
) -> Result<Index<Node>, ExportError> {
    let mut children = Vec::new();
    let mut counts = [0usize; 3];
    for (role, cell) in group.cells() {
        counts[role as usize] += 1;
        let (min, max) = gltf_bounds(&group.cell_bounds_m(cell));
        let extras = json!({
            "kind": "streaming_cell",
            "role": role.name(),
            "cell": [cell.x, cell.y],
            "bounds_min_m": min,
            "bounds_max_m": max,
        });
        let name = format!(
            "{}.{}.{}.{}_{}",
            group.recipe,
            group.stage,
            role.name(),
            cell.x,
            cell.y
        );
        children.push(cell_node(doc, name, group.cell_center_m(cell), &extras)?);
    }
    let plan = &group.product.plan;
    let extras = json!({
        "kind": "streaming_plan",
        "recipe": group.recipe,
        "stage": group.stage,
        "cell_size_m": group.product.cell_size_m,
        "grid": "cell [x, y] = floor(position / cell_size_m) in Stagecraft's frame (x east, y north = -Z)",
        "observer_m": ground_point(group.product.observer_m),
        "observer_cell": [plan.observer_cell.x, plan.observer_cell.y],
        "hlod_requested_mb": plan.hlod_requested_mb,
        "hlod_estimated_mb": plan.hlod_estimated_mb,
        "hlod_budget_mb": plan.hlod_budget_mb,
        "loaded": counts[0],
        "hlod": counts[1],
        "hlod_pruned": counts[2],
    });
    Ok(doc.root.push(Node {
        name: Some(format!("{}.{}.streaming", group.recipe, group.stage)),
        children: (!children.is_empty()).then_some(children),
        extras: Some(raw(&extras)?),
        ..Node::default()
    }))
}
