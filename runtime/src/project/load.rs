//! Reading a whole project from its file texts: parse, migrate, decode, then validate.

use std::collections::{BTreeMap, BTreeSet};

use super::chunk_library::{chunk_library_id, read_chunk_library};
use super::decode::{Decode, Decoder};
use super::diagnostic::{Diagnostic, Severity};
use super::migrate::{migrate_to_current, DocKind};
use super::model::{classify, Project, ProjectSources, MANIFEST_FILE};
use super::names::{id_problem, normal_asset_path, ID_EXPECTED};
use super::node::{FieldPath, Node, NodeKind, Span};
use super::parse::{parse, MAX_SOURCE_BYTES};
use super::schema::{AssetFamily, Manifest, MotionProfileDoc, OverrideSet, Recipe, Scenario};
use super::validate::validate_project;

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

/// The asset folders a manifest text names, so the caller knows which family files to read: each
/// in its one spelling ([`normal_asset_path`]) and once, in the manifest's order, so `"assets"` and
/// `"./assets"` read one folder (validation reports the second entry).
/// Empty when the manifest does not parse or its folder list cannot be read. Only that one field
/// is decoded (`assets` in a schema 1 file), so a manifest with many other problems costs one parse
/// here, not a second full decode.
pub fn asset_paths(manifest_text: &str) -> Vec<String> {
    let parsed = parse(manifest_text);
    let Some(root) = parsed.root.filter(|_| parsed.errors.is_empty()) else {
        return Vec::new();
    };
    let NodeKind::Struct { fields, .. } = &root.kind else {
        return Vec::new();
    };
    let field = |name: &str| {
        fields
            .iter()
            .find(|(ident, _)| ident.name == name)
            .map(|(_, node)| node)
    };
    let mut cx = Decoder::new(MANIFEST_FILE);
    let version_1 = matches!(
        field("schema").map(|node| &node.kind),
        Some(NodeKind::Int(1))
    );
    let paths = match (version_1, field("assets"), field("asset_paths")) {
        (true, Some(single), None) => String::decode(single, &mut cx).map(|path| vec![path]),
        (_, _, Some(list)) => Vec::<String>::decode(list, &mut cx),
        _ => None,
    };
    let mut seen = BTreeSet::new();
    paths
        .unwrap_or_default()
        .iter()
        .map(|path| normal_asset_path(path))
        .filter(|path| seen.insert(path.clone()))
        .collect()
}

/// Reads, validates and cross-checks every file of a project.
pub fn load_project(sources: &ProjectSources) -> LoadedProject {
    let mut loaded = LoadedProject::default();
    let mut reader = DocumentReader::default();
    for (path, text) in &sources.files {
        if let Some(id) = chunk_library_id(path) {
            loaded
                .diagnostics
                .extend(reader.read_chunk_library(path, id, text));
            continue;
        }
        let Some((kind, file_id)) = classify(path) else {
            continue;
        };
        let (tree, diagnostics) = reader.read(kind, path, text, &file_id);
        loaded.diagnostics.extend(diagnostics);
        if let Some(tree) = tree {
            loaded.trees.insert(path.clone(), tree);
        }
    }
    loaded.diagnostics.extend(missing_file_diagnostics(sources));
    if reader.manifest_ok {
        let project = reader.project;
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

/// The project the files read so far make up.
#[derive(Default)]
struct DocumentReader {
    project: Project,
    /// Whether the manifest was read.
    manifest_ok: bool,
    /// The first file of each family id, across every asset folder.
    family_paths: BTreeMap<String, String>,
}

impl DocumentReader {
    /// Reads one file of kind `kind` into the project; its syntax tree and diagnostics.
    fn read(
        &mut self,
        kind: DocKind,
        path: &str,
        text: &str,
        file_id: &str,
    ) -> (Option<Node>, Vec<Diagnostic>) {
        let project = &mut self.project;
        match kind {
            DocKind::Manifest => {
                let (value, tree, diagnostics) = read_document::<Manifest>(kind, path, text);
                if let Some(value) = value {
                    project.manifest = value;
                    self.manifest_ok = true;
                }
                (tree, diagnostics)
            }
            DocKind::Recipe => read_keyed(
                kind,
                path,
                text,
                file_id,
                &mut project.recipes,
                |r: &Recipe| &r.id,
            ),
            DocKind::Scenario => read_keyed(
                kind,
                path,
                text,
                file_id,
                &mut project.scenarios,
                |s: &Scenario| &s.id,
            ),
            DocKind::Overrides => read_keyed(
                kind,
                path,
                text,
                file_id,
                &mut project.overrides,
                |o: &OverrideSet| &o.id,
            ),
            DocKind::Family => self.read_family(kind, path, text, file_id),
            DocKind::Motion => self.read_motion(kind, path, text, file_id),
        }
    }

    /// Reads a motion profile; a profile another asset folder already has is diagnosed, and the
    /// first file is kept.
    fn read_motion(
        &mut self,
        kind: DocKind,
        path: &str,
        text: &str,
        file_id: &str,
    ) -> (Option<Node>, Vec<Diagnostic>) {
        let first = self.project.motion_files.get(file_id).cloned();
        let project = &mut self.project;
        let asset = AssetFile {
            kind,
            path,
            text,
            file_id,
        };
        asset.read(
            first.map(|first| DuplicateAsset {
                message: format!("motion profile `{file_id}` is also defined in `{first}`"),
                expected: "one file per motion profile id across the manifest's asset folders",
            }),
            (&mut project.motions, &mut project.motion_files),
            |m: &MotionProfileDoc| &m.id,
        )
    }

    /// Reads and lints a chunk library (kept when it has no error); its diagnostics, an error when
    /// its id is not its file name.
    fn read_chunk_library(&mut self, path: &str, file_id: &str, text: &str) -> Vec<Diagnostic> {
        let (library, mut diagnostics) = read_chunk_library(path, text);
        if let Some(library) = library {
            if library.id == file_id {
                self.project
                    .chunk_libraries
                    .insert(file_id.to_owned(), library);
            } else {
                diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    file: path.to_owned(),
                    line: 1,
                    column: 1,
                    path: FieldPath::root().field("id"),
                    message: format!(
                        "library id `{}` differs from its file name `{file_id}`",
                        library.id
                    ),
                    expected: format!("id: \"{file_id}\""),
                });
            }
        }
        diagnostics
    }

    /// Reads an asset family; a family another asset folder already has is diagnosed, and the
    /// first file is kept.
    fn read_family(
        &mut self,
        kind: DocKind,
        path: &str,
        text: &str,
        file_id: &str,
    ) -> (Option<Node>, Vec<Diagnostic>) {
        // A family's path is claimed before it is decoded: a second file with the id is a
        // duplicate even when the first does not decode.
        let first = self.family_paths.get(file_id).cloned();
        if first.is_none() {
            self.family_paths
                .insert(file_id.to_owned(), path.to_owned());
        }
        let project = &mut self.project;
        let asset = AssetFile {
            kind,
            path,
            text,
            file_id,
        };
        asset.read(
            first.map(|first| DuplicateAsset {
                message: format!("asset family `{file_id}` is also defined in `{first}`"),
                expected: "one file per family id across the manifest's asset folders (rename or \
                           remove one)",
            }),
            (&mut project.families, &mut project.family_files),
            |f: &AssetFamily| &f.id,
        )
    }
}

