//! Chunk library documents `chunks/<id>.chunks.ron`: the mission chunk vocabulary as data, and the
//! specification's library linter (`ValidateChunkLibrary`) as located diagnostics.
//!
//! A row has an id, the cell graph it belongs to, a role (the solver's seven), an archetype
//! (`Room`, `Hallway`, `Building`, `TerrainTile`, `Arena`, `Platform`), entry sockets, a footprint
//! in grid cells and `Procgen.Constraint.*` tags. The linter rejects a library unless it has at
//! least [`MIN_LIBRARY_CHUNKS`] rows, unique ids, every one of the five graphs, all six archetypes,
//! and a constraint tag on every row; it also refuses unknown graphs, roles and archetypes, empty
//! footprints and rows without entry sockets. Every problem is an error at the field at fault.
//! The runtime reads no file: the caller hands the text (`stagecraft check` reads the folder).

use super::decode::Decoder;
use super::node::{FieldPath, Locator, Node};
use super::parse::parse;
use super::{Diagnostic, Severity};
use crate::content::ChunkRole;
use crate::ops::grid_mission::socket_bits;

pub use super::schema::chunk_library::{ChunkLibrary, ChunkRow, CHUNK_LIBRARY_SCHEMA};

/// Fewest rows a library may have.
pub const MIN_LIBRARY_CHUNKS: usize = 50;
/// The six chunk archetypes.
pub const ARCHETYPES: [&str; 6] = [
    "Room",
    "Hallway",
    "Building",
    "TerrainTile",
    "Arena",
    "Platform",
];
/// The prefix every row needs on at least one tag.
pub const CONSTRAINT_TAG_PREFIX: &str = "Procgen.Constraint.";
/// The folder of chunk library files in a project.
pub const CHUNK_LIBRARY_FOLDER: &str = "chunks";
/// The suffix of chunk library files.
pub const CHUNK_LIBRARY_SUFFIX: &str = ".chunks.ron";

/// The file of chunk library `id`.
pub fn chunk_library_file(id: &str) -> String {
    format!("{CHUNK_LIBRARY_FOLDER}/{id}{CHUNK_LIBRARY_SUFFIX}")
}

/// The library id of a project path `chunks/<id>.chunks.ron`, if it is one.
pub fn chunk_library_id(path: &str) -> Option<&str> {
    path.strip_prefix(CHUNK_LIBRARY_FOLDER)?
        .strip_prefix('/')?
        .strip_suffix(CHUNK_LIBRARY_SUFFIX)
        .filter(|id| !id.is_empty() && !id.contains('/'))
}

/// Reads and lints the chunk library `file` with text `text`: the library when it has no error,
/// and every diagnostic (parse, schema and linter), sorted.
pub fn read_chunk_library(file: &str, text: &str) -> (Option<ChunkLibrary>, Vec<Diagnostic>) {
    let (value, root, mut diagnostics) = decode_text::<ChunkLibrary>(file, text);
    if let (Some(library), Some(root)) = (&value, &root) {
        let locator = Locator::new(root);
        for (path, message, expected) in lint_chunk_library(library) {
            let span = locator.deepest_at(root, &path).span;
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                file: file.to_owned(),
                line: span.line,
                column: span.column,
                path,
                message,
                expected,
            });
        }
    }
    diagnostics.sort();
    let value = value.filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    (value, diagnostics)
}

/// Parses and decodes a data file that is not a project document (no migration): the value, its
/// tree and the parse and schema diagnostics.
pub fn decode_text<T: super::decode::Decode>(
    file: &str,
    text: &str,
) -> (Option<T>, Option<Node>, Vec<Diagnostic>) {
    let parsed = parse(text);
    let mut cx = Decoder::new(file);
    for error in &parsed.errors {
        cx.error_at_path(
            error.span,
            error.path.clone(),
            error.message.clone(),
            error.expected.clone(),
        );
    }
    let Some(root) = parsed.root else {
        return (None, None, cx.diagnostics);
    };
    let value = T::decode(&root, &mut cx);
    (value, Some(root), cx.diagnostics)
}

