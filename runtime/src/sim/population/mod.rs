//! The population lifecycle: Control (one observation per update, the startup and cleanup
//! requests, the cycle clocks) and the Population phase (vehicle cycles before ped cycles; a ped
//! cycle retires at most one ped, repays spillover or works one demand). Each mechanism lives in
//! its own module with its own state and rejection type:
//!
//! - `cycles`: the two clocks; `demand`: demands and batch spillover;
//! - `admission`: the gates and the props' collision index; `realize`: batches with rollback;
//! - `retire`: eligibility and the spatial rule; `pool`: the reuse pool and quarantine;
//! - `claims`: script ownership; `boxes`: the two box slots; `startup`: hidden startup;
//! - `vehicles`: lane-following vehicles; `report`: read APIs for panels.
//!
//! Births and removals made here are staged ([`Staged`]) and applied in Commit, so a batch's
//! rollback only has to withdraw staged work.

mod admission;
mod boxes;
mod claims;
mod cycles;
mod demand;
mod extra;
mod pool;
mod realize;
mod report;
mod retire;
mod startup;
pub mod vehicles;

#[cfg(test)]
mod tests;

use std::num::NonZeroU32;

pub use crate::sim::state::{ClaimRefusal, RetireRefusal, RetireRule, SpawnRejection, Vehicles};
use admission::against_signal;
pub use admission::{
    admit, capsule_blocked, Gates, CAPSULE_ALLOWANCE_M, CAPSULE_HALF_HEIGHT_M, CAPSULE_RADIUS_M,
    CROSSING_CLEARANCE_M, PED_CLEARANCE_M, SPAWN_REJECTIONS,
};
pub use boxes::Boxes;
pub use claims::claim;
pub use claims::release;
pub use claims::ClaimOutcome;
pub use cycles::{CycleClocks, CyclePlan, DEBT_TOLERANCE};

pub use demand::{Demand, Spillover};
pub use extra::ExtraDistance;
pub use pool::{
    source_eligible, Acquire, Destination, Pool, PoolEntry, PoolRefusal, PoolTicket, StaleTicket,
    UpdateFlags, NO_BINDING, QUARANTINE_FRAMES,
};
pub use report::{CandidateMark, FrameSpawnReport, PlaceOutcome, SourceStatus, SpawnReport};
pub use retire::{eligibility, spatial, SUPPRESS_CLEANUP_MULTIPLIER};
pub use startup::{
    Startup, StartupError, DEFAULT_FORCED_INIT_MS, EARLY_COMPLETION_MS, FULL_FADE,
    FULL_FADE_STREAK, HIDDEN_ATTEMPTS, HIDDEN_FADE, INSTANT_FILL_EXTRA_CYCLES,
    INSTANT_FILL_UPDATES, VISIBLE_ATTEMPTS,
};

use super::config::{SourceConfig, WorldConfig};
use super::crossings::{CrosswalkAgent, GroupMember, Liveness, SignalState};
use super::events::{EventDetail, EventKind, EventLog, EventPosition, RemovalCause};

use super::motion::panic::NO_EXIT;
use super::motion::scale;
use super::motion::tiers::stable_hash;
use super::observers::{Observation, ObserverState};
use super::spatial::{at_most_screen_sq, hypot_at_most};

use crate::project::{PopulationKind, Vec2, VehicleRelation};
use crate::rng::{Address, Domain, DomainKey};
use crate::sim::state::AgentHandle;
use crate::sim::state::AgentId;
use crate::sim::state::AgentRow;
use crate::sim::state::AgentState;
use crate::sim::state::Agents;
use crate::sim::state::Counters;
use crate::sim::state::Slots;
use crate::sim::state::TaskLedger;
use crate::sim::state::Tier;
use crate::sim::state::WalkDecision;

/// What one source's population state holds.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceState {
    /// The source's generation (epoch): bumped when a new use of the source begins, so a ped
    /// retired during one use can rejoin the same source only in a later one (same-source reuse
    /// needs `retired generation < current generation`). A use is a run of admitted batches with
    /// no observer refusal (no valid view, too close, in view, out of range) between them: the
    /// first batch admitted after such a refusal (or the first ever) begins a new use.
    pub generation: u32,
    /// Whether the source is in a use (see `generation`).
    pub in_use: bool,
    /// Its pending demand, if any.
    pub pending: Option<Demand>,
    /// Candidates drawn so far (the event of its next draw).
    pub draws: u32,
    /// Rejections so far, indexed by [`SpawnRejection`] code.
    pub rejections: Vec<u64>,
    /// The last rejection and its frame.
    pub last_rejection: Option<(u64, SpawnRejection)>,
    /// New entities created so far.
    pub created: u64,
    /// Pooled entities readmitted so far.
    pub reused: u64,
}

