//! Reading and writing on a hostile file system, on the real file system: files that are not
//! text, not files, or not where they claim to be become located diagnostics naming the path;
//! saves keep modes, write through links, leave no debris and never write outside the project.

mod support;

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{stagecraft, stdout};

use stagecraft_editor::project_io::{atomic_write, load_dir, read_sources, STALE_TEMP_AGE};
use stagecraft_runtime::project::Diagnostic;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A self-contained copy of the pine-clearing example (families copied into `assets/`).
fn pine() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = support::repo_root();
    support::copy_dir(&repo.join("projects/pine-clearing"), dir.path());
    support::copy_dir(&repo.join("assets"), &dir.path().join("assets"));
    let manifest = dir.path().join("stagecraft.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    fs::write(&manifest, text.replace("\"../../assets\"", "\"assets\"")).expect("write");
    dir
}

const RECIPE: &str = "recipes/pine-clearing.recipe.ron";

fn errors(dir: &Path) -> Vec<String> {
    let (_, loaded) = load_dir(dir).expect("the folder reads");
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(describe)
        .collect()
}

fn describe(d: &Diagnostic) -> String {
    format!("{}:{}:{} {}", d.file, d.line, d.column, d.message)
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

#[test]
fn a_non_utf8_byte_is_a_located_diagnostic_and_the_rest_still_checks() {
    let dir = pine();
    let path = dir.path().join(RECIPE);
    let mut bytes = fs::read(&path).expect("recipe");
    let text = String::from_utf8(bytes.clone()).expect("utf-8");
    let at = text.find("label: \"").expect("a label") + "label: \"".len();
    bytes.insert(at, 0xE9); // Latin-1 'é'
    fs::write(&path, &bytes).expect("write");
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at]
        .rsplit('\n')
        .next()
        .expect("line")
        .chars()
        .count()
        + 1;
    assert_eq!(
        errors(dir.path()),
        vec![format!(
            "{RECIPE}:{line}:{column} the file is not UTF-8 text: byte 0xE9 is not valid UTF-8"
        )]
    );
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&["check", folder, "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["errors"], 1);
    assert_eq!(report["diagnostics"][0]["line"], line);
    // fmt leaves the file exactly as it is.
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains(&format!("{RECIPE}: has errors, not rewritten")));
    assert_eq!(fs::read(&path).expect("read"), bytes);
}

#[test]
fn a_byte_order_mark_is_accepted_and_not_written_back() {
    let dir = pine();
    let path = dir.path().join(RECIPE);
    let text = fs::read_to_string(&path).expect("recipe");
    fs::write(&path, format!("\u{feff}{text}")).expect("write");
    assert_eq!(errors(dir.path()), Vec::<String>::new());
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&["fmt", folder, "--check"]);
    assert_eq!(stdout(&output), format!("{RECIPE}: not canonical\n"));
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(fs::read_to_string(&path).expect("read"), text);
}

#[test]
fn special_files_and_broken_links_name_their_path_and_reason() {
    let dir = pine();
    let recipes = dir.path().join("recipes");
    // A recipe that is a folder, a dangling link and a link loop, each listed in the manifest.
    fs::create_dir(recipes.join("folder.recipe.ron")).expect("mkdir");
    symlink(recipes.join("gone"), recipes.join("dangling.recipe.ron")).expect("link");
    symlink(
        recipes.join("loop-b.recipe.ron"),
        recipes.join("loop-a.recipe.ron"),
    )
    .expect("link");
    symlink(
        recipes.join("loop-a.recipe.ron"),
        recipes.join("loop-b.recipe.ron"),
    )
    .expect("link");
    let found = errors(dir.path());
    let of =
        |file: &str| -> Vec<&String> { found.iter().filter(|e| e.starts_with(file)).collect() };
    let folder = of("recipes/folder.recipe.ron");
    assert_eq!(folder.len(), 1, "{found:?}");
    assert!(
        folder[0].ends_with("folder.recipe.ron is a folder, not a file"),
        "{found:?}"
    );
    let dangling = of("recipes/dangling.recipe.ron");
    assert!(
        dangling[0]
            .contains("is a symbolic link that cannot be followed: No such file or directory"),
        "{found:?}"
    );
    let looped = of("recipes/loop-a.recipe.ron");
    assert!(
        looped[0].contains("cannot be followed: Too many levels of symbolic links"),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|e| e.contains("does not exist")),
        "{found:?}"
    );
}

