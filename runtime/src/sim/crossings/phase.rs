//! The crossings phase of one step, in order: groups (assignment, formation speeds), signals
//! (on the demand and occupancy they see), crosswalk queries and binding (budgeted, rotating),
//! every bound walker's transition and movement, then the gates and the hazard. The liveness
//! phase runs after walking.
//!
//! The passes over every row run in chunks of rows on the current rayon pool, each row reading
//! and writing only its own row (and reading its leader's, which the pass never writes): the
//! group pass (pairs concatenated in row order), the count of rows needing a crosswalk query
//! (sums; only chunks holding rows to query while the budget lasts are walked row by row), and
//! the quiet liveness watches (the rows left to their guards are guarded after, in row order).
//! So the result is one serial pass's on any number of threads.

use crate::project::Vec2;
use rayon::prelude::*;

use crate::sim::config::WorldConfig;
use crate::sim::events::{EventDetail, EventKind, EventLog};

use crate::sim::slots::Slots;
use crate::sim::state::agents::count_where;
use crate::sim::state::restart_watch;
use crate::sim::state::watch;
use crate::sim::state::AgentHandle;
use crate::sim::state::AgentId;
use crate::sim::state::AgentState;
use crate::sim::state::Agents;
use crate::sim::state::CrosswalkAgent;
use crate::sim::state::CrosswalkPhase;
use crate::sim::state::GroupMember;
use crate::sim::state::GroupRole;
use crate::sim::state::SignalPhase;
use crate::sim::state::Vehicles;
use crate::sim::state::Verdict;
use crate::sim::state::{Liveness, WatchColumns};

use super::crosswalk::{distance_m, step_towards, AT_TARGET_M};
use super::gate::{in_conflict_zone, lane_vehicle_in_zone};
use super::groups::{assignment, speed_factor, FORMATION_GAP_M};
use super::groups::{REGROUP_M, SHARED_CROSSING_M};
use super::queue::{side_slots, slot_points, usable_lanes, QueueOccupancy, RouteCrossing};
use super::signals::SignalInputs;
use super::stuck::refresh_window;

use super::stuck::STALLED_AFTER_S;
use super::{CrossingIndex, CrossingsState};
use crate::sim::config::CrossingSettings;

/// What the crossings read and change besides the configuration.
pub struct CrossingSets<'a> {
    /// The frame being stepped.
    pub frame: u64,
    /// The agents.
    pub agents: &'a mut Agents,
    /// Signals, hazard, counters.
    pub state: &'a mut CrossingsState,
    /// The lane vehicles (read: conflict zones).
    pub vehicles: &'a Vehicles,
    /// Handles ↔ rows.
    pub slots: &'a Slots,
    /// Handles of each source's agents in birth order (group leaders are found here).
    pub births: &'a [Vec<AgentHandle>],
    /// The event log.
    pub events: &'a mut EventLog,
    /// Scratch of the step (derived, rebuilt by every crossings phase): the rows, ascending,
    /// whose crosswalk record may differ from an unbound walker's (bound, a phase other than
    /// Approach, or held this step). Every other row is unbound in Approach and not held, so
    /// the passes after the first one (and the Motion and liveness phases of the same step)
    /// visit only these rows for anything the crosswalk record decides.
    pub rows: &'a mut Vec<u32>,
    /// Whether `rows` still holds (ascending, without repeats) every row whose record is not
    /// clean, as the last crossings phase left it and the rows moved since (births append
    /// clean records; removals are followed by [`follow_swap_remove`]): the next phase then
    /// filters that list instead of reading every record. Cleared when the rows are replaced
    /// wholesale (a restore), so the next phase scans them all.
    pub tracked: &'a mut bool,
    /// Scratch of the group count: one mark per row, all zero between uses.
    pub marks: &'a mut Vec<u8>,
    /// Which routes cross which crosswalks, and the query grid (built once with the world).
    pub index: &'a CrossingIndex,
}

/// Whether a crosswalk record is an unbound walker's (Approach, no crosswalk, not held): such
/// a row demands, occupies, forces and controls nothing.
fn is_clean(c: &CrosswalkAgent) -> bool {
    c.phase == CrosswalkPhase::Approach && !c.is_bound() && !c.held
}

/// Per crosswalk, what this step's decisions read.
struct Crosswalks {
    /// No vehicle (hazard or lane) inside the conflict zone.
    zone_clear: Vec<bool>,
    /// The signal of each crosswalk shows PedestrianCrossing.
    walk: Vec<bool>,
}

