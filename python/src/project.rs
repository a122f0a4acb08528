//! `stagecraft.Project`: a project folder read and checked once, then generated, cooked and
//! diffed through the same runtime entry points as the `stagecraft` command line, so its digests
//! are the command's.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyList;
use stagecraft_io::open_project;
use stagecraft_io::scenario::{ScenarioContent, ScenarioError};
use stagecraft_runtime::generate::{
    CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, Generator, NoObserver,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::diagnose::check_overrides;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::schema::scenario::Scenario;
use stagecraft_runtime::project::{
    has_errors, Diagnostic as RuntimeDiagnostic, LoadedProject, Project as Documents,
    ProjectSources,
};
use stagecraft_runtime::recipe::{compile_project_recipe, CompiledPlan};

use crate::errors::{error, project_error, Diagnostic};
use crate::generation::Generation;

/// A Stagecraft project: its files read and checked (`Project.open(path)`).
#[pyclass(module = "stagecraft", frozen)]
pub struct Project {
    pub(crate) path: PathBuf,
    pub(crate) sources: ProjectSources,
    pub(crate) loaded: LoadedProject,
    /// Each scenario's generated content, kept for the next `Simulation` of it: it does not
    /// depend on the world's seed, so a sweep builds every run's world over one generation.
    pub(crate) contents: Mutex<BTreeMap<String, ScenarioContent>>,
}

#[pymethods]
impl Project {
    /// Reads and checks the project in the folder `path`. Raises `StagecraftError` when the
    /// folder cannot be opened; a project with errors opens (see `check()`), and `generate`,
    /// `cook` and `Simulation` raise `ProjectError` on it.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Project> {
        // The editor's and the command line's reader and checks (`stagecraft-io`).
        let (sources, loaded) = py
            .detach(|| open_project(&path, &Registry::standard()))
            .map_err(|e| error(e.to_string()))?;
        Ok(Project {
            path,
            sources,
            loaded,
            contents: Mutex::new(BTreeMap::new()),
        })
    }

    /// The project folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The project's display name (None when the manifest cannot be read).
    #[getter]
    fn name(&self) -> Option<String> {
        self.loaded
            .project
            .as_ref()
            .map(|p| p.manifest.name.clone())
    }

    /// The manifest's root seed (None when the manifest cannot be read).
    #[getter]
    fn root_seed(&self) -> Option<u64> {
        self.loaded.project.as_ref().map(|p| p.manifest.root_seed)
    }

    /// The manifest's recipes, in its order.
    #[getter]
    fn recipes(&self) -> Vec<String> {
        self.loaded
            .project
            .as_ref()
            .map(|p| p.manifest.recipes.clone())
            .unwrap_or_default()
    }

    /// The scenario ids, sorted.
    #[getter]
    fn scenarios(&self) -> Vec<String> {
        self.loaded
            .project
            .as_ref()
            .map(|p| p.scenarios.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The number of files read.
    #[getter]
    fn files(&self) -> usize {
        self.sources.files.len()
    }

    /// Every diagnostic, as `stagecraft check` lists them: the loader's and the recipe
    /// compiler's, and a warning for every override the manifest's seed does not apply.
    fn check<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut diagnostics = self.loaded.diagnostics.clone();
        diagnostics.extend(py.detach(|| check_overrides(&self.loaded, &Registry::standard())));
        diagnostics.sort();
        PyList::new(py, diagnostics.iter().map(Diagnostic::of))
    }

    /// Generates every recipe of the manifest (or only `recipe`) at `seed` (default: the
    /// manifest's), with the project's override sets unless `overrides=False`, as `stagecraft
    /// generate` does. Returns a `Generation` (digests, placements as a NumPy array).
    #[pyo3(signature = (seed=None, overrides=true, recipe=None))]
    fn generate(
        &self,
        py: Python<'_>,
        seed: Option<u64>,
        overrides: bool,
        recipe: Option<String>,
    ) -> PyResult<Generation> {
        let documents = self.documents("nothing generated")?;
        let seed = seed.unwrap_or(documents.manifest.root_seed);
        let recipes = match recipe {
            Some(id) if documents.recipes.contains_key(&id) => vec![id],
            Some(id) => {
                return Err(error(format!(
                    "the project has no recipe `{id}`; its recipes are: {}",
                    documents.manifest.recipes.join(", ")
                )))
            }
            None => documents.manifest.recipes.clone(),
        };
        let mut bundles = Vec::with_capacity(recipes.len());
        for id in &recipes {
            let plan = self.plan(id)?;
            let edits = if overrides {
                Overrides::of_recipe(documents, id)
            } else {
                Overrides::none()
            };
            bundles.push(py.detach(|| generate_bundle(&plan, seed, &edits))?);
        }
        Ok(Generation::new(seed, bundles))
    }

    /// Cooks every recipe into a bundle folder `out` (manifest.ron + products/*.bin), as
    /// `stagecraft cook --out` writes it (without the stage cache) and by the same safe swap:
    /// `out` may be absent, an empty folder or a complete bundle (`force=True`: any other
    /// folder), never the project's folder. Returns a dict with the bundle `digest`, the
    /// `files` and `bytes` written.
    #[pyo3(signature = (out, seed=None, force=false))]
    fn cook<'py>(
        &self,
        py: Python<'py>,
        out: PathBuf,
        seed: Option<u64>,
        force: bool,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        crate::cook::cook(py, self, &out, seed, force)
    }

    /// The identity diff of this project's generation against `other`'s (a `Project`, or the
    /// path of a cooked bundle folder), as `stagecraft diff` computes it. `seed` and
    /// `other_seed` replace the manifests' seeds.
    #[pyo3(signature = (other, seed=None, other_seed=None))]
    fn diff(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        seed: Option<u64>,
        other_seed: Option<u64>,
    ) -> PyResult<crate::diff::Diff> {
        crate::diff::diff(py, self, other, seed, other_seed)
    }

    fn __repr__(&self) -> String {
        format!(
            "<stagecraft.Project {:?} at {}>",
            self.name().unwrap_or_default(),
            self.path.display()
        )
    }
}

