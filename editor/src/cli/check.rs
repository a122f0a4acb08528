//! `stagecraft check`: every diagnostic of a project, as text or JSON.

use std::io::Write;
use std::path::Path;

use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::has_errors;
use stagecraft_runtime::recipe::check_project;

use super::diagnostics::{diagnostic_json, render_diagnostic};
use super::load;

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
