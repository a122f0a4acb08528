//! The crowd governor (crowd specification, V4Crowd): Hero / Medium / Background by distance and
//! relevance, a per-agent cost per rung against a per-step budget, and enforcement that demotes
//! the least relevant agents one rung at a time until the estimate fits.
//!
//! One tier per agent: the crowd's three rungs are the motion tiers (Hero = Full, Medium =
//! Simulated, Background = Stub), so the governor moves the same `tier` column that decides the
//! update cadence. In a world the scenario's named tier policy decides the request
//! (`project::TIER_POLICIES`): by default the motion specification's bands (25 / 32 m, 55 / 65 m
//! with hysteresis, capacities and budgets), or `crowd-radii`, the crowd specification's own
//! radii (6 m, 18 m, no hysteresis) — [`classify`] here, which the V4Crowd fixtures use; in both,
//! relevance and panic raise the request
//! ([`TierPolicy::by_relevance`](super::tiers::TierPolicy::by_relevance)).

use crate::content::StreamingCell;
use crate::sim::config::MotionConfig;
use crate::sim::state::{Agents, Tier};

/// Within this distance an agent is Hero, meters.
pub const HERO_RADIUS_M: f64 = 6.0;
/// At or above this relevance an agent is Hero (both shipped tier policies' threshold).
pub const HERO_RELEVANCE: f64 = 0.85;
/// Within this distance an agent is at least Medium, meters.
pub const MEDIUM_RADIUS_M: f64 = 18.0;
/// At or above this relevance an agent is at least Medium.
pub const MEDIUM_RELEVANCE: f64 = 0.35;
/// Above this panic level a Background agent is promoted to Medium.
pub const PANIC_PROMOTION: f64 = 0.65;

/// The per-step cost of one agent of `tier`, milliseconds (Hero 0.035, Medium 0.015,
/// Background 0.005).
pub fn cost_ms(tier: Tier) -> f64 {
    match tier {
        Tier::Full => 0.035,
        Tier::Simulated => 0.015,
        Tier::Stub => 0.005,
    }
}

/// The estimated cost of `tiers`, milliseconds (summed in integer microseconds, so the estimate
/// does not depend on the order of the sum).
pub fn estimate_ms(tiers: &[Tier]) -> f64 {
    let micros: u64 = tiers.iter().map(|t| cost_us(*t)).sum();
    micros as f64 / 1000.0
}

/// [`estimate_ms`] of tiers given by their counts per rung (Full, Simulated, Stub).
pub fn estimate_of_counts_ms(counts: [u64; 3]) -> f64 {
    let micros: u64 = Tier::ALL
        .iter()
        .zip(counts)
        .map(|(tier, count)| cost_us(*tier) * count)
        .sum();
    micros as f64 / 1000.0
}

fn cost_us(tier: Tier) -> u64 {
    match tier {
        Tier::Full => 35,
        Tier::Simulated => 15,
        Tier::Stub => 5,
    }
}

/// The crowd specification's classification: Hero within [`HERO_RADIUS_M`] or relevance ≥ 0.85,
/// Medium within [`MEDIUM_RADIUS_M`] or ≥ 0.35, else Background.
pub fn classify(distance_m: f64, relevance: f64) -> Tier {
    if distance_m <= HERO_RADIUS_M || relevance >= HERO_RELEVANCE {
        Tier::Full
    } else if distance_m <= MEDIUM_RADIUS_M || relevance >= MEDIUM_RELEVANCE {
        Tier::Simulated
    } else {
        Tier::Stub
    }
}

/// What one enforcement did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Governed {
    /// The estimate before enforcement, milliseconds.
    pub before_ms: f64,
    /// The estimate after enforcement, milliseconds.
    pub estimate_ms: f64,
    /// Rungs demoted.
    pub demotions: u64,
}

/// Enforces `budget_ms` over `tiers` with `relevance`: while the estimate exceeds the budget,
/// the agents are taken in ascending relevance, then descending tier (Hero before Medium), then
/// ascending id, and each demoted one rung, re-sorting after every pass, until it fits or no
/// agent can be demoted. `exempt` rows are never demoted (forced Full).
pub fn enforce(
    tiers: &mut [Tier],
    relevance: &[f64],
    ids: &[u64],
    exempt: impl Fn(usize) -> bool,
    budget_ms: f64,
) -> Governed {
    let mut micros: u64 = tiers.iter().map(|t| cost_us(*t)).sum();
    let budget_us = (budget_ms * 1000.0).floor().max(0.0) as u64;
    let before_ms = micros as f64 / 1000.0;
    let mut demotions = 0;
    while micros > budget_us {
        let mut order: Vec<usize> = (0..tiers.len())
            .filter(|r| tiers[*r] != Tier::Stub && !exempt(*r))
            .collect();
        if order.is_empty() {
            break;
        }
        order.sort_by(|a, b| {
            relevance[*a]
                .total_cmp(&relevance[*b])
                .then(tiers[*a].cmp(&tiers[*b]))
                .then(ids[*a].cmp(&ids[*b]))
        });
        for row in order {
            if micros <= budget_us {
                break;
            }
            let demoted = tiers[row].demoted();
            micros -= cost_us(tiers[row]) - cost_us(demoted);
            tiers[row] = demoted;
            demotions += 1;
        }
    }
    Governed {
        before_ms,
        estimate_ms: micros as f64 / 1000.0,
        demotions,
    }
}

/// The world's governor: the estimate of the applied tiers, enforced when the scenario enables
/// the governor.
pub(in crate::sim) fn govern(settings: &MotionConfig, agents: &mut Agents) -> Governed {
    if !settings.crowd_governor {
        let estimate_ms = estimate_ms(&agents.tier);
        return Governed {
            before_ms: estimate_ms,
            estimate_ms,
            demotions: 0,
        };
    }
    let Agents {
        tier,
        relevance,
        id,
        ..
    } = agents;
    enforce(tier, relevance, id, |_| false, settings.crowd_budget_ms)
}

/// Demotes every agent outside the loaded ring one rung (Hero → Medium, Medium → Background),
/// computing each agent's cell with [`ring_cell`]. `loaded_cells` is sorted row-major, as
/// [`StreamingPlan::loaded_cells`](crate::content::StreamingPlan) is. Returns the rows found
/// outside the ring (ascending); a non-finite position counts as outside.
pub fn demote_outside_ring(
    tiers: &mut [Tier],
    positions: &[crate::project::Vec2],
    loaded_cells: &[StreamingCell],
    cell_size_m: f64,
) -> Vec<usize> {
    let mut outside = Vec::new();
    for (row, p) in positions.iter().enumerate() {
        if !ring_cell(*p, loaded_cells, cell_size_m).1 {
            outside.push(row);
            if let Some(tier) = tiers.get_mut(row) {
                *tier = tier.demoted();
            }
        }
    }
    outside
}

/// The streaming cell of `position` by the streaming planner's own
/// [`streaming_cell`](crate::ops::streaming::streaming_cell) (floor division), so the crowd and
/// the streamer never disagree about which cell an agent is in, and whether that cell is in
/// `loaded_cells` (sorted row-major). A position without a cell (not finite, out of range) is
/// outside.
pub fn ring_cell(
    position: crate::project::Vec2,
    loaded_cells: &[StreamingCell],
    cell_size_m: f64,
) -> (Option<StreamingCell>, bool) {
    let cell = crate::ops::streaming::streaming_cell(position.x, position.y, cell_size_m).ok();
    let inside = cell.is_some_and(|c| loaded_cells.binary_search(&c).is_ok());
    (cell, inside)
}