/// A name, how to make the special file at a path, and the reason the diagnostic must give.
type Case = (&'static str, fn(&Path), &'static str);

#[test]
fn a_manifest_that_is_a_pipe_a_device_a_folder_or_a_loop_is_reported_promptly() {
    let cases: [Case; 4] = [
        (
            "pipe",
            |p| {
                let status = Command::new("mkfifo").arg(p).status().expect("mkfifo");
                assert!(status.success());
            },
            "is not a regular file (a pipe, socket or device)",
        ),
        (
            "/dev/zero",
            |p| symlink("/dev/zero", p).expect("link"),
            "is not a regular file",
        ),
        (
            "folder",
            |p| fs::create_dir(p).expect("mkdir"),
            "is a folder, not a file",
        ),
        (
            "loop",
            |p| symlink(p, p).expect("link"),
            "cannot be followed: Too many levels of symbolic links",
        ),
    ];
    for (name, make, reason) in cases {
        let dir = pine();
        let manifest = dir.path().join("stagecraft.ron");
        fs::remove_file(&manifest).expect("remove manifest");
        make(&manifest);
        let found = errors(dir.path());
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        assert!(
            found[0].starts_with("stagecraft.ron:1:1 "),
            "{name}: {found:?}"
        );
        assert!(
            found[0].contains(&manifest.display().to_string()),
            "{name}: {found:?}"
        );
        assert!(
            found[0].ends_with(reason) || found[0].contains(reason),
            "{name}: {found:?}"
        );
        assert!(!found[0].contains("no manifest"), "{name}: {found:?}");
    }
}

#[test]
fn a_document_folder_that_is_a_file_is_reported() {
    let dir = pine();
    fs::remove_dir_all(dir.path().join("recipes")).expect("remove");
    fs::write(dir.path().join("recipes"), "not a folder").expect("write");
    let found = errors(dir.path());
    assert!(
        found.iter().any(
            |e| e.starts_with("recipes:1:1 ") && e.ends_with("recipes is a file, not a folder")
        ),
        "{found:?}"
    );
}

#[test]
fn saves_keep_an_existing_mode_and_give_new_files_the_umask_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let existing = dir.path().join("kept.ron");
    fs::write(&existing, "old\n").expect("write");
    fs::set_permissions(&existing, fs::Permissions::from_mode(0o640)).expect("chmod");
    atomic_write(&existing, b"new\n").expect("save");
    assert_eq!(mode(&existing), 0o640);
    fs::set_permissions(&existing, fs::Permissions::from_mode(0o644)).expect("chmod");
    atomic_write(&existing, b"newer\n").expect("save");
    assert_eq!(mode(&existing), 0o644);
    // A file created the ordinary way shows what the umask gives.
    let reference = dir.path().join("reference");
    fs::write(&reference, "").expect("write");
    let fresh = dir.path().join("fresh.ron");
    atomic_write(&fresh, b"x\n").expect("save");
    assert_eq!(mode(&fresh), mode(&reference) & 0o666);
    assert_ne!(
        mode(&fresh),
        0o600,
        "not owner-only under the usual umask 022"
    );
}

#[test]
fn fmt_and_saves_write_through_links_to_their_targets() {
    let dir = pine();
    let manifest = dir.path().join("stagecraft.ron");
    let real = dir.path().join("real-manifest.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    fs::remove_file(&manifest).expect("remove");
    fs::write(&real, text.replace("    name: ", "name: ")).expect("write");
    symlink("real-manifest.ron", &manifest).expect("link");
    let folder = dir.path().to_str().expect("utf-8");
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(fs::symlink_metadata(&manifest)
        .expect("meta")
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).expect("target"), text);
}

