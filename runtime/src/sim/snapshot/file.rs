//! Snapshot files: a world's [`Snapshot`] as bytes and back, with no IO (the editor and the
//! command line read and write the files). A file is a fixed header (magic, format version,
//! configuration digest, frame, scenario id), then a CBOR payload guarded by its BLAKE3
//! checksum; the format is specified in `docs/snapshot-format.md`. Decoding never panics: a
//! short, damaged, foreign or newer file is a [`SnapshotFileError`] that says what is wrong; a
//! file of another scenario or configuration is refused before its payload is looked at.
//!
//! Version 2 carries the knockdowns whole: the rigid-body scene (rapier's bodies, colliders,
//! islands, broad and narrow phase with their contact caches, through rapier's
//! `serde-serialize` feature) and every knocked-down body's recovery, so a world saved
//! mid-knockdown continues bit for bit. Version 1 files (which could not hold a knockdown) are
//! refused by version.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Snapshot, SnapshotError};

use crate::sim::config::Obstacle;
use crate::sim::crossings::CrossingsState;
use crate::sim::knockdown::Knockdowns;
use crate::sim::motion::MotionState;
use crate::sim::obstacles::SceneState;
use crate::sim::population::{CandidateMark, PopulationState};
use crate::sim::state::{AgentHandle, Agents, EventLog, Slots};
use crate::sim::tasks::TaskState;
use crate::sim::{state::Counters, world::World};

/// The first eight bytes of every snapshot file.
pub const SNAPSHOT_MAGIC: [u8; 8] = *b"STGSNAP\0";
/// The format version this runtime writes and reads.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 4;
/// Longest scenario id a header may hold, bytes.
pub const MAX_SCENARIO_ID_BYTES: usize = 1024;

/// What a snapshot file says about itself before its payload is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotHeader {
    /// The format version.
    pub version: u32,
    /// The configuration digest of the world it was taken from (seed, content, scenario).
    pub config_digest: [u8; 32],
    /// The frame it was taken at.
    pub frame: u64,
    /// The scenario it was taken from.
    pub scenario: String,
}

/// Why a world cannot be written as a snapshot file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SnapshotEncodeError {
    /// The payload could not be encoded (a runtime bug, never expected).
    #[error("the snapshot could not be encoded: {0}")]
    Payload(String),
}

/// Why bytes cannot be restored as a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SnapshotFileError {
    /// The magic is wrong: not a snapshot file.
    #[error("not a Stagecraft snapshot file (its first bytes are not `STGSNAP`)")]
    NotASnapshot,
    /// A version this runtime does not read.
    #[error(
        "snapshot format version {found} is not supported (this build reads version \
         {supported}; save the run again with the build that reads it)"
    )]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this runtime reads.
        supported: u32,
    },
    /// The file ends inside a field.
    #[error("the snapshot file is cut short: it ends inside {field} (byte {offset})")]
    Truncated {
        /// The field being read.
        field: &'static str,
        /// Its byte offset.
        offset: usize,
    },
    /// The scenario id is not UTF-8 or too long.
    #[error("the snapshot's scenario id (byte {offset}) is not valid: {reason}")]
    BadScenarioId {
        /// Byte offset of the id.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Bytes follow the payload.
    #[error("the snapshot file has {extra} unexpected bytes after its payload (byte {offset})")]
    TrailingBytes {
        /// How many.
        extra: usize,
        /// Where they start.
        offset: usize,
    },
    /// The payload's checksum does not match: the file was damaged.
    #[error("the snapshot's payload is damaged (its BLAKE3 checksum does not match)")]
    ChecksumMismatch,
    /// The payload is not a snapshot of this format.
    #[error("the snapshot's payload cannot be read: {0}")]
    Payload(String),
    /// The file belongs to another scenario.
    #[error("the snapshot is of scenario `{file}`, not of `{world}`")]
    OtherScenario {
        /// The file's scenario.
        file: String,
        /// The world's scenario.
        world: String,
    },
    /// Same scenario id, but the seed, content or scenario settings differ.
    #[error(
        "the snapshot of `{scenario}` was taken under another configuration (its digest {file} \
         differs from this world's {world}): the seed, the generated content or the scenario's \
         settings changed since it was saved"
    )]
    OtherConfiguration {
        /// The scenario id (the same on both sides).
        scenario: String,
        /// The file's configuration digest, hex.
        file: String,
        /// The world's configuration digest, hex.
        world: String,
    },
    /// The payload decodes but does not fit the world.
    #[error(transparent)]
    Restore(#[from] SnapshotError),
}

