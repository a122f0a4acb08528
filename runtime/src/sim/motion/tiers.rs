//! LOD tiers (motion specification): Full updates every step, Simulated every 2, Stub every 8, on a
//! cadence phased by a stable hash of the agent's id; the applied tier follows the distance to
//! the nearest observer with hysteresis, within capacities and per-step transition budgets.
//!
//! One tier per agent: the crowd specification's Hero / Medium / Background are the same three
//! rungs (Hero = Full, Medium = Simulated, Background = Stub); relevance, panic and the crowd
//! governor move this one column (see `sim::motion::governor`).

use super::super::observers::Observation;
use crate::sim::config::MotionConfig;
use crate::sim::state::{agents::count_where, AgentId, Agents, Tier};

/// The longest an agent can go without an update, in steps: at a step where
/// `(hash + frame) % 8 == 0` every tier updates, so no agent waits longer than this.
pub const MAX_SKIPPED_STEPS: u32 = 8;

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) table.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// The stable hash that phases an agent's update cadence: CRC-32 (IEEE) of the packed id's
/// eight little-endian bytes. It depends on the id only — never on the row — so compaction,
/// pooling and restores never move an agent's phase. (CRC-32 is the hash with which the
/// specification's pressure rows 100 / 300 / 1000 → 28 / 52 / 140 come out exactly; see the
/// pressure test.)
pub fn stable_hash(id: AgentId) -> u32 {
    let mut crc = u32::MAX;
    for byte in id.bits().to_le_bytes() {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// Whether an agent of `tier` whose id hashes to `hash` updates at scheduler frame `frame`:
/// `(hash + frame) mod interval == 0`. Every mask fits a `u32`, so only the frame's low bits
/// count (no division per agent).
#[inline(always)]
pub fn updates_at(hash: u32, frame: u64, tier: Tier) -> bool {
    hash.wrapping_add(frame as u32) & tier.cadence_mask() == 0
}

/// Whether the agent in `row` is forced Full this step: its crosswalk phase is Requested,
/// Waiting, Crossing or Clearing (`sim::crossings`); forced agents may exceed the capacity.
#[inline]
pub fn forced_full(agents: &Agents, row: usize) -> bool {
    agents
        .crosswalk
        .get(row)
        .is_some_and(|c| c.phase.forces_full())
}

/// How many of the listed crossing rows (`sim::crossings`; an unlisted row is in Approach) are
/// forced Full this step: the count [`TierCounts::forced_full`] reports whether or not tiers are
/// assigned from observers.
pub fn forced_count(agents: &Agents, crossing_rows: &[u32]) -> u64 {
    crossing_rows
        .iter()
        .filter(|&&row| forced_full(agents, row as usize) && !agents.pooled[row as usize])
        .count() as u64
}

/// The distance bands, relevance thresholds, capacities and budgets tier assignment reads (a
/// scenario's [`MotionConfig`]: its named tier policy, overridden field by field, checked when
/// the scenario compiles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierPolicy {
    /// The named policy the values come from (`motion-bands`, `crowd-radii`).
    pub name: &'static str,
    /// Enter Full within, meters.
    pub full_enter_m: f64,
    /// Leave Full beyond, meters.
    pub full_exit_m: f64,
    /// Enter Simulated within, meters.
    pub simulated_enter_m: f64,
    /// Leave Simulated beyond, meters.
    pub simulated_exit_m: f64,
    /// At or above this relevance an agent asks for Full.
    pub hero_relevance: f64,
    /// At or above this relevance an agent asks for at least Simulated.
    pub medium_relevance: f64,
    /// Full capacity (forced agents may exceed it).
    pub full_capacity: u32,
    /// Simulated capacity.
    pub simulated_capacity: u32,
    /// Promotions per step.
    pub promotions_per_step: u32,
    /// Demotions per step.
    pub demotions_per_step: u32,
}

impl TierPolicy {
    /// The policy of a scenario's motion settings.
    pub fn of(settings: &MotionConfig) -> TierPolicy {
        TierPolicy {
            name: settings.tier_policy,
            full_enter_m: settings.full_enter_m,
            full_exit_m: settings.full_exit_m,
            simulated_enter_m: settings.simulated_enter_m,
            simulated_exit_m: settings.simulated_exit_m,
            hero_relevance: settings.hero_relevance,
            medium_relevance: settings.medium_relevance,
            full_capacity: settings.full_capacity,
            simulated_capacity: settings.simulated_capacity,
            promotions_per_step: settings.promotions_per_step,
            demotions_per_step: settings.demotions_per_step,
        }
    }

    /// The tier relevance, panic and alertness (an agent that saw through a disguise) ask for
    /// at least: Full at or above the Hero threshold; Simulated at or above the Medium one, or
    /// panicking past [`PANIC_PROMOTION`](super::governor::PANIC_PROMOTION), or alert.
    #[inline]
    pub fn by_relevance(&self, relevance: f64, panic: f64, alert: bool) -> Tier {
        if relevance >= self.hero_relevance {
            Tier::Full
        } else if relevance >= self.medium_relevance
            || panic > super::governor::PANIC_PROMOTION
            || alert
        {
            Tier::Simulated
        } else {
            Tier::Stub
        }
    }

    /// The tier distance alone asks for, with hysteresis from the current tier.
    #[inline]
    pub fn by_distance(&self, current: Tier, distance_m: f64) -> Tier {
        let full_limit = if current == Tier::Full {
            self.full_exit_m
        } else {
            self.full_enter_m
        };
        let simulated_limit = if current <= Tier::Simulated {
            self.simulated_exit_m
        } else {
            self.simulated_enter_m
        };
        if distance_m <= full_limit {
            Tier::Full
        } else if distance_m <= simulated_limit {
            Tier::Simulated
        } else {
            Tier::Stub
        }
    }
}

/// What one step's tier assignment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCounts {
    /// Agents forced Full this step (counted even beyond the capacity).
    pub forced_full: u64,
    /// Promotions applied.
    pub promotions: u64,
    /// Demotions applied.
    pub demotions: u64,
    /// Transitions wanted but left for a later step by the budgets.
    pub deferred_transitions: u64,
}