/// The crossings phase (before walking).
pub fn crossings_phase(config: &WorldConfig, sets: &mut CrossingSets<'_>) {
    let settings = &config.scenario.crossings;
    // Clear the held flags and list the rows that are not clean: from the last step's list
    // while it is tracked, otherwise in one pass over the records.
    if *sets.tracked {
        filter_rows(sets.agents, sets.rows);
    } else {
        collect_rows(sets.agents, sets.rows);
    }
    let unpooled = count_where(&sets.agents.pooled, |p| !*p);
    let mut followers = groups_step(config, sets);
    let crosswalks = signals_step(config, sets);
    let queried = queries_step(config, sets);
    // Rows bound or held by this step's queries join the list (sorted, without repeats).
    if queried.bound_now {
        sets.rows.sort_unstable();
        sets.rows.dedup();
    }
    let bound: Vec<usize> = sets
        .rows
        .iter()
        .map(|r| *r as usize)
        .filter(|r| sets.agents.crosswalk[*r].is_bound() && !sets.agents.pooled[*r])
        .collect();
    if !bound.is_empty() {
        // A leader at a kerb finds its followers by a search of the pairs (`group_ready`).
        followers.sort_unstable();
    }
    let index = sets.index;
    for &row in &bound {
        {
            let may_start = |agents: &Agents, row: usize, c: u16| {
                crosswalks.walk[usize::from(c)]
                    && crosswalks.zone_clear[usize::from(c)]
                    && group_ready(agents, &followers, row, c, index)
            };
            advance_bound(config, settings, sets, row, &may_start, &bound);
        }
    }
    gates_step(config, sets, unpooled);
    // Every record made unclean this step is listed (bound or held rows were pushed), and the
    // liveness phase changes listed rows only.
    *sets.tracked = true;
}

/// Clears every held flag and lists in `rows` (ascending) the rows whose record is not clean
/// afterwards, reading every record.
fn collect_rows(agents: &mut Agents, rows: &mut Vec<u32>) {
    rows.clear();
    for (row, c) in agents.crosswalk.iter_mut().enumerate() {
        // Written only when set, so the pass dirties no clean record.
        if c.held {
            c.held = false;
        }
        if !is_clean(c) {
            rows.push(row as u32);
        }
    }
}

/// [`collect_rows`] from a tracked list (every unlisted record is clean, so its held flag is
/// already clear): keeps the listed rows whose record is still not clean once their held flag
/// is cleared.
fn filter_rows(agents: &mut Agents, rows: &mut Vec<u32>) {
    let rows_now = agents.len();
    rows.retain(|&row| {
        let Some(c) = agents.crosswalk.get_mut(row as usize) else {
            return false;
        };
        c.held = false;
        !is_clean(c)
    });
    debug_assert!(rows.iter().all(|r| (*r as usize) < rows_now));
    #[cfg(debug_assertions)]
    {
        let mut scanned = Vec::new();
        collect_rows(agents, &mut scanned);
        debug_assert_eq!(*rows, scanned, "the tracked crossing rows missed a record");
    }
}

/// Follows a tracked row list when row `row` is swap-removed and row `last` (the last one)
/// takes its place: `row` leaves the list and `last`, when listed, is listed as `row`.
pub fn follow_swap_remove(rows: &mut Vec<u32>, row: usize, last: usize) {
    rows.retain(|r| *r as usize != row);
    if row != last {
        if let Some(moved) = rows.iter_mut().find(|r| **r as usize == last) {
            *moved = row as u32;
            rows.sort_unstable();
        }
    }
}

/// Assigns new agents to their groups, sets followers' formation speeds, counts groups, and
/// returns `(leader row, follower row)` pairs, in follower order.
fn groups_step(config: &WorldConfig, sets: &mut CrossingSets<'_>) -> Vec<(usize, usize)> {
    let settings = &config.scenario.crossings;
    // In chunks of rows on the current pool: a row's pass writes only its own group and speed
    // and reads its own columns and its leader's route state (distance, direction, pooled),
    // which the pass never writes; the chunks' pairs, concatenated in chunk order, are the
    // serial pass's (follower order).
    let agents = &mut *sets.agents;
    let pass = GroupPass {
        seed: config.seed,
        share: settings.group_share,
        max_size: settings.max_group_size,
        listed: &sets.rows[..],
        births: sets.births,
        slots: sets.slots,
        columns: GroupColumns {
            id: &agents.id,
            pooled: &agents.pooled,
            state: &agents.state,
            crosswalk: &agents.crosswalk,
            direction: &agents.direction,
            distance_m: &agents.distance_m,
        },
    };
    let chunk = CHUNK_ROWS;
    let chunks: Vec<Vec<(usize, usize)>> = agents
        .group
        .par_chunks_mut(chunk)
        .zip(agents.speed_m_s.par_chunks_mut(chunk))
        .enumerate()
        .map(|(index, (group, speed))| pass.rows(index * chunk, group, speed))
        .collect();
    let pairs = chunks.concat();
    count_groups(sets.state, sets.agents, &pairs, sets.marks);
    pairs
}

/// Rows one task of this phase's passes over every row takes (the group pass, the
/// deferred-query count, the quiet liveness pass).
const CHUNK_ROWS: usize = 1 << 14;

/// The columns the group pass reads of every row (its own and its leader's).
struct GroupColumns<'a> {
    id: &'a [u64],
    pooled: &'a [bool],
    state: &'a [AgentState],
    crosswalk: &'a [CrosswalkAgent],
    direction: &'a [i8],
    distance_m: &'a [f64],
}

/// What the group pass of a chunk of rows reads besides the rows' groups and speeds.
struct GroupPass<'a> {
    seed: u64,
    share: f64,
    max_size: u32,
    /// The crossing rows, ascending (every other record is clean: it controls no motion).
    listed: &'a [u32],
    births: &'a [Vec<AgentHandle>],
    slots: &'a Slots,
    columns: GroupColumns<'a>,
}

