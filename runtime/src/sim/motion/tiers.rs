//! LOD tiers (motion seed): Full updates every step, Simulated every 2, Stub every 8, on a
//! cadence phased by a stable hash of the agent's id; the applied tier follows the distance to
//! the nearest observer with hysteresis, within capacities and per-step transition budgets.
//!
//! One tier per agent: the crowd seed's Hero / Medium / Background are the same three rungs
//! (Hero = Full, Medium = Simulated, Background = Stub); relevance, panic and the crowd
//! governor move this one column (see `sim::motion::governor`).

use super::super::agents::{AgentId, Agents, Canonical};
use super::super::observers::Observation;
use crate::project::MotionSettings;

/// An agent's LOD tier. Ordered from most to least detailed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Updated every step (crowd seed: Hero).
    Full,
    /// Updated every second step (crowd seed: Medium).
    Simulated,
    /// Updated every eighth step (crowd seed: Background). New agents start here.
    #[default]
    Stub,
}

impl Tier {
    /// All tiers, most detailed first.
    pub const ALL: [Tier; 3] = [Tier::Full, Tier::Simulated, Tier::Stub];

    /// Steps between two updates of an agent in this tier.
    pub fn interval(self) -> u64 {
        match self {
            Tier::Full => 1,
            Tier::Simulated => 2,
            Tier::Stub => 8,
        }
    }

    /// A stable small number for digests and colours.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The next less detailed tier (Stub stays Stub).
    pub fn demoted(self) -> Tier {
        match self {
            Tier::Full => Tier::Simulated,
            _ => Tier::Stub,
        }
    }

    /// The crowd seed's name of this rung.
    pub fn crowd_name(self) -> &'static str {
        match self {
            Tier::Full => "Hero",
            Tier::Simulated => "Medium",
            Tier::Stub => "Background",
        }
    }
}

