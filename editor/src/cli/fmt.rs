//! `stagecraft fmt`: rewrites files in canonical form, or lists the ones that are not (`--check`).

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use stagecraft_runtime::project::{Diagnostic, LoadedProject, ProjectSources};

use super::load;
use crate::project_io::{atomic_write, file_path};

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
