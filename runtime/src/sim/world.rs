//! The world: built from a space and a compiled scenario ([`build_world`]), the fixed-step
//! phases, counters and digests.

use std::num::NonZeroU32;
use std::sync::Arc;

use super::agents::{AgentHandle, AgentId, AgentRow, AgentState, Agents};
use super::routes::SimRoute;
use super::scenario::{
    Command, CompiledScenario, DirectiveTarget, SimBuildError, SimDiagnostic, SimProblem,
};
use super::slots::{SlotError, Slots};
use super::space::SimSpace;
use crate::content::encode::ByteWriter;
use crate::project::{FieldPath, PopulationKind, Vec2};
use crate::rng::{Address, Domain, DomainKey};

/// Distance within which a travelling agent has arrived, meters (tasks seed: 0.15 m).
pub const ARRIVAL_RADIUS_M: f64 = 0.15;
/// Speed of a fleeing agent, meters per second (crowd seed: 4 m/s).
pub const FLEE_SPEED_M_S: f64 = 4.0;

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
        motion_phase(config, &mut self.agents);
        commit_phase(&self.agents, log.counters);
    }
}

/// The population sets the Control phase changes.
struct Population<'a> {
    slots: &'a mut Slots,
    births: &'a mut [Vec<AgentHandle>],
    attempts: &'a mut [u32],
}

/// Counters and the frame's rejections, which every phase may add to.
struct Log<'a> {
    counters: &'a mut Counters,
    rejections: &'a mut Vec<(u16, SpawnRejection)>,
}

/// Control: each source below its target attempts one birth.
fn control_phase(config: &WorldConfig, p: Population<'_>, agents: &mut Agents, log: &mut Log<'_>) {
    let key = DomainKey::new(config.seed, Domain::Population);
    for (source_index, source) in config.sources.iter().enumerate() {
        if p.births[source_index].len() as u64 >= u64::from(source.target_count) {
            continue;
        }
        let attempt = p.attempts[source_index];
        p.attempts[source_index] = attempt.wrapping_add(1);
        let route = &config.space.routes[source.route as usize];
        let address = |dimension| Address::new(source_index as u64, attempt, dimension);
        let length_cm = (route.length_m() * 100.0)
            .floor()
            .clamp(1.0, u32::MAX as f64) as u32;
        let draws = (
            NonZeroU32::new(length_cm).map(|n| key.sample_bounded(address(0), n)),
            NonZeroU32::new(201).map(|n| key.sample_bounded(address(2), n)),
        );
        let (Some(Ok(distance_cm)), Some(Ok(speed_permille))) = draws else {
            log.reject(source_index, SpawnRejection::SamplerExhausted);
            continue;
        };
        let distance_m = f64::from(distance_cm) / 100.0;
        let (position, along) = route.sample(distance_m);
        if let Some(bounds) = &config.scenario.no_spawn_box {
            // Births stand on the ground (z = 0).
            if bounds.contains([position.x, position.y, 0.0]) {
                log.reject(source_index, SpawnRejection::NoSpawnBox);
                continue;
            }
        }
        let direction: i8 = if key.sample_u32(address(1)) & 1 == 0 {
            1
        } else {
            -1
        };
        let Ok(handle) = p.slots.allocate() else {
            log.reject(source_index, SpawnRejection::NoSlot);
            continue;
        };
        let ordinal = p.births[source_index].len() as u32;
        agents.push(AgentRow {
            id: AgentId::new(source_index as u16, ordinal).bits(),
            generation: handle.generation,
            source: source_index as u16,
            route: source.route,
            distance_m,
            speed_m_s: source.walk_speed_m_s * (900.0 + f64::from(speed_permille)) / 1000.0,
            position,
            facing: scale(along, f64::from(direction)),
            safe_distance_m: 0.0,
            direction,
            state: AgentState::Walking,
            resume: AgentState::Walking,
            kind: source.kind,
            target: None,
            owner: None,
            steps: 0,
        });
        p.births[source_index].push(handle);
        log.counters.births += 1;
    }
}

impl Log<'_> {
    fn reject(&mut self, source_index: usize, reason: SpawnRejection) {
        self.rejections.push((source_index as u16, reason));
        match reason {
            SpawnRejection::NoSpawnBox => self.counters.rejected_no_spawn_box += 1,
            SpawnRejection::SamplerExhausted => self.counters.rejected_sampler += 1,
            SpawnRejection::NoSlot => {}
        }
    }
}

