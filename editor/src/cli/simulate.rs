//! `stagecraft simulate`: run one scenario headless over freshly generated content and print its
//! counters and final state digest.
//!
//! The scenario's content and world come from `stagecraft_io::scenario` (shared with Python's
//! `Simulation`): the recipe generated at the manifest's seed with its override sets, as
//! `stagecraft generate` and the editor's preview generate it, and the world built in the runtime
//! as the editor's session builds it, so the final digest equals the Timeline's at the same frame.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use stagecraft_io::scenario::{find_scenario, ScenarioContent, ScenarioError};
use stagecraft_runtime::generate::GeneratedBundle;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    has_errors, Diagnostic, LoadedProject, ProjectSources, Scenario,
};
use stagecraft_runtime::recipe::check_scenario_run;
use stagecraft_runtime::sim::{
    CounterHistory, Counters, MotionCounters, World, MAX_HISTORY_FRAMES,
};

use stagecraft_runtime::export::events::events_json_text;
use stagecraft_runtime::export::sources::{SourceFrameJson, SourceSampler, MAX_SOURCE_SAMPLES};

use super::diagnostics::escape_controls;
use super::error::CliError;
use super::json_out::snake_key;
use super::load_with;
use super::simulate_variant::Variant;
use super::trajectories::{self, TrajectoryArgs, TrajectoryRecorder};

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
    /// Where to write the final event log as JSON.
    pub events: Option<&'a Path>,
    /// A frame to take a snapshot at.
    pub snapshot_at: Option<u64>,
    /// Restore that snapshot into a fresh world and finish the run from it.
    pub restore: bool,
    /// Write a snapshot file at `snapshot_at` (or at the run's last frame without it).
    pub save_snapshot: Option<&'a Path>,
    /// Start from this snapshot file's frame instead of frame 0 (the run still ends at
    /// `frames`).
    pub from_snapshot: Option<&'a Path>,
    /// Refuse a run whose memory estimate is past this many MiB (default 8192), as `check`.
    pub memory_budget_mib: Option<u64>,
    /// Most frames whose counters the report keeps (default `MAX_HISTORY_FRAMES`); a longer run
    /// keeps every other one each time it fills up, so memory stays bounded.
    pub history_frames: Option<usize>,
    /// Where to write the trajectories, and every how many frames (`cli::trajectories`).
    pub trajectories: TrajectoryArgs,
    /// `--seed N` (the world's seed) and `--set STAGE.PARAM=VALUE` edits (`cli::simulate_variant`).
    pub variant: Variant<'a>,
    /// Threads the steps use (`cli::sim_threads`; default: the global pool, every core; one core
    /// fewer while trajectories are recorded).
    pub threads: Option<usize>,
}

/// Runs at least this many frames show a progress bar (when stderr is a terminal).
pub const PROGRESS_MIN_FRAMES: u64 = 2000;

/// `stagecraft simulate`: exit 0 when the scenario ran, 1 when the project has errors, the run
/// is past the simulation's work ceiling or memory budget (a located diagnostic, as `check`
/// reports for the scenario's own length), or its content or world cannot be built; an unknown
/// scenario is an error that lists the known ones.
pub fn simulate(
    project: &Path,
    options: &SimulateOptions<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let registry = super::registry(options.memory_budget_mib);
    let (sources, mut loaded) = load_with(project, &registry)?;
    if !has_errors(&loaded.diagnostics) {
        options
            .variant
            .edit(&mut loaded)
            .map_err(|e| CliError::new(2, "bad_set", format!("{e:#}")))?;
    }
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
        return refuse_with("project_errors", message, &errors, &sources);
    };
    let scenario = find_scenario(project_doc, options.scenario)?;
    check_output_paths(options)?;
    let frames = options.frames.unwrap_or(scenario.duration_frames);
    let over_budget = check_scenario_run(&loaded, &scenario.id, frames, &registry);
    if !over_budget.is_empty() {
        let message = format!("a run of {frames} frames of `{}` is refused", scenario.id);
        return refuse_with("over_budget", &message, &over_budget, &sources);
    }
    let content = options
        .variant
        .reseed(scenario_content(&loaded, scenario, &registry, &sources)?);
    let world = starting_world(&content, options.from_snapshot, frames)?;
    let fresh = if options.restore {
        match content.world() {
            Ok(world) => Some(world),
            Err(error) => return refuse(&error.to_string()),
        }
    } else {
        None
    };
    let recorder = recorder_of(&options.trajectories, scenario, &content.bundle, &world)?;
    let plan = RunPlan {
        frames,
        snapshot_at: options.snapshot_at,
        restore_into: fresh,
        save_to: options.save_snapshot,
        history_frames: options.history_frames.unwrap_or(MAX_HISTORY_FRAMES),
        every: options.every.unwrap_or(DEFAULT_EVERY_FRAMES),
        pool: super::sim_threads::run_pool(options.threads, recorder.is_some())?,
        recorder,
    };
    let mut run = match Run::new(project, scenario, &content.bundle, world, plan) {
        Ok(run) => run,
        Err(message) => return refuse(&message),
    };
    let trajectories = run
        .recorder
        .take()
        .map(TrajectoryRecorder::finish)
        .transpose()?;
    write_reports(&run, trajectories.as_ref(), options, out)?;
    Ok(0)
}

