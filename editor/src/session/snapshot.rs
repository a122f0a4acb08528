//! The session's snapshot files (File → Save snapshot… / Restore snapshot…): the current
//! world written by `crate::snapshot_file`, or a file restored into the timeline (checked whole
//! by the runtime; on error nothing changes).

use std::path::Path;

use anyhow::Context as _;
use stagecraft_runtime::sim::SnapshotHeader;

use super::Session;
use crate::snapshot_file::{read_snapshot_file, save_snapshot};

impl Session {
    /// Writes the current world to `path`; returns the frame saved.
    pub fn save_snapshot(&self, path: &Path) -> anyhow::Result<u64> {
        let world = self
            .world()
            .context("no simulation is running: choose a scenario first")?;
        save_snapshot(world, path)
    }

    /// Pauses and restores the snapshot file at `path` into the timeline; the world is rebuilt
    /// for the panels (its version bumps). Returns the file's header.
    pub fn restore_snapshot(&mut self, path: &Path) -> anyhow::Result<SnapshotHeader> {
        let timeline = self
            .timeline
            .as_mut()
            .context("no simulation is running: choose a scenario first")?;
        let bytes = read_snapshot_file(path)?;
        let header = timeline
            .restore_bytes(&bytes)
            .with_context(|| format!("cannot restore the snapshot {}", path.display()))?;
        self.playing = false;
        self.world_version += 1;
        Ok(header)
    }
}
