//! Reading a whole project from its file texts: parse, migrate, decode, then validate.

use std::collections::BTreeMap;

use super::decode::{Decode, Decoder, Encode};
use super::diagnostic::{Diagnostic, Severity};
use super::migrate::{migrate_to_current, DocKind};
use super::node::{FieldPath, Node, Span};
use super::parse::{parse, MAX_SOURCE_BYTES};
use super::schema::{AssetFamily, Manifest, OverrideSet, Recipe, Scenario};
use super::validate::validate_project;
use super::write::to_canonical_string;

/// The manifest's file name inside a project folder.
pub const MANIFEST_FILE: &str = "stagecraft.ron";

/// The texts of a project's files, keyed by path relative to the project folder (`/`-separated).
///
/// The caller reads them from disk (the runtime does no IO): the manifest, every
/// `recipes/*.recipe.ron`, `scenarios/*.scenario.ron` and `overrides/*.overrides.ron`, and every
/// `*.family.ron` in the manifest's asset paths (see [`asset_paths`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectSources {
    /// Path → text.
    pub files: BTreeMap<String, String>,
    /// Files the caller found but could not read as text (not UTF-8, a folder, a dangling link,
    /// permission denied, …), with where and why; each becomes an error diagnostic and its
    /// document counts as unreadable, never as missing.
    pub unreadable: BTreeMap<String, Unreadable>,
    /// Asset paths of the manifest that the caller judged on disk: refused (not read, an error
    /// at its entry in `asset_paths`: a special file system) or read with a warning (it leaves
    /// the repository that holds the project).
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
}

/// The outcome of reading a project.
#[derive(Debug, Default)]
pub struct LoadedProject {
    /// The documents; `None` when the manifest itself could not be read.
    pub project: Option<Project>,
    /// Every diagnostic of every file, sorted by file, line and column.
    pub diagnostics: Vec<Diagnostic>,
    /// The syntax tree of each file that parsed, for placing diagnostics and selections.
    pub trees: BTreeMap<String, Node>,
}

impl LoadedProject {
    /// The diagnostics of one file.
    pub fn diagnostics_of<'a>(&'a self, file: &'a str) -> impl Iterator<Item = &'a Diagnostic> {
        self.diagnostics.iter().filter(move |d| d.file == file)
    }
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
        _ => id_of(".family.ron").map(|id| (DocKind::Family, id)),
    }
}

/// Reads one document of type `T` from `text`: parse, migrate, decode.
///
/// Returns the value (if it could be built), the tree (if it parsed) and every diagnostic.
pub fn read_document<T: Decode>(
    kind: DocKind,
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
    let Some(mut root) = parsed.root else {
        return (None, None, cx.diagnostics);
    };
    let value = match migrate_to_current(kind, &mut root, &mut cx) {
        Some(_) => T::decode(&root, &mut cx),
        None => None,
    };
    // A document with any error is not handed out, so nothing downstream sees half of it.
    let value = value.filter(|_| !cx.diagnostics.iter().any(Diagnostic::is_error));
    (value, Some(root), cx.diagnostics)
}

/// The asset folders a manifest text names, so the caller knows which family files to read.
/// Empty when the manifest cannot be read.
pub fn asset_paths(manifest_text: &str) -> Vec<String> {
    let (manifest, _, _) =
        read_document::<Manifest>(DocKind::Manifest, MANIFEST_FILE, manifest_text);
    manifest.map(|m| m.asset_paths).unwrap_or_default()
}