/// Tasks: apply the directives due this frame, in file order.
fn tasks_phase(
    config: &WorldConfig,
    frame: u64,
    slots: &Slots,
    births: &[Vec<AgentHandle>],
    agents: &mut Agents,
    log: &mut Log<'_>,
) {
    let directives = &config.scenario.directives;
    let start = directives.partition_point(|d| d.frame < frame);
    for directive in directives[start..].iter().take_while(|d| d.frame == frame) {
        let DirectiveTarget::Born { source, ordinal } = directive.target;
        let handle = births
            .get(usize::from(source))
            .and_then(|births| births.get(ordinal as usize));
        match handle.and_then(|handle| slots.resolve(*handle)) {
            Some(row) => {
                apply(agents, row, &directive.command);
                log.counters.directives_applied += 1;
            }
            None => log.counters.directives_missed += 1,
        }
    }
}

fn apply(agents: &mut Agents, row: usize, command: &Command) {
    match command {
        Command::Claim { owner } => {
            agents.kind[row] = PopulationKind::Mission;
            agents.owner[row] = Some(owner.clone());
        }
        Command::Release => {
            agents.kind[row] = PopulationKind::Ambient;
            agents.owner[row] = None;
        }
        Command::Rendezvous { goal } | Command::Redirect { goal } => {
            agents.target[row] = Some(*goal);
            agents.state[row] = AgentState::Travelling;
        }
        Command::Hold => {
            if agents.state[row] != AgentState::Holding {
                agents.resume[row] = agents.state[row];
                agents.state[row] = AgentState::Holding;
            }
        }
        Command::Continue => {
            if agents.state[row] == AgentState::Holding {
                agents.state[row] = agents.resume[row];
            }
        }
        Command::Cancel => {
            agents.target[row] = None;
            agents.state[row] = AgentState::Arrived;
        }
        Command::Escape {
            threat,
            safe_distance_m,
        } => {
            agents.target[row] = Some(*threat);
            agents.safe_distance_m[row] = *safe_distance_m;
            agents.state[row] = AgentState::Fleeing;
        }
    }
}

/// Motion: every agent advances by one fixed step according to its state.
fn motion_phase(config: &WorldConfig, agents: &mut Agents) {
    let dt = config.fixed_step_s;
    for row in 0..agents.len() {
        agents.steps[row] += 1;
        match agents.state[row] {
            AgentState::Walking => {
                let route = &config.space.routes[agents.route[row] as usize];
                let length = route.length_m();
                let mut distance = agents.distance_m[row]
                    + f64::from(agents.direction[row]) * agents.speed_m_s[row] * dt;
                if distance > length {
                    distance = 2.0 * length - distance;
                    agents.direction[row] = -1;
                } else if distance < 0.0 {
                    distance = -distance;
                    agents.direction[row] = 1;
                }
                let distance = distance.clamp(0.0, length);
                let (position, along) = route.sample(distance);
                agents.distance_m[row] = distance;
                agents.position[row] = position;
                agents.facing[row] = scale(along, f64::from(agents.direction[row]));
            }
            AgentState::Travelling => {
                let Some(goal) = agents.target[row] else {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                };
                let here = agents.position[row];
                let (dx, dy) = (goal.x - here.x, goal.y - here.y);
                let remaining = dx.hypot(dy);
                let stride = agents.speed_m_s[row] * dt;
                if remaining <= ARRIVAL_RADIUS_M || remaining <= stride {
                    agents.position[row] = goal;
                    agents.state[row] = AgentState::Arrived;
                } else {
                    let unit = Vec2 {
                        x: dx / remaining,
                        y: dy / remaining,
                    };
                    agents.position[row] = Vec2 {
                        x: here.x + unit.x * stride,
                        y: here.y + unit.y * stride,
                    };
                    agents.facing[row] = unit;
                }
            }
            AgentState::Fleeing => {
                let Some(threat) = agents.target[row] else {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                };
                let here = agents.position[row];
                let (dx, dy) = (here.x - threat.x, here.y - threat.y);
                let distance = dx.hypot(dy);
                if distance > agents.safe_distance_m[row] {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                }
                // Coincident with the threat: flee along the current facing (tasks seed).
                let away = if distance > 0.0 {
                    Vec2 {
                        x: dx / distance,
                        y: dy / distance,
                    }
                } else {
                    agents.facing[row]
                };
                agents.position[row] = Vec2 {
                    x: here.x + away.x * FLEE_SPEED_M_S * dt,
                    y: here.y + away.y * FLEE_SPEED_M_S * dt,
                };
                agents.facing[row] = away;
            }
            AgentState::Holding | AgentState::Arrived => {}
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

fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
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
    })
}