impl GroupPass<'_> {
    /// The rows from `first` (`group` and `speed` are theirs): a new agent's assignment, then
    /// (for a follower) its formation speed. A follower reads only its own membership and its
    /// leader's route state, which no assignment changes, so assigning as the pass goes is the
    /// same as assigning everyone first. Returns the `(leader row, follower row)` pairs, in
    /// follower order.
    fn rows(
        &self,
        first: usize,
        group: &mut [GroupMember],
        speed: &mut [f64],
    ) -> Vec<(usize, usize)> {
        let c = &self.columns;
        let rows = c.id.len();
        let mut pairs = Vec::new();
        let mut next_listed = self.listed.partition_point(|r| (*r as usize) < first);
        for (at, (member, speed)) in group.iter_mut().zip(speed.iter_mut()).enumerate() {
            let row = first + at;
            if !member.assigned {
                let id = AgentId::from_bits(c.id[row]);
                let found = assignment(self.seed, id, self.share, self.max_size);
                *member = GroupMember {
                    assigned: true,
                    role: match found {
                        None => GroupRole::Alone,
                        Some((_, 0)) => GroupRole::Leader,
                        Some(_) => GroupRole::Follower,
                    },
                    leader_ordinal: found.map_or(0, |(leader, _)| leader),
                    slot: found.map_or(0, |(_, slot)| slot),
                    base_speed_m_s: *speed,
                    regrouping: false,
                };
            }
            if member.role != GroupRole::Follower || c.pooled[row] {
                continue;
            }
            let id = AgentId::from_bits(c.id[row]);
            let leader = self
                .births
                .get(id.source())
                .and_then(|b| b.get(member.leader_ordinal as usize))
                .and_then(|h| self.slots.resolve(*h))
                .filter(|l| *l < rows && !c.pooled[*l]);
            *speed = member.base_speed_m_s;
            member.regrouping = false;
            let Some(leader) = leader else { continue };
            pairs.push((leader, row));
            while self
                .listed
                .get(next_listed)
                .is_some_and(|r| (*r as usize) < row)
            {
                next_listed += 1;
            }
            let listed = self
                .listed
                .get(next_listed)
                .is_some_and(|r| *r as usize == row);
            let walking = c.state[row] == AgentState::Walking
                && !(listed && c.crosswalk[row].controls_motion());
            // A committed or queued member keeps its crossing; only walkers on the leader's
            // heading correct, and only along the route.
            if walking && c.direction[row] == c.direction[leader] {
                let dir = f64::from(c.direction[leader]);
                let slot_m = c.distance_m[leader] - dir * FORMATION_GAP_M * f64::from(member.slot);
                let error_m = (slot_m - c.distance_m[row]) * dir;
                *speed = member.base_speed_m_s * speed_factor(error_m);
                member.regrouping = error_m.abs() > REGROUP_M;
            }
        }
        pairs
    }
}

/// Counts the groups of `pairs` (in any order): one per leader with its followers, and those
/// with a follower regrouping. `marks` (one per row) is all zero before and after.
fn count_groups(
    state: &mut CrossingsState,
    agents: &Agents,
    pairs: &[(usize, usize)],
    marks: &mut Vec<u8>,
) {
    const LED: u8 = 1;
    const REGROUPING: u8 = 2;
    marks.resize(agents.len(), 0);
    for &(leader, follower) in pairs {
        marks[leader] |= LED
            | if agents.group[follower].regrouping {
                REGROUPING
            } else {
                0
            };
    }
    let stats = &mut state.stats;
    stats.groups = 0;
    stats.regrouping_groups = 0;
    for &(leader, _) in pairs {
        let mark = std::mem::take(&mut marks[leader]);
        if mark != 0 {
            stats.groups += 1;
            stats.regrouping_groups += u64::from(mark & REGROUPING != 0);
        }
    }
    // Each group is its leader and its followers.
    stats.group_members = stats.groups + pairs.len() as u64;
}

/// Whether a leader may start across `crosswalk`: every follower close behind it on its heading
/// is queued at (or already on) the same crosswalk, or it has waited for them long enough.
/// Followers and lone agents always may.
fn group_ready(
    agents: &Agents,
    pairs: &[(usize, usize)],
    row: usize,
    crosswalk: u16,
    index: &CrossingIndex,
) -> bool {
    // A leader waits for its group at most this long, so a follower held elsewhere never
    // keeps it at the kerb.
    if agents.group[row].role != GroupRole::Leader
        || agents.crosswalk[row].waiting_s >= super::groups::GROUP_WAIT_MAX_S
    {
        return true;
    }
    let start = pairs.partition_point(|p| p.0 < row);
    pairs[start..]
        .iter()
        .take_while(|p| p.0 == row)
        .all(|&(_, follower)| {
            let near = distance_m(agents.position[follower], agents.position[row])
                <= SHARED_CROSSING_M
                && agents.direction[follower] == agents.direction[row]
                && agents.state[follower] == AgentState::Walking;
            let f = agents.crosswalk[follower];
            let queued = f.crosswalk == crosswalk
                && (f.phase.occupies()
                    || (f.phase.demands()
                        && distance_m(agents.position[follower], f.waiting) <= AT_TARGET_M));
            let approaching = index
                .routes
                .get(usize::from(agents.route[follower]))
                .is_some_and(|c| c.iter().any(|c| c.crosswalk == crosswalk));
            !near || queued || !approaching || f.phase == CrosswalkPhase::Completed
        })
}