/// Refuses, before any work, an event log or trajectories path no output may take (by the
/// rule every output follows).
fn check_output_paths(options: &SimulateOptions<'_>) -> anyhow::Result<()> {
    if let Some(path) = options.events {
        // Refused before any work, by the rule every output follows.
        crate::output_file::output_file_kind(path).context("cannot write the event log")?;
    }
    if let Some(path) = &options.trajectories.trajectories {
        trajectories::TrajectoryFormat::of_path(path)?;
        crate::output_file::output_file_kind(path).context("cannot write the trajectories")?;
    }
    Ok(())
}

/// The scenario's content, generated as the preview generates it; a recipe that does not
/// compile is refused with its diagnostics.
fn scenario_content(
    loaded: &LoadedProject,
    scenario: &Scenario,
    registry: &Registry,
    sources: &ProjectSources,
) -> anyhow::Result<ScenarioContent> {
    match ScenarioContent::generate(loaded, scenario, registry) {
        Ok(content) => Ok(content),
        Err(ScenarioError::RecipeUnreadable { recipe }) => {
            anyhow::bail!("the scenario's recipe `{recipe}` could not be read")
        }
        Err(ScenarioError::RecipeErrors {
            recipe,
            diagnostics,
        }) => {
            let message = format!("the recipe `{recipe}` does not compile");
            refuse_with("recipe_errors", &message, &diagnostics, sources)
        }
        Err(error) => refuse(&error.to_string()),
    }
}

/// The world the run starts from: a fresh one, or the one `--from-snapshot` restores (refused
/// when its frame is past the run's last).
fn starting_world(
    content: &ScenarioContent,
    from_snapshot: Option<&Path>,
    frames: u64,
) -> anyhow::Result<World> {
    let mut world = match content.world() {
        Ok(world) => world,
        Err(error) => return refuse(&error.to_string()),
    };
    if let Some(path) = from_snapshot {
        if let Err(error) = crate::snapshot_file::restore_snapshot(&mut world, path) {
            let message = format!("{error:#}");
            return refuse(&message);
        }
        if world.frame() > frames {
            let message = format!(
                "the snapshot's frame {} is past the run's last frame {frames} (--frames)",
                world.frame()
            );
            return refuse(&message);
        }
    }
    Ok(world)
}

/// Writes the event log where `--events` asks, then the report (JSON or text) to `out`.
fn write_reports(
    run: &Run,
    trajectories: Option<&trajectories::TrajectorySummary>,
    options: &SimulateOptions<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if let Some(path) = options.events {
        crate::output_file::write_output_file(path, events_text(&run.world).as_bytes())
            .context("cannot write the event log")?;
    }
    if options.json {
        let mut report = run.json();
        if let Some(summary) = trajectories {
            report["trajectories"] = summary.json();
        }
        super::json_out::write_document(out, "simulate", &report)?;
    } else {
        let every = options.every.unwrap_or(DEFAULT_EVERY_FRAMES);
        out.write_all(run.text(every).as_bytes())?;
        if let Some(summary) = trajectories {
            out.write_all(summary.text().as_bytes())?;
        }
    }
    Ok(())
}

