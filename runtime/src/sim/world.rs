//! The world: built from a space and a compiled scenario ([`build_world`]), its state, counters
//! and the phase order of one fixed step. The phases themselves live in their own modules
//! (`population`, `tasks`, `motion`), each a function over the sets it reads and changes.

use std::sync::Arc;

use super::agents::{AgentHandle, AgentState, Agents};
use super::motion::motion_phase;
use super::population::{control_phase, Population};
use super::routes::SimRoute;
use super::scenario::{CompiledScenario, SimBuildError, SimDiagnostic, SimProblem};
use super::slots::{SlotError, Slots};
use super::space::SimSpace;
use super::tasks::tasks_phase;
use super::walk::WalkState;
use crate::content::encode::ByteWriter;
use crate::project::{FieldPath, PopulationKind};

/// One population source as the world runs it: its compiled spec with the route resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceConfig {
    /// The source's id.
    pub id: String,
    /// Ambient or Mission.
    pub kind: PopulationKind,
    /// Index of its route in the space.
    pub route: u16,
    /// How many agents it keeps alive.
    pub target_count: u32,
    /// Mean walking speed, meters per second.
    pub walk_speed_m_s: f64,
}

/// Everything that decides a world's evolution besides its state.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Fixed step, seconds.
    pub fixed_step_s: f64,
    /// Root seed of the population domain.
    pub seed: u64,
    /// The content the world runs on.
    pub space: Arc<SimSpace>,
    /// The compiled scenario.
    pub scenario: Arc<CompiledScenario>,
    /// Population sources, in scenario order, with their routes resolved.
    pub sources: Vec<SourceConfig>,
    /// BLAKE3 of the canonical bytes of seed, space and scenario: what a snapshot must match.
    pub digest: [u8; 32],
}

impl WorldConfig {
    /// The routes, in the order agents and sources index them.
    pub fn routes(&self) -> &[SimRoute] {
        &self.space.routes
    }
}

/// Why a birth attempt was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpawnRejection {
    /// The drawn position is inside the no-spawn box.
    NoSpawnBox,
    /// The population sampler exhausted its attempts.
    SamplerExhausted,
    /// Every agent slot is taken (2^32 agents); recorded in the frame's rejections only.
    NoSlot,
}

/// Counters the world publishes every frame; each is distinct, never a sum of others.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Agents alive now.
    pub alive: u64,
    /// Births so far.
    pub births: u64,
    /// Birth attempts rejected by the no-spawn box so far.
    pub rejected_no_spawn_box: u64,
    /// Birth attempts rejected by sampler exhaustion so far.
    pub rejected_sampler: u64,
    /// Directives applied so far.
    pub directives_applied: u64,
    /// Directives whose agent was not born yet so far.
    pub directives_missed: u64,
    /// Agents walking now.
    pub walking: u64,
    /// Agents holding now.
    pub holding: u64,
    /// Agents travelling to a goal now.
    pub travelling: u64,
    /// Agents owned by a script now.
    pub mission: u64,
}

impl Counters {
    /// Every counter with its name, in a fixed order (for plots and logs).
    pub fn rows(&self) -> [(&'static str, u64); 10] {
        [
            ("alive", self.alive),
            ("births", self.births),
            ("rejected: no-spawn box", self.rejected_no_spawn_box),
            ("rejected: sampler", self.rejected_sampler),
            ("directives applied", self.directives_applied),
            ("directives missed", self.directives_missed),
            ("walking", self.walking),
            ("holding", self.holding),
            ("travelling", self.travelling),
            ("mission", self.mission),
        ]
    }
}

/// A running scenario.
#[derive(Clone, Debug)]
pub struct World {
    pub(super) config: Arc<WorldConfig>,
    pub(super) frame: u64,
    pub(super) agents: Agents,
    /// Slot allocator: handles ↔ rows.
    pub(super) slots: Slots,
    /// Handles of each source's agents, in birth order (stale once an agent is removed).
    pub(super) births: Vec<Vec<AgentHandle>>,
    /// Birth attempts made by each source (the event of its next draw).
    pub(super) attempts: Vec<u32>,
    pub(super) counters: Counters,
    /// Rejections of the last step, with the source index.
    pub(super) last_rejections: Vec<(u16, SpawnRejection)>,
    /// Walking's derived data and scratch (not state: snapshots leave it out).
    pub(super) walk: WalkState,
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

