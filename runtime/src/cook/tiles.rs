//! Tiled cooking: a scatter stage over an authored region (its inputs families only, so its cache
//! key is known before anything runs) splits into square tiles of whole cells, each cooked alone
//! — on any machine — into the stage's product restricted to the tile's cells, and merged back in
//! canonical order. The sampling convention's home-partition rule (a range of cells alone equals
//! its part of the whole) makes the merge the kernel's exact output, so the assembled stage, its
//! edits applied as the executor applies them, is byte for byte the stage one machine cooks.
//!
//! Pure: the cook driver (`stagecraft_io::cook::tiles`) keeps the tiles in the on-disk cache.

use crate::content::{Product, ScatterOutput, StageProvenance};
use crate::generate::CancelToken;
use crate::ops::registry::{
    scatter_in_chunks, scatter_kernel_with, InputValue, KernelContext, StageError, StageInputs,
    StageOutput, StageParams,
};
use crate::ops::scatter::{region_cells, CellRange, ScatterParams, ScatterVariant};
use crate::overrides::stage::{kernel_params, run_kernel_with};
use crate::overrides::Overrides;
use crate::recipe::{CompiledPlan, CompiledStage, InputSource};

/// Bytes a candidate takes in a product file, about (a placement record is 32 bytes, a rejection
/// 29 to 33): what a plan estimates a tile's entry at.
pub const BYTES_PER_CANDIDATE: u64 = 32;

/// One tile of a stage: its position among the stage's tiles (column, row) and its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// Tile column, from 0 at the region's first cell column.
    pub column: u32,
    /// Tile row, from 0 at the region's first cell row.
    pub row: u32,
    /// Its cells (half-open).
    pub cells: CellRange,
}

impl Tile {
    /// Candidates the tile evaluates: its cells times `candidates_per_cell`.
    pub fn candidates(&self, candidates_per_cell: u32) -> u64 {
        let width = u64::try_from(self.cells.end_x - self.cells.min_x).unwrap_or(0);
        let height = u64::try_from(self.cells.end_y - self.cells.min_y).unwrap_or(0);
        width * height * u64::from(candidates_per_cell)
    }

    /// The tile's item name: `t<column>_<row>`.
    pub fn name(&self) -> String {
        format!("t{}_{}", self.column, self.row)
    }
}

/// The scatter parameters and family input of a tileable stage.
fn tileable(stage: &CompiledStage) -> Option<(ScatterParams, u32)> {
    let StageParams::Scatter(p) = stage.params() else {
        return None;
    };
    let region = p.region?;
    let mut families = stage.inputs().iter().map(|b| match &b.source {
        InputSource::Family { family, .. } => Some(family),
        InputSource::Stage(_) | InputSource::Outer { .. } => None,
    });
    let family = families.next()??;
    if families.next().is_some() {
        return None;
    }
    let params = ScatterParams {
        cell_size: p.cell_size,
        candidates_per_cell: p.candidates_per_cell,
        region,
        keep_outs: p.keep_outs.clone(),
        variants: family
            .variants
            .iter()
            .map(|v| ScatterVariant {
                weight: v.weight,
                exclusion_radius: v.exclusion_radius,
            })
            .collect(),
        room: p.room,
        layer: p.layer,
    };
    Some((params, p.candidates_per_cell))
}

/// The tiles of `stage` at `tile_cells` cells a side, rows then columns (canonical order), or
/// `None` when the stage does not split: not a scatter over an authored region with a family as
/// its only input, or parameters the kernel refuses (it reports them when it runs).
pub fn stage_tiles(stage: &CompiledStage, tile_cells: u32) -> Option<Vec<Tile>> {
    let (params, _) = tileable(stage)?;
    let cells = region_cells(&params).ok()?;
    let step = i32::try_from(tile_cells.max(1)).unwrap_or(i32::MAX);
    let mut tiles = Vec::new();
    let mut row = 0u32;
    let mut y = cells.min_y;
    while y < cells.end_y {
        let end_y = y.saturating_add(step).min(cells.end_y);
        let (mut column, mut x) = (0u32, cells.min_x);
        while x < cells.end_x {
            let end_x = x.saturating_add(step).min(cells.end_x);
            tiles.push(Tile {
                column,
                row,
                cells: CellRange::new(x, y, end_x, end_y),
            });
            (column, x) = (column + 1, end_x);
        }
        (row, y) = (row + 1, end_y);
    }
    Some(tiles)
}

/// Candidates per cell of a tileable stage (for estimates).
pub fn candidates_per_cell(stage: &CompiledStage) -> u32 {
    tileable(stage).map_or(0, |(_, n)| n)
}

