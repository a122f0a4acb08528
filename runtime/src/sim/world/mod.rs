//! The world: built from a space and a compiled scenario ([`build_world`], `build`), its state,
//! counters and read APIs, and the phase list of one fixed step (`step`). The phases themselves
//! live in their own modules (`population`, `tasks`, `crossings`, `motion`, …), each a function
//! over the sets it reads and changes; none of them names the world.

mod build;
mod crossing_reports;
mod motion_api;
mod step;

pub use build::build_world;

use std::collections::VecDeque;
use std::sync::Arc;

use super::config::WorldConfig;
use super::crossings::{follow_swap_remove, CrossingIndex, CrossingsState};
use super::knockdown::Knockdowns;
use super::motion::clock::WallClock;
use super::motion::frames::{MotionFrame, PublishHints};
use super::motion::publish::MotionFrames;
use super::motion::{MotionCounters, MotionScratch, MotionState};
use super::observers::Observation;
use super::obstacles::{ObstacleSet, SceneState};
use super::population::{
    member_counts, Boxes, CandidateMark, FrameSpawnReport, PopulationState, SourceStatus,
    SpawnReport, Staged,
};
use super::tasks::{paths::PathGrid, TaskState};
use super::walk::WalkState;
use crate::project::PopulationKind;
use crate::sim::state::{
    AgentHandle, AgentId, Agents, Counters, Event, EventKind, EventLog, SlotError, Slots,
    SpawnRejection, StuckReason, WalkDecision,
};

/// How many recent spawn candidates a world keeps for the overlay.
pub const RECENT_CANDIDATES: usize = 512;

/// What a world builds once from its configuration (derived: never in a digest or snapshot).
#[derive(Debug)]
pub(super) struct Built {
    /// The physical scene's obstacles at frame 0: the space's props, the scenario's scene
    /// objects and barriers (directives change a world's `SceneState`).
    pub(super) obstacles: Arc<ObstacleSet>,
    /// Which routes cross which crosswalks, and the crosswalk query grid.
    pub(super) crossing_index: CrossingIndex,
    /// The walkable grid of the path service (from the space and the frame-0 obstacles known
    /// to navigation).
    pub(super) paths: PathGrid,
}

/// A running scenario.
#[derive(Clone, Debug)]
pub struct World {
    pub(super) config: Arc<WorldConfig>,
    /// The indices built once from the configuration and shared by every clone and restore.
    pub(super) built: Arc<Built>,
    pub(super) frame: u64,
    pub(super) agents: Agents,
    /// Slot allocator: handles ↔ rows.
    pub(super) slots: Slots,
    /// Handles of each source's agents, in birth order (stale once an agent is removed).
    pub(super) births: Vec<Vec<AgentHandle>>,
    pub(super) counters: Counters,
    /// Population state: clocks, demands, pool, boxes, startup, observers, vehicles.
    pub(super) pop: PopulationState,
    /// The bounded event log.
    pub(super) events: EventLog,
    /// Births and removals of the current step, applied in Commit (empty between steps).
    pub(super) staged: Staged,
    /// The observation the last Control update took.
    pub(super) observation: Observation,
    /// Rejections of the last step, with the source index.
    pub(super) last_rejections: Vec<(u16, SpawnRejection)>,
    /// Spawn candidates of the last step with their admission results.
    pub(super) last_candidates: Vec<CandidateMark>,
    /// The last [`RECENT_CANDIDATES`] spawn candidates with the frame that drew them (derived
    /// for the overlay: a snapshot keeps only its own frame's, which a restore leaves here).
    pub(super) recent_candidates: VecDeque<(u64, CandidateMark)>,
    /// Walking's derived data and scratch (not state: snapshots leave it out).
    pub(super) walk: WalkState,
    /// The Motion phase's scheduler frame, avoidance cursor, counters and panic state.
    pub(super) motion: MotionState,
    /// Motion's scratch and the last published Motion Frames (derived, not state).
    pub(super) motion_scratch: MotionScratch,
    /// The task peds' clips and filtered gait of the last step (presentation, not state).
    pub(super) task_frames: crate::sim::tasks::presentation::TaskFrames,
    /// The wall-clock accumulator of playback (driver state, not simulation state).
    pub(super) wall_clock: WallClock,
    /// Signals, the hazard vehicle and the crossings' counters.
    pub(super) crossings: CrossingsState,
    /// Directive parents, movements, stop causes, the path service and escape reports.
    pub(super) tasks: TaskState,
    /// Knocked-down peds and their physics scene (state: snapshots carry it).
    pub(super) knock: Knockdowns,
    /// Obstacles directives placed and removed, and the current obstacle set (state).
    pub(super) scene: SceneState,
    /// The rows whose crosswalk record is not an unbound walker's, listed by each step's
    /// crossings phase for its Motion and liveness phases (scratch, not state).
    pub(super) crossing_rows: Vec<u32>,
    /// Whether `crossing_rows` still lists every row whose crosswalk record is not clean
    /// (`CrossingSets::tracked`): kept through births and removals, cleared by a restore.
    pub(super) crossing_rows_tracked: bool,
    /// The crossings phase's group-count marks, one per row, zero between steps (scratch).
    pub(super) crossing_marks: Vec<u8>,
    /// The editor's camera as an observer (driver state like the wall clock: `sim::camera`);
    /// `None` runs the scenario's observers.
    pub(super) camera: Option<super::camera::CameraObserver>,
}

