//! Tests of the identity diff.

use super::*;
use crate::content::Product;
use crate::generate::tests::{plan, run, street_text, PLACE, SCATTER};
use crate::generate::ExecutionMode;
use crate::identity::ScatterId;

fn street(scatter: &str, place: &str) -> GeneratedBundle {
    (*run(&plan(&street_text(scatter, place)), ExecutionMode::Serial).bundle).clone()
}

#[test]
fn a_bundle_equals_itself_and_counts_every_object_unchanged() {
    let a = street(SCATTER, PLACE);
    let diff = diff_bundles(&a, &a);
    assert!(diff.is_empty());
    assert_eq!(diff.counts.unchanged as usize, bundle_objects(&a).len());
    assert!(diff.counts.unchanged > 20);
}

#[test]
fn a_changed_scale_range_changes_scales_only_and_moves_nothing() {
    let a = street(SCATTER, PLACE);
    let b = street(SCATTER, "\"scale_min\": 500, \"scale_max\": 600");
    let diff = diff_bundles(&a, &b);
    let placed = a.stage(3).map_or(0, |s| s.summary.objects);
    assert_eq!(diff.counts.changed, placed, "every placed object rescaled");
    assert_eq!(
        (diff.counts.added, diff.counts.removed, diff.counts.moved),
        (0, 0, 0)
    );
    for entry in diff.entries() {
        assert_eq!(
            entry.change,
            Change::Changed {
                fields: FieldSet::of(&[ChangedField::Scale])
            }
        );
        assert_eq!(entry.object().map(|o| o.stage), Some(3));
    }
}

