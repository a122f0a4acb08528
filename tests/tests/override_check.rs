//! `stagecraft check` and the rebase on overrides that stop applying (issue 26, items 4–6): a
//! spacing change that breaks every lock, move, delete and harvest is a located warning per edit
//! naming the rebase; an edit of a generated object without a base revision is reported; two
//! scatter stages (or recipes) packing the same scopes are an admission error; and the examples
//! trip none of them.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cli::check;
use stagecraft_tests::{example_project, example_projects, repo_root};
use support::copy_tree;

const SET_FILE: &str = "overrides/pine-clearing-edits.overrides.ron";
const RECIPE_FILE: &str = "recipes/pine-clearing.recipe.ron";

/// A copy of the pine-clearing example (beside a copy of the shared assets, where its manifest
/// looks for them) with `file`'s text passed through `edit`: the temp folder and the project.
fn pine_with(file: &str, edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let assets = dir.path().join("assets");
    let project = dir.path().join("projects/pine-clearing");
    fs::create_dir_all(&assets).expect("mkdir");
    fs::create_dir_all(&project).expect("mkdir");
    copy_tree(&repo_root().join("assets"), &assets);
    copy_tree(&example_project("pine-clearing"), &project);
    // The copy is a repository like the original, so `../../assets` stays inside it.
    fs::create_dir_all(dir.path().join(".git")).expect("repository marker");
    let path = project.join(file);
    let text = fs::read_to_string(&path).expect("read");
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changes {file}");
    fs::write(&path, edited).expect("write");
    (dir, project)
}

/// `check --json` of `dir`: its exit code and every diagnostic as `severity file:line:col path |
/// message | expected`.
fn check_json(dir: &Path) -> (i32, Vec<String>) {
    let mut out = Vec::new();
    let exit = check(dir, true, &mut out).expect("check runs");
    let report: serde_json::Value = serde_json::from_slice(&out).expect("check JSON");
    let found = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            format!(
                "{} {}:{}:{} {} | {} | {}",
                d["severity"].as_str().unwrap_or(""),
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["path"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or(""),
                d["expected"].as_str().unwrap_or(""),
            )
        })
        .collect();
    (exit, found)
}

/// The 1-based line and column where the `n`-th (0-based) line starting with `prefix` (after
/// its indentation) begins its text.
fn nth_line(text: &str, prefix: &str, n: usize) -> (usize, usize) {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(prefix))
        .nth(n)
        .map(|(i, l)| (i + 1, l.len() - l.trim_start().len() + 1))
        .unwrap_or_else(|| panic!("no {n}-th line starting with {prefix}"))
}

#[test]
fn check_reports_nothing_on_every_example() {
    for dir in example_projects() {
        let (exit, found) = check_json(&dir);
        assert_eq!((exit, found), (0, Vec::new()), "{}", dir.display());
    }
}

