//! `stagecraft check`: every diagnostic of a project, as text or JSON.

use std::io::Write;
use std::path::Path;

use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::diagnose::check_overrides;
use stagecraft_runtime::project::has_errors;
use stagecraft_runtime::recipe::{compile_project_recipe, scope_manifest, ScopeManifest};

use super::diagnostics::{escape_controls, render_all, DiagnosticJson};

/// What `check --json` prints.
#[derive(serde::Serialize)]
struct CheckReport<'d> {
    // Alphabetical, as the JSON tree this replaced wrote them.
    diagnostics: Vec<DiagnosticJson<'d>>,
    errors: usize,
    files: usize,
    project: String,
    /// `stagecraft.check/1` (see `json_out`).
    schema: String,
    /// The scope manifest of every recipe that compiles, in recipe id order.
    scopes: Vec<ScopeManifestJson>,
    warnings: usize,
}

/// The scope manifest of one recipe instance.
#[derive(serde::Serialize)]
struct ScopeManifestJson {
    address_schema: u32,
    recipe: String,
    stages: Vec<ScopeStageJson>,
}

/// One stage of a scope manifest.
#[derive(serde::Serialize)]
struct ScopeStageJson {
    /// The level of the world hierarchy it works at.
    data_scope: &'static str,
    /// Random domain ids drawn from.
    domains: Vec<u32>,
    locality: &'static str,
    operator: &'static str,
    /// Packed `[room, layer]` scopes.
    scopes: Vec<[u32; 2]>,
    stage: u32,
    /// A subrecipe stage's child run, its manifest nested here.
    #[serde(skip_serializing_if = "Option::is_none")]
    subrecipe: Option<Box<ScopeManifestJson>>,
}

/// The scope manifests of the project's recipes that compile.
fn scope_manifests(
    loaded: &stagecraft_runtime::project::LoadedProject,
    registry: &Registry,
) -> Vec<ScopeManifestJson> {
    let Some(project) = loaded.project.as_ref() else {
        return Vec::new();
    };
    project
        .recipes
        .keys()
        .filter_map(|id| compile_project_recipe(loaded, id, registry)?.plan)
        .map(|plan| manifest_json(scope_manifest(&plan)))
        .collect()
}

/// One manifest as JSON, its subrecipe stages' child runs nested in them.
fn manifest_json(manifest: ScopeManifest) -> ScopeManifestJson {
    ScopeManifestJson {
        address_schema: manifest.address_schema,
        recipe: manifest.recipe,
        stages: manifest
            .stages
            .into_iter()
            .map(|entry| ScopeStageJson {
                data_scope: entry.data_scope,
                domains: entry.domains,
                locality: entry.locality,
                operator: entry.operator,
                scopes: entry.scopes.iter().map(|(r, l)| [*r, *l]).collect(),
                stage: entry.stage,
                subrecipe: entry.subrecipe.map(|child| Box::new(manifest_json(*child))),
            })
            .collect(),
    }
}

use super::load_with;

/// `stagecraft check`: prints every diagnostic — the project's, the recipe compiler's (unknown
/// operators, port types, parameter schemas) and a warning for every override or mutation that
/// the generation at the manifest's seed does not apply — and exits 1 when any is an error.
pub fn check(project: &Path, json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    check_with(project, json, &Registry::standard(), out)
}

/// [`check`] compiling against `registry` (its operators and memory budget).
pub fn check_with(
    project: &Path,
    json: bool,
    registry: &Registry,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let (sources, mut loaded) = load_with(project, registry)?;
    // Edits that the generation at the manifest's seed does not apply, at their entries.
    let unapplied = check_overrides(&loaded, registry);
    loaded.diagnostics.extend(unapplied);
    loaded.diagnostics.sort();
    if json {
        let errors = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
        let report = CheckReport {
            diagnostics: loaded.diagnostics.iter().map(DiagnosticJson::of).collect(),
            errors,
            files: sources.files.len(),
            project: project.display().to_string(),
            schema: super::json_out::schema_id("check"),
            scopes: scope_manifests(&loaded, registry),
            warnings: loaded.diagnostics.len() - errors,
        };
        let mut buffered = std::io::BufWriter::new(&mut *out);
        serde_json::to_writer_pretty(&mut buffered, &report)?;
        writeln!(buffered)?;
        buffered.flush()?;
    } else {
        write!(out, "{}", render_all(&loaded.diagnostics, &sources))?;
        let errors = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = loaded.diagnostics.len() - errors;
        let shown = project.display().to_string();
        writeln!(
            out,
            "{}: {} files, {errors} errors, {warnings} warnings",
            escape_controls(&shown),
            sources.files.len()
        )?;
    }
    Ok(if has_errors(&loaded.diagnostics) {
        1
    } else {
        0
    })
}
