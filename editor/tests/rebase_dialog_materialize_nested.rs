//! Materializing edits of a subrecipe child run's object in the Rebase dialog (kittest) on the
//! street-planting example: a move and a migrated lock of one placement of the main street's run
//! (`stage: 10, nested: [1]`), their base revisions recorded, then the child's lattice moved so
//! neither applies. Choosing Materialize for both rows is one undoable edit that writes one
//! authored `Add` with the same nested path, at the move's spot with the lock's variant: what
//! `stagecraft rebase --write --materialize` writes, and it applies in the child run.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::rebase_dialog::Choice;
use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::overrides::{EditList, EditRef};
use stagecraft_runtime::project::{canonical_text, OverrideAction, OverrideSet, Vec2};
use support::nested_rebase::{placed, record_then_move_lattice, HARVESTED};
use support::rebase_dialog::{dialog_harness, override_set, State};
use support::{example, stagecraft, stdout};

fn edits(harness: &Harness<'_, State>) -> OverrideSet {
    override_set(harness, "edits")
}

/// Writes the move and the lock of `HARVESTED` (a placement of the main street's run) to where
/// another placement of its sidewalk stands, records their bases with `stagecraft rebase
/// --write`, then moves the child's lattice. Returns the spot in meters.
fn write_fixture(dir: &std::path::Path) -> Vec2 {
    let layer = |id: u64| ScatterId::from_bits(id).map(|s| s.unpack().layer).ok();
    let (_, x, y) = placed(dir, 10)
        .into_iter()
        .find(|(id, _, _)| *id != HARVESTED && layer(*id) == layer(HARVESTED))
        .expect("another placement of the sidewalk");
    // The child scatter stage's lattice unit is 0.01 m.
    let spot = Vec2 {
        x: x as f64 * 0.01,
        y: y as f64 * 0.01,
    };
    let set = format!(
        "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: {HARVESTED}, action: Move(position: ({:?}, {:?})), nested: [1]), Override(stage: 10, target: {HARVESTED}, action: LockSelection(variant: \"\"), nested: [1])])\n",
        spot.x, spot.y
    );
    record_then_move_lattice(dir, &set);
    spot
}

/// The edits and standings `stagecraft rebase --json` reports for the project at `dir`.
fn cli_standings(dir: &str) -> Vec<(String, String)> {
    let cli: serde_json::Value =
        serde_json::from_slice(&stagecraft(&["rebase", dir, "--json"]).stdout).expect("json");
    cli["recipes"][0]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["edit"].as_str().unwrap_or_default().to_owned(),
                e["standing"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn materializing_a_nested_move_and_lock_in_the_dialog_is_the_command_lines_rebase() {
    let example = example("street-planting");
    let spot = write_fixture(&example.dir);
    let dir = example.dir.display().to_string();
    let mut harness = dialog_harness(&example.dir, None, 1800.0);
    let before = edits(&harness);
    let OverrideAction::LockSelection { variant } = &before.overrides[1].action else {
        panic!("a lock");
    };
    let variant = variant.clone();
    assert!(
        !variant.is_empty(),
        "the kept lock records the run's variant"
    );

    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    let report = harness.state().dialog.report.clone().expect("a report");
    assert!(
        report
            .entries
            .iter()
            .all(|e| e.standing.name() != "applies"),
        "the lattice moved the target"
    );
    for row in 0..2 {
        harness
            .get_all_by_label("Materialize")
            .nth(row)
            .expect("a materialize choice")
            .click();
        harness.run_steps(2);
    }
    for index in 0..2 {
        let at = EditRef {
            set: "edits".to_owned(),
            list: EditList::Override,
            index,
        };
        assert_eq!(
            harness.state().dialog.choices.get(&at),
            Some(&Choice::Materialize)
        );
    }
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    assert_eq!(harness.state().dialog.error, None);

    // One authored object, made in the main street's run at the move's spot with the lock's
    // variant.
    let rebased = edits(&harness);
    assert_eq!(rebased.overrides.len(), 1, "{rebased:?}");
    let add = &rebased.overrides[0];
    assert_eq!(
        (add.stage, add.nested.clone(), &add.action),
        (
            10,
            vec![1],
            &OverrideAction::Add {
                variant,
                position: spot
            }
        )
    );
    assert!(ScatterId::from_bits(add.target)
        .expect("packed")
        .is_authored());

    // What the command line writes, and it applies there.
    let written = stagecraft(&["rebase", &dir, "--write", "--materialize"]);
    assert!(written.status.success(), "{}", stdout(&written));
    let file = std::fs::read_to_string(example.dir.join("overrides/edits.overrides.ron"))
        .expect("written");
    assert_eq!(
        canonical_text(&rebased),
        file,
        "the same rebase as --write --materialize"
    );
    assert_eq!(
        cli_standings(&dir),
        [("edits:overrides[0]".to_owned(), "applies".to_owned())]
    );

    assert!(harness.state_mut().document.undo(), "one undo step");
    assert_eq!(edits(&harness), before, "undo restores the set");
}
