//! End-to-end tests of the `stagecraft` command line: `check` and `fmt` on real folders.

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

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A self-contained copy of an example project: the repository's `assets/` copied inside it
/// (asset paths are relative, and a temp folder is in no repository).
fn copy_example(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = repo().join("projects").join(name);
    support::copy_dir(&source, dir.path());
    support::copy_dir(&repo().join("assets"), &dir.path().join("assets"));
    let manifest = dir.path().join("stagecraft.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    let text = text.replace("\"../../assets\"", "\"assets\"");
    fs::write(&manifest, text).expect("write manifest");
    dir
}

#[test]
fn check_accepts_every_example() {
    for name in ["street-block", "pine-clearing", "tactical-mission"] {
        let path = repo().join("projects").join(name);
        let output = stagecraft(&["check", path.to_str().expect("utf-8")]);
        assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
        assert!(
            stdout(&output).ends_with("0 errors, 0 warnings\n"),
            "{}",
            stdout(&output)
        );
    }
}

#[test]
fn check_reports_error_with_source_line_and_exit_code_1() {
    let dir = copy_example("street-block");
    let scenario = dir.path().join("scenarios/crosswalk-rush.scenario.ron");
    let text = fs::read_to_string(&scenario).expect("scenario");
    fs::write(
        &scenario,
        text.replace("\"sidewalk.south\"", "\"sidewalk.east\""),
    )
    .expect("edit");
    let output = stagecraft(&["check", dir.path().to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(1));
    let report = stdout(&output);
    assert!(
        report.contains(
            "error: source `south-walkers` names the missing route `sidewalk.east`\n  --> scenarios/crosswalk-rush.scenario.ron:44:20\n"
        ),
        "{report}"
    );
    assert!(
        report.contains("44 |             route: \"sidewalk.east\",\n"),
        "{report}"
    );
    assert!(report.contains("   = at sources[1].route\n"), "{report}");
}

#[test]
fn check_json_lists_diagnostics_for_machines() {
    let dir = copy_example("pine-clearing");
    let recipe = dir.path().join("recipes/pine-clearing.recipe.ron");
    let text = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&recipe, text.replace("id: 1002,", "id: 1001,")).expect("edit");
    let output = stagecraft(&["check", dir.path().to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(report["errors"], 2);
    let first = &report["diagnostics"][0];
    assert_eq!(first["file"], "recipes/pine-clearing.recipe.ron");
    assert_eq!(first["line"], 32);
    assert_eq!(first["column"], 17);
    assert_eq!(first["path"], "stages[1].id");
    assert_eq!(first["message"], "duplicate stage id 1001");
    assert_eq!(first["expected"], "each stage id at most once");
}

#[test]
fn fmt_check_lists_non_canonical_files_and_fmt_rewrites_them() {
    let dir = copy_example("pine-clearing");
    let project = dir.path().to_str().expect("utf-8");
    let recipe = dir.path().join("recipes/pine-clearing.recipe.ron");
    let canonical = fs::read_to_string(&recipe).expect("recipe");
    // Same document, other layout: one line, no trailing commas, a comment.
    let squashed: String = canonical
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .replace(", )", ")")
        .replace(",)", ")");
    fs::write(&recipe, format!("// squashed\n{squashed}")).expect("write");

    let output = stagecraft(&["fmt", project, "--check"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "recipes/pine-clearing.recipe.ron: not canonical\n"
    );

    let output = stagecraft(&["fmt", project]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        format!("recipes/pine-clearing.recipe.ron: rewritten\n{project}: 1 file rewritten\n")
    );
    assert_eq!(fs::read_to_string(&recipe).expect("recipe"), canonical);

    let output = stagecraft(&["fmt", project, "--check"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
}

#[test]
fn fmt_refuses_a_file_with_errors() {
    let dir = copy_example("pine-clearing");
    let recipe = dir.path().join("recipes/pine-clearing.recipe.ron");
    let broken = fs::read_to_string(&recipe)
        .expect("recipe")
        .replace("cell_size\": 400", "cell_size\": NaN");
    fs::write(&recipe, &broken).expect("write");
    let output = stagecraft(&["fmt", dir.path().to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("recipes/pine-clearing.recipe.ron: has errors, not rewritten"));
    assert_eq!(fs::read_to_string(&recipe).expect("recipe"), broken);
}

#[test]
fn missing_project_folder_is_a_clear_error() {
    let output = stagecraft(&["check", "/nonexistent/stagecraft-project"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: the project folder /nonexistent/stagecraft-project does not exist\n"
    );
    let file = tempfile::NamedTempFile::new().expect("temp file");
    let path = file.path().to_str().expect("utf-8");
    let output = stagecraft(&["check", path]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("error: {path} is a file, not a project folder\n")
    );
}

#[test]
fn subcommand_typos_get_did_you_mean_and_unknown_ids_are_listed() {
    let project = repo().join("projects/street-block");
    let project = project.to_str().expect("utf-8");
    let output = stagecraft(&["chek", project]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("unrecognized subcommand 'chek'"), "{error}");
    // With `schema` beside `check`, clap's tip may name both.
    assert!(
        error.contains("similar subcommand") && error.contains("'check'"),
        "{error}"
    );
    let output = stagecraft(&["genrate"]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("'generate'"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = stagecraft(&["generate", project, "--recipe", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: the project has no recipe `nope`; its recipes are: `street-block`\n"
    );
}

#[test]
fn new_writes_a_valid_canonical_project_from_each_template() {
    for template in ["street-block", "pine-clearing", "tactical-mission", "empty"] {
        let outer = tempfile::tempdir().expect("temp dir");
        let dir = outer.path().join(template);
        let folder = dir.to_str().expect("utf-8");
        let output = stagecraft(&["new", folder, "--template", template]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let output = stagecraft(&["check", folder]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{template}: {}",
            stdout(&output)
        );
        assert!(
            stdout(&output).ends_with("0 errors, 0 warnings\n"),
            "{}",
            stdout(&output)
        );
        let output = stagecraft(&["fmt", folder, "--check"]);
        assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
        let manifest = fs::read_to_string(dir.join("stagecraft.ron")).expect("manifest");
        assert!(
            manifest.contains(&format!("name: \"{template}\"")),
            "{manifest}"
        );
        let again = stagecraft(&["new", folder]);
        assert_eq!(again.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&again.stderr).contains("already holds a project"));
    }
}

#[test]
fn the_memory_budget_is_a_setting_of_check_and_generate() {
    let project = repo().join("projects/pine-clearing");
    let project = project.to_str().expect("utf-8");
    let output = stagecraft(&["check", project, "--memory-budget-mib", "0"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains("of memory, over the budget of 0 bytes"),
        "{text}"
    );
    assert!(
        text.contains("--> recipes/pine-clearing.recipe.ron:"),
        "{text}"
    );
    let output = stagecraft(&["generate", project, "--memory-budget-mib", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "", "errors go to stderr");
    assert!(
        support::stderr(&output).contains("nothing generated"),
        "{}",
        support::stderr(&output)
    );
    let output = stagecraft(&["check", project]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "the default budget fits the example"
    );
}
