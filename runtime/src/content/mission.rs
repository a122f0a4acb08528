//! Mission layout products: a solved grid of role-tagged chunks with its bot path.

use std::cmp::Ordering;
use std::fmt::Write as _;

/// A cell of a mission grid; `x` grows east, `y` grows south. Ordered row-major (`y`, then `x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GridCell {
    /// Column, 0 on the west edge.
    pub x: u32,
    /// Row, 0 on the north edge.
    pub y: u32,
}

impl GridCell {
    /// A cell from its column and row.
    pub const fn new(x: u32, y: u32) -> GridCell {
        GridCell { x, y }
    }

    /// Manhattan distance in cells.
    pub fn manhattan(self, other: GridCell) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y)
    }
}

impl Ord for GridCell {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

impl PartialOrd for GridCell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The gameplay role of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChunkRole {
    /// Where the player starts (west edge).
    Spawn,
    /// A required objective.
    Objective,
    /// Where the player leaves (east edge).
    Extraction,
    /// Connecting space.
    Connector,
    /// An encounter space.
    Encounter,
    /// A landmark.
    Landmark,
    /// Impassable space.
    Blocker,
}

impl ChunkRole {
    /// Every role, in declaration order.
    pub const ALL: [ChunkRole; 7] = [
        ChunkRole::Spawn,
        ChunkRole::Objective,
        ChunkRole::Extraction,
        ChunkRole::Connector,
        ChunkRole::Encounter,
        ChunkRole::Landmark,
        ChunkRole::Blocker,
    ];

    /// Roles the solver uses to fill cells that are not spawn, extraction, objective or blocker.
    pub const FILL: [ChunkRole; 3] = [
        ChunkRole::Connector,
        ChunkRole::Encounter,
        ChunkRole::Landmark,
    ];

    /// The role's stable name, as used in signatures.
    pub const fn name(self) -> &'static str {
        match self {
            ChunkRole::Spawn => "spawn",
            ChunkRole::Objective => "objective",
            ChunkRole::Extraction => "extraction",
            ChunkRole::Connector => "connector",
            ChunkRole::Encounter => "encounter",
            ChunkRole::Landmark => "landmark",
            ChunkRole::Blocker => "blocker",
        }
    }
}

/// One cell of a solved layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MissionChunk {
    /// The cell.
    pub cell: GridCell,
    /// Its role.
    pub role: ChunkRole,
    /// The chunk definition chosen for it from the library.
    pub chunk_id: String,
    /// Whether the chunk is a wall for traversal (exactly the blockers).
    pub blocks_traversal: bool,
    /// Whether the chunk definition carries the explicit NPC-spawn tag.
    pub npc_spawn_tag: bool,
}

/// The daily-ladder key a layout was generated for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DailyKey {
    /// The procedural cell (graph) id.
    pub cell_id: String,
    /// The UTC calendar day, `YYYY-MM-DD`.
    pub date_id: String,
}

/// A solved, playable mission layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissionLayout {
    /// The requested seed.
    pub seed: u64,
    /// The attempt that succeeded (0-based).
    pub attempt: u32,
    /// The seed of that attempt: `seed + attempt × 7919` (wrapping).
    pub attempt_seed: u64,
    /// Grid width in cells.
    pub width: u32,
    /// Grid height in cells.
    pub height: u32,
    /// The spawn cell (west edge).
    pub spawn: GridCell,
    /// The extraction cell (east edge).
    pub extraction: GridCell,
    /// The objectives, in visiting order.
    pub objectives: Vec<GridCell>,
    /// Every cell's chunk, row-major.
    pub chunks: Vec<MissionChunk>,
    /// The bot path spawn → objectives → extraction, including both ends.
    pub bot_path: Vec<GridCell>,
    /// Cells admitting NPCs, row-major.
    pub npc_cells: Vec<GridCell>,
    /// The daily key, for layouts generated from a dispatched daily seed.
    pub daily: Option<DailyKey>,
}

impl MissionLayout {
    /// The chunk at `cell`, if it is inside the grid.
    pub fn chunk_at(&self, cell: GridCell) -> Option<&MissionChunk> {
        self.chunks
            .binary_search_by(|chunk| chunk.cell.cmp(&cell))
            .ok()
            .and_then(|index| self.chunks.get(index))
    }

    /// One character per cell, a row per line: `S` spawn, `X` extraction, `O` objective, `#`
    /// blocker, `*` the bot path, `.` any other cell.
    pub fn ascii_map(&self) -> String {
        let mut text = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let cell = GridCell::new(x, y);
                text.push(match self.chunk_at(cell).map(|c| c.role) {
                    Some(ChunkRole::Spawn) => 'S',
                    Some(ChunkRole::Extraction) => 'X',
                    Some(ChunkRole::Objective) => 'O',
                    Some(ChunkRole::Blocker) => '#',
                    _ if self.bot_path.contains(&cell) => '*',
                    _ => '.',
                });
            }
            text.push('\n');
        }
        text
    }

    /// A canonical text signature spanning seed, attempt, spawn, extraction, every objective and
    /// every chunk's cell, role, blocking flag and chunk id; equal layouts have equal signatures.
    pub fn signature(&self) -> String {
        let mut text = String::new();
        let _ = write!(
            text,
            "seed={};attempt={};size={}x{};spawn={},{};extraction={},{};objectives=",
            self.seed,
            self.attempt,
            self.width,
            self.height,
            self.spawn.x,
            self.spawn.y,
            self.extraction.x,
            self.extraction.y
        );
        for objective in &self.objectives {
            let _ = write!(text, "{},{}|", objective.x, objective.y);
        }
        text.push_str(";chunks=");
        for chunk in &self.chunks {
            let _ = write!(
                text,
                "{},{}:{}:{}:{}|",
                chunk.cell.x,
                chunk.cell.y,
                chunk.role.name(),
                u8::from(chunk.blocks_traversal),
                chunk.chunk_id
            );
        }
        if let Some(daily) = &self.daily {
            let _ = write!(text, ";daily={}:{}", daily.cell_id, daily.date_id);
        }
        text
    }
}
