//! Human output never carries a user's control characters (issue 35, item 11): a name that holds
//! a terminal escape cannot clear the screen, a newline in a name cannot forge a line of the
//! report, and a document that leads outside the project is refused without its content ever
//! being shown.

mod support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use support::{stagecraft, stdout};

/// A copy of the end-to-end corpus's base project (a street block, a scatter, one scenario).
fn base() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    support::copy_dir(&support::repo_root().join("tests/corpus/base"), dir.path());
    dir
}

fn replace(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{from} in {}", path.display());
    fs::write(path, text.replace(from, to)).expect("write");
}

/// No byte a terminal acts on: ESC, CR, BEL, backspace or a C1 control.
fn assert_terminal_safe(text: &str) {
    let unsafe_chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert_eq!(unsafe_chars, Vec::<char>::new(), "{text}");
}

#[test]
fn check_escapes_a_route_name_that_would_clear_the_screen_or_forge_a_line() {
    let dir = base();
    let scenario = dir.path().join("scenarios/s.scenario.ron");
    let hostile = "\\u{1b}[2J\\u{1b}[H\\nerror: forged\\r\\u{7}";
    replace(
        &scenario,
        "route: \"sidewalk.north\"",
        &format!("route: \"{hostile}\""),
    );
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&["check", folder]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_terminal_safe(&text);
    assert!(
        text.starts_with(
            "error: source `walkers` names the missing route `\\u001b[2J\\u001b[H\\nerror: forged\\r\\u0007`\n  --> scenarios/s.scenario.ron:13:20\n"
        ),
        "{text}"
    );
    // The source line shows the file's own text (its escapes as written), the caret under it.
    assert!(
        text.contains(&format!(
            "13 |             route: \"{hostile}\",\n   |                    ^ expected"
        )),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{text}"
    );
}

#[test]
fn simulate_and_verify_escape_the_names_they_print() {
    let dir = base();
    let scenario = dir.path().join("scenarios/s.scenario.ron");
    let text = fs::read_to_string(&scenario).expect("scenario");
    fs::write(
        &scenario,
        text.replace("\"walkers\"", "\"walk\\u{1b}[2J\\ners\""),
    )
    .expect("write");
    let manifest = dir.path().join("stagecraft.ron");
    replace(
        &manifest,
        "\"Corpus base\"",
        "\"Corpus \\u{1b}]0;owned\\u{7}\"",
    );
    let folder = dir.path().to_str().expect("utf-8");

    let output = stagecraft(&["simulate", folder, "--scenario", "s", "--frames", "3"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert_terminal_safe(&text);
    assert!(text.contains("source `walk\\u001b[2J\\ners`"), "{text}");

    let bundle = dir.path().join("bundle");
    let out = bundle.to_str().expect("utf-8");
    let output = stagecraft(&["cook", folder, "--out", out]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let output = stagecraft(&["verify", out]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert_terminal_safe(&text);
    assert!(
        text.contains("project \"Corpus \\u001b]0;owned\\u0007\""),
        "{text}"
    );
}

#[test]
fn a_document_linked_outside_the_project_is_refused_and_never_shown() {
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, "root:x:0:0:SECRET-LINE:/root:/bin/bash\n").expect("write");
    let dir = base();
    let recipe = dir.path().join("recipes/r.recipe.ron");
    fs::remove_file(&recipe).expect("remove");
    symlink(&secret, &recipe).expect("link");
    let folder = dir.path().to_str().expect("utf-8");
    for args in [vec!["check", folder], vec!["check", folder, "--json"]] {
        let output = stagecraft(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let text = stdout(&output);
        assert!(!text.contains("SECRET-LINE"), "{text}");
        assert!(
            text.contains(&format!(
                "{} leads to {}, outside the project's folder or repository",
                recipe.display(),
                fs::canonicalize(&secret).expect("real").display()
            )),
            "{text}"
        );
    }
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("recipes/r.recipe.ron: has errors, not rewritten"));
    assert_eq!(
        fs::read_to_string(&secret).expect("read"),
        "root:x:0:0:SECRET-LINE:/root:/bin/bash\n"
    );
}

#[test]
fn a_document_linked_into_a_listed_asset_folder_is_read() {
    // The user allows a folder outside the project by listing it in `asset_paths` (read with a
    // warning on the asset path); a family linked into it is read like the folder's own files.
    let outer = tempfile::tempdir().expect("temp dir");
    let project = outer.path().join("project");
    let shared = outer.path().join("shared");
    support::copy_dir(&support::repo_root().join("tests/corpus/base"), &project);
    fs::create_dir_all(&shared).expect("mkdir");
    // Not named `*.family.ron` there, so the shared folder does not define the family twice.
    let family = project.join("assets/fam.family.ron");
    fs::rename(&family, shared.join("fam.ron")).expect("move");
    symlink(shared.join("fam.ron"), &family).expect("link");
    replace(
        &project.join("stagecraft.ron"),
        "        \"assets\",\n",
        "        \"assets\",\n        \"../shared\",\n",
    );
    let folder = project.to_str().expect("utf-8");
    let output = stagecraft(&["check", folder, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["errors"], 0, "{report}");
    // Without the listing, the same link is refused.
    replace(
        &project.join("stagecraft.ron"),
        "        \"../shared\",\n",
        "",
    );
    let output = stagecraft(&["check", folder, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("list")
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("fam.family.ron leads to ") && m.ends_with("so it is not read")),
        "{messages:?}"
    );
}
