//! Schema versions and migrations: each document kind reads its older versions by rewriting the
//! tree one version at a time (N−1 → N) before decoding.

use super::decode::Decoder;
use super::node::{Ident, Node, NodeKind, PathSeg, Span};
use super::schema::{
    FAMILY_SCHEMA, MANIFEST_SCHEMA, MOTION_SCHEMA, OVERRIDES_SCHEMA, RECIPE_SCHEMA, SCENARIO_SCHEMA,
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
    /// `<asset path>/<id>.motion.ron`.
    Motion,
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
            DocKind::Motion => MOTION_SCHEMA,
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
        (DocKind::Overrides, 2) => overrides_v2_to_v3(fields),
        (DocKind::Scenario, 1) => scenario_v1_to_v2(fields),
        // Scenario 2 → 3 added `objects` and `barriers`, both empty by default: the tree needs
        // no rewrite, the decoder fills the defaults.
        (DocKind::Scenario, 2) => {}
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

/// Override sets 2 → 3: an `Add`'s identity moves into the authored space. Schema 2 gave an added
/// object a candidate index at or above its stage's candidates per cell, which a higher candidate
/// count reached (the object then collided and vanished); schema 3 keeps authored identities in
/// candidate indices 128..=255, which no layer draws. An `Add` whose target has an index `k` below
/// 128 gets `128 + k` in the same room, layer and cell, or, when another `Add` of the set already
/// has that one, the lowest free authored index there. Every override and mutation of the set that
/// names the old identity (a rotate of the added object, a harvest) follows it. Targets that are
/// not integers or not packed identities are left for the decoder and the runtime to report.
fn overrides_v2_to_v3(fields: &mut [(Ident, Node)]) {
    use crate::identity::{authored_id, ScatterId};
    let targets = |fields: &[(Ident, Node)], list: &str| -> Vec<(usize, Option<u64>, bool)> {
        let Some(NodeKind::List(items)) = field(fields, list).map(|n| &n.kind) else {
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let NodeKind::Struct { fields, .. } = &item.kind else {
                    return None;
                };
                let target = match field(fields, "target")?.kind {
                    NodeKind::Int(t) => u64::try_from(t).ok(),
                    _ => None,
                };
                let is_add = field(fields, "action").is_some_and(|a| {
                    matches!(&a.kind, NodeKind::Struct { name: Some(n), .. } if n.name == "Add")
                });
                Some((i, target, is_add))
            })
            .collect()
    };
    let adds: Vec<ScatterId> = targets(fields, "overrides")
        .into_iter()
        .filter(|(_, _, is_add)| *is_add)
        .filter_map(|(_, target, _)| ScatterId::from_bits(target?).ok())
        .collect();
    let mut used: Vec<u64> = adds
        .iter()
        .filter(|id| id.is_authored())
        .map(|id| id.bits())
        .collect();
    let mut moved: Vec<(u64, u64)> = Vec::new();
    for id in adds.iter().filter(|id| !id.is_authored()) {
        if moved.iter().any(|(old, _)| *old == id.bits()) {
            continue;
        }
        let k = id.unpack();
        let (room, layer) = (u32::from(k.room.get()), u32::from(k.layer));
        let (cx, cy) = (i64::from(k.cell_x), i64::from(k.cell_y));
        let preferred =
            crate::identity::pack_scatter_id(room, layer, 128 + u32::from(k.candidate), cx, cy)
                .ok()
                .filter(|p| !used.contains(&p.bits()));
        let Some(new) = preferred.or_else(|| authored_id(room, layer, cx, cy, &used)) else {
            continue;
        };
        used.push(new.bits());
        moved.push((id.bits(), new.bits()));
    }
    for list in ["overrides", "mutations"] {
        let Some((_, node)) = fields.iter_mut().find(|(i, _)| i.name == list) else {
            continue;
        };
        let NodeKind::List(items) = &mut node.kind else {
            continue;
        };
        for item in items {
            let NodeKind::Struct { fields, .. } = &mut item.kind else {
                continue;
            };
            let Some((_, target)) = fields.iter_mut().find(|(i, _)| i.name == "target") else {
                continue;
            };
            let NodeKind::Int(bits) = target.kind else {
                continue;
            };
            if let Some((_, new)) = moved.iter().find(|(old, _)| i128::from(*old) == bits) {
                target.kind = NodeKind::Int(i128::from(*new));
            }
        }
    }
}

