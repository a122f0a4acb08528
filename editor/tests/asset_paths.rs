//! An asset folder added to the manifest in the Inspector brings its families at once, before
//! any save, in the same undo step; undo takes them out again.

mod support;

use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, Selection};
use support::{example, harness};

const SHRUBS: &str = r#"AssetFamily(
    schema: 1,
    id: "shrubs",
    name: "Shrubs",
    variants: [
        Variant(
            id: "juniper",
            weight: 1,
            exclusion_radius: 80,
            collision_radius_m: 0.4,
            height_m: 1.2,
            shape: Cone,
            colour: (60, 110, 70),
        ),
    ],
)
"#;

#[test]
fn an_asset_path_added_in_the_inspector_loads_its_families_without_saving() {
    let example = example("pine-clearing");
    std::fs::create_dir_all(example.dir.join("assets")).expect("folder");
    std::fs::write(example.dir.join("assets/shrubs.family.ron"), SHRUBS).expect("family");
    let manifest_on_disk = std::fs::read(example.dir.join("stagecraft.ron")).expect("manifest");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    let document = harness.state_mut().document_mut().expect("a document");
    let before = document.project().clone();
    let steps_before = document.record().len();
    assert!(!before.families.contains_key("shrubs"));
    document.select(Selection::doc(DocId::Manifest));
    harness.run_steps(3);

    // "+ Add asset path" adds `assets`, the folder holding the new family.
    harness.get_by_label("+ Add asset path").click();
    harness.run_steps(3);
    let document = harness.state().document().expect("a document");
    let project = document.project();
    assert_eq!(
        project.manifest.asset_paths,
        vec!["../../assets".to_owned(), "assets".to_owned()]
    );
    assert_eq!(project.families["shrubs"].variants[0].id, "juniper");
    assert_eq!(
        project.family_files["shrubs"],
        "assets/shrubs.family.ron".to_owned()
    );
    assert_eq!(project.families.len(), before.families.len() + 1);
    assert_eq!(document.record().len(), steps_before + 1, "one undo step");
    assert!(document.is_dirty());
    assert_eq!(
        std::fs::read(example.dir.join("stagecraft.ron")).expect("manifest"),
        manifest_on_disk,
        "nothing was saved"
    );
    assert!(
        !document
            .diagnostics()
            .iter()
            .any(|d| d.message.contains("shrubs")),
        "{:?}",
        document.diagnostics()
    );
    // The Project tab lists it.
    assert!(harness.query_by_label_contains("🌲 shrubs").is_some());

    // Undo takes the folder and its family out together.
    let document = harness.state_mut().document_mut().expect("a document");
    assert!(document.undo());
    assert_eq!(document.project(), &before);
    assert!(document.redo());
    assert!(document.project().families.contains_key("shrubs"));
}
