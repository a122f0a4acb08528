//! What leaves the tool, as documents: a cooked bundle as JSON with its JSON Schema
//! ([`json`]), a simulation's event log as structured JSON ([`events`]) and its per-source counts
//! per sampled frame ([`sources`]).
//!
//! Everything here converts values into typed documents (serde + schemars) and returns them or
//! their text; files are written at the edge (the command line), never here.

pub mod events;
pub mod json;
pub mod sources;

/// The `schema` key of every JSON document this module writes: the version of its layout.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// The JSON Schema (draft 2020-12) of document type `T`, pretty-printed with a final newline:
/// the text checked in under `docs/schemas/`.
pub fn schema_text<T: schemars::JsonSchema>() -> String {
    let schema = schemars::schema_for!(T);
    // A schema is a JSON value of strings and maps: printing it cannot fail.
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}
