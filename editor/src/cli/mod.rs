//! The headless command line: one module per command (`check`, `fmt`, `generate`, `ops`,
//! `simulate`), sharing the diagnostics rendering in [`diagnostics`].

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use stagecraft_runtime::project::{LoadedProject, ProjectSources};

use crate::project_io::load_dir;

pub mod check;
pub mod diagnostics;
pub mod fmt;
pub mod generate;
pub mod ops;
pub mod simulate;

pub use check::check;
pub use diagnostics::{diagnostic_json, render_diagnostic};
pub use fmt::{fmt, fmt_plan, FmtStatus};
pub use generate::{generate, GenerateOptions};
pub use ops::ops;
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
    },
    /// Rewrite a project's files in canonical form (files with errors are never rewritten).
    Fmt {
        /// The project folder.
        project: PathBuf,
        /// List the files that are not canonical and exit 1 if any, without writing.
        #[arg(long)]
        check: bool,
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
    },
    /// List the registered operators with their ports and parameter schemas.
    Ops {
        /// Print the catalogue as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Generate a scenario's recipe, run the scenario headless and print its counters and final
    /// state digest.
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
    },
}

/// Runs a headless command, writing its report to `out`; returns the process exit code.
pub fn run_command(command: &Command, out: &mut dyn Write) -> anyhow::Result<i32> {
    match command {
        Command::Check { project, json } => check(project, *json, out),
        Command::Fmt { project, check } => fmt(project, *check, out),
        Command::Generate {
            project,
            recipe,
            seed,
            out: out_file,
            json,
            serial,
        } => {
            let options = GenerateOptions {
                recipe: recipe.as_deref(),
                seed: *seed,
                out: out_file.as_deref(),
                json: *json,
                serial: *serial,
            };
            generate(project, &options, out)
        }
        Command::Ops { json } => ops(*json, out),
        Command::Simulate {
            project,
            scenario,
            frames,
            every,
            json,
        } => {
            let options = SimulateOptions {
                scenario,
                frames: *frames,
                every: *every,
                json: *json,
            };
            simulate(project, &options, out)
        }
    }
}

/// Reads a project folder, naming the folder in the error.
pub(crate) fn load(project: &Path) -> anyhow::Result<(ProjectSources, LoadedProject)> {
    load_dir(project).with_context(|| format!("cannot read the project in {}", project.display()))
}
