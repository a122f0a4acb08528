//! Diagnostics: one problem in one project file, with where it is and what was expected.

use std::fmt;

use super::node::FieldPath;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The project cannot be used as it is (it is not written back by `fmt`).
    Error,
    /// Suspicious but usable, such as a recipe input that no stage reads.
    Warning,
}

/// One problem found in a project file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file, relative to the project folder, with `/` separators.
    pub file: String,
    /// 1-based line of the offending value (1 when the problem is the whole file).
    pub line: u32,
    /// 1-based column of the offending value.
    pub column: u32,
    /// Field path of the offending value from the document root.
    pub path: FieldPath,
    /// What is wrong.
    pub message: String,
    /// What was expected instead.
    pub expected: String,
}

impl Diagnostic {
    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {severity}: {} (at {}; expected {})",
            self.file, self.line, self.column, self.message, self.path, self.expected
        )
    }
}

/// True when any diagnostic in `diagnostics` is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}
