//! Tests of the overrides' views of subrecipe child runs: which edits each stage of each run
//! sees, bound against the root seed, and how a nested path enters the edits digest.

use super::{ConflictReason, Edit, Overrides, StageEdits};
use crate::project::schema::{Override, OverrideAction, OverrideSet};

fn delete(stage: u32, nested: &[u32]) -> Override {
    Override {
        stage,
        target: 1 << 48,
        precedence: 0,
        base: String::new(),
        action: OverrideAction::Delete,
        nested: nested.to_vec(),
    }
}

/// Edits 0..=4: stage 10 itself, child stage 1 of 10, grandchild stage 1 under child stage 5,
/// stage 3, and child stage 5 of 10 itself.
fn overrides(base_seed: u64) -> Overrides {
    Overrides::new(vec![OverrideSet {
        id: "edits".into(),
        recipe: "r".into(),
        base_seed: Some(base_seed),
        overrides: vec![
            delete(10, &[]),
            delete(10, &[1]),
            delete(10, &[5, 1]),
            delete(3, &[]),
            delete(10, &[5]),
        ],
        ..OverrideSet::default()
    }])
}

fn indices(edits: &StageEdits) -> Vec<usize> {
    edits.edits.iter().map(|(at, _, _)| at.index).collect()
}

#[test]
fn each_run_sees_the_edits_whose_path_ends_at_its_stages() {
    let root = overrides(7);
    assert_eq!(indices(&root.for_stage(10, 7)), [0]);
    assert_eq!(indices(&root.for_subtree(10, 7)), [0, 1, 2, 4]);
    assert_eq!(indices(&root.for_stage(3, 7)), [3]);
    assert_eq!(indices(&root.for_subtree(3, 7)), [3]);
    let child = root.child(10, 7);
    assert_eq!(indices(&child.for_stage(1, 99)), [1]);
    assert_eq!(indices(&child.for_stage(5, 99)), [4]);
    assert_eq!(indices(&child.for_subtree(5, 99)), [2, 4]);
    assert_eq!(indices(&child.for_stage(10, 99)), Vec::<usize>::new());
    let grandchild = child.child(5, 99);
    assert_eq!(indices(&grandchild.for_stage(1, 12345)), [2]);
    assert_eq!(
        indices(&grandchild.for_stage(5, 12345)),
        Vec::<usize>::new()
    );
    // A stage no path passes through gives its run no overrides at all.
    assert_eq!(root.child(3, 7), Overrides::none());
    assert!(child.child(1, 99).is_empty());
}

#[test]
fn a_child_run_binds_sets_against_the_root_seed() {
    let bound = overrides(7).child(10, 7);
    let (_, _, result) = &bound.for_stage(1, 424242).edits[0];
    assert_eq!(result, &Ok(()));
    let unbound = overrides(7).child(10, 8);
    let (_, _, result) = &unbound.for_stage(1, 424242).edits[0];
    assert_eq!(
        result,
        &Err(ConflictReason::SeedNotBound {
            base_seed: Some(7),
            seed: 8
        })
    );
}

#[test]
fn a_nested_path_enters_the_digest_and_an_edit_without_one_encodes_as_before() {
    let root = overrides(7);
    let own = root.for_stage(10, 7);
    let nested = root.child(10, 7).for_stage(1, 0);
    assert_ne!(own.digest(), nested.digest());
    // The same edit at another depth is another edit.
    let deeper = root.child(10, 7).child(5, 0).for_stage(1, 0);
    assert_ne!(nested.digest(), deeper.digest());
    let strip = |edits: &StageEdits| StageEdits {
        edits: edits
            .edits
            .iter()
            .map(|(at, edit, bound)| {
                let edit = match edit {
                    Edit::Override(o) => Edit::Override(Override {
                        nested: Vec::new(),
                        ..o.clone()
                    }),
                    other => other.clone(),
                };
                (at.clone(), edit, bound.clone())
            })
            .collect(),
    };
    assert_ne!(strip(&nested).digest(), nested.digest());
    // Pinned: the digest of an edit without a path is the one it always had (EDITS001 layout).
    let mut w = crate::content::encode::ByteWriter::tagged(b"EDITS001");
    w.count(1).str("edits").u8(0).count(0).bool(true);
    w.u32(10).u64(1 << 48).u32(0).str("").u8(3);
    assert_eq!(own.digest(), w.digest());
}
