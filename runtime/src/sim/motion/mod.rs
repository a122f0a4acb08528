//! The Motion phase at scale: one fixed step of every agent's motion, in this order —
//! tiers (`tiers`: distance hysteresis with the crowd's relevance and panic requests, lowered one
//! rung outside the streaming ring (`ring`), then capacities and transition budgets, then the
//! crowd governor, `governor`), the update mask (each agent's
//! tier cadence phased by the stable hash of its id), the avoidance window (`avoidance`: at
//! most the budget of walkers run the steering fan, from a rotating cursor), then every agent
//! in row order walks (`sim::walk`), travels or flees by the time it has accumulated since its
//! last update; after the step's Commit one Motion Frame per agent is published (`frames`, kept
//! and rewritten where a row changed by `publish`).
//!
//! A skipped agent does not move and keeps its velocity; when it next updates it advances by
//! `skipped + 1` steps' time, so every tier keeps the same mean speed. The wall-clock
//! accumulator that drives playback lives in `clock`; panic, flee and disguise in `panic` and
//! `disguise`.

pub mod avoidance;
pub mod clock;
mod cuts;
pub mod disguise;
pub mod frames;
pub mod governor;
pub mod hlod;
pub mod panic;
pub mod parallel;
mod placement;
pub mod publish;
pub mod ring;
pub mod tiers;
pub mod why;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tier_policy_tests;

use super::config::WorldConfig;
use super::observers::Observation;
use super::obstacles::ObstacleSet;
use super::spatial::SpatialGrid;
use super::walk::steer::offset;
use super::walk::{
    walk_agent, Avoidance, Scratch as WalkScratch, WalkEnv, WalkRows, WalkState, NEIGHBOUR_CELL_M,
    VELOCITY_WINDOW_S,
};
use crate::project::Vec2;
use crate::sim::state::{agents::count_where, AgentState, Agents, Canonical, WalkDecision};
use avoidance::AvoidanceWindow;
use publish::FrameStore;
use rayon::prelude::*;
use tiers::{TierPolicy, TierScratch};

pub use crate::sim::state::Tier;

/// Distance within which a travelling agent has arrived, meters (tasks specification: 0.15 m).
pub const ARRIVAL_RADIUS_M: f64 = 0.15;
/// Speed of a fleeing agent, meters per second (crowd specification: 4 m/s).
pub const FLEE_SPEED_M_S: f64 = 4.0;

/// What the Motion phase did in the last step; each counter is distinct, never a sum.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct MotionCounters {
    /// Agents whose motion was updated.
    pub updated: u64,
    /// Agents skipped by their tier's cadence (pooled agents included: they never move).
    pub skipped: u64,
    /// Walkers whose avoidance ran.
    pub avoidance_processed: u64,
    /// Walkers whose avoidance was deferred by the budget.
    pub avoidance_deferred: u64,
    /// Crosswalk queries processed this step (from the crossings' query budget).
    pub crosswalk_processed: u64,
    /// Crosswalk queries deferred this step (from the crossings' query budget).
    pub crosswalk_deferred: u64,
    /// Agents forced Full.
    pub forced_full: u64,
    /// Agents per applied tier: Full, Simulated, Stub.
    pub tiers: [u64; 3],
    /// Tier promotions applied.
    pub promotions: u64,
    /// Tier demotions applied (budgeted ones; the governor's and the ring's are counted apart).
    pub demotions: u64,
    /// Transitions wanted but left for a later step by the budgets.
    pub deferred_transitions: u64,
    /// Requests lowered one rung because the agent is outside the streaming plan's loaded ring.
    pub ring_demotions: u64,
    /// Agents outside the loaded ring (not in the canonical bytes: it is the length of the
    /// ring's outside set, which the state writes).
    pub outside_ring: u64,
    /// Demotions the crowd governor made.
    pub governor_demotions: u64,
    /// The crowd governor's estimate after enforcement, milliseconds.
    pub governor_estimate_ms: f64,
    /// The crowd governor's budget, milliseconds.
    pub governor_budget_ms: f64,
    /// Agents the Motion phase stepped, a Motion Frame each: the agent count before the step's
    /// Commit (the frames published after Commit, `World::motion_frames`, also hold that step's
    /// births and lose its removals; this value is the one the state digest has always kept).
    pub frames: u64,
}

impl MotionCounters {
    /// The counters with their names, in a fixed order (for plots and logs).
    pub fn rows(&self) -> [(&'static str, f64); 15] {
        [
            ("updated", self.updated as f64),
            ("skipped", self.skipped as f64),
            ("avoidance processed", self.avoidance_processed as f64),
            ("avoidance deferred", self.avoidance_deferred as f64),
            ("full", self.tiers[0] as f64),
            ("simulated", self.tiers[1] as f64),
            ("stub", self.tiers[2] as f64),
            ("forced full", self.forced_full as f64),
            ("promotions", self.promotions as f64),
            ("demotions", self.demotions as f64),
            ("outside ring", self.outside_ring as f64),
            ("ring demotions", self.ring_demotions as f64),
            ("governor demotions", self.governor_demotions as f64),
            ("governor estimate ms", self.governor_estimate_ms),
            ("governor budget ms", self.governor_budget_ms),
        ]
    }
}

impl Canonical for MotionCounters {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        for value in [
            self.updated,
            self.skipped,
            self.avoidance_processed,
            self.avoidance_deferred,
            self.crosswalk_processed,
            self.crosswalk_deferred,
            self.forced_full,
            self.tiers[0],
            self.tiers[1],
            self.tiers[2],
            self.promotions,
            self.demotions,
            self.deferred_transitions,
            self.ring_demotions,
            self.governor_demotions,
            self.frames,
        ] {
            value.write_canonical(bytes);
        }
        self.governor_estimate_ms.write_canonical(bytes);
        self.governor_budget_ms.write_canonical(bytes);
    }
}

