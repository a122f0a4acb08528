//! The Inspector page of a motion profile (`assets/running.motion.ron` of the `street-lifecycle`
//! example): the Project tab lists the profiles, the page has a row for every field the schema
//! (`MOTION_DOCUMENT`) lists, labelled as it says, a number is reset to its default and undone,
//! "Make monotone" repairs a clip's samples as one undoable edit, and a save writes the file.

mod support;

use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_runtime::project::{FieldPath, MotionProfileDoc, MOTION_DOCUMENT};
use support::{example, harness};

type Editor = egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>;

fn doc() -> DocId {
    DocId::Motion("running".into())
}

fn profile(harness: &Editor) -> MotionProfileDoc {
    harness
        .state()
        .document()
        .expect("a document")
        .project()
        .motions["running"]
        .clone()
}

fn undo_text(harness: &Editor) -> String {
    harness
        .state()
        .document()
        .expect("a document")
        .record()
        .undo_string()
        .unwrap_or_default()
}

fn undo(harness: &mut Editor) {
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(3);
}

#[test]
fn a_motion_profile_has_a_schema_driven_page_with_undoable_edits_and_is_saved() {
    let example = example("street-lifecycle");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 3000.0));
    harness.run_steps(3);
    // The Project tab lists both profiles.
    assert!(harness
        .query_all_by_label_contains("🏃 running (3.30 m/s)")
        .next()
        .is_some());
    assert!(harness
        .query_all_by_label_contains("🏃 walking (1.40 m/s)")
        .next()
        .is_some());
    // Off its default: the turn rate; a start sample below the one before it.
    let mut edited = profile(&harness);
    edited.turn_rate_deg_s = 200.0;
    edited.start.samples[60] = edited.start.samples[59] - 0.05;
    let file = "assets/running.motion.ron".to_owned();
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Motion(edited.clone(), file.clone())),
        Selection::field(doc(), FieldPath::root()),
        "Prepare",
    ));
    document.select(Selection::doc(doc()));
    harness.run_steps(4);
    // Every field of both sections has its row, labelled as the schema says.
    for section in MOTION_DOCUMENT.sections {
        for field in section.fields.iter().filter(|f| f.name != "schema") {
            assert!(
                harness
                    .query_all_by_label_contains(field.label)
                    .next()
                    .is_some(),
                "{}: no row labelled {:?}",
                section.name,
                field.label
            );
        }
    }
    // Each clip's samples are summarised: 121 from 0.
    let summaries = harness
        .query_all_by_label_contains("121 samples · 0.000 → ")
        .count();
    assert_eq!(summaries, 4, "one per clip");
    // A reset to the schema's default (360°/s), one undo step.
    harness.get_by_label("Reset turn_rate_deg_s").click();
    harness.run_steps(3);
    assert_eq!(profile(&harness).turn_rate_deg_s, 360.0);
    assert!(undo_text(&harness).contains("turn_rate_deg_s"));
    undo(&mut harness);
    assert_eq!(profile(&harness).turn_rate_deg_s, 200.0);
    // Make monotone: only the start clip needs it (its row selected, so scrolled to).
    let samples = FieldPath::root().field("start").field("samples");
    let document = harness.state_mut().document_mut().expect("a document");
    document.select(Selection::field(doc(), samples));
    harness.run_steps(4);
    assert_eq!(harness.query_all_by_label("Make monotone").count(), 1);
    harness.get_by_label("Make monotone").click();
    harness.run_steps(3);
    let repaired = profile(&harness).start.samples;
    assert_eq!(repaired[60], repaired[59], "the running maximum");
    assert!(undo_text(&harness).contains("start.samples"));
    undo(&mut harness);
    assert_eq!(profile(&harness).start.samples, edited.start.samples);
    // Saved like every document: the file holds the edit (and the walking profile, written
    // unchanged, is not taken for a dropped document and removed).
    let document = harness.state_mut().document_mut().expect("a document");
    document.save().expect("saves");
    let text = std::fs::read_to_string(example.dir.join(&file)).expect("the profile");
    assert!(text.contains("turn_rate_deg_s: 200.0"), "{text}");
    assert!(example.dir.join("assets/walking.motion.ron").is_file());
}

#[test]
fn a_motion_profile_changed_on_disk_is_reloaded_as_one_undoable_edit() {
    use stagecraft_editor::document::{DiskChange, Document};
    let example = example("street-lifecycle");
    let mut document = Document::open(&example.dir).expect("opens");
    let file = "assets/running.motion.ron";
    let text = std::fs::read_to_string(example.dir.join(file)).expect("the profile");
    let changed = text.replacen("    speed_m_s: 3.3,", "    speed_m_s: 2.9,", 1);
    assert_ne!(changed, text);
    std::fs::write(example.dir.join(file), changed).expect("written");
    let sources = stagecraft_editor::project_io::read_sources(&example.dir).expect("readable");
    assert_eq!(
        document.disk_changed(sources),
        DiskChange::Reloaded(vec![file.to_owned()])
    );
    assert_eq!(document.project().motions["running"].speed_m_s, 2.9);
    assert!(document.undo());
    assert_eq!(document.project().motions["running"].speed_m_s, 3.3);
}

#[test]
fn motion_profiles_leave_and_join_with_their_asset_folder_in_one_edit() {
    use stagecraft_editor::document::Document;
    let example = example("street-lifecycle");
    let mut document = Document::open(&example.dir).expect("opens");
    let ids = |document: &Document| -> Vec<String> {
        document.project().motions.keys().cloned().collect()
    };
    assert_eq!(ids(&document), vec!["running", "walking"]);
    let with = document.project().manifest.clone();
    let mut without = with.clone();
    without
        .asset_paths
        .retain(|p| p.trim_end_matches('/') != "assets");
    assert_ne!(
        without.asset_paths, with.asset_paths,
        "the example lists `assets`"
    );
    let set = |manifest| {
        ProjectEdit::replace(
            DocId::Manifest,
            Some(DocValue::Manifest(manifest)),
            Selection::doc(DocId::Manifest),
            "Set asset_paths",
        )
    };
    document.apply(set(without));
    assert!(
        ids(&document).is_empty(),
        "the folder's profiles left with it"
    );
    assert!(document.undo());
    assert_eq!(ids(&document), vec!["running", "walking"]);
    assert!(document.redo());
    document.apply(set(with));
    assert_eq!(
        ids(&document),
        vec!["running", "walking"],
        "read from the folder"
    );
    assert_eq!(
        document.project().motion_files["running"],
        "assets/running.motion.ron"
    );
}
