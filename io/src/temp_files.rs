//! The temp files an interrupted save leaves beside project documents
//! (`.stagecraft-save-PID-….tmp`): their naming, and their removal when the project is read
//! again.

use std::fs;
use std::path::Path;

use crate::sources::DOCUMENT_FOLDERS;

/// The name prefix of the temp files a save writes before renaming them into place; the writer's
/// process id and a `-` follow it (`.stagecraft-save-PID-XXXXXX.tmp`).
pub const TEMP_PREFIX: &str = ".stagecraft-save-";

/// The name suffix of those temp files.
pub const TEMP_SUFFIX: &str = ".tmp";

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
