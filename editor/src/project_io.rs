//! The file-system edge of project documents: read a project folder, write files atomically.
//!
//! The runtime never touches the disk; this module turns a folder into
//! [`ProjectSources`] and writes canonical texts back with a temp-file, fsync, rename sequence,
//! so a failed save leaves the old file as it was.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::bounded_read::{read_regular, Links, ReadProblem};
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;
use stagecraft_runtime::project::{
    asset_paths, load_project, AssetPathProblem, LoadedProject, ProjectSources, Unreadable,
    MANIFEST_FILE,
};

/// The folders of a project that hold documents, with the suffix of their files.
pub const DOCUMENT_FOLDERS: [(&str, &str); 3] = [
    ("recipes", ".recipe.ron"),
    ("scenarios", ".scenario.ron"),
    ("overrides", ".overrides.ron"),
];

/// The suffix of asset family files.
pub const FAMILY_SUFFIX: &str = ".family.ron";

/// The name prefix of the temp files a save writes before renaming them into place.
pub const TEMP_PREFIX: &str = ".stagecraft-save-";

/// The name suffix of those temp files.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Reads every document file of the project in `dir`, plus the asset families its manifest names.
///
/// Only a project folder that cannot be opened at all is an error (naming the folder and the
/// operating system's reason). A file that is found but cannot be read as text — not UTF-8, a
/// folder, a pipe or device, a dangling link or a link loop, over the size limit, permission
/// denied — is recorded in [`ProjectSources::unreadable`] with its path and reason, so it becomes a
/// located diagnostic like any file that does not parse. An asset path that leads into a special
/// file system is not read, and one that leaves the repository holding the project is read with a
/// warning; both are recorded in [`ProjectSources::asset_path_problems`].
pub fn read_sources(dir: &Path) -> io::Result<ProjectSources> {
    check_project_folder(dir)?;
    remove_stale_temp_files(dir);
    let mut sources = ProjectSources::default();
    read_file_into(dir, MANIFEST_FILE, &mut sources);
    for (folder, suffix) in DOCUMENT_FOLDERS {
        read_folder(dir, folder, suffix, &mut sources);
    }
    let manifest_text = sources
        .files
        .get(MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    for asset_path in asset_paths(&manifest_text) {
        let problem = asset_folder_problem(dir, &asset_path);
        if !problem.as_ref().is_some_and(|p| p.refused) {
            read_folder(dir, &asset_path, FAMILY_SUFFIX, &mut sources);
        }
        if let Some(problem) = problem {
            sources.asset_path_problems.insert(asset_path, problem);
        }
    }
    Ok(sources)
}

/// The project folder must exist and be a folder; anything else is an error naming it.
fn check_project_folder(dir: &Path) -> io::Result<()> {
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a file, not a project folder", dir.display()),
        )),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the project folder {} does not exist", dir.display()),
        )),
        Err(error) => Err(io::Error::new(
            error.kind(),
            format!("cannot open the project folder {}: {error}", dir.display()),
        )),
    }
}

/// Reads the file `relative` of the project into `sources.files`, or records why it cannot be
/// read in `sources.unreadable`. A file that does not exist (and is not a link) is simply absent.
fn read_file_into(dir: &Path, relative: &str, sources: &mut ProjectSources) {
    let path = dir.join(relative);
    match read_project_file(&path) {
        Ok(Some(text)) => {
            sources.files.insert(relative.to_owned(), text);
        }
        Ok(None) => {}
        Err(problem) => {
            sources.unreadable.insert(relative.to_owned(), problem);
        }
    }
}

fn whole_file(message: String, expected: &str) -> Unreadable {
    Unreadable {
        line: 1,
        column: 1,
        message,
        expected: expected.to_owned(),
    }
}

/// Reads one project file as text through [`read_regular`]: only regular files (links are
/// followed), at most the size limit. `Ok(None)` when nothing exists at `path`.
pub fn read_project_file(path: &Path) -> Result<Option<String>, Unreadable> {
    let shown = path.display();
    let expected = "a readable UTF-8 text file";
    let bytes = match read_regular(path, MAX_SOURCE_BYTES as u64, Links::Follow) {
        Ok(bytes) => bytes,
        Err(ReadProblem::Missing) => return Ok(None),
        Err(ReadProblem::TooLarge { size, .. }) => return Err(oversized(size)),
        Err(problem @ ReadProblem::BrokenLink(_)) => {
            return Err(whole_file(
                format!("{shown} {problem}"),
                "a link to an existing file",
            ))
        }
        Err(problem) => return Err(whole_file(format!("{shown} {problem}"), expected)),
    };
    String::from_utf8(bytes).map(Some).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        not_utf8(valid, error.as_bytes()[valid.len()])
    })
}

fn oversized(len: u64) -> Unreadable {
    whole_file(
        format!("file is {len} bytes, over the limit of {MAX_SOURCE_BYTES} bytes (1 MiB)"),
        "a source file of at most 1 MiB",
    )
}

/// The position of the first byte that is not UTF-8, after the valid prefix `valid`.
fn not_utf8(valid: &[u8], byte: u8) -> Unreadable {
    // `valid` is valid UTF-8 by construction; the fallback only keeps this total.
    let prefix = std::str::from_utf8(valid).unwrap_or_default();
    let line = prefix.matches('\n').count() + 1;
    let line_start = prefix.rfind('\n').map_or(0, |at| at + 1);
    let column = prefix[line_start..].chars().count() + 1;
    Unreadable {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        message: format!("the file is not UTF-8 text: byte 0x{byte:02X} is not valid UTF-8"),
        expected: "UTF-8 text (save the file with UTF-8 encoding)".to_owned(),
    }
}