/// The Motion phase's own state: the scheduler frame that phases the tier cadences, the
/// avoidance cursor, the last step's counters. Part of snapshots and the state digest.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct MotionState {
    /// Scheduler frames run (the cadence of step k reads scheduler frame k − 1).
    pub scheduler_frame: u64,
    /// The row the next avoidance window starts at.
    pub avoidance_cursor: u32,
    /// The last step's counters.
    pub counters: MotionCounters,
    /// Panic and flee state (exits' remaining capacity).
    pub panic: panic::PanicState,
    /// Who is outside the streaming plan's loaded ring.
    pub ring: ring::RingState,
}

impl Canonical for MotionState {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.scheduler_frame.write_canonical(bytes);
        self.avoidance_cursor.write_canonical(bytes);
        self.counters.write_canonical(bytes);
        self.panic.write_canonical(bytes);
        self.ring.write_canonical(bytes);
    }
}

/// What the Motion phase keeps between steps that is not state: scratch buffers and the last
/// published Motion Frames (derived; republished every step, left out of snapshots).
#[derive(Clone, Debug, Default)]
pub struct MotionScratch {
    /// Tier assignment buffers.
    pub(in crate::sim) tiers: TierScratch,
    /// Which rows the avoidance window holds this step.
    pub(in crate::sim) window: AvoidanceWindow,
    /// The Motion Frames of the last step, one per agent in row order.
    pub(in crate::sim) frames: FrameStore,
    /// This step's loaded ring and the ring changes waiting to be logged.
    pub(in crate::sim) ring: ring::RingScratch,
    /// Points the neighbour grid is built over (pooled peds left out).
    points: Vec<Vec2>,
    /// The rows updated this step, ascending (from the update pass).
    updated_rows: Vec<u32>,
    /// The rows of this step's budgeted avoidance window, ascending.
    window_rows: Vec<u32>,
    /// The rows the walking loop steps this step, when it steps them in bands.
    steps: Vec<parallel::Step>,
    /// The parallel walking loop's bands.
    pub(in crate::sim) bands: parallel::Bands,
}

impl MotionScratch {
    /// Heap bytes of the scratch buffers and the published frames (their capacities).
    pub fn heap_bytes(&self) -> usize {
        self.tiers.heap_bytes()
            + self.window.heap_bytes()
            + self.frames.heap_bytes()
            + self.points.capacity() * std::mem::size_of::<Vec2>()
            + (self.updated_rows.capacity() + self.window_rows.capacity())
                * std::mem::size_of::<u32>()
            + self.steps.capacity() * std::mem::size_of::<parallel::Step>()
            + self.bands.heap_bytes()
    }

    /// Heap bytes of the published Motion Frames alone.
    pub fn frame_bytes(&self) -> usize {
        self.frames.heap_bytes()
    }
}

/// Everything the Motion phase changes.
pub(in crate::sim) struct MotionSets<'a> {
    /// The scheduler, cursor and counters.
    pub state: &'a mut MotionState,
    /// Walking's grid, blockers and scratch.
    pub walk: &'a mut WalkState,
    /// Motion's own scratch and frames.
    pub scratch: &'a mut MotionScratch,
    /// The agents.
    pub agents: &'a mut Agents,
    /// The rows (ascending) whose crosswalk record is not an unbound walker's, as this step's
    /// crossings phase listed them: no other row is forced Full or moved by the crossings.
    pub crossing_rows: &'a [u32],
}

/// Membership in an ascending row list, asked in ascending row order (a merge, no search).
struct Listed<'a> {
    rows: &'a [u32],
    next: usize,
}