/// Counts that are distinct numbers, never sums of each other.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PopulationStats {
    /// Ped cycles planned (processing opportunities).
    pub planned_ped_cycles: u64,
    /// Vehicle cycles planned.
    pub planned_vehicle_cycles: u64,
    /// Demands enqueued.
    pub demands_enqueued: u64,
    /// Batches realized completely.
    pub batches_realized: u64,
    /// Retirements (into the pool or destroyed).
    pub retirements: u64,
    /// Pool entries made.
    pub pool_entries: u64,
    /// Peds destroyed (explicitly, by eviction, by a retirement the pool refused, by rollback).
    pub destroyed: u64,
    /// Batches rolled back.
    pub rollbacks: u64,
    /// Rollbacks whose compensation did not complete.
    pub rollbacks_failed: u64,
}

/// Everything population owns that changes as the world steps.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct PopulationState {
    /// The two clocks.
    pub clocks: CycleClocks,
    /// Ped creation spillover.
    pub ped_spillover: Spillover,
    /// Per source, in scenario order.
    pub sources: Vec<SourceState>,
    /// The next source a ped cycle looks at first.
    pub ped_cursor: u32,
    /// The next vehicle source a vehicle cycle looks at first.
    pub vehicle_cursor: u32,
    /// The reuse pool.
    pub pool: Pool,
    /// The two box slots.
    pub boxes: Boxes,
    /// Hidden startup.
    pub startup: Startup,
    /// Availability of each appearance family (scenario order of families).
    pub families_available: Vec<bool>,
    /// A suppress-cleanup request waiting for the next Control update.
    pub suppress_requested: bool,
    /// Whether this update's cleanup is suppressed (consumed from the request).
    pub suppress_active: bool,
    /// Control updates so far (quarantine counts these, never cycles or attempts).
    pub control_frame: u64,
    /// Realization batches attempted so far (the fault hook names one by this ordinal).
    pub batches: u64,
    /// Observers' fade and validity.
    pub observers: Vec<ObserverState>,
    /// The vehicles.
    pub vehicles: Vehicles,
    /// Counters.
    pub stats: PopulationStats,
    /// The last frame a `PausePopulation` keeps the clocks paused, while one does.
    pub paused_until_frame: Option<u64>,
    /// The ordinary and task extra-distance flags.
    #[serde(default)]
    pub extra: ExtraDistance,
}

impl PopulationState {
    /// The state a world starts with.
    pub fn new(config: &WorldConfig) -> PopulationState {
        let scenario = &config.scenario;
        PopulationState {
            clocks: CycleClocks::default(),
            ped_spillover: Spillover::default(),
            sources: vec![
                SourceState {
                    rejections: vec![0; SPAWN_REJECTIONS.len()],
                    ..SourceState::default()
                };
                config.sources.len()
            ],
            ped_cursor: 0,
            vehicle_cursor: 0,
            pool: Pool::new(scenario.population.pool_capacity),
            boxes: Boxes {
                no_spawn: scenario.no_spawn_box,
                no_removal: scenario.no_removal_box,
            },
            startup: Startup::at_world_start(scenario.population.startup_at_world_start),
            families_available: vec![true; scenario.families.len()],
            suppress_requested: false,
            suppress_active: false,
            control_frame: 0,
            batches: 0,
            observers: scenario
                .observers
                .iter()
                .map(ObserverState::initial)
                .collect(),
            vehicles: Vehicles::default(),
            stats: PopulationStats::default(),
            paused_until_frame: None,
            extra: ExtraDistance::default(),
        }
    }

