//! The bad-input corpus: every malformed file gets its exact diagnostic, nothing panics, and
//! `fmt` refuses to rewrite it.
//!
//! Each `corpus/cases/*.ron` starts with `// target: FILE` (which file of `corpus/base` it
//! replaces) and one or more `// expect: FILE:LINE:COL PATH | MESSAGE` lines.

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cli::fmt;
use stagecraft_editor::project_io::load_dir;
use stagecraft_runtime::project::Diagnostic;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
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
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
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
    let all: Vec<String> = loaded.diagnostics.iter().map(describe).collect();
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
