//! The bad-input corpus: every malformed file gets its exact diagnostic, nothing panics, and
//! `fmt` refuses to rewrite it. Diagnostics are the whole rulebook's, as `stagecraft check` prints
//! them: the loader's and the recipe compiler's.
//!
//! Each `corpus/cases/*.ron` starts with `// target: FILE` (which file of `corpus/base` it
//! replaces) and one or more `// expect: FILE:LINE:COL PATH | MESSAGE` lines.

mod support;

use std::fs;
use std::path::PathBuf;

use stagecraft_editor::cli::fmt;
use stagecraft_editor::project_io::load_dir;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::Diagnostic;
use stagecraft_runtime::recipe::check_project;
use support::copy_tree;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn describe(diagnostic: &Diagnostic) -> String {
    format!(
        "{}:{}:{} {} | {}",
        diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.path, diagnostic.message
    )
}

/// Writes `text` over `target` in a copy of the base project, then checks the diagnostics and
/// that `fmt` leaves the file alone. Returns every error diagnostic, described.
fn run_case(target: &str, text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&corpus().join("base"), dir.path());
    let target_path = dir.path().join(target);
    fs::write(&target_path, text).expect("write case");
    let (_, loaded) = load_dir(dir.path()).expect("readable");
    let checked = check_project(&loaded, &Registry::standard());
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
        .chain(&checked)
        .filter(|d| d.is_error())
        .map(describe)
        .collect();
    let mut report = Vec::new();
    let exit = fmt(dir.path(), false, &mut report).expect("fmt runs");
    let report = String::from_utf8_lossy(&report);
    assert_eq!(exit, 1, "fmt must refuse; it said: {report}");
    assert!(
        report.contains(&format!("{target}: has errors, not rewritten")),
        "fmt report: {report}"
    );
    assert_eq!(fs::read_to_string(&target_path).expect("read back"), text);
    errors
}

#[test]
fn base_project_is_clean_and_canonical() {
    let (_, loaded) = load_dir(&corpus().join("base")).expect("readable");
    let checked = check_project(&loaded, &Registry::standard());
    let all: Vec<String> = loaded
        .diagnostics
        .iter()
        .chain(&checked)
        .map(describe)
        .collect();
    assert_eq!(all, Vec::<String>::new());
    let mut out = Vec::new();
    assert_eq!(fmt(&corpus().join("base"), true, &mut out).expect("fmt"), 0);
}

