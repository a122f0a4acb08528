//! Writing a file atomically: a temp file in the same folder (named for
//! [`crate::temp_files::remove_stale_temp_files`]), fsync, rename over the path. Shared by the
//! editor's saves, the command line's output files and the cook cache's key records.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::temp_files::{TEMP_PREFIX, TEMP_SUFFIX};

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

/// [`atomic_write`] without fsync: a temp file renamed over `path`, so `path` is the old bytes or
/// the new ones whatever happens to the process, but a crash of the machine may lose the write
/// (for files whose reader verifies them, like the cook cache's key records).
pub fn atomic_write_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (path, _folder, mut temp) = temp_beside(path)?;
    temp.write_all(bytes)?;
    temp.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Where a write to `path` lands ([`write_target`]), its folder (created), and a new temp file
/// in that folder to rename over it.
fn temp_beside(path: &Path) -> io::Result<(PathBuf, PathBuf, tempfile::NamedTempFile)> {
    let path = write_target(path)?;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    fs::create_dir_all(&folder)?;
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let temp = temp_builder(&prefix).tempfile_in(&folder)?;
    Ok((path, folder, temp))
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
    let (path, folder, mut temp) = temp_beside(path)?;
    let existing_permissions = fs::metadata(&path).ok().map(|m| m.permissions());
    if let Some(permissions) = existing_permissions {
        // Set on the open file, which the umask does not touch.
        temp.as_file().set_permissions(permissions)?;
    }
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    before_rename(temp.path())?;
    temp.persist(&path).map_err(|error| error.error)?;
    // Sync the folder so the rename itself survives a crash.
    if let Ok(handle) = fs::File::open(&folder) {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// Temp files named for [`remove_stale_temp_files`] (`prefix` carries the process id), created
/// with the mode a new file gets under the process's umask (tempfile's own default is owner-only).
pub fn temp_builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder
}
