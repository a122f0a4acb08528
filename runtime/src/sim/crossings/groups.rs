//! Groups: a share of each source's agents (25 % by default) walk in groups of at most three,
//! assigned deterministically from the world's seed and the agents' ids. The first member is
//! the leader; followers keep formation slots behind it along the route by adjusting their
//! speed (never sideways: the route corridor bounds every correction), the leader waits at a
//! crosswalk for the followers close behind it so the group crosses in one phase, and a
//! committed crosser never leaves the crossing to regroup.

use crate::rng::{Address, Domain, DomainKey};
use crate::sim::state::AgentId;

/// Scope bit of the group draws in the population domain (clear of the per-source birth draws).
const GROUP_SCOPE: u64 = 1 << 48;
/// Distance between formation slots along the route, meters.
pub const FORMATION_GAP_M: f64 = 0.9;
/// A follower farther than this from its slot is regrouping, meters.
pub const REGROUP_M: f64 = 1.0;
/// Followers this close behind the leader are waited for at a crosswalk, meters.
pub const SHARED_CROSSING_M: f64 = 8.0;
/// Speed factors a follower corrects with (slowest, fastest).
pub const SPEED_FACTORS: (f64, f64) = (0.6, 1.4);
/// The longest a leader waits at a kerb for its followers, seconds.
pub const GROUP_WAIT_MAX_S: f64 = 8.0;
/// Largest group.
pub const MAX_GROUP_SIZE: u32 = 3;

/// The group of agent `id`: `(leader ordinal, slot)`, or `None` when it walks alone. Ordinals of
/// a source are cut into windows of `size / share` births; one run of `size` consecutive
/// ordinals per window, at an offset drawn from the seed, is a group — exactly `share` of the
/// agents when `size / share` is whole.
pub fn assignment(seed: u64, id: AgentId, share: f64, max_size: u32) -> Option<(u32, u8)> {
    let size = max_size.min(MAX_GROUP_SIZE);
    if share.is_nan() || share <= 0.0 || size < 2 {
        return None;
    }
    let window = ((f64::from(size) / share.min(1.0)).round() as u32).max(size);
    let ordinal = id.ordinal();
    let index = ordinal / window;
    let key = DomainKey::new(seed, Domain::Population);
    let draw = key.sample_u32(Address::new(GROUP_SCOPE | id.source() as u64, index, 0));
    let start = index * window + draw % (window - size + 1);
    (start..start + size)
        .contains(&ordinal)
        .then(|| (start, (ordinal - start) as u8))
}

/// The speed factor of a follower `error_m` behind its slot along its heading (negative:
/// ahead), clamped to [`SPEED_FACTORS`].
pub fn speed_factor(error_m: f64) -> f64 {
    (1.0 + 0.5 * error_m).clamp(SPEED_FACTORS.0, SPEED_FACTORS.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_of_the_agents_walk_in_groups_of_three_from_the_seed() {
        let groups: Vec<Option<(u32, u8)>> = (0..1200)
            .map(|n| assignment(7, AgentId::new(0, n), 0.25, 3))
            .collect();
        let members = groups.iter().filter(|g| g.is_some()).count();
        assert_eq!(members, 300);
        // Every group is three consecutive ordinals led by the first.
        for (n, g) in groups.iter().enumerate() {
            if let Some((leader, slot)) = g {
                assert_eq!(*leader + u32::from(*slot), n as u32);
                assert!(*slot < 3);
            }
        }
        let leaders = groups.iter().filter(|g| matches!(g, Some((_, 0)))).count();
        assert_eq!(leaders, 100);
        // Deterministic in the seed, and another seed places the groups elsewhere.
        let again: Vec<_> = (0..1200)
            .map(|n| assignment(7, AgentId::new(0, n), 0.25, 3))
            .collect();
        assert_eq!(groups, again);
        let other: Vec<_> = (0..1200)
            .map(|n| assignment(8, AgentId::new(0, n), 0.25, 3))
            .collect();
        assert_ne!(groups, other);
        assert_eq!(assignment(7, AgentId::new(0, 5), 0.0, 3), None);
        assert_eq!(assignment(7, AgentId::new(0, 5), 0.25, 1), None);
    }

    #[test]
    fn formation_corrections_are_bounded() {
        assert_eq!(speed_factor(0.0), 1.0);
        assert_eq!(speed_factor(0.4), 1.2);
        assert_eq!(speed_factor(10.0), 1.4);
        assert_eq!(speed_factor(-10.0), 0.6);
    }
}
