//! The headless command line: one module per command (`check`, `fmt`, `generate`, `ops`,
//! `rebase`, `simulate`, `cook`, `verify`, `diff`, `export`, `completions`/`man`), sharing the
//! diagnostics rendering in [`diagnostics`], the JSON convention in [`json_out`], located
//! failures in [`error`], the generation progress bar in [`progress`] and the process-edge
//! contract (streams, `--quiet`, `--json` errors, closed pipes) in [`entry`].

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{LoadedProject, ProjectSources};

// The commands, one module each. A command never names another command's module; what two
// share lives in the modules below (`tests/tests/editor_imports.rs` reads this list).
pub mod check;
pub mod completions;
pub mod cook;
pub mod daily;
pub mod diff;
pub mod export;
pub mod fmt;
pub mod generate;
pub mod new;
pub mod ops;
pub mod rebase;
pub mod repro;
pub mod schema;
pub mod simulate;
pub mod verify;

// Shared by the commands.
pub mod diagnostics;
pub mod entry;
pub mod error;
pub mod identity;
pub mod json_out;
pub mod progress;
pub mod terminal;

// Parts of `simulate`.
pub mod sim_threads;
pub mod simulate_crossings;
pub mod simulate_streaming;
pub mod simulate_variant;
pub mod trajectories;

// Parts of `rebase`.
pub mod rebase_retarget;

pub use check::check;
pub use diagnostics::{diagnostic_json, escape_controls, render_all, render_diagnostic};
pub use fmt::{fmt, fmt_plan, fmt_with, FmtOptions, FmtStatus};
pub use generate::{generate, GenerateOptions};
pub use ops::ops;
pub use rebase::{rebase_command, RebaseOptions};
pub use simulate::{simulate, SimulateOptions};

/// Command-line arguments of the `stagecraft` binary.
#[derive(Debug, Parser)]
#[command(
    name = "stagecraft",
    version,
    about = "Authoring editor for procedural-content recipes and pedestrian scenarios",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// A headless command; without one the editor opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The project folder to open in the editor.
    pub project: Option<PathBuf>,
    /// Capture the editor window to this PNG after the first frames, then exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Open the Timeline at this simulated frame of the selected scenario.
    #[arg(long, value_name = "N")]
    pub frame: Option<u64>,
    /// Bring this dock tab to the front when the editor opens (e.g. for a screenshot).
    #[arg(long, value_name = "TAB", value_parser = crate::panels::Tab::NAMES)]
    pub tab: Option<String>,
    /// Open this scenario of the project (its id) instead of the first one.
    #[arg(long, value_name = "NAME", requires = "project")]
    pub scenario: Option<String>,
    /// Select this field of the open scenario in the Inspector (e.g. `crossings`,
    /// `motion.exits[0]`), as a screenshot of its settings needs.
    #[arg(long, value_name = "FIELD", requires = "project")]
    pub inspect: Option<String>,
    /// Aim the Viewport's camera at the ground point (X, Y) so that a circle of RADIUS meters
    /// around it fits the view, instead of framing all the content.
    #[arg(long, value_name = "X,Y,RADIUS", value_parser = parse_look_at, allow_hyphen_values = true)]
    pub look_at: Option<[f32; 3]>,
    /// Show exactly these Viewport layers, comma-separated (grid, routes, layouts, scenario,
    /// rejected, spawns, labels, tiers, panic); the others start hidden.
    #[arg(long, value_name = "LIST", value_parser = parse_layers)]
    pub layers: Option<String>,
    /// Step the Viewport through the previewed recipe up to its N-th stage in execution order
    /// (serial stepping; F10 and Shift+F10 move on and back in the editor).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub step: Option<u64>,
    /// Isolate this stage of the previewed recipe with its inputs frozen as first generated
    /// (the Viewport draws its output alone, re-run on each edit of it; F9 releases it).
    #[arg(long, value_name = "STAGE")]
    pub isolate: Option<u32>,
    /// Draw a heatmap of the last scatter stage shown over the ground: candidates, rejections,
    /// rejections:REASON (outside-region, in-keep-out, conflict) or density.
    #[arg(long, value_name = "MODE", value_parser = crate::viewport::heatmap_marks::MODE_NAMES)]
    pub heatmap: Option<String>,
    /// No progress bars, and no report on stdout from commands whose result is their exit code
    /// or their files; errors (stderr), `--json` output and printed documents stay.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
}

