//! The Rebase dialog driven through kittest on the pine-clearing example: its report at a seed is
//! `stagecraft rebase`'s for the same project and seed, the default decisions applied are what
//! `stagecraft rebase --write` writes, a re-target points the edit at the typed object, the whole
//! rebase is one undo step, and Edit → Rebase overrides… opens it at the manifest's seed.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::actions::Action;
use stagecraft_editor::app::dialogs::Dialog;
use stagecraft_editor::app::rebase_dialog::Choice;
use stagecraft_runtime::identity::pack_scatter_id;
use stagecraft_runtime::project::{canonical_text, OverrideSet};
use support::rebase_dialog::{dialog_harness, override_set, State};
use support::{example, stagecraft, stdout};

const SET: &str = "pine-clearing-edits";

fn edits(harness: &Harness<'_, State>) -> OverrideSet {
    override_set(harness, SET)
}

/// (edit, standing, reason) of each entry, as `stagecraft rebase --json` prints them.
fn cli_entries(dir: &std::path::Path, seed: u64) -> Vec<(String, String, Option<String>)> {
    let seed = seed.to_string();
    let dir = dir.display().to_string();
    let output = stagecraft(&["rebase", &dir, "--seed", &seed, "--json"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    json["recipes"][0]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["edit"].as_str().unwrap_or_default().to_owned(),
                e["standing"].as_str().unwrap_or_default().to_owned(),
                e["reason"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn dialog_entries(harness: &Harness<'_, State>) -> Vec<(String, String, Option<String>)> {
    let report = harness.state().dialog.report.clone().expect("a report");
    report
        .entries
        .iter()
        .map(|e| {
            let reason = match &e.standing {
                stagecraft_runtime::overrides::Standing::Conflict(r) => Some(r.name().to_owned()),
                _ => None,
            };
            (e.edit.to_string(), e.standing.name().to_owned(), reason)
        })
        .collect()
}

#[test]
fn the_report_at_a_new_seed_is_the_command_lines_and_applying_it_is_one_undo_step() {
    let example = example("pine-clearing");
    let mut harness = dialog_harness(&example.dir, Some(7), 900.0);
    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    let shown = dialog_entries(&harness);
    assert_eq!(shown, cli_entries(&example.dir, 7), "the same answer");
    let report = harness.state().dialog.report.clone().expect("a report");
    assert_eq!(report.entries.len(), 9, "7 overrides and 2 mutations");
    assert!(
        report.count("orphaned") > 0,
        "a seed change orphans targets"
    );
    let summary = format!(
        "recipe pine-clearing at seed 7: {} apply, {} orphaned, {} conflict",
        report.count("applies"),
        report.count("orphaned"),
        report.count("conflict")
    );
    assert!(harness.query_by_label(&summary).is_some(), "{summary}");
    assert_eq!(report.count("conflict"), 0, "nothing here needs a decision");

    // The default decisions give what `stagecraft rebase --write` writes.
    let before = edits(&harness);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let rebased = edits(&harness);
    assert_eq!(rebased.base_seed, Some(7));
    assert_eq!(
        rebased.overrides.len() + rebased.mutations.len(),
        report.count("applies")
    );
    let written = support::example("pine-clearing");
    let dir = written.dir.display().to_string();
    let output = stagecraft(&["rebase", &dir, "--seed", "7", "--write"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let file = std::fs::read_to_string(written.dir.join(format!("overrides/{SET}.overrides.ron")))
        .expect("written");
    assert_eq!(canonical_text(&rebased), file, "the same rebase as --write");
    assert!(harness.state_mut().document.undo(), "one undo step");
    assert_eq!(edits(&harness), before, "undo restores the set");
}

#[test]
fn a_retargeted_lock_names_the_typed_object_with_its_new_base() {
    let example = example("pine-clearing");
    let mut harness = dialog_harness(&example.dir, Some(7), 900.0);
    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    // Row 0 is the lock of overrides[0]: re-target it to candidate 0 of cell (5, 5).
    harness
        .get_all_by_label("Re-target")
        .next()
        .expect("a re-target choice")
        .click();
    harness.run_steps(2);
    let first = harness
        .state()
        .dialog
        .report
        .clone()
        .expect("report")
        .entries[0]
        .edit
        .clone();
    assert_eq!(
        harness.state().dialog.choices.get(&first),
        Some(&Choice::Retarget)
    );
    let to = pack_scatter_id(1, 0, 0, 5, 5).expect("packs").bits();
    assert!(
        harness.state().dialog.decisions().is_err(),
        "no id typed yet"
    );
    harness
        .state_mut()
        .dialog
        .retarget
        .insert(first, format!("{to:#x}"));
    harness.run_steps(2);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let rebased = edits(&harness);
    let lock = &rebased.overrides[0];
    assert_eq!(lock.target, to);
    assert_eq!(lock.base.len(), 16, "the new base revision");
    assert_ne!(lock.base, "cd1c5eaaf5a65d02", "not the old seed's");
}

#[test]
fn edit_menu_opens_the_dialog_at_the_manifest_seed_where_everything_applies() {
    let example = example("pine-clearing");
    let mut harness = support::harness(&example.dir);
    harness.state_mut().perform(Action::Rebase);
    harness.run_steps(2);
    let Some(Dialog::Rebase(dialog)) = harness.state().dialog() else {
        panic!("the rebase dialog");
    };
    assert_eq!(
        (dialog.recipe.as_str(), dialog.seed),
        ("pine-clearing", 20261129)
    );
    harness.get_by_label("Run report").click();
    let reported = support::wait_until(
        &mut harness,
        std::time::Duration::from_secs(60),
        |app| matches!(app.dialog(), Some(Dialog::Rebase(d)) if d.report.is_some()),
    );
    assert!(reported.is_some(), "the report arrives from its thread");
    harness.run_steps(2);
    assert!(harness
        .query_by_label("recipe pine-clearing at seed 20261129: 9 apply, 0 orphaned, 0 conflict")
        .is_some());
    // The modal re-centres once the report makes it taller; click where it settled.
    harness.run_steps(3);
    harness.get_by_label("Close").click();
    harness.run_steps(2);
    assert!(harness.state().dialog().is_none());
}

#[test]
fn a_conflict_blocks_apply_until_it_is_decided() {
    let example = example("pine-clearing");
    // An added rock inside keep-out 0 ((20, 20)–(40, 40) m): a hard-constraint conflict.
    let path = example.dir.join(format!("overrides/{SET}.overrides.ron"));
    let text = std::fs::read_to_string(&path).expect("set");
    let rock = "        Override(\n            stage: 1001,\n            target: 282024732983303,\n            precedence: 0,\n            base: \"\",\n            action: Add(\n                variant: \"boulder\",\n                position: (30.0, 30.0),\n            ),\n        ),\n    ],\n    mutations: [";
    std::fs::write(&path, text.replacen("    ],\n    mutations: [", rock, 1)).expect("write");
    let mut harness = dialog_harness(&example.dir, Some(20261129), 900.0);
    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    let report = harness.state().dialog.report.clone().expect("a report");
    assert_eq!(report.count("conflict"), 1);
    assert_eq!(
        dialog_entries(&harness),
        cli_entries(&example.dir, 20261129)
    );
    let conflict = report
        .entries
        .iter()
        .position(|e| {
            matches!(
                e.standing,
                stagecraft_runtime::overrides::Standing::Conflict(_)
            )
        })
        .expect("the conflict");
    assert_eq!(
        report.entries[conflict].edit.to_string(),
        format!("{SET}:overrides[7]")
    );
    assert!(harness
        .query_by_label_contains("conflict (inside-keep-out): inside keep-out 0")
        .is_some());
    assert_eq!(
        harness.state().dialog.decisions().err(),
        Some(format!("{SET}:overrides[7] conflicts and needs a decision"))
    );
    // Rows are in report order; Add has no re-target, so its Drop is the conflict's row's.
    harness
        .get_all_by_label("Drop")
        .nth(conflict)
        .expect("the conflict's Drop")
        .click();
    harness.run_steps(2);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let rebased = edits(&harness);
    assert_eq!(
        rebased.overrides.len(),
        7,
        "the conflicting rock is dropped"
    );
    assert!(rebased
        .overrides
        .iter()
        .all(|o| o.target != 282024732983303));
}

#[test]
fn diagnostics_warn_at_every_edit_a_spacing_change_breaks_and_a_freeze_materializes() {
    let example = example("pine-clearing");
    let recipe = example.dir.join("recipes/pine-clearing.recipe.ron");
    let text = std::fs::read_to_string(&recipe).expect("recipe");
    std::fs::write(
        &recipe,
        text.replace("\"cell_size\": 400,", "\"cell_size\": 500,"),
    )
    .expect("write");
    let mut harness = support::harness(&example.dir);
    // The Diagnostics tab warns at the move's entry once the preview is generated.
    // The identity in hex, as every panel and command writes one (281474976710658 in the file).
    let row = "overrides[3]  — Move of 0x0001000000000002 (stage 1001) does not apply (base-revision-mismatch)";
    let start = std::time::Instant::now();
    while harness.query_by_label_contains(row).is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "no Diagnostics row {row}"
        );
        harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(harness.query_by_label_contains("⚠ 7 warnings").is_some());

    // In the Rebase dialog the freeze (row 6) materializes; everything else that conflicts
    // is dropped.
    let mut harness = dialog_harness(&example.dir, Some(20261129), 900.0);
    harness.get_by_label("Run report").click();
    harness.run_steps(2);
    let report = harness.state().dialog.report.clone().expect("a report");
    // The lock, transform lock, move and freeze conflict on their base revisions; the delete,
    // harvest and regrow lost their targets (their cells fall outside the region at 5 m).
    assert_eq!(report.count("conflict"), 4);
    assert_eq!(report.count("orphaned"), 3);
    for (i, entry) in report.entries.iter().enumerate() {
        let choice = match i {
            6 => Choice::Materialize,
            4 | 5 => Choice::Keep,
            _ => Choice::Drop,
        };
        harness
            .state_mut()
            .dialog
            .choices
            .insert(entry.edit.clone(), choice);
    }
    assert_eq!(harness.get_all_by_label("Materialize").count(), 4);
    harness.run_steps(2);
    harness.get_by_label("Apply rebase").click();
    harness.run_steps(2);
    let rebased = edits(&harness);
    let actions: Vec<&str> = rebased.overrides.iter().map(|o| o.action.name()).collect();
    assert_eq!(actions, ["Add", "Exclude", "Add", "Rotate"]);
    let made = &rebased.overrides[2];
    assert_eq!(
        made.action,
        stagecraft_runtime::project::OverrideAction::Add {
            variant: "pine-tall".into(),
            position: stagecraft_runtime::project::Vec2 { x: 16.05, y: 18.13 },
        }
    );
    assert_eq!(rebased.overrides[3].target, made.target);
}
