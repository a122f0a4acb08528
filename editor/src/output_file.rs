//! The one rule for the files the editor and its commands write (`generate --out`, `simulate
//! --events`, a screenshot, the folder of `cook --out`): a new path or a regular file is written
//! atomically (temp file, sync, rename; a link is written through to its target), a pipe or
//! character device is written through as it is (never replaced by a file), and anything else —
//! a folder where a file is wanted, a block device, a socket — is refused with what it is.

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

use anyhow::Context as _;

use crate::project_io::{atomic_write, remove_stale_temp_in, write_target};

/// What a path is, in words, for messages ("a folder", "a FIFO", …).
pub fn kind_name(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
    }
    if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_dir() {
        "a folder"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

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