/// Signals advance on what they see at the start of the step; returns per-crosswalk inputs.
fn signals_step(config: &WorldConfig, sets: &mut CrossingSets<'_>) -> Crosswalks {
    let space = &config.space;
    let n = space.crosswalks.len();
    let (mut demand, mut occupied) = (vec![false; n], vec![false; n]);
    // Only listed rows can be bound.
    for &row in sets.rows.iter() {
        let row = row as usize;
        let c = &sets.agents.crosswalk[row];
        if c.is_bound() && !sets.agents.pooled[row] {
            let i = usize::from(c.crosswalk);
            if i < n {
                demand[i] |= c.phase.demands();
                occupied[i] |= c.phase.occupies();
            }
        }
    }
    let hazard = sets.state.hazard.map(|h| h.position);
    let zone_clear: Vec<bool> = space
        .crosswalks
        .iter()
        .map(|c| {
            !hazard.is_some_and(|p| in_conflict_zone(c, p))
                && !lane_vehicle_in_zone(sets.vehicles, &space.lanes, c)
        })
        .collect();
    let timing = config.scenario.crossings.timing;
    for (index, signal) in sets.state.signals.iter_mut().enumerate() {
        let mine = space
            .signals
            .get(index)
            .map_or(&[][..], |s| &s.crosswalks[..]);
        let any = |v: &[bool]| mine.iter().any(|c| v.get(usize::from(*c)) == Some(&true));
        let inputs = SignalInputs {
            demand: any(&demand),
            occupied: any(&occupied),
            zone_clear: mine
                .iter()
                .all(|c| zone_clear.get(usize::from(*c)) != Some(&false)),
        };
        signal.advance(&timing, config.fixed_step_s, inputs);
    }
    let walk = space
        .crosswalks
        .iter()
        .map(|c| {
            sets.state
                .signals
                .get(usize::from(c.signal))
                .is_some_and(|s| s.phase == SignalPhase::PedestrianCrossing)
        })
        .collect();
    Crosswalks { zone_clear, walk }
}

/// What this step's queries added to the row list.
struct Queried {
    /// Whether any row was bound or held (and pushed onto the list, out of order).
    bound_now: bool,
}

/// Crosswalk queries for unbound walkers whose route crosses, at most `queries_per_step` per
/// step from a rotating cursor (the rest deferred and counted); a found crossing binds. Rows
/// bound or held here are pushed onto `sets.rows`.
fn queries_step(config: &WorldConfig, sets: &mut CrossingSets<'_>) -> Queried {
    let settings = &config.scenario.crossings;
    let index = sets.index;
    let mut queue = listed_queue_occupancy(config, sets);
    let agents = &mut *sets.agents;
    let n = agents.len();
    let (mut processed, mut deferred) = (0u64, 0u64);
    let cursor = sets.state.query_cursor as usize;
    let mut next_cursor = None;
    let mut held = 0u64;
    let listed = sets.rows.len();
    // Without a route that crosses, no row needs a query (nothing processed, nothing deferred).
    let any_crosses = index.routes.iter().any(|r| !r.is_empty());
    // Rows from the cursor round to it, as `(cursor + k) % n` for k in 0..n, without a
    // division per row.
    let start = if n == 0 { 0 } else { cursor % n };
    let rows = if any_crosses { n } else { 0 };
    // An unlisted record is clean (in Approach): only listed ones are read. The list is
    // ascending, so each of the two runs of rows merges with it from its own position.
    let listed_rows = &sets.rows[..listed];
    let mut newly_listed = Vec::new();
    // The round's rows cut into chunks, and how many rows of each need a query, counted on
    // the pool (a row needs one by its own columns alone, and a binding changes only its own
    // row, so a count made before any binding holds); then the chunks in round order: one
    // with rows to query is walked row by row, any other only adds its count to the deferred.
    let chunks = round_chunks([start..rows, 0..start.min(rows)], CHUNK_ROWS);
    let shared: &Agents = agents;
    let needing: Vec<u64> = chunks
        .par_iter()
        .map(|part| count_needing_in(part.len(), (index, shared, listed_rows), part.clone()))
        .collect();
    let budget = u64::from(settings.queries_per_step);
    for (part, count) in chunks.into_iter().zip(needing) {
        if count == 0 || processed >= budget {
            deferred += count;
            continue;
        }
        let mut next_listed = listed_rows.partition_point(|r| (*r as usize) < part.start);
        for row in part {
            if !needs_query(index, agents, listed_rows, &mut next_listed, row) {
                continue;
            }
            if processed >= budget {
                deferred += 1;
                continue;
            }
            processed += 1;
            next_cursor = Some((row + 1) % n);
            if let Some(crossing) = crossing_ahead(config, index, agents, row) {
                bind(config, settings, agents, &mut queue, row, crossing);
                let c = &agents.crosswalk[row];
                held += u64::from(c.held);
                if !is_clean(c) {
                    newly_listed.push(row as u32);
                }
            }
        }
    }
    sets.rows.extend_from_slice(&newly_listed);
    // Every held flag was cleared before the queries, so the held rows are the ones held here.
    sets.state.stats.queue_full_steps += held;
    if deferred > 0 {
        sets.state.query_cursor = next_cursor.map_or(0, |c| c as u32);
    }
    count_queries(sets.state, processed, deferred);
    Queried {
        bound_now: sets.rows.len() > listed,
    }
}

