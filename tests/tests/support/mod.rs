//! Shared helpers of the end-to-end tests: copying a fixture project into a temp folder.

use std::fs;
use std::path::Path;

/// Copies the folder tree `from` into `to` (which exists).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
