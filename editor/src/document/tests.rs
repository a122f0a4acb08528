//! The document on a temp copy of the street-block example (real files): edits to a file that
//! broke on disk are never lost — the document stays dirty, the autosave holds them, a save
//! writes them only as the user chooses, and a later change on disk asks instead of replacing them.

use std::path::{Path, PathBuf};

use stagecraft_runtime::project::{canonical_text, ParamValue, ProjectSources};

use super::autosave;
use super::{side_file, DiskChange, Document, HeldChoice};
use crate::edits::{DocId, DocValue, ProjectEdit, Selection};
use crate::project_io;

const RECIPE: &str = "recipes/street-block.recipe.ron";
const SCENARIO: &str = "scenarios/crosswalk-rush.scenario.ron";

/// A temp copy of the street-block example with the shared assets beside it, laid out like the
/// repository so `../../assets` resolves.
struct Copy {
    _temp: tempfile::TempDir,
    dir: PathBuf,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

fn street_block() -> Copy {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().join("projects/street-block");
    copy_dir(&root.join("projects/street-block"), &dir);
    copy_dir(&root.join("assets"), &temp.path().join("assets"));
    std::fs::create_dir_all(temp.path().join(".git")).expect("repository marker");
    Copy { _temp: temp, dir }
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).expect("readable")
}

fn sources(document: &Document) -> ProjectSources {
    project_io::read_sources(document.dir()).expect("project folder readable")
}

/// Breaks `file` on disk (its last closing parenthesis deleted) and lets the document see it;
/// returns the broken text.
fn break_on_disk(document: &mut Document, file: &str) -> String {
    let text = read(document.dir(), file);
    let at = text.rfind(')').expect("a closing parenthesis");
    let broken = format!("{}{}", &text[..at], &text[at + 1..]);
    std::fs::write(document.dir().join(file), &broken).expect("write");
    assert_eq!(
        document.disk_changed(sources(document)),
        DiskChange::Reloaded(vec![file.to_owned()])
    );
    assert!(document.held().contains_key(file), "{file} is held");
    broken
}

/// The scatter stage's cell size in the document.
fn cell_size(document: &Document) -> Option<ParamValue> {
    let recipe = &document.project().recipes["street-block"];
    let stage = recipe.stages.iter().find(|s| s.id == 2)?;
    stage.parameters.get("cell_size").cloned()
}

/// Sets the scatter stage's cell size, as the Inspector does.
fn set_cell_size(document: &mut Document, value: i64) {
    let doc = DocId::Recipe("street-block".into());
    let Some(DocValue::Recipe(mut recipe)) = document.get(&doc) else {
        panic!("the example has the recipe");
    };
    let stage = recipe
        .stages
        .iter_mut()
        .find(|s| s.id == 2)
        .expect("stage 2");
    stage
        .parameters
        .insert("cell_size".into(), ParamValue::Int(value));
    let edit = ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Recipe(recipe)),
        Selection::doc(doc),
        "Set cell_size",
    );
    document.apply(edit);
}

fn edited_recipe_text(document: &Document) -> String {
    canonical_text(&document.project().recipes["street-block"])
}

fn autosaved(dir: &Path, file: &str) -> Option<String> {
    autosave::read(dir).and_then(|(autosave, _)| autosave.files.get(file).cloned())
}

#[test]
fn an_edit_to_a_file_broken_on_disk_stays_unsaved_autosaved_and_asks_on_a_change_on_disk() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    let original = read(&copy.dir, RECIPE);
    let broken = break_on_disk(&mut document, RECIPE);
    assert!(
        !document.is_dirty(),
        "holding the last good version is no edit"
    );
    set_cell_size(&mut document, 250);
    let edited = edited_recipe_text(&document);

    let report = document.save().expect("save");
    assert_eq!(report.unwritten, vec![RECIPE.to_owned()]);
    assert!(report.written.is_empty(), "{:?}", report.written);
    assert!(document.is_dirty(), "the edit is not on disk");
    assert_eq!(
        read(&copy.dir, RECIPE),
        broken,
        "the broken file is untouched"
    );
    assert_eq!(autosaved(&copy.dir, RECIPE), Some(edited.clone()));

    // Fixing the file on disk asks; the edit stays.
    std::fs::write(copy.dir.join(RECIPE), &original).expect("write");
    assert_eq!(
        document.disk_changed(sources(&document)),
        DiskChange::Conflict(vec![RECIPE.to_owned()])
    );
    assert_eq!(cell_size(&document), Some(ParamValue::Int(250)));
    assert!(document.is_dirty());
}

