//! The file-system edge of project documents: write files atomically, create new projects, keep
//! editor state.
//!
//! Reading a project folder into `ProjectSources` is `stagecraft_io`'s (shared with the Python
//! module, which cannot depend on this GUI crate); it is re-exported here under its old names.
//! Canonical texts are written back with a temp-file, fsync, rename sequence, so a failed save
//! leaves the old file as it was.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use stagecraft_runtime::project::MANIFEST_FILE;

pub use stagecraft_io::atomic_write::{
    atomic_write, atomic_write_with, temp_builder, write_target, BeforeRename,
};
pub use stagecraft_io::roots::{repository_root, DocumentRoots};
pub use stagecraft_io::sources::{
    load_dir, read_asset_folder, read_project_file, read_sources, DOCUMENT_FOLDERS, FAMILY_SUFFIX,
};
pub use stagecraft_io::temp_files::{
    remove_stale_temp_files, remove_stale_temp_in, STALE_TEMP_AGE, TEMP_PREFIX, TEMP_SUFFIX,
};

/// Where a file of the project lives on disk.
pub fn file_path(dir: &Path, relative: &str) -> PathBuf {
    dir.join(relative)
}

/// Writes each `path → text` of `files` under `dir` whose bytes on disk differ; returns the
/// relative paths written, sorted.
pub fn save_files(dir: &Path, files: &BTreeMap<String, String>) -> io::Result<Vec<String>> {
    remove_stale_temp_files(dir);
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = file_path(dir, relative);
        let unchanged = fs::read(&path)
            .map(|old| old == text.as_bytes())
            .unwrap_or(false);
        if !unchanged {
            atomic_write(&path, text.as_bytes())?;
            written.push(relative.clone());
        }
    }
    Ok(written)
}

/// Removes each file of `files` (relative path, text) whose bytes on disk are still that text;
/// a file that is gone already, or that changed since, is left as it is. Returns the paths
/// removed.
pub fn remove_unchanged_files(dir: &Path, files: &[(String, String)]) -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for (relative, text) in files {
        let path = file_path(dir, relative);
        let unchanged = fs::read(&path).is_ok_and(|bytes| bytes == text.as_bytes());
        if unchanged {
            fs::remove_file(&path)?;
            removed.push(relative.clone());
        }
    }
    Ok(removed)
}

/// Writes a new project's `files` into `dir` (created if missing), for `stagecraft new` and
/// File → New project. Refused, with nothing written: the file-system root and the home folder, a
/// folder that already holds a project, a file, a folder that holds anything else unless `merge`,
/// and — even with `merge` — a folder where a file of `files` exists already. Every file is
/// created new ([`save_new_files`]). Returns the relative paths written.
pub fn write_new_project(
    dir: &Path,
    files: &BTreeMap<String, String>,
    merge: bool,
) -> anyhow::Result<Vec<String>> {
    refuse_dangerous_root(dir)?;
    if fs::symlink_metadata(dir.join(MANIFEST_FILE)).is_ok() {
        anyhow::bail!(
            "{} already holds a project ({MANIFEST_FILE}); choose another folder",
            dir.display()
        );
    }
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("{} is a file, not a folder", dir.display());
    }
    if let Some(first) = first_entry(dir).filter(|_| !merge) {
        anyhow::bail!(
            "{} is not empty (it holds {first}); a new project goes into a new or empty folder \
             (`stagecraft new --merge` adds it beside other files, never overwriting one)",
            dir.display()
        );
    }
    let existing: Vec<&str> = files
        .keys()
        .filter(|relative| fs::symlink_metadata(dir.join(relative)).is_ok())
        .map(String::as_str)
        .collect();
    if !existing.is_empty() {
        anyhow::bail!(
            "{}: the new project would overwrite {}; an existing file is never overwritten, so \
             nothing was written",
            dir.display(),
            existing.join(", ")
        );
    }
    save_new_files(dir, files)
        .map_err(|error| anyhow::anyhow!("cannot write the project in {}: {error}", dir.display()))
}

/// The file-system root and the home folder never become a project folder.
fn refuse_dangerous_root(dir: &Path) -> anyhow::Result<()> {
    let Ok(real) = fs::canonicalize(dir) else {
        return Ok(());
    };
    let what = if real.parent().is_none() {
        "the file-system root"
    } else if std::env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok()) == Some(real) {
        "the home folder"
    } else {
        return Ok(());
    };
    anyhow::bail!(
        "{} is {what}; a project needs a folder of its own",
        dir.display()
    )
}

/// The name of some entry of `dir`, if it holds any (a folder that does not exist holds none).
fn first_entry(dir: &Path) -> Option<String> {
    match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().map(|entry| match entry {
            Ok(entry) => entry.file_name().to_string_lossy().into_owned(),
            Err(error) => format!("an entry it cannot list: {error}"),
        }),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => Some(format!("something it cannot list: {error}")),
    }
}

/// Writes each `path → text` of `files` under `dir` as a new file, never over an existing one:
/// the temp file is linked into place only while the name is free, so a file that appears
/// meanwhile is kept and the write fails naming it. Returns the relative paths written, sorted.
pub fn save_new_files(dir: &Path, files: &BTreeMap<String, String>) -> io::Result<Vec<String>> {
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = file_path(dir, relative);
        let folder = path.parent().unwrap_or(dir);
        fs::create_dir_all(folder)?;
        let mut temp = temp_builder(&prefix).tempfile_in(folder)?;
        temp.write_all(text.as_bytes())?;
        temp.as_file().sync_all()?;
        temp.persist_noclobber(&path).map_err(|error| {
            io::Error::new(
                error.error.kind(),
                format!("{}: {} (never overwritten)", path.display(), error.error),
            )
        })?;
        written.push(relative.clone());
    }
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(written)
}

/// Reads editor state (not project content) kept as RON at `relative` under the project folder
/// `dir`, such as the graph layout or the Timeline's bookmarks: the default when absent or
/// unreadable, since such state is a convenience and never blocks opening a project.
pub fn read_editor_state<T: serde::de::DeserializeOwned + Default>(
    dir: &Path,
    relative: &str,
) -> T {
    fs::read_to_string(dir.join(relative))
        .ok()
        .and_then(|text| ron::from_str(&text).ok())
        .unwrap_or_default()
}

/// Writes editor state as pretty RON at `relative` under `dir` (temp file, then rename).
pub fn write_editor_state<T: serde::Serialize>(
    dir: &Path,
    relative: &str,
    value: &T,
) -> io::Result<()> {
    let path = dir.join(relative);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let text = ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::default())
        .map_err(io::Error::other)?;
    let temp = path.with_extension("ron.tmp");
    fs::write(&temp, text)?;
    fs::rename(temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_save_leaves_old_file_untouched() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("stagecraft.ron");
        fs::write(&path, "old contents\n").expect("seed file");
        let result = atomic_write_with(&path, b"new contents\n", &mut |_| {
            Err(io::Error::other("injected failure: disk full"))
        });
        assert_eq!(
            result.map_err(|e| e.to_string()),
            Err("injected failure: disk full".to_owned())
        );
        assert_eq!(fs::read_to_string(&path).expect("read"), "old contents\n");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("stagecraft.ron")]);
    }

    #[test]
    fn successful_save_replaces_contents() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("recipes").join("a.recipe.ron");
        atomic_write(&path, b"first\n").expect("first save");
        atomic_write(&path, b"second\n").expect("second save");
        assert_eq!(fs::read_to_string(&path).expect("read"), "second\n");
    }
}