/// Moves one placement, removes another and adds a third by editing the product directly, then
/// checks the diff keys them by identity, not by position in the list.
#[test]
fn edits_are_found_by_identity_in_canonical_order() {
    let a = street(SCATTER, PLACE);
    let mut b = a.clone();
    let stage = b
        .stages
        .iter_mut()
        .find(|s| s.stage == 3)
        .unwrap_or_else(|| panic!("stage 3"));
    let mut product = (*stage.product).clone();
    let Product::PlacedObjects(placed) = &mut product else {
        panic!("placed objects");
    };
    let removed = placed.objects.remove(0);
    placed.objects[0].placement.x += 300; // 3 m at 0.01 m per lattice unit
    placed.objects[1].rotation_turns_65536 ^= 1;
    placed.objects.reverse(); // array order must not matter
    stage.product = std::sync::Arc::new(product);
    let diff = diff_bundles(&a, &b);
    assert_eq!(diff.counts.removed, 1);
    assert_eq!(diff.counts.moved, 1);
    assert_eq!(diff.counts.changed, 1);
    let removed_entry = diff.entries().find(|e| e.change == Change::Removed);
    assert_eq!(
        removed_entry.and_then(|e| e.a).map(|o| o.key.clone()),
        Some(ChildKey::Scatter(removed.placement.id))
    );
    let moved = diff.entries().find_map(|e| match &e.change {
        Change::Moved { distance_m, fields } => Some((*distance_m, *fields)),
        _ => None,
    });
    let (distance_m, fields) = moved.unwrap_or_else(|| panic!("a moved entry"));
    assert!((distance_m - 3.0).abs() < 1e-9, "{distance_m}");
    assert!(fields.is_empty());
    let keys: Vec<_> = diff
        .entries()
        .filter_map(|e| e.object())
        .map(|o| (o.stage, o.key.clone()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "canonical order");
    // Swapping the sides swaps added and removed.
    let back = diff_bundles(&b, &a);
    assert_eq!((back.counts.added, back.counts.removed), (1, 0));
}

#[test]
fn more_candidates_per_cell_adds_and_removes_placements_by_identity() {
    let a = street(SCATTER, PLACE);
    let b = street("\"cell_size\": 300, \"candidates_per_cell\": 3", PLACE);
    let diff = diff_bundles(&a, &b);
    assert!(diff.counts.added > 0, "{:?}", diff.counts);
    for entry in diff.entries().filter(|e| e.change == Change::Added) {
        let object = entry.b.unwrap_or_else(|| panic!("b side"));
        assert!(matches!(
            object.kind,
            ProductKind::Placements | ProductKind::PlacedObjects
        ));
        assert!(a.stage(object.stage).is_some());
    }
    // The street block is untouched.
    assert!(diff
        .entries()
        .all(|e| e.object().is_some_and(|o| o.stage != 1)));
}

/// The keyed merge orders scatter objects exactly as their identities do: a diff of two
/// bundles lists its entries in identity order, with the same counts as a diff of the same
/// objects shuffled.
#[test]
fn the_keyed_merge_agrees_with_identity_order_whatever_the_input_order() {
    let a = street(SCATTER, PLACE);
    let b = street("\"cell_size\": 300, \"candidates_per_cell\": 3", PLACE);
    let diff = diff_bundles(&a, &b);
    let mut oa = bundle_objects(&a);
    let mut ob = bundle_objects(&b);
    oa.reverse();
    let third = ob.len() / 3;
    ob.rotate_left(third);
    let shuffled = diff_objects(oa, ob);
    assert_eq!(shuffled.counts, diff.counts);
    let identities = |d: &BundleDiff| -> Vec<(u32, ChildKey, &'static str)> {
        d.entries()
            .filter_map(|e| {
                e.object()
                    .map(|o| (o.stage, o.key.clone(), e.change.name()))
            })
            .collect()
    };
    assert_eq!(identities(&shuffled), identities(&diff));
    let keys = identities(&diff);
    let mut sorted = keys.clone();
    sorted.sort_by(|x, y| (x.0, &x.1).cmp(&(y.0, &y.1)));
    assert_eq!(keys, sorted);
    assert_eq!(
        diff.len() as u64,
        diff.counts.added + diff.counts.removed + diff.counts.moved + diff.counts.changed
    );
}

/// The merge (walking both sides in canonical order, rows put in identity order afterwards)
/// gives exactly what a map from identity to object gives, entry by entry.
#[test]
fn a_diff_of_two_generations_matches_a_map_by_identity() {
    use std::collections::BTreeMap;
    let a = street(SCATTER, PLACE);
    let b = street("\"cell_size\": 300, \"candidates_per_cell\": 3", PLACE);
    let diff = diff_bundles(&a, &b);
    type Key = (String, u32, ProductKind, ChildKey);
    let map = |objects: Vec<DiffObject>| -> BTreeMap<Key, DiffObject> {
        objects
            .into_iter()
            .map(|o| ((o.recipe.to_string(), o.stage, o.kind, o.key.clone()), o))
            .collect()
    };
    let expected = join_by_key(&map(bundle_objects(&a)), &map(bundle_objects(&b)));
    let found: Vec<(Key, &'static str)> = diff
        .entries()
        .filter_map(|e| {
            let o = e.object()?;
            Some((
                (o.recipe.to_string(), o.stage, o.kind, o.key.clone()),
                e.change.name(),
            ))
        })
        .collect();
    assert!(expected.len() > 20, "{}", expected.len());
    assert_eq!(found, expected);
}

/// Scatter objects of a `side`×`side` grid of cells (room 1, layer 0, candidates 0 and 1), in
/// canonical order, each cell's position and variant derived from `seed`.
fn grid_objects(side: i64, seed: u64) -> Vec<DiffObject> {
    let recipe: Arc<str> = Arc::from("grid");
    let mut objects = Vec::new();
    for cy in -side / 2..side - side / 2 {
        for cx in -side / 2..side - side / 2 {
            for candidate in 0..2u32 {
                let id = crate::identity::pack_scatter_id(1, 0, candidate, cx, cy)
                    .unwrap_or_else(|e| panic!("{e}"));
                let h = id.bits().wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed;
                if h % 7 == 3 {
                    continue; // absent on this side
                }
                objects.push(DiffObject {
                    recipe: recipe.clone(),
                    stage: 2,
                    kind: ProductKind::PlacedObjects,
                    key: ChildKey::Scatter(id),
                    variant: Some((h >> 8) as u32 % 2),
                    position_m: Some(PointM::new(cx as f64, (cy as f64) + (h % 3) as f64)),
                    rotation_turns_65536: Some((h >> 16) as u16 % 2),
                    scale: Some(1000),
                    properties: 0,
                });
            }
        }
    }
    objects
}

/// The entries a map from identity to object gives, in identity order.
fn expected_by_map(a: &[DiffObject], b: &[DiffObject]) -> Vec<(ChildKey, &'static str)> {
    use std::collections::BTreeMap;
    let map = |objects: &[DiffObject]| -> BTreeMap<ChildKey, DiffObject> {
        objects
            .iter()
            .rev()
            .map(|o| (o.key.clone(), o.clone()))
            .collect()
    };
    join_by_key(&map(a), &map(b))
}

/// Every key of either map with what changed under it (removed, added, or the comparison's
/// change), in key order; unchanged keys are left out.
fn join_by_key<K: Ord + Clone>(
    ma: &std::collections::BTreeMap<K, DiffObject>,
    mb: &std::collections::BTreeMap<K, DiffObject>,
) -> Vec<(K, &'static str)> {
    let keys: std::collections::BTreeSet<&K> = ma.keys().chain(mb.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let change = match (ma.get(k), mb.get(k)) {
                (Some(_), None) => Some("removed"),
                (None, Some(_)) => Some("added"),
                (Some(x), Some(y)) => compare(x, y).map(|c| c.name()),
                (None, None) => None,
            }?;
            Some((k.clone(), change))
        })
        .collect()
}

fn found(diff: &BundleDiff) -> Vec<(ChildKey, &'static str)> {
    diff.entries()
        .filter_map(|e| Some((e.object()?.key.clone(), e.change.name())))
        .collect()
}

/// Thousands of scatter rows (negative cells included) go through the radix sorts: in canonical
/// order (the single-run path), reversed and with a repeated identity (the sorted-pairs path),
/// the entries are exactly a map's, in packed-id order.
#[test]
fn a_large_keyed_diff_matches_a_map_by_identity_in_any_input_order() {
    let (a, b) = (grid_objects(48, 1), grid_objects(48, 2));
    let expected = expected_by_map(&a, &b);
    assert!(expected.len() > 2_000, "{}", expected.len());
    let diff = diff_objects(a.clone(), b.clone());
    assert_eq!(found(&diff), expected);
    let mut ra = a.clone();
    ra.reverse();
    let mut rb = b.clone();
    rb.rotate_left(b.len() / 3);
    // A repeated identity counts once: its first occurrence (`rb`'s first object, repeated at
    // the end with another position) is the one compared.
    let mut repeated = rb[0].clone();
    repeated.position_m = Some(PointM::new(1e6, 1e6));
    rb.push(repeated);
    let shuffled = diff_objects(ra, rb);
    assert_eq!(found(&shuffled), expected);
    assert_eq!(shuffled.counts, diff.counts);
    let c = diff.counts;
    assert_eq!(
        (c.added + c.removed + c.moved + c.changed) as usize,
        expected.len()
    );
    assert_eq!(
        (c.removed + c.moved + c.changed + c.unchanged) as usize,
        a.len()
    );
}

#[test]
fn canonical_keys_invert_to_packed_ids_and_order_canonically() {
    let ids: Vec<ScatterId> = [
        (1, 0, 0, 0, 0),
        (3, 7, 2, -5, 9),
        (65_535, 255, 255, -32_768, 32_767),
    ]
    .iter()
    .map(|&(room, layer, candidate, cx, cy)| {
        crate::identity::pack_scatter_id(room, layer, candidate, cx, cy)
            .unwrap_or_else(|e| panic!("{e}"))
    })
    .collect();
    for id in &ids {
        assert_eq!(merge::packed_bits(merge::canonical_key(*id)), id.bits());
    }
    let key = |room, cx: i64, cy: i64, candidate| {
        let id = crate::identity::pack_scatter_id(room, 0, candidate, cx, cy)
            .unwrap_or_else(|e| panic!("{e}"));
        merge::canonical_key(id)
    };
    // Room, then cell Y, then cell X (signed), then candidate.
    assert!(key(1, 5, 5, 3) < key(2, 0, 0, 0));
    assert!(key(1, 9, -1, 3) < key(1, -9, 0, 0));
    assert!(key(1, -1, 0, 3) < key(1, 0, 0, 0));
    assert!(key(1, 0, 0, 0) < key(1, 0, 0, 1));
}

/// The radix sort keeps the input order among equal keys, as a stable sort does, over keys that
/// differ in every 16-bit digit and over keys already in order by some digits.
#[test]
fn the_radix_sort_is_a_stable_sort() {
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut random: Vec<(u64, u32)> = (0..5_000u32)
        .map(|i| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((x >> (i % 48)) & 0x0003_00ff_0fff_00ff, i)
        })
        .collect();
    let mut canonical: Vec<(u64, u32)> = (0..4_000u32)
        .map(|i| ((u64::from(i % 50) << 16) | u64::from(i / 50), i))
        .collect();
    for items in [&mut random, &mut canonical] {
        let mut expected = items.clone();
        expected.sort_by_key(|(k, _)| *k);
        merge::radix_sort_by_key(items, &mut Vec::new(), |(k, _)| *k);
        assert_eq!(*items, expected);
    }
}