/// An error for each file that could not be read, and for a missing manifest.
fn missing_file_diagnostics(sources: &ProjectSources) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (path, problem) in &sources.unreadable {
        diagnostics.push(Diagnostic {
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
        diagnostics.push(Diagnostic {
            severity: Severity::Error,
            file: MANIFEST_FILE.to_owned(),
            line: 1,
            column: 1,
            path: FieldPath::root(),
            message: "the project has no manifest".to_owned(),
            expected: "a `stagecraft.ron` file in the project folder".to_owned(),
        });
    }
    diagnostics
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
    let id_error = |message: String, expected: String| {
        let span = id_span(tree.as_ref());
        Diagnostic {
            severity: Severity::Error,
            file: path.to_owned(),
            line: span.line,
            column: span.column,
            path: FieldPath::root().field("id"),
            message,
            expected,
        }
    };
    if let Some(problem) = id_problem(file_id) {
        diagnostics.push(id_error(
            format!("the file name gives the id {file_id:?}, but {problem}"),
            format!("a file named by its id: {ID_EXPECTED}"),
        ));
    }
    if let Some(value) = value {
        if id_of(&value) != file_id {
            diagnostics.push(id_error(
                format!("id `{}` does not match the file name", id_of(&value)),
                format!("id `{file_id}`, as in the file name"),
            ));
        }
        into.insert(file_id.to_owned(), value);
    }
    (tree, diagnostics)
}

/// Where a document's `id` field is (the whole file when it did not parse).
fn id_span(tree: Option<&Node>) -> Span {
    tree.map(|t| t.deepest_at(&FieldPath::root().field("id")).span)
        .unwrap_or(Span {
            line: 1,
            column: 1,
            offset: 0,
        })
}

/// One asset file being read: its kind, path, text and id (its file name).
struct AssetFile<'a> {
    kind: DocKind,
    path: &'a str,
    text: &'a str,
    file_id: &'a str,
}

/// What a file whose id another asset folder already defines is told.
struct DuplicateAsset {
    message: String,
    expected: &'static str,
}

impl AssetFile<'_> {
    /// Reads the file into `docs` (and its path into `files`) unless `duplicate`: then it is
    /// only checked, and an error at its `id` says so (the first file is kept).
    fn read<T: Decode>(
        &self,
        duplicate: Option<DuplicateAsset>,
        (docs, files): (&mut BTreeMap<String, T>, &mut BTreeMap<String, String>),
        id_of: impl Fn(&T) -> &String,
    ) -> (Option<Node>, Vec<Diagnostic>) {
        let (kind, path, text, file_id) = (self.kind, self.path, self.text, self.file_id);
        if let Some(duplicate) = duplicate {
            let mut ignored = BTreeMap::new();
            let (tree, mut diagnostics) =
                read_keyed(kind, path, text, file_id, &mut ignored, id_of);
            let span = id_span(tree.as_ref());
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                file: path.to_owned(),
                line: span.line,
                column: span.column,
                path: FieldPath::root().field("id"),
                message: duplicate.message,
                expected: duplicate.expected.to_owned(),
            });
            return (tree, diagnostics);
        }
        let result = read_keyed(kind, path, text, file_id, docs, id_of);
        if docs.contains_key(file_id) {
            files.insert(file_id.to_owned(), path.to_owned());
        }
        result
    }
}