/// Whether row `row` needs a crosswalk query: an unbound walker (not pooled) whose route
/// crosses. `next` is the position in the ascending `listed` rows of the last row asked (rows
/// asked ascending): an unlisted record is clean (in Approach), so only a listed one is read.
#[inline]
pub(super) fn needs_query(
    index: &CrossingIndex,
    agents: &Agents,
    listed: &[u32],
    next: &mut usize,
    row: usize,
) -> bool {
    let approaching = |next: &mut usize| {
        while listed.get(*next).is_some_and(|r| (*r as usize) < row) {
            *next += 1;
        }
        listed.get(*next).map(|r| *r as usize) != Some(row)
            || agents.crosswalk[row].phase == CrosswalkPhase::Approach
    };
    index.route_crosses(agents.route[row])
        && !agents.pooled[row]
        && agents.state[row] == AgentState::Walking
        && approaching(next)
}

/// The ascending `runs` of rows cut into chunks of at most `chunk` rows, in order.
pub(super) fn round_chunks(
    runs: [std::ops::Range<usize>; 2],
    chunk: usize,
) -> Vec<std::ops::Range<usize>> {
    let chunk = chunk.max(1);
    runs.into_iter()
        .flat_map(|run| {
            let end = run.end;
            run.step_by(chunk)
                .map(move |first| first..(first + chunk).min(end))
        })
        .collect()
}

/// How many of `rows` need a crosswalk query ([`needs_query`]), counted in chunks of `chunk`
/// rows on the current pool (a sum: the same in any order).
pub(super) fn count_needing_in(
    chunk: usize,
    (index, agents, listed): (&CrossingIndex, &Agents, &[u32]),
    rows: std::ops::Range<usize>,
) -> u64 {
    let chunk = chunk.max(1);
    (0..rows.len().div_ceil(chunk))
        .into_par_iter()
        .map(|at| {
            let first = rows.start + at * chunk;
            let part = first..(first + chunk).min(rows.end);
            let mut next = listed.partition_point(|r| (*r as usize) < first);
            part.filter(|row| needs_query(index, agents, listed, &mut next, *row))
                .count() as u64
        })
        .sum()
}

/// The queue places the listed rows hold (only listed rows can demand: a clean record is in
/// Approach).
fn listed_queue_occupancy(config: &WorldConfig, sets: &CrossingSets<'_>) -> QueueOccupancy {
    let settings = &config.scenario.crossings;
    let agents = &*sets.agents;
    let mut queue = QueueOccupancy::new(config.space.crosswalks.len(), settings.capacity());
    for &row in sets.rows.iter() {
        let c = &agents.crosswalk[row as usize];
        if c.phase.demands() {
            queue.take(c.crosswalk, c.entry_side, c.slot);
        }
    }
    queue
}

/// The first crossing of the walker's route near it that lies ahead within reach (or that it
/// is already on).
fn crossing_ahead(
    config: &WorldConfig,
    index: &CrossingIndex,
    agents: &Agents,
    row: usize,
) -> Option<RouteCrossing> {
    let settings = &config.scenario.crossings;
    index
        .query(agents.route[row], agents.position[row])
        .copied()
        .find(|c| {
            let (_, ahead) = c.ahead(agents.distance_m[row], agents.direction[row]);
            ahead <= settings.reach_m() && ahead >= -c.length_m()
        })
}

/// Records this step's processed and deferred queries, and their totals.
fn count_queries(state: &mut CrossingsState, processed: u64, deferred: u64) {
    let stats = &mut state.stats;
    stats.queries_processed = processed;
    stats.queries_deferred = deferred;
    stats.queries_processed_total += processed;
    stats.queries_deferred_total += deferred;
}

