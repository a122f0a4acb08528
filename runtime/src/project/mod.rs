//! The project document model: typed schema, strict reader with diagnostics, canonical writer.
//!
//! A project is a folder of RON files (see `DESIGN.md`, "Project files"). This module never
//! touches the file system: the caller hands it file texts ([`ProjectSources`]) and writes the
//! canonical texts it returns.

pub mod chunk_library;
#[cfg(test)]
mod chunk_library_tests;
pub(crate) mod codec_macro;
pub mod daily_seeds;
pub mod decode;
pub mod diagnostic;
pub mod load;
pub mod migrate;
pub mod model;
pub mod names;
pub mod node;
pub mod parse;
pub mod schema;
pub mod validate;
pub mod write;

pub use diagnostic::{has_errors, Diagnostic, Severity};
pub use load::{asset_paths, load_project, read_document, LoadedProject};
pub use migrate::DocKind;
pub use model::{
    canonical_text, classify, family_file, motion_file, overrides_file, recipe_file, scenario_file,
    AssetPathProblem, Project, ProjectSources, Unreadable, MANIFEST_FILE,
};
pub use node::{FieldPath, Locator, PathSeg, Span};
pub use schema::*;
