//! Tests of rebasing edits of a subrecipe child run's objects (`nested: [1]`): after the child
//! recipe's lattice changes, a re-targeted override and mutation record the base revision of
//! their new target read off the child run's own stage base, apply again there (and not in the
//! other run), a migrated lock takes the child run's variant, and a re-target that names no
//! candidate of the child stage is a located error at the edit's `target`.

use std::collections::BTreeMap;

use super::subrecipe_override_tests::{ids, shared_target};
use super::subrecipe_tests::{errors, load, plan_of, CHILD, CHILD_FILE, MANIFEST};
use crate::generate::{
    CancelToken, ExecutionMode, GenerateRequest, Generated, Generator, NoObserver,
};
use crate::identity::{pack_scatter_id, ScatterId};
use crate::overrides::diagnose::rebase_error_diagnostic;
use crate::overrides::{
    rebase, rebase_report, Decision, EditList, EditRef, Overrides, RebaseError, RebaseReport,
    StageBase,
};
use crate::project::{canonical_text, LoadedProject, OverrideSet};

const SET_FILE: &str = "overrides/edits.overrides.ron";

/// The child recipe with 250-unit cells instead of 300: every placement of its runs moves.
pub(super) fn moved_child() -> String {
    let moved = CHILD.replace("\"cell_size\": 300,", "\"cell_size\": 250,");
    assert_ne!(moved, CHILD, "the fixture changes the lattice");
    moved
}

/// The example (with `child` as its subrecipe) and the override set text `set`.
pub(super) fn loaded(child: &str, set: &str) -> LoadedProject {
    let manifest = MANIFEST
        .replace("../../assets", "assets")
        .replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    let loaded = load(&[
        ("stagecraft.ron", &manifest),
        (CHILD_FILE, child),
        (SET_FILE, set),
    ]);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    loaded
}

pub(super) fn sets(loaded: &LoadedProject) -> Vec<OverrideSet> {
    let project = loaded.project.as_ref().expect("loads");
    Overrides::of_recipe(project, "street-planting")
        .sets()
        .to_vec()
}