/// One agent's claim in the assignment: its sort key, row, and (in a transition) the tier it
/// moves to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
struct Claim {
    distance_m: f64,
    id: u64,
    row: u32,
    want: Tier,
}

impl TierScratch {
    /// Heap bytes of the buffers (their capacities).
    pub fn heap_bytes(&self) -> usize {
        self.distance_m.capacity() * std::mem::size_of::<f64>()
            + self.forced.capacity()
            + self.requested.capacity() * std::mem::size_of::<Tier>()
            + (self.full.capacity()
                + self.simulated.capacity()
                + self.promote.capacity()
                + self.demote.capacity())
                * std::mem::size_of::<Claim>()
    }
}

fn by_key(a: &Claim, b: &Claim) -> std::cmp::Ordering {
    a.distance_m.total_cmp(&b.distance_m).then(a.id.cmp(&b.id))
}

/// Scratch of tier assignment, kept between steps so a step allocates only when it grows.
///
/// Assignment keeps lists, not per-row targets: only forced rows and rows requesting Full or
/// Simulated can get a target other than Stub, so every other row's transition (a demotion to
/// Stub when it is not Stub already) is known in the pass that reads its request.
#[derive(Clone, Debug, Default)]
pub struct TierScratch {
    /// Nearest-observer distance of every row, meters (with a streaming ring only).
    pub distance_m: Vec<f64>,
    /// Whether each row is forced Full this step (with a streaming ring only).
    pub forced: Vec<bool>,
    /// The tier each row asks for before capacities (distance, relevance, panic; with a
    /// streaming ring only).
    pub requested: Vec<Tier>,
    full: Vec<Claim>,
    simulated: Vec<Claim>,
    promote: Vec<Claim>,
    demote: Vec<Claim>,
    forced_count: u64,
    /// Applied tiers counted before the transitions (Full, Simulated, Stub).
    counts: [u64; 3],
}

