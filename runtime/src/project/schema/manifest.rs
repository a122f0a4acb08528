//! The project manifest `stagecraft.ron`: name, root seed, asset folders and the document lists.

/// Current schema version of the manifest.
pub const MANIFEST_SCHEMA: u32 = 2;

/// The project manifest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Manifest {
    /// Display name of the project.
    pub name: String,
    /// Root seed of every generation and simulation in the project.
    pub root_seed: u64,
    /// Folders holding asset families (`*.family.ron`), relative to the project folder.
    pub asset_paths: Vec<String>,
    /// Recipe ids; each is `recipes/<id>.recipe.ron`.
    pub recipes: Vec<String>,
    /// Scenario ids; each is `scenarios/<id>.scenario.ron`.
    pub scenarios: Vec<String>,
    /// Override set ids; each is `overrides/<id>.overrides.ron`.
    pub overrides: Vec<String>,
}

crate::project::codec_macro::record_codec!(Manifest "Manifest" schema MANIFEST_SCHEMA {
    name: String,
    root_seed: u64,
    asset_paths: Vec<String> = Vec::new(),
    recipes: Vec<String> = Vec::new(),
    scenarios: Vec<String> = Vec::new(),
    overrides: Vec<String> = Vec::new(),
});