#[test]
fn every_corpus_case_reports_its_diagnostic() {
    let mut cases: Vec<PathBuf> = fs::read_dir(corpus().join("cases"))
        .expect("cases")
        .map(|e| e.expect("entry").path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let text = fs::read_to_string(case).expect("case text");
        let target = text
            .lines()
            .find_map(|line| line.strip_prefix("// target: "))
            .expect("a target line");
        let expected: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("// expect: "))
            .collect();
        assert!(
            !expected.is_empty(),
            "{} has no expectation",
            case.display()
        );
        let errors = run_case(target, &text);
        for expectation in expected {
            if !errors.iter().any(|e| e == expectation) {
                failures.push(format!(
                    "{}:\n  expected: {expectation}\n  actual:   {}",
                    case.display(),
                    errors.join("\n            ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn base_recipe() -> String {
    fs::read_to_string(corpus().join("base/recipes/r.recipe.ron")).expect("base recipe")
}

#[test]
fn oversized_file_is_rejected_without_parsing() {
    let mut text = base_recipe();
    text.push_str(&format!("// {}\n", "x".repeat(1 << 20)));
    let errors = run_case("recipes/r.recipe.ron", &text);
    assert_eq!(
        errors,
        vec![format!(
            "recipes/r.recipe.ron:1:1 (document) | file is {} bytes, over the limit of 1048576 bytes (1 MiB)",
            text.len()
        )]
    );
}

fn recipe_with_stages(count: u32, inputs_per_stage: usize) -> String {
    let mut stages = String::new();
    for id in 1..=count {
        let inputs: Vec<String> = (0..inputs_per_stage.min(id as usize - 1))
            .map(|k| format!("{}", id - 1 - k as u32))
            .collect();
        stages.push_str(&format!(
            "        Stage(id: {id}, operator: \"environment.scatter\", algorithm: 1, inputs: [{}], parameters: {{}}),\n",
            inputs.join(", ")
        ));
    }
    format!(
        "Recipe(\n    schema: 1,\n    id: \"r\",\n    address_schema: 1,\n    inputs: {{\"family\": Family(\"fam\")}},\n    stages: [\n{stages}    ],\n    outputs: [{count}],\n)\n"
    )
}

#[test]
fn too_many_stages_is_an_error_at_the_stage_list() {
    let errors = run_case("recipes/r.recipe.ron", &recipe_with_stages(129, 1));
    assert!(
        errors.contains(
            &"recipes/r.recipe.ron:6:13 stages | recipe has 129 stages, over the limit of 128"
                .to_owned()
        ),
        "{errors:?}"
    );
}

#[test]
fn too_many_edges_is_an_error_at_the_stage_list() {
    let errors = run_case("recipes/r.recipe.ron", &recipe_with_stages(100, 3));
    assert!(
        errors.contains(
            &"recipes/r.recipe.ron:6:13 stages | recipe has 294 edges, over the limit of 256"
                .to_owned()
        ),
        "{errors:?}"
    );
}

/// The base recipe with `parameters` (RON map entries) as the scatter stage's parameters, and
/// without the street block's `areas` input when `areas` is false (then with a region).
fn scatter_recipe(parameters: &str, areas: bool) -> String {
    let inputs = if areas { "1, \"family\"" } else { "\"family\"" };
    let region = if areas {
        ""
    } else {
        "\"region\": (0, 0, 4000, 4000), "
    };
    let outputs = if areas { "2" } else { "1, 2" };
    format!(
        "Recipe(\n    schema: 1,\n    id: \"r\",\n    address_schema: 1,\n    inputs: {{\"family\": Family(\"fam\")}},\n    stages: [\n        Stage(id: 1, operator: \"street.block\", algorithm: 1, inputs: [], parameters: {{}}),\n        Stage(id: 2, operator: \"environment.scatter\", algorithm: 1, inputs: [{inputs}], parameters: {{{region}{parameters}}}),\n    ],\n    outputs: [{outputs}],\n)\n"
    )
}

/// The errors of the base project with `text` written over `target` (no `fmt` run).
fn errors_with(target: &str, text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&corpus().join("base"), dir.path());
    fs::write(dir.path().join(target), text).expect("write case");
    let (_, loaded) = load_dir(dir.path()).expect("readable");
    loaded
        .diagnostics
        .iter()
        .chain(&check_project(&loaded, &Registry::standard()))
        .filter(|d| d.is_error())
        .map(describe)
        .collect()
}

fn keep_outs(count: usize) -> String {
    let rects: Vec<String> = (0..count)
        .map(|i| format!("({i}, 0, {}, 1)", i + 1))
        .collect();
    format!("\"keep_outs\": [{}]", rects.join(", "))
}

#[test]
fn more_keep_outs_than_a_layer_takes_is_an_error_at_the_list() {
    let errors = run_case(
        "recipes/r.recipe.ron",
        &scatter_recipe(&keep_outs(4097), false),
    );
    assert_eq!(
        errors,
        vec![
            "recipes/r.recipe.ron:8:145 stages[1].parameters[\"keep_outs\"] | stage 2: `keep_outs` has 4097 rectangles, over the limit of 4096"
                .to_owned()
        ]
    );
    let errors = errors_with(
        "recipes/r.recipe.ron",
        &scatter_recipe(&keep_outs(4096), false),
    );
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn authored_and_street_block_keep_outs_together_are_limited() {
    // The default block has one crossing, so two landing keep-outs.
    let errors = run_case(
        "recipes/r.recipe.ron",
        &scatter_recipe(&keep_outs(4095), true),
    );
    assert_eq!(
        errors,
        vec![
            "recipes/r.recipe.ron:8:118 stages[1].parameters[\"keep_outs\"] | stage 2: 4095 authored keep-outs and 2 of the `areas` input make 4097, over the limit of 4096"
                .to_owned()
        ]
    );
    let errors = errors_with(
        "recipes/r.recipe.ron",
        &scatter_recipe(&keep_outs(4094), true),
    );
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn a_family_over_the_scatter_variant_limit_is_an_error_at_the_input() {
    let variants: Vec<String> = (0..4097)
        .map(|i| format!("Variant(id: \"v{i}\", weight: 1, exclusion_radius: 1, collision_radius_m: 0.5, height_m: 1.0)"))
        .collect();
    let family = format!(
        "AssetFamily(schema: 1, id: \"fam\", name: \"\", variants: [{}])\n",
        variants.join(", ")
    );
    let errors = errors_with("assets/fam.family.ron", &family);
    assert_eq!(
        errors,
        vec![
            "recipes/r.recipe.ron:27:17 stages[1].inputs[1] | stage 2: family `fam` has 4097 variants, over the scatter limit of 4096"
                .to_owned()
        ]
    );
}

/// The same family id in two asset folders: `check` and the editor's loader (its Diagnostics
/// tab) both report the second file at its `id`, and the first folder's family is the one used.
#[test]
fn a_family_in_two_asset_folders_is_an_error_in_check_and_in_the_editor() {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&corpus().join("base"), dir.path());
    fs::create_dir(dir.path().join("more")).expect("mkdir");
    let family = fs::read_to_string(dir.path().join("assets/fam.family.ron")).expect("family");
    fs::write(
        dir.path().join("more/fam.family.ron"),
        family.replace("weight: 1,", "weight: 9,"),
    )
    .expect("write");
    let manifest = dir.path().join("stagecraft.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    fs::write(
        &manifest,
        text.replace(
            "        \"assets\",\n",
            "        \"assets\",\n        \"more\",\n",
        ),
    )
    .expect("write");
    let expected = vec![
        "more/fam.family.ron:3:9 id | asset family `fam` is also defined in `assets/fam.family.ron`"
            .to_owned(),
    ];
    let (_, loaded) = load_dir(dir.path()).expect("readable");
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(describe)
        .collect();
    assert_eq!(errors, expected);
    let weight = &loaded.project.as_ref().expect("project").families["fam"].variants[0];
    assert_eq!(weight.weight, 1, "the first folder's family is kept");
    let document = stagecraft_editor::document::Document::open(dir.path()).expect("opens");
    let from_editor: Vec<String> = document
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .map(describe)
        .collect();
    assert_eq!(from_editor, expected);
}