#[test]
fn fmt_never_writes_outside_the_project_without_the_flag() {
    let outer = tempfile::tempdir().expect("temp dir");
    let project = outer.path().join("project");
    let shared = outer.path().join("shared");
    support::copy_dir(
        &support::repo_root().join("projects/pine-clearing"),
        &project,
    );
    support::copy_dir(&support::repo_root().join("assets"), &shared);
    let manifest = project.join("stagecraft.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    fs::write(&manifest, text.replace("\"../../assets\"", "\"../shared\"")).expect("write");
    let family = shared.join("alpine-trees.family.ron");
    let canonical = fs::read_to_string(&family).expect("family");
    let squashed = canonical.replace("\n    ", "\n");
    fs::write(&family, &squashed).expect("write");
    let folder = project.to_str().expect("utf-8");
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(
            "../shared/alpine-trees.family.ron: not rewritten: it is outside the project folder"
        ),
        "{}",
        stdout(&output)
    );
    assert_eq!(fs::read_to_string(&family).expect("family"), squashed);
    let output = stagecraft(&["fmt", folder, "--allow-outside"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(fs::read_to_string(&family).expect("family"), canonical);
}

#[test]
fn fmt_names_each_rewritten_file_and_a_rerun_finishes_the_job() {
    let dir = pine();
    let folder = dir.path().to_str().expect("utf-8");
    let files = ["stagecraft.ron", RECIPE];
    let canonical: Vec<String> = files
        .iter()
        .map(|f| fs::read_to_string(dir.path().join(f)).expect("read"))
        .collect();
    for (file, text) in files.iter().zip(&canonical) {
        fs::write(dir.path().join(file), text.replace("\n    ", "\n")).expect("write");
    }
    // An interrupted run: only the first file got formatted.
    fs::write(dir.path().join(files[0]), &canonical[0]).expect("write");
    let output = stagecraft(&["fmt", folder]);
    assert_eq!(
        stdout(&output),
        format!("{RECIPE}: rewritten\n{folder}: 1 file rewritten\n")
    );
    for (file, text) in files.iter().zip(&canonical) {
        assert_eq!(
            &fs::read_to_string(dir.path().join(file)).expect("read"),
            text
        );
    }
}

#[test]
fn stale_temp_files_are_removed_and_never_listed() {
    let dir = pine();
    let stale = dir.path().join("recipes/.stagecraft-save-old.tmp");
    let fresh = dir.path().join(".stagecraft-save-live.tmp");
    let unrelated = dir.path().join("recipes/.other.tmp");
    for path in [&stale, &fresh, &unrelated] {
        fs::write(path, "partial").expect("write");
    }
    let old = std::time::SystemTime::now() - STALE_TEMP_AGE - std::time::Duration::from_secs(5);
    fs::File::options()
        .write(true)
        .open(&stale)
        .expect("open")
        .set_modified(old)
        .expect("age it");
    let sources = read_sources(dir.path()).expect("reads");
    assert!(!stale.exists(), "a stale temp file of ours is removed");
    assert!(fresh.exists(), "a fresh one may belong to a live writer");
    assert!(unrelated.exists(), "other files are never touched");
    assert!(sources.files.keys().all(|k| !k.ends_with(".tmp")));
    assert!(sources.unreadable.is_empty(), "{:?}", sources.unreadable);
}

#[test]
fn ids_are_names_and_asset_paths_stay_in_bounds() {
    let dir = pine();
    let manifest = dir.path().join("stagecraft.ron");
    let text = fs::read_to_string(&manifest).expect("manifest");
    let text = text
        .replace("\"assets\",", "\"assets\",\n        \"/etc\",\n        \"/proc/self/fd\",\n        \"../../../../../../../../etc\",")
        .replace("scenarios: [],", "scenarios: [\n        \"../../etc/passwd\",\n    ],");
    fs::write(&manifest, text).expect("write");
    let (_, loaded) = load_dir(dir.path()).expect("reads");
    let found: Vec<String> = loaded.diagnostics.iter().map(describe).collect();
    let has = |needle: &str| found.iter().any(|d| d.contains(needle));
    assert!(has("an asset path is absolute: \"/etc\""), "{found:?}");
    assert!(
        has("an asset path is absolute: \"/proc/self/fd\""),
        "{found:?}"
    );
    assert!(has("asset path \"../../../../../../../../etc\": it leads to /etc, outside the project folder"), "{found:?}");
    assert!(
        has("an id contains a path separator: \"../../etc/passwd\" (ids are names, not paths)"),
        "{found:?}"
    );
    let warning = loaded
        .diagnostics
        .iter()
        .find(|d| d.message.contains("../../../../../../../../etc"))
        .expect("warning");
    assert!(
        !warning.is_error(),
        "a relative path leaving the project is a warning"
    );
}

#[test]
fn the_project_folder_itself_is_checked() {
    let missing = PathBuf::from("/nonexistent/stagecraft");
    let error = read_sources(&missing).expect_err("missing");
    assert_eq!(
        error.to_string(),
        "the project folder /nonexistent/stagecraft does not exist"
    );
}