impl<'a> Listed<'a> {
    fn new(rows: &'a [u32]) -> Listed<'a> {
        Listed { rows, next: 0 }
    }

    /// Whether `row` is listed; rows asked must not decrease.
    #[inline]
    fn contains(&mut self, row: usize) -> bool {
        while self
            .rows
            .get(self.next)
            .is_some_and(|r| (*r as usize) < row)
        {
            self.next += 1;
        }
        self.rows.get(self.next).is_some_and(|r| *r as usize == row)
    }
}

/// Motion: tiers, the update mask, the avoidance window, every agent's step by its
/// accumulated time, velocity windows, then the Motion Frames.
pub(in crate::sim) fn motion_phase(
    config: &WorldConfig,
    (observation, obstacles): (&Observation, &ObstacleSet),
    sets: MotionSets<'_>,
) {
    let MotionSets {
        state,
        walk,
        scratch,
        agents,
        crossing_rows,
    } = sets;
    let dt = config.fixed_step_s;
    let scheduler_frame = state.scheduler_frame;
    // The crosswalk query counters are filled in after the crossings' liveness pass.
    let mut counters = MotionCounters::default();
    assign_tiers(
        config,
        (observation, crossing_rows),
        agents,
        (scratch, &mut state.ring),
        &mut counters,
    );
    let scan = mark_updates(
        agents,
        (crossing_rows, &mut scratch.updated_rows),
        scheduler_frame,
        &mut counters,
    );
    let budget = config.scenario.motion.avoidance_budget;
    let (processed, deferred) =
        scratch
            .window
            .select_of(agents, scan.walkers, budget, &mut state.avoidance_cursor);
    counters.avoidance_processed = processed;
    counters.avoidance_deferred = deferred;
    let env = (obstacles, dt);
    step_agents(config, walk, scratch, (agents, crossing_rows), env, &scan);
    state.counters = counters;
}

/// The end of Motion, after the task movements (`sim::tasks::motion`) have moved their peds:
/// the observed velocities, the tier counts and the scheduler frame. (The Motion Frames are
/// published after Commit, by `World::step`.)
pub(in crate::sim) fn motion_publish(config: &WorldConfig, sets: MotionSets<'_>) {
    let MotionSets {
        state,
        agents,
        scratch,
        ..
    } = sets;
    let dt = config.fixed_step_s;
    let mut counters = state.counters;
    observe_velocities(dt, agents, &scratch.updated_rows);
    // Two counts the compiler vectorises; the rest are Stub.
    let full = count_where(&agents.tier, |t| *t == Tier::Full);
    let simulated = count_where(&agents.tier, |t| *t == Tier::Simulated);
    counters.tiers = [full, simulated, agents.len() as u64 - full - simulated];
    // The frames themselves are published after Commit (`World::step`); this counts the agents
    // Motion stepped, a frame each (the state digest keeps this value).
    counters.frames = agents.len() as u64;
    state.counters = counters;
    state.scheduler_frame += 1;
}

/// Applied tiers for this step: without any observer every agent is Full (there is nothing to
/// measure detail from); otherwise distance, relevance and panic requests, lowered one rung
/// outside the streaming ring (`ring`), within capacities and budgets, then the crowd governor.
fn assign_tiers(
    config: &WorldConfig,
    (observation, crossing_rows): (&Observation, &[u32]),
    agents: &mut Agents,
    (scratch, ring_state): (&mut MotionScratch, &mut ring::RingState),
    counters: &mut MotionCounters,
) {
    let settings = &config.scenario.motion;
    counters.governor_budget_ms = settings.crowd_budget_ms;
    // No view: the scenario has no observer (and no camera stands in for one).
    if observation.views.is_empty() {
        agents.tier.iter_mut().for_each(|t| *t = Tier::Full);
        // Everyone is Full, and the crossers in forced phases are still counted as forced.
        counters.forced_full = tiers::forced_count(agents, crossing_rows);
        counters.governor_estimate_ms = governor::estimate_ms(&agents.tier);
        return;
    }
    let policy = TierPolicy::of(settings);
    let MotionScratch {
        tiers: scratch,
        ring: ring_scratch,
        ..
    } = scratch;
    let request = |agents: &Agents, row: usize, distance_m: f64| {
        requested_tier(&policy, agents, row, distance_m)
    };
    scratch.start(&agents.tier);
    if let Some(streaming) = &config.space.streaming {
        let mut listed = Listed::new(crossing_rows);
        // The ring lowers the requests of every row before any is filed.
        tiers::nearest_view_distances(observation, agents, &mut scratch.distance_m);
        scratch.forced.clear();
        scratch.requested.clear();
        for row in 0..agents.len() {
            let requested = request(agents, row, scratch.distance_m[row]);
            scratch.requested.push(requested);
            scratch
                .forced
                .push(listed.contains(row) && tiers::forced_full(agents, row));
        }
        counters.ring_demotions = ring::demote_requests(
            streaming,
            observation,
            agents,
            &mut scratch.requested,
            ring_state,
            ring_scratch,
        );
        counters.outside_ring = ring_state.outside.len() as u64;
        for row in 0..agents.len() {
            let filed = (scratch.requested[row], scratch.forced[row]);
            let distance_m = scratch.distance_m[row];
            scratch.file(agents, row, filed, distance_m);
        }
    } else {
        file_in_one_pass(&policy, observation, agents, crossing_rows, scratch);
    }
    let (moved, tier_counts) = tiers::settle(&policy, agents, scratch);
    counters.forced_full = moved.forced_full;
    counters.promotions = moved.promotions;
    counters.demotions = moved.demotions;
    counters.deferred_transitions = moved.deferred_transitions;
    let governed = if settings.crowd_governor {
        governor::govern(settings, agents)
    } else {
        // Without enforcement the estimate is the applied tiers' cost, from their counts.
        let estimate_ms = governor::estimate_of_counts_ms(tier_counts);
        governor::Governed {
            before_ms: estimate_ms,
            estimate_ms,
            demotions: 0,
        }
    };
    counters.governor_demotions = governed.demotions;
    counters.governor_estimate_ms = governed.estimate_ms;
}

/// Files every row's tier request without the streaming ring: each row's distance, request
/// and forcing, screened in chunks of rows on the current pool (a row's screen reads only its
/// own row), then the rows that file anything filed in row order, as one pass files them.
fn file_in_one_pass(
    policy: &TierPolicy,
    observation: &Observation,
    agents: &Agents,
    crossing_rows: &[u32],
    scratch: &mut TierScratch,
) {
    let far = tiers::FarScreen::of(policy);
    let chunk = ROW_CHUNK;
    let screened: Vec<Vec<Filing>> = (0..agents.len().div_ceil(chunk))
        .into_par_iter()
        .map(|index| {
            let rows = index * chunk..((index + 1) * chunk).min(agents.len());
            let screen = TierScreen {
                policy,
                observation,
                far,
                agents,
            };
            screen.rows(rows, crossing_rows)
        })
        .collect();
    for filing in screened.iter().flatten() {
        let row = filing.row as usize;
        let request = (filing.requested, filing.forced);
        scratch.file(agents, row, request, filing.distance_m);
    }
}

/// A row's tier request as [`file_in_one_pass`] files it.
#[derive(Clone, Copy, Debug)]
struct Filing {
    row: u32,
    requested: Tier,
    forced: bool,
    distance_m: f64,
}

/// What screening a row's tier request reads besides the row.
struct TierScreen<'a> {
    policy: &'a TierPolicy,
    observation: &'a Observation,
    far: tiers::FarScreen,
    agents: &'a Agents,
}

