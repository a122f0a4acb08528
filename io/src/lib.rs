//! Stagecraft's GUI-free file edge, shared by the editor (GUI and `stagecraft` command line) and
//! the Python module: reading a project folder into `ProjectSources` ([`sources`], through the
//! bounded reader [`bounded_read`]), building a scenario's world the same way for every caller
//! ([`scenario`]), and cooking through the on-disk stage cache ([`cook`]: the driver, the cache,
//! tiles and the bundle folder that `stagecraft cook`, the editor's Cook dialog and
//! `stagecraft.farm` share).
//!
//! The runtime does no file IO; this crate does the reading, and depends on no GUI, GL, watching
//! or dialog crate (`tests/tests/runtime_dependencies.rs` checks its dependency tree), so the
//! Python module can use it without dragging the editor's GUI in.

pub mod atomic_write;
pub mod bounded_read;
pub mod cook;
pub mod file_kind;
pub mod leftovers;
pub mod roots;
pub mod scenario;
pub mod sources;
pub mod temp_files;

pub use roots::{repository_root, DocumentRoots};
pub use scenario::{ScenarioContent, ScenarioError};
pub use sources::{load_dir, open_project, read_project_file, read_sources};