/// The linter's findings: (field path, message, expected), in row order then library-wide.
pub fn lint_chunk_library(library: &ChunkLibrary) -> Vec<(FieldPath, String, String)> {
    let rows_path = FieldPath::root().field("chunks");
    let mut found = Vec::new();
    let mut ids: Vec<(&str, usize)> = Vec::new();
    for (index, row) in library.chunks.iter().enumerate() {
        let at = rows_path.index(index);
        for (path, message, expected) in lint_row(row) {
            found.push((at.field(path), message, expected));
        }
        if let Some((_, first)) = ids.iter().find(|(id, _)| *id == row.id) {
            found.push((
                at.field("id"),
                format!("chunk id {:?} repeats row {first}", row.id),
                "each chunk id once".to_owned(),
            ));
        } else {
            ids.push((&row.id, index));
        }
    }
    let count = library.chunks.len();
    if count < MIN_LIBRARY_CHUNKS {
        found.push((
            rows_path.clone(),
            format!("the library has {count} chunks, fewer than {MIN_LIBRARY_CHUNKS}"),
            format!("at least {MIN_LIBRARY_CHUNKS} chunks"),
        ));
    }
    let graphs = crate::ops::registry::GRAPH_NAMES;
    for graph in graphs {
        if !library.chunks.iter().any(|row| row.graph == *graph) {
            found.push((
                rows_path.clone(),
                format!("no chunk belongs to graph `{graph}`"),
                format!("chunks for every graph: {}", graphs.join(", ")),
            ));
        }
    }
    for archetype in ARCHETYPES {
        if !library.chunks.iter().any(|row| row.archetype == archetype) {
            found.push((
                rows_path.clone(),
                format!("no chunk has archetype `{archetype}`"),
                format!("every archetype: {}", ARCHETYPES.join(", ")),
            ));
        }
    }
    found
}

/// One row's own rules: (field, message, expected).
fn lint_row(row: &ChunkRow) -> Vec<(&'static str, String, String)> {
    let mut found = Vec::new();
    if row.id.is_empty() {
        found.push((
            "id",
            "empty chunk id".to_owned(),
            "a non-empty id".to_owned(),
        ));
    }
    let graphs = crate::ops::registry::GRAPH_NAMES;
    if !graphs.contains(&row.graph.as_str()) {
        found.push((
            "graph",
            format!("unknown graph {:?}", row.graph),
            format!("one of: {}", graphs.join(", ")),
        ));
    }
    if !ChunkRole::ALL.iter().any(|role| role.name() == row.role) {
        let names: Vec<&str> = ChunkRole::ALL.iter().map(|role| role.name()).collect();
        found.push((
            "role",
            format!("unknown role {:?}", row.role),
            format!("one of: {}", names.join(", ")),
        ));
    }
    if !ARCHETYPES.contains(&row.archetype.as_str()) {
        found.push((
            "archetype",
            format!("unknown archetype {:?}", row.archetype),
            format!("one of: {}", ARCHETYPES.join(", ")),
        ));
    }
    if row.entry_sockets.is_empty() {
        found.push((
            "entry_sockets",
            "a chunk without entry sockets cannot be entered".to_owned(),
            "at least one entry socket".to_owned(),
        ));
    }
    if row.footprint_x == 0 || row.footprint_y == 0 {
        found.push((
            if row.footprint_x == 0 {
                "footprint_x"
            } else {
                "footprint_y"
            },
            format!("footprint {}×{} is empty", row.footprint_x, row.footprint_y),
            "a footprint of at least 1×1 cells".to_owned(),
        ));
    }
    if !row
        .tags
        .iter()
        .any(|tag| tag.starts_with(CONSTRAINT_TAG_PREFIX))
    {
        found.push((
            "tags",
            format!("chunk {:?} has no constraint tag", row.id),
            format!("a `{CONSTRAINT_TAG_PREFIX}*` tag"),
        ));
    }
    found
}

/// The library's rows of `graph` as the solver's chunk definitions (the NPC-spawn flag from the
/// `Procgen.Constraint.NpcSpawn` tag; archetype, entry sockets and tags as authored), in library
/// order. Rows with an unknown role are skipped
/// (the linter reports them).
pub fn graph_chunks(
    library: &ChunkLibrary,
    graph: &str,
) -> Vec<crate::ops::grid_mission::ChunkDefinition> {
    library
        .chunks
        .iter()
        .filter(|row| row.graph == graph)
        .filter_map(|row| {
            let role = ChunkRole::ALL.into_iter().find(|r| r.name() == row.role)?;
            Some(crate::ops::grid_mission::ChunkDefinition {
                id: row.id.clone(),
                role,
                npc_spawn_tag: row.tags.iter().any(|t| t == "Procgen.Constraint.NpcSpawn"),
                archetype: row.archetype.clone(),
                sockets: socket_bits(row.entry_sockets.iter().map(String::as_str)),
                tags: row.tags.clone(),
            })
        })
        .collect()
}