impl TierScreen<'_> {
    /// The filings of `rows` (ascending) that file anything, in row order.
    fn rows(&self, rows: std::ops::Range<usize>, crossing_rows: &[u32]) -> Vec<Filing> {
        let (policy, agents) = (self.policy, self.agents);
        let first_listed = crossing_rows.partition_point(|r| (*r as usize) < rows.start);
        let mut listed = Listed {
            rows: crossing_rows,
            next: first_listed,
        };
        let mut filings = Vec::new();
        for row in rows {
            // The common row files nothing: Stub, asking for Stub by relevance and by a
            // distance beyond every limit (screened without its square root), not forced.
            if agents.tier[row] == Tier::Stub
                && policy.by_relevance(
                    agents.relevance[row],
                    agents.panic[row],
                    agents.compromised[row],
                ) == Tier::Stub
                && self.far.beyond(self.observation, agents.position[row])
                && !listed.contains(row)
            {
                continue;
            }
            let distance_m = tiers::nearest_view_distance(self.observation, agents.position[row]);
            let forced = listed.contains(row) && tiers::forced_full(agents, row);
            let requested = requested_tier(policy, agents, row, distance_m);
            // A Stub asking for Stub, not forced, files nothing (`TierScratch::file`).
            if !forced && requested == Tier::Stub && agents.tier[row] == Tier::Stub {
                continue;
            }
            filings.push(Filing {
                row: row as u32,
                requested,
                forced,
                distance_m,
            });
        }
        filings
    }
}

/// What the update pass saw of every row, for the avoidance window and the step.
struct UpdateScan {
    /// The most steps' time any updated agent advances by.
    max_steps: u32,
    /// Walkers (walking, not pooled).
    walkers: u64,
    /// Whether any row is pooled.
    any_pooled: bool,
    /// Whether any row flees.
    fleeing: bool,
    /// The fastest finite walking speed (−∞ for none), meters per second.
    fastest_m_s: f64,
}

/// The tier row `row` asks for before capacities: the more detailed of its distance request
/// (with hysteresis) and its relevance, panic and alertness request.
#[inline(always)]
fn requested_tier(policy: &TierPolicy, agents: &Agents, row: usize, distance_m: f64) -> Tier {
    let by_distance = policy.by_distance(agents.tier[row], distance_m);
    let by_relevance = policy.by_relevance(
        agents.relevance[row],
        agents.panic[row],
        agents.compromised[row],
    );
    by_distance.min(by_relevance)
}

