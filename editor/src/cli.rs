//! The headless command line: `stagecraft check`, `fmt`, `generate` and `ops` over a project folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{
    has_errors, Diagnostic, LoadedProject, ProjectSources, Severity,
};
use stagecraft_runtime::recipe::check_project;

use crate::generate_cmd::{generate, ops, GenerateOptions};
use crate::project_io::{atomic_write, file_path, load_dir};

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
    }
}

fn load(project: &Path) -> anyhow::Result<(ProjectSources, LoadedProject)> {
    load_dir(project).with_context(|| format!("cannot read the project in {}", project.display()))
}

/// `stagecraft check`: prints every diagnostic — the project's and the recipe compiler's (unknown
/// operators, port types, parameter schemas) — and exits 1 when any is an error.
pub fn check(project: &Path, json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let (sources, mut loaded) = load(project)?;
    let compiled = check_project(&loaded, &Registry::standard());
    loaded.diagnostics.extend(compiled);
    loaded.diagnostics.sort();
    if json {
        let items: Vec<serde_json::Value> =
            loaded.diagnostics.iter().map(diagnostic_json).collect();
        let report = serde_json::json!({
            "project": project.display().to_string(),
            "files": sources.files.len(),
            "errors": loaded.diagnostics.iter().filter(|d| d.is_error()).count(),
            "warnings": loaded.diagnostics.iter().filter(|d| !d.is_error()).count(),
            "diagnostics": items,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        for diagnostic in &loaded.diagnostics {
            write!(
                out,
                "{}",
                render_diagnostic(diagnostic, sources.files.get(&diagnostic.file))
            )?;
        }
        let errors = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = loaded.diagnostics.len() - errors;
        writeln!(
            out,
            "{}: {} files, {errors} errors, {warnings} warnings",
            project.display(),
            sources.files.len()
        )?;
    }
    Ok(if has_errors(&loaded.diagnostics) {
        1
    } else {
        0
    })
}

/// One diagnostic as a JSON object.
pub fn diagnostic_json(diagnostic: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "severity": match diagnostic.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "file": diagnostic.file,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "path": diagnostic.path.to_string(),
        "message": diagnostic.message,
        "expected": diagnostic.expected,
    })
}

/// A diagnostic with its source line and a caret under the offending column.
pub fn render_diagnostic(diagnostic: &Diagnostic, source: Option<&String>) -> String {
    let severity = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut text = format!(
        "{severity}: {}\n  --> {}:{}:{}\n",
        diagnostic.message, diagnostic.file, diagnostic.line, diagnostic.column
    );
    let line_text = source.and_then(|s| s.lines().nth(diagnostic.line.saturating_sub(1) as usize));
    if let Some(line_text) = line_text {
        let number = diagnostic.line.to_string();
        let gutter = " ".repeat(number.len());
        let caret_pad: String = line_text
            .chars()
            .take(diagnostic.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        text.push_str(&format!(
            "{gutter} |\n{number} | {line_text}\n{gutter} | {caret_pad}^ expected {}\n",
            diagnostic.expected
        ));
    } else {
        text.push_str(&format!("   = expected {}\n", diagnostic.expected));
    }
    text.push_str(&format!("   = at {}\n\n", diagnostic.path));
    text
}

/// What `fmt` found for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FmtStatus {
    /// Already canonical.
    Canonical,
    /// Not canonical (rewritten unless checking).
    Rewritten,
    /// Has errors, so it is left exactly as it is.
    Refused,
}

/// Decides, for every document file of a loaded project, its canonical text or why it has none.
pub fn fmt_plan(
    sources: &ProjectSources,
    loaded: &LoadedProject,
) -> Vec<(String, FmtStatus, Option<String>)> {
    let canonical = loaded
        .project
        .as_ref()
        .map(|p| p.canonical_files())
        .unwrap_or_default();
    let mut plan = Vec::new();
    for (path, text) in &sources.files {
        let file_has_errors = loaded.diagnostics_of(path).any(Diagnostic::is_error);
        match canonical.get(path) {
            Some(canonical_text) if !file_has_errors => {
                if canonical_text == text {
                    plan.push((path.clone(), FmtStatus::Canonical, None));
                } else {
                    plan.push((
                        path.clone(),
                        FmtStatus::Rewritten,
                        Some(canonical_text.clone()),
                    ));
                }
            }
            _ => plan.push((path.clone(), FmtStatus::Refused, None)),
        }
    }
    plan
}

/// `stagecraft fmt`: rewrites non-canonical files, or lists them with `--check`.
///
/// Exit code 1 when a file has errors (it is never rewritten) or, with `--check`, when any file
/// is not canonical.
pub fn fmt(project: &Path, check_only: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let (sources, loaded) = load(project)?;
    let mut exit = 0;
    for (path, status, canonical) in fmt_plan(&sources, &loaded) {
        match (status, canonical) {
            (FmtStatus::Canonical, _) => {}
            (FmtStatus::Refused, _) => {
                writeln!(
                    out,
                    "{path}: has errors, not rewritten (run `stagecraft check`)"
                )?;
                exit = 1;
            }
            (FmtStatus::Rewritten, Some(text)) if !check_only => {
                atomic_write(&file_path(project, &path), text.as_bytes())
                    .with_context(|| format!("cannot write {path}"))?;
                writeln!(out, "{path}: rewritten")?;
            }
            (FmtStatus::Rewritten, _) => {
                writeln!(out, "{path}: not canonical")?;
                exit = 1;
            }
        }
    }
    Ok(exit)
}
