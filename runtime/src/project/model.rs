//! The project as data: the texts of its files, its documents by id, and the file-name scheme
//! that ties one to the other. Reading ([`super::load`]) and validation ([`super::validate`]) both
//! build on it; it depends on neither.

use std::collections::BTreeMap;

use super::decode::Encode;
use super::migrate::DocKind;
use super::schema::{AssetFamily, Manifest, MotionProfileDoc, OverrideSet, Recipe, Scenario};
use super::write::to_canonical_string;

/// The manifest's file name inside a project folder.
pub const MANIFEST_FILE: &str = "stagecraft.ron";

/// The texts of a project's files, keyed by path relative to the project folder (`/`-separated).
///
/// The caller reads them from disk (the runtime does no IO): the manifest, every
/// `recipes/*.recipe.ron`, `scenarios/*.scenario.ron` and `overrides/*.overrides.ron`, and every
/// `*.family.ron` and `*.motion.ron` in the manifest's asset paths (see [`super::asset_paths`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectSources {
    /// Path → text.
    pub files: BTreeMap<String, String>,
    /// Files the caller found but could not read as text (not UTF-8, a folder, a dangling link,
    /// permission denied, …), with where and why; each becomes an error diagnostic and its
    /// document counts as unreadable, never as missing.
    pub unreadable: BTreeMap<String, Unreadable>,
    /// Asset paths of the manifest that the caller judged on disk, keyed by their one spelling
    /// (`names::normal_asset_path`, as [`super::asset_paths`] gives them): refused (not read, an
    /// error at its entry in `asset_paths`: a special file system) or read with a warning (it
    /// leaves the repository that holds the project).
    pub asset_path_problems: BTreeMap<String, AssetPathProblem>,
}

/// What the caller found wrong with where an asset path leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssetPathProblem {
    /// `true` when the folder was not read (an error); `false` when it was read (a warning).
    pub refused: bool,
    /// Where the path leads and why that is a problem.
    pub reason: String,
}

/// Why a project file could not be read, and where in it the problem starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// 1-based line of the problem (1 when it concerns the whole file).
    pub line: u32,
    /// 1-based column, in characters (1 when it concerns the whole file).
    pub column: u32,
    /// What is wrong, naming the file and the operating system's reason where there is one.
    pub message: String,
    /// What was expected instead.
    pub expected: String,
}

/// A project's documents, keyed by id. Documents that could not be read are absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Project {
    /// The manifest.
    pub manifest: Manifest,
    /// Recipes by id.
    pub recipes: BTreeMap<String, Recipe>,
    /// Scenarios by id.
    pub scenarios: BTreeMap<String, Scenario>,
    /// Override sets by id.
    pub overrides: BTreeMap<String, OverrideSet>,
    /// Asset families by id.
    pub families: BTreeMap<String, AssetFamily>,
    /// The file of each asset family, by family id.
    pub family_files: BTreeMap<String, String>,
    /// Motion profiles by id.
    pub motions: BTreeMap<String, MotionProfileDoc>,
    /// The file of each motion profile, by id.
    pub motion_files: BTreeMap<String, String>,
    /// Chunk libraries (`chunks/<id>.chunks.ron`) by file id; only those read without errors.
    pub chunk_libraries: BTreeMap<String, super::chunk_library::ChunkLibrary>,
}

/// The file of recipe `id`.
pub fn recipe_file(id: &str) -> String {
    format!("recipes/{id}.recipe.ron")
}

/// The file of scenario `id`.
pub fn scenario_file(id: &str) -> String {
    format!("scenarios/{id}.scenario.ron")
}

/// The file of override set `id`.
pub fn overrides_file(id: &str) -> String {
    format!("overrides/{id}.overrides.ron")
}

/// The file of asset family `id` in asset folder `asset_path`.
pub fn family_file(asset_path: &str, id: &str) -> String {
    format!("{}/{id}.family.ron", asset_path.trim_end_matches('/'))
}

/// The file of motion profile `id` in asset folder `asset_path`.
pub fn motion_file(asset_path: &str, id: &str) -> String {
    format!("{}/{id}.motion.ron", asset_path.trim_end_matches('/'))
}

/// Which kind of document a path holds, and the id its file name gives, if any.
pub fn classify(path: &str) -> Option<(DocKind, String)> {
    if path == MANIFEST_FILE {
        return Some((DocKind::Manifest, String::new()));
    }
    let (folder, name) = path.rsplit_once('/')?;
    let id_of = |suffix: &str| name.strip_suffix(suffix).map(str::to_owned);
    match folder {
        "recipes" => id_of(".recipe.ron").map(|id| (DocKind::Recipe, id)),
        "scenarios" => id_of(".scenario.ron").map(|id| (DocKind::Scenario, id)),
        "overrides" => id_of(".overrides.ron").map(|id| (DocKind::Overrides, id)),
        _ => id_of(".motion.ron")
            .map(|id| (DocKind::Motion, id))
            .or_else(|| id_of(".family.ron").map(|id| (DocKind::Family, id))),
    }
}

impl Project {
    /// The canonical text of every document, keyed by its file path.
    pub fn canonical_files(&self) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        files.insert(MANIFEST_FILE.to_owned(), canonical_text(&self.manifest));
        for (id, recipe) in &self.recipes {
            files.insert(recipe_file(id), canonical_text(recipe));
        }
        for (id, scenario) in &self.scenarios {
            files.insert(scenario_file(id), canonical_text(scenario));
        }
        for (id, set) in &self.overrides {
            files.insert(overrides_file(id), canonical_text(set));
        }
        for (id, family) in &self.families {
            if let Some(path) = self.family_files.get(id) {
                files.insert(path.clone(), canonical_text(family));
            }
        }
        for (id, profile) in &self.motions {
            if let Some(path) = self.motion_files.get(id) {
                files.insert(path.clone(), canonical_text(profile));
            }
        }
        for (id, library) in &self.chunk_libraries {
            files.insert(
                super::chunk_library::chunk_library_file(id),
                canonical_text(library),
            );
        }
        files
    }
}

/// The canonical text of any document.
pub fn canonical_text(document: &impl Encode) -> String {
    to_canonical_string(&document.encode())
}
