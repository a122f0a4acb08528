//! The simulation's compile-time estimate of a run: how much work (agent steps and population
//! cycles) and memory (the world, the Timeline's checkpoints, the bounded histories and event
//! log, the births table) a run of a compiled scenario could need, from its numbers alone, and
//! the problems when it is past the work ceiling or the memory budget. `stagecraft check`
//! (`recipe::check`) and `stagecraft simulate` enforce it, as the recipe compiler enforces a
//! scatter's capacity estimate against the same budget (`--memory-budget-mib`).
//!
//! The estimate is an upper bound of what the numbers allow, never a measurement: it reads no
//! space, runs nothing and is the same on every machine of one word size.

use std::mem::size_of;

use super::config::{Command, CompiledScenario};
use super::events::{Event, EVENTS_PER_KIND, EVENT_KINDS};
use super::history::MAX_HISTORY_FRAMES;
use super::motion::MotionCounters;
use super::problems::{SimDiagnostic, SimProblem};
use super::timeline::{CHECKPOINT_INTERVAL_FRAMES, MAX_CHECKPOINTS};
use crate::project::FieldPath;
use crate::sim::state::Counters;

/// The most work one run may take: agent steps plus population cycles, summed over its frames.
/// At about a microsecond each that is over an hour of one core; a run past it is refused as a
/// stage past `MAX_STAGE_CANDIDATES` is.
pub const MAX_SIM_WORK: u64 = 1 << 32;

/// Bytes one agent (a pedestrian, a pooled ped or a vehicle) holds in a live world: its agent
/// columns, its Motion Frame, its tasks, crossing and spatial-grid entries, with the vectors'
/// growth slack. The canonical row is about 300 bytes; rounded up generously.
pub const BYTES_PER_AGENT: u64 = 2048;

/// Bytes one agent adds to each checkpoint (a snapshot clones its columns and tasks).
pub const BYTES_PER_AGENT_SNAPSHOT: u64 = 1024;

/// Bytes one birth adds to the births table (an `AgentId` resolves through it), in the world and
/// in every checkpoint.
pub const BYTES_PER_BIRTH: u64 = size_of::<super::state::AgentHandle>() as u64;

/// What a run of a compiled scenario could need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimEstimate {
    /// The frames the run steps.
    pub frames: u64,
    /// The most agents alive at once: every source's capacity (its target when it gives none),
    /// the reuse pool and every vehicle source's target.
    pub peak_agents: u64,
    /// The most population cycles (pedestrian and vehicle) one step plans.
    pub cycles_per_step: u64,
    /// The most births the run can make (each is one entry of the births table).
    pub births: u64,
    /// Agent steps plus population cycles over the run.
    pub work: u64,
    /// The world's agents in memory, bytes.
    pub agent_bytes: u64,
    /// The births table in memory (with every checkpoint's copy), bytes.
    pub birth_bytes: u64,
    /// Everything else: checkpoints' agents, the bounded counters history and event logs, bytes.
    pub bounded_bytes: u64,
}

impl SimEstimate {
    /// The estimate of a run of `frames` frames of `scenario` (as the editor's Timeline holds
    /// it: the world, up to `MAX_CHECKPOINTS + 1` checkpoints, the counters history).
    pub fn of(scenario: &CompiledScenario, frames: u64) -> SimEstimate {
        let peak_agents = peak_agents(scenario);
        let (ped_cycles, vehicle_cycles) = cycles_per_step(scenario);
        let cycles_per_step = ped_cycles.saturating_add(vehicle_cycles);
        let births = births(scenario, frames, peak_agents, ped_cycles);
        let checkpoints = checkpoints(frames);
        let work = frames.saturating_mul(peak_agents.saturating_add(cycles_per_step));
        let agent_bytes = peak_agents.saturating_mul(BYTES_PER_AGENT);
        let birth_bytes = births
            .saturating_mul(BYTES_PER_BIRTH)
            .saturating_mul(checkpoints + 1);
        let event_log = (EVENT_KINDS.len() * EVENTS_PER_KIND * size_of::<Event>()) as u64;
        let history_frame =
            (size_of::<(u64, Counters)>() + size_of::<(u64, MotionCounters)>()) as u64;
        let bounded_bytes = peak_agents
            .saturating_mul(BYTES_PER_AGENT_SNAPSHOT)
            .saturating_add(event_log)
            .saturating_mul(checkpoints)
            .saturating_add(event_log)
            .saturating_add((MAX_HISTORY_FRAMES as u64).saturating_mul(history_frame));
        SimEstimate {
            frames,
            peak_agents,
            cycles_per_step,
            births,
            work,
            agent_bytes,
            birth_bytes,
            bounded_bytes,
        }
    }

