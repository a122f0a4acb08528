//! End-to-end tests of `stagecraft generate` and `stagecraft ops`: the golden digests on every
//! thread count, the exported products, seeds, failures, and compile diagnostics in `check`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn example(name: &str) -> String {
    repo().join("projects").join(name).display().to_string()
}

fn stagecraft(args: &[&str], threads: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagecraft"));
    command.args(args);
    if let Some(threads) = threads {
        command.env("RAYON_NUM_THREADS", threads);
    }
    command.output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The `digest …` lines of a text report.
fn digests(output: &Output) -> Vec<String> {
    stdout(output)
        .lines()
        .filter_map(|line| line.strip_prefix("digest "))
        .map(str::to_owned)
        .collect()
}

/// The golden bundle digests, as pinned in `tests/tests/generate.rs`.
const GOLDEN: [(&str, &str); 3] = [
    (
        "pine-clearing",
        "b88ad45c69d67223af80fbc024b6d8ab6129d439ef5cba8e1182463b1050aa85",
    ),
    (
        "street-block",
        "e3bf9d6f12a598f252e1760f8b20bb496c627eb0cb49720caf1c0c96c6113275",
    ),
    (
        "tactical-mission",
        "72802f78fe5cae0cfd1d08213257c9619ce6bd5c2975c7f0e680a551d41e077d",
    ),
];

#[test]
fn generate_prints_the_golden_digest_on_every_thread_count() {
    for (name, golden) in GOLDEN {
        let path = example(name);
        for threads in [None, Some("1"), Some("2")] {
            let output = stagecraft(&["generate", &path], threads);
            assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
            assert_eq!(
                digests(&output),
                [golden],
                "{name} with {threads:?} threads"
            );
            let text = stdout(&output);
            assert!(text.contains(" objects") && text.contains(" ms"), "{text}");
        }
        let serial = stagecraft(&["generate", "--serial", &path], None);
        assert_eq!(digests(&serial), [golden], "{name} serial");
    }
}

#[test]
fn generate_writes_canonical_ron_and_json_products() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ron_path = dir.path().join("pine.ron");
    let json_path = dir.path().join("pine.json");
    let pine = example("pine-clearing");
    let ron_out = ron_path.display().to_string();
    let output = stagecraft(&["generate", &pine, "--out", &ron_out], None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let ron_text = fs::read_to_string(&ron_path).expect("ron written");
    assert!(
        ron_text.starts_with("GeneratedBundle(\n"),
        "{}",
        &ron_text[..80]
    );
    assert!(ron_text.ends_with(")\n"));
    let value: ron::Value = ron::from_str(&ron_text).expect("valid RON");
    assert!(matches!(value, ron::Value::Map(_)));
    // Writing twice gives the same bytes.
    stagecraft(&["generate", &pine, "--out", &ron_out], Some("1"));
    assert_eq!(fs::read_to_string(&ron_path).expect("again"), ron_text);

    let json_out = json_path.display().to_string();
    let output = stagecraft(&["generate", &pine, "--json", "--out", &json_out], None);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON report");
    assert_eq!(report["recipes"][0]["digest"], GOLDEN[0].1);
    let bundle: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&json_path).expect("json written")).expect("JSON");
    assert_eq!(bundle["digest"], GOLDEN[0].1);
    // The example's override set: nine edits applied, one regrown placement with its ordinal.
    let edits = report["recipes"][0]["edits"].as_array().expect("edits");
    assert_eq!(edits.len(), 9);
    assert!(edits.iter().all(|e| e["applied"] == true), "{edits:?}");
    let regrown = &bundle["regrown"][0];
    assert_eq!(regrown["id"], 281474977562638u64);
    assert_eq!(regrown["ordinal"], 1);
    assert_eq!(regrown["variant_id"], "pine-tall");
    let placed = &bundle["stages"][1]["product"]["PlacedObjects"]["objects"][0];
    for field in [
        "id",
        "cell",
        "candidate",
        "position",
        "variant",
        "variant_id",
        "priority",
        "rotation_turns_65536",
        "scale",
    ] {
        assert!(
            !placed[field].is_null(),
            "placement field {field}: {placed}"
        );
    }
    let scatter = &bundle["stages"][0]["product"]["Placements"]["layers"][0];
    assert!(scatter["rejected"]
        .as_array()
        .is_some_and(|r| !r.is_empty()));
}

