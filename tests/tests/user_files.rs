//! Safe with the user's files: `cook --out` replaces only a complete bundle, `new` never
//! overwrites a file, an output never replaces a pipe or socket, and what a killed command left
//! (a bundle swap killed at each step, cache staging, save temp files) is recovered or removed by
//! the next run once its process is gone.

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cli::entry::run;
use stagecraft_editor::cli::parse_cli;
use stagecraft_editor::cook::read_bundle;
#[cfg(target_os = "linux")]
use stagecraft_editor::cook::store::STAGING_GRACE;
use stagecraft_tests::{example_project, repo_root};

mod support;

/// Runs a command line in process as the binary would: (exit code, stdout then stderr).
fn stagecraft(args: &[&str]) -> (i32, String) {
    let argv = std::iter::once("stagecraft")
        .chain(args.iter().copied())
        .map(Into::into)
        .collect();
    let cli = match parse_cli(argv) {
        Ok(cli) => cli,
        Err(error) => return (2, error.to_string()),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let command = cli.command.as_ref().expect("a command");
    let code = run(command, false, &mut out, &mut err);
    // The error line without its line break, as the messages below are written.
    out.extend(err.strip_suffix(b"\n").unwrap_or(&err));
    (code, String::from_utf8(out).expect("utf-8"))
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[cfg(target_os = "linux")]
/// A copy of example `name` and the shared assets under `root`, laid out as in the repository.
fn copy_example(name: &str, root: &Path) -> PathBuf {
    let project = root.join("projects").join(name);
    fs::create_dir_all(&project).expect("mkdir");
    support::copy_tree(&example_project(name), &project);
    fs::create_dir_all(root.join("assets")).expect("mkdir");
    support::copy_tree(&repo_root().join("assets"), &root.join("assets"));
    let _ = fs::remove_dir_all(project.join(".stagecraft"));
    project
}

#[cfg(target_os = "linux")]
/// The id of a process that has ended (and was reaped).
fn gone_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().expect("spawn");
    let pid = child.id();
    child.wait().expect("wait");
    pid
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn cook(project: &Path, out: &Path, cache: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "cook",
        text(project),
        "--out",
        text(out),
        "--cache",
        text(cache),
    ];
    args.extend_from_slice(extra);
    stagecraft(&args)
}

#[test]
fn cook_out_replaces_only_a_complete_bundle() {
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let cache = temp.path().join("cache");
    // A folder that only looks like a bundle keeps the user's file.
    let lookalike = temp.path().join("lookalike");
    fs::create_dir_all(&lookalike).expect("mkdir");
    fs::write(lookalike.join("manifest.ron"), "notes").expect("write");
    fs::write(lookalike.join("keep.txt"), "mine").expect("write");
    let (code, message) = cook(&project, &lookalike, &cache, &[]);
    assert_eq!(code, 1, "{message}");
    assert!(
        message.contains("is not a complete Stagecraft bundle (its manifest.ron: ")
            && message.contains("refusing to replace it (--force replaces a folder"),
        "{message}"
    );
    assert_eq!(
        fs::read_to_string(lookalike.join("keep.txt"))
            .ok()
            .as_deref(),
        Some("mine")
    );
    // A complete bundle is replaced, again and again.
    let out = temp.path().join("bundle");
    for _ in 0..2 {
        let (code, message) = cook(&project, &out, &cache, &[]);
        assert_eq!(code, 0, "{message}");
    }
    let digest = read_bundle(&out).expect("verifies").digest;
    // One file its manifest does not list, or one it lists that is missing: not complete.
    fs::write(out.join("products/extra.bin"), "x").expect("write");
    let (code, message) = cook(&project, &out, &cache, &[]);
    assert_eq!(code, 1, "{message}");
    assert!(
        message.contains("(it holds products/extra.bin, which its manifest.ron does not list)"),
        "{message}"
    );
    fs::remove_file(out.join("products/extra.bin")).expect("remove");
    fs::remove_file(out.join("products/pine-clearing.1001.bin")).expect("remove");
    let (code, message) = cook(&project, &out, &cache, &[]);
    assert_eq!(code, 1, "{message}");
    assert!(
        message
            .contains("(its manifest.ron lists products/pine-clearing.1001.bin, which is missing)"),
        "{message}"
    );
    // --force replaces a folder that is not a bundle, and leaves nothing of it.
    let (code, message) = cook(&project, &lookalike, &cache, &["--force"]);
    assert_eq!(code, 0, "{message}");
    assert_eq!(names(&lookalike), ["manifest.ron", "products"]);
    assert_eq!(read_bundle(&lookalike).expect("verifies").digest, digest);
    // Never a file, even with --force; never a folder that holds the cache.
    let file = temp.path().join("file");
    fs::write(&file, "mine").expect("write");
    let (code, message) = cook(&project, &file, &cache, &["--force"]);
    assert_eq!(code, 1, "{message}");
    assert!(
        message.contains("file is a regular file, not a bundle folder"),
        "{message}"
    );
    assert_eq!(fs::read_to_string(&file).ok().as_deref(), Some("mine"));
    let (code, message) = cook(&project, temp.path(), &cache, &["--force"]);
    assert_eq!(code, 1, "{message}");
    assert!(
        message.contains("cache; refusing to replace it"),
        "{message}"
    );
    assert!(out.join("manifest.ron").is_file());
}

#[test]
fn new_refuses_a_folder_with_files_and_never_overwrites_one() {
    let temp = tempfile::tempdir().expect("temp");
    let dir = temp.path().join("block");
    fs::create_dir_all(dir.join("recipes")).expect("mkdir");
    let mine = dir.join("recipes/street-block.recipe.ron");
    fs::write(&mine, "my recipe").expect("write");
    let (code, message) = stagecraft(&["new", text(&dir)]);
    assert_eq!(code, 2, "{message}");
    assert!(
        message.contains(
            "block is not empty (it holds recipes); a new project goes into a new or empty folder"
        ),
        "{message}"
    );
    let (code, message) = stagecraft(&["new", text(&dir), "--merge"]);
    assert_eq!(code, 2, "{message}");
    assert!(
        message.contains(
            "the new project would overwrite recipes/street-block.recipe.ron; an existing file is never overwritten, so nothing was written"
        ),
        "{message}"
    );
    assert_eq!(fs::read_to_string(&mine).ok().as_deref(), Some("my recipe"));
    assert_eq!(names(&dir), ["recipes"]);
    // --merge writes beside other files.
    let notes = temp.path().join("notes");
    fs::create_dir_all(&notes).expect("mkdir");
    fs::write(notes.join("todo.txt"), "mine").expect("write");
    let (code, message) = stagecraft(&["new", text(&notes), "--merge"]);
    assert_eq!(code, 0, "{message}");
    assert_eq!(
        fs::read_to_string(notes.join("todo.txt")).ok().as_deref(),
        Some("mine")
    );
    assert_eq!(stagecraft(&["check", text(&notes)]).0, 0);
}

#[test]
fn new_refuses_the_file_system_root() {
    let (code, message) = stagecraft(&["new", "/"]);
    assert_eq!(
        (code, message.as_str()),
        (
            2,
            "error: / is the file-system root; a project needs a folder of its own"
        )
    );
}

#[cfg(unix)]
#[test]
fn outputs_write_through_a_pipe_and_never_replace_a_socket() {
    use std::io::Read as _;
    use std::os::unix::fs::FileTypeExt as _;
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let socket = temp.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let (code, message) = stagecraft(&["generate", text(&project), "--out", text(&socket)]);
    assert_eq!(code, 2, "{message}");
    assert!(
        message.ends_with("socket is a socket; an output is written only to a new path, a regular file, a pipe or a character device"),
        "{message}"
    );
    let is_socket = |path: &Path| {
        fs::symlink_metadata(path)
            .expect("stat")
            .file_type()
            .is_socket()
    };
    assert!(is_socket(&socket), "the socket is still there");
    let demo = example_project("crosswalk-demo");
    let events = [
        "simulate",
        text(&demo),
        "--scenario",
        "ping-pong",
        "--frames",
        "3",
    ];
    let (code, message) = stagecraft(&[&events[..], &["--events", text(&socket)]].concat());
    assert_eq!(code, 2, "{message}");
    assert!(
        message.contains("socket is a socket; an output"),
        "{message}"
    );
    assert!(is_socket(&socket));
    // A folder is no output file either.
    let (code, message) = stagecraft(&["generate", text(&project), "--out", text(temp.path())]);
    assert_eq!(code, 2, "{message}");
    assert!(
        message.contains("is a folder; an output is written only"),
        "{message}"
    );
    // A named pipe is written through: its reader gets the products, and it stays a pipe.
    let fifo = temp.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let reader_path = fifo.clone();
    let reader = std::thread::Builder::new()
        .name("fifo-reader".to_owned())
        .spawn(move || {
            let mut text = String::new();
            fs::File::open(reader_path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .map(|_| text)
        })
        .expect("spawn");
    let (code, message) = stagecraft(&["generate", text(&project), "--out", text(&fifo)]);
    assert_eq!(code, 0, "{message}");
    let is_fifo = fs::symlink_metadata(&fifo)
        .expect("stat")
        .file_type()
        .is_fifo();
    assert!(is_fifo, "the pipe was replaced by a file");
    let read = reader.join().expect("reader").expect("read");
    assert!(
        read.starts_with("GeneratedBundle("),
        "{}",
        &read[..read.len().min(80)]
    );
}

// Whether a process is gone is told by `/proc`.
#[cfg(target_os = "linux")]
#[test]
fn leftovers_of_gone_processes_are_recovered_by_the_next_run() {
    let temp = tempfile::tempdir().expect("temp");
    let project = copy_example("pine-clearing", temp.path());
    let cache = temp.path().join("cache");
    let out = temp.path().join("bundle");
    let (code, message) = cook(&project, &out, &cache, &[]);
    assert_eq!(code, 0, "{message}");
    let digest = read_bundle(&out).expect("verifies").digest;
    // Process 1 (init) is always alive.
    let (dead, alive) = (gone_pid(), 1);
    // A kill between the swap's renames: the old bundle only at `.bundle.old-PID`, a complete
    // staging folder beside it.
    let old = temp.path().join(format!(".bundle.old-{dead}"));
    fs::rename(&out, &old).expect("move aside");
    support::copy_tree(&old, &{
        let staging = temp.path().join(format!(".bundle.staging-{dead}"));
        fs::create_dir_all(&staging).expect("mkdir");
        staging
    });
    let live_staging = temp.path().join(format!(".bundle.staging-{alive}"));
    fs::create_dir_all(&live_staging).expect("mkdir");
    let cache_staging = [
        cache.join(format!("staging/{}-{dead}-0", "ab".repeat(32))),
        cache.join(format!("staging/{}-{alive}-7", "cd".repeat(32))),
    ];
    // A cache may be shared by machines: staging is removed only once untouched for a while.
    let fresh_dead = cache.join(format!("staging/{}-{dead}-1", "ef".repeat(32)));
    let long_ago = std::time::SystemTime::now() - STAGING_GRACE - std::time::Duration::from_secs(5);
    for folder in cache_staging.iter().chain([&fresh_dead]) {
        fs::create_dir_all(folder).expect("mkdir");
        fs::write(folder.join("product.bin"), "partial").expect("write");
        if folder != &fresh_dead {
            for path in [folder.join("product.bin"), folder.clone()] {
                let file = fs::File::open(&path).expect("open");
                file.set_modified(long_ago).expect("age it");
            }
        }
    }
    let saves = [
        project.join(format!("recipes/.stagecraft-save-{dead}-a1B2c3.tmp")),
        project.join(format!(".stagecraft-save-{dead}-d4E5f6.tmp")),
        temp.path()
            .join(format!("assets/.stagecraft-save-{dead}-g7H8i9.tmp")),
        cache.join(format!("last/.stagecraft-save-{dead}-j1K2l3.tmp")),
        project.join(format!(
            ".stagecraft/autosave/.stagecraft-save-{dead}-s1T2u3.tmp"
        )),
        temp.path()
            .join(format!(".stagecraft-save-{dead}-m4N5o6.tmp")),
        project.join(format!("recipes/.stagecraft-save-{alive}-p7Q8r9.tmp")),
    ];
    for save in &saves {
        fs::create_dir_all(save.parent().expect("folder")).expect("mkdir");
        fs::write(save, "partial").expect("write");
    }
    let (code, message) = cook(&project, &out, &cache, &[]);
    assert_eq!(code, 0, "{message}");
    assert_eq!(read_bundle(&out).expect("verifies").digest, digest);
    let live_name = format!(".bundle.staging-{alive}");
    assert_eq!(
        names(temp.path())
            .into_iter()
            .filter(|n| n.starts_with(".bundle"))
            .collect::<Vec<_>>(),
        [live_name.as_str()],
        "the dead swap's leftovers are gone; a live process's staging is kept"
    );
    assert_eq!(
        cache_staging.each_ref().map(|f| f.exists()),
        [false, true],
        "cache staging of a gone process is removed, a live one's kept"
    );
    assert!(
        fresh_dead.exists(),
        "a staging folder touched just now is kept"
    );
    // The save temp files: the cook and a later `check` (which reads the project) clean them,
    // `generate --out` cleans beside its output, the editor's autosave check beside the autosave.
    let (code, message) = stagecraft(&["check", text(&project)]);
    assert_eq!(code, 0, "{message}");
    let products = temp.path().join("products.ron");
    let (code, message) = stagecraft(&["generate", text(&project), "--out", text(&products)]);
    assert_eq!(code, 0, "{message}");
    // Opening the project in the editor looks for an autosave to offer.
    let _ = stagecraft_editor::document::autosave::recovery(&project, &Default::default());
    assert_eq!(
        saves.each_ref().map(|s| s.exists()),
        [false, false, false, false, false, false, true],
        "every temp file of a gone process is removed, a live one's kept"
    );
}

/// The child process's settings: the step (an index), the bundle folder, the new bundle.
#[cfg(target_os = "linux")]
const STEP_ENV: &str = "STAGECRAFT_TEST_SWAP_STEP";
#[cfg(target_os = "linux")]
const OUT_ENV: &str = "STAGECRAFT_TEST_SWAP_OUT";
#[cfg(target_os = "linux")]
const FROM_ENV: &str = "STAGECRAFT_TEST_SWAP_FROM";

/// Not a test on its own: the child process of
/// [`a_bundle_swap_killed_at_each_step_leaves_a_bundle_intact_and_is_recovered`], which swaps the
/// bundle of `FROM` into `OUT` and kills itself (SIGKILL) at step `STEP`.
#[cfg(target_os = "linux")]
#[test]
fn bundle_swap_child_process() {
    use stagecraft_editor::cook::{write_bundle_with, ReplacePolicy, SwapStep};
    let (Ok(step), Ok(out), Ok(from)) = (
        std::env::var(STEP_ENV),
        std::env::var(OUT_ENV),
        std::env::var(FROM_ENV),
    ) else {
        return;
    };
    let kill_at = SwapStep::ALL[step.parse::<usize>().expect("step")];
    let from = PathBuf::from(from);
    let manifest = fs::read_to_string(from.join("manifest.ron")).expect("manifest");
    let files: Vec<(String, Vec<u8>)> = names(&from.join("products"))
        .into_iter()
        .map(|name| {
            let bytes = fs::read(from.join("products").join(&name)).expect("product");
            (format!("products/{name}"), bytes)
        })
        .collect();
    let mut hook = |step: SwapStep| {
        if step == kill_at {
            let pid = std::process::id().to_string();
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status();
            std::process::abort();
        }
    };
    write_bundle_with(
        Path::new(&out),
        &manifest,
        &files,
        &ReplacePolicy::default(),
        &mut hook,
    )
    .expect("swaps");
}

#[cfg(target_os = "linux")]
/// Kills a child process at `step` of swapping the bundle of `new` into `out`; returns its pid.
fn killed_swap(step: usize, new: &Path, out: &Path) -> u32 {
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args(["bundle_swap_child_process", "--exact", "--test-threads=1"])
        .env(STEP_ENV, step.to_string())
        .env(OUT_ENV, out)
        .env(FROM_ENV, new)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let status = child.wait().expect("wait");
    assert!(!status.success(), "step {step}: the child was not killed");
    pid
}

// Whether a process is gone is told by `/proc`.
#[cfg(target_os = "linux")]
#[test]
fn a_bundle_swap_killed_at_each_step_leaves_a_bundle_intact_and_is_recovered() {
    use stagecraft_editor::cook::{recover_swap, SwapStep};
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let cache = temp.path().join("cache");
    let (old_bundle, new_bundle) = (temp.path().join("old"), temp.path().join("new"));
    assert_eq!(cook(&project, &old_bundle, &cache, &[]).0, 0);
    assert_eq!(cook(&project, &new_bundle, &cache, &["--seed", "7"]).0, 0);
    let digest = |dir: &Path| read_bundle(dir).map(|b| b.digest).ok();
    let (old_digest, new_digest) = (digest(&old_bundle), digest(&new_bundle));
    assert_ne!(old_digest, new_digest);
    // What is on disk right after the kill at each step, and what recovery makes of it.
    let after_kill = [
        ("old", "staging"),
        ("old", "staging"),
        ("", "old staging"),
        ("new", "old"),
    ];
    let recovered = ["old", "old", "old", "new"];
    for (index, step) in SwapStep::ALL.iter().enumerate() {
        let which = |name: &str| match name {
            "old" => old_digest.clone(),
            "new" => new_digest.clone(),
            _ => None,
        };
        for next_run_is_cook in [false, true] {
            let work = temp.path().join(format!("run-{index}-{next_run_is_cook}"));
            let out = work.join("bundle");
            fs::create_dir_all(&out).expect("mkdir");
            support::copy_tree(&old_bundle, &out);
            let pid = killed_swap(index, &new_bundle, &out);
            let (at_out, leftovers) = after_kill[index];
            assert_eq!(digest(&out), which(at_out), "{step:?}: the bundle at DIR");
            let expected: Vec<String> = leftovers
                .split(' ')
                .map(|tag| format!(".bundle.{tag}-{pid}"))
                .chain((!at_out.is_empty()).then(|| "bundle".to_owned()))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            assert_eq!(names(&work), expected, "{step:?}: what the kill left");
            // The old bundle is whole wherever it is.
            let old_aside = work.join(format!(".bundle.old-{pid}"));
            if old_aside.exists() {
                assert_eq!(
                    digest(&old_aside),
                    old_digest,
                    "{step:?}: the old bundle aside"
                );
            }
            if next_run_is_cook {
                let (code, message) = cook(&project, &out, &cache, &["--seed", "7"]);
                assert_eq!(code, 0, "{step:?}: {message}");
                assert_eq!(digest(&out), new_digest, "{step:?}");
            } else {
                recover_swap(&out).expect("recovers");
                assert_eq!(digest(&out), which(recovered[index]), "{step:?}: recovered");
            }
            assert_eq!(names(&work), ["bundle"], "{step:?}: no leftovers");
        }
    }
}
