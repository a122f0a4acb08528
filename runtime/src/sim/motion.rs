//! The Motion phase: walking along routes (turning back at their ends), travelling to a goal,
//! fleeing from a threat, by one fixed step.

use super::agents::{AgentState, Agents};
use super::world::WorldConfig;
use crate::project::Vec2;

/// Distance within which a travelling agent has arrived, meters (tasks seed: 0.15 m).
pub const ARRIVAL_RADIUS_M: f64 = 0.15;
/// Speed of a fleeing agent, meters per second (crowd seed: 4 m/s).
pub const FLEE_SPEED_M_S: f64 = 4.0;

/// Motion: every agent advances by one fixed step according to its state.
pub(super) fn motion_phase(config: &WorldConfig, agents: &mut Agents) {
    let dt = config.fixed_step_s;
    for row in 0..agents.len() {
        // Pooled peds are not members of any source: they do not move.
        if agents.pooled[row] {
            continue;
        }
        agents.steps[row] += 1;
        match agents.state[row] {
            AgentState::Walking => {
                let route = &config.space.routes[agents.route[row] as usize];
                let length = route.length_m();
                let mut distance = agents.distance_m[row]
                    + f64::from(agents.direction[row]) * agents.speed_m_s[row] * dt;
                if distance > length {
                    distance = 2.0 * length - distance;
                    agents.direction[row] = -1;
                } else if distance < 0.0 {
                    distance = -distance;
                    agents.direction[row] = 1;
                }
                let distance = distance.clamp(0.0, length);
                let (position, along) = route.sample(distance);
                agents.distance_m[row] = distance;
                agents.position[row] = position;
                agents.facing[row] = scale(along, f64::from(agents.direction[row]));
            }
            AgentState::Travelling => {
                let Some(goal) = agents.target[row] else {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                };
                let here = agents.position[row];
                let (dx, dy) = (goal.x - here.x, goal.y - here.y);
                let remaining = dx.hypot(dy);
                let stride = agents.speed_m_s[row] * dt;
                if remaining <= ARRIVAL_RADIUS_M || remaining <= stride {
                    agents.position[row] = goal;
                    agents.state[row] = AgentState::Arrived;
                } else {
                    let unit = Vec2 {
                        x: dx / remaining,
                        y: dy / remaining,
                    };
                    agents.position[row] = Vec2 {
                        x: here.x + unit.x * stride,
                        y: here.y + unit.y * stride,
                    };
                    agents.facing[row] = unit;
                }
            }
            AgentState::Fleeing => {
                let Some(threat) = agents.target[row] else {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                };
                let here = agents.position[row];
                let (dx, dy) = (here.x - threat.x, here.y - threat.y);
                let distance = dx.hypot(dy);
                if distance > agents.safe_distance_m[row] {
                    agents.state[row] = AgentState::Arrived;
                    continue;
                }
                // Coincident with the threat: flee along the current facing (tasks seed).
                let away = if distance > 0.0 {
                    Vec2 {
                        x: dx / distance,
                        y: dy / distance,
                    }
                } else {
                    agents.facing[row]
                };
                agents.position[row] = Vec2 {
                    x: here.x + away.x * FLEE_SPEED_M_S * dt,
                    y: here.y + away.y * FLEE_SPEED_M_S * dt,
                };
                agents.facing[row] = away;
            }
            AgentState::Holding | AgentState::Arrived => {}
        }
    }
}

pub(super) fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
}
