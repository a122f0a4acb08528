//! Panic and flee (crowd specification): a panic stimulus raises every agent's panic within its
//! radius by `strength × falloff`, the falloff linear in distance and clamped to [0.25, 1]; above
//! 0.65 a Background agent is promoted to Medium at once. Each panicked agent (in ascending id)
//! flees at 4 m/s to the nearest exit with remaining capacity, else the nearest exit, with its
//! arrival time estimated as distance / 4 m/s. Exits are the scenario's exit nodes (with
//! capacities), then the street block's portals (unbounded). Every decision is an event.

use super::super::events::{EventDetail, EventKind, EventLog};
use super::super::slots::Slots;

use super::governor::PANIC_PROMOTION;
use super::FLEE_SPEED_M_S;
use crate::project::Vec2;
use crate::sim::config::WorldConfig;
use crate::sim::state::AgentId;
use crate::sim::state::AgentState;
use crate::sim::state::Agents;
use crate::sim::state::Canonical;
use crate::sim::state::Tier;

/// `flee_exit` of an agent that flees to no exit.
pub const NO_EXIT: u16 = u16::MAX;
/// The smallest falloff inside the radius.
pub const MIN_FALLOFF: f64 = 0.25;

/// The exits' assignments (part of the world state).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct PanicState {
    /// Agents each exit has been assigned, in exit order (grown on first use).
    pub assigned: Vec<u32>,
}

impl Canonical for PanicState {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        (self.assigned.len() as u64).write_canonical(bytes);
        for a in &self.assigned {
            a.write_canonical(bytes);
        }
    }
}

/// One exit a fleeing agent may run to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exit {
    /// Position, meters.
    pub position: Vec2,
    /// Agents it takes (`None`: unbounded, a portal).
    pub capacity: Option<u32>,
}

/// The world's exits: the scenario's exit nodes, then the space's portals.
pub fn exits(config: &WorldConfig) -> Vec<Exit> {
    let authored = config.scenario.motion.exits.iter().map(|e| Exit {
        position: Vec2 {
            x: e.position.x,
            y: e.position.y,
        },
        capacity: Some(e.capacity),
    });
    let portals = config.space.portals.iter().map(|p| Exit {
        position: p.position,
        capacity: None,
    });
    authored.chain(portals).collect()
}

/// Linear falloff with distance, clamped to [0.25, 1]; `None` outside the radius.
pub fn falloff(distance_m: f64, radius_m: f64) -> Option<f64> {
    if distance_m.is_nan() || distance_m > radius_m || radius_m <= 0.0 {
        return None;
    }
    Some((1.0 - distance_m / radius_m).clamp(MIN_FALLOFF, 1.0))
}

/// The exit `from` runs to: the nearest with remaining capacity, else the nearest of all (ties:
/// the lower index). `None` without exits.
pub fn choose_exit(exits: &[Exit], assigned: &[u32], from: Vec2) -> Option<usize> {
    let distance = |e: &Exit| (e.position.x - from.x).hypot(e.position.y - from.y);
    let nearest = |open: bool| {
        exits
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                !open
                    || e.capacity
                        .is_none_or(|c| assigned.get(*i).copied().unwrap_or(0) < c)
            })
            .min_by(|a, b| distance(a.1).total_cmp(&distance(b.1)).then(a.0.cmp(&b.0)))
            .map(|(i, _)| i)
    };
    nearest(true).or_else(|| nearest(false))
}

/// A panic stimulus at `center` of `radius_m` and `strength`, applied to every unpooled agent in
/// ascending id: panic raised, Background promoted above 0.65, a flee exit assigned (the agent
/// flees to it at 4 m/s), each logged with its exit and arrival estimate. Returns the agents
/// that panicked.
pub(in crate::sim) fn apply_stimulus(
    config: &WorldConfig,
    stimulus: (Vec2, f64, f64),
    agents: &mut Agents,
    state: &mut PanicState,
    log: (&Slots, &mut EventLog, u64),
) -> u32 {
    let (center, radius_m, strength) = stimulus;
    let (slots, events, frame) = log;
    let exits = exits(config);
    state
        .assigned
        .resize(exits.len().max(state.assigned.len()), 0);
    let mut rows: Vec<usize> = (0..agents.len()).filter(|r| !agents.pooled[*r]).collect();
    rows.sort_by_key(|r| AgentId::from_bits(agents.id[*r]));
    let mut panicked = 0;
    for row in rows {
        let p = agents.position[row];
        let Some(weight) = falloff((p.x - center.x).hypot(p.y - center.y), radius_m) else {
            continue;
        };
        panicked += 1;
        agents.panic[row] = (agents.panic[row] + strength * weight).clamp(0.0, 1.0);
        if agents.panic[row] > PANIC_PROMOTION && agents.tier[row] == Tier::Stub {
            agents.tier[row] = Tier::Simulated;
        }
        let chosen = choose_exit(&exits, &state.assigned, p);
        let (exit, arrival_ms) = match chosen {
            Some(i) => {
                state.assigned[i] += 1;
                let goal = exits[i].position;
                agents.target[row] = Some(goal);
                agents.flee_exit[row] = i as u16;
                agents.goal[row] = goal;
                agents.state[row] = AgentState::Fleeing;
                let distance = (goal.x - p.x).hypot(goal.y - p.y);
                (i as u16, arrival_ms(distance))
            }
            None => (NO_EXIT, u32::MAX),
        };
        let detail = EventDetail::Flee {
            exit,
            arrival_ms,
            panic_milli: (agents.panic[row] * 1000.0).round() as u16,
        };
        let source = Some(agents.source[row]);
        events.push(
            frame,
            EventKind::Panicked,
            slots.handle_of(row),
            source,
            detail,
        );
    }
    panicked
}

/// Estimated time to run `distance_m` at 4 m/s, whole milliseconds (rounded up).
pub fn arrival_ms(distance_m: f64) -> u32 {
    (distance_m / FLEE_SPEED_M_S * 1000.0)
        .ceil()
        .clamp(0.0, f64::from(u32::MAX - 1)) as u32
}
