//! `stagecraft generate`: headless generation with counts, timings and the bundle digest, and
//! product export as canonical RON or JSON.
//!
//! Timings are measured here, at the binary's edge: the runtime reads no clock and reports stage
//! starts and ends through an observer — the editor's [`StageObserver`], the same one the
//! generation service uses. When stderr is a terminal (and not `--quiet`), a progress bar on it
//! follows the executor's stages and candidates.
//!
//! A recipe that does not compile or generate is reported in `--json`'s document (exit 1); for
//! people its diagnostics and error go to stderr after the report of the others.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::ProgressDrawTarget;
use stagecraft_runtime::generate::export::bundle_doc;
use stagecraft_runtime::generate::{
    worker_threads, CacheOutcome, CancelToken, ExecutionMode, GenerateError, GenerateRequest,
    Generated, Generator,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::write::{to_canonical_string, Doc};
use stagecraft_runtime::project::{has_errors, Diagnostic, LoadedProject, Project, ProjectSources};
use stagecraft_runtime::recipe::{compile_project_recipe, CompiledPlan};

use super::diagnostics::{diagnostic_json, render_all};
use super::error::CliError;
use super::identity::identity_text;
use super::progress::{progress_bar, show_progress};
use crate::service::{StageObserver, StageTiming};

/// Options of `stagecraft generate`.
#[derive(Debug, Clone, Default)]
pub struct GenerateOptions<'a> {
    /// Only this recipe (default: every recipe of the manifest).
    pub recipe: Option<&'a str>,
    /// Root seed instead of the manifest's.
    pub seed: Option<u64>,
    /// Where to write the products.
    pub out: Option<&'a Path>,
    /// JSON report on stdout and JSON products in `out`.
    pub json: bool,
    /// Run the serial reference executor instead of the parallel one.
    pub serial: bool,
    /// The memory budget in MiB plans must fit (default: the runtime's).
    pub memory_budget_mib: Option<u64>,
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// `stagecraft generate`: exit 0 when every selected recipe generated, 1 on project, compile or
/// generation errors.
pub fn generate(
    project: &Path,
    options: &GenerateOptions<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let load_start = Instant::now();
    let registry = super::registry(options.memory_budget_mib);
    let (sources, loaded) = super::load_with(project, &registry)?;
    let load_time = load_start.elapsed();
    let Some(project_doc) = loaded
        .project
        .as_ref()
        .filter(|_| !has_errors(&loaded.diagnostics))
    else {
        return Err(project_errors(project, &sources, &loaded.diagnostics));
    };
    let recipes = selected_recipes(options, project_doc)?;
    let seed = options.seed.unwrap_or(project_doc.manifest.root_seed);
    let run = RecipeRun {
        options,
        loaded: &loaded,
        project_doc,
        sources: &sources,
        registry: &registry,
        request: GenerateRequest {
            root_seed: seed,
            mode: if options.serial {
                ExecutionMode::Serial
            } else {
                ExecutionMode::Parallel
            },
            generation: 0,
        },
    };
    let mut report = GenerateReport::default();
    report.text.push_str(&format!(
        "{}: seed {seed}, {} executor, {} threads, loaded in {:.2} ms\n",
        project.display(),
        if options.serial { "serial" } else { "parallel" },
        worker_threads(),
        ms(load_time)
    ));
    for id in &recipes {
        run.generate_recipe(id, &mut report)?;
    }
    if options.json {
        let json = serde_json::json!({
            "project": project.display().to_string(),
            "seed": seed,
            "threads": worker_threads(),
            "serial": options.serial,
            "load_ms": ms(load_time),
            "peak_resident_mib": peak_resident_mib(),
            "recipes": report.reports,
        });
        super::json_out::write_document(out, "generate", &json)?;
    } else {
        out.write_all(report.text.as_bytes())?;
        if !report.failures.is_empty() {
            let error = CliError::new(1, "recipe_failed", report.failures.join("\n"))
                .with_diagnostics(&report.failed_diagnostics, &sources);
            return Err(error.into());
        }
    }
    Ok(report.exit)
}

/// The recipes `--recipe` selects (default: the manifest's), refused before any work when `--out`
/// cannot be written or would receive several recipes.
fn selected_recipes(
    options: &GenerateOptions<'_>,
    project_doc: &Project,
) -> anyhow::Result<Vec<String>> {
    let recipes: Vec<String> = match options.recipe {
        Some(id) if project_doc.recipes.contains_key(id) => vec![id.to_owned()],
        Some(id) => anyhow::bail!(
            "the project has no recipe `{id}`; its recipes are: {}",
            super::known_ids(project_doc.recipes.keys())
        ),
        None => project_doc.manifest.recipes.clone(),
    };
    if let Some(path) = options.out {
        // Refused before any work, by the rule every output follows.
        crate::output_file::output_file_kind(path)?;
    }
    if options.out.is_some() && recipes.len() != 1 {
        anyhow::bail!("--out writes one recipe's products; choose one with --recipe");
    }
    Ok(recipes)
}

/// What the runs of the selected recipes gather: the text for people, the `--json` reports and,
/// for stderr, what failed (diagnostics of recipes that do not compile, generation errors).
#[derive(Default)]
struct GenerateReport {
    text: String,
    reports: Vec<serde_json::Value>,
    exit: i32,
    failed_diagnostics: Vec<Diagnostic>,
    failures: Vec<String>,
}

/// What every recipe's run shares.
struct RecipeRun<'a> {
    options: &'a GenerateOptions<'a>,
    loaded: &'a LoadedProject,
    project_doc: &'a Project,
    sources: &'a ProjectSources,
    registry: &'a Registry,
    request: GenerateRequest,
}

