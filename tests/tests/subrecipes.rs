//! The street-planting example through the command line: `check` is clean, `cook` twice is
//! served from the cache, editing the subrecipe's file re-cooks exactly the two stages that run
//! it, and `diff` compares by identity (cooked = generated; the edit changes only their objects).

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
    let project = root.join("projects/street-planting");
    fs::create_dir_all(&project).expect("mkdir");
    support::copy_tree(&example_project("street-planting"), &project);
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
