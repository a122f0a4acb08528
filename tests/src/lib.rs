//! Shared helpers of the end-to-end tests: where the repository's folders are.

pub mod source_text;

use std::path::PathBuf;

/// The repository root (the parent of this crate's folder).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The folder of example project `name` under `projects/`.
pub fn example_project(name: &str) -> PathBuf {
    repo_root().join("projects").join(name)
}

/// Every example project folder under `projects/`, sorted.
pub fn example_projects() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo_root().join("projects"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.join("stagecraft.ron").is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}
