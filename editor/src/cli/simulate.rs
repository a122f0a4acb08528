//! `stagecraft simulate`: run one scenario headless over freshly generated content and print its
//! counters and final state digest.
//!
//! The scenario's recipe is compiled and generated through the same runtime entry points as
//! `stagecraft generate` (`compile_project_recipe`, `Generator::generate`); the world is then
//! built entirely in the runtime (`SimSpace::from_products`, `CompiledScenario::compile`,
//! `build_world`), exactly as the editor's session builds it, so the final digest equals the
//! Timeline's at the same frame.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use stagecraft_runtime::generate::{
    CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, Generator, NoObserver,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{has_errors, Diagnostic, Project, ProjectSources, Scenario};
use stagecraft_runtime::recipe::compile_project_recipe;
use stagecraft_runtime::sim::{build_world, CompiledScenario, Counters, SimSpace, World};

use super::diagnostics::{diagnostic_json, render_diagnostic};
use super::load;

/// Frames between counter rows in the text report, unless `--every` says otherwise.
pub const DEFAULT_EVERY_FRAMES: u64 = 60;

/// Options of `stagecraft simulate`.
#[derive(Debug, Clone, Default)]
pub struct SimulateOptions<'a> {
    /// The scenario to run.
    pub scenario: &'a str,
    /// Frames to simulate (default: the scenario's duration).
    pub frames: Option<u64>,
    /// Frames between counter rows in the text report (0: no rows, only the summary).
    pub every: Option<u64>,
    /// JSON report (with the counters of every frame).
    pub json: bool,
}

/// `stagecraft simulate`: exit 0 when the scenario ran, 1 when the project has errors or its
/// content or world cannot be built; an unknown scenario is an error that lists the known ones.
pub fn simulate(
    project: &Path,
    options: &SimulateOptions<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let (sources, loaded) = load(project)?;
    let Some(project_doc) = loaded
        .project
        .as_ref()
        .filter(|_| !has_errors(&loaded.diagnostics))
    else {
        let errors: Vec<Diagnostic> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect();
        let message = "the project has errors; nothing simulated";
        return refuse_with(out, options.json, message, &errors, &sources);
    };
    let scenario = scenario_of(project_doc, options.scenario)?;
    let Some(outcome) = compile_project_recipe(&loaded, &scenario.recipe, &Registry::standard())
    else {
        anyhow::bail!(
            "the scenario's recipe `{}` could not be read",
            scenario.recipe
        );
    };
    let Some(plan) = outcome.plan else {
        let message = format!("the recipe `{}` does not compile", scenario.recipe);
        return refuse_with(out, options.json, &message, &outcome.diagnostics, &sources);
    };
    let request = GenerateRequest {
        root_seed: project_doc.manifest.root_seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let generated =
        match Generator::new().generate(&plan, &request, &CancelToken::new(), &NoObserver) {
            Ok(generated) => generated,
            Err(error) => {
                let message = format!("recipe {}: {error}", scenario.recipe);
                return refuse(out, options.json, &message, serde_json::json!([]));
            }
        };
    let world = match world_of(&generated.bundle, project_doc, scenario) {
        Ok(world) => world,
        Err(message) => return refuse(out, options.json, &message, serde_json::json!([])),
    };
    let frames = options.frames.unwrap_or(scenario.duration_frames);
    let run = Run::new(project, scenario, &generated.bundle, world, frames);
    if options.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&run.json())?)?;
    } else {
        let every = options.every.unwrap_or(DEFAULT_EVERY_FRAMES);
        out.write_all(run.text(every).as_bytes())?;
    }
    Ok(0)
}

/// The scenario `id`, or an error that lists the project's scenarios.
fn scenario_of<'p>(project: &'p Project, id: &str) -> anyhow::Result<&'p Scenario> {
    project.scenarios.get(id).with_context(|| {
        let known: Vec<&str> = project.scenarios.keys().map(String::as_str).collect();
        format!(
            "the project has no scenario `{id}`; its scenarios: {}",
            if known.is_empty() {
                "(none)".to_owned()
            } else {
                known.join(", ")
            }
        )
    })
}