/// Adds every `*suffix` file of `dir/folder` under the key `folder/name`. A missing folder is
/// empty; a folder that cannot be listed, or an entry that cannot be read, is recorded as
/// unreadable with its reason.
fn read_folder(dir: &Path, folder: &str, suffix: &str, sources: &mut ProjectSources) {
    let folder_key = folder.trim_end_matches('/');
    let folder_path = dir.join(folder);
    let entries = match fs::read_dir(&folder_path) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return,
        Err(error) => {
            let message = if folder_path.is_file() {
                format!("{} is a file, not a folder", folder_path.display())
            } else {
                format!("cannot list {}: {error}", folder_path.display())
            };
            let problem = whole_file(message, "a folder of project files");
            sources.unreadable.insert(folder_key.to_owned(), problem);
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let message = format!("cannot list {}: {error}", folder_path.display());
                let problem = whole_file(message, "a folder of project files");
                sources.unreadable.insert(folder_key.to_owned(), problem);
                return;
            }
        };
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            let lossy = name.to_string_lossy().into_owned();
            if lossy.ends_with(suffix) {
                let message = format!("the file name {lossy:?} is not UTF-8");
                let problem = whole_file(message, "a file name in UTF-8");
                sources
                    .unreadable
                    .insert(format!("{folder_key}/{lossy}"), problem);
            }
            continue;
        };
        if name.ends_with(suffix) {
            read_file_into(dir, &format!("{folder_key}/{name}"), sources);
        }
    }
}

/// What is wrong with where the asset folder `asset_path` leads, if anything: into a special
/// file system (refused: never read), or out of the repository that holds the project (the
/// nearest folder above it with a `.git`, or the project folder when there is none; read, with a
/// warning). Absolute paths are refused by validation.
fn asset_folder_problem(dir: &Path, asset_path: &str) -> Option<AssetPathProblem> {
    let refuse = |reason: String| {
        Some(AssetPathProblem {
            refused: true,
            reason,
        })
    };
    if Path::new(asset_path).is_absolute() {
        return refuse("asset paths are relative to the project folder".to_owned());
    }
    // A folder that does not exist yet is not read and not a risk.
    let resolved = fs::canonicalize(dir.join(asset_path)).ok()?;
    for special in ["/proc", "/sys", "/dev"] {
        if resolved.starts_with(special) {
            return refuse(format!(
                "it leads into the special file system {special} ({})",
                resolved.display()
            ));
        }
    }
    let project = fs::canonicalize(dir).ok()?;
    if resolved.starts_with(&project) {
        return None;
    }
    let reason = match repository_root(&project) {
        Some(root) if resolved.starts_with(&root) => return None,
        Some(root) => format!(
            "it leads to {}, outside the repository {} that holds the project",
            resolved.display(),
            root.display()
        ),
        None => format!(
            "it leads to {}, outside the project folder, which is in no repository",
            resolved.display()
        ),
    };
    Some(AssetPathProblem {
        refused: false,
        reason,
    })
}

/// The nearest folder at or above `dir` that holds a `.git` entry.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|folder| folder.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Temp files of the editor's own naming older than this belong to no live writer (a save holds
/// its temp file for milliseconds), so they are debris of an interrupted save.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the `.stagecraft-save-*.tmp` files older than [`STALE_TEMP_AGE`] that interrupted
/// saves left in the project folder and its document folders. Returns how many were removed.
pub fn remove_stale_temp_files(dir: &Path) -> usize {
    let mut folders = vec![dir.to_path_buf()];
    folders.extend(DOCUMENT_FOLDERS.iter().map(|(folder, _)| dir.join(folder)));
    folders
        .iter()
        .map(|folder| remove_stale_temp_in(folder))
        .sum()
}

fn remove_stale_temp_in(folder: &Path) -> usize {
    let Ok(entries) = fs::read_dir(folder) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let age = metadata
            .modified()
            .ok()
            .and_then(|modified| now.duration_since(modified).ok());
        if metadata.is_file()
            && age.is_some_and(|age| age >= STALE_TEMP_AGE)
            && fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
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
/// If anything fails, `path` keeps its old content and the temp file is removed. A symbolic link
/// is written through: its target gets the new bytes and the link stays a link. An existing file
/// keeps its permissions; a new file gets the ones the process's umask gives.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_with(path, bytes, &mut |_| Ok(()))
}

/// Where a write to `path` lands: the final target of a symbolic link (relative links resolve
/// against the link's folder), or `path` itself.
pub fn write_target(path: &Path) -> io::Result<PathBuf> {
    let mut target = path.to_path_buf();
    // A bounded walk: a link loop is an error, not a hang.
    for _ in 0..40 {
        match fs::symlink_metadata(&target) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = fs::read_link(&target)?;
                target = match target.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(target),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is a loop of symbolic links", path.display()),
    ))
}

/// [`atomic_write`] with a hook that runs after the temp file is written and synced and before
/// the rename; an error from the hook aborts the save like a failed write would.
pub fn atomic_write_with(
    path: &Path,
    bytes: &[u8],
    before_rename: BeforeRename<'_>,
) -> io::Result<()> {
    let path = &write_target(path)?;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let existing_permissions = fs::metadata(path).ok().map(|m| m.permissions());
    let mut temp = temp_builder().tempfile_in(folder)?;
    if let Some(permissions) = existing_permissions {
        // Set on the open file, which the umask does not touch.
        temp.as_file().set_permissions(permissions)?;
    }
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

/// Temp files named for [`remove_stale_temp_files`], created with the mode a new file gets under
/// the process's umask (tempfile's own default is owner-only).
fn temp_builder() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder
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
