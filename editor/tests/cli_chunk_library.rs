//! `stagecraft check` lints the chunk libraries beside a project (`chunks/*.chunks.ron`): the
//! tactical example's launch library is clean; a broken one is a located error.

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn stagecraft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagecraft"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn check_lints_the_shipped_chunk_library() {
    let dir = tempfile::tempdir().expect("temp dir");
    support::copy_dir(&repo().join("projects/tactical-mission"), dir.path());
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&["check", folder]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.ends_with(": 3 files, 0 errors, 0 warnings\n"),
        "{text}"
    );

    // The second row of the library loses its constraint tags.
    let file = dir.path().join("chunks/launch.chunks.ron");
    let library = fs::read_to_string(&file).expect("library");
    let broken = library.replacen(
        "                \"Procgen.Constraint.Objective\",\n                \"Procgen.Constraint.Interior\",\n",
        "                \"Interior\",\n",
        1,
    );
    assert_ne!(broken, library);
    fs::write(&file, broken).expect("write");
    let output = stagecraft(&["check", folder, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    // The library's error, and the recipe naming it finds no library read without errors.
    assert_eq!(diagnostics.len(), 2, "{report}");
    assert_eq!(
        diagnostics[1]["file"],
        "recipes/tactical-mission.recipe.ron"
    );
    assert_eq!(diagnostics[1]["path"], "stages[0].parameters[\"library\"]");
    let d = &diagnostics[0];
    assert_eq!(d["file"], "chunks/launch.chunks.ron");
    assert_eq!(d["path"], "chunks[1].tags");
    assert_eq!(d["line"], 29);
    assert_eq!(d["column"], 19);
    assert_eq!(
        d["message"],
        "chunk \"tactical/objective-vault\" has no constraint tag"
    );
}
