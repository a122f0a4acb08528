//! `Project.cook(out)`: every recipe generated with its overrides and written as a cooked bundle
//! folder — the manifest and product files of the runtime's `cook` module, laid out as
//! `stagecraft cook --out` lays them out, so the bundle digest is the command's. No stage cache
//! (the command's is an on-disk speed-up that never changes a byte). The bundle is written by
//! the command's swap (`stagecraft_io::cook::write_bundle`: staged beside `out`, synced, renamed
//! into place, what a killed swap left recovered first), so `out` is the old bundle or the new
//! one at every instant, and it is replaced under the command's rules: an empty folder or a
//! complete bundle (any other folder only with `force`), never the project's folder or one
//! holding it.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stagecraft_io::cook::{prepare_out, write_bundle, ReplacePolicy};
use stagecraft_runtime::cook::{cook_recipe, CookedManifest};
use stagecraft_runtime::overrides::Overrides;

use crate::errors::error;
use crate::project::{generate_bundle, Project};

/// Cooks `project` into `out` at `seed` (default: the manifest's); `force` replaces a folder
/// that is not a bundle.
pub fn cook<'py>(
    py: Python<'py>,
    project: &Project,
    out: &Path,
    seed: Option<u64>,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let policy = ReplacePolicy {
        force,
        keep: vec![project.path.clone()],
        force_spelled: Some("force=True"),
    };
    // Refuse a folder that may not be replaced before any work.
    prepare_out(out, &policy).map_err(|e| error(format!("{e:#}")))?;
    let documents = project.documents("nothing cooked")?;
    let seed = seed.unwrap_or(documents.manifest.root_seed);
    let mut plans = Vec::new();
    for id in &documents.manifest.recipes {
        plans.push((id.clone(), project.plan(id)?));
    }
    let mut recipes = Vec::new();
    let mut files = Vec::new();
    for (id, plan) in &plans {
        let overrides = Overrides::of_recipe(documents, id);
        let bundle = py.detach(|| generate_bundle(plan, seed, &overrides))?;
        let (entry, recipe_files) = cook_recipe(&bundle);
        recipes.push(entry);
        files.extend(recipe_files);
    }
    let manifest = CookedManifest::of_project(
        (&project.sources, &project.loaded),
        plans.iter().map(|(_, plan)| plan),
        seed,
        recipes,
    );
    let text = manifest.to_text();
    py.detach(|| write_bundle(out, &text, &files, &policy))
        .map_err(|e| error(format!("cannot write the bundle {}: {e:#}", out.display())))?;
    let report = PyDict::new(py);
    report.set_item("digest", manifest.digest_hex())?;
    report.set_item("files", files.len() + 1)?;
    let bytes = text.len() + files.iter().map(|(_, b)| b.len()).sum::<usize>();
    report.set_item("bytes", bytes)?;
    report.set_item("out", out.to_path_buf())?;
    Ok(report)
}