/// Assembly modules diff by identity like placements: a replaced module is a changed variant, a
/// deleted one removed, a rotated one a changed rotation; nothing else differs.
#[test]
fn assembly_modules_diff_by_identity() {
    use crate::content::AssemblyPlan;
    use crate::ops::assembly::tests::{facade_family, params};
    let base: AssemblyPlan =
        crate::ops::assembly::assemble(&params(4, 1), &facade_family(), 3, false).unwrap();
    let mut edited = base.clone();
    let replaced = edited.modules[1].id;
    edited.modules[1].variant = if edited.modules[1].variant == 2 { 3 } else { 2 };
    edited.modules[12].rotation_turns_65536 = 32768;
    let deleted = edited.modules.remove(20).id;
    let recipe: Arc<str> = Arc::from("street-facades");
    let diff = diff_objects(
        objects_of(&recipe, 1, &Product::AssemblyPlan(base.clone())),
        objects_of(&recipe, 1, &Product::AssemblyPlan(edited)),
    );
    assert_eq!(
        (
            diff.counts.added,
            diff.counts.removed,
            diff.counts.moved,
            diff.counts.changed
        ),
        (0, 1, 0, 2)
    );
    assert_eq!(diff.counts.unchanged as usize, base.modules.len() - 3);
    let entries: Vec<(ChildKey, Change)> = diff
        .entries()
        .map(|e| (e.object().map(|o| o.key.clone()).unwrap(), e.change))
        .collect();
    assert!(entries.contains(&(
        ChildKey::Scatter(replaced),
        Change::Changed {
            fields: FieldSet::of(&[ChangedField::Variant])
        }
    )));
    assert!(entries.contains(&(ChildKey::Scatter(deleted), Change::Removed)));
}
