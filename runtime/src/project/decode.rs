//! Typed decoding of a [`Node`] tree that collects every diagnostic instead of stopping at one.

use std::collections::BTreeMap;

use super::diagnostic::{Diagnostic, Severity};
use super::node::{FieldPath, Ident, Node, NodeKind, PathSeg, Span};
use super::write::Doc;

/// Converts a spanned node into a typed value, reporting problems to the [`Decoder`].
///
/// Returns `None` when the node cannot become a `Self`; the reason is already reported.
pub trait Decode: Sized {
    /// Decodes `node`, reporting every problem found to `cx`.
    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self>;

    /// What a value of this type looks like, for the "expected" part of a missing-field
    /// diagnostic (`docs/format.md` has the full reference).
    fn expected() -> String {
        "a value of the type docs/format.md gives for this field".to_owned()
    }
}

/// Converts a typed value into its canonical [`Doc`].
pub trait Encode {
    /// The canonical document of this value.
    fn encode(&self) -> Doc;
}

/// Collects diagnostics for one file while decoding it, tracking the current field path.
pub struct Decoder {
    file: String,
    path: Vec<PathSeg>,
    /// Every diagnostic reported so far.
    pub diagnostics: Vec<Diagnostic>,
}

impl Decoder {
    /// A decoder for the file at `file` (relative to the project folder).
    pub fn new(file: &str) -> Self {
        Decoder {
            file: file.to_owned(),
            path: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// The current field path.
    pub fn path(&self) -> FieldPath {
        FieldPath(self.path.clone())
    }

    /// Reports an error at `span` for an explicit field path (used for syntax errors).
    pub fn error_at_path(
        &mut self,
        span: Span,
        path: FieldPath,
        message: String,
        expected: String,
    ) {
        self.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            file: self.file.clone(),
            line: span.line,
            column: span.column,
            path,
            message,
            expected,
        });
    }

    /// Reports an error at `span` for the current field path.
    pub fn error(&mut self, span: Span, message: impl Into<String>, expected: impl Into<String>) {
        self.report(Severity::Error, span, message.into(), expected.into());
    }

    /// Reports a warning at `span` for the current field path.
    pub fn warning(&mut self, span: Span, message: impl Into<String>, expected: impl Into<String>) {
        self.report(Severity::Warning, span, message.into(), expected.into());
    }

    fn report(&mut self, severity: Severity, span: Span, message: String, expected: String) {
        self.diagnostics.push(Diagnostic {
            severity,
            file: self.file.clone(),
            line: span.line,
            column: span.column,
            path: self.path(),
            message,
            expected,
        });
    }

    /// Reports that `node` has the wrong shape.
    pub fn wrong_type(&mut self, node: &Node, expected: &str) {
        self.error(
            node.span,
            format!("wrong type: found {}", node.kind.describe()),
            expected,
        );
    }

    /// Runs `f` with `seg` appended to the current path.
    pub fn at<T>(&mut self, seg: PathSeg, f: impl FnOnce(&mut Self) -> T) -> T {
        self.path.push(seg);
        let result = f(self);
        self.path.pop();
        result
    }

