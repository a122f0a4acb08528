//! Diagnostics rendering shared by the commands: JSON objects and text with the source line.
//!
//! Text for people never carries a user's control characters: every string from a file (ids,
//! names, paths, source lines) is shown through [`escape_controls`], so a name cannot clear the
//! screen or forge a line of the report.
//!
//! Rendering is linear in the size of the sources and the number of diagnostics: each file's
//! line starts are indexed once, and at most [`MAX_SHOWN_PER_FILE`] diagnostics per file are
//! written in full, followed by a count of the rest.

use std::borrow::Cow;
use std::collections::BTreeMap;

use stagecraft_runtime::project::{Diagnostic, ProjectSources, Severity};

/// Diagnostics per file shown with their source line; the rest are counted in one line.
pub const MAX_SHOWN_PER_FILE: usize = 50;

/// One diagnostic as a JSON object.
pub fn diagnostic_json(diagnostic: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "severity": severity_name(diagnostic.severity),
        "file": diagnostic.file,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "path": diagnostic.path.to_string(),
        "message": diagnostic.message,
        "expected": diagnostic.expected,
    })
}

/// One diagnostic as JSON fields, borrowed: `check --json` writes many of them straight to the
/// output without building a JSON tree first. Same fields as [`diagnostic_json`], in the same
/// (alphabetical) order, so the bytes are the same.
#[derive(serde::Serialize)]
pub struct DiagnosticJson<'d> {
    column: u32,
    expected: &'d str,
    file: &'d str,
    line: u32,
    message: &'d str,
    path: String,
    severity: &'static str,
}