    /// The agents.
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// The configuration.
    pub fn config(&self) -> &WorldConfig {
        &self.config
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

    /// The handle of the agent in row `row`.
    pub fn handle_of(&self, row: usize) -> Option<AgentHandle> {
        self.slots.handle_of(row)
    }

    /// The row of a current handle; `None` for a stale one.
    pub fn resolve(&self, handle: AgentHandle) -> Option<usize> {
        self.slots.resolve(handle)
    }

    /// Removes the agent `handle` names: its slot is released (the generation bumps) and the last
    /// row moves into its place. A stale handle changes nothing.
    pub fn remove_agent(&mut self, handle: AgentHandle) -> Result<(), SlotError> {
        let row = self.slots.release(handle)?;
        self.agents.swap_remove(row);
        self.counters.alive = self.agents.len() as u64;
        Ok(())
    }

    /// Birth rejections of the last step, with the index of the source.
    pub fn last_rejections(&self) -> &[(u16, SpawnRejection)] {
        &self.last_rejections
    }

    /// Advances one fixed step: Control, Tasks, Motion, Commit. Each phase is a function over
    /// the explicit sets it reads and changes; the configuration is only read.
    pub fn step(&mut self) {
        self.frame += 1;
        self.last_rejections.clear();
        let config = &*self.config;
        let mut log = Log {
            counters: &mut self.counters,
            rejections: &mut self.last_rejections,
        };
        let population = Population {
            slots: &mut self.slots,
            births: &mut self.births,
            attempts: &mut self.attempts,
        };
        control_phase(config, population, &mut self.agents, &mut log);
        tasks_phase(
            config,
            self.frame,
            &self.slots,
            &self.births,
            &mut self.agents,
            &mut log,
        );
        motion_phase(config, &mut self.walk, &mut self.agents);
        commit_phase(&self.agents, log.counters);
    }
}

/// Counters and the frame's rejections, which every phase may add to.
pub(super) struct Log<'a> {
    pub(super) counters: &'a mut Counters,
    pub(super) rejections: &'a mut Vec<(u16, SpawnRejection)>,
}

impl Log<'_> {
    pub(super) fn reject(&mut self, source_index: usize, reason: SpawnRejection) {
        self.rejections.push((source_index as u16, reason));
        match reason {
            SpawnRejection::NoSpawnBox => self.counters.rejected_no_spawn_box += 1,
            SpawnRejection::SamplerExhausted => self.counters.rejected_sampler += 1,
            SpawnRejection::NoSlot => {}
        }
    }
}

/// Commit: recount the per-frame counters.
fn commit_phase(agents: &Agents, counters: &mut Counters) {
    counters.alive = agents.len() as u64;
    counters.walking = agents.count_in(AgentState::Walking);
    counters.holding = agents.count_in(AgentState::Holding);
    counters.travelling = agents.count_in(AgentState::Travelling);
    counters.mission = agents
        .kind
        .iter()
        .filter(|k| **k == PopulationKind::Mission)
        .count() as u64;
}

/// Builds the world of `scenario` over `space`, seeded with `seed`: the one way a world is made
/// (the editor and `stagecraft simulate` both come here). Every source's route is resolved
/// against the space; the error lists every source whose route the space does not have.
pub fn build_world(
    space: &Arc<SimSpace>,
    scenario: &Arc<CompiledScenario>,
    seed: u64,
) -> Result<World, SimBuildError> {
    let mut sources = Vec::with_capacity(scenario.sources.len());
    let mut diagnostics = Vec::new();
    for (index, source) in scenario.sources.iter().enumerate() {
        let Some(route) = space.route_index(&source.route) else {
            diagnostics.push(SimDiagnostic {
                path: FieldPath::root()
                    .field("sources")
                    .index(index)
                    .field("route"),
                problem: SimProblem::MissingRoute {
                    source_id: source.id.clone(),
                    route: source.route.clone(),
                    known: space.route_ids().map(str::to_owned).collect(),
                },
            });
            continue;
        };
        sources.push(SourceConfig {
            id: source.id.clone(),
            kind: source.kind,
            route,
            target_count: source.target_count,
            walk_speed_m_s: source.walk_speed_m_s,
        });
    }
    if !diagnostics.is_empty() {
        return Err(SimBuildError {
            scenario: scenario.id.clone(),
            diagnostics,
        });
    }
    let mut w = ByteWriter::tagged(b"SIMCFG01");
    w.u64(seed);
    space.write_canonical(&mut w);
    scenario.write_canonical(&mut w);
    let source_count = sources.len();
    Ok(World {
        config: Arc::new(WorldConfig {
            fixed_step_s: scenario.fixed_step_s,
            seed,
            space: Arc::clone(space),
            scenario: Arc::clone(scenario),
            sources,
            digest: w.digest(),
        }),
        frame: 0,
        agents: Agents::default(),
        slots: Slots::default(),
        births: vec![Vec::new(); source_count],
        attempts: vec![0; source_count],
        counters: Counters::default(),
        last_rejections: Vec::new(),
        walk: WalkState::default(),
    })
}