/// The payload as written: every part of the snapshot, borrowed.
#[derive(Serialize)]
struct PayloadRef<'a> {
    agents: &'a Agents,
    slots: &'a Slots,
    births: &'a [Vec<AgentHandle>],
    counters: &'a Counters,
    pop: &'a PopulationState,
    events: &'a EventLog,
    motion: &'a MotionState,
    crossings: &'a CrossingsState,
    tasks: &'a TaskState,
    knockdowns: &'a Knockdowns,
    scene_removed: &'a [u32],
    scene_placed: &'a [(String, Obstacle)],
    scene_revision: u32,
    candidates: &'a [CandidateMark],
}

/// The payload as read.
#[derive(Deserialize)]
struct Payload {
    agents: Agents,
    slots: Slots,
    births: Vec<Vec<AgentHandle>>,
    counters: Counters,
    pop: PopulationState,
    events: EventLog,
    motion: MotionState,
    crossings: CrossingsState,
    tasks: TaskState,
    knockdowns: Knockdowns,
    scene_removed: Vec<u32>,
    scene_placed: Vec<(String, Obstacle)>,
    scene_revision: u32,
    candidates: Vec<CandidateMark>,
}

impl World {
    /// The world's current state as a snapshot file's bytes.
    pub fn snapshot_bytes(&self) -> Result<Vec<u8>, SnapshotEncodeError> {
        let snapshot = self.snapshot();
        encode(&snapshot, &self.config.scenario.id)
    }

    /// Restores a snapshot file's bytes: the header is checked against this world's scenario
    /// and configuration first, then the payload's checksum, then the payload is decoded and
    /// restored all-or-nothing (`World::restore`). On error the world is unchanged.
    pub fn restore_bytes(&mut self, bytes: &[u8]) -> Result<SnapshotHeader, SnapshotFileError> {
        let (header, payload, checksum) = split(bytes)?;
        if header.scenario != self.config.scenario.id {
            return Err(SnapshotFileError::OtherScenario {
                file: header.scenario,
                world: self.config.scenario.id.clone(),
            });
        }
        if header.config_digest != self.config.digest {
            return Err(SnapshotFileError::OtherConfiguration {
                scenario: header.scenario,
                file: hex(&header.config_digest),
                world: hex(&self.config.digest),
            });
        }
        if blake3::hash(payload).as_bytes() != &checksum {
            return Err(SnapshotFileError::ChecksumMismatch);
        }
        let payload: Payload = ciborium::from_reader(payload)
            .map_err(|e| SnapshotFileError::Payload(e.to_string()))?;
        let scene = SceneState::restored(
            &self.built.obstacles,
            payload.scene_removed,
            payload.scene_placed,
            payload.scene_revision,
        )
        .ok_or(SnapshotError::Inconsistent(
            "the scene's removed or placed obstacles are not in order or not in the world",
        ))?;
        let snapshot = Snapshot {
            config_digest: header.config_digest,
            frame: header.frame,
            agents: payload.agents,
            slots: payload.slots,
            births: payload.births,
            counters: payload.counters,
            pop: payload.pop,
            events: payload.events,
            motion: payload.motion,
            crossings: payload.crossings,
            tasks: payload.tasks,
            knock: payload.knockdowns,
            scene,
            candidates: payload.candidates,
        };
        self.restore(&snapshot)?;
        Ok(header)
    }
}

