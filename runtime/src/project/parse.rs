//! A strict RON reader that produces a spanned [`Node`] tree and reports positions for every error.
//!
//! Written by hand rather than through `ron`'s serde deserializer because the project reader needs
//! what serde does not give: the line and column of every value (so diagnostics found later, on
//! typed data, still point at the source), duplicate-key detection, a nesting limit, and more than
//! one error per file.

use std::collections::BTreeMap;

use super::node::{FieldPath, Ident, Node, NodeKind, PathSeg, Span};

/// Deepest nesting of lists, maps, tuples and structs a document may have.
pub const MAX_NESTING: usize = 32;

/// Largest source text accepted, in bytes (1 MiB).
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// A problem found while reading the text, with where it is and what was expected there.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// Where the problem is.
    pub span: Span,
    /// What is wrong.
    pub message: String,
    /// What the reader expected at that point.
    pub expected: String,
    /// The field path of the value being read when the problem was found.
    pub path: FieldPath,
}

/// The result of reading one text: the tree (absent after a fatal error) and every error found.
#[derive(Debug)]
pub struct Parsed {
    /// The document tree; `None` when a syntax error stopped the reader.
    pub root: Option<Node>,
    /// Every error, in source order. Duplicate keys are reported but do not stop the reader.
    pub errors: Vec<SyntaxError>,
}

/// Reads a RON text into a spanned tree.
pub fn parse(text: &str) -> Parsed {
    if text.len() > MAX_SOURCE_BYTES {
        return Parsed {
            root: None,
            errors: vec![SyntaxError {
                span: Span {
                    line: 1,
                    column: 1,
                    offset: 0,
                },
                message: format!(
                    "file is {} bytes, over the limit of {} bytes (1 MiB)",
                    text.len(),
                    MAX_SOURCE_BYTES
                ),
                expected: "a source file of at most 1 MiB".to_owned(),
                path: FieldPath::root(),
            }],
        };
    }
    let mut parser = Parser {
        text,
        offset: 0,
        line: 1,
        column: 1,
        depth: 0,
        path: Vec::new(),
        errors: Vec::new(),
    };
    let root = parser.document();
    let mut errors = parser.errors;
    let root = match root {
        Ok(node) => Some(node),
        Err(error) => {
            errors.push(error);
            None
        }
    };
    errors.sort_by_key(|error| error.span.offset);
    Parsed { root, errors }
}

struct Parser<'a> {
    text: &'a str,
    offset: usize,
    line: u32,
    column: u32,
    depth: usize,
    path: Vec<PathSeg>,
    errors: Vec<SyntaxError>,
}

type Result<T> = std::result::Result<T, SyntaxError>;

impl<'a> Parser<'a> {
    fn document(&mut self) -> Result<Node> {
        // A UTF-8 byte-order mark is accepted and takes no column; the canonical writer never
        // writes one back.
        if self.text.starts_with('\u{feff}') {
            self.offset += '\u{feff}'.len_utf8();
        }
        self.skip_trivia()?;
        let node = self.value()?;
        self.skip_trivia()?;
        if let Some(c) = self.peek() {
            return Err(self.error_here(
                format!("unexpected `{c}` after the end of the document"),
                "end of file",
            ));
        }
        Ok(node)
    }

    fn span(&self) -> Span {
        Span {
            line: self.line,
            column: self.column,
            offset: self.offset,
        }
    }

    fn error_at(&self, span: Span, message: impl Into<String>, expected: &str) -> SyntaxError {
        SyntaxError {
            span,
            message: message.into(),
            expected: expected.to_owned(),
            path: FieldPath(self.path.clone()),
        }
    }

