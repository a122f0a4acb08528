//! Disguise line of sight (crowd specification): what an observing agent recognises in a presented
//! faction — Disguised when its accepted disguises include it, Friendly for its own or an allied
//! faction, Hostile for a listed enemy, else Neutral. A Hostile recognition compromises the
//! disguise, raises the observer's panic and promotes it off Background. Every check is an event.

use crate::sim::config::Factions;
use crate::sim::state::{Agents, Recognition, Tier};

/// How much a Hostile recognition raises the observer's panic.
pub const HOSTILE_PANIC: f64 = 0.5;

/// The crowd specification's recognition, in its order: accepted disguise, own or allied, hostile,
/// else neutral.
pub fn recognise(factions: &Factions, presented: &str) -> Recognition {
    if factions.accepted_disguises.iter().any(|d| d == presented) {
        Recognition::Disguised
    } else if factions.own == presented || factions.allied.iter().any(|a| a == presented) {
        Recognition::Friendly
    } else if factions.hostile.iter().any(|h| h == presented) {
        Recognition::Hostile
    } else {
        Recognition::Neutral
    }
}

/// Applies a recognition to the observing agent in `row`: Hostile marks the disguise
/// compromised, raises the agent's panic and promotes it off Background.
pub(in crate::sim) fn apply(agents: &mut Agents, row: usize, recognition: Recognition) {
    if recognition != Recognition::Hostile {
        return;
    }
    agents.compromised[row] = true;
    agents.panic[row] = (agents.panic[row] + HOSTILE_PANIC).clamp(0.0, 1.0);
    if agents.tier[row] == Tier::Stub {
        agents.tier[row] = Tier::Simulated;
    }
}