    /// Whether the sizes agree with `config` (a restore preflight).
    pub fn fits(&self, config: &WorldConfig) -> bool {
        self.sources.len() == config.sources.len()
            && self
                .sources
                .iter()
                .all(|s| s.rejections.len() == SPAWN_REJECTIONS.len())
            && self.families_available.len() == config.scenario.families.len()
            && self.observers.len() == config.scenario.observers.len()
            && self.vehicles.source.len() == self.vehicles.lane.len()
            && self.vehicles.lane.len() == self.vehicles.distance_m.len()
            && self
                .vehicles
                .source
                .iter()
                .all(|s| (*s as usize) < config.vehicle_sources.len())
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(b"POPSTA01");
        self.clocks.write_canonical(bytes);
        bytes.extend_from_slice(&self.ped_spillover.outstanding.to_le_bytes());
        for s in &self.sources {
            bytes.extend_from_slice(&s.generation.to_le_bytes());
            bytes.push(u8::from(s.in_use));
            match s.pending {
                Some(d) => {
                    bytes.push(1);
                    bytes.extend_from_slice(&d.batch.to_le_bytes());
                    bytes.extend_from_slice(&d.enqueued_frame.to_le_bytes());
                    bytes.extend_from_slice(&d.attempts.to_le_bytes());
                }
                None => bytes.push(0),
            }
            bytes.extend_from_slice(&s.draws.to_le_bytes());
            for r in &s.rejections {
                bytes.extend_from_slice(&r.to_le_bytes());
            }
            let (frame, code) = s
                .last_rejection
                .map_or((u64::MAX, u8::MAX), |(f, r)| (f, r as u8));
            bytes.extend_from_slice(&frame.to_le_bytes());
            bytes.push(code);
            bytes.extend_from_slice(&s.created.to_le_bytes());
            bytes.extend_from_slice(&s.reused.to_le_bytes());
        }
        bytes.extend_from_slice(&self.ped_cursor.to_le_bytes());
        bytes.extend_from_slice(&self.vehicle_cursor.to_le_bytes());
        self.pool.write_canonical(bytes);
        self.boxes.write_canonical(bytes);
        self.startup.write_canonical(bytes);
        bytes.extend(self.families_available.iter().map(|a| u8::from(*a)));
        bytes.push(u8::from(self.suppress_requested));
        bytes.push(u8::from(self.suppress_active));
        bytes.extend_from_slice(&self.control_frame.to_le_bytes());
        bytes.extend_from_slice(&self.batches.to_le_bytes());
        for o in &self.observers {
            o.write_canonical(bytes);
        }
        self.vehicles.write_canonical(bytes);
        let s = &self.stats;
        for v in [
            s.planned_ped_cycles,
            s.planned_vehicle_cycles,
            s.demands_enqueued,
            s.batches_realized,
            s.retirements,
            s.pool_entries,
            s.destroyed,
            s.rollbacks,
            s.rollbacks_failed,
        ] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        // Only while a pause holds, so worlds that never pause keep their bytes.
        if let Some(frame) = self.paused_until_frame {
            bytes.extend_from_slice(b"PAUSED01");
            bytes.extend_from_slice(&frame.to_le_bytes());
        }
        // Nothing while no ped is flagged, so worlds that never flag keep their bytes.
        self.extra.write_canonical(bytes);
    }

    /// Pauses the clocks from the next Control update through frame `until_frame` (a repeat
    /// extends the pause, never shortens it).
    pub fn pause_until(&mut self, until_frame: u64) {
        self.paused_until_frame = Some(
            self.paused_until_frame
                .map_or(until_frame, |f| f.max(until_frame)),
        );
    }
}

/// Births and removals made during the phases, applied in Commit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Staged {
    /// New agents in slot-allocation order (each handle's slot already maps to the row its
    /// push will create).
    pub births: Vec<(AgentHandle, AgentRow)>,
    /// Agents to remove (a stale or repeated handle is ignored).
    pub removals: Vec<AgentHandle>,
}

impl Staged {
    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.births.is_empty() && self.removals.is_empty()
    }
}

/// The sets the population phases change; `T` is the task sets' [`TaskLedger`] (the tasks live
/// above the population, which asks them only what the ledger offers).
pub(in crate::sim) struct Sets<'a, T> {
    pub(in crate::sim) frame: u64,
    pub(in crate::sim) state: &'a mut PopulationState,
    pub(in crate::sim) agents: &'a mut Agents,
    pub(in crate::sim) slots: &'a mut Slots,
    pub(in crate::sim) births: &'a mut [Vec<AgentHandle>],
    pub(in crate::sim) staged: &'a mut Staged,
    pub(in crate::sim) events: &'a mut EventLog,
    pub(in crate::sim) counters: &'a mut Counters,
    pub(in crate::sim) rejections: &'a mut Vec<(u16, SpawnRejection)>,
    /// The candidates this step drew, with their admission results.
    pub(in crate::sim) candidates: &'a mut Vec<CandidateMark>,
    /// The task sets (retirement eligibility reads them; the Tasks phase changes them).
    pub(in crate::sim) tasks: &'a mut T,
    /// The signals as the last step left them (admission's crossing conflict reads them).
    pub(in crate::sim) signals: &'a [SignalState],
    /// The physical scene's obstacles (admission's capsule reads them; directives change them).
    pub(in crate::sim) scene: &'a mut crate::sim::obstacles::SceneState,
}

/// The row a current handle names, if that row exists yet (staged births have none).
pub(in crate::sim) fn live_row(
    slots: &Slots,
    agents: &Agents,
    handle: AgentHandle,
) -> Option<usize> {
    slots.resolve(handle).filter(|row| *row < agents.len())
}

