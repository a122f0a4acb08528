//! The HLOD donut the world plans around the views every step (`World::hlod_step`), drawn in the
//! Tiers layer beside the loaded ring: every kept HLOD cell outlined in the HLOD colour, and, when
//! the donut asks for more than its budget, every pruned cell outlined and crossed in the warning
//! colour. The legend says how many cells and megabytes, and whether the budget was exceeded.

use three_d::{vec3, Srgba};

use super::layer::LayerData;
use super::palette;
use stagecraft_runtime::content::StreamingCell;
use stagecraft_runtime::sim::World;

/// Height of the HLOD outlines, meters (just under the loaded ring's).
const HLOD_Z_M: f32 = 0.06;
/// How far inside its cell an HLOD outline is drawn, as a share of the cell (so neighbouring
/// outlines stay apart and the loaded ring's outline stays visible).
const INSET: f32 = 0.06;

/// Adds this step's HLOD donut of `world` to `data`.
pub fn hlod_marks(world: &World, data: &mut LayerData) {
    let Some(streaming) = &world.config().space.streaming else {
        return;
    };
    let size = streaming.cell_size_m as f32;
    let hlod = world.hlod_step();
    for cell in &hlod.cells {
        outline(data, *cell, size, palette::STREAM_HLOD, false);
    }
    for cell in &hlod.pruned {
        outline(data, *cell, size, palette::HLOD_OVER_BUDGET, true);
    }
}

/// One cell's inset square, crossed when `crossed`.
fn outline(data: &mut LayerData, cell: StreamingCell, size: f32, colour: Srgba, crossed: bool) {
    let inset = size * INSET;
    let (x0, y0) = (cell.x as f32 * size + inset, cell.y as f32 * size + inset);
    let (x1, y1) = (x0 + size - 2.0 * inset, y0 + size - 2.0 * inset);
    let z = HLOD_Z_M;
    let corners = [
        vec3(x0, y0, z),
        vec3(x1, y0, z),
        vec3(x1, y1, z),
        vec3(x0, y1, z),
    ];
    data.polygon(&corners, colour);
    if crossed {
        data.line(corners[0], corners[2], colour);
        data.line(corners[1], corners[3], colour);
    }
}

/// Legend entries for the HLOD donut: its cells and megabytes, and the over-budget warning.
pub fn hlod_legend(world: &World) -> Vec<(String, Srgba)> {
    if world.config().space.streaming.is_none() {
        return Vec::new();
    }
    let hlod = world.hlod_step();
    let mut entries = vec![(
        format!(
            "HLOD donut · {} cells · {} / {} MB",
            hlod.cells.len(),
            hlod.estimated_mb,
            hlod.budget_mb
        ),
        palette::STREAM_HLOD,
    )];
    if hlod.over_budget() {
        entries.push((
            format!(
                "HLOD over budget · {} MB asked · {} cells pruned (×)",
                hlod.requested_mb,
                hlod.pruned.len()
            ),
            palette::HLOD_OVER_BUDGET,
        ));
    }
    entries
}
