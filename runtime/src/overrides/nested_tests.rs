//! Tests of the overrides' views of subrecipe child runs: which edits each stage of each run
//! sees, bound against the root seed, and how a nested path enters the edits digest.

use super::{ConflictReason, Edit, Overrides, StageEdits};
use crate::project::schema::{Mutation, Override, OverrideAction, OverrideSet};

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

fn harvest(stage: u32, nested: &[u32]) -> Mutation {
    Mutation {
        stage,
        target: 1 << 48,
        base: String::new(),
        harvested: true,
        ordinal: 0,
        nested: nested.to_vec(),
    }
}

/// Mutations 0..=2: a harvest of stage 10 itself, of child stage 1 of 10, and of stage 3.
fn mutations() -> Overrides {
    Overrides::new(vec![OverrideSet {
        id: "edits".into(),
        recipe: "r".into(),
        base_seed: Some(7),
        mutations: vec![harvest(10, &[]), harvest(10, &[1]), harvest(3, &[])],
        ..OverrideSet::default()
    }])
}

#[test]
fn a_mutation_reaches_the_child_stage_its_path_ends_at() {
    let root = mutations();
    assert_eq!(indices(&root.for_stage(10, 7)), [0]);
    assert_eq!(indices(&root.for_subtree(10, 7)), [0, 1]);
    assert_eq!(indices(&root.for_stage(3, 7)), [2]);
    let child = root.child(10, 7);
    assert_eq!(indices(&child.for_stage(1, 99)), [1]);
    let (at, edit, bound) = &child.for_stage(1, 99).edits[0];
    assert_eq!(at.list, super::EditList::Mutation);
    assert_eq!(edit.nested(), [1]);
    assert_eq!(bound, &Ok(()));
    // Nothing reaches the child run of stage 3, nor stage 3 of the child run.
    assert_eq!(root.child(3, 7), Overrides::none());
    assert_eq!(indices(&child.for_stage(3, 99)), Vec::<usize>::new());
}

#[test]
fn a_mutations_path_enters_the_digest_and_one_without_encodes_as_before() {
    let root = mutations();
    let own = root.for_stage(10, 7);
    let nested = root.child(10, 7).for_stage(1, 0);
    let (at, _, bound) = nested.edits[0].clone();
    let stripped = StageEdits {
        edits: vec![(at, Edit::Mutation(harvest(10, &[])), bound)],
    };
    assert_ne!(stripped.digest(), nested.digest());
    // Pinned: a mutation without a path encodes as it always has (EDITS001 layout) ...
    let mut w = crate::content::encode::ByteWriter::tagged(b"EDITS001");
    w.count(1).str("edits").u8(1).count(0).bool(true);
    w.u32(10).u64(1 << 48).str("").bool(true).u32(0);
    assert_eq!(own.digest(), w.digest());
    // ... and one with a path: its binding byte offset by 2, then the path.
    let mut w = crate::content::encode::ByteWriter::tagged(b"EDITS001");
    w.count(1).str("edits").u8(1).count(1).u8(3).count(1).u32(1);
    w.u32(10).u64(1 << 48).str("").bool(true).u32(0);
    assert_eq!(nested.digest(), w.digest());
    // The canonical text writes the path only when given.
    let mut set = OverrideSet {
        id: "edits".into(),
        recipe: "r".into(),
        mutations: vec![harvest(10, &[])],
        ..OverrideSet::default()
    };
    let text = crate::project::canonical_text(&set);
    assert!(!text.contains("nested"), "{text}");
    set.mutations[0].nested = vec![1];
    let text = crate::project::canonical_text(&set);
    assert!(
        text.contains("nested: [\n                1,\n            ],"),
        "{text}"
    );
}
