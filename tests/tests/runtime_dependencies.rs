//! The runtime crate and the shared file edge (`stagecraft-io`, which the Python module links)
//! never depend on a GUI, GL, file-watching, dialog or undo crate.

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

/// The crates of `package`'s normal dependency tree (itself included), as `cargo tree` lists them.
fn dependency_tree(package: &str) -> (Vec<String>, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(repo_root())
        .args([
            "tree", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout).into_owned();
    let crates = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    (crates, tree)
}

/// The forbidden crates in `package`'s tree (after checking the tree lists real crates).
fn forbidden_in(package: &str) -> Vec<&'static str> {
    let (crates, tree) = dependency_tree(package);
    let has = |name: &str| crates.iter().any(|c| c == name);
    assert!(has(package), "{tree}");
    assert!(has("blake3"), "the tree lists real dependencies: {tree}");
    FORBIDDEN.into_iter().filter(|name| has(name)).collect()
}

#[test]
fn runtime_dependency_tree_has_no_gui_crates() {
    assert_eq!(forbidden_in("stagecraft-runtime"), Vec::<&str>::new());
}

#[test]
fn io_dependency_tree_has_no_gui_crates() {
    let (crates, tree) = dependency_tree("stagecraft-io");
    assert!(
        crates.iter().any(|c| c == "stagecraft-runtime"),
        "the shared edge reads through the runtime: {tree}"
    );
    assert!(
        !crates.iter().any(|c| c == "stagecraft-editor"),
        "the shared edge never pulls the editor in: {tree}"
    );
    assert_eq!(forbidden_in("stagecraft-io"), Vec::<&str>::new());
}

/// The runtime features `package`'s tree turns on over `edges` (`cargo tree`'s `{f}`), sorted.
fn runtime_features(package: &str, edges: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(repo_root())
        .args([
            "tree", "-p", package, "-e", edges, "--prefix", "none", "--format", "{p}|{f}",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "cargo tree failed");
    let tree = String::from_utf8_lossy(&output.stdout).into_owned();
    let line = tree
        .lines()
        .find(|line| line.starts_with("stagecraft-runtime "))
        .unwrap_or_else(|| panic!("no runtime in {package}'s tree: {tree}"));
    let features = line.split('|').nth(1).unwrap_or_default();
    let mut features: Vec<String> = features
        .split([',', ' '])
        .filter(|f| !f.is_empty() && *f != "(*)")
        .map(str::to_owned)
        .collect();
    features.sort();
    features
}

/// The benchmark worlds (the runtime's `bench-support` feature) stay out of the application:
/// the editor and the shared file edge build the runtime without it, and only the editor's
/// tests and benches (its dev-dependencies) turn it on.
#[test]
fn the_benchmark_worlds_stay_out_of_application_builds() {
    assert_eq!(
        runtime_features("stagecraft-editor", "normal"),
        Vec::<String>::new()
    );
    assert_eq!(
        runtime_features("stagecraft-io", "normal"),
        Vec::<String>::new()
    );
    assert_eq!(
        runtime_features("stagecraft-editor", "normal,dev"),
        vec!["bench-support".to_owned()]
    );
}
