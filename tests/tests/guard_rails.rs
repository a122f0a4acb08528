//! Guard rails over the source tree: every `.rs` file of the workspace opens with a `//!` line
//! saying what it is for, and the clippy configuration keeps its bans.

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_tests::repo_root;

/// Every `.rs` file under `dir`, skipping build output and hidden folders, sorted.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, found);
        } else if name.ends_with(".rs") {
            found.push(path);
        }
    }
}

/// Whether a file's first non-blank line is a `//!` module doc line.
fn opens_with_module_doc(text: &str) -> bool {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.trim_start().starts_with("//!"))
}

#[test]
fn the_module_doc_check_tells_docs_from_other_openings() {
    assert!(opens_with_module_doc("\n//! What this is for.\nuse x;\n"));
    assert!(!opens_with_module_doc("/// An item doc.\nfn f() {}\n"));
    assert!(!opens_with_module_doc("use x;\n//! Too late.\n"));
    assert!(!opens_with_module_doc(""));
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = repo_root();
    let mut files = Vec::new();
    for crate_dir in ["runtime", "editor", "tests"] {
        rust_files(&root.join(crate_dir), &mut files);
    }
    assert!(files.len() > 100, "found only {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|path| {
            fs::read_to_string(path)
                .map(|text| !opens_with_module_doc(&text))
                .unwrap_or(true)
        })
        .map(|path| relative(&root, path))
        .collect();
    assert_eq!(missing, Vec::<String>::new(), "files without a `//!` line");
}

#[test]
fn clippy_bans_hash_collections_and_unnamed_threads_with_reasons() {
    let config = fs::read_to_string(repo_root().join("clippy.toml")).expect("clippy.toml");
    for banned in [
        "std::collections::HashMap",
        "std::collections::HashSet",
        "std::thread::spawn",
    ] {
        let line = config
            .lines()
            .find(|line| line.contains(&format!("\"{banned}\"")))
            .unwrap_or_else(|| panic!("clippy.toml does not ban {banned}"));
        assert!(
            line.contains("reason = "),
            "{banned} is banned without a reason"
        );
    }
}

/// Whether `text` reads the agent columns (`World::agents`), in a method call or a path.
fn reads_agent_columns(text: &str) -> bool {
    let squeezed: String = text.split_whitespace().collect();
    squeezed.contains(".agents()") || squeezed.contains("World::agents(")
}

#[test]
fn the_column_check_sees_a_call_across_lines_and_nothing_else() {
    assert!(reads_agent_columns("world\n    .agents()\n    .id"));
    assert!(reads_agent_columns("World::agents(&w)"));
    assert!(!reads_agent_columns(
        "world.agent_count(); w.motion_frames()"
    ));
}

/// The viewport and every panel read Motion Frames only: no editor source calls
/// `World::agents`, and the editor never turns on the runtime's `columns` feature that
/// exposes it (so `cargo build -p stagecraft-editor` would not even compile such a call).
#[test]
fn the_editor_never_reads_the_agent_columns() {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root.join("editor"), &mut files);
    assert!(files.len() > 50, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| fs::read_to_string(path).map_or(true, |t| reads_agent_columns(&t)))
        .map(|path| relative(&root, path))
        .collect();
    assert!(
        offenders.is_empty(),
        "read Motion Frames instead of the agent columns: {offenders:?}"
    );
    let manifest = fs::read_to_string(root.join("editor/Cargo.toml")).expect("editor manifest");
    assert!(
        !manifest.contains("\"columns\""),
        "the editor must not enable the runtime's `columns` feature"
    );
}

/// `path` relative to `root`, for messages.
fn relative(root: &std::path::Path, path: &std::path::Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