/// Marks which agents update this step (forced Full, or their tier's cadence) and reads what
/// the avoidance window and the step need of every row, in passes without a branch per row that
/// the compiler vectorises: every row's cadence, the counts, then the forced rows (listed ones
/// only), the fastest speed, and the updated rows collected from the flags.
fn mark_updates(
    agents: &mut Agents,
    (crossing_rows, updated_rows): (&[u32], &mut Vec<u32>),
    scheduler_frame: u64,
    counters: &mut MotionCounters,
) -> UpdateScan {
    // In chunks of rows on the current pool: sums of counts and maxima, the same in any
    // order, and each chunk's updated rows, concatenated in chunk order.
    let chunk = ROW_CHUNK;
    let scans: Vec<ChunkScan> = agents
        .updated
        .par_chunks_mut(chunk)
        .zip(agents.schedule_hash.par_chunks(chunk))
        .zip(agents.tier.par_chunks(chunk))
        .zip(agents.pooled.par_chunks(chunk))
        .zip(agents.state.par_chunks(chunk))
        .zip(agents.speed_m_s.par_chunks(chunk))
        .zip(agents.skipped_steps.par_chunks(chunk))
        .enumerate()
        .map(
            |(index, ((((((updated, hash), tier), pooled), state), speed), skipped))| {
                let rows = (&mut *updated, hash, tier, pooled);
                let (walkers, pooled, fleeing) = mark_cadence(rows, state, scheduler_frame);
                let mut updated_rows = Vec::new();
                collect_set(updated, &mut updated_rows);
                let first = (index * chunk) as u32;
                updated_rows.iter_mut().for_each(|row| *row += first);
                ChunkScan {
                    counts: [walkers, pooled, fleeing],
                    fastest_m_s: fastest_finite(speed),
                    max_steps: most_steps(updated, skipped),
                    updated_rows,
                }
            },
        )
        .collect();
    let count = |at: usize| scans.iter().map(|scan| scan.counts[at]).sum::<u64>();
    let (walkers, pooled_rows, fleeing) = (count(0), count(1), count(2));
    let fastest_m_s = scans.iter().fold(f64::NEG_INFINITY, |fastest, scan| {
        fastest.max(scan.fastest_m_s)
    });
    let mut max_steps = scans.iter().fold(1, |most, scan| most.max(scan.max_steps));
    updated_rows.clear();
    for scan in &scans {
        updated_rows.extend_from_slice(&scan.updated_rows);
    }
    // A forced row updates whatever its cadence (only listed rows can be forced); those the
    // cadence left out join the ascending list.
    let mut forced_rows = Vec::new();
    for &row in crossing_rows {
        let at = row as usize;
        if tiers::forced_full(agents, at) && !agents.pooled[at] {
            if !agents.updated[at] {
                agents.updated[at] = true;
                forced_rows.push(row);
            }
            max_steps = max_steps.max(agents.skipped_steps[at] + 1);
        }
    }
    if !forced_rows.is_empty() {
        let cadence = std::mem::take(updated_rows);
        for_each_union(&cadence, &forced_rows, |row| updated_rows.push(row as u32));
    }
    debug_assert!(updated_rows.windows(2).all(|w| w[0] < w[1]));
    counters.updated = updated_rows.len() as u64;
    counters.skipped = agents.len() as u64 - counters.updated;
    UpdateScan {
        max_steps,
        walkers,
        any_pooled: pooled_rows > 0,
        fleeing: fleeing > 0,
        fastest_m_s,
    }
}

/// What one chunk of [`mark_updates`] saw of its rows.
struct ChunkScan {
    /// Walkers (not pooled), pooled rows, fleers.
    counts: [u64; 3],
    /// The fastest finite walking speed (−∞ for none), meters per second.
    fastest_m_s: f64,
    /// The most steps' time an updated row advances by (1 for none).
    max_steps: u32,
    /// The rows the cadence updates, ascending.
    updated_rows: Vec<u32>,
}

/// The most steps' time any updated row of a chunk advances by (its skipped steps and this
/// one; 1 for none), over the chunk's columns in one pass the compiler vectorises.
fn most_steps(updated: &[bool], skipped: &[u32]) -> u32 {
    updated
        .iter()
        .zip(skipped)
        .map(|(updated, skipped)| if *updated { skipped + 1 } else { 0 })
        .fold(1, u32::max)
}

/// Rows one task of a pass over every row takes (`mark_updates`, `observe_velocities`).
const ROW_CHUNK: usize = 1 << 14;

/// One chunk of [`mark_updates`]: marks each row updated by its tier's cadence (never a pooled
/// row) and counts the walkers (not pooled), the pooled rows and the fleers, in passes the
/// compiler vectorises (a chunk's counts fit a `u32`).
fn mark_cadence(
    (updated, hash, tier, pooled): (&mut [bool], &[u32], &[Tier], &[bool]),
    state: &[AgentState],
    scheduler_frame: u64,
) -> (u64, u64, u64) {
    let cadence = updated.iter_mut().zip(hash).zip(tier).zip(pooled);
    for (((updated, hash), tier), pooled) in cadence {
        *updated = !*pooled & tiers::updates_at(*hash, scheduler_frame, *tier);
    }
    let (mut w, mut p, mut f) = (0u32, 0u32, 0u32);
    for (state, pooled) in state.iter().zip(pooled) {
        w += u32::from(!*pooled & (*state == AgentState::Walking));
        p += u32::from(*pooled);
        f += u32::from(*state == AgentState::Fleeing);
    }
    (u64::from(w), u64::from(p), u64::from(f))
}

/// The largest finite value of `values` (−∞ for none): eight running maxima, folded at the end
/// (the maximum of finite values does not depend on the order they are taken in).
fn fastest_finite(values: &[f64]) -> f64 {
    let mut lanes = [f64::NEG_INFINITY; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in chunks.by_ref() {
        for (lane, value) in lanes.iter_mut().zip(chunk) {
            // A NaN or an infinity fails the first test.
            *lane = if value.abs() < f64::INFINITY && *value > *lane {
                *value
            } else {
                *lane
            };
        }
    }
    lanes
        .iter()
        .chain(chunks.remainder())
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, |fastest, v| fastest.max(*v))
}