#[test]
fn a_spacing_change_warns_at_every_edit_it_breaks_and_names_the_rebase() {
    let (_dir, project) = pine_with(RECIPE_FILE, |t| {
        t.replace("\"cell_size\": 400,", "\"cell_size\": 500,")
    });
    let (exit, found) = check_json(&project);
    assert_eq!(exit, 0, "warnings only: {found:#?}");
    let set = fs::read_to_string(project.join(SET_FILE)).expect("set");
    // Every edit of a generated object: the lock, the transform lock, the delete, the move,
    // the freeze, the harvest and the regrow. The add and the exclusion still apply.
    // Those whose targets' cells lie past the region's 12 cells of 5 m are gone; the others'
    // bases are other objects now.
    let (mismatch, gone) = ("base-revision-mismatch", "target-gone");
    let broken = [
        (
            "Override(",
            0,
            "overrides[0]",
            "LockSelection",
            281474976776192u64,
            mismatch,
        ),
        (
            "Override(",
            1,
            "overrides[1]",
            "LockTransform",
            281474977431553,
            mismatch,
        ),
        (
            "Override(",
            2,
            "overrides[2]",
            "Delete",
            281474977628161,
            gone,
        ),
        (
            "Override(",
            3,
            "overrides[3]",
            "Move",
            281474976710658,
            mismatch,
        ),
        (
            "Override(",
            6,
            "overrides[6]",
            "FreezeSubtree",
            281474976972804,
            mismatch,
        ),
        (
            "Mutation(",
            0,
            "mutations[0]",
            "Harvest",
            281474977234957,
            gone,
        ),
        (
            "Mutation(",
            1,
            "mutations[1]",
            "Regrow",
            281474977562638,
            gone,
        ),
    ];
    assert_eq!(found.len(), broken.len(), "{found:#?}");
    for (prefix, n, path, action, target, reason) in broken {
        let (line, column) = nth_line(&set, prefix, n);
        // The identity in hex, as every command and panel writes one.
        let at = format!("warning {SET_FILE}:{line}:{column} {path} | {action} of {target:#018x} (stage 1001) does not apply ({reason}): ");
        let hit = found.iter().find(|d| d.starts_with(&at));
        let hit = hit.unwrap_or_else(|| panic!("no warning {at}… in {found:#?}"));
        assert!(
            hit.ends_with("| an edit that applies: decide keep, drop, re-target or materialize with `stagecraft rebase PROJECT` (or Edit → Rebase overrides…)"),
            "{hit}"
        );
    }
}

#[test]
fn an_edit_of_a_generated_object_without_a_base_revision_is_reported_where_it_is() {
    let (_dir, project) = pine_with(SET_FILE, |t| {
        t.replace("base: \"cd1c5eaaf5a65d02\",", "base: \"\",")
    });
    let (exit, found) = check_json(&project);
    let set = fs::read_to_string(project.join(SET_FILE)).expect("set");
    // The first override's `base` line; its value starts after `base: `.
    let (line, column) = nth_line(&set, "base: ", 0);
    assert_eq!(
        (exit, found),
        (
            0,
            vec![format!(
                "warning {SET_FILE}:{line}:{} overrides[0].base | the edit of generated object 281474976776192 records no base revision, so after an upstream change it would apply to whatever object has that identity | the target's base revision (`stagecraft rebase PROJECT --write`, or Edit → Rebase overrides…, records it for every edit that applies)",
                column + "base: ".len()
            )]
        ),
        "the add and the exclusion, which have no generated base, are not reported"
    );
}

#[test]
fn two_recipes_packing_one_scope_are_an_error_at_the_second_ones_room() {
    let (_dir, project) = pine_with("stagecraft.ron", |t| {
        t.replace(
            "        \"pine-clearing\",\n",
            "        \"pine-clearing\",\n        \"pine-copy\",\n",
        )
    });
    let recipe = fs::read_to_string(project.join(RECIPE_FILE)).expect("recipe");
    let copy = recipe.replace("id: \"pine-clearing\",", "id: \"pine-copy\",");
    fs::write(project.join("recipes/pine-copy.recipe.ron"), &copy).expect("write");
    let (exit, found) = check_json(&project);
    // The value of the scatter stage's `"room": 1`.
    let (line, column) = nth_line(&copy, "\"room\": ", 0);
    assert_eq!(
        (exit, found),
        (
            1,
            vec![format!(
                "error recipes/pine-copy.recipe.ron:{line}:{} stages[0].parameters[\"room\"] | stage 1001 packs identities in room 1, layer 0, which stage 1001 of recipe `pine-clearing` already packs: both would emit the same identities and draws | a `room` or `layer` no other scatter stage of the project packs",
                column + "\"room\": ".len()
            )]
        )
    );
    // With a room of its own, the copy is clean.
    fs::write(
        project.join("recipes/pine-copy.recipe.ron"),
        copy.replace("\"room\": 1,", "\"room\": 2,"),
    )
    .expect("write");
    assert_eq!(check_json(&project), (0, Vec::new()));
}