/// Control: one observation for the whole update, quarantine's frame, the cleanup request,
/// the startup state and the cycle plan. The clocks advance by the fixed step, accepted up to
/// the maximum frame time; while a `PausePopulation` holds they add no debt and plan nothing
/// (instant fill's extra cycles included), keeping what they owe and every pending demand.
pub(in crate::sim) fn control_phase(
    config: &WorldConfig,
    frame: u64,
    state: &mut PopulationState,
) -> (Observation, CyclePlan) {
    let scenario = &config.scenario;
    let observation = Observation::take(&scenario.observers, &state.observers, frame);
    state.control_frame += 1;
    state.suppress_active = std::mem::take(&mut state.suppress_requested);
    state.extra.control_update();
    let now_ms = (frame as f64 * config.fixed_step_s * 1000.0).round() as u64;
    let pending = state.sources.iter().any(|s| s.pending.is_some());
    state.startup.control_update(now_ms, &observation, pending);
    let paused = state.paused_until_frame.is_some_and(|until| frame <= until);
    if !paused {
        state.paused_until_frame = None;
    }
    let mut plan = state
        .clocks
        .advance(&scenario.population.clocks, config.fixed_step_s, !paused);
    if !paused {
        plan.ped += state.startup.extra_ped_cycles();
    }
    (observation, plan)
}

/// Population: vehicle cycles, then ped cycles; the instant fill counts down once.
pub(in crate::sim) fn population_phase<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    plan: CyclePlan,
    sets: &mut Sets<'_, T>,
) {
    for _ in 0..plan.vehicle {
        sets.state.stats.planned_vehicle_cycles += 1;
        let state = &mut *sets.state;
        state
            .vehicles
            .cycle(&config.vehicle_sources, &mut state.vehicle_cursor);
    }
    for _ in 0..plan.ped {
        ped_cycle(config, observation, sets);
    }
    let (agents, staged) = (&*sets.agents, &*sets.staged);
    let filled = || no_source_short(config, agents, staged);
    sets.state.startup.after_population_update(filled);
}

/// Whether every source has its target: ambient members of an ambient source, attached peds of
/// a mission source.
fn no_source_short(config: &WorldConfig, agents: &Agents, staged: &Staged) -> bool {
    let counts = member_counts(config.sources.len(), agents, staged);
    config.sources.iter().zip(counts).all(|(source, counts)| {
        let members = match source.kind {
            PopulationKind::Ambient => counts.0,
            PopulationKind::Mission => counts.2,
        };
        members >= u64::from(source.target_count)
    })
}

/// One ped cycle: retire at most one ped, then repay spillover or work one demand.
fn ped_cycle<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
) {
    sets.state.stats.planned_ped_cycles += 1;
    retire_one(config, observation, sets);
    if sets.state.ped_spillover.repay() {
        return;
    }
    let Some((source, batch)) = next_source(config, sets) else {
        return;
    };
    attempt(config, observation, sets, source, batch);
}

/// Per-source `(ambient, mission, attached)` members: unpooled rows and staged births.
pub(in crate::sim) fn member_counts(
    sources: usize,
    agents: &Agents,
    staged: &Staged,
) -> Vec<(u64, u64, u64)> {
    let mut counts = vec![(0, 0, 0); sources];
    let mut count = |source: u16, kind: PopulationKind| {
        let Some(c) = counts.get_mut(usize::from(source)) else {
            return;
        };
        match kind {
            PopulationKind::Ambient => c.0 += 1,
            PopulationKind::Mission => c.1 += 1,
        }
        c.2 += 1;
    };
    let rows = agents.pooled.iter().zip(&agents.source).zip(&agents.kind);
    for ((pooled, source), kind) in rows {
        if !*pooled {
            count(*source, *kind);
        }
    }
    for (_, row) in &staged.births {
        count(row.source, row.kind);
    }
    counts
}

