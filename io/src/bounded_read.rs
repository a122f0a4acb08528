//! The one rule for reading a file out of a user's folder (a project, a cooked bundle, the cook
//! cache): only a regular file — never a pipe, socket or device, which could block forever or
//! never end — and at most a byte bound derived from a manifest or the format's limits, checked
//! before reading and enforced while reading, so no read hangs or grows without limit.
//!
//! Links are decided by the caller: project documents and bundle products follow them (the
//! bundle reader then checks where they lead), the cook cache refuses them (cook never writes
//! one there, so a link is foreign).

use std::fmt;
use std::fs;
use std::io::{self, Read as _};
use std::path::Path;

/// What to do with a symbolic link at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Follow it; its final target must be a regular file.
    Follow,
    /// Refuse it, whatever it leads to.
    Refuse,
}

/// Why a file was not read. The text names no path: the caller says which file it is.
#[derive(Debug)]
pub enum ReadProblem {
    /// Nothing exists at the path (and it is not a dangling link).
    Missing,
    /// A symbolic link that cannot be followed (dangling, a loop, permission).
    BrokenLink(io::Error),
    /// A symbolic link where [`Links::Refuse`] was asked.
    LinkRefused,
    /// A folder.
    Folder,
    /// A pipe, socket or device.
    Special,
    /// Larger than the bound.
    TooLarge {
        /// Its size in bytes (as far as it was read).
        size: u64,
        /// The bound.
        limit: u64,
    },
    /// The operating system refused to open or read it.
    Io(io::Error),
}

impl fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadProblem::Missing => write!(f, "does not exist"),
            ReadProblem::BrokenLink(error) => {
                write!(f, "is a symbolic link that cannot be followed: {error}")
            }
            ReadProblem::LinkRefused => write!(f, "is a symbolic link, which is not followed here"),
            ReadProblem::Folder => write!(f, "is a folder, not a file"),
            ReadProblem::Special => write!(f, "is not a regular file (a pipe, socket or device)"),
            ReadProblem::TooLarge { size, limit } => {
                write!(f, "is {size} bytes, over the limit of {limit} bytes")
            }
            ReadProblem::Io(error) => write!(f, "cannot be read: {error}"),
        }
    }
}

fn check_type(metadata: &fs::Metadata) -> Result<(), ReadProblem> {
    if metadata.is_dir() {
        Err(ReadProblem::Folder)
    } else if metadata.is_file() {
        Ok(())
    } else {
        Err(ReadProblem::Special)
    }
}

/// Reads the regular file at `path`, at most `limit` bytes: its type and size are checked
/// before it is opened (so a pipe is never opened and a device never read), checked again on
/// the open handle, and the read stops one byte past `limit` (so a file that grows while it is
/// read is still bounded).
pub fn read_regular(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, ReadProblem> {
    let metadata = match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Err(ReadProblem::Missing),
        Err(error) => return Err(ReadProblem::Io(error)),
        Ok(metadata) if metadata.file_type().is_symlink() => match links {
            Links::Refuse => return Err(ReadProblem::LinkRefused),
            Links::Follow => fs::metadata(path).map_err(ReadProblem::BrokenLink)?,
        },
        Ok(metadata) => metadata,
    };
    check_type(&metadata)?;
    if metadata.len() > limit {
        return Err(ReadProblem::TooLarge {
            size: metadata.len(),
            limit,
        });
    }
    let file = fs::File::open(path).map_err(ReadProblem::Io)?;
    // The file opened is the file checked, even if the path changed in between.
    let opened = file.metadata().map_err(ReadProblem::Io)?;
    check_type(&opened)?;
    let mut bytes = Vec::with_capacity(opened.len().min(limit) as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadProblem::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadProblem::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_within_their_bound_and_nothing_else_is() {
        let dir = tempfile::tempdir().expect("temp");
        let file = dir.path().join("a.bin");
        fs::write(&file, b"12345").expect("write");
        assert_eq!(
            read_regular(&file, 5, Links::Refuse).expect("reads"),
            b"12345"
        );
        let too_large = read_regular(&file, 4, Links::Follow).unwrap_err();
        assert_eq!(
            too_large.to_string(),
            "is 5 bytes, over the limit of 4 bytes"
        );
        let missing = read_regular(&dir.path().join("none"), 4, Links::Follow).unwrap_err();
        assert!(matches!(missing, ReadProblem::Missing), "{missing}");
        assert!(matches!(
            read_regular(dir.path(), 4, Links::Follow).unwrap_err(),
            ReadProblem::Folder
        ));
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&file, &link).expect("link");
            assert_eq!(
                read_regular(&link, 5, Links::Follow).expect("followed"),
                b"12345"
            );
            assert!(matches!(
                read_regular(&link, 5, Links::Refuse).unwrap_err(),
                ReadProblem::LinkRefused
            ));
            let zero = dir.path().join("zero");
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
            assert!(matches!(
                read_regular(&zero, 5, Links::Follow).unwrap_err(),
                ReadProblem::Special
            ));
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo");
            assert!(made.success());
            // Never opened, so this returns instead of waiting for a writer.
            assert_eq!(
                read_regular(&fifo, 5, Links::Follow)
                    .unwrap_err()
                    .to_string(),
                "is not a regular file (a pipe, socket or device)"
            );
        }
    }
}
