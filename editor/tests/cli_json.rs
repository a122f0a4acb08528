//! `docs/cli-json.md` and the program agree: every command runs with `--json` on an example, and
//! each document's `schema` names a section of the page whose top-level keys are exactly the
//! document's, whose `a[].b` rows are keys of the array's elements, and whose keys are snake_case.
//! Every section is exercised and every subcommand produces a documented document, so a new
//! command or key without its documentation (or the reverse) fails here.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::CommandFactory as _;
use serde_json::Value;
use stagecraft_editor::cli::Cli;
use support::{example, repo_root, stagecraft};

/// The documented keys of one document: top-level keys, and `(array, key)` rows.
#[derive(Default, Debug)]
struct Documented {
    keys: BTreeSet<String>,
    nested: BTreeSet<(String, String)>,
}

/// Parses the page: a `## \`stagecraft.NAME/V\`` heading opens a section; each table row whose
/// first cell is a backticked key belongs to it.
fn documented() -> BTreeMap<String, Documented> {
    let text = std::fs::read_to_string(repo_root().join("docs/cli-json.md")).expect("the page");
    let mut sections: BTreeMap<String, Documented> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## `stagecraft.") {
            let name = heading.split('/').next().expect("a name").to_owned();
            sections.entry(name.clone()).or_default();
            current = Some(name);
        } else if line.starts_with('#') {
            current = None;
        } else if let (Some(name), Some(row)) = (&current, line.strip_prefix("| `")) {
            let key = row.split('`').next().expect("a key");
            let section = sections.get_mut(name).expect("opened");
            match key.split_once("[].") {
                Some((array, inner)) => {
                    section.nested.insert((array.to_owned(), inner.to_owned()));
                }
                None => {
                    section.keys.insert(key.to_owned());
                }
            }
        }
    }
    sections
}