/// Scenario 1 → 2: a directive's `source` and `agent` became `target: Born(source, ordinal)`,
/// and `Release` names the owner that releases. A version-1 release carried no owner; it was
/// meant for the pedestrian's claimer, so it takes the owner of the latest earlier `Claim` of
/// the same pedestrian in the file (by frame, then file order), or `""` when there is none (the
/// runtime then refuses it as not the owner, as it would refuse any stranger). Directives that
/// are not structs, or miss a field, are left for the decoder to report.
fn scenario_v1_to_v2(fields: &mut [(Ident, Node)]) {
    let Some((_, directives)) = fields.iter_mut().find(|(i, _)| i.name == "directives") else {
        return;
    };
    let NodeKind::List(items) = &mut directives.kind else {
        return;
    };
    // (frame, file index, source, agent, owner) of every claim, to find a release's claimer.
    let claims: Vec<(i128, usize, String, i128, String)> = items
        .iter()
        .enumerate()
        .filter_map(|(index, node)| {
            let (frame, source, agent, command) = v1_directive(node)?;
            let owner = claim_owner(command)?;
            Some((frame, index, source, agent, owner))
        })
        .collect();
    for (index, node) in items.iter_mut().enumerate() {
        let Some((frame, source, agent, _)) = v1_directive(node) else {
            continue;
        };
        let owner = claims
            .iter()
            .filter(|c| c.2 == source && c.3 == agent && (c.0, c.1) < (frame, index))
            .max_by_key(|c| (c.0, c.1))
            .map_or(String::new(), |c| c.4.clone());
        rewrite_v1_directive(node, owner);
    }
}

fn field<'n>(fields: &'n [(Ident, Node)], name: &str) -> Option<&'n Node> {
    fields.iter().find(|(i, _)| i.name == name).map(|(_, n)| n)
}

/// `(frame, source, agent, command)` of a well-formed version-1 directive.
fn v1_directive(node: &Node) -> Option<(i128, String, i128, &Node)> {
    let NodeKind::Struct { fields, .. } = &node.kind else {
        return None;
    };
    let frame = match field(fields, "frame")?.kind {
        NodeKind::Int(frame) => frame,
        _ => return None,
    };
    let source = match &field(fields, "source")?.kind {
        NodeKind::Str(source) => source.clone(),
        _ => return None,
    };
    let agent = match field(fields, "agent")?.kind {
        NodeKind::Int(agent) => agent,
        _ => return None,
    };
    Some((frame, source, agent, field(fields, "command")?))
}

fn claim_owner(command: &Node) -> Option<String> {
    let NodeKind::Struct {
        name: Some(name),
        fields,
    } = &command.kind
    else {
        return None;
    };
    if name.name != "Claim" {
        return None;
    }
    match &field(fields, "owner")?.kind {
        NodeKind::Str(owner) => Some(owner.clone()),
        _ => None,
    }
}