impl TierScratch {
    /// Empties the lists for a new assignment over the applied `tiers` of every row, counting
    /// them (pooled rows included) in two vectorised passes before anything is filed.
    pub fn start(&mut self, tiers: &[Tier]) {
        self.full.clear();
        self.simulated.clear();
        self.promote.clear();
        self.demote.clear();
        self.forced_count = 0;
        let full = count_where(tiers, |t| *t == Tier::Full);
        let simulated = count_where(tiers, |t| *t == Tier::Simulated);
        self.counts = [full, simulated, tiers.len() as u64 - full - simulated];
    }

    /// Files row `row` (its applied tier was counted by [`TierScratch::start`]): a pooled row
    /// keeps its tier; a forced one targets Full (beyond the capacity); a Full or Simulated
    /// request claims a place by distance; any other targets Stub.
    #[inline(always)]
    pub fn file(&mut self, agents: &Agents, row: usize, request: (Tier, bool), distance_m: f64) {
        let tier = agents.tier[row];
        let (requested, forced) = request;
        // The common row: Stub, asking for Stub, not forced — it files nothing (inlined into
        // the pass over every row; the claims are filed out of line).
        if !forced && requested == Tier::Stub && tier == Tier::Stub {
            return;
        }
        self.claim(agents, row, request, distance_m);
    }

    /// The claim or transition of a row [`TierScratch::file`] files.
    #[inline(never)]
    fn claim(&mut self, agents: &Agents, row: usize, request: (Tier, bool), distance_m: f64) {
        let tier = agents.tier[row];
        let (requested, forced) = request;
        if agents.pooled[row] {
            return;
        }
        let claim = Claim {
            distance_m,
            id: agents.id[row],
            row: row as u32,
            want: Tier::Full,
        };
        if forced {
            self.forced_count += 1;
            if tier != Tier::Full {
                // A forced agent is promoted before any other.
                self.promote.push(Claim {
                    distance_m: f64::NEG_INFINITY,
                    ..claim
                });
            }
        } else if requested == Tier::Full {
            self.full.push(claim);
        } else if requested == Tier::Simulated {
            self.simulated.push(claim);
        } else if tier != Tier::Stub {
            self.demote.push(Claim {
                distance_m: -distance_m,
                want: Tier::Stub,
                ..claim
            });
        }
    }

    /// Files a claim that got `target` as a transition when it moves its row.
    fn transition(&mut self, agents: &Agents, claim: Claim, target: Tier) {
        let now = agents.tier[claim.row as usize];
        if target < now {
            self.promote.push(Claim {
                want: target,
                ..claim
            });
        } else if target > now {
            self.demote.push(Claim {
                distance_m: -claim.distance_m,
                want: target,
                ..claim
            });
        }
    }
}

/// Applied tiers after every row was filed ([`TierScratch::file`]): forced rows Full (beyond
/// the capacity), then the nearest Full requests up to the Full capacity, then the nearest
/// Simulated requests (Full overflow included) up to the Simulated capacity, the rest Stub;
/// rows move towards those targets within the transition budgets, promotions nearest first,
/// demotions farthest first (the rest wait for a later step and are counted). Returns the
/// counts and the tiers per rung after the transitions (Full, Simulated, Stub).
pub fn settle(
    policy: &TierPolicy,
    agents: &mut Agents,
    scratch: &mut TierScratch,
) -> (TierCounts, [u64; 3]) {
    let mut full = std::mem::take(&mut scratch.full);
    let mut simulated = std::mem::take(&mut scratch.simulated);
    let full_left = (policy.full_capacity as usize).saturating_sub(scratch.forced_count as usize);
    nearest_first(&mut full, full_left);
    for (index, claim) in full.iter().enumerate() {
        if index < full_left {
            scratch.transition(agents, *claim, Tier::Full);
        } else {
            simulated.push(*claim);
        }
    }
    let simulated_left = policy.simulated_capacity as usize;
    nearest_first(&mut simulated, simulated_left);
    for (index, claim) in simulated.iter().enumerate() {
        let target = if index < simulated_left {
            Tier::Simulated
        } else {
            Tier::Stub
        };
        scratch.transition(agents, *claim, target);
    }
    scratch.full = full;
    scratch.simulated = simulated;
    let mut counts = TierCounts {
        forced_full: scratch.forced_count,
        ..TierCounts::default()
    };
    let mut tiers = scratch.counts;
    // A row is at most one of a promotion and a demotion, so the two lists are independent;
    // each is ordered by its key and the unique id, so its first `budget` do not depend on the
    // order it was filed in.
    for promote in [true, false] {
        let (moves, budget) = if promote {
            (&mut scratch.promote, policy.promotions_per_step as usize)
        } else {
            (&mut scratch.demote, policy.demotions_per_step as usize)
        };
        nearest_first(moves, budget);
        for claim in moves.iter().take(budget) {
            let row = claim.row as usize;
            tiers[usize::from(agents.tier[row].code())] -= 1;
            tiers[usize::from(claim.want.code())] += 1;
            agents.tier[row] = claim.want;
        }
        let applied = moves.len().min(budget) as u64;
        if promote {
            counts.promotions = applied;
        } else {
            counts.demotions = applied;
        }
        counts.deferred_transitions += moves.len() as u64 - applied;
    }
    (counts, tiers)
}

