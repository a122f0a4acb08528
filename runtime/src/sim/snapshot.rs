//! Snapshots of a world's state (agents, slots, population, events, signals, crossings, tasks,
//! knockdowns, the scene's obstacle changes), their restore (all-or-nothing after a preflight)
//! and digests. Snapshot files (bytes in, bytes out) are `snapshot::file`'s.

pub mod file;

use thiserror::Error;

use super::crossings::CrossingsState;
use super::knockdown::Knockdowns;
use super::motion::MotionState;
use super::obstacles::SceneState;
use super::population::{CandidateMark, PopulationState};
use super::routes::RouteSpan;
use super::tasks::TaskState;
use super::world::World;
use crate::sim::state::{AgentHandle, Agents, Canonical, Counters, EventLog, Slots};

/// Everything that changes as a world steps, captured at one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    config_digest: [u8; 32],
    frame: u64,
    agents: Agents,
    slots: Slots,
    births: Vec<Vec<AgentHandle>>,
    counters: Counters,
    pop: PopulationState,
    events: EventLog,
    motion: MotionState,
    crossings: CrossingsState,
    tasks: TaskState,
    knock: Knockdowns,
    scene: SceneState,
    /// The spawn candidates the snapshot's frame drew (presentation: no digest reads them), so
    /// a world restored at that frame can still say where its candidates stood.
    candidates: Vec<CandidateMark>,
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
    /// The motion state it holds, for tests that damage a snapshot.
    #[cfg(test)]
    pub(in crate::sim) fn motion_mut(&mut self) -> &mut MotionState {
        &mut self.motion
    }

    /// The agent columns it holds, for tests that damage a snapshot.
    #[cfg(test)]
    pub(in crate::sim) fn agents_mut(&mut self) -> &mut Agents {
        &mut self.agents
    }

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
            slots: self.slots.clone(),
            births: self.births.clone(),
            counters: self.counters,
            pop: self.pop.clone(),
            events: self.events.clone(),
            motion: self.motion.clone(),
            crossings: self.crossings.clone(),
            tasks: self.tasks.clone(),
            knock: self.knock.clone(),
            scene: self.scene.clone(),
            candidates: self.last_candidates.clone(),
        }
    }

    /// Restores a snapshot after checking all of it; on error the world is unchanged.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SnapshotError> {
        if snapshot.config_digest != self.config.digest {
            return Err(SnapshotError::ConfigMismatch);
        }
        rows_agree(self, snapshot)?;
        sets_agree(self, snapshot)?;
        self.apply(snapshot);
        Ok(())
    }

    /// Replaces the state with a checked snapshot's (the derived scratch reset or rebuilt).
    fn apply(&mut self, snapshot: &Snapshot) {
        self.frame = snapshot.frame;
        self.agents = snapshot.agents.clone();
        // The rows are replaced wholesale: the next crossings phase reads every record.
        self.crossing_rows_tracked = false;
        self.slots = snapshot.slots.clone();
        self.births = snapshot.births.clone();
        self.counters = snapshot.counters;
        self.pop = snapshot.pop.clone();
        self.events = snapshot.events.clone();
        self.motion = snapshot.motion.clone();
        self.wall_clock = Default::default();
        self.republish_frames();
        self.motion_scratch.ring = Default::default();
        self.task_frames.reset();
        self.crossings = snapshot.crossings.clone();
        self.tasks = snapshot.tasks.clone();
        self.knock = snapshot.knock.clone();
        self.scene = snapshot.scene.clone();
        self.staged = Default::default();
        self.last_rejections.clear();
        self.last_candidates = snapshot.candidates.clone();
        self.recent_candidates = snapshot
            .candidates
            .iter()
            .map(|mark| (snapshot.frame, *mark))
            .collect();
        self.observation = Default::default();
    }

    /// A digest of the whole state (bit-exact: floats by their bits).
    pub fn state_digest(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.frame.to_le_bytes());
        let mut bytes = Vec::new();
        for row in 0..self.agents.len() {
            bytes.clear();
            self.agents.write_row(row, &mut bytes);
            hasher.update(&bytes);
        }
        for births in &self.births {
            hasher.update(&(births.len() as u64).to_le_bytes());
            for handle in births {
                hasher.update(&handle.index.to_le_bytes());
            }
        }
        // Empty until a slot is released, so worlds that never removed an agent keep the digest
        // they had before slots existed; then the slots and the births' generations follow.
        let mut slot_bytes = Vec::new();
        self.slots.write_canonical(&mut slot_bytes);
        if !slot_bytes.is_empty() {
            for handle in self.births.iter().flatten() {
                slot_bytes.extend_from_slice(&handle.generation.to_le_bytes());
            }
        }
        hasher.update(&slot_bytes);
        for (_, value) in self.counters.rows() {
            hasher.update(&value.to_le_bytes());
        }
        for (_, value) in self.counters.population_rows() {
            hasher.update(&value.to_le_bytes());
        }
        bytes.clear();
        self.pop.write_canonical(&mut bytes);
        self.events.write_canonical(&mut bytes);
        self.motion.write_canonical(&mut bytes);
        self.crossings.write_canonical(&mut bytes);
        // Nothing while no task ever existed, so task-free worlds keep their digests.
        self.tasks.write_canonical(&mut bytes);
        // Nothing for a world that never knocked anyone down (its digest is unchanged).
        self.knock.write_canonical(&mut bytes);
        // Nothing for a world whose scene no directive changed (its digest is unchanged).
        self.scene.write_canonical(&mut bytes);
        hasher.update(&bytes);
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

