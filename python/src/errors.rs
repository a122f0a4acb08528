//! The Python exceptions and diagnostics: `StagecraftError` (every failure), `ProjectError` (a
//! project with errors, located at its first error diagnostic) and the `Diagnostic` class that
//! `Project.check()` returns.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use stagecraft_runtime::project::{Diagnostic as RuntimeDiagnostic, Severity};

create_exception!(
    stagecraft,
    StagecraftError,
    PyException,
    "Every error of the stagecraft module. Attributes: `file`, `line`, `column` (None when the \
     error is not in a file) and `diagnostics` (a list of `Diagnostic`, maybe empty)."
);
create_exception!(
    stagecraft,
    ProjectError,
    StagecraftError,
    "A project that has errors (or a recipe that does not compile): located at its first error \
     diagnostic; `diagnostics` lists every error."
);

/// One diagnostic of a project: where (file, line, column, field path) and what.
#[pyclass(module = "stagecraft", frozen, get_all)]
#[derive(Clone)]
pub struct Diagnostic {
    /// `"error"` or `"warning"`.
    pub severity: String,
    /// The file, relative to the project folder, `/`-separated.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The field path of the offending value from the document root.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What was expected instead.
    pub expected: String,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "<Diagnostic {}:{}:{}: {}: {}>",
            self.file, self.line, self.column, self.severity, self.message
        )
    }

    fn __str__(&self) -> String {
        format!(
            "{}:{}:{}: {}: {} (at {}; expected {})",
            self.file,
            self.line,
            self.column,
            self.severity,
            self.message,
            self.path,
            self.expected
        )
    }

    /// Whether this is an error (not a warning).
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

impl Diagnostic {
    /// The Python view of a runtime diagnostic.
    pub fn of(diagnostic: &RuntimeDiagnostic) -> Diagnostic {
        Diagnostic {
            severity: match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            }
            .to_owned(),
            file: diagnostic.file.clone(),
            line: diagnostic.line,
            column: diagnostic.column,
            path: diagnostic.path.to_string(),
            message: diagnostic.message.clone(),
            expected: diagnostic.expected.clone(),
        }
    }
}

/// A `StagecraftError` with `message` and no location.
pub fn error(message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| located(py, StagecraftError::new_err(message), None, &[]))
}

/// A `ProjectError` saying `message`, located at the first error of `diagnostics` (the first
/// diagnostic when none is an error), carrying them all.
pub fn project_error(message: &str, diagnostics: &[RuntimeDiagnostic]) -> PyErr {
    let first = diagnostics
        .iter()
        .find(|d| d.is_error())
        .or(diagnostics.first());
    let text = match first {
        Some(d) => format!("{message}: {d}"),
        None => message.to_owned(),
    };
    Python::attach(|py| located(py, ProjectError::new_err(text), first, diagnostics))
}

/// Sets `file`, `line`, `column` and `diagnostics` on the exception `err`.
fn located(
    py: Python<'_>,
    err: PyErr,
    at: Option<&RuntimeDiagnostic>,
    diagnostics: &[RuntimeDiagnostic],
) -> PyErr {
    let value = err.value(py);
    let list = PyList::new(py, diagnostics.iter().map(Diagnostic::of)).ok();
    // Setting attributes on a fresh exception object does not fail; if it ever did, the
    // exception still says everything in its message.
    let _ = value.setattr("file", at.map(|d| d.file.clone()));
    let _ = value.setattr("line", at.map(|d| d.line));
    let _ = value.setattr("column", at.map(|d| d.column));
    let _ = value.setattr("path", at.map(|d| d.path.to_string()));
    let _ = value.setattr("diagnostics", list);
    err
}