impl Canonical for Tier {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.code());
    }
}

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
/// pooling and restores never move an agent's phase. (CRC-32 is the hash with which the seed's
/// pressure rows 100 / 300 / 1000 → 28 / 52 / 140 come out exactly; see the pressure test.)
pub fn stable_hash(id: AgentId) -> u32 {
    let mut crc = u32::MAX;
    for byte in id.bits().to_le_bytes() {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// Whether an agent of `tier` whose id hashes to `hash` updates at scheduler frame `frame`.
#[inline]
pub fn updates_at(hash: u32, frame: u64, tier: Tier) -> bool {
    // Every interval is a power of two, so the remainder is a mask (no division per agent).
    let interval = tier.interval();
    debug_assert!(interval.is_power_of_two());
    (u64::from(hash).wrapping_add(frame)) & (interval - 1) == 0
}

/// Whether the agent in `row` is forced Full this step: its crosswalk phase is Requested,
/// Waiting, Crossing or Clearing (`sim::crossings`); forced agents may exceed the capacity.
pub fn forced_full(agents: &Agents, row: usize) -> bool {
    agents
        .crosswalk
        .get(row)
        .is_some_and(|c| c.phase.forces_full())
}

/// The distance bands, capacities and budgets tier assignment reads (a scenario's
/// [`MotionSettings`], checked when the scenario compiles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierPolicy {
    /// Enter Full within, meters.
    pub full_enter_m: f64,
    /// Leave Full beyond, meters.
    pub full_exit_m: f64,
    /// Enter Simulated within, meters.
    pub simulated_enter_m: f64,
    /// Leave Simulated beyond, meters.
    pub simulated_exit_m: f64,
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
    pub fn of(settings: &MotionSettings) -> TierPolicy {
        TierPolicy {
            full_enter_m: settings.full_enter_m,
            full_exit_m: settings.full_exit_m,
            simulated_enter_m: settings.simulated_enter_m,
            simulated_exit_m: settings.simulated_exit_m,
            full_capacity: settings.full_capacity,
            simulated_capacity: settings.simulated_capacity,
            promotions_per_step: settings.promotions_per_step,
            demotions_per_step: settings.demotions_per_step,
        }
    }

    /// The tier distance alone asks for, with hysteresis from the current tier.
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

/// One agent's claim in the assignment: its sort key and row.
#[derive(Clone, Copy, Debug)]
struct Claim {
    distance_m: f64,
    id: u64,
    row: u32,
}

impl TierScratch {
    /// Heap bytes of the buffers (their capacities).
    pub fn heap_bytes(&self) -> usize {
        self.distance_m.capacity() * std::mem::size_of::<f64>()
            + self.forced.capacity()
            + (self.requested.capacity() + self.target.capacity()) * std::mem::size_of::<Tier>()
            + (self.full.capacity() + self.simulated.capacity() + self.moves.capacity())
                * std::mem::size_of::<Claim>()
    }
}

fn by_key(a: &Claim, b: &Claim) -> std::cmp::Ordering {
    a.distance_m.total_cmp(&b.distance_m).then(a.id.cmp(&b.id))
}

/// Scratch of tier assignment, kept between steps so a step allocates only when it grows.
#[derive(Clone, Debug, Default)]
pub struct TierScratch {
    /// Nearest-observer distance of every row, meters.
    pub distance_m: Vec<f64>,
    /// Whether each row is forced Full this step.
    pub forced: Vec<bool>,
    /// The tier each row asks for before capacities (distance, relevance, panic).
    pub requested: Vec<Tier>,
    /// The tier each row should have this step.
    pub target: Vec<Tier>,
    full: Vec<Claim>,
    simulated: Vec<Claim>,
    moves: Vec<Claim>,
}

/// The horizontal distance from every row to the nearest view of `observation` (every view,
/// valid or not: a fading camera still decides what is near), infinite without views. The
/// square root of the summed squares (IEEE-exact, unlike a library `hypot`, and cheaper).
pub fn nearest_view_distances(observation: &Observation, agents: &Agents, out: &mut Vec<f64>) {
    out.clear();
    out.extend(agents.position.iter().map(|p| {
        observation
            .views
            .iter()
            .map(|v| {
                let (dx, dy) = (p.x - v.center_m[0], p.y - v.center_m[1]);
                (dx * dx + dy * dy).sqrt()
            })
            .fold(f64::INFINITY, f64::min)
    }));
}

/// Computes every row's target tier into `scratch.target`: forced agents Full (beyond the
/// capacity), then the nearest Full requests up to the Full capacity, then the nearest
/// Simulated requests (Full overflow included) up to the Simulated capacity, the rest Stub.
/// `scratch.requested` and `scratch.forced` give each row's request before capacities.
pub fn capacity_targets(policy: &TierPolicy, agents: &Agents, scratch: &mut TierScratch) -> u64 {
    let TierScratch {
        distance_m,
        forced: is_forced,
        requested,
        target,
        full,
        simulated,
        ..
    } = scratch;
    target.clear();
    target.resize(agents.len(), Tier::Stub);
    full.clear();
    simulated.clear();
    let mut forced = 0u64;
    for row in 0..agents.len() {
        if agents.pooled[row] {
            target[row] = agents.tier[row];
            continue;
        }
        let (tier, is_forced) = (requested[row], is_forced[row]);
        let claim = Claim {
            distance_m: distance_m[row],
            id: agents.id[row],
            row: row as u32,
        };
        if is_forced {
            forced += 1;
            target[row] = Tier::Full;
        } else if tier == Tier::Full {
            full.push(claim);
        } else if tier == Tier::Simulated {
            simulated.push(claim);
        }
    }
    let full_left = (policy.full_capacity as usize).saturating_sub(forced as usize);
    nearest_first(full, full_left);
    for (index, claim) in full.iter().enumerate() {
        if index < full_left {
            target[claim.row as usize] = Tier::Full;
        } else {
            simulated.push(*claim);
        }
    }
    let simulated_left = policy.simulated_capacity as usize;
    nearest_first(simulated, simulated_left);
    for claim in simulated.iter().take(simulated_left) {
        target[claim.row as usize] = Tier::Simulated;
    }
    forced
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

/// Moves every row towards its target within the transition budgets: promotions nearest first,
/// demotions farthest first, each at most its budget per step (a forced agent is promoted
/// before any other). The rest wait for a later step and are counted.
pub fn apply_transitions(
    policy: &TierPolicy,
    agents: &mut Agents,
    scratch: &mut TierScratch,
) -> TierCounts {
    let mut counts = TierCounts::default();
    let TierScratch {
        distance_m,
        forced,
        target,
        moves,
        ..
    } = scratch;
    for promote in [true, false] {
        moves.clear();
        for row in 0..agents.len() {
            let (now, want) = (agents.tier[row], target[row]);
            if (promote && want < now) || (!promote && want > now) {
                let key = if promote {
                    if forced[row] {
                        f64::NEG_INFINITY
                    } else {
                        distance_m[row]
                    }
                } else {
                    -distance_m[row]
                };
                moves.push(Claim {
                    distance_m: key,
                    id: agents.id[row],
                    row: row as u32,
                });
            }
        }
        let budget = if promote {
            policy.promotions_per_step
        } else {
            policy.demotions_per_step
        } as usize;
        nearest_first(moves, budget);
        for claim in moves.iter().take(budget) {
            let row = claim.row as usize;
            agents.tier[row] = target[row];
        }
        let applied = moves.len().min(budget) as u64;
        if promote {
            counts.promotions = applied;
        } else {
            counts.demotions = applied;
        }
        counts.deferred_transitions += moves.len() as u64 - applied;
    }
    counts
}