/// The trajectory recorder `--trajectories` asks for (its file staged, its writer started),
/// with the walkable area of the content's walkways.
fn recorder_of(
    args: &TrajectoryArgs,
    scenario: &Scenario,
    bundle: &GeneratedBundle,
    world: &World,
) -> anyhow::Result<Option<TrajectoryRecorder>> {
    let Some(path) = &args.trajectories else {
        return Ok(None);
    };
    let info = trajectories::RunInfo {
        scenario: scenario.id.clone(),
        seed: world.config().seed,
        fixed_step_s: world.config().fixed_step_s,
        every_frames: args.trajectory_every.unwrap_or(1).max(1),
        walkable: trajectories::geometry::walkways_of(bundle.products().map(|(_, p)| p)),
    };
    TrajectoryRecorder::start(path, info).map(Some)
}

/// Why nothing was simulated, with the diagnostics behind it: a [`CliError`] with exit code 1.
fn refuse_with<T>(
    code: &'static str,
    message: &str,
    diagnostics: &[Diagnostic],
    sources: &ProjectSources,
) -> anyhow::Result<T> {
    Err(CliError::new(1, code, message)
        .with_diagnostics(diagnostics, sources)
        .into())
}

/// Why nothing was simulated: a [`CliError`] with exit code 1.
fn refuse<T>(message: &str) -> anyhow::Result<T> {
    Err(CliError::new(1, "refused", message).into())
}

/// How a run goes: its length, an optional snapshot (restored into a fresh world or saved to a
/// file), how many frames of counters it keeps and how often it samples the sources' counts.
struct RunPlan<'a> {
    frames: u64,
    snapshot_at: Option<u64>,
    restore_into: Option<World>,
    save_to: Option<&'a Path>,
    history_frames: usize,
    every: u64,
    /// Records the sampled frames' trajectories (`--trajectories`).
    recorder: Option<TrajectoryRecorder>,
    /// The pool the steps run on (`--threads`; `None`: the global pool).
    pool: Option<rayon::ThreadPool>,
}

/// The event log as JSON text (`docs/events.md`): every held event in the order it happened,
/// with its position and structured detail, and the dropped counts per kind.
pub fn events_text(world: &World) -> String {
    let sources: Vec<&str> = world
        .config()
        .sources
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    events_json_text(world.events(), &sources)
}