impl Project {
    /// The documents, or a `ProjectError` (`doing`: what does not happen) when any diagnostic is
    /// an error.
    pub(crate) fn documents(&self, doing: &str) -> PyResult<&Documents> {
        match self.loaded.project.as_ref() {
            Some(project) if !has_errors(&self.loaded.diagnostics) => Ok(project),
            _ => {
                let errors: Vec<RuntimeDiagnostic> = self
                    .loaded
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .cloned()
                    .collect();
                Err(project_error(
                    &format!("the project has errors; {doing}"),
                    &errors,
                ))
            }
        }
    }

    /// The generated content of `scenario`: kept from an earlier `Simulation` of it, or generated
    /// now (and kept).
    pub(crate) fn scenario_content(
        &self,
        py: Python<'_>,
        scenario: &Scenario,
    ) -> Result<ScenarioContent, ScenarioError> {
        let kept = self.contents.lock().ok();
        if let Some(content) = kept.as_ref().and_then(|m| m.get(&scenario.id)) {
            return Ok(content.clone());
        }
        drop(kept);
        let content =
            py.detach(|| ScenarioContent::generate(&self.loaded, scenario, &Registry::standard()))?;
        if let Ok(mut kept) = self.contents.lock() {
            kept.insert(scenario.id.clone(), content.clone());
        }
        Ok(content)
    }

    /// The compiled plan of recipe `id`, or a `ProjectError` with the compiler's diagnostics.
    pub(crate) fn plan(&self, id: &str) -> PyResult<CompiledPlan> {
        let Some(outcome) = compile_project_recipe(&self.loaded, id, &Registry::standard()) else {
            return Err(error(format!("recipe `{id}` could not be read")));
        };
        outcome.plan.ok_or_else(|| {
            project_error(
                &format!("the recipe `{id}` does not compile"),
                &outcome.diagnostics,
            )
        })
    }
}

/// Generates `plan` at `seed` with `overrides` on the parallel executor (as `stagecraft
/// generate` does); a generation failure is a `StagecraftError`.
pub(crate) fn generate_bundle(
    plan: &CompiledPlan,
    seed: u64,
    overrides: &Overrides,
) -> PyResult<Arc<GeneratedBundle>> {
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    Generator::new()
        .generate_with(plan, &request, overrides, &CancelToken::new(), &NoObserver)
        .map(|generated| generated.bundle)
        .map_err(|e| error(format!("recipe `{}`: {e}", plan.recipe_id())))
}