impl RecipeRun<'_> {
    /// Compiles and generates recipe `id`, adding its outcome to `report`.
    fn generate_recipe(&self, id: &str, report: &mut GenerateReport) -> anyhow::Result<()> {
        let compile_start = Instant::now();
        let Some(outcome) = compile_project_recipe(self.loaded, id, self.registry) else {
            anyhow::bail!("recipe `{id}` could not be read");
        };
        let compile_time = compile_start.elapsed();
        let Some(plan) = outcome.plan else {
            report.exit = 1;
            report
                .failures
                .push(format!("recipe `{id}` does not compile"));
            report
                .failed_diagnostics
                .extend(outcome.diagnostics.iter().cloned());
            report.reports.push(serde_json::json!({
                "recipe": id,
                "diagnostics": outcome.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
            }));
            return Ok(());
        };
        // A compiled recipe's warnings stay in the report.
        report
            .text
            .push_str(&render_all(&outcome.diagnostics, self.sources));
        let (result, timer, generate_time) = self.run_plan(id, &plan);
        match result {
            Ok(generated) => {
                let timings = timer.timings();
                report.text.push_str(&recipe_text(
                    id,
                    &generated,
                    &timings,
                    compile_time,
                    generate_time,
                ));
                report.reports.push(recipe_json(
                    id,
                    &generated,
                    &timings,
                    compile_time,
                    generate_time,
                ));
                if let Some(path) = self.options.out {
                    write_products(path, &generated, self.options.json)?;
                    report
                        .text
                        .push_str(&format!("  products written to {}\n", path.display()));
                }
            }
            Err(error) => record_generate_error(id, &error, report),
        }
        Ok(())
    }

    /// Generates `plan` under a stage timer, with a progress bar on stderr where a person
    /// watches; returns the result, the timer and the generation's wall time.
    fn run_plan(
        &self,
        id: &str,
        plan: &CompiledPlan,
    ) -> (Result<Generated, GenerateError>, StageObserver, Duration) {
        let mut timer = StageObserver::new(plan);
        // The bar only where a person watches: stderr a terminal, not `--quiet`, not JSON.
        let bar = (!self.options.json && super::entry::progress_wanted())
            .then(|| progress_bar(id, timer.progress(), ProgressDrawTarget::stderr()));
        if let Some(bar) = &bar {
            bar.enable_steady_tick(Duration::from_millis(120));
            let shown = bar.clone();
            timer = timer.with_hook(Box::new(move |progress| show_progress(&shown, progress)));
        }
        let overrides = Overrides::of_recipe(self.project_doc, id);
        let generate_start = Instant::now();
        let result = Generator::new().generate_with(
            plan,
            &self.request,
            &overrides,
            &CancelToken::new(),
            &timer,
        );
        let generate_time = generate_start.elapsed();
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        (result, timer, generate_time)
    }
}

