//! One rulebook: a project whose recipe has a compile-level error shows the same diagnostics in
//! `stagecraft check`, in the editor's document (its Diagnostics tab) and in `stagecraft generate`.

mod support;

use std::fs;
use std::path::PathBuf;

use stagecraft_editor::cli::{check, generate, GenerateOptions};
use stagecraft_editor::document::Document;
use support::copy_tree;

fn corpus_base() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/base")
}

/// `file:line:column message` of every error in a JSON list of diagnostics.
fn errors_of(list: &serde_json::Value) -> Vec<String> {
    let mut found: Vec<String> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            format!(
                "{}:{}:{} {}",
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn check_the_document_and_generate_show_the_same_compile_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&corpus_base(), dir.path());
    let recipe = dir.path().join("recipes/r.recipe.ron");
    let text = fs::read_to_string(&recipe).expect("recipe");
    // A variant radius above the cell size: a rule only the compiler (the scatter operator) knows.
    fs::write(
        &recipe,
        text.replace("\"cell_size\": 400", "\"cell_size\": 50"),
    )
    .expect("write");

    let mut out = Vec::new();
    assert_eq!(check(dir.path(), true, &mut out).expect("check runs"), 1);
    let report: serde_json::Value = serde_json::from_slice(&out).expect("check JSON");
    let from_check = errors_of(&report["diagnostics"]);
    assert_eq!(
        from_check,
        vec!["recipes/r.recipe.ron:30:30 stage 2: variant `a` of family `fam` has exclusion radius 100, above the cell size 50"]
    );

    let document = Document::open(dir.path()).expect("opens");
    let from_document: Vec<String> = document
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}:{}:{} {}", d.file, d.line, d.column, d.message))
        .collect();
    assert_eq!(from_document, from_check);

    let mut out = Vec::new();
    let options = GenerateOptions {
        recipe: None,
        seed: None,
        out: None,
        json: true,
        serial: true,
        memory_budget_mib: None,
    };
    let error = generate(dir.path(), &options, &mut out).expect_err("generate refuses");
    assert_eq!(stagecraft_editor::cli::error::exit_code(&error), 1);
    assert!(
        out.is_empty(),
        "no report: the error object is all `--json` prints"
    );
    let report = stagecraft_editor::cli::json_out::error_json("generate", &error);
    // `generate` reads the project through the same rulebook and stops before generating.
    assert_eq!(report["recipes"], serde_json::Value::Null, "{report}");
    let from_generate = errors_of(&report["diagnostics"]);
    assert_eq!(from_generate, from_check, "generate said: {report}");
}