#[test]
fn overwrite_writes_the_edited_document_over_the_broken_file() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    break_on_disk(&mut document, RECIPE);
    set_cell_size(&mut document, 250);
    let edited = edited_recipe_text(&document);
    let report = document.save_held(HeldChoice::Overwrite).expect("save");
    assert_eq!(report.written, vec![RECIPE.to_owned()]);
    assert!(report.unwritten.is_empty());
    assert_eq!(read(&copy.dir, RECIPE), edited);
    assert!(document.held().is_empty());
    assert!(!document.is_dirty());
    assert_eq!(
        autosave::read(&copy.dir),
        None,
        "a full save clears the autosave"
    );
    // The disk now holds what the editor wrote: nothing to reload.
    assert_eq!(document.disk_changed(sources(&document)), DiskChange::None);
}

#[test]
fn keep_both_writes_the_edited_document_beside_the_broken_file() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    let broken = break_on_disk(&mut document, RECIPE);
    set_cell_size(&mut document, 250);
    let edited = edited_recipe_text(&document);
    let side = side_file(RECIPE);
    assert_eq!(side, "recipes/street-block.recipe.edited.ron");
    let report = document.save_held(HeldChoice::KeepBoth).expect("save");
    assert_eq!(report.written, vec![side.clone()]);
    assert_eq!(read(&copy.dir, &side), edited);
    assert_eq!(read(&copy.dir, RECIPE), broken);
    assert!(!document.is_dirty(), "the edit is on disk, beside the file");
    assert!(document.held().contains_key(RECIPE), "still unreadable");
    // The side file is no document of the project: the disk did not change for it.
    assert_eq!(document.disk_changed(sources(&document)), DiskChange::None);
}

#[test]
fn a_held_file_without_edits_does_not_keep_a_save_from_finishing() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    let broken = break_on_disk(&mut document, RECIPE);
    let doc = DocId::Scenario("crosswalk-rush".into());
    let Some(DocValue::Scenario(mut scenario)) = document.get(&doc) else {
        panic!("the example has the scenario");
    };
    scenario.name.push_str(" (edited)");
    document.apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Scenario(scenario)),
        Selection::doc(doc),
        "Set name",
    ));
    let report = document.save().expect("save");
    assert_eq!(report.written, vec![SCENARIO.to_owned()]);
    assert!(report.unwritten.is_empty());
    assert!(!document.is_dirty());
    assert_eq!(read(&copy.dir, RECIPE), broken);
}

#[test]
fn an_edit_before_the_file_broke_is_unwritten_after_loading_from_disk() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    set_cell_size(&mut document, 250);
    let text = read(&copy.dir, RECIPE);
    let at = text.rfind(')').expect("a closing parenthesis");
    std::fs::write(
        copy.dir.join(RECIPE),
        format!("{}{}", &text[..at], &text[at + 1..]),
    )
    .expect("write");
    let disk = sources(&document);
    assert_eq!(
        document.disk_changed(disk.clone()),
        DiskChange::Conflict(vec![RECIPE.to_owned()])
    );
    // "Load from disk" finds the file unreadable: the edited document is kept, and unsaved.
    document.load_from_disk(disk);
    assert_eq!(cell_size(&document), Some(ParamValue::Int(250)));
    assert_eq!(document.unwritable(), vec![RECIPE.to_owned()]);
    assert!(document.is_dirty());
}

#[test]
fn save_as_writes_a_held_document_into_the_new_folder() {
    let copy = street_block();
    let mut document = Document::open(&copy.dir).expect("opens");
    break_on_disk(&mut document, RECIPE);
    set_cell_size(&mut document, 250);
    let edited = edited_recipe_text(&document);
    let beside = copy.dir.with_file_name("street-block-copy");
    document.save_as(&beside).expect("saves");
    assert_eq!(read(&beside, RECIPE), edited);
    assert!(!document.is_dirty());
    let reopened = Document::open(&beside).expect("the copy opens");
    assert_eq!(cell_size(&reopened), Some(ParamValue::Int(250)));
}
