//! The one rule for the files the editor and its commands write (`generate --out`, `simulate
//! --events`, a screenshot, the folder of `cook --out`): a new path or a regular file is written
//! atomically (temp file, sync, rename; a link is written through to its target), a pipe or
//! character device is written through as it is (never replaced by a file), and anything else —
//! a folder where a file is wanted, a block device, a socket — is refused with what it is.
//! A file written in pieces (`simulate --trajectories`) follows the same rule through
//! [`StagedOutputFile`].

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

use anyhow::Context as _;

use crate::project_io::{atomic_write, remove_stale_temp_in, write_target};

pub use stagecraft_io::file_kind::kind_name;

/// How an output file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFile {
    /// A new path or a regular file (through links): written atomically.
    Replace,
    /// A pipe or character device: opened and written through, never replaced.
    WriteThrough,
}

/// How `path` may be written as an output file, or why it may not (naming it and what it is).
pub fn output_file_kind(path: &Path) -> anyhow::Result<OutputFile> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        // A new path, or a link to one (the link's target is created).
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(OutputFile::Replace),
        Err(error) => {
            return Err(error).with_context(|| format!("cannot inspect {}", path.display()))
        }
    };
    let file_type = metadata.file_type();
    if file_type.is_file() {
        return Ok(OutputFile::Replace);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() || file_type.is_char_device() {
            return Ok(OutputFile::WriteThrough);
        }
    }
    anyhow::bail!(
        "{} is {}; an output is written only to a new path, a regular file, a pipe or a \
         character device",
        path.display(),
        kind_name(file_type)
    )
}

/// Writes `bytes` to the output file `path` by the rule of this module. Before an atomic write,
/// the temp files that killed writers left beside the target are removed.
pub fn write_output_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    match output_file_kind(path)? {
        OutputFile::Replace => {
            let target =
                write_target(path).with_context(|| format!("cannot write {}", path.display()))?;
            let folder = target.parent().filter(|p| !p.as_os_str().is_empty());
            remove_stale_temp_in(folder.unwrap_or(Path::new(".")));
            atomic_write(path, bytes)
        }
        OutputFile::WriteThrough => fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut file| file.write_all(bytes)),
    }
    .with_context(|| format!("cannot write {}", path.display()))
}

/// An output file written in pieces (a trajectory database, a streamed table), by the rule of
/// this module: staged in a temp file beside the target (or, for a pipe or character device,
/// in the system's temp folder), then renamed over the target atomically or copied into the
/// pipe by [`StagedOutputFile::commit`]. Dropped without a commit, the temp file is removed and
/// the target is untouched.
#[derive(Debug)]
pub struct StagedOutputFile {
    target: std::path::PathBuf,
    kind: OutputFile,
    temp: tempfile::NamedTempFile,
}

impl StagedOutputFile {
    /// Stages the output file `path`, or says why it may not be written (before any work).
    pub fn create(path: &Path) -> anyhow::Result<StagedOutputFile> {
        let kind = output_file_kind(path)?;
        let prefix = format!("{}{}-", crate::project_io::TEMP_PREFIX, std::process::id());
        let builder = crate::project_io::temp_builder(&prefix);
        let temp = match kind {
            OutputFile::Replace => {
                let target = write_target(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                let folder = target
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                remove_stale_temp_in(folder);
                let temp = builder.tempfile_in(folder);
                if let (Ok(temp), Ok(metadata)) = (&temp, fs::metadata(&target)) {
                    // Set on the open file, which the umask does not touch.
                    let _ = temp.as_file().set_permissions(metadata.permissions());
                }
                temp
            }
            OutputFile::WriteThrough => builder.tempfile(),
        }
        .with_context(|| format!("cannot stage {}", path.display()))?;
        Ok(StagedOutputFile {
            target: path.to_path_buf(),
            kind,
            temp,
        })
    }

    /// The temp file to write (by path, for a writer that opens files itself).
    pub fn path(&self) -> &Path {
        self.temp.path()
    }

    /// The temp file, open for writing.
    pub fn file(&self) -> &fs::File {
        self.temp.as_file()
    }

    /// Puts the staged bytes in place: synced and renamed over the target, or copied into the
    /// pipe or device it is.
    pub fn commit(self) -> anyhow::Result<()> {
        let target = self.target;
        match self.kind {
            OutputFile::Replace => (|| {
                self.temp.as_file().sync_all()?;
                let path = write_target(&target)?;
                self.temp.persist(&path).map_err(|error| error.error)?;
                let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
                // Sync the folder so the rename itself survives a crash.
                if let Ok(handle) = fs::File::open(folder.unwrap_or(Path::new("."))) {
                    let _ = handle.sync_all();
                }
                Ok(())
            })(),
            OutputFile::WriteThrough => (|| -> io::Result<()> {
                let mut staged = fs::File::open(self.temp.path())?;
                let mut out = fs::OpenOptions::new().write(true).open(&target)?;
                io::copy(&mut staged, &mut out)?;
                out.flush()
            })(),
        }
        .with_context(|| format!("cannot write {}", target.display()))
    }
}