/// Binds row `row` to `crossing`: on the carriageway already it is committed; within the entry
/// range it joins the tail of a lane's queue (the lowest free slot with nobody queued behind
/// it: [`QueueOccupancy::claim`]; Requested); with the queue full it is held where
/// it stands and asks again next step.
fn bind(
    config: &WorldConfig,
    settings: &CrossingSettings,
    agents: &mut Agents,
    queue: &mut QueueOccupancy,
    row: usize,
    crossing: RouteCrossing,
) {
    let Some(crosswalk) = config.space.crosswalks.get(usize::from(crossing.crosswalk)) else {
        return;
    };
    let (side, ahead) = crossing.ahead(agents.distance_m[row], agents.direction[row]);
    let exit_distance_m = crossing.kerb_distance_m[usize::from(1 - side)];
    let base = CrosswalkAgent {
        crosswalk: crossing.crosswalk,
        entry_side: side,
        exit_distance_m,
        bound_direction: agents.direction[row],
        completed: agents.crosswalk[row].completed,
        ..CrosswalkAgent::default()
    };
    if ahead <= 0.0 {
        // Already between the kerbs: committed towards the side ahead, on the route's line.
        let kerbs = [crosswalk.sides[0].kerb, crosswalk.sides[1].kerb];
        let mut state = CrosswalkAgent {
            phase: CrosswalkPhase::Crossing,
            entry: kerbs[usize::from(side)],
            exit: kerbs[usize::from(1 - side)],
            waiting: kerbs[usize::from(side)],
            ..base
        };
        state.alpha = state.alpha_of(agents.position[row]);
        agents.crosswalk[row] = state;
        restart_watch(agents, row);
        return;
    }
    if ahead > settings.entry_range_m {
        return;
    }
    let limit = side_slots(crosswalk, settings.lanes, settings.queue_rows);
    let lanes = usable_lanes(settings.lanes, crosswalk.width_m);
    match queue.claim(crossing.crosswalk, side, lanes, limit) {
        Some(slot) => {
            let points = slot_points(crosswalk, side, slot, settings.lanes);
            let mut state = CrosswalkAgent {
                phase: CrosswalkPhase::Requested,
                entry: points.entry,
                exit: points.exit,
                waiting: points.waiting,
                lateral_m: points.lateral_m,
                queue_m: points.queue_m,
                slot,
                ..base
            };
            state.alpha = state.alpha_of(agents.position[row]);
            agents.crosswalk[row] = state;
        }
        None => {
            // The queue is full: it waits where it is, within the entry range.
            agents.crosswalk[row].held = true;
        }
    }
}

/// One bound agent's transition and movement.
fn advance_bound(
    config: &WorldConfig,
    settings: &CrossingSettings,
    sets: &mut CrossingSets<'_>,
    row: usize,
    may_start: &dyn Fn(&Agents, usize, u16) -> bool,
    bound: &[usize],
) {
    let agents = &mut *sets.agents;
    let dt = config.fixed_step_s;
    match agents.state[row] {
        AgentState::Walking => {}
        // Held by a directive: it keeps its place (the liveness guard watches it).
        AgentState::Holding => return,
        // Taken off its route by a directive: the transaction ends.
        _ => {
            agents.crosswalk[row].unbind();
            return;
        }
    }
    let mut c = agents.crosswalk[row];
    if agents.group[row].role == GroupRole::Follower && c.phase.forces_full() {
        agents.speed_m_s[row] = agents.group[row].base_speed_m_s;
    }
    let stride = agents.speed_m_s[row] * dt;
    let here = agents.position[row];
    match c.phase {
        CrosswalkPhase::Requested | CrosswalkPhase::Waiting => {
            // Requested lasts the step the demand is formed in; Waiting follows.
            let fresh = c.phase == CrosswalkPhase::Requested && c.waiting_s == 0.0;
            c.waiting_s += dt;
            let at = distance_m(here, c.waiting) <= AT_TARGET_M;
            if fresh {
                move_to(agents, row, c.waiting, stride);
            } else if at && may_start(agents, row, c.crosswalk) {
                c.phase = CrosswalkPhase::Crossing;
                restart_watch(agents, row);
            } else {
                c.phase = CrosswalkPhase::Waiting;
                move_clear(agents, row, c.waiting, stride, bound);
            }
        }
        CrosswalkPhase::Crossing | CrosswalkPhase::Clearing => {
            let target = if c.alpha < 0.0 && distance_m(here, c.entry) > AT_TARGET_M {
                c.entry
            } else {
                c.exit
            };
            move_clear(agents, row, target, stride, bound);
            c.alpha = c.alpha_of(agents.position[row]);
            if c.alpha >= super::crosswalk::CLEARING_ALPHA {
                c.phase = CrosswalkPhase::Clearing;
            }
            if distance_m(agents.position[row], c.exit) <= AT_TARGET_M {
                complete(agents, row, &mut c);
                sets.state.stats.completed += 1;
            }
        }
        CrosswalkPhase::Completed => {
            let away = (agents.distance_m[row] - c.exit_distance_m).abs() > settings.reach_m();
            if away || agents.direction[row] != c.bound_direction {
                c.unbind();
            }
        }
        CrosswalkPhase::Approach => {}
    }
    agents.crosswalk[row] = c;
}

/// Ends a crossing at the exit: walking resumes from the exit kerb's route distance (and
/// steers the body from its lane back to the route's line).
fn complete(agents: &mut Agents, row: usize, c: &mut CrosswalkAgent) {
    agents.position[row] = c.exit;
    agents.distance_m[row] = c.exit_distance_m;
    c.phase = CrosswalkPhase::Completed;
    c.alpha = 1.0;
    c.completed += 1;
}

/// Moves towards `target` unless the step would bring the body closer than the safety
/// diameter to another agent that may block it: a controlled walker waits behind a body rather
/// than walking through it. A queued walker yields to every agent bound to its crosswalk
/// (queued, crossing or just arrived); a committed crosser yields only to the committed
/// crossers from its own side ahead of it (farther along its crossing; on a tie, the lower
/// row), so the queue never freezes a crosser on the carriageway and the frontmost crosser
/// always moves: no two crossers wait for each other.
fn move_clear(agents: &mut Agents, row: usize, target: Vec2, stride_m: f64, bound: &[usize]) {
    let here = agents.position[row];
    let next = step_towards(here, target, stride_m);
    let diameter = crate::sim::walk::body::SAFETY_DIAMETER_M;
    let mine = agents.crosswalk[row];
    let blocked = bound.iter().any(|&other| {
        let there = agents.position[other];
        let theirs = &agents.crosswalk[other];
        other != row
            && theirs.crosswalk == mine.crosswalk
            && (!mine.phase.occupies() || ahead_of(&mine, theirs, (here, row), (there, other)))
            && distance_m(next, there) < diameter
            && distance_m(next, there) < distance_m(here, there)
    });
    if !blocked {
        move_to(agents, row, target, stride_m);
    }
}

