//! The example projects are valid and already canonical: load → save is byte-identical.

use stagecraft_editor::project_io::load_dir;
use stagecraft_tests::example_projects;

#[test]
fn there_are_at_least_two_examples() {
    let names: Vec<String> = example_projects()
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert!(names.contains(&"street-block".to_owned()), "{names:?}");
    assert!(names.contains(&"pine-clearing".to_owned()), "{names:?}");
}

#[test]
fn every_example_checks_without_diagnostics() {
    for dir in example_projects() {
        let (_, loaded) = load_dir(&dir).expect("readable");
        let rendered: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(rendered, Vec::<String>::new(), "{}", dir.display());
        assert!(loaded.project.is_some());
    }
}

#[test]
fn load_then_save_is_byte_identical_for_every_example_file() {
    for dir in example_projects() {
        let (sources, loaded) = load_dir(&dir).expect("readable");
        let project = loaded.project.expect("loads");
        let canonical = project.canonical_files();
        assert_eq!(
            canonical.keys().collect::<Vec<_>>(),
            sources.files.keys().collect::<Vec<_>>(),
            "every file is a document"
        );
        for (path, text) in &sources.files {
            assert_eq!(
                &canonical[path],
                text,
                "{} {path} is not canonical",
                dir.display()
            );
        }
    }
}
