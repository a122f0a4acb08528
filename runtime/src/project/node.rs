//! The spanned syntax tree of a RON document: every value remembers where it was written.

use std::fmt;

/// A position in a source text: 1-based line and column (in characters), and the byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column number, counted in characters.
    pub column: u32,
    /// Byte offset from the start of the text.
    pub offset: usize,
}

/// One value of a RON document together with the position where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What the value is.
    pub kind: NodeKind,
    /// Where the value starts.
    pub span: Span,
}

/// An identifier together with the position where it is written (a struct field name).
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The identifier's text.
    pub name: String,
    /// Where it starts.
    pub span: Span,
}

/// The shapes a RON value can take.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// `true` or `false`.
    Bool(bool),
    /// An integer literal (decimal or `0x` hexadecimal), kept wide so range errors can be reported.
    Int(i128),
    /// A finite floating-point literal.
    Float(f64),
    /// A string literal, unescaped.
    Str(String),
    /// `[a, b, …]`.
    List(Vec<Node>),
    /// `{k: v, …}` in source order (duplicates are rejected by the parser).
    Map(Vec<(Node, Node)>),
    /// `(a, b, …)` without a name.
    Tuple(Vec<Node>),
    /// `Name(field: value, …)` or `(field: value, …)`.
    Struct {
        /// The optional struct name before the parenthesis.
        name: Option<Ident>,
        /// Fields in source order (duplicates are rejected by the parser).
        fields: Vec<(Ident, Node)>,
    },
    /// `Name(a, b, …)`: an enum variant or wrapper with positional values, including `Some(x)`.
    Variant {
        /// The variant name.
        name: Ident,
        /// The positional values.
        items: Vec<Node>,
    },
    /// A bare identifier: a unit enum variant or `None`.
    Unit(Ident),
}

impl NodeKind {
    /// A short description of the shape, used in "found …" parts of diagnostics.
    pub fn describe(&self) -> String {
        match self {
            NodeKind::Bool(value) => format!("boolean `{value}`"),
            NodeKind::Int(value) => format!("integer `{value}`"),
            NodeKind::Float(value) => format!("number `{value}`"),
            NodeKind::Str(text) => format!("string {text:?}"),
            NodeKind::List(_) => "a list".to_owned(),
            NodeKind::Map(_) => "a map".to_owned(),
            NodeKind::Tuple(_) => "a tuple".to_owned(),
            NodeKind::Struct {
                name: Some(name), ..
            } => format!("struct `{}`", name.name),
            NodeKind::Struct { name: None, .. } => "a struct".to_owned(),
            NodeKind::Variant { name, .. } => format!("`{}(…)`", name.name),
            NodeKind::Unit(name) => format!("`{}`", name.name),
        }
    }
}

/// One step of a field path: a struct field, a list index or a map key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathSeg {
    /// A named struct field.
    Field(String),
    /// A position in a list or tuple.
    Index(usize),
    /// A key of a map.
    Key(String),
}

/// A field path from a document's root, such as `stages[2].parameters["cell_size"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(pub Vec<PathSeg>);

impl FieldPath {
    /// The empty path: the document root.
    pub fn root() -> Self {
        FieldPath(Vec::new())
    }

    /// This path extended by a struct field.
    pub fn field(&self, name: &str) -> Self {
        let mut next = self.clone();
        next.0.push(PathSeg::Field(name.to_owned()));
        next
    }

    /// This path extended by a list index.
    pub fn index(&self, index: usize) -> Self {
        let mut next = self.clone();
        next.0.push(PathSeg::Index(index));
        next
    }

    /// This path extended by a map key.
    pub fn key(&self, key: &str) -> Self {
        let mut next = self.clone();
        next.0.push(PathSeg::Key(key.to_owned()));
        next
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(document)");
        }
        for (position, seg) in self.0.iter().enumerate() {
            match seg {
                PathSeg::Field(name) if position == 0 => write!(f, "{name}")?,
                PathSeg::Field(name) => write!(f, ".{name}")?,
                PathSeg::Index(index) => write!(f, "[{index}]")?,
                PathSeg::Key(key) => write!(f, "[{key:?}]")?,
            }
        }
        Ok(())
    }
}

impl Node {
    /// The node at `path` below this one, or the deepest node that exists on the way.
    ///
    /// Used to place a diagnostic found on typed data back onto the line and column it came from.
    pub fn deepest_at(&self, path: &FieldPath) -> &Node {
        let mut current = self;
        for seg in &path.0 {
            match current.child(seg) {
                Some(next) => current = next,
                None => break,
            }
        }
        current
    }