    /// Opens a struct node named `name` (the name may be omitted in the source) whose fields are
    /// `known`; reports unknown fields and a wrong name.
    pub fn record<'n>(&mut self, node: &'n Node, name: &str, known: &[&str]) -> Option<Record<'n>> {
        let NodeKind::Struct {
            name: written,
            fields,
        } = &node.kind
        else {
            self.wrong_type(node, &format!("a `{name}(…)` struct"));
            return None;
        };
        if let Some(written) = written {
            if written.name != name {
                self.error(
                    written.span,
                    format!("wrong struct name `{}`", written.name),
                    format!("`{name}`"),
                );
            }
        }
        // Built once per record: a file with many unknown fields must not pay for it per field.
        let mut expected: Option<String> = None;
        for (field, _) in fields {
            if !known.contains(&field.name.as_str()) {
                let message = format!("unknown field `{}` in `{name}`", field.name);
                let expected = expected
                    .get_or_insert_with(|| format!("one of {}", quote_list(known)))
                    .clone();
                self.at(PathSeg::Field(field.name.clone()), |cx| {
                    cx.error(field.span, message, expected)
                });
            }
        }
        Some(Record {
            span: node.span,
            name: name.to_owned(),
            fields,
        })
    }

    /// Decodes the required field `field` of `record`, reporting it when missing.
    pub fn required<T: Decode>(&mut self, record: &Record<'_>, field: &str) -> Option<T> {
        match record.get(field) {
            Some(node) => self.at(PathSeg::Field(field.to_owned()), |cx| T::decode(node, cx)),
            None => {
                let message = format!("missing field `{field}` in `{}`", record.name);
                let expected = format!("field `{field}`: {}{}", T::expected(), unit_of(field));
                self.error(record.span, message, expected);
                None
            }
        }
    }

    /// Decodes the optional field `field`: `Some(None)` when absent, `None` when present but bad
    /// (the problem is already reported).
    pub fn optional<T: Decode>(&mut self, record: &Record<'_>, field: &str) -> Option<Option<T>> {
        match record.get(field) {
            Some(node) => self
                .at(PathSeg::Field(field.to_owned()), |cx| T::decode(node, cx))
                .map(Some),
            None => Some(None),
        }
    }

    /// Decodes a field that has a default, used when it is absent.
    pub fn defaulted<T: Decode>(
        &mut self,
        record: &Record<'_>,
        field: &str,
        default: T,
    ) -> Option<T> {
        self.optional(record, field)
            .map(|value| value.unwrap_or(default))
    }
}

/// The fields of one struct node being decoded.
pub struct Record<'n> {
    /// Where the struct starts.
    pub span: Span,
    name: String,
    fields: &'n [(Ident, Node)],
}

impl<'n> Record<'n> {
    /// The node of field `name`, if present.
    pub fn get(&self, name: &str) -> Option<&'n Node> {
        self.fields
            .iter()
            .find(|(ident, _)| ident.name == name)
            .map(|(_, node)| node)
    }
}

/// The unit a field's name gives by its suffix (`_m`, `_s`, …), as words for a diagnostic.
fn unit_of(field: &str) -> &'static str {
    const UNITS: [(&str, &str); 6] = [
        ("_m", ", in meters"),
        ("_s", ", in seconds"),
        ("_ms", ", in milliseconds"),
        ("_deg", ", in degrees"),
        ("_rad", ", in radians"),
        ("_mps", ", in meters per second"),
    ];
    UNITS
        .iter()
        .find(|(suffix, _)| field.ends_with(suffix))
        .map_or("", |(_, unit)| unit)
}

fn quote_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Decode for String {
    fn expected() -> String {
        "a string `\"…\"`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Str(text) => Some(text.clone()),
            _ => {
                cx.wrong_type(node, "a string");
                None
            }
        }
    }
}

impl Encode for String {
    fn encode(&self) -> Doc {
        Doc::Str(self.clone())
    }
}

impl Decode for bool {
    fn expected() -> String {
        "`true` or `false`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match node.kind {
            NodeKind::Bool(value) => Some(value),
            _ => {
                cx.wrong_type(node, "`true` or `false`");
                None
            }
        }
    }
}

impl Encode for bool {
    fn encode(&self) -> Doc {
        Doc::Bool(*self)
    }
}

macro_rules! integer_codec {
    ($($ty:ty),*) => {$(
        impl Decode for $ty {
            fn expected() -> String {
                format!(concat!("an integer (", stringify!($ty), ", {}..={})"), <$ty>::MIN, <$ty>::MAX)
            }

            fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
                let expected = concat!("an integer in the range of ", stringify!($ty));
                match node.kind {
                    NodeKind::Int(value) => match <$ty>::try_from(value) {
                        Ok(value) => Some(value),
                        Err(_) => {
                            cx.error(
                                node.span,
                                format!("integer {value} is out of range"),
                                format!("{expected} ({}..={})", <$ty>::MIN, <$ty>::MAX),
                            );
                            None
                        }
                    },
                    _ => {
                        cx.wrong_type(node, expected);
                        None
                    }
                }
            }
        }

        impl Encode for $ty {
            fn encode(&self) -> Doc {
                Doc::Int(i128::from(*self))
            }
        }
    )*};
}

integer_codec!(u8, u16, u32, u64, i16, i32, i64);

