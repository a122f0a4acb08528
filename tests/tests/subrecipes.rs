//! The street-planting example through the command line: `check` is clean, `cook` twice is
//! served from the cache, editing the subrecipe's file re-cooks exactly the two stages that run
//! it, and `diff` compares by identity (cooked = generated; the edit changes only their objects).
//! The sidewalk-outputs example (two outputs of one child run) likewise, with `check --json`.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cli::Command;
use stagecraft_tests::{example_project, repo_root};

fn run(command: &Command) -> (i32, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = stagecraft_editor::cli::entry::run(command, false, &mut out, &mut err);
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (code, text(out) + &text(err))
}

/// A copy of the example beside a copy of the shared assets.
fn copy_example(root: &Path) -> PathBuf {
    copy_named(root, "street-planting")
}

/// A copy of example `name` beside a copy of the shared assets.
fn copy_named(root: &Path, name: &str) -> PathBuf {
    let project = root.join("projects").join(name);
    fs::create_dir_all(&project).expect("mkdir");
    support::copy_tree(&example_project(name), &project);
    // A repository like the original, so the shared `../../assets` stays inside it.
    fs::create_dir_all(root.join(".git")).expect("repository marker");
    fs::create_dir_all(root.join("assets")).expect("mkdir");
    support::copy_tree(&repo_root().join("assets"), &root.join("assets"));
    project
}

fn cook(project: &Path, out: &Path, cache: &Path) -> Command {
    Command::Cook {
        project: project.to_owned(),
        out: Some(out.to_owned()),
        cache: Some(cache.to_owned()),
        seed: None,
        plan: false,
        shard: None,
        json: false,
        cache_budget_mib: None,
        force: false,
        tile_cells: None,
        items: None,
    }
}

fn diff(a: &Path, b: &Path) -> Command {
    Command::Diff {
        a: a.to_owned(),
        b: b.to_owned(),
        a_seed: None,
        b_seed: None,
        a_set: Vec::new(),
        b_set: Vec::new(),
        json: false,
    }
}

#[test]
fn check_cook_and_diff_follow_the_subrecipe() {
    let temp = tempfile::tempdir().expect("temp");
    let project = copy_example(temp.path());
    let (code, text) = run(&Command::Check {
        project: project.clone(),
        json: false,
        memory_budget_mib: None,
    });
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("0 errors, 0 warnings"), "{text}");
    let cache = temp.path().join("cache");
    let (code, text) = run(&cook(&project, &temp.path().join("a"), &cache));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("stage 10 subrecipe: miss (no entry), 21 objects"),
        "{text}"
    );
    let (code, text) = run(&cook(&project, &temp.path().join("b"), &cache));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("cache: 4 hits, 0 misses"), "{text}");
    let (code, text) = run(&diff(&project, &temp.path().join("a")));
    assert_eq!(
        (code, text.trim()),
        (0, "0 added, 0 removed, 0 moved, 0 changed, 71 unchanged")
    );

    let original = temp.path().join("projects/original");
    fs::create_dir_all(&original).expect("mkdir");
    support::copy_tree(&project, &original);
    let child = project.join("recipes/sidewalk-props.recipe.ron");
    let text = fs::read_to_string(&child).expect("read");
    fs::write(
        &child,
        text.replace("\"scale_max\": 1100", "\"scale_max\": 1200"),
    )
    .expect("write");
    let (code, text) = run(&cook(&project, &temp.path().join("c"), &cache));
    assert_eq!(code, 0, "{text}");
    for expected in [
        "stage 1 street.block: hit",
        "stage 2 street.block: hit",
        "stage 10 subrecipe: miss (key changed: parameters)",
        "stage 20 subrecipe: miss (key changed: parameters)",
        "cache: 2 hits, 2 misses",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    let (code, text) = run(&diff(&original, &project));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.trim()
            .ends_with("0 added, 0 removed, 0 moved, 36 changed, 35 unchanged"),
        "{text}"
    );
    let changed: Vec<&str> = text.lines().filter(|l| l.starts_with("changed")).collect();
    assert_eq!(changed.len(), 36);
    assert!(
        changed
            .iter()
            .all(|l| l.contains("stage 10 PlacedObjects") || l.contains("stage 20 PlacedObjects")),
        "{changed:#?}"
    );
}

/// Two outputs of one child run: `check` is clean and its JSON scope manifest lists the
/// `subrecipe.output` stage beside the run (which only the running stage folds in); a second
/// cook is all hits; the cooked bundle equals the generation.
#[test]
fn two_outputs_of_one_run_check_cook_and_diff() {
    let temp = tempfile::tempdir().expect("temp");
    let project = copy_named(temp.path(), "sidewalk-outputs");
    let check = |json| Command::Check {
        project: project.clone(),
        json,
        memory_budget_mib: None,
    };
    let (code, text) = run(&check(false));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("0 errors, 0 warnings"), "{text}");
    let (code, text) = run(&check(true));
    assert_eq!(code, 0, "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let scopes = json["scopes"].as_array().expect("scopes");
    let parent = scopes
        .iter()
        .find(|s| s["recipe"] == "sidewalk-outputs")
        .expect("the recipe's manifest");
    let stages: Vec<(u64, &str, bool)> = parent["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| {
            (
                s["stage"].as_u64().unwrap_or(0),
                s["operator"].as_str().unwrap_or(""),
                s.get("subrecipe").is_some(),
            )
        })
        .collect();
    assert_eq!(
        stages,
        [
            (1, "street.block", false),
            (10, "subrecipe", true),
            (11, "subrecipe.output", false),
            (12, "environment.select-and-place", false),
        ]
    );
    assert_eq!(
        parent["stages"][1]["subrecipe"]["recipe"],
        "sidewalk-outputs/10:sidewalk-layout"
    );
    let cache = temp.path().join("cache");
    let (code, text) = run(&cook(&project, &temp.path().join("a"), &cache));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("stage 11 subrecipe.output: miss (no entry), 17 objects"),
        "{text}"
    );
    let (code, text) = run(&cook(&project, &temp.path().join("b"), &cache));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("cache: 4 hits, 0 misses"), "{text}");
    let (code, text) = run(&diff(&project, &temp.path().join("a")));
    assert_eq!(
        (code, text.trim()),
        (0, "0 added, 0 removed, 0 moved, 0 changed, 69 unchanged")
    );
    // Only stage 11's entry lost: the run stage 10 came from the disk cache holds no child
    // run, so stage 11 runs it again (same instance and seed) to the same bytes.
    let record = fs::read_to_string(cache.join("last/sidewalk-outputs.11.ron")).expect("record");
    let key = record
        .split("key: \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the key");
    fs::remove_dir_all(cache.join("entries").join(key)).expect("remove the entry");
    let (code, text) = run(&cook(&project, &temp.path().join("c"), &cache));
    assert_eq!(code, 0, "{text}");
    for expected in [
        "stage 10 subrecipe: hit",
        "stage 11 subrecipe.output: miss (no entry), 17 objects",
        "bundle digest ba04af4e34bc2998b8eb77445f06af9a0587e6e2a5682ea6ceec65c3e8676312",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
}