#[test]
fn a_seed_changes_the_digest_and_a_bad_recipe_id_is_an_error() {
    let pine = example("pine-clearing");
    let output = stagecraft(&["generate", &pine, "--seed", "1"], None);
    assert_eq!(output.status.code(), Some(0));
    let digest = digests(&output);
    assert_eq!(digest.len(), 1);
    assert_ne!(digest[0], GOLDEN[0].1);
    let again = stagecraft(
        &[
            "generate",
            &pine,
            "--seed",
            "1",
            "--recipe",
            "pine-clearing",
        ],
        None,
    );
    assert_eq!(digests(&again), digest);
    let missing = stagecraft(&["generate", &pine, "--recipe", "nope"], None);
    assert_eq!(missing.status.code(), Some(2));
}

/// A copy of the pine-clearing example with `edit` applied to its recipe text.
fn edited_pine(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = repo().join("projects").join("pine-clearing");
    let manifest = fs::read_to_string(source.join("stagecraft.ron")).expect("manifest");
    // Asset paths are relative: the families travel with the copy.
    let manifest = manifest.replace("\"../../assets\"", "\"assets\"");
    fs::write(dir.path().join("stagecraft.ron"), manifest).expect("write manifest");
    fs::create_dir_all(dir.path().join("assets")).expect("mkdir");
    for entry in fs::read_dir(repo().join("assets")).expect("assets") {
        let entry = entry.expect("entry");
        fs::copy(
            entry.path(),
            dir.path().join("assets").join(entry.file_name()),
        )
        .expect("copy");
    }
    fs::create_dir_all(dir.path().join("recipes")).expect("mkdir");
    let recipe =
        fs::read_to_string(source.join("recipes/pine-clearing.recipe.ron")).expect("recipe");
    fs::write(
        dir.path().join("recipes/pine-clearing.recipe.ron"),
        edit(&recipe),
    )
    .expect("write");
    dir
}

fn path_arg(dir: &Path) -> String {
    dir.display().to_string()
}

#[test]
fn check_and_generate_report_compile_errors_with_their_line() {
    let dir = edited_pine(|text| text.replace("\"cell_size\": 400", "\"cell_size\": 0"));
    let check = stagecraft(&["check", &path_arg(dir.path())], None);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    let text = stdout(&check);
    assert!(
        text.contains("stage 1001: parameter `cell_size` is 0, out of range"),
        "{text}"
    );
    assert!(
        text.contains("recipes/pine-clearing.recipe.ron:20:"),
        "{text}"
    );
    let generate = stagecraft(&["generate", &path_arg(dir.path())], None);
    assert_eq!(generate.status.code(), Some(1));
    assert!(digests(&generate).is_empty());
}

#[test]
fn a_radius_above_the_cell_size_is_a_located_compile_error_not_a_stage_failure() {
    // 100-unit cells are smaller than the trees' exclusion radii. The kernel would refuse the
    // family; the compiler reports it first, at the cell size, in `check` and in `generate`.
    let dir = edited_pine(|text| text.replace("\"cell_size\": 400", "\"cell_size\": 100"));
    let message = "stage 1001: variant `pine-tall` of family `alpine-trees` has exclusion radius 250, above the cell size 100 (and 2 more variants)";
    let output = stagecraft(&["generate", &path_arg(dir.path())], None);
    assert_eq!(output.status.code(), Some(1));
    // A recipe that does not compile is an error: on stderr, located.
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(text.contains(message), "{text}");
    assert!(
        text.contains("--> recipes/pine-clearing.recipe.ron:20:30"),
        "{text}"
    );
    assert!(digests(&output).is_empty());
    assert!(!text.contains("invalid-input"), "{text}");
    let check = stagecraft(&["check", &path_arg(dir.path())], None);
    assert_eq!(check.status.code(), Some(1));
    assert!(stdout(&check).contains(message), "{}", stdout(&check));
}