/// The first source from the cursor that is short of its target, with the batch its demand
/// asks for: its batch size, but never more than the shortfall (a single-person shortfall is a
/// single-agent demand, never a batch that overshoots the target). A pending demand follows the
/// shortfall (the batch is recomputed at every attempt); a source no longer short withdraws it. Capacity is checked against the whole batch before anything is admitted: a batch that
/// would take the source's attached peds past its capacity is refused (`CapacityFull`) and the
/// cycle is spent.
fn next_source<T: TaskLedger>(
    config: &WorldConfig,
    sets: &mut Sets<'_, T>,
) -> Option<(usize, u32)> {
    let count = config.sources.len();
    let counts = member_counts(count, sets.agents, sets.staged);
    for step in 0..count {
        let index = (sets.state.ped_cursor as usize + step) % count;
        let source = &config.sources[index];
        let (ambient, _, attached) = counts[index];
        let members = match source.kind {
            PopulationKind::Ambient => ambient,
            PopulationKind::Mission => attached,
        };
        let shortfall = u64::from(source.target_count).saturating_sub(members);
        let state = &mut sets.state.sources[index];
        if shortfall == 0 {
            state.pending = None;
            continue;
        }
        let batch = source
            .batch_size
            .max(1)
            .min(u32::try_from(shortfall).unwrap_or(u32::MAX));
        if let Some(demand) = state.pending.as_mut() {
            demand.batch = batch;
        }
        sets.state.ped_cursor = ((index + 1) % count) as u32;
        if attached + u64::from(batch) > u64::from(source.capacity) {
            reject(sets, index, SpawnRejection::CapacityFull);
            return None;
        }
        return Some((index, batch));
    }
    None
}

/// Records a rejection for `source`: the event, the per-source table, the frame's list.
pub(in crate::sim) fn reject<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    source: usize,
    reason: SpawnRejection,
) {
    reject_at(sets, source, reason, None);
}

/// [`reject`] of a refused candidate standing at `position` (`None`: a refusal of the demand or
/// batch, before or after any candidate).
fn reject_at<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    source: usize,
    reason: SpawnRejection,
    position: Option<Vec2>,
) {
    sets.events.push_at(
        sets.frame,
        EventKind::Rejected,
        None,
        Some(source as u16),
        EventDetail::Rejection(reason),
        position.map(EventPosition::of),
    );
    let s = &mut sets.state.sources[source];
    s.rejections[reason as usize] += 1;
    s.last_rejection = Some((sets.frame, reason));
    sets.rejections.push((source as u16, reason));
    match reason {
        SpawnRejection::NoSpawnBox => sets.counters.rejected_no_spawn_box += 1,
        SpawnRejection::SamplerExhausted => sets.counters.rejected_sampler += 1,
        _ => {}
    }
    sets.counters.rejected += 1;
}

/// A candidate: where along its source's route it stands and how it will walk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Route progress, meters (the admitted position is this progress's point).
    pub distance_m: f64,
    /// Ground position of the feet root.
    pub position: Vec2,
    /// Unit route direction at that progress.
    pub along: Vec2,
    /// +1 or −1.
    pub direction: i8,
    /// Walking speed, meters per second.
    pub speed_m_s: f64,
}

impl Candidate {
    /// The feet root in 3D (peds stand on the ground, z = 0).
    pub fn feet_m(&self) -> [f64; 3] {
        [self.position.x, self.position.y, 0.0]
    }
}

/// Draws the next candidate of `source` (authored progresses in turn, or a drawn one).
fn draw(config: &WorldConfig, state: &mut SourceState, index: usize) -> Option<Candidate> {
    let source = &config.sources[index];
    let key = DomainKey::new(config.seed, Domain::Population);
    let draw = state.draws;
    state.draws = draw.wrapping_add(1);
    let address = |dimension| Address::new(index as u64, draw, dimension);
    let route = &config.space.routes[source.route as usize];
    let distance_m = if source.candidates_m.is_empty() {
        let length_cm = (route.length_m() * 100.0)
            .floor()
            .clamp(1.0, u32::MAX as f64) as u32;
        let cm = key
            .sample_bounded(address(0), NonZeroU32::new(length_cm)?)
            .ok()?;
        f64::from(cm) / 100.0
    } else {
        source.candidates_m[draw as usize % source.candidates_m.len()]
    };
    let permille = key.sample_bounded(address(2), NonZeroU32::new(201)?).ok()?;
    let direction: i8 = if key.sample_u32(address(1)) & 1 == 0 {
        1
    } else {
        -1
    };
    let (position, along) = route.sample(distance_m);
    Some(Candidate {
        distance_m,
        position,
        along,
        direction,
        speed_m_s: source.walk_speed_m_s * (900.0 + f64::from(permille)) / 1000.0,
    })
}

/// Ground positions of every registered, unpooled ped, staged births included.
fn ped_positions(agents: &Agents, staged: &Staged) -> Vec<[f64; 2]> {
    (0..agents.len())
        .filter(|r| !agents.pooled[*r])
        .map(|r| [agents.position[r].x, agents.position[r].y])
        .chain(
            staged
                .births
                .iter()
                .map(|(_, row)| [row.position.x, row.position.y]),
        )
        .collect()
}

