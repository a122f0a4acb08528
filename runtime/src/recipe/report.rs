//! Placing the compiler's findings on source lines: one [`Reporter`] per checked file, turning a
//! field path into the line and column of the value it names.

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

/// Collects the diagnostics of one file.
pub(super) struct Reporter<'a> {
    source: RecipeSource<'a>,
    diagnostics: Vec<Diagnostic>,
    /// The tree's path index, built at the first diagnostic, so many diagnostics in one large
    /// file stay linear.
    locator: Option<Locator>,
}

impl<'a> Reporter<'a> {
    pub(super) fn new(source: RecipeSource<'a>) -> Reporter<'a> {
        Reporter {
            source,
            diagnostics: Vec::new(),
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
        let (line, column) = match self.source.tree {
            Some(tree) => {
                let locator = self.locator.get_or_insert_with(|| Locator::new(tree));
                let span = locator.deepest_at(tree, &path).span;
                (span.line, span.column)
            }
            None => (1, 1),
        };
        self.diagnostics.push(Diagnostic {
            severity,
            file: self.source.file.to_owned(),
            line,
            column,
            path,
            message,
            expected,
        });
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
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Every diagnostic, sorted.
    pub(super) fn finish(mut self) -> Vec<Diagnostic> {
        self.diagnostics.sort();
        self.diagnostics
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