/// The layer names of a `--layers` list, in order (empty entries skipped).
pub fn layer_names(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A comma-separated list of the Viewport's toggleable layers, checked against their names.
fn parse_layers(text: &str) -> Result<String, String> {
    let names = crate::viewport::OverlayOptions::LAYER_NAMES;
    match layer_names(text)
        .into_iter()
        .find(|name| !names.contains(&name.as_str()))
    {
        Some(unknown) => Err(format!(
            "unknown layer `{unknown}` (layers: {})",
            names.join(", ")
        )),
        None => Ok(text.to_owned()),
    }
}

/// `X,Y,RADIUS` in meters: three finite numbers, the radius positive.
fn parse_look_at(text: &str) -> Result<[f32; 3], String> {
    let values: Vec<f32> = text
        .split(',')
        .map(|part| part.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("expected X,Y,RADIUS in meters: {e}"))?;
    match values.as_slice() {
        [x, y, r] if x.is_finite() && y.is_finite() && r.is_finite() && *r > 0.0 => {
            Ok([*x, *y, *r])
        }
        _ => Err("expected X,Y,RADIUS in meters (three finite numbers, RADIUS > 0)".to_owned()),
    }
}

/// The headless subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read and validate a project; print every diagnostic; exit 1 on any error.
    Check {
        /// The project folder.
        project: PathBuf,
        /// Print the diagnostics as JSON.
        #[arg(long)]
        json: bool,
        /// Refuse recipes and scenarios whose estimate needs more memory than this (default 8192).
        #[arg(long, value_name = "MIB")]
        memory_budget_mib: Option<u64>,
    },
    /// Create a new project from a template.
    New {
        /// The folder to create (new or empty; with --merge, a folder without a project).
        dir: PathBuf,
        /// What the project starts with.
        #[arg(long, value_enum, default_value = "street-block")]
        template: crate::document::template::Template,
        /// The project's name (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// Write into a folder that already holds other files; an existing file is never
        /// overwritten (the command refuses and writes nothing if the template names one).
        #[arg(long)]
        merge: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite a project's files in canonical form (files with errors are never rewritten).
    Fmt {
        /// The project folder.
        project: PathBuf,
        /// List the files that are not canonical and exit 1 if any, without writing.
        #[arg(long)]
        check: bool,
        /// Also rewrite files whose real location is outside the project folder (shared asset
        /// families, targets of links that lead elsewhere).
        #[arg(long)]
        allow_outside: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Generate a project's recipes; print counts, timings and each bundle digest.
    Generate {
        /// The project folder.
        project: PathBuf,
        /// Generate only this recipe (default: every recipe of the manifest).
        #[arg(long, value_name = "ID")]
        recipe: Option<String>,
        /// Root seed instead of the manifest's.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Write the products to FILE (canonical RON, or JSON with --json).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the report as JSON (and write --out as JSON).
        #[arg(long)]
        json: bool,
        /// Run the serial reference executor instead of the parallel one.
        #[arg(long)]
        serial: bool,
        /// Refuse recipes whose capacity estimate needs more memory than this (default 8192).
        #[arg(long, value_name = "MIB")]
        memory_budget_mib: Option<u64>,
    },
    /// Report where each override and world mutation stands against the generation at a seed
    /// (applies, orphaned, conflict); with --write, rebase the override sets to that seed.
    Rebase {
        /// The project folder.
        project: PathBuf,
        /// Only this recipe (default: every recipe with override sets).
        #[arg(long, value_name = "ID")]
        recipe: Option<String>,
        /// The seed to rebase to (default: the manifest's).
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Write the rebased sets: keep what applies, drop orphans (refused on any conflict).
        #[arg(long)]
        write: bool,
        /// With --write: turn every lock, transform lock, move and freeze that does not apply
        /// as written into an authored object at its recorded transform, instead of dropping an
        /// orphan or refusing a conflict.
        #[arg(long, requires = "write")]
        materialize: bool,
        /// With --write: point edit EDIT (as the report names it, `SET:overrides[N]`) at the
        /// object with packed id ID (decimal or 0x… hex) of the same stage and nested path.
        #[arg(long, requires = "write", value_name = "EDIT=ID")]
        retarget: Vec<String>,
    },
    /// List the registered operators with their ports and parameter schemas.
    Ops {
        /// Print the catalogue as JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print the operator sections of `docs/format.md` (Markdown tables).
        #[arg(long)]
        markdown: bool,
    },
    /// Print every document schema (manifest, recipe, scenario sections, override set,
    /// family), the directive table and the override actions: fields with units, ranges,
    /// defaults and help.
    Schema {
        /// Print it as JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print it as Markdown tables (the scenario part is `docs/format.md`'s).
        #[arg(long)]
        markdown: bool,
    },
    /// Generate a scenario's recipe (with its override sets, as `generate` does), run the
    /// scenario headless and print its counters and final state digest.
    Simulate {
        /// The project folder.
        project: PathBuf,
        /// The scenario to run.
        #[arg(long, value_name = "ID")]
        scenario: String,
        /// Frames to simulate (default: the scenario's duration).
        #[arg(long, value_name = "N")]
        frames: Option<u64>,
        /// Frames between counter rows in the text report (0: only the final row).
        #[arg(long, value_name = "N")]
        every: Option<u64>,
        /// Print the report as JSON, with the counters of every frame.
        #[arg(long)]
        json: bool,
        /// Write the event log the run ends with (JSON, one object per event) to this file.
        #[arg(long, value_name = "FILE")]
        events: Option<PathBuf>,
        /// Take a snapshot at this frame (with `--restore`: restore it into a fresh world and
        /// finish the run from there; the final digest must equal an uninterrupted run's).
        #[arg(long, value_name = "F")]
        snapshot_at: Option<u64>,
        /// Restore the `--snapshot-at` snapshot into a fresh world and continue from it.
        #[arg(long, requires = "snapshot_at")]
        restore: bool,
        /// Write a snapshot file (docs/snapshot-format.md) at `--snapshot-at`, or at the end.
        #[arg(long, value_name = "FILE")]
        save_snapshot: Option<PathBuf>,
        /// Start from a snapshot file of this scenario; the run still ends at `--frames`.
        #[arg(long, value_name = "FILE")]
        from_snapshot: Option<PathBuf>,
        /// Refuse a recipe or a run whose estimate needs more memory than this (default 8192).
        #[arg(long, value_name = "MIB")]
        memory_budget_mib: Option<u64>,
        /// `--trajectories FILE`, `--trajectory-every N` (`cli::trajectories`).
        #[command(flatten)]
        trajectories: trajectories::TrajectoryArgs,
        /// Seed the world with N instead of the manifest's root seed (the content is still
        /// generated at the manifest's seed); a sweep row's seed.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Set a stage parameter of the scenario's recipe: STAGE.PARAM=VALUE (RON value, as
        /// `diff --set`), repeatable.
        #[arg(long = "set", value_name = "STAGE.PARAM=VALUE")]
        set: Vec<String>,
        /// Step on N threads (default: every core, one fewer while --trajectories records); the
        /// digest is the same on any number.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
    },
    /// Cook a project into a verified bundle (manifest.ron + products/*.bin) through the
    /// on-disk stage cache; or list its work items (--plan) or cook one shard (--shard K/N).
    Cook {
        /// The project folder.
        project: PathBuf,
        /// The bundle folder to write (written to a staging folder, renamed when complete). An
        /// existing DIR is replaced only when it is empty or a complete bundle.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Replace --out DIR even when it is a folder that is not a complete bundle.
        #[arg(long, requires = "out")]
        force: bool,
        /// The stage cache folder (default `<project>/.stagecraft/cache`).
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
        /// Root seed instead of the manifest's.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// List the work items (recipe, stage, scope, cache key) instead of cooking.
        #[arg(long)]
        plan: bool,
        /// Cook only work items K, K+N, K+2N, … (1-based) into the cache; no bundle.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Evict least recently used cache entries beyond this many MiB (default 1024).
        #[arg(long, value_name = "MIB")]
        cache_budget_mib: Option<u64>,
        /// Split every scatter stage over an authored region into tiles of N×N cells: each tile
        /// is a work item (--plan, --shard, --items) and the stage is assembled from them.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        tile_cells: Option<u32>,
        /// Cook only these work items (ids as --plan lists them, comma-separated) into the cache.
        #[arg(long, value_name = "ID,…", conflicts_with_all = ["plan", "out"])]
        items: Option<String>,
    },
    /// Re-hash and validate a cooked bundle; print what was checked; exit 1 if anything is off.
    Verify {
        /// The bundle folder.
        dir: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Export a cooked bundle for engines: glTF 2.0 binary (instanced preview shapes, street
    /// surfaces, identities in the extras) or a USD ASCII layer (a PointInstancer per family).
    Export(export::ExportArgs),
    /// The daily-seed ladder: dispatch a seed for a cell and UTC day, show the project's
    /// seeds, or solve a day's mission with its seed.
    Daily(daily::DailyArgs),
    /// Compare two generations by persistent identity: projects (generated here) or cooked
    /// bundles. Exit 0 when equal, 1 when they differ, 2 on an error.
    Diff {
        /// Side A: a project folder or a cooked bundle folder.
        a: PathBuf,
        /// Side B: a project folder or a cooked bundle folder.
        b: PathBuf,
        /// Root seed of side A (a project).
        #[arg(long, value_name = "N")]
        a_seed: Option<u64>,
        /// Root seed of side B (a project).
        #[arg(long, value_name = "N")]
        b_seed: Option<u64>,
        /// Set a stage parameter on side A: STAGE.PARAM=VALUE (RON value), repeatable.
        #[arg(long, value_name = "STAGE.PARAM=VALUE")]
        a_set: Vec<String>,
        /// Set a stage parameter on side B: STAGE.PARAM=VALUE (RON value), repeatable.
        #[arg(long, value_name = "STAGE.PARAM=VALUE")]
        b_set: Vec<String>,
        /// Print the diff as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a reproduction package (PROJECT --out FILE: the input bytes and the expected
    /// digests), or regenerate from one alone and compare (--check FILE; exit 1 on a difference).
    Repro(repro::ReproArgs),
    /// Print a shell completion script generated from these definitions (source it, or install it
    /// where the shell looks for completions).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
        /// Print the script inside a JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Print the man page (roff), or write every page (`stagecraft.1`, `stagecraft-<command>.1`)
    /// into a folder.
    Man {
        /// The folder to write the pages into.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print the report (or the page) as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a headless command, writing its report to `out`; returns the process exit code. The
/// report goes through [`terminal::SafeOutput`], so nothing a file holds reaches the terminal as
/// a control sequence.
pub fn run_command(command: &Command, out: &mut dyn Write) -> anyhow::Result<i32> {
    let mut safe = terminal::SafeOutput::new(out);
    let code = dispatch(command, &mut safe);
    safe.flush()?;
    code
}

// Long because (over 80 lines): a flat dispatch table, one arm per subcommand that only moves
// clap's fields into the command's options; split up, the table would only be scattered.
fn dispatch(command: &Command, out: &mut dyn Write) -> anyhow::Result<i32> {
    match command {
        Command::Check {
            project,
            json,
            memory_budget_mib,
        } => check::check_with(project, *json, &registry(*memory_budget_mib), out),
        Command::New {
            dir,
            template,
            name,
            merge,
            json,
        } => new::new_project(dir, *template, name.as_deref(), (*merge, *json), out),
        Command::Fmt {
            project,
            check,
            allow_outside,
            json,
        } => {
            let options = FmtOptions {
                check_only: *check,
                allow_outside: *allow_outside,
                json: *json,
            };
            fmt_with(project, options, out)
        }
        Command::Generate {
            project,
            recipe,
            seed,
            out: out_file,
            json,
            serial,
            memory_budget_mib,
        } => {
            let options = GenerateOptions {
                recipe: recipe.as_deref(),
                seed: *seed,
                out: out_file.as_deref(),
                json: *json,
                serial: *serial,
                memory_budget_mib: *memory_budget_mib,
            };
            generate(project, &options, out)
        }
        Command::Rebase {
            project,
            recipe,
            seed,
            json,
            write,
            materialize,
            retarget,
        } => {
            let options = RebaseOptions {
                recipe: recipe.as_deref(),
                seed: *seed,
                json: *json,
                write: *write,
                materialize: *materialize,
                retarget,
            };
            rebase_command(project, &options, out)
        }
        Command::Ops { markdown: true, .. } => {
            write!(out, "{}", ops::markdown())?;
            Ok(0)
        }
        Command::Ops { json, .. } => ops(*json, out),
        Command::Schema { json, markdown } => schema::schema(*json, *markdown, out),
        Command::Simulate {
            project,
            scenario,
            frames,
            every,
            json,
            events,
            snapshot_at,
            restore,
            save_snapshot,
            from_snapshot,
            memory_budget_mib,
            trajectories,
            seed,
            set,
            threads,
        } => {
            let options = SimulateOptions {
                scenario,
                frames: *frames,
                every: *every,
                json: *json,
                events: events.as_deref(),
                snapshot_at: *snapshot_at,
                restore: *restore,
                save_snapshot: save_snapshot.as_deref(),
                from_snapshot: from_snapshot.as_deref(),
                memory_budget_mib: *memory_budget_mib,
                history_frames: None,
                trajectories: trajectories.clone(),
                variant: simulate_variant::Variant {
                    seed: *seed,
                    sets: set,
                },
                threads: threads.map(usize::from),
            };
            simulate(project, &options, out)
        }
        Command::Cook {
            project,
            out: dir,
            force,
            cache,
            seed,
            plan,
            shard,
            json,
            cache_budget_mib,
            tile_cells,
            items,
        } => {
            let args = cook::CookArgs {
                out: dir.clone(),
                force: *force,
                cache: cache.clone(),
                seed: *seed,
                plan: *plan,
                shard: shard.clone(),
                json: *json,
                cache_budget_mib: *cache_budget_mib,
                tile_cells: *tile_cells,
                items: items.clone(),
            };
            cook::cook(project, &args, out)
        }
        Command::Verify { dir, json } => verify::verify(dir, *json, out),
        Command::Export(args) => export::export(args, out),
        Command::Repro(args) => repro::repro(args, out),
        Command::Daily(args) => daily::daily(args, out),
        Command::Diff {
            a,
            b,
            a_seed,
            b_seed,
            a_set,
            b_set,
            json,
        } => {
            let side_a = diff::DiffSide {
                seed: *a_seed,
                sets: a_set,
            };
            let side_b = diff::DiffSide {
                seed: *b_seed,
                sets: b_set,
            };
            diff::diff(a, b, (&side_a, &side_b), *json, out)
        }
        Command::Completions { shell, json } => completions::completions(*shell, *json, out),
        Command::Man { out: dir, json } => completions::man(dir.as_deref(), *json, out),
    }
}

/// Reads a project and applies the whole rulebook (the loader's and the recipe compiler's
/// diagnostics, merged and sorted), as `check` and `fmt` need it. The error names the folder and
/// the operating system's reason.
pub(crate) fn load(project: &Path) -> anyhow::Result<(ProjectSources, LoadedProject)> {
    load_with(project, &Registry::standard())
}

/// [`load`] compiling against `registry` (its operators and memory budget).
pub(crate) fn load_with(
    project: &Path,
    registry: &Registry,
) -> anyhow::Result<(ProjectSources, LoadedProject)> {
    Ok(stagecraft_io::open_project(project, registry)?)
}

/// The standard operators, compiling against `memory_budget_mib` when given.
pub(crate) fn registry(memory_budget_mib: Option<u64>) -> Registry {
    match memory_budget_mib {
        Some(mib) => Registry::standard().with_memory_budget(mib.saturating_mul(1 << 20)),
        None => Registry::standard(),
    }
}

/// Ids for an "unknown id" message: each quoted, comma-separated, or "none".
pub(crate) fn known_ids<'a>(ids: impl Iterator<Item = &'a String>) -> String {
    let quoted: Vec<String> = ids.map(|id| format!("`{id}`")).collect();
    if quoted.is_empty() {
        "none".to_owned()
    } else {
        quoted.join(", ")
    }
}

/// Parses the command line like [`Cli::parse_from`], except that a first word which is neither
/// an existing path nor a subcommand is reported as an unknown subcommand with clap's "did you
/// mean" tip, instead of being taken for a project folder to open.
pub fn parse_cli(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    let args = globals_after_subcommand(args);
    if let Some(first) = args.get(1).and_then(|arg| arg.to_str()) {
        let looks_like_word = first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && first.starts_with(|c: char| c.is_ascii_alphabetic());
        if looks_like_word && !Path::new(first).exists() {
            use clap::CommandFactory as _;
            let subcommands_only = <Command as clap::Subcommand>::augment_subcommands(
                clap::Command::new("stagecraft").subcommand_required(true),
            );
            if let Err(error) = subcommands_only.try_get_matches_from(&args) {
                if error.kind() == clap::error::ErrorKind::InvalidSubcommand {
                    return Err(error.with_cmd(&Cli::command()));
                }
            }
        }
    }
    Cli::try_parse_from(args)
}

/// `args` with the global flags written before a subcommand (`stagecraft --quiet check DIR`)
/// moved behind it: with `args_conflicts_with_subcommands`, clap would take a subcommand after
/// any flag for the editor's project folder.
fn globals_after_subcommand(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let is_global = |arg: &std::ffi::OsString| arg == "--quiet" || arg == "-q";
    let leading = args.iter().skip(1).take_while(|arg| is_global(arg)).count();
    let names: Vec<String> =
        <Command as clap::Subcommand>::augment_subcommands(clap::Command::new("stagecraft"))
            .get_subcommands()
            .map(|sub| sub.get_name().to_owned())
            .collect();
    let next_is_subcommand = args
        .get(1 + leading)
        .and_then(|arg| arg.to_str())
        .is_some_and(|arg| names.iter().any(|name| name == arg));
    if leading > 0 && next_is_subcommand {
        let flags: Vec<std::ffi::OsString> = args.drain(1..=leading).collect();
        let at = 2.min(args.len());
        args.splice(at..at, flags);
    }
    args
}