impl<'d> DiagnosticJson<'d> {
    /// The JSON view of `diagnostic`.
    pub fn of(diagnostic: &'d Diagnostic) -> DiagnosticJson<'d> {
        DiagnosticJson {
            column: diagnostic.column,
            expected: &diagnostic.expected,
            file: &diagnostic.file,
            line: diagnostic.line,
            message: &diagnostic.message,
            path: diagnostic.path.to_string(),
            severity: severity_name(diagnostic.severity),
        }
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Whether `c` is shown escaped in human output: a control character (C0, DEL, C1), a
/// bidirectional embedding, override, isolate or mark, or a line or paragraph separator — anything
/// a terminal would act on or that would make a line look other than it is.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
        || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Writes `c` escaped: `\n`, `\r`, `\t`, or `\uXXXX` (lowercase hex) — the same text in a
/// JSON string, where it decodes back to `c`.
pub fn push_escaped(text: &mut String, c: char) {
    match c {
        '\n' => text.push_str("\\n"),
        '\r' => text.push_str("\\r"),
        '\t' => text.push_str("\\t"),
        _ => text.push_str(&format!("\\u{:04x}", u32::from(c))),
    }
}

/// `text` with every [unsafe character](is_unsafe_char) escaped, for human output: a route
/// named `"\u{1b}[2J"` prints as `\u001b[2J`, a newline in a name as `\n`.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe_char(c) {
            push_escaped(&mut escaped, c);
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// A source line for display: unsafe characters escaped except tabs (kept, so the caret below
/// lines up), and the caret's padding up to `column` (1-based, in characters of the file).
fn shown_line(line_text: &str, column: u32) -> (String, String) {
    let mut shown = String::with_capacity(line_text.len());
    let mut pad = String::new();
    let before = column.saturating_sub(1) as usize;
    for (index, c) in line_text.chars().enumerate() {
        let start = shown.len();
        if c != '\t' && is_unsafe_char(c) {
            push_escaped(&mut shown, c);
        } else {
            shown.push(c);
        }
        if index < before {
            if c == '\t' {
                pad.push('\t');
            } else {
                let width = shown[start..].chars().count();
                pad.extend(std::iter::repeat_n(' ', width));
            }
        }
    }
    (shown, pad)
}

/// The byte offsets where each line of a text starts, for finding line N in constant time.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    /// Indexes `text` in one pass.
    pub fn new(text: &'t str) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        LineIndex { text, starts }
    }

    /// Line `number` (1-based) without its line break, if the text has it.
    pub fn line(&self, number: u32) -> Option<&'t str> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        let start = *self.starts.get(index)?;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let line = self.text.get(start..end.max(start))?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// A diagnostic with its source line and a caret under the offending column.
pub fn render_diagnostic(diagnostic: &Diagnostic, source: Option<&String>) -> String {
    let index = source.map(|text| LineIndex::new(text));
    render_with_line(
        diagnostic,
        index.as_ref().and_then(|i| i.line(diagnostic.line)),
    )
}

/// [`render_diagnostic`] given the diagnostic's source line.
pub fn render_with_line(diagnostic: &Diagnostic, line_text: Option<&str>) -> String {
    let severity = severity_name(diagnostic.severity);
    let expected = escape_controls(&diagnostic.expected);
    let mut text = format!(
        "{severity}: {}\n  --> {}:{}:{}\n",
        escape_controls(&diagnostic.message),
        escape_controls(&diagnostic.file),
        diagnostic.line,
        diagnostic.column
    );
    if let Some(line_text) = line_text {
        let number = diagnostic.line.to_string();
        let gutter = " ".repeat(number.len());
        let (line_text, caret_pad) = shown_line(line_text, diagnostic.column);
        text.push_str(&format!(
            "{gutter} |\n{number} | {line_text}\n{gutter} | {caret_pad}^ expected {expected}\n"
        ));
    } else {
        text.push_str(&format!("   = expected {expected}\n"));
    }
    let path = diagnostic.path.to_string();
    text.push_str(&format!("   = at {}\n\n", escape_controls(&path)));
    text
}

/// Every diagnostic rendered with its source line, in order, at most [`MAX_SHOWN_PER_FILE`] per
/// file followed by one "N more" line for that file.
pub fn render_all(diagnostics: &[Diagnostic], sources: &ProjectSources) -> String {
    let mut indexes: BTreeMap<&str, LineIndex<'_>> = BTreeMap::new();
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    let mut text = String::new();
    for diagnostic in diagnostics {
        let count = shown.entry(diagnostic.file.as_str()).or_default();
        *count += 1;
        if *count > MAX_SHOWN_PER_FILE {
            continue;
        }
        let index = indexes.entry(diagnostic.file.as_str()).or_insert_with(|| {
            LineIndex::new(sources.files.get(&diagnostic.file).map_or("", |s| s))
        });
        text.push_str(&render_with_line(diagnostic, index.line(diagnostic.line)));
    }
    for (file, count) in shown {
        if count > MAX_SHOWN_PER_FILE {
            let more = count - MAX_SHOWN_PER_FILE;
            text.push_str(&format!(
                "{}: {more} more diagnostics not shown (`--json` lists them all)\n\n",
                escape_controls(file)
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::FieldPath;

    fn diagnostic(file: &str, line: u32) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            file: file.to_owned(),
            line,
            column: 2,
            path: FieldPath::root(),
            message: format!("problem on line {line}"),
            expected: "something".to_owned(),
        }
    }

    #[test]
    fn the_borrowed_json_view_writes_the_same_bytes_as_the_json_tree() {
        let one = diagnostic("a.ron", 3);
        assert_eq!(
            serde_json::to_string_pretty(&DiagnosticJson::of(&one)).expect("json"),
            serde_json::to_string_pretty(&diagnostic_json(&one)).expect("json")
        );
    }

    #[test]
    fn user_strings_and_source_lines_are_shown_with_their_controls_escaped() {
        let mut hostile = diagnostic("a\u{1b}[2J.ron", 1);
        hostile.column = 12;
        hostile.message = "route `\u{1b}[2J\nerror: forged`".to_owned();
        hostile.expected = "a route\r".to_owned();
        let text = render_with_line(&hostile, Some("x: \"\u{1b}\u{202e}\"\t, y: 1 // \u{7}"));
        // Before column 12: `x: "` (4), ESC and RLO as six characters each, `"`, a tab, `, y`.
        let caret = format!(
            "  | {}\t{}^ expected a route\\r",
            " ".repeat(17),
            " ".repeat(3)
        );
        let expected = [
            "error: route `\\u001b[2J\\nerror: forged`",
            "  --> a\\u001b[2J.ron:1:12",
            "  |",
            "1 | x: \"\\u001b\\u202e\"\t, y: 1 // \\u0007",
            &caret,
            "   = at (document)",
            "",
            "",
        ];
        assert_eq!(text, expected.join("\n"));
    }

    #[test]
    fn line_index_finds_lines_with_and_without_a_final_break() {
        let index = LineIndex::new("a\r\nbb\n\nccc");
        assert_eq!(index.line(1), Some("a"));
        assert_eq!(index.line(2), Some("bb"));
        assert_eq!(index.line(3), Some(""));
        assert_eq!(index.line(4), Some("ccc"));
        assert_eq!(index.line(5), None);
        assert_eq!(index.line(0), None);
    }

    #[test]
    fn each_file_shows_at_most_the_cap_then_a_count() {
        let mut sources = ProjectSources::default();
        sources.files.insert("a.ron".into(), "x\n".repeat(200));
        let diagnostics: Vec<Diagnostic> =
            (1..=120).map(|line| diagnostic("a.ron", line)).collect();
        let text = render_all(&diagnostics, &sources);
        assert_eq!(
            text.matches("error: problem on line").count(),
            MAX_SHOWN_PER_FILE
        );
        assert!(text.contains("problem on line 50\n"), "{text}");
        assert!(!text.contains("problem on line 51\n"));
        assert!(
            text.ends_with("a.ron: 70 more diagnostics not shown (`--json` lists them all)\n\n")
        );
        assert!(text.contains("50 | x\n"), "{text}");
    }
}