impl World {
    /// Frames stepped so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Simulated time, seconds.
    pub fn time_s(&self) -> f64 {
        self.frame as f64 * self.config.fixed_step_s
    }

    /// The agent columns: for the runtime's own tests and, behind the `columns` feature, the
    /// acceptance tests. The editor never enables the feature: its viewport and panels read
    /// [`World::motion_frames`] (a guard-rail test in `tests/tests/guard_rails.rs` fails on an
    /// editor call).
    #[cfg(any(test, feature = "columns"))]
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// Number of agents (rows), pooled ones included; always `motion_frames().len()`.
    pub fn agent_count(&self) -> usize {
        self.agents.len()
    }

    /// The row of the live agent `id`, through the id → handle → row maps (births and slots),
    /// never a scan.
    pub fn row_of_id(&self, id: AgentId) -> Option<usize> {
        let row = self.row_of(id.source(), id.ordinal() as usize)?;
        (self.agents.id.get(row) == Some(&id.bits())).then_some(row)
    }

    /// The handle of the live agent `id`.
    pub fn handle_of_id(&self, id: AgentId) -> Option<AgentHandle> {
        self.handle_of(self.row_of_id(id)?)
    }

    /// The Motion Frame of the live agent `id` in the last published set (looked up by id).
    pub fn motion_frame(&self, id: AgentId) -> Option<MotionFrame> {
        let frame = self.motion_frames().get(self.row_of_id(id)?)?;
        (frame.id == id).then_some(frame)
    }

