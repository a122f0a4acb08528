//! Where a project's documents may really live, links followed: the repository holding the
//! project and the asset folders its manifest lists ([`DocumentRoots`]); what is wrong with an
//! asset folder's location ([`asset_folder_problem`]).

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_runtime::project::{AssetPathProblem, Unreadable};

use crate::sources::whole_file;

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
    /// Anything that is not a regular file is left to [`crate::sources::read_project_file`], which refuses it
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

/// What is wrong with where the asset folder `asset_path` leads, if anything: into a special
/// file system (refused: never read), or out of the repository that holds the project (the
/// nearest folder above it with a `.git`, or the project folder when there is none; read, with a
/// warning). Absolute paths are refused by validation.
pub(crate) fn asset_folder_problem(dir: &Path, asset_path: &str) -> Option<AssetPathProblem> {
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
