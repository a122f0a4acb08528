//! Recipe documents `recipes/<id>.recipe.ron`: named inputs, stages with persistent ids, outputs.

use std::collections::BTreeMap;

use super::common::ParamValue;
use crate::project::decode::{Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind};
use crate::project::write::Doc;

/// The operator id of a stage that runs another recipe of the project (`recipe::subrecipe`).
pub const SUBRECIPE_OPERATOR: &str = "subrecipe";

/// Current schema version of recipes.
pub const RECIPE_SCHEMA: u32 = 1;

/// A recipe: a versioned, declarative graph of generation stages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recipe {
    /// Persistent id; also the file name `recipes/<id>.recipe.ron`.
    pub id: String,
    /// Display label (free text; renaming it never changes an identity).
    pub label: String,
    /// Version of the addressed-RNG layout the stages use.
    pub address_schema: u32,
    /// Named inputs the stages read, sorted by name.
    pub inputs: BTreeMap<String, RecipeInput>,
    /// Stages in authored order; identity is each stage's `id`, never its position.
    pub stages: Vec<Stage>,
    /// The stages whose products the recipe publishes.
    pub outputs: Vec<u32>,
}

crate::project::codec_macro::record_codec!(Recipe "Recipe" schema RECIPE_SCHEMA {
    id: String,
    label: String = String::new(),
    address_schema: u32,
    inputs: BTreeMap<String, RecipeInput> = BTreeMap::new(),
    stages: Vec<Stage>,
    outputs: Vec<u32>,
});

/// One generation stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stage {
    /// Persistent numeric id, kept across reordering and relabelling.
    pub id: u32,
    /// Display label.
    pub label: String,
    /// Registered operator id, such as `environment.scatter`.
    pub operator: String,
    /// Algorithm version of the operator the stage was authored against.
    pub algorithm: u32,
    /// What the stage reads: recipe inputs by name, other stages by id.
    pub inputs: Vec<StageInput>,
    /// Operator parameters, sorted by name; the operator's schema validates them.
    pub parameters: BTreeMap<String, ParamValue>,
}

crate::project::codec_macro::record_codec!(Stage "Stage" {
    id: u32,
    label: String = String::new(),
    operator: String,
    algorithm: u32,
    inputs: Vec<StageInput> = Vec::new(),
    parameters: BTreeMap<String, ParamValue> = BTreeMap::new(),
});

/// One input of a stage: written as a string (a recipe input) or an integer (a stage id).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StageInput {
    /// A named input of the recipe.
    Named(String),
    /// The products of another stage.
    Stage(u32),
}

impl Decode for StageInput {
    fn expected() -> String {
        "a recipe input name (string) or a stage id (integer)".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        match &node.kind {
            NodeKind::Str(name) => Some(StageInput::Named(name.clone())),
            NodeKind::Int(_) => u32::decode(node, cx).map(StageInput::Stage),
            _ => {
                cx.wrong_type(node, "a recipe input name (string) or a stage id (integer)");
                None
            }
        }
    }
}

impl Encode for StageInput {
    fn encode(&self) -> Doc {
        match self {
            StageInput::Named(name) => Doc::Str(name.clone()),
            StageInput::Stage(id) => Doc::Int((*id).into()),
        }
    }
}

/// A named recipe input.
#[derive(Clone, Debug, PartialEq)]
pub enum RecipeInput {
    /// An asset family, by id (`assets/<id>.family.ron`).
    Family(String),
    /// A literal value.
    Value(ParamValue),
    /// A product the using recipe binds, by product kind (`Product("StreetBlock")`): a recipe
    /// with such an input is a subrecipe, generated only as a stage of another recipe
    /// (`recipe::subrecipe`).
    Product(String),
}

impl Decode for RecipeInput {
    fn expected() -> String {
        "`Family(\"id\")`, `Value(…)` or `Product(\"kind\")`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let expected = "`Family(\"id\")`, `Value(…)` or `Product(\"kind\")`";
        match &node.kind {
            NodeKind::Variant { name, items } if items.len() == 1 => match name.name.as_str() {
                "Family" => String::decode(&items[0], cx).map(RecipeInput::Family),
                "Value" => ParamValue::decode(&items[0], cx).map(RecipeInput::Value),
                "Product" => String::decode(&items[0], cx).map(RecipeInput::Product),
                other => {
                    cx.error(name.span, format!("unknown input kind `{other}`"), expected);
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

impl Encode for RecipeInput {
    fn encode(&self) -> Doc {
        match self {
            RecipeInput::Family(id) => Doc::Variant("Family", vec![Doc::Str(id.clone())]),
            RecipeInput::Value(value) => Doc::Variant("Value", vec![value.encode()]),
            RecipeInput::Product(kind) => Doc::Variant("Product", vec![Doc::Str(kind.clone())]),
        }
    }
}

impl Recipe {
    /// The recipe files its `subrecipe` stages name in their `recipe` parameter, sorted.
    pub fn subrecipe_files(&self) -> std::collections::BTreeSet<&str> {
        self.stages
            .iter()
            .filter(|stage| stage.operator == SUBRECIPE_OPERATOR)
            .filter_map(|stage| match stage.parameters.get("recipe") {
                Some(ParamValue::Str(path)) => Some(path.as_str()),
                _ => None,
            })
            .collect()
    }
}