/// The cache key of `tile` of the stage keyed `stage_key`: BLAKE3 of a tag, the stage key and the
/// tile's cell bounds (little-endian).
pub fn tile_key(stage_key: &[u8; 32], tile: &Tile) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"stagecraft tile v1\0");
    hasher.update(stage_key);
    for bound in [
        tile.cells.min_x,
        tile.cells.min_y,
        tile.cells.end_x,
        tile.cells.end_y,
    ] {
        hasher.update(&bound.to_le_bytes());
    }
    *hasher.finalize().as_bytes()
}

/// Runs `body` with the stage's family inputs bound and a context at `seed`.
fn with_inputs<T>(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    seed: u64,
    parallel: bool,
    body: &dyn Fn(&StageInputs<'_>, &KernelContext<'_>) -> Result<T, StageError>,
) -> Result<T, StageError> {
    let mut inputs = StageInputs::default();
    for bound in stage.inputs() {
        if let InputSource::Family { family, .. } = &bound.source {
            inputs.bind(bound.port, InputValue::Family(family));
        }
    }
    let cancel = CancelToken::new();
    let context = KernelContext {
        recipe: plan.recipe_id(),
        stage: stage.id(),
        seed,
        parallel,
        cancel: &cancel,
        progress: &|_| {},
    };
    body(&inputs, &context)
}

/// Cooks one tile of `stage`: the stage's product (the kernel's parameters under `overrides`, so
/// its edits' exclusions included) holding only the candidates of the tile's cells.
pub fn cook_tile(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    seed: u64,
    overrides: &Overrides,
    tile: &Tile,
    parallel: bool,
) -> Result<Product, StageError> {
    let params = kernel_params(stage, overrides, seed);
    let cells = tile.cells;
    let only_tile = move |p: &ScatterParams, _: CellRange, c: &KernelContext<'_>, n: &mut u64| {
        scatter_in_chunks(p, cells, c, n)
    };
    with_inputs(plan, stage, seed, parallel, &|inputs, context| {
        scatter_kernel_with(&params, inputs, context, &only_tile).map(|output| output.product)
    })
}

/// The output a tile's product holds (its one layer's).
pub fn tile_output(product: &Product) -> Result<&ScatterOutput, StageError> {
    match product {
        Product::Placements(scatter) if scatter.layers.len() == 1 => Ok(&scatter.layers[0].output),
        _ => Err(StageError::new(
            crate::ops::registry::FailureKind::InvalidInput,
            None,
            "a tile's product is a scatter product of one layer",
        )),
    }
}

/// A tile's output, taken out of its product (see [`tile_output`]).
fn into_tile_output(product: Product) -> Result<ScatterOutput, StageError> {
    match product {
        Product::Placements(mut scatter) if scatter.layers.len() == 1 => {
            Ok(scatter.layers.swap_remove(0).output)
        }
        // Not a tile's product: the error.
        other => tile_output(&other).cloned(),
    }
}

/// Assembles `stage` from the products of all its tiles (any order): their outputs merged in
/// canonical order on the current rayon pool (moved, not copied), the stage's edits under
/// `overrides` applied as the executor applies them. The result (product and provenance) is the
/// stage as its kernel cooks it whole, on any number of threads.
pub fn assemble(
    plan: &CompiledPlan,
    stage: &CompiledStage,
    seed: u64,
    overrides: &Overrides,
    tiles: Vec<Product>,
) -> Result<StageOutput, StageError> {
    let outputs = tiles
        .into_iter()
        .map(into_tile_output)
        .collect::<Result<Vec<_>, _>>()?;
    let merged = ScatterOutput::merge_par(outputs).map_err(|e| {
        StageError::new(
            crate::ops::registry::FailureKind::InvalidInput,
            None,
            format!("the tiles overlap: {e}"),
        )
    })?;
    let merged = std::sync::Mutex::new(Some(merged));
    let take = |_: &ScatterParams, _: CellRange, _: &KernelContext<'_>, _: &mut u64| {
        let taken = merged.lock().ok().and_then(|mut m| m.take());
        taken.ok_or_else(|| {
            StageError::new(
                crate::ops::registry::FailureKind::InvalidInput,
                None,
                "a tiled stage has one layer",
            )
        })
    };
    let kernel = |p: &StageParams, i: &StageInputs<'_>, c: &KernelContext<'_>| {
        scatter_kernel_with(p, i, c, &take)
    };
    let none = |_: u32| -> Option<&StageProvenance> { None };
    with_inputs(plan, stage, seed, true, &|inputs, context| {
        run_kernel_with(stage, inputs, context, overrides, &none, &kernel)
    })
}
