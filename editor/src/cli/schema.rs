//! `stagecraft schema [--json|--markdown]`: every document schema (manifest, recipe, scenario
//! with its sections, override set, family), the directive table and the override actions —
//! the runtime's field schemas, the same data the Inspector renders. `--markdown` also gives
//! the scenario tables of `docs/format.md` (see [`scenario_markdown`]).

use std::io::Write;

use serde_json::{json, Value};
use stagecraft_runtime::project::{
    DocumentSchema, FieldDefault, FieldSchema, SectionSchema, ACTION_SCHEMA, DIRECTIVE_SCHEMA,
    DOCUMENT_SCHEMAS, SCENARIO_DOCUMENT, TIER_POLICIES,
};

/// Runs `stagecraft schema`: text, `--json` or `--markdown`.
pub fn schema(json: bool, markdown: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    if json {
        super::json_out::write_document(out, "schema", &schema_json())?;
    } else if markdown {
        write!(out, "{}", all_markdown())?;
    } else {
        write!(out, "{}", text())?;
    }
    Ok(0)
}

/// The whole schema as JSON: `documents`, `directives`, `tier_policies`, `override_actions`; snake_case keys
/// throughout (the `schema` key, `stagecraft.schema/1`, is added as every document's).
pub fn schema_json() -> Value {
    json!({
        "documents": DOCUMENT_SCHEMAS.iter().map(document_json).collect::<Vec<_>>(),
        "directives": DIRECTIVE_SCHEMA.iter().map(|d| json!({
            "name": d.name,
            "label": d.label,
            "targets": d.targets.name(),
            "target_kinds": d.targets.kinds(),
            "world": d.is_world(),
            "help": d.help,
            "fields": d.fields.iter().map(field_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "tier_policies": TIER_POLICIES.iter().map(|p| json!({
            "name": p.name,
            "label": p.label,
            "help": p.doc,
            "values": p.values.fields().iter().map(|(name, _)| {
                (name.to_string(), p.values.number(name).map_or(Value::Null, |v| json!(v)))
            }).collect::<serde_json::Map<String, Value>>(),
        })).collect::<Vec<_>>(),
        "override_actions": ACTION_SCHEMA.iter().map(|a| json!({
            "name": a.name,
            "label": a.label,
            "properties": a.properties,
            "help": a.doc,
            "fields": a.fields.iter().map(|f| json!({
                "name": f.name, "type": f.kind, "help": f.doc,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn document_json(document: &DocumentSchema) -> Value {
    json!({
        "kind": document.kind,
        "file": document.file,
        "version": document.version,
        "sections": document.sections.iter().map(|s| json!({
            "name": s.name,
            "path": s.path,
            "label": s.label,
            "help": s.help,
            "fields": s.fields.iter().map(field_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn field_json(field: &FieldSchema) -> Value {
    let default = match field.default {
        FieldDefault::Required => Value::Null,
        FieldDefault::Number(value) if field.is_integer() => json!(value as i64),
        FieldDefault::Number(value) => json!(value),
        FieldDefault::Bool(value) => json!(value),
        FieldDefault::Text(text) => json!(text),
    };
    let range = field.range.map(|r| {
        // Unbounded ends are `null` (JSON has no infinity).
        let end = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
        json!({ "min": end(r.min), "min_open": r.min_open, "max": end(r.max), "text": r.text })
    });
    json!({
        "name": field.name,
        "label": field.label,
        "type": field.ty,
        "unit": field.unit,
        "range": range,
        "rule": field.rule,
        "required": field.default == FieldDefault::Required,
        "default": default,
        "help": field.help,
    })
}

/// A table cell: pipes escaped so a doc line cannot break the table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// One section as a `docs/format.md` table under `### \`Name(…)\` — help`.
fn section_markdown(section: &SectionSchema, heading_note: &str) -> String {
    let mut text = format!("\n### `{}(…)` — {heading_note}\n\n", section.name);
    text.push_str("| field | type | unit | range | default | meaning |\n");
    text.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for f in section.fields {
        let unit = if f.unit.is_empty() { "–" } else { f.unit };
        text.push_str(&format!(
            "| `{}` | {} | {unit} | {} | {} | {} |\n",
            f.name,
            cell(f.ty),
            cell(&f.range_text()),
            cell(&f.default.text(f.is_integer())),
            cell(f.help)
        ));
    }
    text
}

/// The scenario sections and the directive table as `docs/format.md` has them between
/// `<!-- scenario:begin -->` and `<!-- scenario:end -->`.
pub fn scenario_markdown() -> String {
    let mut text = String::new();
    for (index, section) in SCENARIO_DOCUMENT.sections.iter().enumerate() {
        let note = if index == 0 {
            format!("{} (schema {})", section.help, SCENARIO_DOCUMENT.version)
        } else {
            section.help.to_owned()
        };
        text.push_str(&section_markdown(section, &note));
        if section.name == "Motion" {
            text.push_str(&tier_policies_markdown());
        }
    }
    text.push_str("\n### Directive commands\n\n");
    text.push_str(
        "A directive's `command`: a world command takes the target `World`, a pedestrian \
         command `Born(…)`, `Handle(…)` or `NearestAmbient(…)`. Fields without a default are \
         required.\n\n",
    );
    text.push_str("| command | label | target | fields | meaning |\n");
    text.push_str("| --- | --- | --- | --- | --- |\n");
    for d in DIRECTIVE_SCHEMA {
        let fields: Vec<String> = d
            .fields
            .iter()
            .map(|f| {
                let unit = if f.unit.is_empty() {
                    String::new()
                } else {
                    format!(", {}", f.unit)
                };
                let range = f.range.map(|r| format!(", {}", r.text)).unwrap_or_default();
                let default = match f.default {
                    FieldDefault::Required => String::new(),
                    other => format!(" = {}", other.text(f.is_integer())),
                };
                format!("`{}`{default} ({}{unit}{range}): {}", f.name, f.ty, f.help)
            })
            .collect();
        let fields = if fields.is_empty() {
            "–".to_owned()
        } else {
            fields.join("; ")
        };
        text.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            d.name,
            d.label,
            d.targets.name(),
            cell(&fields),
            cell(d.help)
        ));
    }
    text
}

/// The tier policies `motion.tier_policy` chooses, as a table under the `Motion(…)` table.
fn tier_policies_markdown() -> String {
    let mut text = String::from(
        "\nTier policies, chosen by `tier_policy` (see \"Tier policies\" below); a tier field \
         the scenario gives overrides the policy's:\n\n\
         | policy | values | meaning |\n| --- | --- | --- |\n",
    );
    for policy in TIER_POLICIES {
        let values: Vec<String> = policy
            .values
            .fields()
            .iter()
            .map(|(name, value)| {
                let limit = if *value == u32::MAX.to_string() {
                    " (no limit)"
                } else {
                    ""
                };
                format!("`{name}`: {value}{limit}")
            })
            .collect();
        text.push_str(&format!(
            "| `{}` | {} | {} |\n",
            policy.name,
            cell(&values.join(", ")),
            cell(policy.doc)
        ));
    }
    text
}

/// The motion profile document's tables as `docs/format.md` has them between
/// `<!-- motion:begin -->` and `<!-- motion:end -->`.
pub fn motion_markdown() -> String {
    let document = stagecraft_runtime::project::MOTION_DOCUMENT;
    let mut text = String::new();
    for (index, section) in document.sections.iter().enumerate() {
        let note = if index == 0 {
            format!("{} (schema {})", section.help, document.version)
        } else {
            section.help.to_owned()
        };
        text.push_str(&section_markdown(section, &note));
    }
    text
}

/// Every document's sections as Markdown tables, then the directive table.
fn all_markdown() -> String {
    let mut text = String::new();
    for document in DOCUMENT_SCHEMAS.iter().filter(|d| d.kind != "scenario") {
        text.push_str(&format!(
            "\n## {} — `{}` (schema {})\n",
            document.kind, document.file, document.version
        ));
        for section in document.sections {
            text.push_str(&section_markdown(section, section.help));
        }
    }
    text.push_str("\n## scenario\n");
    text.push_str(&scenario_markdown());
    text
}

/// The plain listing: one line per field with its unit, range and default.
fn text() -> String {
    let mut text = String::new();
    for document in DOCUMENT_SCHEMAS {
        text.push_str(&format!(
            "{} ({}, schema {})\n",
            document.kind, document.file, document.version
        ));
        for section in document.sections {
            text.push_str(&format!("  {} {}\n", section.name, section.path));
            for f in section.fields {
                text.push_str(&format!(
                    "    {:<26} {:<10} {:<40} {}\n",
                    f.name,
                    if f.unit.is_empty() { "–" } else { f.unit },
                    f.range_text(),
                    f.default.text(f.is_integer()).replace('`', "")
                ));
            }
        }
    }
    text.push_str("directives\n");
    for d in DIRECTIVE_SCHEMA {
        let fields: Vec<&str> = d.fields.iter().map(|f| f.name).collect();
        text.push_str(&format!(
            "  {:<22} {:<6} {}\n",
            d.name,
            d.targets.name(),
            fields.join(", ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_lists_every_scenario_section_and_directive_kind() {
        let value = schema_json();
        assert_eq!(
            value["documents"].as_array().map(Vec::len),
            Some(DOCUMENT_SCHEMAS.len())
        );
        let scenario = value["documents"]
            .as_array()
            .and_then(|d| d.iter().find(|d| d["kind"] == "scenario"))
            .expect("the scenario document");
        let sections = scenario["sections"].as_array().expect("sections");
        assert_eq!(sections.len(), SCENARIO_DOCUMENT.sections.len());
        let crossings = sections
            .iter()
            .find(|s| s["name"] == "Crossings")
            .expect("crossings");
        let lanes = &crossings["fields"][0];
        assert_eq!(lanes["name"], "lanes");
        assert_eq!(lanes["range"]["min"], json!(1.0));
        assert_eq!(lanes["range"]["max"], json!(5.0));
        assert_eq!(lanes["default"], json!(2));
        assert_eq!(
            value["directives"].as_array().map(Vec::len),
            Some(DIRECTIVE_SCHEMA.len())
        );
        let crowd = &value["tier_policies"][1];
        assert_eq!(crowd["name"], "crowd-radii");
        assert_eq!(crowd["values"]["full_enter_m"], json!(6.0));
        assert_eq!(crowd["values"]["medium_relevance"], json!(0.35));
        assert_eq!(
            value["tier_policies"][0]["values"]["full_exit_m"],
            json!(32.0)
        );
    }

    #[test]
    fn the_markdown_has_one_table_per_section_and_the_directive_table() {
        let text = scenario_markdown();
        assert!(text.contains("### `Crossings(…)` — a scenario's `crossings`"));
        assert!(text.contains("| `lanes` | integer (u32) | lanes | 1 to 5 lateral lanes | `2` |"));
        assert!(text.contains("| `Stand` | Stand (timed) | ped |"));
        assert!(text.contains(
            "| `crowd-radii` | `full_enter_m`: 6.0, `full_exit_m`: 6.0, `simulated_enter_m`: 18.0, \
             `simulated_exit_m`: 18.0, `full_capacity`: 4294967295 (no limit),"
        ));
        assert!(text.contains("| `motion-bands` | `full_enter_m`: 25.0, `full_exit_m`: 32.0,"));
        assert_eq!(
            text.matches("\n### ").count(),
            SCENARIO_DOCUMENT.sections.len() + 1
        );
    }
}
