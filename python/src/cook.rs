//! `Project.cook(out)`: every recipe generated with its overrides and written as a cooked bundle
//! folder — the manifest and product files of the runtime's `cook` module, laid out as
//! `stagecraft cook --out` lays them out, so the bundle digest is the command's. No stage cache
//! (the command's is an on-disk speed-up that never changes a byte). The bundle is written into
//! a staging folder beside `out` and renamed into place, so `out` is either absent or whole; an
//! existing `out` is replaced only when it is empty or a bundle (it holds `manifest.ron`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stagecraft_runtime::content::encode::hex;
use stagecraft_runtime::cook::{cook_recipe, CookedManifest, CookedRecipe};
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::overrides_file;
use stagecraft_runtime::recipe::CompiledPlan;

use crate::errors::error;
use crate::project::{generate_bundle, Project};

/// The manifest's file name inside a bundle folder.
const MANIFEST_NAME: &str = "manifest.ron";

/// Cooks `project` into `out` at `seed` (default: the manifest's).
pub fn cook<'py>(
    py: Python<'py>,
    project: &Project,
    out: &Path,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    check_replaceable(out)?;
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
    let manifest = manifest_of(project, &plans, seed, recipes);
    let text = manifest.to_text();
    write_bundle(out, &text, &files)
        .map_err(|e| error(format!("cannot write the bundle {}: {e}", out.display())))?;
    let report = PyDict::new(py);
    report.set_item("digest", manifest.digest_hex())?;
    report.set_item("files", files.len() + 1)?;
    let bytes = text.len() + files.iter().map(|(_, b)| b.len()).sum::<usize>();
    report.set_item("bytes", bytes)?;
    report.set_item("out", out.to_path_buf())?;
    Ok(report)
}

/// The manifest of the cooked `recipes`: the families the plans read and the override sets'
/// source digests, as the command writes them.
fn manifest_of(
    project: &Project,
    plans: &[(String, CompiledPlan)],
    seed: u64,
    recipes: Vec<CookedRecipe>,
) -> CookedManifest {
    let mut families = BTreeMap::new();
    for (_, plan) in plans {
        // Through subrecipe stages too: the families their children read.
        for (id, family) in plan.families() {
            families.insert(id, hex(&family.digest()));
        }
    }
    let documents = project.loaded.project.as_ref();
    let overrides = documents
        .map(|p| {
            p.overrides
                .keys()
                .map(|id| {
                    let text = project.sources.files.get(&overrides_file(id));
                    let digest = blake3::hash(text.map_or(&[][..], |t| t.as_bytes()));
                    (id.clone(), digest.to_hex().to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    CookedManifest {
        project: documents
            .map(|p| p.manifest.name.clone())
            .unwrap_or_default(),
        root_seed: seed,
        families,
        overrides,
        recipes,
    }
}

/// Refuses an `out` that is neither absent, an empty folder nor a bundle, before any work.
fn check_replaceable(out: &Path) -> PyResult<()> {
    let Ok(metadata) = fs::symlink_metadata(out) else {
        return Ok(());
    };
    let empty = || fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none());
    if metadata.is_dir() && (empty() || out.join(MANIFEST_NAME).is_file()) {
        return Ok(());
    }
    Err(error(format!(
        "{} exists and is not a bundle folder or an empty folder; it is not replaced",
        out.display()
    )))
}

/// Writes the bundle into a staging folder beside `out`, then swaps it into place.
fn write_bundle(out: &Path, manifest: &str, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    let staging = sibling(out, "staging");
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(staging.join("products"))?;
    if let Err(e) = write_files(&staging, manifest, files) {
        let _ = fs::remove_dir_all(&staging);
        return Err(e);
    }
    if out.exists() {
        let old = sibling(out, "old");
        let _ = fs::remove_dir_all(&old);
        fs::rename(out, &old)?;
        fs::rename(&staging, out)?;
        let _ = fs::remove_dir_all(&old);
        Ok(())
    } else {
        fs::rename(&staging, out)
    }
}

/// The product files, then the manifest (the last file a complete bundle gets).
fn write_files(dir: &Path, manifest: &str, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    for (file, bytes) in files {
        fs::write(dir.join(file), bytes)?;
    }
    fs::write(dir.join(MANIFEST_NAME), manifest)
}

/// `.NAME.stagecraft-py-WHAT-PID` beside `out`.
fn sibling(out: &Path, what: &str) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "bundle".into(), |n| n.to_string_lossy().into_owned());
    let file = format!(".{name}.stagecraft-py-{what}-{}", std::process::id());
    out.parent().unwrap_or(Path::new(".")).join(file)
}
