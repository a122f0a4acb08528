//! The command line's contract, through the real binary: reports on stdout and errors on stderr,
//! one JSON error object on stdout under `--json` with the same exit code, `--quiet`, no progress
//! bar when stderr is not a terminal, a closed pipe ending quietly, `--json` on every subcommand,
//! completions and man pages that name every subcommand, and identities printed one way.

mod support;

use std::fs;
use std::io::Read as _;
use std::process::{Command, Stdio};

use clap::CommandFactory as _;
use serde_json::Value;
use stagecraft_editor::cli::Cli;
use support::{example, stagecraft};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The subcommands' names (without clap's `help`).
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .filter(|name| name != "help")
        .collect()
}

/// A copy of pine-clearing whose recipe has a duplicate stage id (an error at 32:17).
fn broken_project() -> support::Example {
    let copy = example("pine-clearing");
    let recipe = copy.dir.join("recipes/pine-clearing.recipe.ron");
    let source = fs::read_to_string(&recipe).expect("recipe");
    fs::write(&recipe, source.replace("id: 1002,", "id: 1001,")).expect("edit");
    copy
}

#[test]
fn errors_go_to_stderr_for_people_and_to_stdout_as_one_json_object() {
    let broken = broken_project();
    let dir = broken.dir.to_str().expect("utf-8");
    let human = stagecraft(&["simulate", dir, "--scenario", "any"]);
    assert_eq!(human.status.code(), Some(1));
    assert_eq!(text(&human.stdout), "", "nothing on stdout");
    let stderr = text(&human.stderr);
    assert!(
        stderr.ends_with("error: the project has errors; nothing simulated\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  --> recipes/pine-clearing.recipe.ron:32:17\n"),
        "{stderr}"
    );

    let json = stagecraft(&["simulate", dir, "--scenario", "any", "--json"]);
    assert_eq!(json.status.code(), Some(1), "the same exit code");
    assert_eq!(text(&json.stderr), "", "nothing on stderr");
    let error: Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(error["schema"], "stagecraft.error/1");
    assert_eq!(error["command"], "simulate");
    assert_eq!(error["exit_code"], 1);
    assert_eq!(error["code"], "project_errors");
    assert_eq!(
        error["message"],
        "the project has errors; nothing simulated"
    );
    assert_eq!(error["file"], "recipes/pine-clearing.recipe.ron");
    assert_eq!(error["line"], 32);
    assert_eq!(error["column"], 17);
    assert_eq!(error["path"], "stages[1].id");
    assert_eq!(
        error["diagnostics"][0]["message"],
        "duplicate stage id 1001"
    );

    // generate says the same through its own command.
    let generate = stagecraft(&["generate", dir, "--json"]);
    assert_eq!(generate.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&generate.stdout).expect("json");
    assert_eq!(error["command"], "generate");
    assert_eq!(error["code"], "project_errors");
    assert_eq!(error["line"], 32);
}

