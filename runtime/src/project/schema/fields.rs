//! Field schemas: one description per field of a document section (name, label, type, unit,
//! checked range, default, help), read by the simulation's compiler (`sim::scenario` checks each
//! range), the Inspector (labels, units, ranges, reset-to-default), `stagecraft schema` and
//! `docs/format.md` (generated from these tables; `editor/tests/format_reference.rs` checks it).

use super::scenario::NumberRange;

/// What a field is when a file leaves it out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldDefault {
    /// The field must be given.
    Required,
    /// A number (an integer field's default is whole).
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// Anything else, as a file writes it (`None`, `[]`, `""`, `TurnBack`).
    Text(&'static str),
}

impl FieldDefault {
    /// The default as `docs/format.md` and `stagecraft schema` print it (`required`, `` `1.4` ``).
    pub fn text(&self, integer: bool) -> String {
        match self {
            FieldDefault::Required => "required".to_owned(),
            FieldDefault::Number(value) if integer => format!("`{value:.0}`"),
            FieldDefault::Number(value) => format!("`{value:?}`"),
            FieldDefault::Bool(value) => format!("`{value}`"),
            FieldDefault::Text(text) => format!("`{text}`"),
        }
    }

    /// The number, for a numeric default.
    pub fn number(&self) -> Option<f64> {
        match self {
            FieldDefault::Number(value) => Some(*value),
            _ => None,
        }
    }
}

/// One field of a document section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldSchema {
    /// The field's name in the file.
    pub name: &'static str,
    /// Its name in the Inspector.
    pub label: &'static str,
    /// Its type in words (`float`, `integer (u32)`, `(x, y, z)`, …).
    pub ty: &'static str,
    /// Its unit (`m`, `s`, `m/s`, `rad`, `frames`; empty for none).
    pub unit: &'static str,
    /// The range the compiler checks (a value outside it is an error located at the field).
    pub range: Option<NumberRange>,
    /// What else the value must satisfy, in words (`a recipe of the project`); empty for nothing.
    pub rule: &'static str,
    /// What a file that leaves it out gets.
    pub default: FieldDefault,
    /// One line: what it means (the Inspector's hover text and the docs' meaning column).
    pub help: &'static str,
}

impl FieldSchema {
    /// A blank field to fill with struct update syntax.
    pub const BLANK: FieldSchema = FieldSchema {
        name: "",
        label: "",
        ty: "float",
        unit: "",
        range: None,
        rule: "",
        default: FieldDefault::Required,
        help: "",
    };

    /// Whether the field holds an integer.
    pub fn is_integer(&self) -> bool {
        self.ty.starts_with("integer")
    }

    /// The range column of the docs: the checked range's words, then the rule.
    pub fn range_text(&self) -> String {
        match (self.range, self.rule) {
            (Some(range), "") => range.text.to_owned(),
            (Some(range), rule) => format!("{}; {rule}", range.text),
            (None, "") => "–".to_owned(),
            (None, rule) => rule.to_owned(),
        }
    }

    /// The unit as a widget suffix (`" m"`, `""`).
    pub fn suffix(&self) -> String {
        match self.unit {
            "" => String::new(),
            unit => format!(" {unit}"),
        }
    }
}

/// One section of a document: a record the file writes as `Name(…)`, with its fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SectionSchema {
    /// The record's name in the file (`Crossings`).
    pub name: &'static str,
    /// Where it sits in its document (`crossings`, `sources[…]`, `motion.exits[…]`; empty for the
    /// document root).
    pub path: &'static str,
    /// Its heading in the Inspector.
    pub label: &'static str,
    /// One line: what it is (the docs' heading note).
    pub help: &'static str,
    /// Its fields, in canonical (file) order.
    pub fields: &'static [FieldSchema],
}

impl SectionSchema {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldSchema> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The field named `name`; a name the section lacks is a programming error caught by the
    /// tests that walk every section (it returns a blank field rather than panic).
    pub fn get(&self, name: &str) -> &'static FieldSchema {
        self.field(name).unwrap_or(&FieldSchema::BLANK)
    }
}

/// One document kind with its sections (the root section first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DocumentSchema {
    /// The document kind (`scenario`).
    pub kind: &'static str,
    /// Its file name pattern.
    pub file: &'static str,
    /// Its current schema version.
    pub version: u32,
    /// Its sections: the root record first, then every nested record.
    pub sections: &'static [SectionSchema],
}

/// Any finite number (a coordinate, an angle).
pub const FINITE: NumberRange = NumberRange {
    min: f64::NEG_INFINITY,
    min_open: true,
    max: f64::INFINITY,
    text: "finite",
};

/// A positive finite number.
pub const POSITIVE: NumberRange = NumberRange {
    min: 0.0,
    min_open: true,
    max: f64::INFINITY,
    text: "> 0",
};

/// A number in [0, 1] (a share, a fade, a relevance).
pub const UNIT_INTERVAL: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: 1.0,
    text: "a value in [0, 1]",
};

impl NumberRange {
    /// Whether this is [`POSITIVE`] (the compiler reports "not a positive number" for it).
    pub fn is_positive(&self) -> bool {
        self.min == 0.0 && self.min_open && self.max == f64::INFINITY
    }
}
