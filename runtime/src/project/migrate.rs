//! Schema versions and migrations: each document kind reads its older versions by rewriting the
//! tree one version at a time (N−1 → N) before decoding.

use super::decode::Decoder;
use super::node::{Ident, Node, NodeKind, PathSeg, Span};
use super::schema::{
    FAMILY_SCHEMA, MANIFEST_SCHEMA, OVERRIDES_SCHEMA, RECIPE_SCHEMA, SCENARIO_SCHEMA,
};

/// The kinds of project document, each with its own schema version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    /// `stagecraft.ron`.
    Manifest,
    /// `recipes/<id>.recipe.ron`.
    Recipe,
    /// `scenarios/<id>.scenario.ron`.
    Scenario,
    /// `overrides/<id>.overrides.ron`.
    Overrides,
    /// `<asset path>/<id>.family.ron`.
    Family,
}

impl DocKind {
    /// The schema version this build writes.
    pub fn current_schema(self) -> u32 {
        match self {
            DocKind::Manifest => MANIFEST_SCHEMA,
            DocKind::Recipe => RECIPE_SCHEMA,
            DocKind::Scenario => SCENARIO_SCHEMA,
            DocKind::Overrides => OVERRIDES_SCHEMA,
            DocKind::Family => FAMILY_SCHEMA,
        }
    }

    /// The oldest schema version this build can still read (through migrations).
    pub fn oldest_schema(self) -> u32 {
        1
    }
}

/// Brings `root` to the current schema of `kind`, reporting a missing or unsupported version.
///
/// Returns the version the document was written in, or `None` if it cannot be read. A top level
/// that is not a struct, or a struct without `schema`, is decoded as the current version, so that
/// decoding reports the wrong shape or every missing field at once (never a silent drop).
pub fn migrate_to_current(kind: DocKind, root: &mut Node, cx: &mut Decoder) -> Option<u32> {
    let NodeKind::Struct { fields, .. } = &mut root.kind else {
        return Some(kind.current_schema());
    };
    let Some((_, schema_node)) = fields.iter_mut().find(|(ident, _)| ident.name == "schema") else {
        return Some(kind.current_schema());
    };
    let NodeKind::Int(written) = schema_node.kind else {
        cx.at(PathSeg::Field("schema".into()), |cx| {
            cx.wrong_type(schema_node, "an integer schema version")
        });
        return None;
    };
    let current = kind.current_schema();
    if written < i128::from(kind.oldest_schema()) || written > i128::from(current) {
        let span = schema_node.span;
        cx.at(PathSeg::Field("schema".into()), |cx| {
            cx.error(
                span,
                format!("unknown schema version {written}"),
                format!(
                    "a schema version from {} to {current}",
                    kind.oldest_schema()
                ),
            )
        });
        return None;
    }
    let written = written as u32;
    schema_node.kind = NodeKind::Int(current.into());
    for from in written..current {
        migrate_step(kind, from, fields, cx);
    }
    Some(written)
}

/// One migration step from version `from` to `from + 1`.
fn migrate_step(kind: DocKind, from: u32, fields: &mut Vec<(Ident, Node)>, cx: &mut Decoder) {
    match (kind, from) {
        (DocKind::Manifest, 1) => manifest_v1_to_v2(fields, cx),
        (DocKind::Overrides, 1) => overrides_v1_to_v2(fields, cx),
        _ => {}
    }
}

/// Override sets 1 → 2: a schema-1 `LockSelection` recorded no variant; it becomes
/// `LockSelection(variant: "")`, which keeps the generated base's variant until a rebase records
/// one. A schema-1 `LockTransform` recorded no transform and there is none to keep: it is reported
/// at the action (the file must be locked again). The set gets `base_seed: None` (not bound to a
/// seed, so nothing applies before an explicit rebase) and each override `base: ""`, by default.
fn overrides_v1_to_v2(fields: &mut [(Ident, Node)], cx: &mut Decoder) {
    let Some((_, list)) = fields
        .iter_mut()
        .find(|(ident, _)| ident.name == "overrides")
    else {
        return;
    };
    let NodeKind::List(items) = &mut list.kind else {
        return;
    };
    for (index, item) in items.iter_mut().enumerate() {
        let NodeKind::Struct { fields, .. } = &mut item.kind else {
            continue;
        };
        let Some((_, action)) = fields.iter_mut().find(|(ident, _)| ident.name == "action") else {
            continue;
        };
        let NodeKind::Unit(ident) = &action.kind else {
            continue;
        };
        let span = action.span;
        match ident.name.as_str() {
            "LockSelection" => {
                let name = Ident {
                    name: "LockSelection".into(),
                    span: ident.span,
                };
                let variant = Node {
                    kind: NodeKind::Str(String::new()),
                    span,
                };
                let variant_ident = Ident {
                    name: "variant".into(),
                    span,
                };
                action.kind = NodeKind::Struct {
                    name: Some(name),
                    fields: vec![(variant_ident, variant)],
                };
            }
            "LockTransform" => {
                cx.at(PathSeg::Field("overrides".into()), |cx| {
                    cx.at(PathSeg::Index(index), |cx| {
                        cx.at(PathSeg::Field("action".into()), |cx| {
                            cx.error(
                                span,
                                "a schema-1 `LockTransform` recorded no transform, so schema 2 has none to keep",
                                "`LockTransform(position: …, rotation: …, scale: …)` (lock the object again)",
                            )
                        })
                    })
                });
            }
            _ => {}
        }
    }
}