/// Writes the products of `generated` to `path`: canonical RON, or the JSON products document.
fn write_products(path: &Path, generated: &Generated, json: bool) -> anyhow::Result<()> {
    let doc = bundle_doc(&generated.bundle);
    let bytes = if json {
        let document = super::json_out::document("products", &doc_to_json(&doc))?;
        let mut json = serde_json::to_string_pretty(&document)?;
        json.push('\n');
        json
    } else {
        to_canonical_string(&doc)
    };
    crate::output_file::write_output_file(path, bytes.as_bytes())?;
    Ok(())
}

/// Records a recipe whose generation failed: every failure for stderr, cause first, and the
/// `--json` report.
fn record_generate_error(id: &str, error: &GenerateError, report: &mut GenerateReport) {
    report.exit = 1;
    let mut failure = format!("recipe {id}: {error}");
    for more in error.failures.iter().skip(1) {
        failure.push_str(&format!("\n  {more}"));
    }
    report.failures.push(failure);
    report.reports.push(serde_json::json!({
        "recipe": id,
        "error": error.to_string(),
        "failures": error.failures.iter().map(|f| serde_json::json!({
            "stage": f.stage,
            "kind": f.kind.name(),
            "field": f.field,
            "message": f.message,
        })).collect::<Vec<_>>(),
    }));
}

/// The project's errors as the command's failure (exit 1), located at the first error.
fn project_errors(
    project: &Path,
    sources: &ProjectSources,
    diagnostics: &[Diagnostic],
) -> anyhow::Error {
    let message = format!(
        "{}: the project has errors; nothing generated",
        project.display()
    );
    CliError::new(1, "project_errors", message)
        .with_diagnostics(diagnostics, sources)
        .into()
}

type Timings = BTreeMap<u32, StageTiming>;

/// The time and cache outcome of `stage` (a stage the observer never heard of reads as a hit
/// that took no time).
fn timing(timings: &Timings, stage: u32) -> (Duration, CacheOutcome) {
    timings
        .get(&stage)
        .map_or((Duration::ZERO, CacheOutcome::Hit), |t| {
            (t.elapsed, t.cache)
        })
}

fn cache_text(outcome: CacheOutcome) -> String {
    match outcome {
        CacheOutcome::Hit => "hit".to_owned(),
        CacheOutcome::Miss(reason) => format!("miss: {}", reason.name()),
    }
}

fn recipe_text(
    id: &str,
    generated: &Generated,
    timings: &Timings,
    compile: Duration,
    total: Duration,
) -> String {
    let bundle = &generated.bundle;
    let mut text = format!("recipe {id}: {} stages\n", bundle.stages.len());
    for stage in &bundle.stages {
        let (time, cache) = timing(timings, stage.stage);
        text.push_str(&format!(
            "  stage {} {} v{}: {} objects, {} rejected, {:.2} ms ({})\n",
            stage.stage,
            stage.operator,
            stage.algorithm,
            stage.summary.objects,
            stage.summary.rejected,
            ms(time),
            cache_text(cache)
        ));
    }
    text.push_str(&format!(
        "  compile {:.2} ms, generate {:.2} ms, {} objects\n",
        ms(compile),
        ms(total),
        bundle.object_count()
    ));
    text.push_str(&edits_text(bundle));
    text.push_str(&format!("digest {}\n", bundle.digest_hex()));
    text
}

/// One line counting the overrides and mutations applied, and one per edit not applied.
fn edits_text(bundle: &stagecraft_runtime::generate::GeneratedBundle) -> String {
    let outcomes: Vec<_> = bundle.edit_outcomes().collect();
    if outcomes.is_empty() {
        return String::new();
    }
    let applied = outcomes.iter().filter(|o| o.result.is_ok()).count();
    let mut text = format!(
        "  edits: {applied} applied, {} not applied\n",
        outcomes.len() - applied
    );
    for outcome in &outcomes {
        match &outcome.result {
            Ok(()) => {
                if let Some((ordinal, variant)) = outcome.regrow {
                    text.push_str(&format!(
                        "    {} {} {}: regrowth {ordinal}, variant {variant}\n",
                        outcome.edit,
                        outcome.action,
                        identity_text(outcome.target)
                    ));
                }
            }
            Err(reason) => text.push_str(&format!(
                "    {} {} {}: not applied ({}): {reason}\n",
                outcome.edit,
                outcome.action,
                identity_text(outcome.target),
                reason.name()
            )),
        }
    }
    text
}

