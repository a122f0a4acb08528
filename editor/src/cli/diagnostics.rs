//! Diagnostics rendering shared by the commands: JSON objects and text with the source line.

use stagecraft_runtime::project::{Diagnostic, Severity};

/// One diagnostic as a JSON object.
pub fn diagnostic_json(diagnostic: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "severity": match diagnostic.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "file": diagnostic.file,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "path": diagnostic.path.to_string(),
        "message": diagnostic.message,
        "expected": diagnostic.expected,
    })
}

/// A diagnostic with its source line and a caret under the offending column.
pub fn render_diagnostic(diagnostic: &Diagnostic, source: Option<&String>) -> String {
    let severity = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut text = format!(
        "{severity}: {}\n  --> {}:{}:{}\n",
        diagnostic.message, diagnostic.file, diagnostic.line, diagnostic.column
    );
    let line_text = source.and_then(|s| s.lines().nth(diagnostic.line.saturating_sub(1) as usize));
    if let Some(line_text) = line_text {
        let number = diagnostic.line.to_string();
        let gutter = " ".repeat(number.len());
        let caret_pad: String = line_text
            .chars()
            .take(diagnostic.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        text.push_str(&format!(
            "{gutter} |\n{number} | {line_text}\n{gutter} | {caret_pad}^ expected {}\n",
            diagnostic.expected
        ));
    } else {
        text.push_str(&format!("   = expected {}\n", diagnostic.expected));
    }
    text.push_str(&format!("   = at {}\n\n", diagnostic.path));
    text
}
