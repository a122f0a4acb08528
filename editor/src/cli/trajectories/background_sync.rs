//! Syncs a staged trajectory file to disk while it is still being written, on a thread of its
//! own: the output-file rule syncs a file before putting it in place, and syncing megabytes at
//! the end of a run made the run wait tens of milliseconds for the disk. Synced as it grows, the
//! final sync (`StagedOutputFile::commit`, which still runs and reports any error) only has the
//! last bytes left. A failed background sync is not an error: the final one decides.

use std::fs::File;
use std::sync::mpsc::{self, SyncSender};
use std::thread::JoinHandle;

/// Syncs one file whenever it is nudged.
#[derive(Debug)]
pub struct BackgroundSync {
    nudge: Option<SyncSender<()>>,
    thread: Option<JoinHandle<u64>>,
}

impl BackgroundSync {
    /// Starts the sync thread for `file` (a handle to the staged file). Without a thread (it
    /// could not be started) nudges do nothing and the final sync does all the work.
    pub fn start(file: File) -> BackgroundSync {
        // One nudge waiting is enough: a sync covers everything written before it starts.
        let (nudge, nudges) = mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("trajectory-sync".to_owned())
            .spawn(move || {
                let mut syncs = 0;
                for () in nudges {
                    // Errors are left to the final sync.
                    let _ = file.sync_data();
                    syncs += 1;
                }
                syncs
            });
        match thread {
            Ok(thread) => BackgroundSync {
                nudge: Some(nudge),
                thread: Some(thread),
            },
            Err(_) => BackgroundSync {
                nudge: None,
                thread: None,
            },
        }
    }

    /// Asks for a sync of what has been written so far (dropped when one is already waiting).
    pub fn nudge(&self) {
        if let Some(nudge) = &self.nudge {
            let _ = nudge.try_send(());
        }
    }

    /// Waits for the sync under way, if any, and ends the thread: the number of syncs done.
    pub fn stop(mut self) -> u64 {
        self.nudge = None;
        self.thread
            .take()
            .map_or(0, |thread| thread.join().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn nudges_sync_the_file_and_stop_waits_for_them() {
        let mut file = tempfile::tempfile().expect("temp file");
        let sync = BackgroundSync::start(file.try_clone().expect("clone"));
        file.write_all(b"rows").expect("written");
        sync.nudge();
        // At least the first nudge is synced (later ones may fold into a waiting one).
        assert!(sync.stop() >= 1);
        let idle = BackgroundSync::start(file.try_clone().expect("clone"));
        assert_eq!(idle.stop(), 0);
    }
}
