//! Chunk library documents `chunks/<id>.chunks.ron` (read and linted by
//! [`crate::project::chunk_library`]).

/// Current schema version of chunk libraries.
pub const CHUNK_LIBRARY_SCHEMA: u32 = 1;

/// A library of mission chunks over the cell graphs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkLibrary {
    /// Persistent id; also the file name `<id>.chunks.ron`.
    pub id: String,
    /// The rows, in authored order (the solver draws among them in this order).
    pub chunks: Vec<ChunkRow>,
}

crate::project::codec_macro::record_codec!(ChunkLibrary "ChunkLibrary" schema CHUNK_LIBRARY_SCHEMA {
    id: String,
    chunks: Vec<ChunkRow>,
});

/// One chunk of a library.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkRow {
    /// Unique, non-empty id (the chunk asset's path).
    pub id: String,
    /// The cell graph it belongs to (`PCG_Tactical`, …).
    pub graph: String,
    /// Its role: `spawn`, `objective`, `extraction`, `connector`, `encounter`, `landmark`, `blocker`.
    pub role: String,
    /// Its archetype: `Room`, `Hallway`, `Building`, `TerrainTile`, `Arena` or `Platform`.
    pub archetype: String,
    /// The sides it can be entered from (`N`, `E`, `S`, `W`).
    pub entry_sockets: Vec<String>,
    /// Footprint width in grid cells.
    pub footprint_x: u32,
    /// Footprint height in grid cells.
    pub footprint_y: u32,
    /// Authored tags; at least one `Procgen.Constraint.*`.
    pub tags: Vec<String>,
}

crate::project::codec_macro::record_codec!(ChunkRow "Chunk" {
    id: String,
    graph: String,
    role: String,
    archetype: String,
    entry_sockets: Vec<String>,
    footprint_x: u32,
    footprint_y: u32,
    tags: Vec<String>,
});
