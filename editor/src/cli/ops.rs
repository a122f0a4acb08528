//! `stagecraft ops`: the operator catalogue with ports and parameter schemas, as text or JSON.

use std::io::Write;

use stagecraft_runtime::ops::registry::{
    OperatorDescriptor, ParamDefault, Preset, Presets, Registry,
};

/// `stagecraft ops --markdown`: the operator sections of `docs/format.md`, one per operator with
/// its ports and a parameter table (type, unit, range, default, meaning).
pub fn markdown() -> String {
    let registry = Registry::standard();
    let mut text = String::new();
    for op in registry.operators() {
        text.push_str(&format!(
            "\n### `{}` (algorithm {})\n\n{}\n\nLocality: {}. Scope: {}. Output: {}.\n\n",
            op.id,
            op.algorithm,
            op.summary,
            op.locality.name(),
            op.data_scope.works_at.name(),
            output_text(op)
        ));
        if !op.inputs.is_empty() {
            text.push_str("| input | kind | required | meaning |\n| --- | --- | --- | --- |\n");
            for port in op.inputs {
                let need = if port.required { "yes" } else { "no" };
                text.push_str(&format!(
                    "| `{}` | {} | {need} | {} |\n",
                    port.name,
                    port.kind.name(),
                    cell(port.doc)
                ));
            }
            text.push('\n');
        }
        if op.params.is_empty() {
            text.push_str("No parameters.\n");
            continue;
        }
        text.push_str(
            "| parameter | type | unit | range | default | meaning |\n| --- | --- | --- | --- | --- | --- |\n",
        );
        for p in op.params {
            let unit = if p.unit.is_empty() { "–" } else { p.unit };
            text.push_str(&format!(
                "| `{}` | {} | {unit} | {} | {} | {} |\n",
                p.name,
                p.ty.name(),
                cell(&p.range.describe()),
                cell(&default_text(&p.default)),
                cell(p.doc)
            ));
        }
        text.push_str(&presets_markdown(&op.presets));
    }
    text
}

/// The table of an operator's named presets (empty when it has none).
fn presets_markdown(presets: &Presets) -> String {
    if presets.rows.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\nPresets, chosen by `{}`; a parameter the stage gives overrides the preset's:\n\n| preset | values | meaning |\n| --- | --- | --- |\n",
        presets.param
    );
    for preset in presets.rows {
        text.push_str(&format!(
            "| `{}` | {} | {} |\n",
            preset.name,
            cell(&preset_values(preset)),
            cell(preset.doc)
        ));
    }
    text
}

/// A preset's values as `name: value` pairs.
fn preset_values(preset: &Preset) -> String {
    preset
        .values
        .iter()
        .map(|(name, value)| format!("`{name}`: {}", value.describe()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table cell: pipes escaped so a doc line cannot break the table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `stagecraft ops`: every registered operator with its ports and parameter schema.
pub fn ops(json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let registry = Registry::standard();
    if json {
        let operators: Vec<serde_json::Value> = registry
            .operators()
            .map(|op| {
                serde_json::json!({
                    "id": op.id,
                    "algorithm": op.algorithm,
                    "summary": op.summary,
                    "locality": op.locality.name(),
                    "data_scope": op.data_scope.works_at.name(),
                    "output": output_text(op),
                    "inputs": op.inputs.iter().map(|p| serde_json::json!({
                        "name": p.name, "kind": p.kind.name(), "required": p.required, "doc": p.doc,
                    })).collect::<Vec<_>>(),
                    "parameters": op.params.iter().map(|p| serde_json::json!({
                        "name": p.name,
                        "type": p.ty.name(),
                        "unit": p.unit,
                        "range": p.range.describe(),
                        "default": default_text(&p.default),
                        "doc": p.doc,
                    })).collect::<Vec<_>>(),
                    "presets": op.presets.rows.iter().map(|preset| serde_json::json!({
                        "name": preset.name,
                        "doc": preset.doc,
                        "values": preset_values(preset),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let report = serde_json::json!({ "operators": operators });
        super::json_out::write_document(out, "ops", &report)?;
        return Ok(0);
    }
    for op in registry.operators() {
        writeln!(
            out,
            "{} v{} ({}) → {}",
            op.id,
            op.algorithm,
            op.locality.name(),
            output_text(op)
        )?;
        writeln!(out, "  {}", op.summary)?;
        for port in op.inputs {
            let need = if port.required {
                "required"
            } else {
                "optional"
            };
            writeln!(
                out,
                "  input  {:<22} {:<14} {need:<8} {}",
                port.name,
                port.kind.name(),
                port.doc
            )?;
        }
        for p in op.params {
            writeln!(
                out,
                "  param  {:<26} {:<10} {:<14} {:<24} default {:<10} {}",
                p.name,
                p.ty.name(),
                if p.unit.is_empty() { "-" } else { p.unit },
                p.range.describe(),
                default_text(&p.default),
                p.doc
            )?;
        }
        writeln!(out)?;
    }
    Ok(0)
}

/// What an operator publishes: its product kind, or, for one whose stages each decide it (a
/// subrecipe), what decides it.
fn output_text(op: &OperatorDescriptor) -> &'static str {
    op.output_kind()
        .map_or("the kind of the child output it publishes", |kind| {
            kind.name()
        })
}

fn default_text(default: &ParamDefault) -> String {
    match default {
        ParamDefault::Required => "required".to_owned(),
        ParamDefault::Optional => "optional".to_owned(),
        ParamDefault::Bool(v) => v.to_string(),
        ParamDefault::Int(v) => v.to_string(),
        ParamDefault::Float(v) => format!("{v:?}"),
        ParamDefault::EmptyList => "[]".to_owned(),
    }
}
