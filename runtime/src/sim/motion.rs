//! The Motion phase: walking along routes with local avoidance (turning back at their ends, see
//! `sim::walk`), travelling to a goal, fleeing from a threat, by one fixed step.

use super::agents::{AgentState, Agents};
use super::walk::ground::BlockerIndex;
use super::walk::{
    walk_agent, WalkDecision, WalkEnv, WalkState, NEIGHBOUR_CELL_M, VELOCITY_WINDOW_S,
};
use super::world::WorldConfig;
use crate::project::Vec2;

/// Distance within which a travelling agent has arrived, meters (tasks seed: 0.15 m).
pub const ARRIVAL_RADIUS_M: f64 = 0.15;
/// Speed of a fleeing agent, meters per second (crowd seed: 4 m/s).
pub const FLEE_SPEED_M_S: f64 = 4.0;

/// Motion: every agent advances by one fixed step according to its state. Walkers steer
/// around each other and the static blockers (`sim::walk`), reading their neighbours from a grid
/// rebuilt here once per step; afterwards every agent's observed velocity window advances.
pub(super) fn motion_phase(config: &WorldConfig, walk: &mut WalkState, agents: &mut Agents) {
    let dt = config.fixed_step_s;
    let WalkState {
        grid,
        blockers,
        scratch,
        fan,
    } = walk;
    if agents.pooled.iter().any(|p| *p) {
        // Pooled peds are detached: they are nobody's neighbour (a non-finite point is left out
        // of the grid, and indices stay rows).
        let detached = Vec2 {
            x: f64::NAN,
            y: f64::NAN,
        };
        let points: Vec<Vec2> = agents
            .position
            .iter()
            .zip(&agents.pooled)
            .map(|(p, pooled)| if *pooled { detached } else { *p })
            .collect();
        grid.rebuild(&points, NEIGHBOUR_CELL_M);
    } else {
        grid.rebuild(&agents.position, NEIGHBOUR_CELL_M);
    }
    let blockers = blockers.get_or_insert_with(|| BlockerIndex::new(&config.space.blockers));
    let fastest_m_s = agents
        .speed_m_s
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .fold(FLEE_SPEED_M_S, f64::max);
    let env = WalkEnv {
        routes: &config.space.routes,
        blockers,
        fan,
        dt_s: dt,
        max_step_m: fastest_m_s * dt,
    };
    for row in 0..agents.len() {
        // Pooled peds are not members of any source: they do not move.
        if agents.pooled[row] {
            continue;
        }
        agents.steps[row] += 1;
        agents.walk_decision[row] = WalkDecision::Idle;
        match agents.state[row] {
            AgentState::Walking => {
                agents.walk_decision[row] = walk_agent(&env, grid, scratch, agents, row);
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
            AgentState::Holding | AgentState::Arrived | AgentState::KnockedDown => {}
        }
        // Later walkers see where this agent is now.
        grid.update(row, agents.position[row]);
    }
    observe_velocities(dt, agents);
}

/// Advances every agent's velocity window: once it spans [`VELOCITY_WINDOW_S`], the observed
/// velocity becomes the displacement over the window divided by its duration.
fn observe_velocities(dt: f64, agents: &mut Agents) {
    for row in 0..agents.len() {
        let steps = agents.window_steps[row] + 1;
        let elapsed_s = f64::from(steps) * dt;
        if elapsed_s >= VELOCITY_WINDOW_S - 1e-9 {
            let (now, origin) = (agents.position[row], agents.window_origin[row]);
            agents.velocity_m_s[row] = Vec2 {
                x: (now.x - origin.x) / elapsed_s,
                y: (now.y - origin.y) / elapsed_s,
            };
            agents.window_origin[row] = now;
            agents.window_steps[row] = 0;
        } else {
            agents.window_steps[row] = steps;
        }
    }
}

pub(super) fn scale(v: Vec2, factor: f64) -> Vec2 {
    Vec2 {
        x: v.x * factor,
        y: v.y * factor,
    }
}
