//! One line of text per Diff entry: what changed, the asset (`family/variant`), where it is (or
//! from where to where it moved), the stage and the identity as every panel writes it.

use stagecraft_runtime::diff::{Change, DiffEntry, DiffObject, FieldSet};

use crate::cook::side::{key_text, AssetNames};

/// The assets of both sides of a comparison: A (the other side) and B (the preview).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideAssets {
    /// The other side's placing stages.
    pub a: AssetNames,
    /// The preview's placing stages.
    pub b: AssetNames,
}

/// One line for an entry: "moved 2.37 m · pines/pine-tall · (1.00, 2.00) → (3.00, 2.00) m ·
/// stage 3 · 0x…". The asset is the object's on its current side (the removed side for a removed
/// object); "asset changed" entries name both.
pub fn entry_text(entry: &DiffEntry<'_>, assets: &SideAssets) -> String {
    let Some(object) = entry.object() else {
        return String::new();
    };
    let mut parts = vec![what_text(&entry.change)];
    if let Some(asset) = asset_text(entry, assets) {
        parts.push(asset);
    }
    if let Some(position) = position_text(entry) {
        parts.push(position);
    }
    parts.push(format!("stage {}", object.stage));
    parts.push(key_text(&object.key));
    parts.join(" · ")
}

fn what_text(change: &Change) -> String {
    let names = |fields: &FieldSet| {
        fields
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match change {
        Change::Moved { distance_m, fields } if fields.is_empty() => {
            format!("moved {distance_m:.2} m")
        }
        Change::Moved { distance_m, fields } => {
            format!("moved {distance_m:.2} m, {}", names(fields))
        }
        Change::Changed { fields } => format!("changed {}", names(fields)),
        other => other.name().to_owned(),
    }
}

/// `family/variant`, or `old → new` when the two sides name different assets.
fn asset_text(entry: &DiffEntry<'_>, assets: &SideAssets) -> Option<String> {
    let a = entry.a.and_then(|o| assets.a.asset(o));
    let b = entry.b.and_then(|o| assets.b.asset(o));
    match (a, b) {
        (Some(a), Some(b)) if a != b => Some(format!("{a} → {b}")),
        (_, Some(b)) => Some(b),
        (a, None) => a,
    }
}

/// `(x, y) m` of the object, or `(x, y) → (x, y) m` when it moved.
fn position_text(entry: &DiffEntry<'_>) -> Option<String> {
    let point = |o: Option<&DiffObject>| {
        o.and_then(|o| o.position_m)
            .map(|p| format!("({:.2}, {:.2})", p.x, p.y))
    };
    match (point(entry.a), point(entry.b)) {
        (Some(a), Some(b)) if a != b => Some(format!("{a} → {b} m")),
        (_, Some(b)) => Some(format!("{b} m")),
        (Some(a), None) => Some(format!("{a} m")),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stagecraft_runtime::content::{PointM, ProductKind};
    use stagecraft_runtime::identity::{pack_scatter_id, ChildKey};

    use super::*;

    fn object(variant: u32, x: f64, y: f64) -> DiffObject {
        DiffObject {
            recipe: Arc::from("pines"),
            stage: 3,
            kind: ProductKind::Placements,
            key: ChildKey::Scatter(pack_scatter_id(1, 0, 2, 5, -1).expect("packs")),
            variant: Some(variant),
            position_m: Some(PointM::new(x, y)),
            rotation_turns_65536: None,
            scale: None,
            properties: 0,
        }
    }

    fn assets() -> SideAssets {
        let mut a = AssetNames::default();
        a.insert("pines", 3, "pine", vec!["tall".into(), "short".into()]);
        let mut b = AssetNames::default();
        b.insert("pines", 3, "pine", vec!["short".into(), "tall".into()]);
        SideAssets { a, b }
    }

    #[test]
    fn rows_name_the_asset_and_the_position_of_each_side() {
        let (old, new) = (object(0, 1.0, 2.0), object(1, 3.5, 2.0));
        let id = key_text(&old.key);
        assert_eq!((id.len(), &id[..2]), (18, "0x"), "{id}");
        let moved = DiffEntry {
            change: Change::Moved {
                distance_m: 2.5,
                fields: FieldSet::default(),
            },
            a: Some(&old),
            b: Some(&new),
        };
        // Variant 0 of A and variant 1 of B are the same asset: named once.
        assert_eq!(
            entry_text(&moved, &assets()),
            format!("moved 2.50 m · pine/tall · (1.00, 2.00) → (3.50, 2.00) m · stage 3 · {id}")
        );
        let removed = DiffEntry {
            change: Change::Removed,
            a: Some(&old),
            b: None,
        };
        assert_eq!(
            entry_text(&removed, &assets()),
            format!("removed · pine/tall · (1.00, 2.00) m · stage 3 · {id}")
        );
        let swapped = object(0, 1.0, 2.0);
        let changed = DiffEntry {
            change: Change::Changed {
                fields: FieldSet::of(&[stagecraft_runtime::diff::ChangedField::Variant]),
            },
            a: Some(&old),
            b: Some(&swapped),
        };
        assert_eq!(
            entry_text(&changed, &assets()),
            format!("changed variant · pine/tall → pine/short · (1.00, 2.00) m · stage 3 · {id}")
        );
    }
}