/// The outcome of every edit, for `--json`.
fn edits_json(bundle: &stagecraft_runtime::generate::GeneratedBundle) -> Vec<serde_json::Value> {
    bundle
        .edit_outcomes()
        .map(|o| {
            serde_json::json!({
                "edit": o.edit.to_string(),
                "stage": o.stage,
                "target": identity_text(o.target),
                "action": o.action,
                "applied": o.result.is_ok(),
                "reason": o.result.as_ref().err().map(|r| r.name()),
                "message": o.result.as_ref().err().map(ToString::to_string),
                "regrow": o.regrow.map(|(ordinal, variant)| serde_json::json!({
                    "ordinal": ordinal,
                    "variant": variant,
                })),
            })
        })
        .collect()
}

fn recipe_json(
    id: &str,
    generated: &Generated,
    timings: &Timings,
    compile: Duration,
    total: Duration,
) -> serde_json::Value {
    let bundle = &generated.bundle;
    let stages: Vec<serde_json::Value> = bundle
        .stages
        .iter()
        .map(|stage| {
            let (time, cache) = timing(timings, stage.stage);
            serde_json::json!({
                "stage": stage.stage,
                "operator": stage.operator,
                "algorithm": stage.algorithm,
                "objects": stage.summary.objects,
                "rejected": stage.summary.rejected,
                "digest": stagecraft_runtime::content::encode::hex(&stage.digest),
                "ms": ms(time),
                "cache": cache_text(cache),
            })
        })
        .collect();
    serde_json::json!({
        "recipe": id,
        "digest": bundle.digest_hex(),
        "objects": bundle.object_count(),
        "compile_ms": ms(compile),
        "generate_ms": ms(total),
        "stages": stages,
        "edits": edits_json(bundle),
    })
}

/// A document tree as JSON: structs and maps become objects, lists and tuples arrays, `Some(x)`
/// becomes `x`, `None` becomes `null` and other unit variants their name, other variants a
/// one-key object.
pub fn doc_to_json(doc: &Doc) -> serde_json::Value {
    use serde_json::Value;
    match doc {
        Doc::Bool(value) => Value::Bool(*value),
        Doc::Int(value) => match (i64::try_from(*value), u64::try_from(*value)) {
            (Ok(v), _) => Value::from(v),
            (_, Ok(v)) => Value::from(v),
            _ => Value::String(value.to_string()),
        },
        Doc::Float(value) => {
            serde_json::Number::from_f64(*value).map_or(Value::Null, Value::Number)
        }
        Doc::Str(text) => Value::String(text.clone()),
        Doc::List(items) | Doc::Tuple(items) => {
            Value::Array(items.iter().map(doc_to_json).collect())
        }
        Doc::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(key, value)| {
                    let key = match key {
                        Doc::Str(text) => text.clone(),
                        other => doc_to_json(other).to_string(),
                    };
                    (key, doc_to_json(value))
                })
                .collect(),
        ),
        Doc::Struct(_, fields) => Value::Object(
            fields
                .iter()
                .map(|(name, value)| ((*name).to_owned(), doc_to_json(value)))
                .collect(),
        ),
        Doc::Variant("Some", items) if items.len() == 1 => doc_to_json(&items[0]),
        Doc::Variant(name, items) => {
            let inner = match items.as_slice() {
                [single] => doc_to_json(single),
                many => Value::Array(many.iter().map(doc_to_json).collect()),
            };
            Value::Object([((*name).to_owned(), inner)].into_iter().collect())
        }
        Doc::Unit("None") => Value::Null,
        Doc::Unit(name) => Value::String((*name).to_owned()),
    }
}

/// The process's peak resident memory so far in MiB (`VmHWM` of `/proc/self/status`); `None`
/// where the system does not say (not Linux). `--json` reports it, so a run of the command
/// measures its own peak.
fn peak_resident_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
