//! The file-system edge of project documents: read a project folder, write files atomically.
//!
//! The runtime never touches the disk; this module turns a folder into
//! [`ProjectSources`] and writes canonical texts back with a temp-file, fsync, rename sequence,
//! so a failed save leaves the old file as it was.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use stagecraft_runtime::project::{
    asset_paths, load_project, LoadedProject, ProjectSources, MANIFEST_FILE,
};

/// The folders of a project that hold documents, with the suffix of their files.
pub const DOCUMENT_FOLDERS: [(&str, &str); 3] = [
    ("recipes", ".recipe.ron"),
    ("scenarios", ".scenario.ron"),
    ("overrides", ".overrides.ron"),
];

/// The suffix of asset family files.
pub const FAMILY_SUFFIX: &str = ".family.ron";

/// Reads every document file of the project in `dir`, plus the asset families its manifest names.
pub fn read_sources(dir: &Path) -> io::Result<ProjectSources> {
    let mut sources = ProjectSources::default();
    let manifest_path = dir.join(MANIFEST_FILE);
    if manifest_path.exists() {
        sources
            .files
            .insert(MANIFEST_FILE.to_owned(), read_text(&manifest_path)?);
    }
    for (folder, suffix) in DOCUMENT_FOLDERS {
        read_folder(dir, folder, suffix, &mut sources)?;
    }
    let manifest_text = sources
        .files
        .get(MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    for asset_path in asset_paths(&manifest_text) {
        read_folder(dir, &asset_path, FAMILY_SUFFIX, &mut sources)?;
    }
    Ok(sources)
}

fn read_text(path: &Path) -> io::Result<String> {
    let bytes = fs::read(path)?;
    String::from_utf8(bytes).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text: {error}", path.display()),
        )
    })
}

/// Adds every `*suffix` file of `dir/folder` under the key `folder/name`. A missing folder is empty.
fn read_folder(
    dir: &Path,
    folder: &str,
    suffix: &str,
    sources: &mut ProjectSources,
) -> io::Result<()> {
    let folder_path = dir.join(folder);
    let entries = match fs::read_dir(&folder_path) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(suffix) && entry.file_type()?.is_file() {
            let key = format!("{}/{name}", folder.trim_end_matches('/'));
            sources.files.insert(key, read_text(&entry.path())?);
        }
    }
    Ok(())
}

/// Reads and validates the project in `dir`.
pub fn load_dir(dir: &Path) -> io::Result<(ProjectSources, LoadedProject)> {
    let sources = read_sources(dir)?;
    let loaded = load_project(&sources);
    Ok((sources, loaded))
}

/// Where a file of the project lives on disk.
pub fn file_path(dir: &Path, relative: &str) -> PathBuf {
    dir.join(relative)
}

/// A hook between writing the temporary file and renaming it, for tests that inject failures.
pub type BeforeRename<'a> = &'a mut dyn FnMut(&Path) -> io::Result<()>;

/// Writes `bytes` to `path` atomically: a temp file in the same folder, fsync, rename over `path`.
///
/// If anything fails, `path` keeps its old content and the temp file is removed.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_with(path, bytes, &mut |_| Ok(()))
}

/// [`atomic_write`] with a hook that runs after the temp file is written and synced and before
/// the rename; an error from the hook aborts the save like a failed write would.
pub fn atomic_write_with(
    path: &Path,
    bytes: &[u8],
    before_rename: BeforeRename<'_>,
) -> io::Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".stagecraft-save-")
        .suffix(".tmp")
        .tempfile_in(folder)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    before_rename(temp.path())?;
    temp.persist(path).map_err(|error| error.error)?;
    // Sync the folder so the rename itself survives a crash.
    if let Ok(handle) = fs::File::open(folder) {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// Writes each `path → text` of `files` under `dir` whose bytes on disk differ; returns the
/// relative paths written, sorted.
pub fn save_files(dir: &Path, files: &BTreeMap<String, String>) -> io::Result<Vec<String>> {
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
