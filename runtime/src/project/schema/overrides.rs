//! Override sets `overrides/<id>.overrides.ron`: author changes to the generated objects of a recipe
//! and the saved world mutations (harvest, regrow) on top of them.
//!
//! Schema 2 records, for every override, the expected base revision of its target and the values a
//! lock keeps; the set records the root seed it was authored against, so a seed change is never
//! silently reapplied. Schema 3 gives added objects identities of the authored space (candidate
//! indices 128..=255, `identity::AUTHORED_CANDIDATE_MIN`), which no generation parameter reaches.
//! Schema 1 and 2 files are migrated (see `project::migrate`).

use super::common::Vec2;
use crate::project::decode::{Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// Current schema version of override sets.
pub const OVERRIDES_SCHEMA: u32 = 3;

/// The author overrides and world mutations of one recipe instance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverrideSet {
    /// Persistent id; also the file name `overrides/<id>.overrides.ron`.
    pub id: String,
    /// The recipe whose generated objects are overridden.
    pub recipe: String,
    /// The root seed the overrides were authored (or last rebased) against; `None` until a rebase
    /// binds them. Overrides of a set whose seed is not the generation's are not applied.
    pub base_seed: Option<u64>,
    /// Digest of the generated base (without overrides) the set was authored or rebased against.
    pub base_revision: String,
    /// The overrides, in authored order.
    pub overrides: Vec<Override>,
    /// Saved world mutations, applied after every override.
    pub mutations: Vec<Mutation>,
}

crate::project::codec_macro::record_codec!(OverrideSet "OverrideSet" schema OVERRIDES_SCHEMA {
    id: String,
    recipe: String,
    base_seed: Option<u64> = None,
    base_revision: String = String::new(),
    overrides: Vec<Override> = Vec::new(),
    mutations: Vec<Mutation> = Vec::new(),
});

/// One author override of one generated object (or of a stage's region).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Override {
    /// The stage that emitted the target (a scatter stage).
    pub stage: u32,
    /// The target's packed generated identity; for `Add`, the identity allocated to the authored
    /// object; 0 for `Exclude`.
    pub target: u64,
    /// Higher precedence wins when two overrides touch the same property of one target.
    pub precedence: u32,
    /// The expected base revision of the target (its fingerprint in the generated base), or `""`
    /// for actions without a generated target (`Add`, `Exclude`).
    pub base: String,
    /// What the override does (and so which property it touches).
    pub action: OverrideAction,
    /// For an object of a subrecipe stage's child run: the stage ids inside the child runs, from
    /// the child of `stage` (a `subrecipe` stage) down to the stage that emitted the target, so
    /// `stage: 10, nested: [1]` names child stage 1 of instance `<recipe>/10:<child>`. Empty (and
    /// not written) for the recipe's own stages.
    pub nested: Vec<u32>,
}

crate::project::codec_macro::record_codec!(Override "Override" {
    stage: u32,
    target: u64,
    precedence: u32 = 0,
    base: String = String::new(),
    action: OverrideAction,
} optional {
    nested: Vec<u32> = Vec::new(),
});

/// What an override does to its target.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum OverrideAction {
    /// Keep the target, with this variant, across regeneration.
    LockSelection {
        /// Variant id of the target's asset family.
        variant: String,
    },
    /// Keep the target's transform across regeneration.
    LockTransform {
        /// Ground position, meters.
        position: Vec2,
        /// Rotation about the up axis, 1/65536 turns.
        rotation: u16,
        /// Scale in the recipe's scale unit.
        scale: u32,
    },
    /// Remove the target (a tombstone on its identity).
    #[default]
    Delete,
    /// Move the target to a new ground position, meters.
    Move {
        /// New position.
        position: Vec2,
    },
    /// Replace the target's variant.
    Replace {
        /// Variant id of the target's asset family.
        variant: String,
    },
    /// Add an authored object of the stage's family; `target` is its allocated identity.
    Add {
        /// Variant id.
        variant: String,
        /// Ground position, meters.
        position: Vec2,
    },
    /// Exclude a half-open rectangle (meters) from the stage's scatter: a keep-out.
    Exclude {
        /// Lowest corner.
        min: Vec2,
        /// Highest corner (excluded).
        max: Vec2,
    },
    /// Turn the target about the up axis, leaving its position, variant and scale to the
    /// generation (select-and-place's rotation is replaced; nothing in the thinning reads it).
    Rotate {
        /// Rotation about the up axis, 1/65536 turns.
        rotation: u16,
    },
    /// Freeze the target and what downstream stages derive from it: variant and transform.
    FreezeSubtree {
        /// Variant id.
        variant: String,
        /// Ground position, meters.
        position: Vec2,
        /// Rotation, 1/65536 turns.
        rotation: u16,
        /// Scale in the recipe's scale unit.
        scale: u32,
    },
}