fn is_snake(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Runs `args` and returns its JSON document (whatever the exit code).
fn document(args: &[&str]) -> Value {
    let output = stagecraft(args);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON document ({e}):\n{}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Checks `value` against the page's section for its `schema`; returns the document's name.
fn check_against(value: &Value, pages: &BTreeMap<String, Documented>, args: &[&str]) -> String {
    let schema = value["schema"].as_str().expect("a schema key");
    let name = schema
        .strip_prefix("stagecraft.")
        .and_then(|rest| rest.strip_suffix("/1"))
        .unwrap_or_else(|| panic!("{args:?}: schema {schema} is not stagecraft.NAME/1"));
    let section = pages
        .get(name)
        .unwrap_or_else(|| panic!("{args:?}: docs/cli-json.md has no section for {schema}"));
    let object = value.as_object().expect("an object");
    let keys: BTreeSet<String> = object.keys().cloned().collect();
    assert_eq!(
        keys, section.keys,
        "{args:?}: the keys of {schema} (left) differ from docs/cli-json.md (right)"
    );
    for key in &keys {
        assert!(is_snake(key), "{args:?}: key `{key}` is not snake_case");
    }
    for (array, inner) in &section.nested {
        let first = object[array.as_str()]
            .as_array()
            .and_then(|items| items.first());
        if let Some(first) = first {
            assert!(
                first.get(inner).is_some(),
                "{args:?}: {schema}: `{array}[].{inner}` is documented but missing: {first}"
            );
            for key in first.as_object().expect("objects").keys() {
                assert!(
                    is_snake(key),
                    "{args:?}: key `{array}[].{key}` is not snake_case"
                );
            }
        }
    }
    name.to_owned()
}

#[test]
fn every_json_document_matches_docs_cli_json() {
    let pages = documented();
    let pine = example("pine-clearing");
    let street = example("street-block");
    let temp = tempfile::tempdir().expect("temp");
    let project = pine.dir.to_str().expect("utf-8").to_owned();
    let streets = street.dir.to_str().expect("utf-8").to_owned();
    let at = |name: &str| temp.path().join(name).display().to_string();
    let (bundle, cache, fresh, pages_dir) = (at("bundle"), at("cache"), at("new"), at("man"));
    let (glb, usda, json) = (at("x.glb"), at("x.usda"), at("x.json"));
    let package = at("x.repro.json");
    let tactical = example("tactical-mission");
    let tactical = tactical.dir.to_str().expect("utf-8").to_owned();
    let day = ["--cell", "PCG_Tactical", "--date", "2026-05-23"];
    let runs = [
        ("check", vec!["check", &project, "--json"]),
        ("new", vec!["new", &fresh, "--json"]),
        ("fmt", vec!["fmt", &project, "--check", "--json"]),
        ("generate", vec!["generate", &project, "--json"]),
        ("rebase", vec!["rebase", &project, "--json"]),
        ("ops", vec!["ops", "--json"]),
        ("schema", vec!["schema", "--json"]),
        (
            "simulate",
            vec![
                "simulate",
                &streets,
                "--scenario",
                "crosswalk-rush",
                "--frames",
                "3",
                "--json",
            ],
        ),
        (
            "cook",
            vec![
                "cook", &project, "--out", &bundle, "--cache", &cache, "--json",
            ],
        ),
        (
            "cook",
            vec!["cook", &project, "--plan", "--cache", &cache, "--json"],
        ),
        ("verify", vec!["verify", &bundle, "--json"]),
        (
            "repro",
            vec!["repro", &project, "--out", &package, "--json"],
        ),
        ("repro", vec!["repro", "--check", &package, "--json"]),
        (
            "export",
            vec![
                "export",
                &bundle,
                "--format",
                "gltf",
                "--out",
                &glb,
                "--project",
                &project,
                "--json",
            ],
        ),
        (
            "export",
            vec![
                "export", &bundle, "--format", "usd", "--out", &usda, "--json",
            ],
        ),
        (
            "export",
            vec![
                "export", &bundle, "--format", "json", "--out", &json, "--json",
            ],
        ),
        (
            "diff",
            vec!["diff", &bundle, &project, "--b-seed", "8", "--json"],
        ),
        (
            "daily",
            [
                &["daily", "dispatch", &tactical][..],
                &day,
                &["--seed", "424242", "--json"],
            ]
            .concat(),
        ),
        ("daily", vec!["daily", "show", &tactical, "--json"]),
        (
            "daily",
            [&["daily", "generate", &tactical][..], &day, &["--json"]].concat(),
        ),
        ("completions", vec!["completions", "bash", "--json"]),
        ("man", vec!["man", "--json"]),
        ("man", vec!["man", "--out", &pages_dir, "--json"]),
        // A failure: the error object.
        (
            "simulate",
            vec!["simulate", &project, "--scenario", "none", "--json"],
        ),
    ];
    let mut seen_documents = BTreeSet::new();
    let mut seen_commands = BTreeSet::new();
    for (command, args) in &runs {
        let value = document(args);
        seen_documents.insert(check_against(&value, &pages, args));
        seen_commands.insert((*command).to_owned());
    }
    let sections: BTreeSet<String> = pages.keys().cloned().collect();
    assert_eq!(
        seen_documents, sections,
        "every section of docs/cli-json.md is a document some run printed"
    );
    let subcommands: BTreeSet<String> = Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .filter(|name| name != "help")
        .collect();
    assert_eq!(
        seen_commands, subcommands,
        "every subcommand's JSON is checked here (add a run for a new command)"
    );
}

#[test]
fn the_page_states_the_convention_and_lists_the_error_object() {
    let pages = documented();
    let error = &pages["error"];
    for key in [
        "schema",
        "command",
        "exit_code",
        "code",
        "message",
        "file",
        "line",
        "column",
        "path",
        "diagnostics",
    ] {
        assert!(error.keys.contains(key), "error object documents `{key}`");
    }
    let text = std::fs::read_to_string(Path::new(&repo_root()).join("docs/cli-json.md"))
        .expect("the page");
    assert!(text.contains("cli::json_out::write_document"));
}