pub(super) fn generate(loaded: &LoadedProject, overrides: &Overrides) -> Generated {
    let request = GenerateRequest {
        root_seed: 5,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    Generator::new()
        .generate_with(
            &plan_of(loaded, "street-planting"),
            &request,
            overrides,
            &CancelToken::new(),
            &NoObserver,
        )
        .expect("generates")
}

/// The rebase report of `loaded`'s sets at seed 5, made as `stagecraft rebase` makes it.
pub(super) fn report_of(loaded: &LoadedProject) -> RebaseReport {
    let base = generate(loaded, &Overrides::default());
    let preview = generate(loaded, &Overrides::preview(sets(loaded)));
    rebase_report(&sets(loaded), &preview.bundle, &base.bundle.digest_hex())
}

pub(super) fn edit(list: EditList, index: usize) -> EditRef {
    EditRef {
        set: "edits".to_owned(),
        list,
        index,
    }
}

/// The child run's stage base of stage 10 › 1, as the generation records it.
pub(super) fn child_base(generated: &Generated) -> StageBase {
    generated
        .bundle
        .stage(10)
        .and_then(|s| s.provenance.nested.as_deref())
        .and_then(|run| run.stage(1))
        .and_then(|s| s.provenance.edit_base.clone())
        .expect("the child scatter stage's base")
}

/// A set authored on the original child: a delete, a migrated lock (no variant recorded) and a
/// harvest of three placements of the main street's run, kept by a rebase so each records its
/// base revision. Returns the set's text and the three targets.
fn authored() -> (String, [u64; 3]) {
    let plain = generate(&load(&[]), &Overrides::default());
    let shared = shared_target(&plain);
    let others: Vec<u64> = ids(&plain, 10)
        .into_iter()
        .filter(|id| *id != shared)
        .collect();
    let targets = [shared, others[0], others[1]];
    let text = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: {}, action: Delete, nested: [1]), Override(stage: 10, target: {}, action: LockSelection(variant: \"\"), nested: [1])],\n    mutations: [Mutation(stage: 10, target: {}, harvested: true, nested: [1])])\n",
        targets[0], targets[1], targets[2]
    );
    let original = loaded(CHILD, &text);
    let kept = rebase(&sets(&original)[0], &report_of(&original), &BTreeMap::new())
        .expect("every edit applies on the original child");
    (canonical_text(&kept), targets)
}

#[test]
fn a_kept_nested_edit_records_the_child_runs_base_revision() {
    let (text, targets) = authored();
    let original = loaded(CHILD, &text);
    let set = &sets(&original)[0];
    let base = child_base(&generate(
        &original,
        &Overrides::of_recipe(original.project.as_ref().expect("loads"), "street-planting"),
    ));
    let revision = |t: u64| base.revision(ScatterId::from_bits(t).expect("packed"));
    assert_eq!(Some(set.overrides[0].base.clone()), revision(targets[0]));
    assert_eq!(Some(set.mutations[0].base.clone()), revision(targets[2]));
    // The migrated lock took the child run's variant of its target.
    let crate::project::schema::OverrideAction::LockSelection { variant } =
        &set.overrides[1].action
    else {
        panic!("a lock");
    };
    let drawn = base
        .candidate(ScatterId::from_bits(targets[1]).expect("packed"))
        .expect("a candidate");
    assert_eq!(variant, &base.variant_ids[drawn.variant as usize]);
    let report = report_of(&original);
    assert_eq!(report.count("applies"), 3);
    assert!(report
        .entries
        .iter()
        .all(|e| e.nested == [1] && e.stage == 10));
}

#[test]
fn a_retargeted_nested_override_and_mutation_apply_again_in_the_moved_child() {
    let (text, old) = authored();
    let moved = loaded(&moved_child(), &text);
    let report = report_of(&moved);
    let standings: Vec<(String, &str)> = report
        .entries
        .iter()
        .map(|e| (e.edit.to_string(), e.standing.name()))
        .collect();
    assert!(
        standings.iter().all(|(_, s)| *s != "applies"),
        "the lattice moved every target: {standings:?}"
    );
    let plain = generate(&moved, &Overrides::default());
    let fresh: Vec<u64> = ids(&plain, 10)
        .into_iter()
        .filter(|id| !old.contains(id))
        .collect();
    let (to_delete, to_lock, to_harvest) = (fresh[0], fresh[1], fresh[2]);
    let decisions: BTreeMap<EditRef, Decision> = [
        (edit(EditList::Override, 0), Decision::Retarget(to_delete)),
        (edit(EditList::Override, 1), Decision::Retarget(to_lock)),
        (edit(EditList::Mutation, 0), Decision::Retarget(to_harvest)),
    ]
    .into_iter()
    .collect();
    let next = rebase(&sets(&moved)[0], &report, &decisions).expect("re-targets");
    let base = child_base(&plain_with_edits(&moved));
    assert_ne!(base.cell_size, 300, "the moved child's own base");
    let revision = |t: u64| base.revision(ScatterId::from_bits(t).expect("packed"));
    assert_eq!(next.overrides[0].target, to_delete);
    assert_eq!(Some(next.overrides[0].base.clone()), revision(to_delete));
    assert_eq!(next.mutations[0].target, to_harvest);
    assert_eq!(Some(next.mutations[0].base.clone()), revision(to_harvest));
    assert_eq!(next.overrides[1].target, to_lock);
    assert_eq!(next.mutations[0].nested, [1]);
    assert_eq!(next.base_revision, report.base_revision);

    // The rebased set applies: the delete and the harvest remove exactly their targets of the
    // main street's run; the side street's run is as without edits.
    let rebased = loaded(&moved_child(), &canonical_text(&next));
    let project = rebased.project.as_ref().expect("loads");
    let edited = generate(&rebased, &Overrides::of_recipe(project, "street-planting"));
    let outcomes: Vec<_> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.edit.to_string(), o.stage, o.target, o.result.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("edits:overrides[0]".to_owned(), 10, to_delete, Ok(())),
            ("edits:overrides[1]".to_owned(), 10, to_lock, Ok(())),
            ("edits:mutations[0]".to_owned(), 10, to_harvest, Ok(())),
        ]
    );
    let expected: Vec<u64> = ids(&plain, 10)
        .into_iter()
        .filter(|id| *id != to_delete && *id != to_harvest)
        .collect();
    assert_eq!(ids(&edited, 10), expected);
    assert_eq!(ids(&edited, 20), ids(&plain, 20));
    assert_eq!(
        report_of(&rebased).count("applies"),
        3,
        "a second rebase keeps them"
    );
}

/// The moved child generated with its (not yet rebased) edits: its child stage records a base.
fn plain_with_edits(loaded: &LoadedProject) -> Generated {
    generate(loaded, &Overrides::preview(sets(loaded)))
}

#[test]
fn a_retarget_to_no_candidate_of_the_child_stage_is_a_located_error() {
    let (text, old) = authored();
    let moved = loaded(&moved_child(), &text);
    let report = report_of(&moved);
    // Candidate 1 of a cell: the child scatter draws one candidate per cell.
    let absent = pack_scatter_id(1, 0, 1, 0, 0).expect("packs").bits();
    let at = edit(EditList::Mutation, 0);
    let decisions: BTreeMap<EditRef, Decision> = [
        (edit(EditList::Override, 0), Decision::Drop),
        (edit(EditList::Override, 1), Decision::Drop),
        (at.clone(), Decision::Retarget(absent)),
    ]
    .into_iter()
    .collect();
    let error = rebase(&sets(&moved)[0], &report, &decisions).expect_err("no such candidate");
    let RebaseError::BadRetarget { stage, nested, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!((*stage, nested.as_slice()), (10, [1].as_slice()));
    assert_eq!(
        error.to_string(),
        "edits:mutations[0] cannot be re-targeted to 0x0001000100000000: not a candidate of stage 10 › 1 (child run street-planting/10:sidewalk-props)"
    );
    let tree_of = |file: &str| moved.trees.get(file);
    let located = rebase_error_diagnostic(&error, &tree_of);
    assert_eq!(
        (located.file.as_str(), located.line, located.column),
        (SET_FILE, 34, 21)
    );
    let line = text.lines().nth(33).expect("line 34");
    assert!(
        line[20..].starts_with(&format!("{},", old[2])),
        "at the mutation's target: {line}"
    );
    assert_eq!(located.path.to_string(), "mutations[0].target");
    assert_eq!(
        located.expected,
        "the packed id of a candidate of stage 10 › 1 in the new generation"
    );
}