/// A saved world mutation of one generated placement: a harvest tombstone and its regrowths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mutation {
    /// The scatter stage that emitted the placement.
    pub stage: u32,
    /// The placement's packed scatter identity (the tombstone's key).
    pub target: u64,
    /// The expected base revision of the placement (as for overrides).
    pub base: String,
    /// Whether the placement is harvested now.
    pub harvested: bool,
    /// The ordinal of the last committed regrow (0: never regrown).
    pub ordinal: u32,
    /// For a placement of a subrecipe stage's child run: the stage ids inside the child runs,
    /// from the child of `stage` (a `subrecipe` stage) down to the scatter stage that emitted it,
    /// as [`Override::nested`] has them. Empty (and not written) for the recipe's own stages.
    pub nested: Vec<u32>,
}

crate::project::codec_macro::record_codec!(Mutation "Mutation" {
    stage: u32,
    target: u64,
    base: String = String::new(),
    harvested: bool,
    ordinal: u32 = 0,
} optional {
    nested: Vec<u32> = Vec::new(),
});

/// One field of an override action, as the decoder, the Inspector and `docs/format.md` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionField {
    /// The field's name in the file.
    pub name: &'static str,
    /// Its type and unit in words.
    pub kind: &'static str,
    /// One line: what it means (the Inspector's hover text).
    pub doc: &'static str,
}

/// The schema of one override action: the one description that the decoder validates against
/// (its name and fields), the Inspector lists (label, fields with their help) and
/// `docs/format.md` documents (a test checks the table there against it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSchema {
    /// The action's name in the file (`Move`, …).
    pub name: &'static str,
    /// Its name in menus.
    pub label: &'static str,
    /// Its fields, in canonical order (none for a unit action).
    pub fields: &'static [ActionField],
    /// The properties of its target it touches (two overrides of one target compete when they
    /// share one), as `docs/format.md` lists them.
    pub properties: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
}

const VARIANT: ActionField = ActionField {
    name: "variant",
    kind: "variant id",
    doc: "Variant id of the target's asset family.",
};
const POSITION: ActionField = ActionField {
    name: "position",
    kind: "(x, y), meters",
    doc: "Ground position, meters.",
};
const ROTATION: ActionField = ActionField {
    name: "rotation",
    kind: "integer (u16), 1/65536 turn",
    doc: "Rotation about the up axis, 1/65536 turns.",
};
const SCALE: ActionField = ActionField {
    name: "scale",
    kind: "integer (u32), the recipe's scale unit",
    doc: "Scale in the recipe's scale unit (1000 = 1.0 with a unit of 0.001).",
};

/// Every override action, in the order menus list them.
pub const ACTION_SCHEMA: &[ActionSchema] = &[
    ActionSchema {
        name: "LockSelection",
        label: "Lock selection",
        fields: &[VARIANT],
        properties: "selection",
        doc: "Keep the target, with this variant, across regeneration.",
    },
    ActionSchema {
        name: "LockTransform",
        label: "Lock transform",
        fields: &[POSITION, ROTATION, SCALE],
        properties: "transform, rotation",
        doc: "Keep the target at this position, rotation and scale.",
    },
    ActionSchema {
        name: "Delete",
        label: "Delete",
        fields: &[],
        properties: "all",
        doc: "Remove the target (a tombstone on its identity).",
    },
    ActionSchema {
        name: "Move",
        label: "Move",
        fields: &[POSITION],
        properties: "transform",
        doc: "Move the target to a new ground position.",
    },
    ActionSchema {
        name: "Rotate",
        label: "Rotate",
        fields: &[ROTATION],
        properties: "rotation",
        doc: "Turn the target about the up axis; its position, variant and scale stay generated.",
    },
    ActionSchema {
        name: "Replace",
        label: "Replace",
        fields: &[VARIANT],
        properties: "selection",
        doc: "Replace the target's variant.",
    },
    ActionSchema {
        name: "Add",
        label: "Add authored object",
        fields: &[VARIANT, POSITION],
        properties: "selection, transform, existence",
        doc: "Add an authored object of the stage's family.",
    },
    ActionSchema {
        name: "Exclude",
        label: "Exclude region",
        fields: &[
            ActionField {
                name: "min",
                kind: "(x, y), meters",
                doc: "Lowest corner of the excluded rectangle.",
            },
            ActionField {
                name: "max",
                kind: "(x, y), meters",
                doc: "Highest corner (excluded).",
            },
        ],
        properties: "region",
        doc: "Exclude a half-open rectangle from the stage's scatter.",
    },
    ActionSchema {
        name: "FreezeSubtree",
        label: "Freeze subtree",
        fields: &[VARIANT, POSITION, ROTATION, SCALE],
        properties: "selection, transform, rotation",
        doc: "Freeze the target and what downstream stages derive from it.",
    },
];