    fn error_here(&self, message: impl Into<String>, expected: &str) -> SyntaxError {
        self.error_at(self.span(), message, expected)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.text[self.offset..].chars();
        chars.next();
        chars.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_trivia(&mut self) -> Result<()> {
        loop {
            match (self.peek(), self.peek_second()) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let start = self.span();
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(), self.peek_second()) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => {
                                return Err(self.error_at(
                                    start,
                                    "unterminated block comment",
                                    "`*/` closing the comment",
                                ))
                            }
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn expect_char(&mut self, wanted: char, expected: &str) -> Result<()> {
        self.skip_trivia()?;
        match self.peek() {
            Some(c) if c == wanted => {
                self.bump();
                Ok(())
            }
            Some(c) => Err(self.error_here(format!("unexpected `{c}`"), expected)),
            None => Err(self.error_here("unexpected end of file", expected)),
        }
    }

    fn enter(&mut self, span: Span) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_at(
                span,
                format!("nesting deeper than the limit of {MAX_NESTING} levels"),
                "at most 32 nested lists, maps, tuples or structs",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn value(&mut self) -> Result<Node> {
        self.skip_trivia()?;
        let span = self.span();
        let Some(c) = self.peek() else {
            return Err(self.error_here("unexpected end of file", "a value"));
        };
        let kind = match c {
            '"' => NodeKind::Str(self.string()?),
            '[' => self.list(span)?,
            '{' => self.map(span)?,
            '(' => self.parenthesised(None, span)?,
            '-' | '+' | '0'..='9' | '.' => self.number()?,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let ident = self.ident();
                match ident.name.as_str() {
                    "true" => NodeKind::Bool(true),
                    "false" => NodeKind::Bool(false),
                    "NaN" | "inf" | "infinity" => {
                        return Err(self.error_at(
                            span,
                            format!("non-finite number `{}`", ident.name),
                            "a finite number",
                        ))
                    }
                    _ => {
                        self.skip_trivia()?;
                        if self.peek() == Some('(') {
                            let open = self.span();
                            self.parenthesised(Some(ident), open)?
                        } else {
                            NodeKind::Unit(ident)
                        }
                    }
                }
            }
            other => {
                return Err(self.error_here(format!("unexpected `{other}`"), "a value"));
            }
        };
        Ok(Node { kind, span })
    }

    fn ident(&mut self) -> Ident {
        let span = self.span();
        let start = self.offset;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '_' {
                self.bump();
            } else {
                break;
            }
        }
        Ident {
            name: self.text[start..self.offset].to_owned(),
            span,
        }
    }

    fn string(&mut self) -> Result<String> {
        let start = self.span();
        self.bump();
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error_at(start, "unterminated string", "a closing `\"`"));
            };
            match c {
                '"' => return Ok(out),
                // Canonical files escape line breaks, so a raw one means a missing quote.
                '\n' => {
                    return Err(self.error_at(
                        start,
                        "unterminated string (a line break before its closing quote)",
                        "a closing `\"` on the same line (write line breaks as \\n)",
                    ))
                }
                '\\' => {
                    let escape_span = self.span();
                    match self.bump() {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some('r') => out.push('\r'),
                        Some('0') => out.push('\0'),
                        Some('u') => out.push(self.unicode_escape(escape_span)?),
                        _ => {
                            return Err(self.error_at(
                                escape_span,
                                "unknown escape in string",
                                "one of \\\" \\\\ \\n \\t \\r \\0 \\u{…}",
                            ))
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn unicode_escape(&mut self, span: Span) -> Result<char> {
        let bad =
            |parser: &Self| parser.error_at(span, "malformed unicode escape", "\\u{hex digits}");
        if self.bump() != Some('{') {
            return Err(bad(self));
        }
        let start = self.offset;
        while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit()) {
            self.bump();
        }
        let digits = &self.text[start..self.offset];
        if self.bump() != Some('}') {
            return Err(bad(self));
        }
        u32::from_str_radix(digits, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| bad(self))
    }

    fn number(&mut self) -> Result<NodeKind> {
        let span = self.span();
        let start = self.offset;
        if matches!(self.peek(), Some('-' | '+')) {
            self.bump();
        }
        let body_start = self.offset;
        if self.peek() == Some('0') && matches!(self.peek_second(), Some('x' | 'X')) {
            self.bump();
            self.bump();
            let digits_start = self.offset;
            while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit() || c == '_') {
                self.bump();
            }
            let digits: String = self.text[digits_start..self.offset]
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let negative = self.text[start..body_start].starts_with('-');
            return match i128::from_str_radix(&digits, 16) {
                Ok(value) => Ok(NodeKind::Int(if negative { -value } else { value })),
                Err(_) => Err(self.error_at(span, "malformed hexadecimal integer", "an integer")),
            };
        }
        let mut is_float = false;
        while let Some(c) = self.peek() {
            match c {
                '0'..='9' | '_' => {
                    self.bump();
                }
                '.' | 'e' | 'E' => {
                    is_float = true;
                    self.bump();
                    if matches!(c, 'e' | 'E') && matches!(self.peek(), Some('-' | '+')) {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        if matches!(self.peek(), Some(c) if c.is_ascii_alphabetic()) {
            let ident = self.ident();
            if matches!(ident.name.as_str(), "inf" | "infinity" | "NaN") {
                return Err(self.error_at(span, "non-finite number", "a finite number"));
            }
            return Err(self.error_at(span, "malformed number", "a number"));
        }
        let literal: String = self.text[start..self.offset]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        if is_float {
            match literal.parse::<f64>() {
                Ok(value) if value.is_finite() => Ok(NodeKind::Float(value)),
                Ok(_) => Err(self.error_at(
                    span,
                    format!("number `{literal}` is out of range (non-finite)"),
                    "a finite number",
                )),
                Err(_) => {
                    Err(self.error_at(span, format!("malformed number `{literal}`"), "a number"))
                }
            }
        } else {
            literal.parse::<i128>().map(NodeKind::Int).map_err(|_| {
                self.error_at(span, format!("malformed integer `{literal}`"), "an integer")
            })
        }
    }

    /// Parses comma-separated items up to `close`, allowing a trailing comma.
    fn separated(
        &mut self,
        close: char,
        expected: &str,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(c) if c == close => {
                    self.bump();
                    return Ok(());
                }
                None => return Err(self.error_here("unexpected end of file", expected)),
                _ => {}
            }
            item(self)?;
            self.skip_trivia()?;
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some(c) if c == close => {
                    self.bump();
                    return Ok(());
                }
                Some(c) => return Err(self.error_here(format!("unexpected `{c}`"), expected)),
                None => return Err(self.error_here("unexpected end of file", expected)),
            }
        }
    }

    fn list(&mut self, span: Span) -> Result<NodeKind> {
        self.enter(span)?;
        self.bump();
        let mut items = Vec::new();
        self.separated(']', "`,` or `]`", |parser| {
            parser.path.push(PathSeg::Index(items.len()));
            items.push(parser.value()?);
            parser.path.pop();
            Ok(())
        })?;
        self.leave();
        Ok(NodeKind::List(items))
    }

    fn map(&mut self, span: Span) -> Result<NodeKind> {
        self.enter(span)?;
        self.bump();
        let mut entries: Vec<(Node, Node)> = Vec::new();
        // Key → position in `entries`, so duplicate detection stays linear in the map's size.
        let mut seen: BTreeMap<KeyText, usize> = BTreeMap::new();
        self.separated('}', "`,` or `}`", |parser| {
            let key = parser.value()?;
            parser.expect_char(':', "`:` after a map key")?;
            parser.path.push(match &key.kind {
                NodeKind::Str(text) => PathSeg::Key(text.clone()),
                other => PathSeg::Key(other.describe()),
            });
            let value = parser.value()?;
            let key_text = KeyText::of(&key.kind);
            let duplicate = match &key_text {
                Some(text) => seen.get(text).map(|&at| &entries[at]),
                None => entries
                    .iter()
                    .find(|(existing, _)| existing.kind == key.kind),
            };
            if let Some((first, _)) = duplicate {
                parser.errors.push(SyntaxError {
                    span: key.span,
                    message: format!(
                        "duplicate map key {} (first at line {}, column {})",
                        key.kind.describe(),
                        first.span.line,
                        first.span.column
                    ),
                    expected: "each key at most once".to_owned(),
                    path: FieldPath(parser.path.clone()),
                });
            } else {
                if let Some(text) = key_text {
                    seen.insert(text, entries.len());
                }
                entries.push((key, value));
            }
            parser.path.pop();
            Ok(())
        })?;
        self.leave();
        Ok(NodeKind::Map(entries))
    }

    /// After `Name` or at a bare `(`: a struct with named fields, or positional items.
    fn parenthesised(&mut self, name: Option<Ident>, span: Span) -> Result<NodeKind> {
        self.enter(span)?;
        self.bump();
        self.skip_trivia()?;
        let is_struct = self.looks_like_field();
        let kind = if is_struct {
            let mut fields: Vec<(Ident, Node)> = Vec::new();
            // Field name → position in `fields`, so duplicate detection stays linear.
            let mut seen: BTreeMap<&'a str, usize> = BTreeMap::new();
            let text = self.text;
            self.separated(')', "`,` or `)`", |parser| {
                parser.skip_trivia()?;
                if !matches!(parser.peek(), Some(c) if c.is_ascii_alphabetic() || c == '_') {
                    return Err(parser.error_here("expected a field name", "`field: value`"));
                }
                let field = parser.ident();
                parser.expect_char(':', "`:` after a field name")?;
                parser.path.push(PathSeg::Field(field.name.clone()));
                let value = parser.value()?;
                // The name as written (identifiers are ASCII), borrowed rather than copied.
                let start = field.span.offset;
                let written = text
                    .get(start..start + field.name.len())
                    .unwrap_or_default();
                if let Some((first, _)) = seen.get(written).map(|&at| &fields[at]) {
                    parser.errors.push(SyntaxError {
                        span: field.span,
                        message: format!(
                            "duplicate field `{}` (first at line {}, column {})",
                            field.name, first.span.line, first.span.column
                        ),
                        expected: "each field at most once".to_owned(),
                        path: FieldPath(parser.path.clone()),
                    });
                } else {
                    seen.insert(written, fields.len());
                    fields.push((field, value));
                }
                parser.path.pop();
                Ok(())
            })?;
            NodeKind::Struct { name, fields }
        } else {
            // `Some(x)` is transparent in field paths, as in decoding.
            let transparent = name.as_ref().is_some_and(|n| n.name == "Some");
            let mut items = Vec::new();
            self.separated(')', "`,` or `)`", |parser| {
                if !transparent {
                    parser.path.push(PathSeg::Index(items.len()));
                }
                items.push(parser.value()?);
                if !transparent {
                    parser.path.pop();
                }
                Ok(())
            })?;
            match name {
                Some(name) => NodeKind::Variant { name, items },
                None => NodeKind::Tuple(items),
            }
        };
        self.leave();
        Ok(kind)
    }

    /// True when the text ahead is `identifier :` (a struct field) rather than a value.
    fn looks_like_field(&self) -> bool {
        let rest = &self.text[self.offset..];
        let ident_len = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .count();
        if ident_len == 0 || !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return false;
        }
        skip_trivia_text(&rest[ident_len..]).starts_with(':')
    }
}

/// `text` after any leading whitespace and comments (an unterminated block comment leaves
/// nothing), for looking ahead without moving the reader.
fn skip_trivia_text(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix("//") {
            text = rest.find('\n').map_or("", |at| &rest[at..]);
        } else if let Some(rest) = trimmed.strip_prefix("/*") {
            text = rest.find("*/").map_or("", |at| &rest[at + 2..]);
        } else {
            return trimmed;
        }
    }
}

/// A map key that orders exactly like equality of its node kind: strings, integers and booleans
/// (the keys documents use). Other keys are compared directly.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum KeyText {
    Str(String),
    Int(i128),
    Bool(bool),
}