/// Appends the indices of the set flags of `flags`, ascending, to `rows` (eight flags read at
/// once, a word without any set skipped).
fn collect_set(flags: &[bool], rows: &mut Vec<u32>) {
    let mut chunks = flags.chunks_exact(8);
    for (chunk, start) in chunks.by_ref().zip((0u32..).step_by(8)) {
        let mut bytes = [0u8; 8];
        for (byte, flag) in bytes.iter_mut().zip(chunk) {
            *byte = u8::from(*flag);
        }
        let mut word = u64::from_le_bytes(bytes);
        while word != 0 {
            rows.push(start + word.trailing_zeros() / 8);
            word &= word - 1;
        }
    }
    let tail = flags.len() - chunks.remainder().len();
    for (offset, flag) in chunks.remainder().iter().enumerate() {
        if *flag {
            rows.push((tail + offset) as u32);
        }
    }
}

/// Every agent in row order: walkers in the avoidance window steer (and step when updated),
/// deferred walkers step along their reliable steering, travellers and fleers move; each by
/// the time it accumulated. Later walkers see where earlier ones are now. On a pool of several
/// threads the rows step in bands (`parallel`), with the serial loop's result.
fn step_agents(
    config: &WorldConfig,
    walk: &mut WalkState,
    scratch: &mut MotionScratch,
    (agents, crossing_rows): (&mut Agents, &[u32]),
    (obstacles, dt): (&ObstacleSet, f64),
    scan: &UpdateScan,
) {
    let WalkState {
        grid,
        scratch: walk_scratch,
        fan,
    } = walk;
    let blockers = obstacles.walk_index();
    // How far a body may be from where the grid bucketed it: the fastest walker (or a fleer's
    // 4 m/s when anyone flees) over the most steps' time any agent advances by. Only walkers
    // and fleers move during this loop; a larger bound only widens the scan.
    let fastest_m_s = scan
        .fastest_m_s
        .max(if scan.fleeing { FLEE_SPEED_M_S } else { 0.0 });
    let base = WalkEnv {
        routes: &config.space.routes,
        route_points: &config.route_points,
        blockers,
        fan,
        dt_s: dt,
        max_step_m: fastest_m_s * dt * f64::from(scan.max_steps),
    };
    let stepping = Stepping { base, dt };
    let window = &scratch.window;
    let windowed = window.sorted_rows(&mut scratch.window_rows);
    if windowed {
        // A budgeted window: a row neither updated nor in the window only counts a skipped
        // step, done for every row at once; the others step in row order as below.
        // In chunks of rows on the current pool (each row its own count).
        let chunk = ROW_CHUNK;
        let counts = agents.skipped_steps.par_chunks_mut(chunk);
        let flags = agents
            .updated
            .par_chunks(chunk)
            .zip(agents.pooled.par_chunks(chunk));
        counts.zip(flags).for_each(|(skipped, (updated, pooled))| {
            for ((skipped, updated), pooled) in skipped.iter_mut().zip(updated).zip(pooled) {
                *skipped += u32::from(!*updated & !*pooled);
            }
        });
    }
    let rows = (
        &scratch.updated_rows[..],
        windowed.then_some(&scratch.window_rows[..]),
    );
    let listing = (crossing_rows, window, scan.any_pooled);
    collect_steps(agents, rows, listing, &mut scratch.steps);
    let steps = &scratch.steps;
    let count_skip = !windowed;
    let bounds = (count_skip, base.max_step_m, dt);
    let bands = &mut scratch.bands;
    let world = parallel::WorldGrid {
        grid,
        points: &mut scratch.points,
        any_pooled: scan.any_pooled,
    };
    if parallel::step_in_bands(bands, &stepping, (agents, world), steps, bounds) {
        return;
    }
    // Nothing reads the grid before this loop (the rows and their flags above do not).
    rebuild_grid(grid, &mut scratch.points, agents, scan.any_pooled);
    let mut rows = WalkRows::of(agents);
    for step in steps.iter() {
        let row = step.row as usize;
        stepping.row((grid, walk_scratch), &mut rows, row, step.flags, count_skip);
    }
}

