//! The one way a command prints JSON: every document is an object with the key `schema`
//! (`"stagecraft.<document>/<version>"`), keys in snake_case, written pretty with a final line
//! break. Errors under `--json` are one [`error_json`] object on stdout. `docs/cli-json.md`
//! documents every document and its keys; `editor/tests/cli_json.rs` keeps the two in step.
//!
//! A new command prints its report with [`write_document`] (or builds it with [`document`]) and
//! lets its errors travel up as [`CliError`]s (or any `anyhow` error): `cli::run` renders them.

use std::io::Write;

use serde::Serialize;

use super::error::CliError;

/// The version of every document this build writes (the runtime's, shared with the exported
/// files); a document's version moves when a key it had is renamed, removed or changes type.
pub use stagecraft_runtime::export::JSON_SCHEMA_VERSION as SCHEMA_VERSION;

/// The `schema` value of document `name`: `stagecraft.<name>/<version>`.
pub use stagecraft_runtime::export::schema_id;

/// `value` as document `name`: `value` must serialize to an object, which gains the `schema` key
/// (an array or scalar is wrapped as `{"schema", "items"}`, so every document is an object).
pub fn document(name: &str, value: &impl Serialize) -> anyhow::Result<serde_json::Value> {
    let value = serde_json::to_value(value)?;
    let mut object = match value {
        serde_json::Value::Object(object) => object,
        other => {
            let mut object = serde_json::Map::new();
            object.insert("items".to_owned(), other);
            object
        }
    };
    object.insert("schema".to_owned(), schema_id(name).into());
    Ok(serde_json::Value::Object(object))
}

/// Writes `value` as document `name` (see [`document`]) to `out`, pretty, with a line break.
pub fn write_document(
    out: &mut dyn Write,
    name: &str,
    value: &impl Serialize,
) -> anyhow::Result<()> {
    let document = document(name, value)?;
    writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    Ok(())
}

/// The error object `--json` prints for a failed command: the `schema` `stagecraft.error/1`,
/// the command, the exit code, a machine-readable `code`, the message, the location (`file`,
/// `line`, `column`, field `path`; `null` where unknown) and the diagnostics behind it.
pub fn error_json(command: &str, error: &anyhow::Error) -> serde_json::Value {
    let located = CliError::of(error);
    let diagnostics: Vec<serde_json::Value> = located
        .diagnostics
        .iter()
        .map(super::diagnostics::diagnostic_json)
        .collect();
    serde_json::json!({
        "schema": schema_id("error"),
        "command": command,
        "exit_code": located.exit_code,
        "code": located.code,
        "message": located.message,
        "file": located.file,
        "line": located.line,
        "column": located.column,
        "path": located.path,
        "diagnostics": diagnostics,
    })
}

/// A key as snake_case (the runtime's rule, shared with the Python module's dicts).
pub use stagecraft_runtime::export::snake_key;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_gains_its_schema_and_keeps_its_keys() {
        let value = document("check", &serde_json::json!({"errors": 2})).expect("json");
        assert_eq!(
            value,
            serde_json::json!({"schema": "stagecraft.check/1", "errors": 2})
        );
        let wrapped = document("ops", &serde_json::json!([1, 2])).expect("json");
        assert_eq!(
            wrapped,
            serde_json::json!({"schema": "stagecraft.ops/1", "items": [1, 2]})
        );
    }

    #[test]
    fn keys_become_snake_case() {
        assert_eq!(snake_key("rejected: no-spawn box"), "rejected_no_spawn_box");
        assert_eq!(snake_key("step ms"), "step_ms");
        assert_eq!(snake_key("Ped cycles"), "ped_cycles");
        assert_eq!(snake_key("alive"), "alive");
        assert_eq!(snake_key("  a--b  "), "a_b");
    }

    #[test]
    fn an_error_object_carries_its_location_and_exit_code() {
        let error = anyhow::Error::new(
            CliError::new(1, "invalid_bundle", "manifest.ron: damaged").in_file("out/bundle"),
        );
        let value = error_json("verify", &error);
        assert_eq!(value["schema"], "stagecraft.error/1");
        assert_eq!(value["command"], "verify");
        assert_eq!(value["exit_code"], 1);
        assert_eq!(value["code"], "invalid_bundle");
        assert_eq!(value["message"], "manifest.ron: damaged");
        assert_eq!(value["file"], "out/bundle");
        assert_eq!(value["line"], serde_json::Value::Null);
        let plain = error_json("check", &anyhow::anyhow!("cannot read x"));
        assert_eq!(plain["exit_code"], 2);
        assert_eq!(plain["code"], "error");
        assert_eq!(plain["message"], "cannot read x");
    }
}
