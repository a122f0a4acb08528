//! The value of a chunk-library parameter ([`ParamType::ChunkLibrary`](super::ParamType)): in a
//! recipe the library's id; once the compiler resolves it against the project, the id with every
//! row, so the checked parameters (and the stage's cache key) carry the library's content.
//!
//! Resolved form: `("id", [("chunk id", "graph", "role", "archetype", ["N", …], footprint_x,
//! footprint_y, ["tag", …]), …])`.

use crate::project::chunk_library::{ChunkLibrary, ChunkRow};
use crate::project::ParamValue;

/// The resolved parameter value of `library`.
pub fn library_value(library: &ChunkLibrary) -> ParamValue {
    let strings =
        |items: &[String]| ParamValue::List(items.iter().cloned().map(ParamValue::Str).collect());
    let rows = library
        .chunks
        .iter()
        .map(|row| {
            ParamValue::Tuple(vec![
                ParamValue::Str(row.id.clone()),
                ParamValue::Str(row.graph.clone()),
                ParamValue::Str(row.role.clone()),
                ParamValue::Str(row.archetype.clone()),
                strings(&row.entry_sockets),
                ParamValue::Int(i64::from(row.footprint_x)),
                ParamValue::Int(i64::from(row.footprint_y)),
                strings(&row.tags),
            ])
        })
        .collect();
    ParamValue::Tuple(vec![
        ParamValue::Str(library.id.clone()),
        ParamValue::List(rows),
    ])
}

/// The library a resolved value holds; `None` for any other value (an unresolved id included).
pub fn library_of(value: &ParamValue) -> Option<ChunkLibrary> {
    let ParamValue::Tuple(items) = value else {
        return None;
    };
    let [ParamValue::Str(id), ParamValue::List(rows)] = items.as_slice() else {
        return None;
    };
    let chunks = rows.iter().map(row_of).collect::<Option<Vec<_>>>()?;
    Some(ChunkLibrary {
        id: id.clone(),
        chunks,
    })
}

fn row_of(value: &ParamValue) -> Option<ChunkRow> {
    let strings = |value: &ParamValue| match value {
        ParamValue::List(items) => items
            .iter()
            .map(|item| match item {
                ParamValue::Str(text) => Some(text.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>(),
        _ => None,
    };
    let ParamValue::Tuple(items) = value else {
        return None;
    };
    let [ParamValue::Str(id), ParamValue::Str(graph), ParamValue::Str(role), ParamValue::Str(archetype), sockets, ParamValue::Int(fx), ParamValue::Int(fy), tags] =
        items.as_slice()
    else {
        return None;
    };
    Some(ChunkRow {
        id: id.clone(),
        graph: graph.clone(),
        role: role.clone(),
        archetype: archetype.clone(),
        entry_sockets: strings(sockets)?,
        footprint_x: u32::try_from(*fx).ok()?,
        footprint_y: u32::try_from(*fy).ok()?,
        tags: strings(tags)?,
    })
}