    /// What an inspector shows of the live agent `id` that its Motion Frame does not carry.
    pub fn agent_detail(&self, id: AgentId) -> Option<AgentDetail<'_>> {
        let row = self.row_of_id(id)?;
        let agents = &self.agents;
        Some(AgentDetail {
            route: agents.route[row],
            distance_m: agents.distance_m[row],
            walk_speed_m_s: agents.speed_m_s[row],
            owner: agents.owner[row].as_deref(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Which routes cross which crosswalks (built once with the world).
    pub fn crossing_index(&self) -> &CrossingIndex {
        &self.built.crossing_index
    }

    /// The counters after the last step.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The row of the `ordinal`-th agent born from source `source_index`, if born and alive.
    pub fn row_of(&self, source_index: usize, ordinal: usize) -> Option<usize> {
        let handle = *self.births.get(source_index)?.get(ordinal)?;
        self.slots.resolve(handle)
    }

    /// Handles of the peds source `source_index` created, in birth order (a destroyed one's
    /// handle is stale; pooled and readmitted peds keep theirs).
    pub fn births_of(&self, source_index: usize) -> &[AgentHandle] {
        self.births.get(source_index).map_or(&[], Vec::as_slice)
    }

    /// The handle of the agent in row `row`.
    pub fn handle_of(&self, row: usize) -> Option<AgentHandle> {
        self.slots.handle_of(row)
    }

    /// The row of a current handle; `None` for a stale one.
    pub fn resolve(&self, handle: AgentHandle) -> Option<usize> {
        self.slots.resolve(handle)
    }

    /// Removes the agent `handle` names: its slot is released (the generation bumps), the last
    /// row moves into its place and a pool entry of it is dropped. A stale handle changes
    /// nothing.
    pub fn remove_agent(&mut self, handle: AgentHandle) -> Result<(), SlotError> {
        let row = self.slots.release(handle)?;
        follow_swap_remove(&mut self.crossing_rows, row, self.agents.len() - 1);
        self.agents.swap_remove(row);
        // The frames follow the rows: the last one takes the removed one's place.
        self.motion_scratch.frames.swap_remove(row);
        self.pop.pool.entries.retain(|e| e.handle != handle);
        self.counters.alive = self.agents.len() as u64;
        Ok(())
    }

    /// The Motion Frames of the last step, published after its Commit: one per agent, in row
    /// order, so `motion_frames().get(row)` is the agent of `row` and the count is
    /// [`World::agent_count`].
    pub fn motion_frames(&self) -> MotionFrames<'_> {
        self.motion_scratch.frames.frames()
    }

    /// The task peds' frames of the last step: clip, phase, clip time, heading and the gait
    /// filtered from measured speed (presentation; `sim::tasks::presentation`).
    pub fn task_frames(&self) -> &[crate::sim::tasks::presentation::TaskFrame] {
        self.task_frames.frames()
    }

    /// Publishes the Motion Frames from the current rows, as every step ends: rows whose frame
    /// can have changed since the last publication are rewritten (`motion::publish`). The
    /// runtime's own tests check every publication against a rebuild from scratch.
    pub fn publish_motion_frames(&mut self) {
        let built = Arc::clone(&self.built);
        let hints = PublishHints {
            crossings: Some(&built.crossing_index),
            stuck: self.crossings.stats.stuck_now > 0,
            panic_mark: Some(panic_mark(&self.events)),
        };
        self.publish_with(&hints);
    }

    fn publish_with(&mut self, hints: &PublishHints<'_>) {
        self.motion_scratch
            .frames
            .publish(&self.agents, self.frame, hints);
        #[cfg(test)]
        assert_eq!(
            self.motion_frames().to_vec(),
            super::motion::frames::rebuilt_with_clips(
                &self.agents,
                self.frame,
                self.motion_scratch.frames.clips()
            ),
            "incremental frames differ from a rebuild at frame {}",
            self.frame
        );
    }

    /// Rows the last publication of the Motion Frames rewrote (the others kept their frame).
    pub fn motion_frames_rewritten(&self) -> usize {
        self.motion_scratch.frames.rewritten()
    }

    /// What each agent's last Motion phase decided, in row order (benchmarks and diagnostics).
    pub fn walk_decisions(&self) -> &[WalkDecision] {
        &self.agents.walk_decision
    }

    /// Republishes every Motion Frame from the current rows (after a restore, which replaces
    /// the rows wholesale).
    pub(in crate::sim) fn republish_frames(&mut self) {
        self.motion_scratch.frames.invalidate();
        self.publish_with(&PublishHints::ALL);
    }

    /// The fewest rows each thread's band of the walking loop gets (`None`: the default,
    /// `sim::motion::parallel::DEFAULT_MIN_ROWS_PER_BAND`); below it the loop runs serially.
    /// The result is the same either way; tests lower it to band even a handful of walkers.
    pub fn set_min_rows_per_band(&mut self, rows: Option<usize>) {
        self.motion_scratch.bands.min_rows = rows;
    }

    /// How many bands the last step's walking loop ran in (1: serially; see
    /// `sim::motion::parallel`).
    pub fn walk_bands(&self) -> usize {
        self.motion_scratch.bands.last_count.max(1)
    }

    /// How many rows of the last step's walking loop were near a cut between its bands, and
    /// how many (row, other band) pairs among them waited (0 and 0 when it ran serially; see
    /// `sim::motion::parallel`): what a bench prints beside its thread timings.
    pub fn walk_boundary(&self) -> (usize, usize) {
        let plan = self.motion_scratch.bands.last_plan;
        (plan.boundary_rows, plan.waits)
    }

    /// What the Motion phase did in the last step.
    pub fn motion_counters(&self) -> MotionCounters {
        self.motion.counters
    }

    /// The Motion phase's state (scheduler frame, avoidance cursor, exits, who is outside the
    /// streaming ring).
    pub fn motion_state(&self) -> &MotionState {
        &self.motion
    }

    /// The streaming plan's loaded cells of the last step (the union of the rings around the
    /// views, sorted row-major; empty without a streaming plan, and right after a restore until
    /// the next step).
    pub fn loaded_cells(&self) -> &[crate::content::StreamingCell] {
        &self.motion_scratch.ring.loaded_cells
    }

    /// The HLOD donut and its budget planned around the views at the last step (empty without a
    /// streaming plan, and before the first step).
    pub fn hlod_step(&self) -> &crate::sim::motion::hlod::HlodStep {
        &self.motion_scratch.ring.hlod
    }

    /// Whether the agent in row `row` was outside the loaded ring at the last step.
    pub fn outside_ring(&self, row: usize) -> bool {
        self.agents
            .id
            .get(row)
            .is_some_and(|id| self.motion.ring.outside.binary_search(id).is_ok())
    }

    /// Birth rejections of the last step, with the index of the source.
    pub fn last_rejections(&self) -> &[(u16, SpawnRejection)] {
        &self.last_rejections
    }

    /// The spawn candidates the last step drew, each with where it stood and its admission
    /// result (the spawn-candidate overlay).
    pub fn last_candidates(&self) -> &[CandidateMark] {
        &self.last_candidates
    }

    /// The last [`RECENT_CANDIDATES`] spawn candidates, oldest first, each with the frame that
    /// drew it.
    pub fn recent_candidates(&self) -> impl Iterator<Item = (u64, &CandidateMark)> + '_ {
        self.recent_candidates
            .iter()
            .map(|(frame, mark)| (*frame, mark))
    }

    /// The event log.
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// The task sets: directive parents, movements, stop causes, path service, escape reports.
    pub fn tasks(&self) -> &TaskState {
        &self.tasks
    }

    /// The task sets, for the knockdown module's body suspension and tests.
    pub fn tasks_mut(&mut self) -> &mut TaskState {
        &mut self.tasks
    }

    /// The knocked-down peds: their live recovery criteria and physics bodies.
    pub fn knockdowns(&self) -> &Knockdowns {
        &self.knock
    }

    /// The population state (clocks, demands, pool, boxes, startup, observers, vehicles).
    pub fn population(&self) -> &PopulationState {
        &self.pop
    }

    /// The no-spawn and no-removal boxes in force now (directives may have set, replaced or
    /// cleared them since the scenario's start): what the Viewport draws.
    pub fn boxes(&self) -> Boxes {
        self.pop.boxes
    }

    /// Sets (or clears) the editor's camera as the observer tiers (and, when it says so,
    /// admission) read from the next step on (`sim::camera`). Not state: snapshots, restores and
    /// digests ignore it, but a run stepped with it set depends on the camera.
    pub fn set_camera_observer(&mut self, camera: Option<super::camera::CameraObserver>) {
        self.camera = camera;
    }

    /// The editor's camera observer, when set.
    pub fn camera_observer(&self) -> Option<super::camera::CameraObserver> {
        self.camera
    }

    /// The observation the last Control update took.
    pub fn observation(&self) -> &Observation {
        &self.observation
    }

    /// Signals, the hazard vehicle and the crossings' counters after the last step.
    pub fn crossings(&self) -> &CrossingsState {
        &self.crossings
    }

    /// Every agent flagged stuck now, with its reason, in row order.
    pub fn stuck_agents(&self) -> Vec<(AgentHandle, StuckReason)> {
        (0..self.agents.len())
            .filter_map(|row| {
                let reason = self.agents.liveness[row].stuck?;
                Some((self.slots.handle_of(row)?, reason))
            })
            .collect()
    }

    /// Cycle debt per type, `(ped, vehicle)`.
    pub fn cycle_debt(&self) -> (f64, f64) {
        (self.pop.clocks.ped_debt, self.pop.clocks.vehicle_debt)
    }

    /// Every source's status, in scenario order.
    pub fn source_statuses(&self) -> Vec<SourceStatus> {
        let counts = member_counts(self.config.sources.len(), &self.agents, &self.staged);
        let control = self.pop.control_frame;
        self.config
            .sources
            .iter()
            .zip(&self.pop.sources)
            .zip(counts)
            .enumerate()
            .map(|(index, ((config, state), (ambient, mission, attached)))| {
                let entries: Vec<_> = self
                    .pop
                    .pool
                    .entries
                    .iter()
                    .filter(|e| e.source as usize == index)
                    .collect();
                SourceStatus {
                    id: config.id.clone(),
                    target: config.target_count,
                    capacity: config.capacity,
                    ambient,
                    mission,
                    members: match config.kind {
                        PopulationKind::Ambient => ambient,
                        PopulationKind::Mission => attached,
                    },
                    attached,
                    pending: state.pending,
                    pooled: entries.len() as u64,
                    quarantined: entries.iter().filter(|e| e.in_quarantine(control)).count() as u64,
                    created: state.created,
                    reused: state.reused,
                    generation: state.generation,
                }
            })
            .collect()
    }

    /// Why source `index` did (not) spawn: its status and its rejections by gate.
    pub fn spawn_report(&self, index: usize) -> Option<SpawnReport> {
        let status = self.source_statuses().into_iter().nth(index)?;
        let state = self.pop.sources.get(index)?;
        Some(SpawnReport {
            status,
            rejections: SpawnReport::ranked(&state.rejections),
            last: state.last_rejection,
        })
    }

    /// Why source `index` did or did not spawn at the current frame, and where: that frame's
    /// rejections from the event log, and the candidates the last step drew grouped by place
    /// along the source's route (`None` for a source index out of range).
    pub fn frame_spawn_report(&self, index: usize) -> Option<FrameSpawnReport> {
        let source = self.config.sources.get(index)?;
        let route = self
            .config
            .space
            .routes
            .get(usize::from(source.route))
            .map_or("", |r| r.id.as_str());
        let frame = self.frame;
        // A full rejection ring whose oldest entry is of this frame may have dropped some of it.
        let complete = self.events.dropped(EventKind::Rejected) == 0
            || self
                .events
                .of_kind(EventKind::Rejected)
                .next()
                .is_none_or(|oldest| oldest.frame < frame);
        // Only the frame's rejections and realizations count: read each ring back from its
        // newest event to the first of an earlier frame.
        let frame_events: Vec<Event> = [EventKind::Rejected, EventKind::Realized]
            .into_iter()
            .flat_map(|kind| {
                self.events
                    .of_kind(kind)
                    .rev()
                    .take_while(move |e| e.frame >= frame)
                    .filter(move |e| e.frame == frame)
                    .copied()
            })
            .collect();
        Some(FrameSpawnReport::build(
            frame,
            u16::try_from(index).ok()?,
            &source.id,
            route,
            &frame_events,
            Some(&self.last_candidates),
            complete,
        ))
    }
}

/// The publication's panic mark (`PublishHints::panic_mark`): one past the newest sequence
/// number of a `Panicked` or `Recognised` event, 0 before any.
fn panic_mark(events: &EventLog) -> u64 {
    [EventKind::Panicked, EventKind::Recognised]
        .into_iter()
        .filter_map(|kind| events.latest_seq(kind))
        .max()
        .map_or(0, |seq| seq + 1)
}

/// What an inspector shows of one agent besides its Motion Frame (`World::agent_detail`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentDetail<'w> {
    /// Index of the route it walks (in the space's route order).
    pub route: u16,
    /// Distance along the route, meters.
    pub distance_m: f64,
    /// Walking speed, meters per second.
    pub walk_speed_m_s: f64,
    /// The script that owns it, when claimed.
    pub owner: Option<&'w str>,
}
