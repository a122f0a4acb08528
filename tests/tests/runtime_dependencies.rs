//! The runtime crate never depends on a GUI, GL, file-watching, dialog or undo crate.

use std::process::Command;

use stagecraft_tests::repo_root;

const FORBIDDEN: [&str; 9] = [
    "egui",
    "eframe",
    "egui_glow",
    "glow",
    "three-d",
    "winit",
    "notify",
    "rfd",
    "undo",
];

#[test]
fn runtime_dependency_tree_has_no_gui_crates() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(repo_root())
        .args([
            "tree",
            "-p",
            "stagecraft-runtime",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(crates.contains(&"stagecraft-runtime"), "{tree}");
    assert!(
        crates.contains(&"blake3"),
        "the tree lists real dependencies: {tree}"
    );
    let found: Vec<&&str> = FORBIDDEN
        .iter()
        .filter(|name| crates.contains(name))
        .collect();
    assert!(found.is_empty(), "runtime depends on {found:?}:\n{tree}");
}
