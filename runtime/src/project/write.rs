//! The canonical RON writer: one text for one value, so saved files diff cleanly and round-trip.
//!
//! Rules: structs and non-empty lists and maps put one entry per line with 4-space indentation
//! and a trailing comma; tuples and variants of scalars stay on one line; floats are written in
//! shortest round-trip form and always carry a `.` or an exponent; the text ends with exactly one
//! newline. Field order is the order the [`Doc`] lists them in (the schema's order), and maps are
//! sorted by whoever builds the [`Doc`] (they come from `BTreeMap`s).

use std::fmt::Write as _;

/// A value to be written canonically. Built by the schema's encoders.
#[derive(Clone, Debug, PartialEq)]
pub enum Doc {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A finite float.
    Float(f64),
    /// A string.
    Str(String),
    /// `[…]`.
    List(Vec<Doc>),
    /// `{key: value, …}`, written in the given order.
    Map(Vec<(Doc, Doc)>),
    /// `(a, b, …)`.
    Tuple(Vec<Doc>),
    /// `Name(field: value, …)`.
    Struct(&'static str, Vec<(&'static str, Doc)>),
    /// `Name(a, …)`: an enum variant with positional values, or `Some(x)`.
    Variant(&'static str, Vec<Doc>),
    /// A unit enum variant or `None`.
    Unit(&'static str),
}

impl Doc {
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Doc::Bool(_) | Doc::Int(_) | Doc::Float(_) | Doc::Str(_) | Doc::Unit(_)
        ) || matches!(self, Doc::Tuple(items) | Doc::Variant(_, items) if items.iter().all(Doc::is_scalar))
    }
}

/// Writes `doc` canonically, ending with one newline.
pub fn to_canonical_string(doc: &Doc) -> String {
    let mut out = String::with_capacity(4096);
    write_doc(&mut out, doc, 0);
    out.push('\n');
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

/// Formats a float in shortest round-trip form with a `.` or exponent, as RON readers expect.
pub fn format_float(value: f64) -> String {
    // `Debug` for f64 prints the shortest text that reads back to the same bits, with `.0` on
    // integral values and an exponent for very large or small magnitudes.
    format!("{value:?}")
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_inline_items(out: &mut String, items: &[Doc], level: usize) {
    out.push('(');
    for (position, item) in items.iter().enumerate() {
        if position > 0 {
            out.push_str(", ");
        }
        write_doc(out, item, level);
    }
    out.push(')');
}

fn write_doc(out: &mut String, doc: &Doc, level: usize) {
    match doc {
        Doc::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Doc::Int(value) => {
            let _ = write!(out, "{value}");
        }
        Doc::Float(value) => out.push_str(&format_float(*value)),
        Doc::Str(text) => write_string(out, text),
        Doc::Unit(name) => out.push_str(name),
        Doc::List(items) if items.is_empty() => out.push_str("[]"),
        Doc::List(items) => {
            out.push_str("[\n");
            for item in items {
                indent(out, level + 1);
                write_doc(out, item, level + 1);
                out.push_str(",\n");
            }
            indent(out, level);
            out.push(']');
        }
        Doc::Map(entries) if entries.is_empty() => out.push_str("{}"),
        Doc::Map(entries) => {
            out.push_str("{\n");
            for (key, value) in entries {
                indent(out, level + 1);
                write_doc(out, key, level + 1);
                out.push_str(": ");
                write_doc(out, value, level + 1);
                out.push_str(",\n");
            }
            indent(out, level);
            out.push('}');
        }
        Doc::Struct(name, fields) if fields.is_empty() => {
            out.push_str(name);
            out.push_str("()");
        }
        Doc::Struct(name, fields) => {
            out.push_str(name);
            out.push_str("(\n");
            for (field, value) in fields {
                indent(out, level + 1);
                out.push_str(field);
                out.push_str(": ");
                write_doc(out, value, level + 1);
                out.push_str(",\n");
            }
            indent(out, level);
            out.push(')');
        }
        Doc::Tuple(items) if doc.is_scalar() => write_inline_items(out, items, level),
        Doc::Variant(name, items) if doc.is_scalar() || items.len() == 1 => {
            out.push_str(name);
            write_inline_items(out, items, level);
        }
        Doc::Tuple(items) | Doc::Variant(_, items) => {
            if let Doc::Variant(name, _) = doc {
                out.push_str(name);
            }
            out.push_str("(\n");
            for item in items {
                indent(out, level + 1);
                write_doc(out, item, level + 1);
                out.push_str(",\n");
            }
            indent(out, level);
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_struct_list_and_map_canonically() {
        let doc = Doc::Struct(
            "Stage",
            vec![
                ("id", Doc::Int(1001)),
                ("scale", Doc::Float(1.0)),
                ("at", Doc::Tuple(vec![Doc::Float(0.5), Doc::Float(-2.0)])),
                (
                    "inputs",
                    Doc::List(vec![Doc::Str("a\"b".into()), Doc::Int(3)]),
                ),
                ("empty", Doc::List(vec![])),
                (
                    "parameters",
                    Doc::Map(vec![(Doc::Str("k".into()), Doc::Float(1e-7))]),
                ),
                ("boxed", Doc::Variant("Some", vec![Doc::Unit("Cone")])),
            ],
        );
        let expected = "Stage(\n    id: 1001,\n    scale: 1.0,\n    at: (0.5, -2.0),\n    inputs: [\n        \"a\\\"b\",\n        3,\n    ],\n    empty: [],\n    parameters: {\n        \"k\": 1e-7,\n    },\n    boxed: Some(Cone),\n)\n";
        assert_eq!(to_canonical_string(&doc), expected);
    }

    #[test]
    fn floats_are_shortest_round_trip() {
        for value in [0.1, 1.0 / 3.0, 1e300, -0.0, 123456789.125, 5e-324] {
            let text = format_float(value);
            assert_eq!(text.parse::<f64>().map(f64::to_bits), Ok(value.to_bits()));
        }
        assert_eq!(format_float(0.35), "0.35");
        assert_eq!(format_float(4.0), "4.0");
    }
}