/// Manifest 1 → 2: `seed` became `root_seed`, and the single `assets` folder became the list
/// `asset_paths`. A version-1 file that gives both an old and a new name is a conflict: it is
/// reported at the old name, and the old field is dropped so no value is silently chosen (the
/// error keeps the document from being used or rewritten).
fn manifest_v1_to_v2(fields: &mut Vec<(Ident, Node)>, cx: &mut Decoder) {
    let renames = [("seed", "root_seed"), ("assets", "asset_paths")];
    for (old, new) in renames {
        let has_new = fields.iter().any(|(ident, _)| ident.name == new);
        let Some(at) = fields.iter().position(|(ident, _)| ident.name == old) else {
            continue;
        };
        if has_new {
            let span = fields[at].0.span;
            cx.at(PathSeg::Field(old.into()), |cx| {
                cx.error(
                    span,
                    format!(
                        "both `{old}` (its name in schema 1) and `{new}` are given; they conflict"
                    ),
                    format!("only `{new}` (or only `{old}` in a schema 1 file)"),
                )
            });
            fields.remove(at);
        }
    }
    for (ident, node) in fields.iter_mut() {
        match ident.name.as_str() {
            "seed" => ident.name = "root_seed".into(),
            "assets" => {
                ident.name = "asset_paths".into();
                let span: Span = node.span;
                let single = std::mem::replace(&mut node.kind, NodeKind::List(Vec::new()));
                node.kind = NodeKind::List(vec![Node { kind: single, span }]);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::decode::Decode;
    use crate::project::parse::parse;
    use crate::project::schema::Manifest;

    #[test]
    fn manifest_version_1_reads_as_version_2() {
        let text = "Manifest(\n    schema: 1,\n    name: \"Old\",\n    seed: 42,\n    assets: \"../../assets\",\n    recipes: [\"a\"],\n)\n";
        let mut root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("stagecraft.ron");
        assert_eq!(
            migrate_to_current(DocKind::Manifest, &mut root, &mut cx),
            Some(1)
        );
        let manifest = Manifest::decode(&root, &mut cx).expect("decodes");
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        assert_eq!(manifest.root_seed, 42);
        assert_eq!(manifest.asset_paths, vec!["../../assets".to_owned()]);
        assert_eq!(manifest.recipes, vec!["a".to_owned()]);
    }

    #[test]
    fn override_set_version_1_reads_as_version_2() {
        use crate::project::schema::{OverrideAction, OverrideSet};
        let text = "OverrideSet(\n    schema: 1,\n    id: \"o\",\n    recipe: \"r\",\n    base_revision: \"\",\n    overrides: [\n        Override(stage: 2, target: 5, precedence: 1, action: LockSelection),\n        Override(stage: 2, target: 6, action: Move(position: (1.0, 2.0))),\n    ],\n)\n";
        let mut root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("overrides/o.overrides.ron");
        assert_eq!(
            migrate_to_current(DocKind::Overrides, &mut root, &mut cx),
            Some(1)
        );
        let set = OverrideSet::decode(&root, &mut cx).expect("decodes");
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        assert_eq!(set.base_seed, None, "not bound to a seed until a rebase");
        assert_eq!(
            set.overrides[0].action,
            OverrideAction::LockSelection {
                variant: String::new()
            }
        );
        assert_eq!(set.overrides[0].base, "");
        assert!(set.mutations.is_empty());
    }

    #[test]
    fn a_version_1_lock_transform_is_reported_where_it_is() {
        let text = "OverrideSet(\n    schema: 1,\n    id: \"o\",\n    recipe: \"r\",\n    overrides: [\n        Override(stage: 2, target: 5, action: LockTransform),\n    ],\n)\n";
        let mut root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("overrides/o.overrides.ron");
        migrate_to_current(DocKind::Overrides, &mut root, &mut cx);
        let diagnostic = &cx.diagnostics[0];
        assert_eq!((diagnostic.line, diagnostic.column), (6, 47));
        assert_eq!(diagnostic.path.to_string(), "overrides[0].action");
        assert!(diagnostic.message.contains("recorded no transform"));
    }

    #[test]
    fn unknown_version_is_reported_at_the_schema_field() {
        let mut root = parse("Manifest(\n    schema: 9,\n    name: \"x\",\n)")
            .root
            .expect("parses");
        let mut cx = Decoder::new("stagecraft.ron");
        assert_eq!(
            migrate_to_current(DocKind::Manifest, &mut root, &mut cx),
            None
        );
        let diagnostic = &cx.diagnostics[0];
        assert_eq!((diagnostic.line, diagnostic.column), (2, 13));
        assert_eq!(diagnostic.message, "unknown schema version 9");
        assert_eq!(diagnostic.path.to_string(), "schema");
    }
}