/// The rows the walking loop steps, ascending, with their flags, into `steps`: with a budgeted
/// window (`window_rows`) the union of the updated rows and the window's, otherwise every row;
/// pooled rows never (`any_pooled`: whether any row is). Every row without a window and
/// without a pooled row is filed in chunks of rows on the current pool (each row's flags read
/// its own row).
fn collect_steps(
    agents: &Agents,
    (updated_rows, window_rows): (&[u32], Option<&[u32]>),
    (crossing_rows, window, any_pooled): (&[u32], &AvoidanceWindow, bool),
    steps: &mut Vec<parallel::Step>,
) {
    steps.clear();
    let step_of = |row: usize, listed: &mut Listed<'_>| {
        // Only a listed row's crossing can control its motion or bind it: an unlisted record
        // is an unbound walker's (so most rows never read their wide record).
        let listed_row = listed.contains(row);
        debug_assert!(listed_row || !agents.crosswalk[row].is_bound());
        parallel::Step {
            row: row as u32,
            flags: RowFlags {
                crossing: listed_row && agents.crosswalk[row].controls_motion(),
                processed: window.contains(row),
                bound: listed_row && agents.crosswalk[row].is_bound(),
            },
        }
    };
    if window_rows.is_none() && !any_pooled {
        steps.resize(agents.len(), parallel::Step::default());
        let chunks = steps.par_chunks_mut(STEP_CHUNK).enumerate();
        chunks.for_each(|(chunk, out)| {
            let start = chunk * STEP_CHUNK;
            let first = crossing_rows.partition_point(|r| (*r as usize) < start);
            let mut listed = Listed::new(&crossing_rows[first..]);
            for (offset, step) in out.iter_mut().enumerate() {
                *step = step_of(start + offset, &mut listed);
            }
        });
        return;
    }
    let mut listed = Listed::new(crossing_rows);
    let push = |row: usize| {
        if !agents.pooled[row] {
            steps.push(step_of(row, &mut listed));
        }
    };
    match window_rows {
        Some(window_rows) => for_each_union(updated_rows, window_rows, push),
        None => (0..agents.len()).for_each(push),
    }
}

/// Rows one task of [`collect_steps`] files.
const STEP_CHUNK: usize = 2048;

/// Calls `visit` with every row of the ascending union of two ascending lists, in order.
fn for_each_union(a: &[u32], b: &[u32], mut visit: impl FnMut(usize)) {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    while let Some(&row) = match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x < y => a.next(),
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), Some(_)) => {
            b.next();
            a.next()
        }
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    } {
        visit(row as usize);
    }
}

/// How a row steps besides its own columns: whether the crossings move it this step, whether
/// it is in this step's avoidance window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::sim) struct RowFlags {
    /// The crossings move it this step (a walker then does not walk).
    pub crossing: bool,
    /// Its avoidance runs this step.
    pub processed: bool,
    /// It is bound to a crosswalk: it walks by the crossing rule (`sim::walk::walk_agent`).
    pub bound: bool,
}

/// What every row's step reads besides the row.
struct Stepping<'a> {
    /// The walking environment of one step's time.
    base: WalkEnv<'a>,
    /// The fixed step, seconds.
    dt: f64,
}

impl Stepping<'_> {
    /// Row `row` (not pooled) steps by the time it accumulated: a walker in the window steers
    /// (and steps when updated), a deferred walker steps along its reliable steering, a fleer
    /// runs; `flags` say whether the crossings move it and whether it is in the window;
    /// `count_skip` when a row that is not updated still has to count its skipped step here.
    /// `row` indexes both `agents` and `grid` (in the parallel loop a band's view of its own
    /// range of rows, or its copies, and its own grid).
    #[inline(always)]
    fn row(
        &self,
        (grid, walk_scratch): (&mut SpatialGrid, &mut WalkScratch),
        agents: &mut WalkRows<'_>,
        row: usize,
        RowFlags {
            crossing,
            processed,
            bound,
        }: RowFlags,
        count_skip: bool,
    ) {
        let (base, dt) = (self.base, self.dt);
        let updated = agents.updated[row];
        if !updated {
            agents.skipped_steps[row] += u32::from(count_skip);
            if processed && agents.state[row] == AgentState::Walking && !crossing {
                let env = WalkEnv {
                    dt_s: dt * f64::from(agents.skipped_steps[row] + 1),
                    ..base
                };
                walk_agent(
                    &env,
                    grid,
                    walk_scratch,
                    agents,
                    row,
                    Avoidance::SteerOnly,
                    bound,
                );
            }
            return;
        }
        let dt_s = dt * f64::from(agents.skipped_steps[row] + 1);
        agents.skipped_steps[row] = 0;
        agents.steps[row] += 1;
        agents.walk_decision[row] = WalkDecision::Idle;
        let env = WalkEnv { dt_s, ..base };
        match agents.state[row] {
            // A walker the crossings move this step (queued, crossing, held) does not walk.
            AgentState::Walking if crossing => {}
            AgentState::Walking => {
                let mode = if processed {
                    Avoidance::Steer
                } else {
                    Avoidance::Reliable
                };
                agents.walk_decision[row] =
                    walk_agent(&env, grid, walk_scratch, agents, row, mode, bound);
            }
            // A panicked agent runs to its exit; task movements (travelling to a goal,
            // escaping a threat) step in `sim::tasks::motion`, after every walker.
            AgentState::Fleeing if agents.flee_exit[row] != panic::NO_EXIT => {
                flee_to_exit(agents, row, dt_s)
            }
            AgentState::Travelling | AgentState::Fleeing => {}
            // The knocked-down body moves in `sim::knockdown`.
            AgentState::KnockedDown => {}
            AgentState::Holding | AgentState::Arrived => {}
            // Pooled rows are never updated; listed for completeness.
            AgentState::Pooled => {}
        }
        grid.update(row, agents.position[row], agents.facing[row]);
    }
}