/// Whether a committed crosser `theirs` at `there` (row `other`) is ahead of committed crosser
/// `mine` at `here` (row `row`): committed, from the same side, and farther along the crossing
/// (on a tie, the lower row).
fn ahead_of(
    mine: &CrosswalkAgent,
    theirs: &CrosswalkAgent,
    (here, row): (Vec2, usize),
    (there, other): (Vec2, usize),
) -> bool {
    if !theirs.phase.occupies() || theirs.entry_side != mine.entry_side {
        return false;
    }
    let (a, b) = (mine.alpha_of(there), mine.alpha_of(here));
    a > b || (a == b && other < row)
}

fn move_to(agents: &mut Agents, row: usize, target: Vec2, stride_m: f64) {
    let here = agents.position[row];
    let next = step_towards(here, target, stride_m);
    let (dx, dy) = (next.x - here.x, next.y - here.y);
    let length = dx.hypot(dy);
    if length > 0.0 {
        agents.facing[row] = Vec2 {
            x: dx / length,
            y: dy / length,
        };
    }
    agents.position[row] = next;
}

/// Gates from this step's occupancy, then the hazard; phase counts (`unpooled` rows in all:
/// every unlisted one is in Approach).
fn gates_step(config: &WorldConfig, sets: &mut CrossingSets<'_>, unpooled: u64) {
    let space = &config.space;
    let mut occupied = vec![false; space.signals.len()];
    let mut phases = [0u64; 6];
    let mut listed = 0u64;
    for &row in sets.rows.iter() {
        let row = row as usize;
        if sets.agents.pooled[row] {
            continue;
        }
        let c = &sets.agents.crosswalk[row];
        listed += 1;
        phases[usize::from(c.phase.code())] += 1;
        if c.phase.occupies() {
            if let Some(cw) = space.crosswalks.get(usize::from(c.crosswalk)) {
                if let Some(o) = occupied.get_mut(usize::from(cw.signal)) {
                    *o = true;
                }
            }
        }
    }
    phases[usize::from(CrosswalkPhase::Approach.code())] += unpooled - listed;
    for (signal, occupied) in sets.state.signals.iter_mut().zip(occupied) {
        signal.set_gate(occupied);
    }
    sets.state.stats.phases = phases;
    let all_open = sets.state.signals.iter().all(|s| s.gate_open);
    if let Some(hazard) = &mut sets.state.hazard {
        hazard.advance(all_open, config.fixed_step_s);
    }
}

/// The liveness guard (after walking): progress watches, stuck flags and their events, waiting
/// windows refreshed ([`refresh_window`]), forced clears of committed crossers without
/// progress. Only the rows the crossings phase listed can occupy a crossing (`sets.rows`); the others are read for their watch alone.
pub fn liveness_phase(config: &WorldConfig, sets: &mut CrossingSets<'_>) {
    let (dt, stuck_after_s) = (config.fixed_step_s, config.scenario.crossings.stuck_after_s);
    sets.state.stats.stalled_committed = 0;
    sets.state.stats.stuck_now = 0;
    // The quiet watches of the unlisted rows, in chunks of rows on the current pool (each row's
    // watch reads and writes its own row); every row a quiet watch cannot settle (one that
    // reports) and every listed row is left to its guard, in row order after the pass. A
    // guard changes only its own row besides the events (pushed in row order, as one pass
    // pushes them) and the counters (sums, a maximum), so this is the one pass's result.
    let (quiet_stuck, guarded) = quiet_pass(sets.agents, sets.rows, (dt, stuck_after_s));
    let mut listed = 0;
    for row in guarded {
        let row = row as usize;
        while sets.rows.get(listed).is_some_and(|r| (*r as usize) < row) {
            listed += 1;
        }
        let is_listed = sets.rows.get(listed).is_some_and(|r| *r as usize == row);
        guard_row(config, sets, row, is_listed);
    }
    sets.state.stats.stuck_now += quiet_stuck;
}

/// The quiet watches of every unlisted row (`listed` ascending), in chunks on the current pool:
/// how many of the rows they settled are stuck, and the rows left to their guards (listed, or
/// whose watch reports), ascending.
fn quiet_pass(
    agents: &mut Agents,
    listed: &[u32],
    (dt_s, stuck_after_s): (f64, f64),
) -> (u64, Vec<u32>) {
    let Agents {
        liveness,
        position,
        pooled,
        state,
        walk_decision,
        ..
    } = agents;
    let chunk = CHUNK_ROWS;
    let chunks: Vec<(u64, Vec<u32>)> = liveness
        .par_chunks_mut(chunk)
        .enumerate()
        .map(|(index, live)| {
            let first = index * chunk;
            let rows = first..first + live.len();
            let columns = WatchColumns {
                position: &position[rows.clone()],
                pooled: &pooled[rows.clone()],
                state: &state[rows.clone()],
                decision: &walk_decision[rows.clone()],
            };
            quiet_chunk(columns, live, (first, listed), (dt_s, stuck_after_s))
        })
        .collect();
    let stuck = chunks.iter().map(|(stuck, _)| stuck).sum();
    let guarded = chunks.into_iter().flat_map(|(_, rows)| rows).collect();
    (stuck, guarded)
}

