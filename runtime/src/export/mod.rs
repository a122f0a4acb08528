//! What leaves the tool, over values (no file IO): engine-ready exports of a cooked bundle's
//! products — the format-independent [`ExportScene`] ([`scene`]; instance heights from
//! [`ground`], mission layouts and streaming plans in [`layouts`]) and its glTF 2.0 binary
//! ([`gltf`]) and USD ASCII ([`usd`]) writers (`docs/export.md`) — and documents: a cooked bundle
//! as JSON with its JSON Schema ([`json`]), a simulation's event log as structured JSON
//! ([`events`]) and its per-source counts per sampled frame ([`sources`]). Files are written at
//! the edge (the command line), never here.
//!
//! Stagecraft's frame is metres, X east, Y north, Z up; glTF and the USD layer are metres, Y up,
//! right-handed, so a point `(x, y, z)` is written `(x, z, −y)` ([`y_up`]) — a rotation of −90°
//! about X, which keeps handedness, winding and the sense of rotations about the up axis.

pub mod events;
pub mod gltf;
pub mod ground;
pub mod json;
pub mod layouts;
pub mod mesh;
pub mod scene;
pub mod shapes;
pub mod sources;
pub mod usd;

pub use layouts::{MissionGroup, StreamingGroup, StreamingRole};
pub use scene::{ExportScene, Instance, InstanceGroup, Look, Looks, StageProduct, SurfaceGroup};

use thiserror::Error;

/// Why an export could not be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExportError {
    /// The file would exceed a limit of its format.
    #[error("{what} is {size} bytes, over the {format} limit of {limit}")]
    TooLarge {
        /// The format.
        format: &'static str,
        /// What is too large.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The glTF document could not be serialized.
    #[error("glTF document: {0}")]
    Json(String),
}

/// A point of Stagecraft's Z-up frame in the Y-up frame of glTF and the USD layer:
/// `(x, y, z) → (x, z, −y)` (with `−0` written as `0`).
pub fn y_up([x, y, z]: [f32; 3]) -> [f32; 3] {
    [x, z, 0.0 - y]
}

/// The rotation by `angle_rad` about Stagecraft's up axis (counter-clockwise seen from above)
/// as a unit quaternion `[x, y, z, w]` in the Y-up frame: the same angle about +Y.
pub fn yaw_quaternion(angle_rad: f64) -> [f32; 4] {
    let half = angle_rad / 2.0;
    [0.0, half.sin() as f32, 0.0, half.cos() as f32]
}

/// The linear value of an 8-bit sRGB channel (glTF colour factors and USD display colours are
/// linear).
pub fn linear(channel: u8) -> f32 {
    let c = f64::from(channel) / 255.0;
    let linear = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    linear as f32
}

/// The sRGB colour a street surface of `kind` (`road`, `sidewalk`, `crosswalk`) is given.
pub fn surface_colour(kind: &str) -> [u8; 3] {
    match kind {
        "road" => [70, 72, 78],
        "sidewalk" => [170, 168, 160],
        _ => [235, 235, 225],
    }
}

/// The persistent identity as every Stagecraft output renders it (`0x` and 16 hex digits).
pub fn identity_hex(id: crate::identity::ScatterId) -> String {
    id.to_string()
}

/// The version of every JSON document's layout; a document's version moves when a key it had is
/// renamed, removed or changes type (new keys do not move it).
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// The `schema` key of JSON document `name`: `stagecraft.<name>/<version>`, the one convention of
/// every JSON document Stagecraft writes (the command line's reports and the exported files).
pub fn schema_id(name: &str) -> String {
    format!("stagecraft.{name}/{JSON_SCHEMA_VERSION}")
}

/// A key as snake_case: lowercase ASCII letters and digits, every run of other characters one
/// `_` (`"rejected: no-spawn box"` → `rejected_no_spawn_box`, `"step ms"` → `step_ms`).
pub fn snake_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_lowercase());
        } else if !key.is_empty() && !key.ends_with('_') {
            key.push('_');
        }
    }
    while key.ends_with('_') {
        key.pop();
    }
    key
}

/// The JSON Schema (draft 2020-12) of document type `T`, pretty-printed with a final newline:
/// the text checked in under `docs/schemas/`.
pub fn schema_text<T: schemars::JsonSchema>() -> String {
    let schema = schemars::schema_for!(T);
    // A schema is a JSON value of strings and maps: printing it cannot fail.
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests;