/// Works the demand of `source` (enqueueing one of `batch` if it has none): up to the attempt
/// budget of candidate batches, each admitted item by item; the first admitted batch is realized.
fn attempt<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
    source: usize,
    batch: u32,
) {
    let frame = sets.frame;
    let state = &mut sets.state.sources[source];
    if state.pending.is_none() {
        state.pending = Some(Demand {
            batch,
            enqueued_frame: frame,
            attempts: 0,
        });
        sets.state.stats.demands_enqueued += 1;
    }
    let Some(demand) = sets.state.sources[source].pending.as_mut() else {
        return;
    };
    demand.attempts += 1;
    let batch = demand.batch;
    if let Err(reason) = realize::preview(config, sets, source) {
        reject(sets, source, reason);
        return;
    }
    let hidden = sets.state.startup.hidden(observation);
    let peds = ped_positions(sets.agents, sets.staged);
    for _ in 0..Startup::attempts(hidden) {
        match admit_batch(config, observation, sets, source, batch, hidden, &peds) {
            Ok(candidates) => {
                let state = &mut sets.state.sources[source];
                if !state.in_use {
                    state.in_use = true;
                    state.generation = state.generation.wrapping_add(1);
                }
                for candidate in &candidates {
                    sets.events.push_at(
                        frame,
                        EventKind::Admitted,
                        None,
                        Some(source as u16),
                        EventDetail::None,
                        Some(EventPosition::of(candidate.position)),
                    );
                }
                if let Err(reason) =
                    realize::realize(config, observation, sets, source, &candidates)
                {
                    reject(sets, source, reason);
                }
                return;
            }
            Err((reason, position)) => {
                reject_at(sets, source, reason, position);
                if reason.is_observer_gate() {
                    sets.state.sources[source].in_use = false;
                }
                if reason == SpawnRejection::NoValidView {
                    return;
                }
            }
        }
    }
}

/// Draws and admits `batch` candidates; the first refusal refuses the batch (with the refused
/// candidate's position, `None` when none could be drawn).
fn admit_batch<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
    source: usize,
    batch: u32,
    hidden: bool,
    peds: &[[f64; 2]],
) -> Result<Vec<Candidate>, (SpawnRejection, Option<Vec2>)> {
    let lanes = &config.space.lanes;
    let vehicles = &sets.state.vehicles;
    let signals = sets.signals;
    let crossing = |feet: [f64; 3]| {
        let near_vehicle = (0..vehicles.len()).any(|i| {
            let lane = &lanes[vehicles.lane[i] as usize];
            let p = vehicles.position(lanes, i);
            vehicles::distance_to_lane_m(lane, feet) <= lane.width_m * 0.5
                && (p.x - feet[0]).hypot(p.y - feet[1]) < CROSSING_CLEARANCE_M
        });
        near_vehicle || against_signal(&config.space.crosswalks, signals, feet)
    };
    let gates = Gates {
        observation,
        hidden,
        ambient: config.sources[source].kind == PopulationKind::Ambient,
        boxes: &sets.state.boxes,
        crossing: &crossing,
        peds,
        obstacles: sets.scene.current(),
    };
    let mut candidates = Vec::with_capacity(batch as usize);
    let mut accepted: Vec<[f64; 3]> = Vec::with_capacity(batch as usize);
    for _ in 0..batch {
        let candidate = draw(config, &mut sets.state.sources[source], source)
            .ok_or((SpawnRejection::SamplerExhausted, None))?;
        let admitted = admit(&gates, candidate.feet_m(), &accepted);
        sets.candidates.push(CandidateMark {
            source: source as u16,
            position: candidate.position,
            distance_m: candidate.distance_m,
            rejection: admitted.err(),
        });
        admitted.map_err(|reason| (reason, Some(candidate.position)))?;
        accepted.push(candidate.feet_m());
        candidates.push(candidate);
    }
    Ok(candidates)
}