/// The schema of the action named `name`.
pub fn action_schema(name: &str) -> Option<&'static ActionSchema> {
    ACTION_SCHEMA.iter().find(|s| s.name == name)
}

impl OverrideAction {
    /// The action's name in the file.
    pub fn name(&self) -> &'static str {
        match self {
            OverrideAction::LockSelection { .. } => "LockSelection",
            OverrideAction::LockTransform { .. } => "LockTransform",
            OverrideAction::Delete => "Delete",
            OverrideAction::Move { .. } => "Move",
            OverrideAction::Rotate { .. } => "Rotate",
            OverrideAction::Replace { .. } => "Replace",
            OverrideAction::Add { .. } => "Add",
            OverrideAction::Exclude { .. } => "Exclude",
            OverrideAction::FreezeSubtree { .. } => "FreezeSubtree",
        }
    }

    /// The action's schema.
    pub fn schema(&self) -> &'static ActionSchema {
        action_schema(self.name()).unwrap_or(&ACTION_SCHEMA[2])
    }
}

/// What the decoder expects of an action, in words, from [`ACTION_SCHEMA`].
fn actions_expected() -> String {
    let forms: Vec<String> = ACTION_SCHEMA
        .iter()
        .map(|s| {
            if s.fields.is_empty() {
                format!("`{}`", s.name)
            } else {
                let fields: Vec<String> =
                    s.fields.iter().map(|f| format!("{}: …", f.name)).collect();
                format!("`{}({})`", s.name, fields.join(", "))
            }
        })
        .collect();
    format!("one of {}", forms.join(", "))
}

/// The field names of action `name` (empty for an unknown one).
fn field_names(name: &str) -> Vec<&'static str> {
    action_schema(name)
        .map(|s| s.fields.iter().map(|f| f.name).collect())
        .unwrap_or_default()
}

impl Decode for OverrideAction {
    fn expected() -> String {
        actions_expected()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) if ident.name == "Delete" => Some(OverrideAction::Delete),
            NodeKind::Unit(ident) => {
                cx.error(
                    node.span,
                    format!("unknown override action `{}`", ident.name),
                    actions_expected(),
                );
                None
            }
            NodeKind::Struct {
                name: Some(name), ..
            } => decode_struct_action(node, &name.name, name.span, cx),
            _ => {
                cx.wrong_type(node, &actions_expected());
                None
            }
        }
    }
}

fn decode_struct_action(
    node: &Node,
    name: &str,
    span: crate::project::node::Span,
    cx: &mut Decoder,
) -> Option<OverrideAction> {
    match name {
        "LockSelection" | "Replace" => {
            let record = cx.record(node, name, &field_names(name))?;
            let variant = cx.required(&record, "variant")?;
            Some(if name == "Replace" {
                OverrideAction::Replace { variant }
            } else {
                OverrideAction::LockSelection { variant }
            })
        }
        "LockTransform" => {
            let record = cx.record(node, name, &field_names(name))?;
            let position = cx.required(&record, "position");
            let rotation = cx.required(&record, "rotation");
            let scale = cx.required(&record, "scale");
            Some(OverrideAction::LockTransform {
                position: position?,
                rotation: rotation?,
                scale: scale?,
            })
        }
        "Move" => {
            let record = cx.record(node, name, &field_names(name))?;
            let position = cx.required(&record, "position")?;
            Some(OverrideAction::Move { position })
        }
        "Rotate" => {
            let record = cx.record(node, name, &field_names(name))?;
            let rotation = cx.required(&record, "rotation")?;
            Some(OverrideAction::Rotate { rotation })
        }
        "Add" => {
            let record = cx.record(node, name, &field_names(name))?;
            let variant = cx.required(&record, "variant");
            let position = cx.required(&record, "position");
            Some(OverrideAction::Add {
                variant: variant?,
                position: position?,
            })
        }
        "Exclude" => {
            let record = cx.record(node, name, &field_names(name))?;
            let min = cx.required(&record, "min");
            let max = cx.required(&record, "max");
            Some(OverrideAction::Exclude {
                min: min?,
                max: max?,
            })
        }
        "FreezeSubtree" => {
            let record = cx.record(node, name, &field_names(name))?;
            let variant = cx.required(&record, "variant");
            let position = cx.required(&record, "position");
            let rotation = cx.required(&record, "rotation");
            let scale = cx.required(&record, "scale");
            Some(OverrideAction::FreezeSubtree {
                variant: variant?,
                position: position?,
                rotation: rotation?,
                scale: scale?,
            })
        }
        other => {
            cx.error(
                span,
                format!("unknown override action `{other}`"),
                actions_expected(),
            );
            None
        }
    }
}