    /// The memory the run could need, bytes.
    pub fn bytes(&self) -> u64 {
        self.agent_bytes
            .saturating_add(self.birth_bytes)
            .saturating_add(self.bounded_bytes)
    }

    /// What is past the work ceiling or `memory_budget_bytes`, each located at the field of
    /// `scenario` that drives it most.
    pub fn problems(
        &self,
        scenario: &CompiledScenario,
        memory_budget_bytes: u64,
    ) -> Vec<SimDiagnostic> {
        let mut found = Vec::new();
        if self.work > MAX_SIM_WORK {
            let per_step = self.peak_agents.saturating_add(self.cycles_per_step);
            let path = if self.cycles_per_step > self.peak_agents {
                FieldPath::root().field("population")
            } else {
                FieldPath::root().field("duration_frames")
            };
            found.push(SimDiagnostic {
                path,
                problem: SimProblem::OverWork {
                    frames: self.frames,
                    per_step,
                    work: self.work,
                    ceiling: MAX_SIM_WORK,
                },
            });
        }
        let bytes = self.bytes();
        if bytes > memory_budget_bytes {
            let path = if self.birth_bytes > self.agent_bytes {
                FieldPath::root().field("duration_frames")
            } else {
                largest_population(scenario)
            };
            found.push(SimDiagnostic {
                path,
                problem: SimProblem::OverMemory {
                    bytes,
                    budget: memory_budget_bytes,
                },
            });
        }
        found
    }
}

/// The most agents alive at once.
fn peak_agents(scenario: &CompiledScenario) -> u64 {
    let peds: u64 = scenario
        .sources
        .iter()
        .map(|s| u64::from(s.capacity.max(s.target_count)))
        .sum();
    let vehicles: u64 = scenario
        .vehicle_sources
        .iter()
        .map(|v| u64::from(v.target_count))
        .sum();
    peds.saturating_add(vehicles)
        .saturating_add(u64::from(scenario.population.pool_capacity))
}

/// The (pedestrian, vehicle) cycles one step plans: each clock's rate over the accepted step,
/// rounded up (an instant fill's few extra cycles are counted with its births).
fn cycles_per_step(scenario: &CompiledScenario) -> (u64, u64) {
    let clocks = &scenario.population.clocks;
    let accepted_s = scenario.fixed_step_s.min(clocks.max_frame_time_s);
    let whole = |rate: f64| {
        let cycles = (accepted_s * rate).ceil();
        // A non-finite or huge rate is the compiler's problem; here it only saturates.
        if cycles.is_finite() && cycles >= 0.0 && cycles < u64::MAX as f64 {
            cycles as u64
        } else {
            u64::MAX
        }
    };
    (whole(clocks.ped.rate()), whole(clocks.vehicle.rate()))
}

/// The most births a run can make: each pedestrian cycle admits at most one batch, and no step
/// births more than the peak population; the opening fill and every `InstantFill` may add up to
/// a whole population through their extra cycles.
fn births(scenario: &CompiledScenario, frames: u64, peak_agents: u64, ped_cycles: u64) -> u64 {
    let batch = scenario
        .sources
        .iter()
        .map(|s| u64::from(s.batch_size))
        .max()
        .unwrap_or(0);
    let per_step = ped_cycles.saturating_mul(batch).min(peak_agents);
    let fills = 1 + scenario
        .directives
        .iter()
        .filter(|d| matches!(d.command, Command::InstantFill))
        .count() as u64;
    frames
        .saturating_mul(per_step)
        .saturating_add(fills.saturating_mul(peak_agents))
}

/// The checkpoints the Timeline holds at most over `frames` frames (frame 0's included).
fn checkpoints(frames: u64) -> u64 {
    (frames / CHECKPOINT_INTERVAL_FRAMES + 1).min(MAX_CHECKPOINTS as u64 + 1)
}

/// The field of the largest population number: a source's capacity (or target), the pool or a
/// vehicle source's target.
fn largest_population(scenario: &CompiledScenario) -> FieldPath {
    let root = FieldPath::root();
    let mut best = (
        u64::from(scenario.population.pool_capacity),
        root.field("population").field("pool_capacity"),
    );
    for (index, source) in scenario.sources.iter().enumerate() {
        let field = if source.capacity > source.target_count {
            "capacity"
        } else {
            "target_count"
        };
        let count = u64::from(source.capacity.max(source.target_count));
        if count > best.0 {
            best = (count, root.field("sources").index(index).field(field));
        }
    }
    for (index, vehicles) in scenario.vehicle_sources.iter().enumerate() {
        if u64::from(vehicles.target_count) > best.0 {
            best = (
                u64::from(vehicles.target_count),
                root.field("vehicle_sources")
                    .index(index)
                    .field("target_count"),
            );
        }
    }
    best.1
}