/// The row a birth (or a readmission) of `source` at `candidate` starts with: every column at
/// its default, so a reused ped keeps nothing of its previous lifetime but its identity.
pub(in crate::sim) fn fresh_row(
    source_index: usize,
    source: &SourceConfig,
    generation: u32,
    id: AgentId,
    slot_generation: u32,
    candidate: &Candidate,
) -> AgentRow {
    AgentRow {
        id: id.bits(),
        generation: slot_generation,
        source: source_index as u16,
        route: source.route,
        route_offset: source.route_span.offset,
        route_len: source.route_span.len,
        stops_at_route_end: source.stops_at_route_end,
        distance_m: candidate.distance_m,
        speed_m_s: candidate.speed_m_s,
        position: candidate.position,
        facing: scale(candidate.along, f64::from(candidate.direction)),
        safe_distance_m: 0.0,
        path_offset_m: 0.0,
        direction: candidate.direction,
        state: AgentState::Walking,
        resume: AgentState::Walking,
        kind: source.kind,
        target: None,
        owner: None,
        steps: 0,
        pooled: false,
        removal_multiplier: source.removal_multiplier,
        vehicle: VehicleRelation::None,
        source_generation: generation,
        velocity_m_s: Vec2::default(),
        window_origin: candidate.position,
        window_steps: 0,
        walk_decision: WalkDecision::Idle,
        schedule_hash: stable_hash(id),
        tier: Tier::Stub,
        skipped_steps: 0,
        updated: false,
        steer_deg: 0,
        goal: candidate.position,
        relevance: source.relevance,
        panic: 0.0,
        flee_exit: NO_EXIT,
        compromised: false,
        crosswalk: CrosswalkAgent::default(),
        liveness: Liveness::at(candidate.position),
        group: GroupMember::default(),
    }
}

/// Retires at most one ped: the first (in row order) the spatial rule would remove whose
/// eligibility passes — checked again, unchanged, at commit. Refusals are logged with reasons.
fn retire_one<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
) {
    if !observation.any_valid() {
        return;
    }
    let suppress = sets.state.suppress_active;
    let scales = config.scenario.population.removal_scales;
    // The least scale a ped has this update (all qualify while suppressed; flagged peds more).
    let multiplier = if suppress { scales.least() } else { 1.0 };
    let aggressive = config.scenario.population.aggressive_cleanup && !suppress;
    // A ped within some valid view's retain radius is refused whatever the other views say:
    // that test alone, over the views collected once, screens the peds before the full rule.
    let retaining: Vec<([f64; 3], f64)> = observation
        .valid()
        .map(|v| (v.center_m, v.retain_radius_m))
        .collect();
    // Each view's squared-distance screen for the last ped multiplier seen (most peds share
    // one): a ped inside it is retained without the exact test.
    let (mut screened_multiplier, mut screens) = (None, vec![0.0; retaining.len()]);
    let rows = sets.agents.len();
    let mut next = 0;
    while next < rows {
        let row = next;
        next += 1;
        // With one view, eight rows at a time: a run whose rows are all pooled or inside the
        // screen already computed for their multiplier is passed over (each would continue
        // below without changing the screen).
        if let ([(center, _)], Some(bits), true) = (
            &retaining[..],
            screened_multiplier,
            row % 8 == 0 && row + 8 <= rows,
        ) {
            if run_screened(sets.agents, row, *center, bits, screens[0]) {
                next = row + 8;
                continue;
            }
        }
        if sets.agents.pooled[row] {
            continue;
        }
        let p = sets.agents.position[row];
        let ped_multiplier = sets.agents.removal_multiplier[row];
        let scale = multiplier * ped_multiplier;
        if screened_multiplier != Some(ped_multiplier.to_bits()) {
            screened_multiplier = Some(ped_multiplier.to_bits());
            for (screen, (_, retain_m)) in screens.iter_mut().zip(&retaining) {
                *screen = at_most_screen_sq(retain_m * scale);
            }
        }
        if retained_by_views(p, &retaining, &screens, scale) {
            continue;
        }
        let handle = sets.slots.handle_of(row);
        let own = ped_scale(
            config,
            sets.state,
            sets.agents.source[row],
            handle,
            suppress,
        );
        let feet = [p.x, p.y, 0.0];
        let Ok(rule) = spatial(observation, feet, own, ped_multiplier, aggressive) else {
            continue;
        };
        let source = Some(sets.agents.source[row]);
        let hold = handle.and_then(|h| sets.tasks.hold_of(h));
        if let Err(reason) = eligibility(sets.agents, row, &sets.state.boxes, hold) {
            let (detail, at) = (EventDetail::Refusal(reason), Some(EventPosition::of(p)));
            let kind = EventKind::RetireRefused;
            sets.events
                .push_at(sets.frame, kind, handle, source, detail, at);
            continue;
        }
        retire_row(config, observation, sets, row, rule);
        return;
    }
}

/// The removal scale of a ped of `source`: it qualifies while cleanup is suppressed or while it
/// has an extra-distance flag; its source's classification then selects the cops or the special
/// scale (never their product). The ped's own multiplier applies after this.
fn ped_scale(
    config: &WorldConfig,
    state: &PopulationState,
    source: u16,
    handle: Option<AgentHandle>,
    suppress: bool,
) -> f64 {
    let flagged = handle.is_some_and(|h| state.extra.flagged(h));
    let law_enforcement = config
        .sources
        .get(usize::from(source))
        .is_some_and(|s| s.law_enforcement);
    let scales = config.scenario.population.removal_scales;
    scales.select(suppress || flagged, law_enforcement)
}

