//! Tiles in the on-disk cache: each tile of a tiled scatter stage (`runtime::cook::tiles`) is a
//! cache entry of its own, keyed by the stage key and the tile's cells, written through the
//! cache's staging and verification like every entry (so a retried or concurrent worker never
//! leaves half an entry, and a damaged one is discarded and cooked again); assembling a stage
//! reads every tile (cooking the missing ones), merges them and applies the stage's edits.

use std::sync::Arc;

use rayon::prelude::*;

use stagecraft_runtime::content::encode::hex;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::codec::encode_product_file;
use stagecraft_runtime::cook::tiles::{
    assemble, candidates_per_cell, cook_tile, stage_tiles, tile_key, Tile, BYTES_PER_CANDIDATE,
};
use stagecraft_runtime::cook::{file_digest_hex, CookedStage, KeyRecord, WorkItem};
use stagecraft_runtime::generate::{CachedStage, KeyParts};
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::recipe::{CompiledPlan, CompiledStage};

use super::store::DiskCache;

/// A tile entry's bytes besides its records, about: the product file's header and the
/// completion manifest.
const ENTRY_OVERHEAD_BYTES: u64 = 2048;

/// How one tile was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileCook {
    /// Recipe id.
    pub recipe: String,
    /// Stage id.
    pub stage: u32,
    /// The tile's name (`t<column>_<row>`).
    pub tile: String,
    /// The tile's cache key, hex.
    pub key: String,
    /// From a verified cache entry (else cooked here and stored).
    pub hit: bool,
    /// Why it was cooked: the cache's miss reason (none for a hit).
    pub reason: Option<String>,
    /// Bytes of its product file.
    pub bytes: u64,
}

/// One tileable stage of a recipe, with what its tiles are keyed from.
pub struct TiledStage<'a> {
    /// The recipe's plan.
    pub plan: &'a CompiledPlan,
    /// The stage.
    pub stage: &'a CompiledStage,
    /// The root seed.
    pub seed: u64,
    /// The recipe's overrides.
    pub overrides: &'a Overrides,
    /// The stage's key parts.
    pub parts: &'a KeyParts,
}

impl TiledStage<'_> {
    /// The cache record of `tile`: the stage's record under the tile's key.
    pub fn record(&self, tile: &Tile) -> KeyRecord {
        let mut record = KeyRecord::of(self.parts);
        record.key = hex(&tile_key(&self.parts.key().0, tile));
        record
    }

    /// The tile's product from the cache, or cooked here and stored.
    pub fn tile(&self, cache: &DiskCache, tile: &Tile) -> anyhow::Result<(Product, TileCook)> {
        let record = self.record(tile);
        let mut cook = TileCook {
            recipe: self.plan.recipe_id().to_owned(),
            stage: self.stage.id(),
            tile: tile.name(),
            key: record.key.clone(),
            hit: true,
            reason: None,
            bytes: 0,
        };
        match cache.lookup(&record) {
            Ok(hit) => {
                cook.bytes = hit.entry.product.bytes;
                Ok((hit.product, cook))
            }
            Err(miss) => {
                let product =
                    cook_tile(self.plan, self.stage, self.seed, self.overrides, tile, true)
                        .map_err(|e| {
                            anyhow::anyhow!("recipe `{}`: tile {}: {e}", cook.recipe, cook.tile)
                        })?;
                let (entry, bytes) = self.entry(&product, tile, &record.key);
                cache.store(&record, &entry, &bytes)?;
                cook.hit = false;
                cook.reason = Some(miss.to_string());
                cook.bytes = bytes.len() as u64;
                Ok((product, cook))
            }
        }
    }

    /// The completion manifest's product entry and the file bytes of a tile's product.
    fn entry(&self, product: &Product, tile: &Tile, key: &str) -> (CookedStage, Vec<u8>) {
        let bytes = encode_product_file(self.stage.id(), product);
        let entry = CookedStage {
            id: self.stage.id(),
            label: format!("{} (tile {})", self.stage.label(), tile.name()),
            operator: self.stage.operator().id.to_owned(),
            algorithm: self.stage.operator().algorithm,
            kind: product.kind().name().to_owned(),
            key: key.to_owned(),
            digest: hex(&product.digest()),
            file: format!(
                "products/{}.{}.{}.bin",
                self.plan.recipe_id(),
                self.stage.id(),
                tile.name()
            ),
            bytes: bytes.len() as u64,
            file_digest: file_digest_hex(&bytes),
            elements: product.summary().objects,
            rejected: product.summary().rejected,
        };
        (entry, bytes)
    }

    /// The work items of the stage's tiles at `tile_cells` cells a side, in place of `item`
    /// (the stage's own); `None` when the stage does not split.
    pub fn items(&self, item: &WorkItem, tile_cells: u32) -> Option<Vec<WorkItem>> {
        let per_cell = candidates_per_cell(self.stage);
        let tiles = stage_tiles(self.stage, tile_cells)?;
        // The stage key once, not per tile (a plan of a thousand tiles is listed on every task).
        let stage_key = self.parts.key().0;
        let items = tiles
            .iter()
            .map(|tile| WorkItem {
                id: format!("{}/{}", item.id, tile.name()),
                tile: Some(*tile),
                key: Some(hex(&tile_key(&stage_key, tile))),
                estimated_bytes: Some(
                    tile.candidates(per_cell)
                        .saturating_mul(BYTES_PER_CANDIDATE)
                        .saturating_add(ENTRY_OVERHEAD_BYTES),
                ),
                ..item.clone()
            })
            .collect();
        Some(items)
    }

    /// The whole stage from its tiles at `tile_cells` cells a side (each read from the cache or
    /// cooked and stored, on the current rayon pool), with the tiles' reports; `None` when the stage does not split.
    pub fn assemble(
        &self,
        cache: &DiskCache,
        tile_cells: u32,
    ) -> anyhow::Result<Option<(Arc<CachedStage>, Vec<TileCook>)>> {
        let Some(tiles) = stage_tiles(self.stage, tile_cells) else {
            return Ok(None);
        };
        // Read (verified) or cooked on the current rayon pool; the first failing tile in
        // canonical order is the one reported, whatever the threads' timing.
        let served: Vec<anyhow::Result<(Product, TileCook)>> = tiles
            .par_iter()
            .map(|tile| self.tile(cache, tile))
            .collect();
        let mut products = Vec::with_capacity(tiles.len());
        let mut cooks = Vec::with_capacity(tiles.len());
        for tile in served {
            let (product, cook) = tile?;
            products.push(product);
            cooks.push(cook);
        }
        let output =
            assemble(self.plan, self.stage, self.seed, self.overrides, products).map_err(|e| {
                anyhow::anyhow!(
                    "recipe `{}`: stage {} from its tiles: {e}",
                    self.plan.recipe_id(),
                    self.stage.id()
                )
            })?;
        let cached = CachedStage::new_par(output.product, output.provenance);
        Ok(Some((Arc::new(cached), cooks)))
    }
}