/// Reads, validates and cross-checks every file of a project.
pub fn load_project(sources: &ProjectSources) -> LoadedProject {
    let mut loaded = LoadedProject::default();
    let mut project = Project::default();
    let mut manifest_ok = false;
    for (path, text) in &sources.files {
        let Some((kind, file_id)) = classify(path) else {
            continue;
        };
        let (tree, diagnostics) = match kind {
            DocKind::Manifest => {
                let (value, tree, diagnostics) = read_document::<Manifest>(kind, path, text);
                if let Some(value) = value {
                    project.manifest = value;
                    manifest_ok = true;
                }
                (tree, diagnostics)
            }
            DocKind::Recipe => read_keyed(
                kind,
                path,
                text,
                &file_id,
                &mut project.recipes,
                |r: &Recipe| &r.id,
            ),
            DocKind::Scenario => read_keyed(
                kind,
                path,
                text,
                &file_id,
                &mut project.scenarios,
                |s: &Scenario| &s.id,
            ),
            DocKind::Overrides => read_keyed(
                kind,
                path,
                text,
                &file_id,
                &mut project.overrides,
                |o: &OverrideSet| &o.id,
            ),
            DocKind::Family => {
                let result = read_keyed(
                    kind,
                    path,
                    text,
                    &file_id,
                    &mut project.families,
                    |f: &AssetFamily| &f.id,
                );
                if project.families.contains_key(&file_id) {
                    project.family_files.insert(file_id.clone(), path.clone());
                }
                result
            }
        };
        loaded.diagnostics.extend(diagnostics);
        if let Some(tree) = tree {
            loaded.trees.insert(path.clone(), tree);
        }
    }
    for (path, problem) in &sources.unreadable {
        loaded.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            file: path.clone(),
            line: problem.line,
            column: problem.column,
            path: FieldPath::root(),
            message: problem.message.clone(),
            expected: problem.expected.clone(),
        });
    }
    if !sources.files.contains_key(MANIFEST_FILE) && !sources.unreadable.contains_key(MANIFEST_FILE)
    {
        loaded.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            file: MANIFEST_FILE.to_owned(),
            line: 1,
            column: 1,
            path: FieldPath::root(),
            message: "the project has no manifest".to_owned(),
            expected: "a `stagecraft.ron` file in the project folder".to_owned(),
        });
    }
    if manifest_ok {
        loaded
            .diagnostics
            .extend(validate_project(&project, sources, &loaded.trees));
        loaded.diagnostics.extend(oversized_canonical(&project));
        loaded.project = Some(project);
    }
    loaded.diagnostics.sort();
    loaded.diagnostics.dedup();
    loaded
}

/// The size limit holds for the canonical form too: a compactly written file whose canonical text
/// would exceed it is reported, so neither `fmt` nor a save turns a readable file into one that
/// no longer loads (both refuse to write a file with an error).
fn oversized_canonical(project: &Project) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (file, text) in project.canonical_files() {
        if text.len() > MAX_SOURCE_BYTES {
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                file,
                line: 1,
                column: 1,
                path: FieldPath::root(),
                message: format!(
                    "in canonical form this file would be {} bytes, over the limit of {MAX_SOURCE_BYTES} bytes (1 MiB), so it cannot be formatted or saved",
                    text.len()
                ),
                expected: "a document whose canonical text is at most 1 MiB (split it into several files)".to_owned(),
            });
        }
    }
    diagnostics
}

/// Reads a document keyed by id into `into`, checking that its id matches its file name.
fn read_keyed<T: Decode>(
    kind: DocKind,
    path: &str,
    text: &str,
    file_id: &str,
    into: &mut BTreeMap<String, T>,
    id_of: impl Fn(&T) -> &String,
) -> (Option<Node>, Vec<Diagnostic>) {
    let (value, tree, mut diagnostics) = read_document::<T>(kind, path, text);
    if let Some(value) = value {
        if id_of(&value) != file_id {
            let span = tree
                .as_ref()
                .map(|t| t.deepest_at(&FieldPath::root().field("id")).span)
                .unwrap_or(Span {
                    line: 1,
                    column: 1,
                    offset: 0,
                });
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                file: path.to_owned(),
                line: span.line,
                column: span.column,
                path: FieldPath::root().field("id"),
                message: format!("id `{}` does not match the file name", id_of(&value)),
                expected: format!("id `{file_id}`, as in the file name"),
            });
        }
        into.insert(file_id.to_owned(), value);
    }
    (tree, diagnostics)
}

/// The canonical text of any document.
pub fn canonical_text(document: &impl Encode) -> String {
    to_canonical_string(&document.encode())
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
        files
    }
}