    /// The direct child named by `seg`, if any.
    pub fn child(&self, seg: &PathSeg) -> Option<&Node> {
        match (&self.kind, seg) {
            (NodeKind::Struct { fields, .. }, PathSeg::Field(name)) => fields
                .iter()
                .find(|(ident, _)| &ident.name == name)
                .map(|(_, node)| node),
            (NodeKind::List(items), PathSeg::Index(index))
            | (NodeKind::Tuple(items), PathSeg::Index(index))
            | (NodeKind::Variant { items, .. }, PathSeg::Index(index)) => items.get(*index),
            (NodeKind::Map(entries), PathSeg::Key(key)) => entries
                .iter()
                .find(|(k, _)| matches!(&k.kind, NodeKind::Str(s) if s == key))
                .map(|(_, v)| v),
            // `Some(x)` is transparent for paths, so a field path never mentions it.
            (NodeKind::Variant { name, items }, _) if name.name == "Some" && items.len() == 1 => {
                items[0].child(seg)
            }
            _ => None,
        }
    }
}

/// Containers with more children than this get a lookup index in a [`Locator`]; smaller ones are
/// searched directly, which is faster than an index at that size.
const INDEXED_CHILDREN: usize = 16;

/// Finds the node of a field path in logarithmic time per step, for placing many diagnostics in
/// one large file (a linear search per diagnostic makes a file with many keys quadratic).
///
/// Built once per tree by one walk; only large maps and structs are indexed.
#[derive(Debug, Default)]
pub struct Locator {
    /// For each large map or struct (by its path): child key or field name → position.
    children: std::collections::BTreeMap<FieldPath, std::collections::BTreeMap<String, usize>>,
}

impl Locator {
    /// Indexes every large container of `tree`.
    pub fn new(tree: &Node) -> Locator {
        let mut locator = Locator::default();
        let mut path = FieldPath::root();
        locator.index(tree, &mut path);
        locator
    }

    fn index(&mut self, node: &Node, path: &mut FieldPath) {
        match &node.kind {
            NodeKind::Struct { fields, .. } => {
                if fields.len() > INDEXED_CHILDREN {
                    let names = fields.iter().enumerate();
                    let index = names.map(|(i, (f, _))| (f.name.clone(), i)).collect();
                    self.children.insert(path.clone(), index);
                }
                for (field, child) in fields {
                    path.0.push(PathSeg::Field(field.name.clone()));
                    self.index(child, path);
                    path.0.pop();
                }
            }
            NodeKind::Map(entries) => {
                if entries.len() > INDEXED_CHILDREN {
                    let keys = entries
                        .iter()
                        .enumerate()
                        .filter_map(|(i, (k, _))| match &k.kind {
                            NodeKind::Str(key) => Some((key.clone(), i)),
                            _ => None,
                        });
                    self.children.insert(path.clone(), keys.collect());
                }
                for (key, child) in entries {
                    let NodeKind::Str(key) = &key.kind else {
                        continue;
                    };
                    path.0.push(PathSeg::Key(key.clone()));
                    self.index(child, path);
                    path.0.pop();
                }
            }
            NodeKind::List(items) | NodeKind::Tuple(items) | NodeKind::Variant { items, .. } => {
                let transparent = matches!(&node.kind, NodeKind::Variant { name, items } if name.name == "Some" && items.len() == 1);
                for (position, child) in items.iter().enumerate() {
                    if !transparent {
                        path.0.push(PathSeg::Index(position));
                    }
                    self.index(child, path);
                    if !transparent {
                        path.0.pop();
                    }
                }
            }
            _ => {}
        }
    }

    /// The node at `path` in `tree` (the tree this locator was built from), or the deepest node
    /// that exists on the way: the same answer as [`Node::deepest_at`].
    pub fn deepest_at<'t>(&self, tree: &'t Node, path: &FieldPath) -> &'t Node {
        let mut current = tree;
        let mut prefix = FieldPath::root();
        for seg in &path.0 {
            let next = match self.indexed_child(current, &prefix, seg) {
                Some(found) => found,
                None => current.child(seg),
            };
            match next {
                Some(next) => current = next,
                None => break,
            }
            // `Some(x)` is transparent: the prefix names the wrapper and its content alike.
            prefix.0.push(seg.clone());
        }
        current
    }

    /// The child through the index of a large container; `None` when it has no index.
    fn indexed_child<'t>(
        &self,
        node: &'t Node,
        prefix: &FieldPath,
        seg: &PathSeg,
    ) -> Option<Option<&'t Node>> {
        let mut node = node;
        while let NodeKind::Variant { name, items } = &node.kind {
            match items.as_slice() {
                [inner] if name.name == "Some" => node = inner,
                _ => break,
            }
        }
        let index = self.children.get(prefix)?;
        let found = match (&node.kind, seg) {
            (NodeKind::Struct { fields, .. }, PathSeg::Field(name)) => {
                index.get(name).and_then(|&i| fields.get(i)).map(|(_, n)| n)
            }
            (NodeKind::Map(entries), PathSeg::Key(key)) => {
                index.get(key).and_then(|&i| entries.get(i)).map(|(_, n)| n)
            }
            _ => return None,
        };
        Some(found)
    }
}
