//! Snapshots of a world's state, their restore (all-or-nothing after a preflight) and digests.

use thiserror::Error;

use super::agents::Agents;
use super::world::{Counters, World};

/// Everything that changes as a world steps, captured at one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    config_digest: [u8; 32],
    frame: u64,
    agents: Agents,
    births: Vec<Vec<u32>>,
    attempts: Vec<u32>,
    counters: Counters,
}

/// Why a snapshot cannot be restored.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SnapshotError {
    /// The snapshot was taken from a world with another configuration.
    #[error("the snapshot belongs to a world with another configuration")]
    ConfigMismatch,
    /// The snapshot's columns or indices do not agree with each other.
    #[error("the snapshot is inconsistent: {0}")]
    Inconsistent(&'static str),
}

impl Snapshot {
    /// The frame the snapshot was taken at.
    pub fn frame(&self) -> u64 {
        self.frame
    }
}

impl World {
    /// Captures the current state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            config_digest: self.config.digest,
            frame: self.frame,
            agents: self.agents.clone(),
            births: self.births.clone(),
            attempts: self.attempts.clone(),
            counters: self.counters,
        }
    }

    /// Restores a snapshot after checking all of it; on error the world is unchanged.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SnapshotError> {
        if snapshot.config_digest != self.config.digest {
            return Err(SnapshotError::ConfigMismatch);
        }
        let agents = &snapshot.agents;
        let rows = agents.len();
        let columns = [
            agents.generation.len(),
            agents.source.len(),
            agents.route.len(),
            agents.distance_m.len(),
            agents.direction.len(),
            agents.speed_m_s.len(),
            agents.position.len(),
            agents.facing.len(),
            agents.state.len(),
            agents.resume.len(),
            agents.target.len(),
            agents.safe_distance_m.len(),
            agents.kind.len(),
            agents.owner.len(),
            agents.steps.len(),
        ];
        if columns.iter().any(|len| *len != rows) {
            return Err(SnapshotError::Inconsistent(
                "agent columns differ in length",
            ));
        }
        if snapshot.births.len() != self.config.sources.len()
            || snapshot.attempts.len() != self.config.sources.len()
        {
            return Err(SnapshotError::Inconsistent("source count differs"));
        }
        if snapshot
            .births
            .iter()
            .flatten()
            .any(|row| *row as usize >= rows)
        {
            return Err(SnapshotError::Inconsistent("a birth names a missing agent"));
        }
        if agents
            .route
            .iter()
            .any(|route| *route as usize >= self.config.space.routes.len())
        {
            return Err(SnapshotError::Inconsistent(
                "an agent names a missing route",
            ));
        }
        self.frame = snapshot.frame;
        self.agents = snapshot.agents.clone();
        self.births = snapshot.births.clone();
        self.attempts = snapshot.attempts.clone();
        self.counters = snapshot.counters;
        self.last_rejections.clear();
        Ok(())
    }

    /// A digest of the whole state (bit-exact: floats by their bits).
    pub fn state_digest(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.frame.to_le_bytes());
        let agents = &self.agents;
        for row in 0..agents.len() {
            hasher.update(&agents.id[row].to_le_bytes());
            hasher.update(&agents.generation[row].to_le_bytes());
            hasher.update(&agents.source[row].to_le_bytes());
            hasher.update(&agents.route[row].to_le_bytes());
            for value in [
                agents.distance_m[row],
                agents.speed_m_s[row],
                agents.position[row].x,
                agents.position[row].y,
                agents.facing[row].x,
                agents.facing[row].y,
                agents.safe_distance_m[row],
            ] {
                hasher.update(&value.to_bits().to_le_bytes());
            }
            hasher.update(&[
                agents.direction[row] as u8,
                agents.state[row].code(),
                agents.resume[row].code(),
                agents.kind[row] as u8,
            ]);
            match agents.target[row] {
                Some(target) => {
                    hasher.update(&[1]);
                    hasher.update(&target.x.to_bits().to_le_bytes());
                    hasher.update(&target.y.to_bits().to_le_bytes());
                }
                None => {
                    hasher.update(&[0]);
                }
            }
            hasher.update(agents.owner[row].as_deref().unwrap_or("").as_bytes());
            hasher.update(&[0]);
            hasher.update(&agents.steps[row].to_le_bytes());
        }
        for births in &self.births {
            hasher.update(&(births.len() as u64).to_le_bytes());
            for row in births {
                hasher.update(&row.to_le_bytes());
            }
        }
        for attempts in &self.attempts {
            hasher.update(&attempts.to_le_bytes());
        }
        for (_, value) in self.counters.rows() {
            hasher.update(&value.to_le_bytes());
        }
        *hasher.finalize().as_bytes()
    }

    /// The state digest as lowercase hex.
    pub fn state_digest_hex(&self) -> String {
        self.state_digest()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}
