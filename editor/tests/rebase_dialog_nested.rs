//! The Rebase dialog (kittest) on edits inside a subrecipe child run after the child recipe
//! changed (`support::nested_rebase`): its rows name each edit's stage and nested path and stand
//! as `stagecraft rebase --json` reports them; re-targeting the delete and the harvest to
//! placements of the moved run is one undoable edit that writes what `stagecraft rebase --write
//! --retarget` writes; a re-target naming no candidate of stage 10 › 1 shows the command line's
//! located error and changes nothing.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::rebase_dialog::Choice;
use stagecraft_runtime::overrides::{EditList, EditRef};
use stagecraft_runtime::project::{canonical_text, OverrideSet};
use support::nested_rebase::{placements, write_moved_fixture, HARVESTED};
use support::rebase_dialog::{dialog_harness, override_set, State};
use support::{example, stagecraft, stdout};

fn edits(harness: &Harness<'_, State>) -> OverrideSet {
    override_set(harness, "edits")
}

fn edit(list: EditList) -> EditRef {
    EditRef {
        set: "edits".to_owned(),
        list,
        index: 0,
    }
}

#[test]
fn retargeting_nested_edits_in_the_dialog_is_the_command_lines_rebase() {
    let example = example("street-planting");
    let deleted = write_moved_fixture(&example.dir);
    let dir = example.dir.display().to_string();
    let mut harness = dialog_harness(&example.dir, None, 1800.0);
    assert_eq!(
        (
            harness.state().dialog.recipe.as_str(),
            harness.state().dialog.seed
        ),
        ("street-planting", 5)
    );
    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    assert!(
        harness
            .query_by_label_contains("edits:mutations[0] Harvest 0x00010100fff9fffe (stage 10 › 1)")
            .is_some(),
        "the row names the nested path"
    );
    // The same standings as the command line's report.
    let report = harness.state().dialog.report.clone().expect("a report");
    let shown: Vec<(String, String)> = report
        .entries
        .iter()
        .map(|e| (e.edit.to_string(), e.standing.name().to_owned()))
        .collect();
    let cli: serde_json::Value =
        serde_json::from_slice(&stagecraft(&["rebase", &dir, "--json"]).stdout).expect("json");
    let listed: Vec<(String, String)> = cli["recipes"][0]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["edit"].as_str().unwrap_or_default().to_owned(),
                e["standing"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(shown, listed);
    assert!(shown.iter().all(|(_, s)| s != "applies"), "{shown:?}");

    // Re-target both rows.
    for row in 0..2 {
        harness
            .get_all_by_label("Re-target")
            .nth(row)
            .expect("a re-target choice")
            .click();
        harness.run_steps(2);
    }
    for list in [EditList::Override, EditList::Mutation] {
        assert_eq!(
            harness.state().dialog.choices.get(&edit(list)),
            Some(&Choice::Retarget)
        );
    }
    let fresh: Vec<u64> = placements(&example.dir, 10)
        .into_iter()
        .filter(|id| *id != deleted && *id != HARVESTED)
        .collect();
    let (to_delete, to_harvest) = (fresh[0], fresh[1]);
    let before = edits(&harness);

    // First a harvest re-targeted to no candidate (candidate 1 of cell (0, 0)): the located
    // error of `stagecraft rebase --write --retarget`, and nothing changes.
    let absent = "0x0001010100000000";
    let dialog = &mut harness.state_mut().dialog;
    dialog
        .retarget
        .insert(edit(EditList::Override), format!("{to_delete:#x}"));
    dialog
        .retarget
        .insert(edit(EditList::Mutation), absent.to_owned());
    harness.run_steps(2);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let delete_arg = format!("edits:overrides[0]={to_delete:#x}");
    let refused: serde_json::Value = serde_json::from_slice(
        &stagecraft(&[
            "rebase",
            &dir,
            "--write",
            "--json",
            "--retarget",
            &delete_arg,
            "--retarget",
            &format!("edits:mutations[0]={absent}"),
        ])
        .stdout,
    )
    .expect("json");
    assert_eq!(refused["code"], "rebase_refused");
    let message = refused["message"].as_str().expect("message").to_owned();
    assert!(
        message.starts_with("overrides/edits.overrides.ron:"),
        "{message}"
    );
    assert!(message.contains("mutations[0].target: edits:mutations[0] cannot be re-targeted to 0x0001010100000000: not a candidate of stage 10 › 1"), "{message}");
    assert_eq!(
        harness.state().dialog.error.as_deref(),
        Some(message.as_str())
    );
    assert!(
        harness.query_by_label(&message).is_some(),
        "shown in the dialog"
    );
    assert_eq!(edits(&harness), before, "nothing applied");

    // Then a placement of the moved run: one undoable edit, what the command line writes.
    harness
        .state_mut()
        .dialog
        .retarget
        .insert(edit(EditList::Mutation), to_harvest.to_string());
    harness.run_steps(2);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let rebased = edits(&harness);
    assert_eq!(
        (rebased.overrides[0].target, rebased.mutations[0].target),
        (to_delete, to_harvest)
    );
    assert_eq!(rebased.mutations[0].nested, [1]);
    assert_eq!(rebased.mutations[0].base.len(), 16, "the new base revision");
    let harvest_arg = format!("edits:mutations[0]={to_harvest}");
    let written = stagecraft(&[
        "rebase",
        &dir,
        "--write",
        "--retarget",
        &delete_arg,
        "--retarget",
        &harvest_arg,
    ]);
    assert!(written.status.success(), "{}", stdout(&written));
    let file = std::fs::read_to_string(example.dir.join("overrides/edits.overrides.ron"))
        .expect("written");
    assert_eq!(
        canonical_text(&rebased),
        file,
        "the same rebase as --write --retarget"
    );
    assert!(harness.state_mut().document.undo(), "one undo step");
    assert_eq!(edits(&harness), before, "undo restores the set");
}
