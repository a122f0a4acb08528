//! The loader's rules of asset folders (issue 35, item 9): a folder has one spelling, so
//! `"assets"` and `"./assets"` do not read every family twice; a family id is defined once across
//! all folders, so a later folder never silently replaces a family; and a family file's name gives
//! an id the format allows (no leading `.`). Each is a located error.

use stagecraft_runtime::project::*;

fn manifest(asset_paths: &str) -> String {
    format!("Manifest(\n    schema: 2,\n    name: \"p\",\n    root_seed: 1,\n    asset_paths: [{asset_paths}],\n    recipes: [],\n)\n")
}

fn family(id: &str, weight: u32) -> String {
    format!(
        "AssetFamily(\n    schema: 1,\n    id: \"{id}\",\n    variants: [\n        Variant(id: \"a\", weight: {weight}, exclusion_radius: 1, collision_radius_m: 0.5, height_m: 1.0),\n    ],\n)\n"
    )
}

fn load(files: &[(&str, &str)]) -> LoadedProject {
    let mut sources = ProjectSources::default();
    for (path, text) in files {
        sources.files.insert((*path).to_owned(), (*text).to_owned());
    }
    load_project(&sources)
}

fn errors(loaded: &LoadedProject) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            format!(
                "{}:{}:{} {} | {} | {}",
                d.file, d.line, d.column, d.path, d.message, d.expected
            )
        })
        .collect()
}

#[test]
fn two_spellings_of_one_folder_are_read_once_and_the_second_entry_is_an_error() {
    let text = manifest("\"assets\", \"./assets\", \"assets/\"");
    assert_eq!(asset_paths(&text), vec!["assets".to_owned()]);
    let loaded = load(&[
        ("stagecraft.ron", &text),
        ("assets/f.family.ron", &family("f", 1)),
    ]);
    assert_eq!(
        errors(&loaded),
        vec![
            "stagecraft.ron:5:29 asset_paths[1] | asset path \"./assets\" names the same folder as asset_paths[0] \"assets\", so its families would count twice | each asset folder listed once",
            "stagecraft.ron:5:41 asset_paths[2] | asset path \"assets/\" names the same folder as asset_paths[0] \"assets\", so its families would count twice | each asset folder listed once",
        ]
    );
}

#[test]
fn a_family_in_two_folders_is_an_error_on_the_second_file_and_the_first_is_kept() {
    let text = manifest("\"assets\", \"more\"");
    let loaded = load(&[
        ("stagecraft.ron", &text),
        ("assets/f.family.ron", &family("f", 1)),
        ("more/f.family.ron", &family("f", 7)),
    ]);
    assert_eq!(
        errors(&loaded),
        vec![
            "more/f.family.ron:3:9 id | asset family `f` is also defined in `assets/f.family.ron` | one file per family id across the manifest's asset folders (rename or remove one)",
        ]
    );
    let project = loaded.project.expect("project");
    assert_eq!(project.families["f"].variants[0].weight, 1);
    assert_eq!(project.family_files["f"], "assets/f.family.ron");
}

#[test]
fn a_family_file_whose_id_starts_with_a_dot_is_an_error_at_its_id() {
    let text = manifest("\"assets\"");
    let loaded = load(&[
        ("stagecraft.ron", &text),
        ("assets/.f.family.ron", &family(".f", 1)),
    ]);
    assert_eq!(
        errors(&loaded),
        vec![
            "assets/.f.family.ron:3:9 id | the file name gives the id \".f\", but an id starts with `.` (a hidden file) | a file named by its id: a name without `/`, `\\`, `..`, a leading `.` or control characters, such as `street-block`",
        ]
    );
}

#[test]
fn a_motion_profile_in_two_folders_is_an_error_on_the_second_file_and_the_first_is_kept() {
    let walking = include_str!("../../projects/street-lifecycle/assets/walking.motion.ron");
    let text = manifest("\"assets\", \"more\"");
    let loaded = load(&[
        ("stagecraft.ron", &text),
        ("assets/walking.motion.ron", walking),
        ("more/walking.motion.ron", walking),
    ]);
    assert_eq!(
        errors(&loaded),
        vec![
            "more/walking.motion.ron:3:9 id | motion profile `walking` is also defined in `assets/walking.motion.ron` | one file per motion profile id across the manifest's asset folders",
        ]
    );
    let project = loaded.project.expect("project");
    assert_eq!(project.motion_files["walking"], "assets/walking.motion.ron");
    assert_eq!(project.motions.len(), 1);
}