#[test]
fn exit_codes_stay_the_same_with_json() {
    let temp = tempfile::tempdir().expect("temp");
    let missing = temp.path().join("no-bundle");
    let missing = missing.to_str().expect("utf-8");
    // An invalid bundle: exit 1.
    let human = stagecraft(&["verify", missing]);
    assert_eq!(human.status.code(), Some(1));
    assert_eq!(text(&human.stdout), "");
    assert!(text(&human.stderr).contains("invalid bundle"));
    let json = stagecraft(&["verify", missing, "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(error["code"], "invalid_bundle");
    assert_eq!(error["file"], missing);
    // A project folder that does not exist: exit 2.
    let human = stagecraft(&["check", missing]);
    assert_eq!(human.status.code(), Some(2));
    assert_eq!(text(&human.stdout), "");
    let json = stagecraft(&["check", missing, "--json"]);
    assert_eq!(json.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(error["exit_code"], 2);
    assert_eq!(error["command"], "check");
    assert!(error["message"].as_str().expect("text").contains(missing));
    // diff: 2 on an unreadable side.
    let json = stagecraft(&["diff", missing, missing, "--json"]);
    assert_eq!(json.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(error["code"], "unreadable_side");
}

#[test]
fn a_usage_error_under_json_is_an_error_object() {
    let output = stagecraft(&["check", "--json", "--no-such-flag"]);
    assert_eq!(output.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(error["code"], "usage");
    assert_eq!(error["command"], "check");
    assert_eq!(error["exit_code"], 2);
    assert!(error["message"]
        .as_str()
        .expect("text")
        .contains("--no-such-flag"));
    // Without --json, clap's usage text goes to stderr.
    let output = stagecraft(&["check", "--no-such-flag"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert!(text(&output.stderr).contains("--no-such-flag"));
}

#[test]
fn quiet_silences_reports_but_not_errors_json_or_documents() {
    let pine = example("pine-clearing");
    let dir = pine.dir.to_str().expect("utf-8");
    let loud = stagecraft(&["check", dir]);
    assert_eq!(loud.status.code(), Some(0));
    assert!(text(&loud.stdout).contains("0 errors"));
    for args in [["--quiet", "check", dir], ["check", dir, "-q"]] {
        let quiet = stagecraft(&args);
        assert_eq!(quiet.status.code(), Some(0), "{args:?}");
        assert_eq!(text(&quiet.stdout), "", "{args:?}");
        assert_eq!(text(&quiet.stderr), "", "{args:?}");
    }
    let json = stagecraft(&["check", dir, "--json", "--quiet"]);
    let report: Value = serde_json::from_slice(&json.stdout).expect("JSON still prints");
    assert_eq!(report["errors"], 0);
    let ops = stagecraft(&["ops", "--quiet"]);
    assert!(
        text(&ops.stdout).contains("scatter"),
        "a document still prints"
    );
    let broken = broken_project();
    let failed = stagecraft(&["check", broken.dir.to_str().expect("utf-8"), "-q"]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(text(&failed.stdout), "");
    let missing = stagecraft(&["verify", "/no/such/bundle", "-q"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("invalid bundle"),
        "errors stay"
    );
}

#[test]
fn no_progress_bar_draws_when_stderr_is_not_a_terminal() {
    let pine = example("pine-clearing");
    let dir = pine.dir.to_str().expect("utf-8");
    let temp = tempfile::tempdir().expect("temp");
    let out = temp.path().join("bundle");
    let cache = temp.path().join("cache");
    let output = stagecraft(&[
        "cook",
        dir,
        "--out",
        out.to_str().expect("utf-8"),
        "--cache",
        cache.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stderr), "", "stderr is a pipe here: no bar");
    let output = stagecraft(&["generate", dir]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [&["ops"][..], &["ops", "--json"], &["completions", "zsh"]] {
        // The reader is gone before the command starts (`stagecraft ops | head -0`): closed
        // after the spawn instead, a fast command could finish writing into the pipe's buffer
        // first and end 0.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut child = Command::new(env!("CARGO_BIN_EXE_stagecraft"))
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr)
            .expect("read");
        let status = child.wait().expect("ends");
        assert_eq!(stderr, "", "{args:?}: no message, no panic");
        assert_eq!(status.code(), Some(141), "{args:?}: 128 + SIGPIPE");
    }
}

#[test]
fn every_subcommand_takes_json() {
    let cli = Cli::command();
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        assert!(
            sub.get_arguments()
                .any(|arg| arg.get_long() == Some("json")),
            "`stagecraft {}` has no --json",
            sub.get_name()
        );
    }
}

#[test]
fn completions_and_man_pages_name_every_subcommand() {
    let names = subcommands();
    assert!(names.len() >= 12, "{names:?}");
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = stagecraft(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = text(&output.stdout);
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell} completes `{name}`");
        }
        assert!(script.contains("--json"), "{shell} completes options too");
    }
    let page = text(&stagecraft(&["man"]).stdout);
    assert!(page.contains(".TH stagecraft 1 "), "a roff page: {page}");
    for name in &names {
        assert!(
            page.contains(&format!("stagecraft\\-{name}")),
            "man names `{name}`"
        );
    }
    let temp = tempfile::tempdir().expect("temp");
    let output = stagecraft(&["man", "--out", temp.path().to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(0));
    let mut written: Vec<String> = fs::read_dir(temp.path())
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = names
        .iter()
        .map(|name| format!("stagecraft-{name}.1"))
        .chain(["stagecraft.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    let check_page = fs::read_to_string(temp.path().join("stagecraft-check.1")).expect("page");
    assert!(
        check_page.contains("memory\\-budget\\-mib"),
        "options listed"
    );
}

/// `0x` and 16 lowercase hex digits.
fn is_identity(text: &str) -> bool {
    text.len() == 18
        && text.starts_with("0x")
        && text[2..]
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

#[test]
fn identities_print_one_way_in_every_output() {
    let pine = example("pine-clearing");
    let dir = pine.dir.to_str().expect("utf-8");
    let generated: Value =
        serde_json::from_slice(&stagecraft(&["generate", dir, "--json"]).stdout).expect("json");
    let edits = generated["recipes"][0]["edits"].as_array().expect("edits");
    let targets: Vec<&str> = edits
        .iter()
        .map(|e| e["target"].as_str().expect("a string"))
        .filter(|t| *t != "0x0000000000000000")
        .collect();
    assert!(!targets.is_empty());
    assert!(targets.iter().all(|t| is_identity(t)), "{targets:?}");
    // The first override of the example targets 281474976776192.
    assert!(targets.contains(&"0x0001000000010000"), "{targets:?}");
    let rebased: Value =
        serde_json::from_slice(&stagecraft(&["rebase", dir, "--json"]).stdout).expect("json");
    let entries = rebased["recipes"][0]["entries"]
        .as_array()
        .expect("entries");
    assert!(entries.iter().any(|e| e["target"] == "0x0001000000010000"));
    let rebase_text = text(&stagecraft(&["rebase", dir]).stdout);
    assert!(
        rebase_text.contains(" 0x0001000000010000 "),
        "{rebase_text}"
    );
    // The identity diff keys scatter placements the same way.
    let diff: Value =
        serde_json::from_slice(&stagecraft(&["diff", dir, dir, "--b-seed", "8", "--json"]).stdout)
            .expect("json");
    let keys: Vec<&str> = diff["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["kind"] == "Placements")
        .map(|e| e["key"].as_str().expect("key"))
        .collect();
    assert!(!keys.is_empty(), "{diff}");
    assert!(keys.iter().all(|k| is_identity(k)), "{keys:?}");
}
