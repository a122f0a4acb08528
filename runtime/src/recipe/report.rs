//! Placing the compiler's findings on source lines: one [`Reporter`] per checked file, turning a
//! field path into the line and column of the value it names.

use super::budget::{BoundedLog, DiagnosticBudget};
use crate::ops::registry::ParamProblem;
use crate::project::node::{Locator, Node};
use crate::project::{Diagnostic, FieldPath, Severity, Stage};

/// Where a recipe (or another document the compiler checks) came from, for placing diagnostics.
#[derive(Debug, Clone, Copy)]
pub struct RecipeSource<'a> {
    /// The file, relative to the project folder.
    pub file: &'a str,
    /// Its syntax tree, if it parsed.
    pub tree: Option<&'a Node>,
}

/// Collects the diagnostics of one file, within [`DiagnosticBudget::PER_FILE`].
pub(super) struct Reporter<'a> {
    source: RecipeSource<'a>,
    diagnostics: BoundedLog<Diagnostic>,
    /// Whether any error was reported, kept or dropped.
    any_error: bool,
    /// The tree's path index, built at the first diagnostic, so many diagnostics in one large
    /// file stay linear.
    locator: Option<Locator>,
}

impl<'a> Reporter<'a> {
    pub(super) fn new(source: RecipeSource<'a>) -> Reporter<'a> {
        Reporter {
            source,
            diagnostics: BoundedLog::new(DiagnosticBudget::PER_FILE),
            any_error: false,
            locator: None,
        }
    }

    pub(super) fn push(
        &mut self,
        severity: Severity,
        path: FieldPath,
        message: String,
        expected: String,
    ) {
        self.any_error |= severity == Severity::Error;
        let bytes = self.source.file.len() + message.len() + expected.len();
        if self.diagnostics.is_full() {
            // Counted as dropped without locating it.
            self.diagnostics.count_dropped(bytes);
            return;
        }
        let (line, column) = match self.source.tree {
            Some(tree) => {
                let locator = self.locator.get_or_insert_with(|| Locator::new(tree));
                let span = locator.deepest_at(tree, &path).span;
                (span.line, span.column)
            }
            None => (1, 1),
        };
        let diagnostic = Diagnostic {
            severity,
            file: self.source.file.to_owned(),
            line,
            column,
            path,
            message,
            expected,
        };
        self.diagnostics.push(diagnostic, bytes);
    }

    pub(super) fn error(&mut self, path: FieldPath, message: String, expected: impl Into<String>) {
        self.push(Severity::Error, path, message, expected.into());
    }

    pub(super) fn warning(
        &mut self,
        path: FieldPath,
        message: String,
        expected: impl Into<String>,
    ) {
        self.push(Severity::Warning, path, message, expected.into());
    }

    pub(super) fn has_errors(&self) -> bool {
        self.any_error
    }

    /// Every diagnostic kept, sorted; then, when the budget dropped some, one warning saying how
    /// many (and how many bytes).
    pub(super) fn finish(self) -> Vec<Diagnostic> {
        let (dropped, dropped_bytes) =
            (self.diagnostics.dropped(), self.diagnostics.dropped_bytes());
        let budget = self.diagnostics.budget();
        let mut diagnostics = self.diagnostics.into_items();
        diagnostics.sort();
        if dropped > 0 {
            diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                file: self.source.file.to_owned(),
                line: 1,
                column: 1,
                path: FieldPath::root(),
                message: format!(
                    "{dropped} more diagnostics of this file ({dropped_bytes} bytes) were dropped: \
                     a file reports at most {} diagnostics and {} bytes of them",
                    budget.max_count, budget.max_bytes
                ),
                expected: "the diagnostics above fixed first".to_owned(),
            });
        }
        diagnostics
    }

    /// Reports an operator's parameter problems for stage `index`: at the parameter (and the list
    /// item) when the stage gives it, at the input bound to the port the problem names, else at
    /// the stage's parameter map.
    pub(super) fn param_problems(
        &mut self,
        index: usize,
        stage: &Stage,
        ports: &[(&'static str, usize)],
        problems: Vec<ParamProblem>,
    ) {
        self.place_param_problems(Severity::Error, index, stage, ports, problems);
    }

    /// Reports what an operator repaired in stage `index`'s parameters, placed as
    /// [`Reporter::param_problems`] places errors.
    pub(super) fn param_warnings(
        &mut self,
        index: usize,
        stage: &Stage,
        ports: &[(&'static str, usize)],
        warnings: Vec<ParamProblem>,
    ) {
        self.place_param_problems(Severity::Warning, index, stage, ports, warnings);
    }

    fn place_param_problems(
        &mut self,
        severity: Severity,
        index: usize,
        stage: &Stage,
        ports: &[(&'static str, usize)],
        problems: Vec<ParamProblem>,
    ) {
        let params_path = stage_path(index).field("parameters");
        for problem in problems {
            let port_slot = ports
                .iter()
                .find(|(port, _)| *port == problem.field)
                .map(|(_, slot)| *slot);
            let target = if stage.parameters.contains_key(&problem.field) {
                let at = params_path.key(&problem.field);
                match problem.item {
                    Some(item) => at.index(item),
                    None => at,
                }
            } else if let Some(slot) = port_slot {
                stage_path(index).field("inputs").index(slot)
            } else {
                params_path.clone()
            };
            self.push(
                severity,
                target,
                format!("stage {}: {}", stage.id, problem.message),
                problem.expected,
            );
        }
    }
}

/// The field path of stage `index` of a recipe.
pub(super) fn stage_path(index: usize) -> FieldPath {
    FieldPath::root().field("stages").index(index)
}