/// Rebuilds the neighbour grid over the agents' bodies (`points` is scratch); with `any_pooled`
/// the pooled peds are left out.
fn rebuild_grid(grid: &mut SpatialGrid, points: &mut Vec<Vec2>, agents: &Agents, any_pooled: bool) {
    if any_pooled {
        // Pooled peds are detached: they are nobody's neighbour (a non-finite point is left out
        // of the grid, and indices stay rows).
        let detached = Vec2 {
            x: f64::NAN,
            y: f64::NAN,
        };
        points.clear();
        points.extend(
            agents
                .position
                .iter()
                .zip(&agents.pooled)
                .map(|(p, pooled)| if *pooled { detached } else { *p }),
        );
        grid.rebuild_bodies(
            points,
            &agents.velocity_m_s,
            &agents.facing,
            NEIGHBOUR_CELL_M,
        );
    } else {
        grid.rebuild_bodies(
            &agents.position,
            &agents.velocity_m_s,
            &agents.facing,
            NEIGHBOUR_CELL_M,
        );
    }
}

/// A panicked agent runs to its exit at [`FLEE_SPEED_M_S`] (`target` holds the exit's position)
/// and arrives there.
fn flee_to_exit(agents: &mut WalkRows<'_>, row: usize, dt_s: f64) {
    let Some(exit) = agents.target[row] else {
        agents.state[row] = AgentState::Arrived;
        return;
    };
    let here = agents.position[row];
    let (dx, dy) = (exit.x - here.x, exit.y - here.y);
    let remaining = dx.hypot(dy);
    let stride = FLEE_SPEED_M_S * dt_s;
    agents.goal[row] = exit;
    if remaining <= stride.max(ARRIVAL_RADIUS_M) {
        agents.position[row] = exit;
        agents.state[row] = AgentState::Arrived;
    } else {
        let unit = scale(Vec2 { x: dx, y: dy }, 1.0 / remaining);
        agents.position[row] = offset(here, unit, stride);
        agents.facing[row] = unit;
    }
}

/// Advances every agent's velocity window: once it spans [`VELOCITY_WINDOW_S`] and the agent
/// was updated (a skipped agent keeps its last velocity, never a false zero), the observed
/// velocity becomes the displacement over the window divided by its duration. `updated_rows`
/// are the rows updated this step (from the update pass).
fn observe_velocities(dt: f64, agents: &mut Agents, updated_rows: &[u32]) {
    debug_assert!(updated_rows.iter().all(|r| agents.updated[*r as usize]));
    debug_assert_eq!(
        updated_rows.len(),
        agents.updated.iter().filter(|u| **u).count()
    );
    // In chunks of rows on the current pool: a row's window reads and writes its row only.
    let any_pooled = agents.pooled.iter().any(|p| *p);
    let chunk = ROW_CHUNK;
    let windows = agents
        .window_steps
        .par_chunks_mut(chunk)
        .zip(agents.velocity_m_s.par_chunks_mut(chunk))
        .zip(agents.window_origin.par_chunks_mut(chunk))
        .zip(agents.position.par_chunks(chunk))
        .zip(agents.pooled.par_chunks(chunk));
    windows.enumerate().for_each(
        |(index, ((((steps, velocity), origin), position), pooled))| {
            // Every window spans one more step; only an updated or pooled row's may close.
            for steps in steps.iter_mut() {
                *steps += 1;
            }
            let start = index * chunk;
            let end = start + steps.len();
            let first = updated_rows.partition_point(|r| (*r as usize) < start);
            let last = updated_rows.partition_point(|r| (*r as usize) < end);
            let mut window = Windows {
                steps,
                velocity,
                origin,
                position,
            };
            for &row in &updated_rows[first..last] {
                window.close(dt, row as usize - start);
            }
            // An updated row is never pooled.
            if any_pooled {
                for local in (0..pooled.len()).filter(|l| pooled[*l]) {
                    window.close(dt, local);
                }
            }
        },
    );
}

/// One chunk of rows' velocity windows (`observe_velocities`).
struct Windows<'a> {
    steps: &'a mut [u32],
    velocity: &'a mut [Vec2],
    origin: &'a mut [Vec2],
    position: &'a [Vec2],
}

impl Windows<'_> {
    /// Closes the window of the chunk's row `local` once it spans [`VELOCITY_WINDOW_S`]: the
    /// observed velocity becomes the displacement over the window divided by its duration.
    #[inline]
    fn close(&mut self, dt: f64, local: usize) {
        let elapsed_s = f64::from(self.steps[local]) * dt;
        if elapsed_s >= VELOCITY_WINDOW_S - 1e-9 {
            let (now, origin) = (self.position[local], self.origin[local]);
            self.velocity[local] = Vec2 {
                x: (now.x - origin.x) / elapsed_s,
                y: (now.y - origin.y) / elapsed_s,
            };
            self.origin[local] = now;
            self.steps[local] = 0;
        }
    }
}

pub(super) fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
}
