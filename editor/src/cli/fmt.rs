//! `stagecraft fmt`: rewrites files in canonical form, or lists the ones that are not (`--check`).
//!
//! A file with errors is never rewritten; nor is a file outside the project folder (asset
//! families shared through `asset_paths`, or a link's target elsewhere) unless the user passes
//! `--allow-outside`. Links are written through to their targets. Each file is written atomically
//! and named in the report as it is written, so an interrupted run leaves whole files and a rerun
//! finishes the job.

use std::io::Write;
use std::path::{Path, PathBuf};

use stagecraft_runtime::project::{Diagnostic, LoadedProject, ProjectSources};

use super::diagnostics::escape_controls;
use super::load;
use crate::project_io::{atomic_write, file_path, write_target};

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
/// Files that could not be read at all are refused.
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
    for path in sources.unreadable.keys() {
        plan.push((path.clone(), FmtStatus::Refused, None));
    }
    plan.sort_by(|a, b| a.0.cmp(&b.0));
    plan
}

/// Options of `stagecraft fmt`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FmtOptions {
    /// Only list the files that are not canonical.
    pub check_only: bool,
    /// Also rewrite files whose real location is outside the project folder.
    pub allow_outside: bool,
    /// Print the report as JSON (`stagecraft.fmt/1`).
    pub json: bool,
}

/// `stagecraft fmt`: rewrites non-canonical files, or lists them with `--check`.
///
/// Exit code 1 when a file has errors (it is never rewritten), when a file outside the project
/// was left alone, when a write failed or, with `--check`, when any file is not canonical.
pub fn fmt(project: &Path, check_only: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let options = FmtOptions {
        check_only,
        ..FmtOptions::default()
    };
    fmt_with(project, options, out)
}

/// [`fmt`] with every option.
pub fn fmt_with(project: &Path, options: FmtOptions, out: &mut dyn Write) -> anyhow::Result<i32> {
    let (sources, loaded) = load(project)?;
    let project_root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let mut entries: Vec<(String, &'static str)> = Vec::new();
    // The text report is written as it goes (an interrupted run names what it wrote).
    let mut sink = std::io::sink();
    let text: &mut dyn Write = if options.json { &mut sink } else { &mut *out };
    for (file, status, canonical) in fmt_plan(&sources, &loaded) {
        // The file's name as shown (a name on disk may hold any character); `file` stays the key.
        let path = escape_controls(&file);
        let outcome = match (status, canonical) {
            (FmtStatus::Canonical, _) => continue,
            (FmtStatus::Refused, _) => {
                writeln!(
                    text,
                    "{path}: has errors, not rewritten (run `stagecraft check`)"
                )?;
                "has_errors"
            }
            (FmtStatus::Rewritten, Some(canonical)) if !options.check_only => {
                rewrite(project, &project_root, (&file, &canonical), options, text)?
            }
            (FmtStatus::Rewritten, _) => {
                writeln!(text, "{path}: not canonical")?;
                "not_canonical"
            }
        };
        entries.push((file, outcome));
    }
    let rewritten = entries.iter().filter(|(_, s)| *s == "rewritten").count();
    let exit = i32::from(entries.len() > rewritten);
    if options.json {
        let files: Vec<serde_json::Value> = entries
            .iter()
            .map(|(file, status)| serde_json::json!({"file": file, "status": status}))
            .collect();
        let report = serde_json::json!({
            "project": project.display().to_string(),
            "check": options.check_only,
            "rewritten": rewritten,
            "files": files,
        });
        super::json_out::write_document(out, "fmt", &report)?;
    } else if !options.check_only {
        let files = if rewritten == 1 { "file" } else { "files" };
        let shown = project.display().to_string();
        writeln!(
            text,
            "{}: {rewritten} {files} rewritten",
            escape_controls(&shown)
        )?;
    }
    Ok(exit)
}

/// Rewrites one non-canonical `(file, canonical text)`, unless it lies outside the project and
/// that is not allowed; returns its status (`rewritten`, `outside_project`, `write_failed`).
fn rewrite(
    project: &Path,
    project_root: &Path,
    (file, canonical): (&str, &str),
    options: FmtOptions,
    text: &mut dyn Write,
) -> anyhow::Result<&'static str> {
    let path = escape_controls(file);
    let target = file_path(project, file);
    if let Some(real) = outside_project(&target, project_root) {
        if !options.allow_outside {
            writeln!(
                text,
                "{path}: not rewritten: it is outside the project folder ({}); pass --allow-outside to rewrite it",
                escape_controls(&real.display().to_string())
            )?;
            return Ok("outside_project");
        }
    }
    Ok(match atomic_write(&target, canonical.as_bytes()) {
        Ok(()) => {
            writeln!(text, "{path}: rewritten")?;
            "rewritten"
        }
        Err(error) => {
            writeln!(text, "{path}: cannot write: {error}")?;
            "write_failed"
        }
    })
}

/// Where a write to `target` would really land, when that is outside `project_root`.
fn outside_project(target: &Path, project_root: &Path) -> Option<PathBuf> {
    let real = write_target(target).unwrap_or_else(|_| target.to_path_buf());
    let folder = real.parent()?;
    let real_folder = std::fs::canonicalize(folder).ok()?;
    let real = real_folder.join(real.file_name()?);
    (!real.starts_with(project_root)).then_some(real)
}
