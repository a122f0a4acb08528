//! Work items for an external scheduler: one per (recipe, stage) in plan order — or, for a tiled
//! scatter stage, one per tile — and the shard `K/N` each belongs to (round robin over that
//! order, so every shard gets its share).

use super::CookError;

/// One unit of cooking work: a stage, or one tile of a tiled scatter stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkItem {
    /// Position in the whole plan (recipes in manifest order, stages in plan order, a tiled
    /// stage's tiles in canonical order in its place), from 0.
    pub index: usize,
    /// The item's name, `<recipe>/<stage>` or `<recipe>/<stage>/t<column>_<row>` for a tile
    /// (`cook --items` takes these).
    pub id: String,
    /// The tile, for a tile of a tiled stage.
    pub tile: Option<super::tiles::Tile>,
    /// Bytes its cache entry will take, about: the entry's for one already cooked, the
    /// candidates it evaluates times [`super::tiles::BYTES_PER_CANDIDATE`] for a tile.
    pub estimated_bytes: Option<u64>,
    /// Recipe id.
    pub recipe: String,
    /// Stage id.
    pub stage: u32,
    /// Scope (the recipe instance).
    pub scope: String,
    /// Operator id.
    pub operator: String,
    /// The cache key, hex, when every input's digest is known (families, or upstream products
    /// already in the cache); `None` until the stages in `after` are cooked.
    pub key: Option<String>,
    /// Upstream stages of the same recipe this item reads.
    pub after: Vec<u32>,
}

/// `K/N`: shard K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard, 1..=count.
    pub index: usize,
    /// Shards in all.
    pub count: usize,
}

impl ShardSpec {
    /// Parses `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<ShardSpec, CookError> {
        let bad = || CookError::invalid("shard", format!("`{text}`: expected K/N with 1 ≤ K ≤ N"));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether work item `index` belongs to this shard.
    pub fn owns(&self, index: usize) -> bool {
        shard_of(index, self.count) == self.index
    }
}

/// The shard (1-based) of work item `index` among `count` shards.
pub fn shard_of(index: usize, count: usize) -> usize {
    index % count.max(1) + 1
}