#[test]
fn ops_lists_every_operator_with_its_schema() {
    let output = stagecraft(&["ops"], None);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    for id in [
        "assembly v1",
        "environment.scatter v1",
        "environment.select-and-place v1",
        "layout.grid-mission v1",
        "streaming.plan v1",
        "street.block v1",
        "subrecipe v1",
        "subrecipe.output v1",
    ] {
        assert!(text.contains(id), "{id} in {text}");
    }
    assert!(text.contains("candidates_per_cell"));
    let json = stagecraft(&["ops", "--json"], None);
    let operators: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    assert_eq!(operators["schema"], "stagecraft.ops/1");
    let operators = &operators["operators"];
    assert_eq!(operators.as_array().map(Vec::len), Some(8));
    assert_eq!(operators[0]["id"], "assembly");
    assert_eq!(operators[0]["parameters"][0]["name"], "frame");
    assert_eq!(operators[1]["parameters"][0]["name"], "candidates_per_cell");
    // The subrecipe operator comes from the same registry, with its scope, its parameters and
    // no fixed output kind.
    let sub = &operators[6];
    assert_eq!(sub["id"], "subrecipe");
    assert_eq!(sub["algorithm"], 1);
    assert_eq!(sub["data_scope"], "object");
    assert_eq!(sub["locality"], "parent-planned");
    assert_eq!(sub["output"], "the kind of the child output it publishes");
    let params: Vec<(String, String, String)> = sub["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .map(|p| {
            let text = |k: &str| p[k].as_str().unwrap_or_default().to_owned();
            (text("name"), text("type"), text("default"))
        })
        .collect();
    let expected = [
        ("binds", "string list", "[]"),
        ("output", "int", "optional"),
        ("recipe", "string", "required"),
    ]
    .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()));
    assert_eq!(params, expected);
    assert_eq!(sub["inputs"].as_array().map(Vec::len), Some(0));
}

#[test]
fn rebase_reports_the_orphans_of_a_seed_change_and_writes_only_when_asked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("pine");
    let output = stagecraft(
        &[
            "new",
            &project.display().to_string(),
            "--template",
            "pine-clearing",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let path = project.display().to_string();
    let same = stagecraft(&["rebase", &path], None);
    assert!(
        stdout(&same).starts_with(
            "recipe pine-clearing at seed 20261129: 9 apply, 0 orphaned, 0 conflict\n"
        ),
        "{}",
        stdout(&same)
    );
    let output = stagecraft(&["rebase", &path, "--seed", "7", "--json"], None);
    assert_eq!(output.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let counts = |r: &serde_json::Value| {
        (
            r["applies"].clone(),
            r["orphaned"].clone(),
            r["conflict"].clone(),
        )
    };
    assert_eq!(
        counts(&report["recipes"][0]),
        (2.into(), 7.into(), 0.into())
    );
    let file = project.join("overrides/pine-clearing-edits.overrides.ron");
    let before = fs::read_to_string(&file).expect("set");
    assert!(before.contains("base_seed: Some(20261129)"));
    // Nothing is written without --write; with it the orphans go and the set binds to seed 7.
    assert_eq!(fs::read_to_string(&file).expect("set"), before);
    let output = stagecraft(&["rebase", &path, "--seed", "7", "--write"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let after = fs::read_to_string(&file).expect("set");
    assert!(after.contains("base_seed: Some(7)"), "{after}");
    assert_eq!(after.matches("Override(").count(), 2);
    assert_eq!(after.matches("Mutation(").count(), 0);
    let generated = stagecraft(&["generate", &path, "--seed", "7"], None);
    assert!(
        stdout(&generated).contains("  edits: 2 applied, 0 not applied\n"),
        "{}",
        stdout(&generated)
    );
}