/// The bytes of `snapshot`, taken from a world of scenario `scenario`.
pub fn encode(snapshot: &Snapshot, scenario: &str) -> Result<Vec<u8>, SnapshotEncodeError> {
    let (scene_removed, scene_placed, scene_revision) = snapshot.scene.parts();
    let payload = PayloadRef {
        agents: &snapshot.agents,
        slots: &snapshot.slots,
        births: &snapshot.births,
        counters: &snapshot.counters,
        pop: &snapshot.pop,
        events: &snapshot.events,
        motion: &snapshot.motion,
        crossings: &snapshot.crossings,
        tasks: &snapshot.tasks,
        knockdowns: &snapshot.knock,
        scene_removed,
        scene_placed,
        scene_revision,
        candidates: &snapshot.candidates,
    };
    let mut body = Vec::new();
    ciborium::into_writer(&payload, &mut body)
        .map_err(|e| SnapshotEncodeError::Payload(e.to_string()))?;
    let id = scenario.as_bytes();
    let id = &id[..id.len().min(MAX_SCENARIO_ID_BYTES)];
    let mut bytes = Vec::with_capacity(body.len() + 128 + id.len());
    bytes.extend_from_slice(&SNAPSHOT_MAGIC);
    bytes.extend_from_slice(&SNAPSHOT_FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&snapshot.config_digest);
    bytes.extend_from_slice(&snapshot.frame.to_le_bytes());
    bytes.extend_from_slice(&(id.len() as u32).to_le_bytes());
    bytes.extend_from_slice(id);
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(blake3::hash(&body).as_bytes());
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// The header of a snapshot file (its payload is neither checked nor decoded).
pub fn read_header(bytes: &[u8]) -> Result<SnapshotHeader, SnapshotFileError> {
    split(bytes).map(|(header, _, _)| header)
}

/// The header, the payload and the payload's checksum as the file states it.
fn split(bytes: &[u8]) -> Result<(SnapshotHeader, &[u8], [u8; 32]), SnapshotFileError> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(8, "the magic").ok() != Some(&SNAPSHOT_MAGIC[..]) {
        return Err(SnapshotFileError::NotASnapshot);
    }
    let version = u32::from_le_bytes(r.array("the format version")?);
    if version != SNAPSHOT_FORMAT_VERSION {
        return Err(SnapshotFileError::UnsupportedVersion {
            found: version,
            supported: SNAPSHOT_FORMAT_VERSION,
        });
    }
    let config_digest: [u8; 32] = r.array("the configuration digest")?;
    let frame = u64::from_le_bytes(r.array("the frame")?);
    let id_len = u32::from_le_bytes(r.array("the scenario id's length")?) as usize;
    let offset = r.at;
    if id_len > MAX_SCENARIO_ID_BYTES {
        return Err(SnapshotFileError::BadScenarioId {
            offset,
            reason: "longer than 1024 bytes",
        });
    }
    let scenario = std::str::from_utf8(r.take(id_len, "the scenario id")?)
        .map_err(|_| SnapshotFileError::BadScenarioId {
            offset,
            reason: "not UTF-8",
        })?
        .to_owned();
    let payload_len = u64::from_le_bytes(r.array("the payload's length")?);
    let checksum: [u8; 32] = r.array("the payload's checksum")?;
    let payload_len = usize::try_from(payload_len).unwrap_or(usize::MAX);
    let payload = r.take(payload_len, "the payload")?;
    if r.at < bytes.len() {
        return Err(SnapshotFileError::TrailingBytes {
            extra: bytes.len() - r.at,
            offset: r.at,
        });
    }
    let header = SnapshotHeader {
        version,
        config_digest,
        frame,
        scenario,
    };
    Ok((header, payload, checksum))
}

/// A cursor over the file's bytes that reports where it ran out.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize, field: &'static str) -> Result<&'a [u8], SnapshotFileError> {
        let end = self
            .at
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len());
        let Some(end) = end else {
            return Err(SnapshotFileError::Truncated {
                field,
                offset: self.at,
            });
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], SnapshotFileError> {
        let slice = self.take(N, field)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
