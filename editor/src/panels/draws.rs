//! What a provenance draw decided, in words: "x offset 2.37 m", "variant 2 of 3 `bench-b`
//! (weight 5/9)", "priority 0.82 of the u32 range", "rotation 123.4°".
//!
//! The Provenance tab shows this next to each draw's raw value, so a designer reads what the
//! number did without knowing the operator's address layout.

use stagecraft_runtime::content::{DrawPurpose, DrawRecord};

/// What the words for a draw need to know about the object that used it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DrawContext {
    /// Meters per lattice unit, for offsets.
    pub lattice_unit_m: Option<f64>,
    /// The family's variants as (id, weight), in their persistent (cumulation) order.
    pub variants: Vec<(String, u32)>,
    /// The value of one scale step (e.g. 0.001) and the object's scale in steps.
    pub scale: Option<(f64, u32)>,
    /// The chunk a mission cell's draw chose.
    pub chunk_id: Option<String>,
}

/// The meaning of `draw` for an object described by `context`.
pub fn draw_meaning(draw: &DrawRecord, context: &DrawContext) -> String {
    let value = draw.value;
    match draw.purpose {
        DrawPurpose::OffsetX | DrawPurpose::OffsetY => {
            let axis = if draw.purpose == DrawPurpose::OffsetX {
                "x"
            } else {
                "y"
            };
            match context.lattice_unit_m {
                Some(unit_m) => format!(
                    "{axis} offset {:.2} m in its cell ({value} lattice units)",
                    f64::from(value) * unit_m
                ),
                None => format!("{axis} offset {value} lattice units in its cell"),
            }
        }
        DrawPurpose::Priority => format!(
            "priority {:.2} of the u32 range (higher wins a conflict)",
            f64::from(value) / 4_294_967_296.0
        ),
        DrawPurpose::Variant => variant_meaning(value, &context.variants),
        DrawPurpose::Rotation => {
            // The high 16 bits are the rotation in 1/65536 turns.
            let turns = f64::from(value >> 16) / 65_536.0;
            format!(
                "rotation {:.1}° (high 16 bits, in 1/65536 turns)",
                turns * 360.0
            )
        }
        DrawPurpose::Scale => match context.scale {
            Some((unit, scale)) => format!(
                "scale {:.3} ({value} steps of {unit} above the minimum)",
                f64::from(scale) * unit
            ),
            None => format!("scale {value} steps above the minimum"),
        },
        DrawPurpose::Chunk => match &context.chunk_id {
            Some(chunk) => format!("chunk choice {value} among the role's chunks: `{chunk}`"),
            None => format!("chunk choice {value} among the role's chunks"),
        },
    }
}

/// `variant 2 of 3 `bench-b` (weight 5/9, drew 4 of 0..9)`: the variant whose cumulative weight
/// range holds the bounded draw.
fn variant_meaning(value: u32, variants: &[(String, u32)]) -> String {
    let total: u64 = variants.iter().map(|(_, w)| u64::from(*w)).sum();
    let mut below = 0u64;
    for (index, (id, weight)) in variants.iter().enumerate() {
        let above = below + u64::from(*weight);
        if u64::from(value) < above {
            return format!(
                "variant {} of {} `{id}` (weight {weight}/{total}, drew {value} of 0..{total})",
                index + 1,
                variants.len()
            );
        }
        below = above;
    }
    format!("variant draw {value} (the family's weights are not known here)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::rng::Domain;

    fn draw(purpose: DrawPurpose, value: u32) -> DrawRecord {
        DrawRecord {
            domain: Domain::Placement,
            seed: 1,
            scope: 2,
            event: 0,
            dimension: 0,
            value,
            purpose,
        }
    }

    fn check(purpose: DrawPurpose, value: u32, context: &DrawContext, expected: &str) {
        assert_eq!(draw_meaning(&draw(purpose, value), context), expected);
    }

    #[test]
    fn each_draw_says_what_it_decided() {
        let context = DrawContext {
            lattice_unit_m: Some(0.01),
            variants: vec![("a".into(), 3), ("b".into(), 5), ("c".into(), 1)],
            scale: Some((0.001, 970)),
            chunk_id: Some("obj-a".into()),
        };
        check(
            DrawPurpose::OffsetX,
            237,
            &context,
            "x offset 2.37 m in its cell (237 lattice units)",
        );
        check(
            DrawPurpose::OffsetY,
            5,
            &DrawContext::default(),
            "y offset 5 lattice units in its cell",
        );
        check(
            DrawPurpose::Priority,
            3_521_873_182,
            &context,
            "priority 0.82 of the u32 range (higher wins a conflict)",
        );
        check(
            DrawPurpose::Variant,
            4,
            &context,
            "variant 2 of 3 `b` (weight 5/9, drew 4 of 0..9)",
        );
        check(
            DrawPurpose::Variant,
            8,
            &context,
            "variant 3 of 3 `c` (weight 1/9, drew 8 of 0..9)",
        );
        check(
            DrawPurpose::Rotation,
            0x4000_0000,
            &context,
            "rotation 90.0° (high 16 bits, in 1/65536 turns)",
        );
        check(
            DrawPurpose::Scale,
            120,
            &context,
            "scale 0.970 (120 steps of 0.001 above the minimum)",
        );
        check(
            DrawPurpose::Chunk,
            2,
            &context,
            "chunk choice 2 among the role's chunks: `obj-a`",
        );
    }
}