impl KeyText {
    fn of(kind: &NodeKind) -> Option<KeyText> {
        match kind {
            NodeKind::Str(text) => Some(KeyText::Str(text.clone())),
            NodeKind::Int(value) => Some(KeyText::Int(*value)),
            NodeKind::Bool(value) => Some(KeyText::Bool(*value)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_error(text: &str) -> (u32, u32, String) {
        let parsed = parse(text);
        let error = parsed.errors.first().expect("an error");
        (error.span.line, error.span.column, error.message.clone())
    }

    #[test]
    fn reads_nested_struct_with_positions() {
        let parsed = parse("Recipe(\n    id: \"a\",\n    stages: [1, 2.5],\n)\n");
        assert!(parsed.errors.is_empty());
        let root = parsed.root.expect("root");
        let NodeKind::Struct { name, fields } = root.kind else {
            panic!("not a struct")
        };
        assert_eq!(name.map(|n| n.name), Some("Recipe".to_owned()));
        assert_eq!(fields[1].0.name, "stages");
        assert_eq!((fields[1].1.span.line, fields[1].1.span.column), (3, 13));
        let NodeKind::List(items) = &fields[1].1.kind else {
            panic!("not a list")
        };
        assert_eq!(items[1].kind, NodeKind::Float(2.5));
        assert_eq!((items[1].span.line, items[1].span.column), (3, 17));
    }

    #[test]
    fn reports_duplicate_field_and_keeps_reading() {
        let parsed = parse("(a: 1, b: {\"x\": 1, \"x\": 2}, a: 3)");
        let messages: Vec<_> = parsed
            .errors
            .iter()
            .map(|e| (e.span.column, e.message.clone()))
            .collect();
        assert_eq!(
            messages,
            vec![
                (
                    20,
                    "duplicate map key string \"x\" (first at line 1, column 12)".to_owned()
                ),
                (
                    29,
                    "duplicate field `a` (first at line 1, column 2)".to_owned()
                ),
            ]
        );
        assert!(parsed.root.is_some());
    }

    #[test]
    fn rejects_non_finite_numbers() {
        assert_eq!(
            first_error("(x: NaN)"),
            (1, 5, "non-finite number `NaN`".to_owned())
        );
        assert_eq!(
            first_error("(x: 1e999)"),
            (
                1,
                5,
                "number `1e999` is out of range (non-finite)".to_owned()
            )
        );
    }

    #[test]
    fn rejects_truncated_text_at_its_end() {
        assert_eq!(
            first_error("(a: [1,\n 2"),
            (2, 3, "unexpected end of file".to_owned())
        );
    }

    #[test]
    fn enforces_nesting_limit() {
        let deep = format!("{}{}", "[".repeat(33), "]".repeat(33));
        assert_eq!(
            first_error(&deep),
            (
                1,
                33,
                "nesting deeper than the limit of 32 levels".to_owned()
            )
        );
        let ok = format!("{}{}", "[".repeat(32), "]".repeat(32));
        assert!(parse(&ok).errors.is_empty());
    }

    #[test]
    fn reads_comments_variants_and_hex() {
        let parsed = parse("// head\nSome(Family(\"a\")) /* tail */");
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let parsed = parse("[0xff, -0x10, None, (1, 2)]");
        let NodeKind::List(items) = parsed.root.expect("root").kind else {
            panic!()
        };
        assert_eq!(items[0].kind, NodeKind::Int(255));
        assert_eq!(items[1].kind, NodeKind::Int(-16));
        assert!(matches!(items[2].kind, NodeKind::Unit(ref i) if i.name == "None"));
        assert!(matches!(items[3].kind, NodeKind::Tuple(ref t) if t.len() == 2));
    }
}