fn rewrite_v1_directive(node: &mut Node, release_owner: String) {
    let span = node.span;
    let NodeKind::Struct { fields, .. } = &mut node.kind else {
        return;
    };
    let take = |fields: &mut Vec<(Ident, Node)>, name: &str| {
        let at = fields.iter().position(|(i, _)| i.name == name)?;
        Some(fields.remove(at))
    };
    let (Some(source), Some(agent)) = (take(fields, "source"), take(fields, "agent")) else {
        return;
    };
    let (mut source_ident, mut agent_ident) = (source.0, agent.0);
    let target_ident = Ident {
        name: "target".into(),
        span: source_ident.span,
    };
    source_ident.name = "source".into();
    agent_ident.name = "ordinal".into();
    let target = Node {
        kind: NodeKind::Struct {
            name: Some(Ident {
                name: "Born".into(),
                span,
            }),
            fields: vec![(source_ident, source.1), (agent_ident, agent.1)],
        },
        span,
    };
    let at = fields
        .iter()
        .position(|(i, _)| i.name == "command")
        .unwrap_or(fields.len());
    fields.insert(at, (target_ident, target));
    if let Some((_, command)) = fields.iter_mut().find(|(i, _)| i.name == "command") {
        if matches!(&command.kind, NodeKind::Unit(i) if i.name == "Release") {
            let span = command.span;
            command.kind = NodeKind::Struct {
                name: Some(Ident {
                    name: "Release".into(),
                    span,
                }),
                fields: vec![(
                    Ident {
                        name: "owner".into(),
                        span,
                    },
                    Node {
                        kind: NodeKind::Str(release_owner),
                        span,
                    },
                )],
            };
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
    fn override_set_version_2_moves_added_identities_into_the_authored_space() {
        use crate::project::schema::OverrideSet;
        // Two adds in cell (0, 6) of room 1, layer 0 at candidates 2 and 3; an older authored
        // one already holds 130 (128 + 2), a rotate and a harvest name the first add.
        let id = |k: u64| (1u64 << 48) | (k << 32) | 6;
        let text = format!(
            "OverrideSet(\n    schema: 2,\n    id: \"o\",\n    recipe: \"r\",\n    overrides: [\n        Override(stage: 1, target: {}, action: Add(variant: \"a\", position: (1.0, 2.0))),\n        Override(stage: 1, target: {}, action: Add(variant: \"a\", position: (1.0, 3.0))),\n        Override(stage: 1, target: {}, action: Add(variant: \"a\", position: (1.0, 4.0))),\n        Override(stage: 1, target: {}, action: Rotate(rotation: 5)),\n        Override(stage: 1, target: 99, action: Delete),\n    ],\n    mutations: [\n        Mutation(stage: 1, target: {}, harvested: true),\n    ],\n)\n",
            id(2),
            id(3),
            id(130),
            id(2),
            id(2)
        );
        let mut root = parse(&text).root.expect("parses");
        let mut cx = Decoder::new("overrides/o.overrides.ron");
        assert_eq!(
            migrate_to_current(DocKind::Overrides, &mut root, &mut cx),
            Some(2)
        );
        let set = OverrideSet::decode(&root, &mut cx).expect("decodes");
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        let targets: Vec<u64> = set.overrides.iter().map(|o| o.target).collect();
        assert_eq!(targets, [id(128), id(131), id(130), id(128), 99]);
        assert_eq!(set.mutations[0].target, id(128));
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
    fn a_forced_init_without_a_duration_requests_the_seeds_default_window() {
        let text = "Scenario(\n    schema: 3,\n    id: \"s\",\n    recipe: \"r\",\n    directives: [\n        Directive(frame: 1, target: World, command: ForcedInit),\n        Directive(frame: 3, target: World, command: ForcedInit(duration_s: 2.5)),\n    ],\n)\n";
        let root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("scenarios/s.scenario.ron");
        let scenario = crate::project::Scenario::decode(&root, &mut cx);
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        let scenario = scenario.expect("decodes");
        let windows: Vec<_> = scenario
            .directives
            .iter()
            .map(|d| d.command.clone())
            .collect();
        use crate::project::DirectiveCommand::ForcedInit;
        assert_eq!(
            windows,
            [
                ForcedInit { duration_s: 0.7 },
                ForcedInit { duration_s: 2.5 },
            ]
        );
        assert_eq!(crate::sim::population::DEFAULT_FORCED_INIT_MS, 700);
    }

    #[test]
    fn scenario_version_1_directives_become_targets_and_releases_name_their_claimer() {
        let text = "Scenario(\n    schema: 1,\n    id: \"s\",\n    recipe: \"r\",\n    sources: [Source(id: \"a\", route: \"x\", target_count: 1)],\n    directives: [\n        Directive(frame: 9, source: \"a\", agent: 0, command: Release),\n        Directive(frame: 5, source: \"a\", agent: 0, command: Claim(owner: \"late\")),\n        Directive(frame: 2, source: \"a\", agent: 0, command: Claim(owner: \"early\")),\n        Directive(frame: 3, source: \"a\", agent: 1, command: Release),\n        Directive(frame: 4, source: \"a\", agent: 0, command: Hold),\n    ],\n)\n";
        let mut root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("scenarios/s.scenario.ron");
        assert_eq!(
            migrate_to_current(DocKind::Scenario, &mut root, &mut cx),
            Some(1)
        );
        let scenario = crate::project::Scenario::decode(&root, &mut cx).expect("decodes");
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        use crate::project::{DirectiveCommand, Target};
        let born = |ordinal| Target::Born {
            source: "a".into(),
            ordinal,
        };
        let release = |owner: &str| DirectiveCommand::Release {
            owner: owner.into(),
        };
        let got: Vec<(u64, Target, DirectiveCommand)> = scenario
            .directives
            .iter()
            .map(|d| (d.frame, d.target.clone(), d.command.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (9, born(0), release("late")),
                (
                    5,
                    born(0),
                    DirectiveCommand::Claim {
                        owner: "late".into(),
                        allow_transfer: false
                    }
                ),
                (
                    2,
                    born(0),
                    DirectiveCommand::Claim {
                        owner: "early".into(),
                        allow_transfer: false
                    }
                ),
                (3, born(1), release("")),
                (4, born(0), DirectiveCommand::Hold),
            ]
        );
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
