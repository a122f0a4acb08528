//! Motion Frames (motion seed): one read-only record per agent per step, published at the end of
//! the Motion phase — what the viewport and every panel read, never the agent columns. Beyond
//! the seed each frame carries the simulation frame index, the agent's fixed-step count and
//! whether it was updated this step, so a consumer can tell fresh data from held data.
//! Frame count == agent count, always (pooled and skipped agents included).

use super::super::agents::{AgentId, AgentState, Agents};
use super::tiers::Tier;
use crate::project::Vec2;
use crate::sim::crossings::GroupRole;

/// Below this speed an agent is not moving, meters per second.
pub const MOVING_SPEED_M_S: f64 = 0.05;
/// Beyond this turn between facing and desired direction an agent is turning, radians.
pub const TURNING_RAD: f32 = 0.1;

/// What an animation graph reads (the seed's binding names).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimationParams {
    /// Speed, meters per second.
    pub speed_m_s: f32,
    /// Facing yaw around Z, radians (0 along +X).
    pub facing_yaw_rad: f32,
    /// Yaw towards the route target, radians.
    pub desired_yaw_rad: f32,
    /// `desired − facing`, wrapped to (−π, π], radians.
    pub turn_delta_rad: f32,
    /// Whether the agent moves.
    pub moving: bool,
    /// Whether the agent turns.
    pub turning: bool,
}

/// One agent's published motion at one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionFrame {
    /// The agent's stable id.
    pub id: AgentId,
    /// Ground position, meters (world space).
    pub location: Vec2,
    /// Observed velocity, meters per second (a skipped agent's last one, never a false zero).
    pub velocity: Vec2,
    /// Unit facing.
    pub facing: Vec2,
    /// Where the agent walks to (its connection's goal, a travel goal or a flee exit).
    pub route_target: Vec2,
    /// Behaviour state.
    pub behaviour: AgentState,
    /// Group, by its leader's birth ordinal within the source (`None` when alone).
    pub group: Option<u32>,
    /// Formation slot in the group, 0 the leader (`None` when alone).
    pub group_role: Option<u8>,
    /// Crosswalk phase code (`CrosswalkPhase::code`), for every agent.
    pub crosswalk_state: Option<u8>,
    /// Animation parameters.
    pub animation: AnimationParams,
    /// Applied tier (presentation tier).
    pub tier: Tier,
    /// Panic level 0..1.
    pub panic: f32,
    /// Simulation frame index of this step.
    pub sim_frame: u64,
    /// The agent's fixed-step count (updates it received).
    pub fixed_steps: u64,
    /// Whether the agent's motion was updated in this step.
    pub updated: bool,
}

/// Rebuilds `frames` from the agents at simulation frame `frame`: one per row, in row order.
pub fn publish(agents: &Agents, frame: u64, frames: &mut Vec<MotionFrame>) {
    frames.clear();
    frames.reserve(agents.len());
    let columns = agents
        .id
        .iter()
        .zip(&agents.position)
        .zip(&agents.velocity_m_s)
        .zip(&agents.facing)
        .zip(&agents.goal)
        .zip(&agents.state)
        .zip(&agents.tier)
        .zip(&agents.panic)
        .zip(&agents.steps)
        .zip(&agents.updated)
        .zip(&agents.crosswalk)
        .zip(&agents.group);
    // One pass (the crossings columns too), writing into the reused buffer.
    frames.extend(columns.map(
        |(
            (
                (
                    ((((((((id, location), velocity), facing), goal), state), tier), panic), steps),
                    updated,
                ),
                crosswalk,
            ),
            group,
        )| {
            // `sqrt` of the squares, not `hypot`: exact enough for presentation and far cheaper.
            let speed = (velocity.x * velocity.x + velocity.y * velocity.y).sqrt();
            let facing_yaw = atan2_f32(facing.y as f32, facing.x as f32);
            let (dx, dy) = ((goal.x - location.x) as f32, (goal.y - location.y) as f32);
            let desired_yaw = if dx * dx + dy * dy > 1e-8 {
                atan2_f32(dy, dx)
            } else {
                facing_yaw
            };
            let turn = wrap_pi(desired_yaw - facing_yaw);
            // The group (its leader's ordinal) and role, and the crosswalk phase.
            let grouped = group.role != GroupRole::Alone;
            MotionFrame {
                id: AgentId::from_bits(*id),
                location: *location,
                velocity: *velocity,
                facing: *facing,
                route_target: *goal,
                behaviour: *state,
                group: grouped.then_some(group.leader_ordinal),
                group_role: grouped.then_some(group.slot),
                crosswalk_state: Some(crosswalk.phase.code()),
                animation: AnimationParams {
                    speed_m_s: speed as f32,
                    facing_yaw_rad: facing_yaw,
                    desired_yaw_rad: desired_yaw,
                    turn_delta_rad: turn,
                    moving: speed > MOVING_SPEED_M_S,
                    turning: turn.abs() > TURNING_RAD,
                },
                tier: *tier,
                panic: *panic as f32,
                sim_frame: frame,
                fixed_steps: *steps,
                updated: *updated,
            }
        },
    ));
}

/// `atan2(y, x)` to within about 1e-5 rad, branch-light so publishing 100,000 frames stays
/// well under a millisecond (a presentation value; no simulation decision reads it).
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = if ax > ay { (ay, ax) } else { (ax, ay) };
    if hi == 0.0 {
        return 0.0;
    }
    let a = lo / hi;
    let s = a * a;
    // Minimax polynomial of atan on [0, 1].
    let mut r = ((-0.046_496_475 * s + 0.159_314_22) * s - 0.327_622_77) * s * a + a;
    if ay > ax {
        r = FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = PI - r;
    }
    if y < 0.0 {
        -r
    } else {
        r
    }
}

fn wrap_pi(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let mut a = angle;
    if a > PI {
        a -= TAU;
    } else if a <= -PI {
        a += TAU;
    }
    a
}