/// The preflight of the snapshot's rows: the agent columns, slots, births, routes, route spans,
/// route-end rules and pool entries agree with each other and with `world`'s configuration.
fn rows_agree(world: &World, snapshot: &Snapshot) -> Result<(), SnapshotError> {
    let agents = &snapshot.agents;
    let rows = agents.len();
    if !agents.columns_agree() {
        return Err(SnapshotError::Inconsistent(
            "agent columns differ in length",
        ));
    }
    if snapshot.births.len() != world.config.sources.len() || !snapshot.pop.fits(&world.config) {
        return Err(SnapshotError::Inconsistent("source count differs"));
    }
    if !snapshot.slots.is_consistent(rows) {
        return Err(SnapshotError::Inconsistent(
            "the slots do not match the agent rows",
        ));
    }
    let row_generations = (0..rows).all(|row| {
        snapshot.slots.handle_of(row).map(|h| h.generation) == Some(agents.generation[row])
    });
    if !row_generations {
        return Err(SnapshotError::Inconsistent(
            "an agent's generation differs from its slot's",
        ));
    }
    let slots = snapshot.slots.slot_count();
    if snapshot
        .births
        .iter()
        .flatten()
        .any(|handle| handle.index as usize >= slots)
    {
        return Err(SnapshotError::Inconsistent("a birth names a missing slot"));
    }
    if agents
        .route
        .iter()
        .any(|route| *route as usize >= world.config.space.routes.len())
    {
        return Err(SnapshotError::Inconsistent(
            "an agent names a missing route",
        ));
    }
    let table = &world.config.route_points;
    let spans_agree = (0..rows).all(|row| {
        table.span(agents.route[row])
            == Some(RouteSpan {
                offset: agents.route_offset[row],
                len: agents.route_len[row],
            })
    });
    if !spans_agree {
        return Err(SnapshotError::Inconsistent(
            "an agent's route span is not its route's",
        ));
    }
    let ends_agree = (0..rows).all(|row| {
        world
            .config
            .sources
            .get(usize::from(agents.source[row]))
            .is_some_and(|s| s.stops_at_route_end == agents.stops_at_route_end[row])
    });
    if !ends_agree {
        return Err(SnapshotError::Inconsistent(
            "an agent's route-end rule is not its source's",
        ));
    }
    let pooled_rows = snapshot.pop.pool.entries.iter().all(|e| {
        snapshot
            .slots
            .resolve(e.handle)
            .is_some_and(|row| row < rows && agents.pooled[row])
    });
    if !pooled_rows {
        return Err(SnapshotError::Inconsistent(
            "a pool entry names no pooled agent",
        ));
    }
    Ok(())
}

/// The preflight of the snapshot's other sets: the streaming ring, the exits, the crossings,
/// the event log, the tasks, the knockdowns and the scene agree with its rows and `world`.
fn sets_agree(world: &World, snapshot: &Snapshot) -> Result<(), SnapshotError> {
    let (agents, rows) = (&snapshot.agents, snapshot.agents.len());
    if !snapshot.motion.ring.is_consistent(&agents.id) {
        return Err(SnapshotError::Inconsistent(
            "the streaming ring names an agent the snapshot does not have",
        ));
    }
    if snapshot.motion.panic.assigned.len() > super::motion::panic::exits(&world.config).len() {
        return Err(SnapshotError::Inconsistent(
            "the exits' assignments do not match the world's exits",
        ));
    }
    let crossings_fit = snapshot.crossings.fits(
        world.config.space.signals.len(),
        &world.config.scenario.crossings,
    );
    let crosswalks = world.config.space.crosswalks.len();
    let bound_ok = agents
        .crosswalk
        .iter()
        .all(|c| !c.is_bound() || usize::from(c.crosswalk) < crosswalks);
    if !crossings_fit || !bound_ok {
        return Err(SnapshotError::Inconsistent(
            "the signals or crosswalk states do not match the space",
        ));
    }
    if !snapshot.events.is_consistent() {
        return Err(SnapshotError::Inconsistent("the event log is inconsistent"));
    }
    if !snapshot.tasks.is_consistent(&snapshot.slots, rows) {
        return Err(SnapshotError::Inconsistent("a task names a missing ped"));
    }
    if !snapshot.knock.is_consistent(&snapshot.slots, agents) {
        return Err(SnapshotError::Inconsistent(
            "a knockdown names no knocked-down ped or no body",
        ));
    }
    if !snapshot.scene.fits(&world.built.obstacles) {
        return Err(SnapshotError::Inconsistent(
            "the scene's obstacles do not match the world's",
        ));
    }
    Ok(())
}
