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

/// The name prefix of the temp files a save writes before renaming them into place; the writer's
/// process id and a `-` follow it (`.stagecraft-save-PID-XXXXXX.tmp`).
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
/// warning; both are recorded in [`ProjectSources::asset_path_problems`]. A document whose real
/// location (links followed) is outside the project's repository and those asset folders is
/// recorded as unreadable and never read ([`DocumentRoots`]).
pub fn read_sources(dir: &Path) -> io::Result<ProjectSources> {
    check_project_folder(dir)?;
    remove_stale_temp_files(dir);
    let mut sources = ProjectSources::default();
    let mut roots = DocumentRoots::of_project(dir);
    read_file_into(dir, MANIFEST_FILE, &roots, &mut sources);
    let manifest_text = sources
        .files
        .get(MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    let mut asset_folders = Vec::new();
    for asset_path in asset_paths(&manifest_text) {
        let problem = asset_folder_problem(dir, &asset_path);
        if !problem.as_ref().is_some_and(|p| p.refused) {
            // Family files are documents too: clean what interrupted saves left beside them.
            remove_stale_temp_in(&dir.join(&asset_path));
            roots.allow_folder(&dir.join(&asset_path));
            asset_folders.push(asset_path.clone());
        }
        if let Some(problem) = problem {
            sources.asset_path_problems.insert(asset_path, problem);
        }
    }
    for (folder, suffix) in DOCUMENT_FOLDERS {
        read_folder(dir, folder, suffix, &roots, &mut sources);
    }
    for asset_path in asset_folders {
        read_folder(dir, &asset_path, FAMILY_SUFFIX, &roots, &mut sources);
    }
    Ok(sources)
}

/// The family files in asset folder `asset_path` of the project in `dir`, read as
/// [`read_sources`] reads them (a refused folder gives nothing; unreadable files are recorded),
/// for an asset path added in the editor before the manifest naming it is saved.
pub fn read_asset_folder(dir: &Path, asset_path: &str) -> ProjectSources {
    let mut sources = ProjectSources::default();
    if asset_folder_problem(dir, asset_path).is_some_and(|p| p.refused) {
        return sources;
    }
    let mut roots = DocumentRoots::of_project(dir);
    roots.allow_folder(&dir.join(asset_path));
    read_folder(dir, asset_path, FAMILY_SUFFIX, &roots, &mut sources);
    sources
}

/// Where the documents of a project may really live, links followed: the repository that holds
/// the project (the project folder when it is in none) and the asset folders the manifest lists.
/// Listing a folder in `asset_paths` is how a user allows files outside the repository (read with
/// a warning on the asset path); a document that leads anywhere else — a link to `/etc/passwd`, to
/// another user's file — is refused and never read, so no diagnostic ever shows its content.
pub struct DocumentRoots {
    roots: Vec<PathBuf>,
}

impl DocumentRoots {
    /// The repository holding the project in `dir` (or `dir` itself).
    pub fn of_project(dir: &Path) -> DocumentRoots {
        let project = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let root = repository_root(&project).unwrap_or(project);
        DocumentRoots { roots: vec![root] }
    }

    /// Also allows the real location of `folder` (an asset folder the manifest lists).
    pub fn allow_folder(&mut self, folder: &Path) {
        if let Ok(real) = fs::canonicalize(folder) {
            self.roots.push(real);
        }
    }

    /// Why the regular file at `path` is not read, when its real location is outside every root.
    /// Anything that is not a regular file is left to [`read_project_file`], which refuses it
    /// without reading it.
    pub fn outside(&self, path: &Path) -> Option<Unreadable> {
        if !fs::metadata(path).is_ok_and(|metadata| metadata.is_file()) {
            return None;
        }
        let real = fs::canonicalize(path).ok()?;
        if self.roots.iter().any(|root| real.starts_with(root)) {
            return None;
        }
        let root = self
            .roots
            .first()
            .map_or(String::new(), |root| format!(" ({})", root.display()));
        Some(whole_file(
            format!(
                "{} leads to {}, outside the project's folder or repository{root} and its asset folders, so it is not read",
                path.display(),
                real.display()
            ),
            "a document inside the project or its repository, or in a folder the manifest lists in `asset_paths`",
        ))
    }
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
/// read in `sources.unreadable` (a document leading outside `roots` among them). A file that does
/// not exist (and is not a link) is simply absent.
fn read_file_into(dir: &Path, relative: &str, roots: &DocumentRoots, sources: &mut ProjectSources) {
    let path = dir.join(relative);
    if let Some(problem) = roots.outside(&path) {
        sources.unreadable.insert(relative.to_owned(), problem);
        return;
    }
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
fn read_folder(
    dir: &Path,
    folder: &str,
    suffix: &str,
    roots: &DocumentRoots,
    sources: &mut ProjectSources,
) {
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
            read_file_into(dir, &format!("{folder_key}/{name}"), roots, sources);
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

/// Removes the `.stagecraft-save-*.tmp` files that interrupted saves left in the project folder
/// and its document folders: those whose writer's process is gone (the id in the name), and those
/// older than [`STALE_TEMP_AGE`]. Returns how many were removed.
pub fn remove_stale_temp_files(dir: &Path) -> usize {
    let mut folders = vec![dir.to_path_buf()];
    folders.extend(DOCUMENT_FOLDERS.iter().map(|(folder, _)| dir.join(folder)));
    folders
        .iter()
        .map(|folder| remove_stale_temp_in(folder))
        .sum()
}

/// [`remove_stale_temp_files`] for one folder (the folder of an output file, an asset folder).
pub fn remove_stale_temp_in(folder: &Path) -> usize {
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
        let abandoned = crate::leftovers::left_by_gone_process(name, TEMP_PREFIX, Some('-'))
            || age.is_some_and(|age| age >= STALE_TEMP_AGE);
        if metadata.is_file() && abandoned && fs::remove_file(entry.path()).is_ok() {
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
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut temp = temp_builder(&prefix).tempfile_in(folder)?;
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

/// Temp files named for [`remove_stale_temp_files`] (`prefix` carries the process id), created
/// with the mode a new file gets under the process's umask (tempfile's own default is owner-only).
pub(crate) fn temp_builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(TEMP_SUFFIX);
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
