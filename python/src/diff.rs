//! `Project.diff(other)`: the identity diff of two generations, as `stagecraft diff` computes it
//! — each side's objects from its generated bundles (a project, with its overrides) or from a
//! cooked bundle folder (verified by the runtime's manifest and product checks).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stagecraft_runtime::cook::{check_product, parse_manifest};
use stagecraft_runtime::diff::{bundle_objects, diff_objects, objects_into, Change, DiffObject};
use stagecraft_runtime::identity::ChildKey;
use stagecraft_runtime::overrides::Overrides;

use crate::errors::error;
use crate::project::{generate_bundle, Project};

/// One differing object.
struct Entry {
    change: &'static str,
    recipe: String,
    stage: u32,
    kind: &'static str,
    key: String,
    distance_m: Option<f64>,
    fields: Vec<&'static str>,
}

/// The result of `Project.diff`: `equal`, `counts` and the differing `entries`.
#[pyclass(module = "stagecraft", frozen)]
pub struct Diff {
    counts: [(&'static str, u64); 5],
    entries: Vec<Entry>,
}

#[pymethods]
impl Diff {
    /// Whether the two sides have the same objects.
    #[getter]
    fn equal(&self) -> bool {
        self.entries.is_empty()
    }

    /// Objects added, removed, moved, changed and unchanged.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, count) in self.counts {
            dict.set_item(name, count)?;
        }
        Ok(dict)
    }

    /// Every object that differs, sorted by identity: dicts with `change`, `recipe`, `stage`,
    /// `kind`, `key`, `distance_m` (moved objects) and `fields` (moved or changed), the
    /// fields of `stagecraft diff --json`.
    #[getter]
    fn entries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for e in &self.entries {
            let dict = PyDict::new(py);
            dict.set_item("change", e.change)?;
            dict.set_item("recipe", &e.recipe)?;
            dict.set_item("stage", e.stage)?;
            dict.set_item("kind", e.kind)?;
            dict.set_item("key", &e.key)?;
            dict.set_item("distance_m", e.distance_m)?;
            dict.set_item("fields", e.fields.clone())?;
            list.append(dict)?;
        }
        Ok(list)
    }

    fn __len__(&self) -> usize {
        self.entries.len()
    }

    fn __repr__(&self) -> String {
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(name, count)| format!("{count} {name}"))
            .collect();
        format!("<stagecraft.Diff {}>", counts.join(", "))
    }
}

/// The diff of `project` (at `seed`) against `other`: a `Project` (at `other_seed`) or a path.
pub fn diff(
    py: Python<'_>,
    project: &Project,
    other: &Bound<'_, PyAny>,
    seed: Option<u64>,
    other_seed: Option<u64>,
) -> PyResult<Diff> {
    let a = project_objects(py, project, seed)?;
    let b = if let Ok(other) = other.cast::<Project>() {
        project_objects(py, other.get(), other_seed)?
    } else {
        let path: std::path::PathBuf = other.extract()?;
        if other_seed.is_some() {
            return Err(error("other_seed applies to projects, not cooked bundles"));
        }
        bundle_folder_objects(&path)?
    };
    let diff = py.detach(|| diff_objects(a, b));
    let entries = diff
        .entries()
        .filter_map(|e| {
            let o = e.object()?;
            let (distance_m, fields) = match &e.change {
                Change::Moved {
                    distance_m, fields, ..
                } => (Some(*distance_m), fields.iter().map(|f| f.name()).collect()),
                Change::Changed { fields } => (None, fields.iter().map(|f| f.name()).collect()),
                _ => (None, Vec::new()),
            };
            Some(Entry {
                change: e.change.name(),
                recipe: o.recipe.to_string(),
                stage: o.stage,
                kind: o.kind.name(),
                key: key_text(&o.key),
                distance_m,
                fields,
            })
        })
        .collect();
    let c = diff.counts;
    Ok(Diff {
        counts: [
            ("added", c.added),
            ("removed", c.removed),
            ("moved", c.moved),
            ("changed", c.changed),
            ("unchanged", c.unchanged),
        ],
        entries,
    })
}

/// Every object of every recipe of `project`, generated at `seed` with its overrides.
fn project_objects(
    py: Python<'_>,
    project: &Project,
    seed: Option<u64>,
) -> PyResult<Vec<DiffObject>> {
    let documents = project.documents("nothing to compare")?;
    let seed = seed.unwrap_or(documents.manifest.root_seed);
    let mut objects = Vec::new();
    for id in &documents.manifest.recipes {
        let plan = project.plan(id)?;
        let overrides = Overrides::of_recipe(documents, id);
        let bundle = py.detach(|| generate_bundle(&plan, seed, &overrides))?;
        objects.extend(bundle_objects(&bundle));
    }
    Ok(objects)
}

/// Every object of the cooked bundle in `dir`, each product checked against the manifest.
fn bundle_folder_objects(dir: &Path) -> PyResult<Vec<DiffObject>> {
    let fail = |e: &dyn std::fmt::Display| error(format!("{}: {e}", dir.display()));
    let text = fs::read_to_string(dir.join("manifest.ron")).map_err(|e| fail(&e))?;
    let manifest = parse_manifest(&text).map_err(|e| fail(&e))?;
    let mut objects = Vec::new();
    for (recipe, stage) in manifest.stages() {
        let bytes = fs::read(dir.join(&stage.file)).map_err(|e| fail(&e))?;
        let product = check_product(stage, &bytes).map_err(|e| fail(&e))?;
        let recipe: Arc<str> = Arc::from(recipe.id.as_str());
        objects_into(&recipe, stage.id, &product, &mut objects);
    }
    Ok(objects)
}

/// The key as `stagecraft diff` prints it: a scatter id in hex, a grid cell `(x, y)`, a slot.
fn key_text(key: &ChildKey) -> String {
    match key {
        ChildKey::Scatter(id) => id.to_string(),
        ChildKey::GridCell { x, y } => format!("({x}, {y})"),
        ChildKey::Slot(name) => name.clone(),
    }
}
