//! Leftovers of interrupted writes: the temp files and folders a writer names with its process
//! id (`.DIR.staging-PID`, `.DIR.old-PID`, `cache/staging/KEY-PID-N`,
//! `.stagecraft-save-PID-….tmp`), and whether the process that made one is gone for certain, so
//! that the next run may recover or remove what it left.

use std::path::Path;

/// Whether process `pid` is gone for certain. The current process is alive, and so is any
/// process whose fate cannot be told: on Linux a process is gone when `/proc/PID` does not exist
/// (a zombie still counts as alive); where there is no `/proc`, nothing is known, so nothing is
/// ever judged gone and no leftover is touched.
pub fn process_gone(pid: u32) -> bool {
    if pid == 0 || pid == std::process::id() {
        return false;
    }
    let proc_root = Path::new("/proc");
    if !proc_root.join("self").exists() {
        return false;
    }
    !proc_root.join(pid.to_string()).exists()
}

/// The process id that `name` carries right after `prefix` (decimal digits up to `end`, or up to
/// the end of the name when `end` is `None`).
pub fn pid_after(name: &str, prefix: &str, end: Option<char>) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?;
    parse_pid(match end {
        Some(end) => rest.split_once(end)?.0,
        None => rest,
    })
}

/// A process id written in decimal digits only (no sign, no spaces).
pub fn parse_pid(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether `name` was left by a process that is gone: it carries a process id after `prefix`
/// (see [`pid_after`]) and that process no longer runs.
pub fn left_by_gone_process(name: &str, prefix: &str, end: Option<char>) -> bool {
    pid_after(name, prefix, end).is_some_and(process_gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_ids_are_read_from_leftover_names() {
        assert_eq!(pid_after(".b.old-123", ".b.old-", None), Some(123));
        assert_eq!(pid_after(".b.old-12x", ".b.old-", None), None);
        assert_eq!(pid_after(".b.old-", ".b.old-", None), None);
        assert_eq!(pid_after("-77-abc.tmp", "-", Some('-')), Some(77));
        assert_eq!(pid_after("x-77-abc.tmp", "-", Some('-')), None);
        assert_eq!(parse_pid("+5"), None);
    }

    #[test]
    fn this_process_is_never_gone() {
        assert!(!process_gone(std::process::id()));
        assert!(!process_gone(0));
    }
}
