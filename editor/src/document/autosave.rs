//! Autosave of unsaved edits to `<project>/.stagecraft/autosave/`, and the recovery offer on open.
//!
//! The autosave is one JSON file holding the canonical text of every document, keyed by its path
//! relative to the project folder (asset families outside the folder included), written with the
//! atomic writer. A save deletes it.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::project_io;

/// The autosave folder of a project, relative to the project folder.
pub const AUTOSAVE_DIR: &str = ".stagecraft/autosave";

const AUTOSAVE_FILE: &str = "session.json";

/// What an autosave holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Autosave {
    /// Canonical text of every document, by path relative to the project folder.
    pub files: BTreeMap<String, String>,
}

/// An autosave that is newer than the project's files and differs from them.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    /// The autosaved texts.
    pub autosave: Autosave,
    /// When the autosave was written.
    pub written: SystemTime,
    /// The files whose autosaved text differs from the document, sorted.
    pub changed: Vec<String>,
}

/// The autosave file of the project in `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(AUTOSAVE_DIR).join(AUTOSAVE_FILE)
}

/// Writes `files` as the project's autosave.
pub fn write(dir: &Path, files: &BTreeMap<String, String>) -> io::Result<()> {
    let autosave = Autosave {
        files: files.clone(),
    };
    let text = serde_json::to_string_pretty(&autosave).map_err(io::Error::other)?;
    project_io::atomic_write(&path(dir), text.as_bytes())
}

/// Deletes the project's autosave, if any (a failure only leaves a stale offer behind).
pub fn clear(dir: &Path) {
    let _ = std::fs::remove_file(path(dir));
}

/// Reads the project's autosave with its modification time, if there is a readable one.
pub fn read(dir: &Path) -> Option<(Autosave, SystemTime)> {
    let file = path(dir);
    let written = std::fs::metadata(&file).and_then(|m| m.modified()).ok()?;
    let text = std::fs::read_to_string(&file).ok()?;
    let autosave = serde_json::from_str(&text).ok()?;
    Some((autosave, written))
}

/// The recovery to offer when opening the project in `dir` whose documents' canonical texts are
/// `current`: an autosave newer than every project file that differs from `current`. Temp files
/// that killed autosaves left are removed first, once their process is gone.
pub fn recovery(dir: &Path, current: &BTreeMap<String, String>) -> Option<Recovery> {
    // What a killed autosave left beside the file.
    project_io::remove_stale_temp_in(&dir.join(AUTOSAVE_DIR));
    let (autosave, written) = read(dir)?;
    let newest_file = current
        .keys()
        .filter_map(|relative| std::fs::metadata(dir.join(relative)).ok())
        .filter_map(|meta| meta.modified().ok())
        .max();
    if newest_file.is_some_and(|newest| newest > written) {
        return None;
    }
    let changed: Vec<String> = autosave
        .files
        .iter()
        .filter(|(path, text)| current.get(*path) != Some(*text))
        .map(|(path, _)| path.clone())
        .collect();
    if changed.is_empty() {
        return None;
    }
    Some(Recovery {
        autosave,
        written,
        changed,
    })
}
