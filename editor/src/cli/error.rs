//! A command's failure: its exit code, a machine-readable code, the message, where it is (file,
//! line, column, field path) and the diagnostics behind it. Commands return it inside
//! `anyhow::Error`; `cli::run` prints it for people on stderr, or as one JSON object on stdout
//! under `--json` ([`super::json_out::error_json`]). Any other error reads as exit code 2, code
//! `error` (`io` when an operating-system error is behind it), no location.

use std::fmt;

use stagecraft_runtime::project::{Diagnostic, ProjectSources};

use super::diagnostics::{escape_controls, render_all};

/// The exit code of an error that does not say otherwise.
pub const DEFAULT_EXIT_CODE: i32 = 2;

/// The exit code of a run whose output pipe closed early (128 + SIGPIPE, as a shell reports a
/// program the signal ended).
pub const BROKEN_PIPE_EXIT_CODE: i32 = 141;

/// A located command failure.
#[derive(Debug, Clone)]
pub struct CliError {
    /// The process exit code.
    pub exit_code: i32,
    /// What kind of failure, in snake_case (`project_errors`, `invalid_bundle`, `refused`, …).
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// The file (or folder) it is about.
    pub file: Option<String>,
    /// 1-based line in `file`.
    pub line: Option<u32>,
    /// 1-based column in `file`.
    pub column: Option<u32>,
    /// The field path in `file`.
    pub path: Option<String>,
    /// The diagnostics behind it.
    pub diagnostics: Vec<Diagnostic>,
    /// The diagnostics rendered with their source lines, for people.
    pub rendered: String,
}

impl CliError {
    /// A failure with no location yet.
    pub fn new(exit_code: i32, code: &'static str, message: impl Into<String>) -> CliError {
        CliError {
            exit_code,
            code,
            message: message.into(),
            file: None,
            line: None,
            column: None,
            path: None,
            diagnostics: Vec::new(),
            rendered: String::new(),
        }
    }

    /// About `file` (a file or folder), when nothing more precise is known.
    pub fn in_file(mut self, file: impl Into<String>) -> CliError {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// With `diagnostics` (rendered against `sources`); located at the first error among them
    /// (or the first diagnostic).
    pub fn with_diagnostics(
        mut self,
        diagnostics: &[Diagnostic],
        sources: &ProjectSources,
    ) -> CliError {
        let first = diagnostics
            .iter()
            .find(|d| d.is_error())
            .or(diagnostics.first());
        if let Some(first) = first {
            self.file = Some(first.file.clone());
            self.line = Some(first.line);
            self.column = Some(first.column);
            self.path = Some(first.path.to_string());
        }
        self.rendered = render_all(diagnostics, sources);
        self.diagnostics = diagnostics.to_vec();
        self
    }

    /// The located view of any error: the [`CliError`] inside it, or one made from its message.
    pub fn of(error: &anyhow::Error) -> CliError {
        if let Some(located) = error.downcast_ref::<CliError>() {
            return located.clone();
        }
        let io = error
            .chain()
            .any(|cause| cause.downcast_ref::<std::io::Error>().is_some());
        let code = if io { "io" } else { "error" };
        CliError::new(DEFAULT_EXIT_CODE, code, format!("{error:#}"))
    }

    /// The text people read on stderr: the rendered diagnostics, then `error: message`.
    pub fn human(&self) -> String {
        format!(
            "{}error: {}\n",
            self.rendered,
            escape_controls(&self.message)
        )
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Whether `error` is a write into a pipe whose reader has gone (`stagecraft … | head -1`).
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The exit code of `error`.
pub fn exit_code(error: &anyhow::Error) -> i32 {
    error
        .downcast_ref::<CliError>()
        .map_or(DEFAULT_EXIT_CODE, |located| located.exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::{FieldPath, Severity};

    #[test]
    fn diagnostics_locate_the_error_at_the_first_error() {
        let warning = Diagnostic {
            severity: Severity::Warning,
            file: "a.ron".to_owned(),
            line: 1,
            column: 1,
            path: FieldPath::root(),
            message: "w".to_owned(),
            expected: "x".to_owned(),
        };
        let error = Diagnostic {
            severity: Severity::Error,
            file: "b.ron".to_owned(),
            line: 4,
            column: 7,
            ..warning.clone()
        };
        let located = CliError::new(1, "project_errors", "the project has errors")
            .with_diagnostics(&[warning, error], &ProjectSources::default());
        assert_eq!(located.file.as_deref(), Some("b.ron"));
        assert_eq!((located.line, located.column), (Some(4), Some(7)));
        assert_eq!(located.path.as_deref(), Some("(document)"));
        assert!(located.human().ends_with("error: the project has errors\n"));
        assert!(located.human().contains("  --> b.ron:4:7\n"));
    }

    #[test]
    fn a_broken_pipe_is_found_under_context() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed");
        let error = anyhow::Error::new(io).context("writing the report");
        assert!(is_broken_pipe(&error));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
        assert_eq!(exit_code(&error), DEFAULT_EXIT_CODE);
        assert_eq!(
            exit_code(&anyhow::Error::new(CliError::new(1, "x", "y"))),
            1
        );
    }
}