/// The quiet watches of one chunk of rows from row `first` (`columns` and `live` are theirs):
/// the stuck count of the rows settled and the rows left to their guards, ascending.
fn quiet_chunk(
    columns: WatchColumns<'_>,
    live: &mut [Liveness],
    (first, listed): (usize, &[u32]),
    (dt_s, stuck_after_s): (f64, f64),
) -> (u64, Vec<u32>) {
    let end = live.len();
    let mut next_listed = listed.partition_point(|r| (*r as usize) < first);
    let (mut at, mut stuck, mut guarded) = (0, 0u64, Vec::new());
    while at < end {
        // The unlisted rows up to the next listed one (local indices).
        let unlisted_end = listed
            .get(next_listed)
            .map_or(end, |r| (*r as usize).saturating_sub(first))
            .min(end);
        if at < unlisted_end {
            let run = at..unlisted_end;
            let columns = WatchColumns {
                position: &columns.position[run.clone()],
                pooled: &columns.pooled[run.clone()],
                state: &columns.state[run.clone()],
                decision: &columns.decision[run.clone()],
            };
            let (stop, settled_stuck) = columns.quiet(&mut live[run], dt_s, stuck_after_s);
            stuck += settled_stuck;
            at += stop;
            if at == unlisted_end {
                continue;
            }
        } else {
            next_listed += 1;
        }
        guarded.push((first + at) as u32);
        at += 1;
    }
    (stuck, guarded)
}

/// The liveness guard of one row the quiet pass left to `watch`: its verdict's event, a
/// listed row's waiting window refreshed, and an occupying crosser's no-progress count and
/// forced clear.
fn guard_row(config: &WorldConfig, sets: &mut CrossingSets<'_>, row: usize, is_listed: bool) {
    let settings = &config.scenario.crossings;
    let dt = config.fixed_step_s;
    let agents = &mut *sets.agents;
    let stats = &mut sets.state.stats;
    let occupies = is_listed && agents.crosswalk[row].phase.occupies();
    let signals = &sets.state.signals;
    let signal = |agents: &Agents| {
        config
            .space
            .crosswalks
            .get(usize::from(agents.crosswalk[row].crosswalk))
            .and_then(|c| signals.get(usize::from(c.signal)))
            .map(|s| s.phase)
    };
    let verdict = watch(agents, row, (dt, settings.stuck_after_s), occupies, signal);
    if verdict != Verdict::Unchanged {
        let handle = sets.slots.handle_of(row);
        let source = Some(agents.source[row]);
        let (kind, detail) = match verdict {
            Verdict::Stuck(reason) => {
                stats.stuck_flags += 1;
                (EventKind::Stuck, EventDetail::Stuck(reason))
            }
            _ => (EventKind::Unstuck, EventDetail::None),
        };
        sets.events.push(sets.frame, kind, handle, source, detail);
    }
    let was = agents.crosswalk[row].phase;
    if is_listed && refresh_window(agents, row) {
        stats.window_refreshes += 1;
        recount(&mut stats.phases, was, CrosswalkPhase::Requested);
        let handle = sets.slots.handle_of(row);
        let source = Some(agents.source[row]);
        let kind = EventKind::WindowRefresh;
        sets.events
            .push(sets.frame, kind, handle, source, EventDetail::None);
    }
    if occupies {
        let still_s = agents.liveness[row].still_s;
        stats.max_no_progress_s = stats.max_no_progress_s.max(still_s);
        if still_s >= STALLED_AFTER_S {
            stats.stalled_committed += 1;
        }
        if still_s >= settings.forced_clear_after_s {
            let mut c = agents.crosswalk[row];
            complete(agents, row, &mut c);
            agents.crosswalk[row] = c;
            agents.liveness[row] = crate::sim::state::Liveness::at(c.exit);
            stats.forced_clears += 1;
            recount(&mut stats.phases, was, CrosswalkPhase::Completed);
            let handle = sets.slots.handle_of(row);
            let source = Some(agents.source[row]);
            sets.events.push(
                sets.frame,
                EventKind::ForcedClear,
                handle,
                source,
                EventDetail::None,
            );
        }
    }
    if agents.liveness[row].stuck.is_some() {
        stats.stuck_now += 1;
    }
}

/// Moves one agent from phase `from` to phase `to` in the per-phase counts the crossings phase
/// took (the liveness guard changes a phase after they were counted).
fn recount(phases: &mut [u64; 6], from: CrosswalkPhase, to: CrosswalkPhase) {
    let from = &mut phases[usize::from(from.code())];
    *from = from.saturating_sub(1);
    phases[usize::from(to.code())] += 1;
}