impl Encode for OverrideAction {
    fn encode(&self) -> Doc {
        match self {
            OverrideAction::LockSelection { variant } => {
                Doc::Struct("LockSelection", vec![("variant", variant.encode())])
            }
            OverrideAction::LockTransform {
                position,
                rotation,
                scale,
            } => Doc::Struct(
                "LockTransform",
                vec![
                    ("position", position.encode()),
                    ("rotation", rotation.encode()),
                    ("scale", scale.encode()),
                ],
            ),
            OverrideAction::Delete => Doc::Unit("Delete"),
            OverrideAction::Move { position } => {
                Doc::Struct("Move", vec![("position", position.encode())])
            }
            OverrideAction::Rotate { rotation } => {
                Doc::Struct("Rotate", vec![("rotation", rotation.encode())])
            }
            OverrideAction::Replace { variant } => {
                Doc::Struct("Replace", vec![("variant", variant.encode())])
            }
            OverrideAction::Add { variant, position } => Doc::Struct(
                "Add",
                vec![
                    ("variant", variant.encode()),
                    ("position", position.encode()),
                ],
            ),
            OverrideAction::Exclude { min, max } => Doc::Struct(
                "Exclude",
                vec![("min", min.encode()), ("max", max.encode())],
            ),
            OverrideAction::FreezeSubtree {
                variant,
                position,
                rotation,
                scale,
            } => Doc::Struct(
                "FreezeSubtree",
                vec![
                    ("variant", variant.encode()),
                    ("position", position.encode()),
                    ("rotation", rotation.encode()),
                    ("scale", scale.encode()),
                ],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/format.md`, read at compile time (the runtime reads no files).
    const FORMAT_DOC: &str = include_str!("../../../../docs/format.md");

    #[test]
    fn the_docs_list_every_action_of_the_schema_with_its_fields_and_properties() {
        let rows: Vec<&str> = FORMAT_DOC
            .lines()
            .filter(|l| l.starts_with("| `") && l.matches(" | ").count() == 2)
            .collect();
        for schema in ACTION_SCHEMA {
            let row = rows
                .iter()
                .find(|r| {
                    r.starts_with(&format!("| `{}(", schema.name))
                        || r.starts_with(&format!("| `{}` |", schema.name))
                })
                .unwrap_or_else(|| panic!("docs/format.md has no row for `{}`", schema.name));
            for field in schema.fields {
                assert!(
                    row.contains(&format!("{}: ", field.name)),
                    "the row of `{}` names no `{}`: {row}",
                    schema.name,
                    field.name
                );
            }
            let cells: Vec<&str> = row.split(" | ").collect();
            assert_eq!(
                cells[1], schema.properties,
                "properties of `{}`",
                schema.name
            );
        }
        let names: Vec<&str> = ACTION_SCHEMA.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), 9);
        assert!(actions_expected().contains("`Rotate(rotation: …)`"));
    }

    #[test]
    fn every_action_has_a_schema_and_decodes_only_its_fields() {
        let actions = [
            OverrideAction::LockSelection {
                variant: "a".to_owned(),
            },
            OverrideAction::Rotate { rotation: 16_384 },
            OverrideAction::Delete,
        ];
        for action in &actions {
            assert_eq!(action.schema().name, action.name());
        }
        assert_eq!(action_schema("Rotate").map(|s| s.fields.len()), Some(1));
        assert_eq!(
            field_names("FreezeSubtree"),
            ["variant", "position", "rotation", "scale"]
        );
    }
}
