//! What a path is, in words, for messages ("a folder", "a FIFO", …).

use std::fs;

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
