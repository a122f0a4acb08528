//! Small value types shared by the project documents: vectors, colours, boxes, parameter values.

use crate::project::decode::{decode_tuple, Decode, Decoder, Encode};
use crate::project::node::{Node, NodeKind, PathSeg};
use crate::project::write::Doc;

/// A point or direction on the ground plane, in meters.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// East, in meters.
    pub x: f64,
    /// North, in meters.
    pub y: f64,
}

/// A point or direction in the world, in meters (Z up).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// East, in meters.
    pub x: f64,
    /// North, in meters.
    pub y: f64,
    /// Up, in meters.
    pub z: f64,
}

/// An sRGB colour with 8 bits per channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// An axis-aligned box in the world, inclusive on both ends (the population specification's
/// containment).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Box3 {
    /// The lowest corner, in meters.
    pub min: Vec3,
    /// The highest corner, in meters.
    pub max: Vec3,
}

crate::project::codec_macro::record_codec!(Box3 "Box3" { min: Vec3, max: Vec3 });

impl Decode for Vec2 {
    fn expected() -> String {
        "a point `(x, y)` in meters".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let [x, y] = decode_tuple(node, cx, "a point `(x, y)` in meters", f64::decode)?;
        Some(Vec2 { x, y })
    }
}

impl Encode for Vec2 {
    fn encode(&self) -> Doc {
        Doc::Tuple(vec![Doc::Float(self.x), Doc::Float(self.y)])
    }
}

impl Decode for Vec3 {
    fn expected() -> String {
        "a point `(x, y, z)` in meters".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let [x, y, z] = decode_tuple(node, cx, "a point `(x, y, z)` in meters", f64::decode)?;
        Some(Vec3 { x, y, z })
    }
}

impl Encode for Vec3 {
    fn encode(&self) -> Doc {
        Doc::Tuple(vec![
            Doc::Float(self.x),
            Doc::Float(self.y),
            Doc::Float(self.z),
        ])
    }
}

impl Decode for Rgb {
    fn expected() -> String {
        "a colour `(r, g, b)` of 0..=255".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let [r, g, b] = decode_tuple(node, cx, "a colour `(r, g, b)` of 0..=255", u8::decode)?;
        Some(Rgb(r, g, b))
    }
}

impl Encode for Rgb {
    fn encode(&self) -> Doc {
        Doc::Tuple(vec![
            Doc::Int(self.0.into()),
            Doc::Int(self.1.into()),
            Doc::Int(self.2.into()),
        ])
    }
}

/// An operator parameter value as written in a recipe; the operator's schema gives it meaning.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer such as a count or a lattice length.
    Int(i64),
    /// A number with a decimal point.
    Float(f64),
    /// A string such as an id.
    Str(String),
    /// `[…]`: a list of values.
    List(Vec<ParamValue>),
    /// `(…)`: a fixed group of values such as a rectangle.
    Tuple(Vec<ParamValue>),
}

impl ParamValue {
    /// The integer value, if this is an integer.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            ParamValue::Int(value) => Some(*value),
            _ => None,
        }
    }

    /// The numeric value of an integer or float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(value) => Some(*value as f64),
            ParamValue::Float(value) => Some(*value),
            _ => None,
        }
    }

    /// The string value, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParamValue::Str(value) => Some(value),
            _ => None,
        }
    }
}

impl Decode for ParamValue {
    fn expected() -> String {
        "a parameter value: boolean, integer, number, string, list or tuple".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let items = |items: &[Node], cx: &mut Decoder| -> Option<Vec<ParamValue>> {
            let decoded: Vec<Option<ParamValue>> = items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    cx.at(PathSeg::Index(index), |cx| ParamValue::decode(item, cx))
                })
                .collect();
            decoded.into_iter().collect()
        };
        match &node.kind {
            NodeKind::Bool(value) => Some(ParamValue::Bool(*value)),
            NodeKind::Int(_) => i64::decode(node, cx).map(ParamValue::Int),
            NodeKind::Float(value) => Some(ParamValue::Float(*value)),
            NodeKind::Str(value) => Some(ParamValue::Str(value.clone())),
            NodeKind::List(list) => items(list, cx).map(ParamValue::List),
            NodeKind::Tuple(tuple) => items(tuple, cx).map(ParamValue::Tuple),
            _ => {
                cx.wrong_type(
                    node,
                    "a parameter value: boolean, integer, number, string, list or tuple",
                );
                None
            }
        }
    }
}

impl Encode for ParamValue {
    fn encode(&self) -> Doc {
        match self {
            ParamValue::Bool(value) => Doc::Bool(*value),
            ParamValue::Int(value) => Doc::Int((*value).into()),
            ParamValue::Float(value) => Doc::Float(*value),
            ParamValue::Str(value) => Doc::Str(value.clone()),
            ParamValue::List(items) => Doc::List(items.iter().map(Encode::encode).collect()),
            ParamValue::Tuple(items) => Doc::Tuple(items.iter().map(Encode::encode).collect()),
        }
    }
}
