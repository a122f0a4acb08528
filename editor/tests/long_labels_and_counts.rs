//! Long labels elide with their whole text on hover (the Project tree, the Inspector's
//! heading); the Diagnostics counters, the tab's title and the status line count exactly the
//! rows the Diagnostics tab lists, with errors and warnings from the document, from a file
//! held after it broke on disk, and from edits.

mod support;

use std::time::Duration;

use egui_kittest::kittest::{NodeT as _, Queryable as _};
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::diagnostics_title;
use support::{example, harness, wait_until};

/// A 120-character scenario id.
fn long_id() -> String {
    let id: String = "a-very-long-scenario-id-"
        .chars()
        .cycle()
        .take(120)
        .collect();
    id.trim_end_matches('-').to_owned()
}

#[test]
fn a_long_id_is_elided_in_its_row_and_whole_in_its_hover_text() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let id = long_id();
    assert!(id.len() >= 119, "{}", id.len());
    {
        let document = harness.state_mut().document_mut().expect("a document");
        let project = document.project();
        let mut scenario = project.scenarios["crosswalk-rush"].clone();
        scenario.id = id.clone();
        let mut manifest = project.manifest.clone();
        manifest.scenarios.push(id.clone());
        let doc = DocId::Scenario(id.clone());
        let selection = Selection::doc(doc.clone());
        document.apply(ProjectEdit::Batch {
            edits: vec![
                ProjectEdit::replace(
                    doc,
                    Some(DocValue::Scenario(scenario)),
                    selection.clone(),
                    "",
                ),
                ProjectEdit::replace(
                    DocId::Manifest,
                    Some(DocValue::Manifest(manifest)),
                    selection.clone(),
                    "",
                ),
            ],
            selection,
            label: "New scenario".to_owned(),
        });
    }
    harness.run_steps(4);
    let row_text = format!("🎬 {id}");
    let row = harness.get_by_label(&row_text).rect();
    let inspector_heading = harness.get_by_label(&format!("Scenario {id}")).rect();
    // The whole text is far wider than the left column: the rows end inside it.
    let column_right = 0.24 * 1280.0 + 8.0;
    assert!(row.right() <= column_right, "the tree row {row:?}");
    assert!(
        inspector_heading.right() <= column_right,
        "the heading {inspector_heading:?}"
    );
    assert!(row.height() < 30.0, "one line, not wrapped: {row:?}");
    // Hovering shows the whole id (and the file) in the tooltip.
    harness.get_by_label(&row_text).hover();
    harness.run_steps(3);
    let file = format!("scenarios/{id}.scenario.ron");
    assert!(
        harness
            .query_by_label(&format!("{row_text}\n{file}"))
            .is_some(),
        "no tooltip with the whole name"
    );
}

/// The number of Diagnostics rows (not the header's counters) whose label starts with `icon`.
fn listed(
    harness: &egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>,
    icon: &str,
) -> usize {
    harness
        .query_all_by_label_contains(".ron:")
        .filter(|node| {
            node.accesskit_node()
                .label()
                .is_some_and(|label| label.starts_with(icon))
        })
        .count()
}

#[test]
fn the_diagnostics_counters_title_and_status_line_count_the_listed_rows() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir);
    // Errors: the recipe broken on disk (held, its last good version kept).
    let recipe = "recipes/pine-clearing.recipe.ron";
    let text = std::fs::read_to_string(example.dir.join(recipe)).expect("read");
    let at = text.rfind(')').expect("a closing parenthesis");
    std::fs::write(
        example.dir.join(recipe),
        format!("{}{}", &text[..at], &text[at + 1..]),
    )
    .expect("write");
    wait_until(&mut harness, Duration::from_secs(5), |app| {
        app.document()
            .is_some_and(|d| d.held().contains_key(recipe))
    })
    .expect("the broken recipe is held");
    // A warning: an edit of a generated object without a base revision.
    {
        let document = harness.state_mut().document_mut().expect("a document");
        let doc = DocId::Overrides("pine-clearing-edits".into());
        let Some(DocValue::Overrides(mut set)) = document.get(&doc) else {
            panic!("the example has its override set");
        };
        set.overrides[0].base = String::new();
        document.apply(ProjectEdit::replace(
            doc.clone(),
            Some(DocValue::Overrides(set)),
            Selection::doc(doc),
            "Clear a base",
        ));
    }
    harness.run_steps(4);
    let app = harness.state();
    let document = app.document().expect("a document");
    let held_errors = document.held()[recipe].diagnostics.len();
    let document_warnings = document
        .diagnostics()
        .iter()
        .filter(|d| !d.is_error())
        .count();
    assert!(held_errors >= 1 && document_warnings >= 1);
    let (errors, warnings) = (listed(&harness, "⛔ "), listed(&harness, "⚠ "));
    assert!(errors >= held_errors, "{errors} error rows");
    assert!(warnings >= document_warnings, "{warnings} warning rows");
    let tally = app.panels().diagnostics.tally;
    assert_eq!((tally.errors, tally.warnings), (errors, warnings));
    let noun = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    assert!(harness
        .query_by_label(&format!("⛔ {}", noun(errors, "error")))
        .is_some());
    assert!(harness
        .query_by_label(&format!("⚠ {}", noun(warnings, "warning")))
        .is_some());
    assert!(harness
        .query_by_label(&format!("⛔ {errors}  ⚠ {warnings}"))
        .is_some());
    assert!(diagnostics_title(document, tally)
        .starts_with(&format!("Diagnostics ({})", errors + warnings)));
    // The filters hide rows, never the counts.
    harness
        .get_by_label(&format!("⛔ {}", noun(errors, "error")))
        .click();
    harness.run_steps(3);
    assert_eq!(listed(&harness, "⛔ "), 0);
    assert_eq!(harness.state().panels().diagnostics.tally, tally);
}
