//! Snapshot files on disk for the editor's File → Save snapshot… / Restore snapshot… and for
//! `simulate --save-snapshot` / `--from-snapshot`: the runtime makes and checks the bytes
//! (`World::snapshot_bytes`, `World::restore_bytes`, format in `docs/snapshot-format.md`); this
//! module only writes them by the output-file rule and reads them bounded.

use std::path::Path;

use anyhow::Context as _;
use stagecraft_runtime::sim::{SnapshotHeader, World};

use crate::bounded_read::{read_regular, Links};

/// Largest snapshot file read, bytes (far above any world the editor can hold).
pub const MAX_SNAPSHOT_FILE_BYTES: u64 = 4 << 30;

/// Writes the world's current state to `path`; returns the frame it holds.
pub fn save_snapshot(world: &World, path: &Path) -> anyhow::Result<u64> {
    let bytes = world.snapshot_bytes().with_context(|| {
        format!(
            "cannot save a snapshot of frame {} to {}",
            world.frame(),
            path.display()
        )
    })?;
    crate::output_file::write_output_file(path, &bytes)?;
    Ok(world.frame())
}

/// The bytes of the snapshot file at `path` (a regular file, bounded).
pub fn read_snapshot_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    read_regular(path, MAX_SNAPSHOT_FILE_BYTES, Links::Follow)
        .map_err(|problem| anyhow::anyhow!("cannot read {}: {problem}", path.display()))
}

/// Restores the snapshot file at `path` into `world` (unchanged on error); returns its header.
pub fn restore_snapshot(world: &mut World, path: &Path) -> anyhow::Result<SnapshotHeader> {
    let bytes = read_snapshot_file(path)?;
    world
        .restore_bytes(&bytes)
        .with_context(|| format!("cannot restore the snapshot {}", path.display()))
}
