//! Override sets `overrides/<id>.overrides.ron`: author changes to the generated objects of a recipe
//! and the saved world mutations (harvest, regrow) on top of them.
//!
//! Schema 2 records, for every override, the expected base revision of its target and the values a
//! lock keeps; the set records the root seed it was authored against, so a seed change is never
//! silently reapplied. Schema 1 files are migrated (see `project::migrate`).

use super::common::Vec2;
use crate::project::decode::{Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// Current schema version of override sets.
pub const OVERRIDES_SCHEMA: u32 = 2;

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
}

crate::project::codec_macro::record_codec!(Override "Override" {
    stage: u32,
    target: u64,
    precedence: u32 = 0,
    base: String = String::new(),
    action: OverrideAction,
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
}

crate::project::codec_macro::record_codec!(Mutation "Mutation" {
    stage: u32,
    target: u64,
    base: String = String::new(),
    harvested: bool,
    ordinal: u32 = 0,
});

const ACTIONS: &str = "one of `Delete`, `LockSelection(variant: …)`, `LockTransform(position: …, rotation: …, scale: …)`, `Move(position: …)`, `Replace(variant: …)`, `Add(variant: …, position: …)`, `Exclude(min: …, max: …)`, `FreezeSubtree(variant: …, position: …, rotation: …, scale: …)`";

impl Decode for OverrideAction {
    fn expected() -> String {
        ACTIONS.to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) if ident.name == "Delete" => Some(OverrideAction::Delete),
            NodeKind::Unit(ident) => {
                cx.error(
                    node.span,
                    format!("unknown override action `{}`", ident.name),
                    ACTIONS,
                );
                None
            }
            NodeKind::Struct {
                name: Some(name), ..
            } => decode_struct_action(node, &name.name, name.span, cx),
            _ => {
                cx.wrong_type(node, ACTIONS);
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
            let record = cx.record(node, name, &["variant"])?;
            let variant = cx.required(&record, "variant")?;
            Some(if name == "Replace" {
                OverrideAction::Replace { variant }
            } else {
                OverrideAction::LockSelection { variant }
            })
        }
        "LockTransform" => {
            let record = cx.record(node, name, &["position", "rotation", "scale"])?;
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
            let record = cx.record(node, name, &["position"])?;
            let position = cx.required(&record, "position")?;
            Some(OverrideAction::Move { position })
        }
        "Add" => {
            let record = cx.record(node, name, &["variant", "position"])?;
            let variant = cx.required(&record, "variant");
            let position = cx.required(&record, "position");
            Some(OverrideAction::Add {
                variant: variant?,
                position: position?,
            })
        }
        "Exclude" => {
            let record = cx.record(node, name, &["min", "max"])?;
            let min = cx.required(&record, "min");
            let max = cx.required(&record, "max");
            Some(OverrideAction::Exclude {
                min: min?,
                max: max?,
            })
        }
        "FreezeSubtree" => {
            let known = ["variant", "position", "rotation", "scale"];
            let record = cx.record(node, name, &known)?;
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
            cx.error(span, format!("unknown override action `{other}`"), ACTIONS);
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