/// Whether each of the eight rows from `row` is pooled or, with removal multiplier bits
/// `bits`, inside the one view's squared-distance `screen` around `center` (retained without
/// the exact test).
fn run_screened(agents: &Agents, row: usize, center: [f64; 3], bits: u64, screen: f64) -> bool {
    let run = row..row + 8;
    agents.pooled[run.clone()]
        .iter()
        .zip(&agents.position[run.clone()])
        .zip(&agents.removal_multiplier[run])
        .fold(true, |all, ((pooled, p), m)| {
            let (dx, dy) = (p.x - center[0], p.y - center[1]);
            all & (*pooled | ((m.to_bits() == bits) & (dx * dx + dy * dy < screen)))
        })
}

/// Whether a ped at `p` lies within some valid view's retain radius scaled by `scale`: inside
/// the view's squared screen, or by the exact test.
fn retained_by_views(p: Vec2, retaining: &[([f64; 3], f64)], screens: &[f64], scale: f64) -> bool {
    retaining
        .iter()
        .zip(screens)
        .any(|((center, retain_m), screen)| {
            let (dx, dy) = (p.x - center[0], p.y - center[1]);
            dx * dx + dy * dy < *screen || hypot_at_most(dx, dy, retain_m * scale)
        })
}

/// Commits one retirement by `rule` (eligibility re-checked by the pool): into the pool (the
/// ped's state becomes `Pooled`), or destroyed when the pool refuses; an evicted entry's ped is
/// destroyed.
fn retire_row<T: TaskLedger>(
    config: &WorldConfig,
    observation: &Observation,
    sets: &mut Sets<'_, T>,
    row: usize,
    rule: RetireRule,
) {
    let Some(handle) = sets.slots.handle_of(row) else {
        return;
    };
    let source = sets.agents.source[row];
    let p = sets.agents.position[row];
    let state = &mut *sets.state;
    let generation = state.sources[source as usize].generation;
    let entry = PoolEntry {
        handle,
        entity_type: 0,
        binding: config.sources[source as usize].binding,
        source,
        source_generation: generation,
        retired_frame: state.control_frame,
        safe_at_retirement: observation.offscreen_for_all([p.x, p.y, 0.0]),
        saved_flags: UpdateFlags {
            motion: sets.agents.state[row] == AgentState::Walking,
            tier: sets.agents.tier[row],
        }
        .bits(),
        // Stamped by the pool's admission.
        serial: 0,
        reset_version: 0,
    };
    let checked = eligibility(sets.agents, row, &state.boxes, sets.tasks.hold_of(handle));
    state.stats.retirements += 1;
    let frame = sets.frame;
    match state.pool.admit(entry, checked) {
        Ok(evicted) => {
            sets.agents.pooled[row] = true;
            sets.agents.state[row] = AgentState::Pooled;
            state.stats.pool_entries += 1;
            let pooled = EventDetail::Retirement { pooled: true, rule };
            sets.events.push_at(
                frame,
                EventKind::Retired,
                Some(handle),
                Some(source),
                pooled,
                Some(EventPosition::of(p)),
            );
            sets.events.push(
                frame,
                EventKind::PoolEntered,
                Some(handle),
                Some(source),
                EventDetail::None,
            );
            if let Some(evicted) = evicted {
                let source = Some(evicted.source);
                destroy(sets, evicted.handle, source, RemovalCause::Evicted);
            }
        }
        Err(_) => {
            let gone = EventDetail::Retirement {
                pooled: false,
                rule,
            };
            let at = Some(EventPosition::of(p));
            let kind = EventKind::Retired;
            sets.events
                .push_at(frame, kind, Some(handle), Some(source), gone, at);
            destroy(sets, handle, Some(source), RemovalCause::PoolRefused);
        }
    }
}

/// Stages the removal of `handle` (and drops its pool entry, if any); the `Destroyed` event
/// says why.
pub(in crate::sim) fn destroy<T: TaskLedger>(
    sets: &mut Sets<'_, T>,
    handle: AgentHandle,
    source: Option<u16>,
    cause: RemovalCause,
) {
    sets.state.pool.forget(handle);
    sets.state.extra.forget(handle);
    if !sets.staged.removals.contains(&handle) {
        sets.staged.removals.push(handle);
    }
    sets.state.stats.destroyed += 1;
    sets.events.push(
        sets.frame,
        EventKind::Destroyed,
        Some(handle),
        source,
        EventDetail::Removal(cause),
    );
}