/// The world of `scenario` over `bundle`, built by the runtime as the editor builds it.
fn world_of(
    bundle: &GeneratedBundle,
    project: &Project,
    scenario: &Scenario,
) -> Result<World, String> {
    let space = SimSpace::from_products(bundle.products(), &project.families).map_err(|e| {
        format!(
            "the content of `{}` cannot be simulated: {e}",
            bundle.recipe_id
        )
    })?;
    let compiled = CompiledScenario::compile(scenario).map_err(|e| e.to_string())?;
    build_world(
        &Arc::new(space),
        &Arc::new(compiled),
        project.manifest.root_seed,
    )
    .map_err(|e| e.to_string())
}

/// Prints `diagnostics` (with their source lines) and why nothing was simulated; exit code 1.
fn refuse_with(
    out: &mut dyn Write,
    json: bool,
    message: &str,
    diagnostics: &[Diagnostic],
    sources: &ProjectSources,
) -> anyhow::Result<i32> {
    if !json {
        for diagnostic in diagnostics {
            let source = sources.files.get(&diagnostic.file);
            write!(out, "{}", render_diagnostic(diagnostic, source))?;
        }
    }
    let items = diagnostics.iter().map(diagnostic_json).collect();
    refuse(out, json, message, serde_json::Value::Array(items))
}

/// Prints why nothing was simulated and returns exit code 1.
fn refuse(
    out: &mut dyn Write,
    json: bool,
    message: &str,
    diagnostics: serde_json::Value,
) -> anyhow::Result<i32> {
    if json {
        let report = serde_json::json!({ "error": message, "diagnostics": diagnostics });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(out, "error: {message}")?;
    }
    Ok(1)
}

/// A finished run: what it ran on and the counters of every frame.
struct Run {
    header: String,
    scenario: String,
    recipe: String,
    bundle_digest: String,
    seed: u64,
    fixed_step_s: f64,
    history: Vec<Counters>,
    world: World,
}

impl Run {
    fn new(
        project: &Path,
        scenario: &Scenario,
        bundle: &GeneratedBundle,
        mut world: World,
        frames: u64,
    ) -> Run {
        let mut history = Vec::new();
        for _ in 0..frames {
            world.step();
            history.push(world.counters());
        }
        Run {
            header: project.display().to_string(),
            scenario: scenario.id.clone(),
            recipe: bundle.recipe_id.clone(),
            bundle_digest: bundle.digest_hex(),
            seed: world.config().seed,
            fixed_step_s: world.config().fixed_step_s,
            history,
            world,
        }
    }

    fn text(&self, every: u64) -> String {
        let mut text = format!(
            "{}: scenario {} over recipe {} (bundle {}), seed {}, step {} s\n",
            self.header,
            self.scenario,
            self.recipe,
            self.bundle_digest,
            self.seed,
            self.fixed_step_s
        );
        let names = Counters::default().rows().map(|(name, _)| name);
        text.push_str(&format!("{:>7}", "frame"));
        for name in names {
            text.push_str(&format!("  {name}"));
        }
        text.push('\n');
        for (index, counters) in self.history.iter().enumerate() {
            let frame = index as u64 + 1;
            let last = index + 1 == self.history.len();
            if !(last || (every > 0 && frame.is_multiple_of(every))) {
                continue;
            }
            text.push_str(&format!("{frame:>7}"));
            for ((name, value), _) in counters.rows().iter().zip(names) {
                text.push_str(&format!("  {value:>width$}", width = name.len()));
            }
            text.push('\n');
        }
        let world = &self.world;
        text.push_str(&format!(
            "frame {} ({:.2} s), {} agents\n",
            world.frame(),
            world.time_s(),
            world.agents().len()
        ));
        text.push_str(&format!("state digest {}\n", world.state_digest_hex()));
        text
    }

    fn json(&self) -> serde_json::Value {
        let counters = |c: &Counters| {
            serde_json::Value::Object(
                c.rows()
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), serde_json::json!(value)))
                    .collect(),
            )
        };
        serde_json::json!({
            "project": self.header,
            "scenario": self.scenario,
            "recipe": self.recipe,
            "bundle_digest": self.bundle_digest,
            "seed": self.seed,
            "fixed_step_s": self.fixed_step_s,
            "frame": self.world.frame(),
            "agents": self.world.agents().len(),
            "frames": self.history.iter().map(counters).collect::<Vec<_>>(),
            "final": counters(&self.world.counters()),
            "state_digest": self.world.state_digest_hex(),
        })
    }
}
