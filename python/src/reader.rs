//! Reading a project folder into [`ProjectSources`]: the manifest, every document of the
//! document folders and the family files of the manifest's asset folders.
//!
//! The runtime does no IO, so this crate reads the files itself. It is a small copy of the
//! editor's `project_io::read_sources` (the editor crate drags GUI crates in): the same file
//! set and keys, so the texts — and so every digest — are the ones `stagecraft` reads. A file
//! that exists but cannot be read as text (not UTF-8, over 1 MiB, not a regular file,
//! permission denied) becomes an [`Unreadable`] entry, a located diagnostic like any parse error.
//! What this reader leaves out: the editor's refusal of links that lead outside the repository,
//! its asset-path warnings and its clean-up of interrupted saves' temp files.

use std::fs;
use std::io;
use std::path::Path;

use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;
use stagecraft_runtime::project::{asset_paths, ProjectSources, Unreadable, MANIFEST_FILE};

/// The folders of a project that hold documents, with the suffix of their files.
const DOCUMENT_FOLDERS: [(&str, &str); 3] = [
    ("recipes", ".recipe.ron"),
    ("scenarios", ".scenario.ron"),
    ("overrides", ".overrides.ron"),
];

/// The suffix of asset family files.
const FAMILY_SUFFIX: &str = ".family.ron";

/// Reads the project in `dir`. Only a folder that cannot be opened at all is an error.
pub fn read_sources(dir: &Path) -> io::Result<ProjectSources> {
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is a file, not a project folder", dir.display()),
            ))
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("the project folder {} does not exist", dir.display()),
            ))
        }
        Err(error) => {
            return Err(io::Error::new(
                error.kind(),
                format!("cannot open the project folder {}: {error}", dir.display()),
            ))
        }
    }
    let mut sources = ProjectSources::default();
    read_file_into(dir, MANIFEST_FILE, &mut sources);
    let manifest = sources
        .files
        .get(MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    for (folder, suffix) in DOCUMENT_FOLDERS {
        read_folder(dir, folder, suffix, &mut sources);
    }
    for asset_path in asset_paths(&manifest) {
        read_folder(dir, &asset_path, FAMILY_SUFFIX, &mut sources);
    }
    Ok(sources)
}

fn whole_file(message: String, expected: &str) -> Unreadable {
    Unreadable {
        line: 1,
        column: 1,
        message,
        expected: expected.to_owned(),
    }
}

/// Reads `dir/relative` into `sources.files`, or records why it cannot be read; a file that
/// does not exist is simply absent.
fn read_file_into(dir: &Path, relative: &str, sources: &mut ProjectSources) {
    let path = dir.join(relative);
    match read_text(&path) {
        Ok(Some(text)) => {
            sources.files.insert(relative.to_owned(), text);
        }
        Ok(None) => {}
        Err(problem) => {
            sources.unreadable.insert(relative.to_owned(), problem);
        }
    }
}

/// One project file as text: a regular file (links followed) of at most the size limit.
fn read_text(path: &Path) -> Result<Option<String>, Unreadable> {
    let shown = path.display();
    let expected = "a readable UTF-8 text file";
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return match fs::symlink_metadata(path) {
                Ok(_) => Err(whole_file(
                    format!("{shown} is a link to nothing"),
                    "a link to an existing file",
                )),
                Err(_) => Ok(None),
            };
        }
        Err(error) => return Err(whole_file(format!("{shown}: {error}"), expected)),
    };
    if !metadata.is_file() {
        return Err(whole_file(
            format!("{shown} is not a regular file"),
            expected,
        ));
    }
    if metadata.len() > MAX_SOURCE_BYTES as u64 {
        return Err(whole_file(
            format!(
                "file is {} bytes, over the limit of {MAX_SOURCE_BYTES} bytes (1 MiB)",
                metadata.len()
            ),
            "a source file of at most 1 MiB",
        ));
    }
    let bytes =
        fs::read(path).map_err(|error| whole_file(format!("{shown}: {error}"), expected))?;
    String::from_utf8(bytes).map(Some).map_err(|error| {
        let valid_up_to = error.utf8_error().valid_up_to();
        let bytes = error.as_bytes();
        not_utf8(&bytes[..valid_up_to], bytes[valid_up_to])
    })
}

/// The position of the first byte that is not UTF-8, after the valid prefix `valid`.
fn not_utf8(valid: &[u8], byte: u8) -> Unreadable {
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

/// Adds every `*suffix` file of `dir/folder` under the key `folder/name`; a missing folder is
/// empty, one that cannot be listed is recorded as unreadable.
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
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            let lossy = name.to_string_lossy().into_owned();
            if lossy.ends_with(suffix) {
                let problem = whole_file(
                    format!("the file name {lossy:?} is not UTF-8"),
                    "a file name in UTF-8",
                );
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