/// A progress bar on stderr for a long run, hidden when stderr is not a terminal.
fn progress(frames: u64) -> indicatif::ProgressBar {
    if frames < PROGRESS_MIN_FRAMES || !super::entry::progress_wanted() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(frames);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("simulate {bar:40} {pos}/{len} frames {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// A finished run: what it ran on and the counters of every frame.
struct Run {
    header: String,
    scenario: String,
    recipe: String,
    bundle_digest: String,
    seed: u64,
    fixed_step_s: f64,
    /// The counters and the Motion phase's counters of the kept frames (every frame until the
    /// history fills up, then every `stride`-th): bounded however long the run.
    history: CounterHistory,
    /// The sources' counts every `--every` frames and at the last one.
    source_frames: Vec<SourceFrameJson>,
    /// Frames between two of them (doubled when a long run fills the sampler).
    source_every: u64,
    world: World,
    /// The trajectory recorder, to be finished.
    recorder: Option<TrajectoryRecorder>,
}

/// The frames of a run after its first: each step with what the frame does beside it (the
/// snapshot at `--snapshot-at`, the trajectory recorder, the counters' history, the sources'
/// sampler, the progress bar), on the thread [`Run::new`] runs it on.
fn step_frames(
    world: &mut World,
    plan: &mut RunPlan<'_>,
    history: &mut CounterHistory,
    sampler: &mut SourceSampler,
    bar: &indicatif::ProgressBar,
) -> Result<(), String> {
    while world.frame() < plan.frames {
        if plan.snapshot_at == Some(world.frame()) {
            if let Some(path) = plan.save_to.take() {
                save_snapshot_file(world, path)?;
            }
            let snapshot = world.snapshot();
            if let Some(mut fresh) = plan.restore_into.take() {
                fresh.restore(&snapshot).map_err(|e| {
                    format!(
                        "the snapshot at frame {} cannot be restored: {e}",
                        snapshot.frame()
                    )
                })?;
                *world = fresh;
            }
        }
        world.step();
        if let Some(recorder) = &mut plan.recorder {
            recorder.record(world);
        }
        history.record(world.frame(), world.counters(), world.motion_counters());
        sampler.observe(world);
        history.record_crossings(world.frame(), world.crossing_sample());
        bar.inc(1);
    }
    Ok(())
}

impl Run {
    fn new(
        project: &Path,
        scenario: &Scenario,
        bundle: &GeneratedBundle,
        mut world: World,
        mut plan: RunPlan<'_>,
    ) -> Result<Run, String> {
        let mut history = CounterHistory::with_capacity_frames(plan.history_frames);
        let mut sampler = SourceSampler::new(plan.every, MAX_SOURCE_SAMPLES, &world);
        let bar = progress(plan.frames);
        if let Some(recorder) = &mut plan.recorder {
            recorder.record(&world);
        }
        // A run from a snapshot file starts at its frame and still ends at `frames`.
        let start = world.frame();
        let pool = plan.pool.take();
        super::sim_threads::run_on(pool.as_ref(), || {
            step_frames(&mut world, &mut plan, &mut history, &mut sampler, &bar)
        })?;
        bar.finish_and_clear();
        if let Some(path) = plan.save_to {
            if plan.snapshot_at.is_some_and(|at| at != world.frame()) {
                return Err(format!(
                    "--snapshot-at {} is not within the run's frames {}..={}: no snapshot saved",
                    plan.snapshot_at.unwrap_or(0),
                    start,
                    plan.frames
                ));
            }
            save_snapshot_file(&world, path)?;
        }
        if plan.restore_into.is_some() {
            return Err(format!(
                "--snapshot-at {} is not within the run's {} frames",
                plan.snapshot_at.unwrap_or(0),
                plan.frames
            ));
        }
        Ok(Run {
            header: project.display().to_string(),
            scenario: scenario.id.clone(),
            recipe: bundle.recipe_id.clone(),
            bundle_digest: bundle.digest_hex(),
            seed: world.config().seed,
            fixed_step_s: world.config().fixed_step_s,
            history,
            source_every: sampler.every_frames(),
            source_frames: sampler.finish(&world),
            world,
            recorder: plan.recorder,
        })
    }

    fn text(&self, every: u64) -> String {
        let mut text = format!(
            "{}: scenario {} over recipe {} (bundle {}), seed {}, step {} s\n",
            escape_controls(&self.header),
            escape_controls(&self.scenario),
            escape_controls(&self.recipe),
            self.bundle_digest,
            self.seed,
            self.fixed_step_s
        );
        let rows = |c: &Counters| {
            let mut rows: Vec<(&str, String)> =
                c.rows().iter().map(|(n, v)| (*n, v.to_string())).collect();
            rows.extend(c.population_rows().iter().map(|(n, v)| (*n, v.to_string())));
            rows
        };
        let shown = self.shown(every);
        let names: Vec<&str> = rows(&Counters::default()).iter().map(|(n, _)| *n).collect();
        text.push_str(&table(&names, &shown, |(_, counters, _)| rows(counters)));
        text.push_str("motion\n");
        let motion = |c: &MotionCounters| -> Vec<(&str, String)> {
            c.rows()
                .iter()
                .map(|(name, value)| (*name, motion_value(name, *value)))
                .collect()
        };
        let names: Vec<&str> = motion(&MotionCounters::default())
            .iter()
            .map(|(n, _)| *n)
            .collect();
        text.push_str(&table(&names, &shown, |(_, _, counters)| motion(counters)));
        let frames: Vec<u64> = shown.iter().map(|row| row.0).collect();
        let crossings =
            super::simulate_crossings::crossings_text(&self.history, &frames, &self.world);
        text.push_str(&crossings);
        for index in 0..world_sources(&self.world) {
            if let Some(report) = self.world.spawn_report(index) {
                text.push_str(&format!("source {}\n", escape_controls(&report.text())));
            }
        }
        let world = &self.world;
        text.push_str(&super::simulate_streaming::summary_text(world));
        text.push_str(&format!(
            "frame {} ({:.2} s), {} agents\n",
            world.frame(),
            world.time_s(),
            world.agent_count()
        ));
        text.push_str(&format!("state digest {}\n", world.state_digest_hex()));
        text
    }

    /// The frames the text report has a row for: the kept frames on `every` (none when it is 0)
    /// and the last frame of the run, each with its counters and motion counters.
    fn shown(&self, every: u64) -> Vec<(u64, Counters, MotionCounters)> {
        let mut shown: Vec<(u64, Counters, MotionCounters)> = self
            .history
            .counters()
            .iter()
            .zip(self.history.motion())
            .filter(|((frame, _), _)| every > 0 && frame.is_multiple_of(every))
            .map(|((frame, counters), (_, motion))| (*frame, *counters, *motion))
            .collect();
        let last = self.world.frame();
        let stepped = !self.history.counters().is_empty();
        if stepped && shown.last().map(|row| row.0) != Some(last) {
            shown.push((last, self.world.counters(), self.world.motion_counters()));
        }
        shown
    }

    fn json(&self) -> serde_json::Value {
        let counters = |c: &Counters| {
            serde_json::Value::Object(
                c.rows()
                    .iter()
                    .chain(c.population_rows().iter())
                    .map(|(name, value)| (snake_key(name), serde_json::json!(value)))
                    .collect(),
            )
        };
        let sources: Vec<serde_json::Value> = (0..world_sources(&self.world))
            .filter_map(|i| self.world.spawn_report(i))
            .map(|r| {
                let s = &r.status;
                serde_json::json!({
                    "id": s.id,
                    "target": s.target,
                    "ambient": s.ambient,
                    "mission": s.mission,
                    "attached": s.attached,
                    "pending": s.pending.is_some(),
                    "pooled": s.pooled,
                    "quarantined": s.quarantined,
                    "rejections": r.rejections.iter().map(|(reason, n)| serde_json::json!([format!("{reason:?}"), n])).collect::<Vec<_>>(),
                    "summary": r.text(),
                })
            })
            .collect();
        let (ped_debt, vehicle_debt) = self.world.cycle_debt();
        let motion = |c: &MotionCounters| {
            serde_json::Value::Object(
                c.rows()
                    .iter()
                    .map(|(name, value)| (snake_key(name), serde_json::json!(value)))
                    .collect(),
            )
        };
        let [crossings, crosswalks] =
            super::simulate_crossings::crossings_json(&self.history, &self.world);
        let [hlod, governor] = super::simulate_streaming::summary_json(&self.world);
        serde_json::json!({
            "project": self.header,
            "scenario": self.scenario,
            "recipe": self.recipe,
            "bundle_digest": self.bundle_digest,
            "seed": self.seed,
            "fixed_step_s": self.fixed_step_s,
            "frame": self.world.frame(),
            "agents": self.world.agent_count(),
            "frame_stride": self.history.stride(),
            "frames": self.history.counters().iter().map(|(_, c)| counters(c)).collect::<Vec<_>>(),
            "final": counters(&self.world.counters()),
            "motion": self.history.motion().iter().map(|(_, m)| motion(m)).collect::<Vec<_>>(),
            "crossings": crossings,
            "crosswalks": crosswalks,
            "sources": sources,
            "source_frame_every": self.source_every,
            "source_frames": self.source_frames,
            "cycle_debt": { "ped": ped_debt, "vehicle": vehicle_debt },
            "hlod": hlod,
            "governor": governor,
            "state_digest": self.world.state_digest_hex(),
        })
    }
}

/// A table of named values, one row per shown frame; each column as wide as its name.
fn table<'n>(
    names: &[&str],
    shown: &[(u64, Counters, MotionCounters)],
    row: impl Fn(&(u64, Counters, MotionCounters)) -> Vec<(&'n str, String)>,
) -> String {
    let mut text = String::new();
    text.push_str(&format!("{:>7}", "frame"));
    for name in names {
        text.push_str(&format!("  {name}"));
    }
    text.push('\n');
    for entry in shown {
        text.push_str(&format!("{:>7}", entry.0));
        for ((_, value), name) in row(entry).iter().zip(names) {
            text.push_str(&format!("  {value:>width$}", width = name.len()));
        }
        text.push('\n');
    }
    text
}

/// A motion counter as the report prints it: milliseconds with three decimals, counts whole.
fn motion_value(name: &str, value: f64) -> String {
    if name.ends_with(" ms") {
        format!("{value:.3}")
    } else {
        format!("{value:.0}")
    }
}

/// Writes the snapshot file, or says why not.
fn save_snapshot_file(world: &World, path: &Path) -> Result<(), String> {
    crate::snapshot_file::save_snapshot(world, path)
        .map(|_| ())
        .map_err(|e| format!("{e:#}"))
}

fn world_sources(world: &World) -> usize {
    world.config().sources.len()
}
