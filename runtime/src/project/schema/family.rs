//! Asset families `<asset path>/<id>.family.ron`: weighted variants with footprints and previews.

use super::common::Rgb;
use crate::project::decode::{decode_unit_variant, Decode, Decoder, Encode};
use crate::project::node::Node;
use crate::project::write::Doc;

/// Current schema version of asset families.
pub const FAMILY_SCHEMA: u32 = 1;

/// A family of interchangeable assets that scatter chooses from by weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssetFamily {
    /// Persistent id; also the file name `<id>.family.ron`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Variants in their persistent order (weights are cumulated in this order).
    pub variants: Vec<AssetVariant>,
}

crate::project::codec_macro::record_codec!(AssetFamily "AssetFamily" schema FAMILY_SCHEMA {
    id: String,
    name: String = String::new(),
    variants: Vec<AssetVariant>,
});

/// One variant of an asset family.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssetVariant {
    /// Persistent id within the family.
    pub id: String,
    /// Relative selection weight, at least 1.
    pub weight: u32,
    /// Exclusion radius in scatter lattice units (at most the layer's cell size).
    pub exclusion_radius: i64,
    /// Collision radius, meters.
    pub collision_radius_m: f64,
    /// Height, meters.
    pub height_m: f64,
    /// Preview shape in the viewport.
    pub shape: PreviewShape,
    /// Preview colour in the viewport.
    pub colour: Rgb,
    /// The socket types the variant fits, as a module of an assembly (empty: not a module);
    /// written only when non-empty.
    pub sockets: Vec<String>,
}

crate::project::codec_macro::record_codec!(AssetVariant "Variant" {
    id: String,
    weight: u32 = 1,
    exclusion_radius: i64,
    collision_radius_m: f64,
    height_m: f64,
    shape: PreviewShape = PreviewShape::Box,
    colour: Rgb = Rgb(160, 160, 160),
} optional {
    sockets: Vec<String> = Vec::new(),
});

/// The primitive a variant is previewed as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PreviewShape {
    /// A cone (trees).
    Cone,
    /// A box (props, buildings).
    #[default]
    Box,
    /// A cylinder (posts, bins).
    Cylinder,
}

const SHAPES: [&str; 3] = ["Cone", "Box", "Cylinder"];

impl Decode for PreviewShape {
    fn expected() -> String {
        "one of `Cone`, `Box`, `Cylinder`".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        decode_unit_variant(node, cx, &SHAPES).map(|index| match index {
            0 => PreviewShape::Cone,
            1 => PreviewShape::Box,
            _ => PreviewShape::Cylinder,
        })
    }
}

impl Encode for PreviewShape {
    fn encode(&self) -> Doc {
        Doc::Unit(SHAPES[*self as usize])
    }
}
