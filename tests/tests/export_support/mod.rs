//! Shared helpers of the export tests: cook an example into a temp folder, export a bundle
//! through the command line's `export`.

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cli::export::{ExportArgs, ExportFormat};
use stagecraft_editor::cli::{run_command, Command};
use stagecraft_editor::cook::{cook_project, CookOptions, DEFAULT_BUDGET_BYTES};
use stagecraft_editor::service::StageObserver;

/// Cooks `project` into `dir/bundle` (cache in `dir/cache`).
pub fn cook(project: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("bundle");
    let options = CookOptions {
        out: Some(out.clone()),
        cache: Some(dir.join("cache")),
        seed: None,
        shard: None,
        budget_bytes: DEFAULT_BUDGET_BYTES,
        force: false,
        ..CookOptions::default()
    };
    cook_project(project, &options, &|_, plan| StageObserver::new(plan))
        .unwrap_or_else(|e| panic!("{}: {e:#}", project.display()));
    out
}

/// Exports `bundle` (looks from `project`) as `format` into `file`; returns the file's bytes.
pub fn export(bundle: &Path, project: &Path, format: ExportFormat, file: &Path) -> Vec<u8> {
    let args = ExportArgs {
        bundle: bundle.to_owned(),
        format,
        out: file.to_owned(),
        project: Some(project.to_owned()),
        json: false,
    };
    let mut report = Vec::new();
    let code = run_command(&Command::Export(args), &mut report).unwrap_or_else(|e| panic!("{e:#}"));
    let report = String::from_utf8_lossy(&report);
    assert_eq!(code, 0, "{report}");
    assert!(report.starts_with("exported "), "{report}");
    fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}
