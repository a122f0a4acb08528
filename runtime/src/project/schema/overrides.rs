//! Override sets `overrides/<id>.overrides.ron`: author changes to the generated objects of a recipe.

use super::common::Vec2;
use crate::project::decode::{Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// Current schema version of override sets.
pub const OVERRIDES_SCHEMA: u32 = 1;

/// The author overrides of one recipe instance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverrideSet {
    /// Persistent id; also the file name `overrides/<id>.overrides.ron`.
    pub id: String,
    /// The recipe whose generated objects are overridden.
    pub recipe: String,
    /// Digest of the generated base the overrides were authored against.
    pub base_revision: String,
    /// The overrides, in authored order.
    pub overrides: Vec<Override>,
}

crate::project::codec_macro::record_codec!(OverrideSet "OverrideSet" schema OVERRIDES_SCHEMA {
    id: String,
    recipe: String,
    base_revision: String = String::new(),
    overrides: Vec<Override> = Vec::new(),
});

/// One author override of one generated object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Override {
    /// The stage that emitted the target.
    pub stage: u32,
    /// The target's packed generated identity.
    pub target: u64,
    /// Higher precedence wins when two overrides touch the same property.
    pub precedence: u32,
    /// What the override does.
    pub action: OverrideAction,
}

crate::project::codec_macro::record_codec!(Override "Override" {
    stage: u32,
    target: u64,
    precedence: u32 = 0,
    action: OverrideAction,
});

/// What an override does to its target.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum OverrideAction {
    /// Keep the target's current selection (variant) across regeneration.
    LockSelection,
    /// Keep the target's current transform across regeneration.
    LockTransform,
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
}

const ACTIONS: &str =
    "one of `LockSelection`, `LockTransform`, `Delete`, `Move(position: …)`, `Replace(variant: …)`";

impl Decode for OverrideAction {
    fn expected() -> String {
        ACTIONS.to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Unit(ident) => match ident.name.as_str() {
                "LockSelection" => Some(OverrideAction::LockSelection),
                "LockTransform" => Some(OverrideAction::LockTransform),
                "Delete" => Some(OverrideAction::Delete),
                other => {
                    cx.error(
                        node.span,
                        format!("unknown override action `{other}`"),
                        ACTIONS,
                    );
                    None
                }
            },
            NodeKind::Struct {
                name: Some(name), ..
            } => match name.name.as_str() {
                "Move" => {
                    let record = cx.record(node, "Move", &["position"])?;
                    let position = cx.required(&record, "position")?;
                    Some(OverrideAction::Move { position })
                }
                "Replace" => {
                    let record = cx.record(node, "Replace", &["variant"])?;
                    let variant = cx.required(&record, "variant")?;
                    Some(OverrideAction::Replace { variant })
                }
                other => {
                    cx.error(
                        name.span,
                        format!("unknown override action `{other}`"),
                        ACTIONS,
                    );
                    None
                }
            },
            _ => {
                cx.wrong_type(node, ACTIONS);
                None
            }
        }
    }
}

impl Encode for OverrideAction {
    fn encode(&self) -> Doc {
        match self {
            OverrideAction::LockSelection => Doc::Unit("LockSelection"),
            OverrideAction::LockTransform => Doc::Unit("LockTransform"),
            OverrideAction::Delete => Doc::Unit("Delete"),
            OverrideAction::Move { position } => {
                Doc::Struct("Move", vec![("position", position.encode())])
            }
            OverrideAction::Replace { variant } => {
                Doc::Struct("Replace", vec![("variant", variant.encode())])
            }
        }
    }
}