/// Orders `claims` so that its first `keep` are the nearest, in (distance, id) order, without
/// sorting the rest (linear in the claims).
fn nearest_first(claims: &mut [Claim], keep: usize) {
    if keep == 0 || claims.is_empty() {
        return;
    }
    if keep < claims.len() {
        claims.select_nth_unstable_by(keep - 1, by_key);
        claims[..keep].sort_unstable_by(by_key);
    } else {
        claims.sort_unstable_by(by_key);
    }
}

/// The horizontal distance from `p` to the nearest view of `observation` (every view, valid
/// or not: a fading camera still decides what is near), infinite without views. The square
/// root of the summed squares (IEEE-exact, unlike a library `hypot`, and cheaper).
#[inline]
pub fn nearest_view_distance(observation: &Observation, p: crate::project::Vec2) -> f64 {
    observation
        .views
        .iter()
        .map(|v| {
            let (dx, dy) = (p.x - v.center_m[0], p.y - v.center_m[1]);
            (dx * dx + dy * dy).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A screen for rows whose nearest view is beyond every distance limit, without square roots.
#[derive(Clone, Copy, Debug)]
pub struct FarScreen {
    /// The square of the largest limit, widened by a relative 1e-9: a squared sum above it
    /// has a square root above the limit (the product and the root each round by at most an
    /// ulp). Infinite, screening nothing, where that square is not a normal number (a limit
    /// beyond about 1e154 m or, other than zero, below about 1e-154 m).
    limit_sq: f64,
}

impl FarScreen {
    /// The screen of `policy`'s limits.
    pub fn of(policy: &TierPolicy) -> FarScreen {
        let limit = [
            policy.full_enter_m,
            policy.full_exit_m,
            policy.simulated_enter_m,
            policy.simulated_exit_m,
        ]
        .into_iter()
        .fold(0.0f64, f64::max);
        let square = limit * limit;
        let limit_sq = if limit == 0.0 {
            0.0
        } else if square.is_normal() {
            square * (1.0 + 1e-9)
        } else {
            f64::INFINITY
        };
        FarScreen { limit_sq }
    }

    /// Whether [`nearest_view_distance`] of `p` is certainly beyond every limit: each view's
    /// squared sum (the one whose root that distance takes) is above the widened square (true
    /// without views: the distance is infinite; false for a non-finite sum or limit).
    #[inline]
    pub fn beyond(&self, observation: &Observation, p: crate::project::Vec2) -> bool {
        self.limit_sq.is_finite()
            && observation.views.iter().all(|v| {
                let (dx, dy) = (p.x - v.center_m[0], p.y - v.center_m[1]);
                dx * dx + dy * dy > self.limit_sq
            })
    }
}

/// The horizontal distance from every row to the nearest view of `observation`
/// ([`nearest_view_distance`] of each row's position).
pub fn nearest_view_distances(observation: &Observation, agents: &Agents, out: &mut Vec<f64>) {
    out.clear();
    out.extend(
        agents
            .position
            .iter()
            .map(|p| nearest_view_distance(observation, *p)),
    );
}
