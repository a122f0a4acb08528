//! Reading a project folder into [`ProjectSources`]: the manifest, every document of the
//! document folders and the family files of the manifest's asset folders, each through the
//! bounded reader ([`crate::bounded_read`]), so a file that cannot be read becomes a located
//! diagnostic instead of an error, a hang or an unbounded allocation.
//!
//! The one reader of project documents: the editor (GUI and command line) and the Python module
//! call it, so they read the same files under the same keys — and so every digest they report
//! is the same.

use std::fs;
use std::io;
use std::path::Path;

use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;
use stagecraft_runtime::project::{
    asset_paths, load_project, LoadedProject, ProjectSources, Unreadable, MANIFEST_FILE,
};
use stagecraft_runtime::recipe::load_and_check;

use crate::bounded_read::{read_regular, Links, ReadProblem};
use crate::roots::{asset_folder_problem, DocumentRoots};
use crate::temp_files::{remove_stale_temp_files, remove_stale_temp_in};

/// The folders of a project that hold documents, with the suffix of their files (chunk
/// libraries are read with them: recipes name them by id).
pub const DOCUMENT_FOLDERS: [(&str, &str); 4] = [
    ("recipes", ".recipe.ron"),
    ("scenarios", ".scenario.ron"),
    ("overrides", ".overrides.ron"),
    ("chunks", ".chunks.ron"),
];

/// The suffix of asset family files.
pub const FAMILY_SUFFIX: &str = ".family.ron";
/// The suffix of motion profile files (in the same asset folders).
pub const MOTION_SUFFIX: &str = ".motion.ron";

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
        read_folder(dir, &asset_path, MOTION_SUFFIX, &roots, &mut sources);
    }
    Ok(sources)
}

/// The project folder must exist and be a folder; anything else is an error naming it.
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
    read_folder(dir, asset_path, MOTION_SUFFIX, &roots, &mut sources);
    sources
}

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

pub(crate) fn whole_file(message: String, expected: &str) -> Unreadable {
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

/// Reads and validates the project in `dir`.
pub fn load_dir(dir: &Path) -> io::Result<(ProjectSources, LoadedProject)> {
    let sources = read_sources(dir)?;
    let loaded = load_project(&sources);
    Ok((sources, loaded))
}

/// Reads the project in `dir` and checks it whole with `registry`'s operators (documents,
/// recipes and scenarios: what `stagecraft check` reports). Only a folder that cannot be opened
/// is an error.
pub fn open_project(
    dir: &Path,
    registry: &Registry,
) -> io::Result<(ProjectSources, LoadedProject)> {
    let sources = read_sources(dir)?;
    let loaded = load_and_check(&sources, registry);
    Ok((sources, loaded))
}