impl Decode for f64 {
    fn expected() -> String {
        "a number with a decimal point, such as `1.0`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match node.kind {
            NodeKind::Float(value) => Some(value),
            _ => {
                cx.wrong_type(node, "a number with a decimal point, such as `1.0`");
                None
            }
        }
    }
}

impl Encode for f64 {
    fn encode(&self) -> Doc {
        Doc::Float(*self)
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn expected() -> String {
        format!("a list `[…]`, each item {}", T::expected())
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let NodeKind::List(items) = &node.kind else {
            cx.wrong_type(node, "a list `[…]`");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut complete = true;
        for (index, item) in items.iter().enumerate() {
            match cx.at(PathSeg::Index(index), |cx| T::decode(item, cx)) {
                Some(value) => out.push(value),
                None => complete = false,
            }
        }
        complete.then_some(out)
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self) -> Doc {
        Doc::List(self.iter().map(Encode::encode).collect())
    }
}

impl<T: Decode> Decode for BTreeMap<String, T> {
    fn expected() -> String {
        format!(
            "a map `{{\"key\": value, …}}`, each value {}",
            T::expected()
        )
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let NodeKind::Map(entries) = &node.kind else {
            cx.wrong_type(node, "a map `{\"key\": value, …}`");
            return None;
        };
        let mut out = BTreeMap::new();
        let mut complete = true;
        for (key, value) in entries {
            let NodeKind::Str(key_text) = &key.kind else {
                cx.wrong_type(key, "a string key");
                complete = false;
                continue;
            };
            match cx.at(PathSeg::Key(key_text.clone()), |cx| T::decode(value, cx)) {
                Some(decoded) => {
                    out.insert(key_text.clone(), decoded);
                }
                None => complete = false,
            }
        }
        complete.then_some(out)
    }
}

impl<T: Encode> Encode for BTreeMap<String, T> {
    fn encode(&self) -> Doc {
        Doc::Map(
            self.iter()
                .map(|(key, value)| (Doc::Str(key.clone()), value.encode()))
                .collect(),
        )
    }
}

impl<T: Decode> Decode for Option<T> {
    fn expected() -> String {
        format!("`None` or `Some(…)` of {}", T::expected())
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) if ident.name == "None" => Some(None),
            NodeKind::Variant { name, items } if name.name == "Some" && items.len() == 1 => {
                T::decode(&items[0], cx).map(Some)
            }
            _ => {
                cx.wrong_type(node, "`None` or `Some(…)`");
                None
            }
        }
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self) -> Doc {
        match self {
            Some(value) => Doc::Variant("Some", vec![value.encode()]),
            None => Doc::Unit("None"),
        }
    }
}

/// Decodes a tuple node of exactly `N` items with `item`.
pub fn decode_tuple<T, const N: usize>(
    node: &Node,
    cx: &mut Decoder,
    expected: &str,
    item: impl Fn(&Node, &mut Decoder) -> Option<T>,
) -> Option<[T; N]> {
    let NodeKind::Tuple(items) = &node.kind else {
        cx.wrong_type(node, expected);
        return None;
    };
    if items.len() != N {
        cx.error(
            node.span,
            format!("tuple has {} items", items.len()),
            expected.to_owned(),
        );
        return None;
    }
    let decoded: Vec<Option<T>> = items
        .iter()
        .enumerate()
        .map(|(index, node)| cx.at(PathSeg::Index(index), |cx| item(node, cx)))
        .collect();
    let values: Option<Vec<T>> = decoded.into_iter().collect();
    values.and_then(|values| values.try_into().ok())
}

/// Decodes a unit enum variant from `names`, returning its position in the list.
pub fn decode_unit_variant(node: &Node, cx: &mut Decoder, names: &[&str]) -> Option<usize> {
    match &node.kind {
        NodeKind::Unit(ident) => match names.iter().position(|name| *name == ident.name) {
            Some(position) => Some(position),
            None => {
                cx.error(
                    node.span,
                    format!("unknown variant `{}`", ident.name),
                    format!("one of {}", quote_list(names)),
                );
                None
            }
        },
        _ => {
            cx.wrong_type(node, &format!("one of {}", quote_list(names)));
            None
        }
    }
}
