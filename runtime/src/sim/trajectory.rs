//! Trajectory rows: what a trajectory file records of each agent at one frame — id, ground
//! position, observed velocity, facing, behaviour state and applied tier — read from the agent
//! columns at full precision (`f64`, meters and meters per second, X east, Y north), in row
//! order. A pure read of the world: no IO (the editor's `cli::trajectories` writes the files).
//!
//! Pooled agents are left out: a ped in the reuse pool is detached from every source, parked and
//! not moving, so it is not in the scene an analysis measures (it reappears under its id when a
//! batch readmits it). Every other row is in, knocked-down and holding agents included.

use super::world::World;
use crate::project::Vec2;
use crate::sim::state::{AgentId, AgentState, Tier};

/// One agent at one frame, as a trajectory file records it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrajectoryRow {
    /// The agent's stable id.
    pub id: AgentId,
    /// Ground position, meters (X east, Y north).
    pub position_m: Vec2,
    /// Observed velocity, meters per second (a skipped agent's last one).
    pub velocity_m_s: Vec2,
    /// Unit facing direction on the ground.
    pub facing: Vec2,
    /// Behaviour state.
    pub state: AgentState,
    /// Applied LOD tier.
    pub tier: Tier,
}

impl TrajectoryRow {
    /// The facing as a yaw around Z, radians in (−π, π], 0 along +X (east), counter-clockwise.
    pub fn heading_rad(&self) -> f64 {
        self.facing.y.atan2(self.facing.x)
    }
}

impl World {
    /// The trajectory rows of the agents at the current frame: every agent not in the reuse
    /// pool, in row order (the columns copied once, read back by [`TrajectoryColumns::rows`]).
    pub fn trajectory_rows(&self) -> impl Iterator<Item = TrajectoryRow> {
        let mut columns = TrajectoryColumns::default();
        self.copy_trajectory_columns(&mut columns);
        let rows: Vec<TrajectoryRow> = columns.rows().collect();
        rows.into_iter()
    }
}

/// The agent columns a trajectory file records, copied out of a world at one frame
/// ([`World::copy_trajectory_columns`]): every row, pooled ones included and flagged, so the copy
/// is one `memcpy` per column into buffers that are reused from frame to frame (no allocation
/// once they have grown, no per-row work on the simulation's thread). [`TrajectoryColumns::rows`]
/// gives the rows of every agent not in the reuse pool, in row order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrajectoryColumns {
    /// Stable agent ids (packed bits).
    pub id: Vec<u64>,
    /// Ground positions, meters.
    pub position_m: Vec<Vec2>,
    /// Observed velocities, meters per second.
    pub velocity_m_s: Vec<Vec2>,
    /// Unit facing directions.
    pub facing: Vec<Vec2>,
    /// Behaviour states.
    pub state: Vec<AgentState>,
    /// Applied LOD tiers.
    pub tier: Vec<Tier>,
    /// Whether the row is in the reuse pool (left out of the rows).
    pub pooled: Vec<bool>,
}

impl TrajectoryColumns {
    /// Rows copied, pooled ones included.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether no row was copied.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Empties every column, keeping the buffers.
    pub fn clear(&mut self) {
        self.id.clear();
        self.position_m.clear();
        self.velocity_m_s.clear();
        self.facing.clear();
        self.state.clear();
        self.tier.clear();
        self.pooled.clear();
    }

    /// The rows of the agents not in the reuse pool, in row order.
    pub fn rows(&self) -> impl Iterator<Item = TrajectoryRow> + '_ {
        let n = self.len();
        (0..n)
            .filter(|&row| !self.pooled[row])
            .map(|row| TrajectoryRow {
                id: AgentId::from_bits(self.id[row]),
                position_m: self.position_m[row],
                velocity_m_s: self.velocity_m_s[row],
                facing: self.facing[row],
                state: self.state[row],
                tier: self.tier[row],
            })
    }

    /// How many rows [`TrajectoryColumns::rows`] gives.
    pub fn row_count(&self) -> usize {
        self.pooled.iter().filter(|&&pooled| !pooled).count()
    }
}

impl World {
    /// Replaces `into`'s contents with the trajectory columns of every agent at the current
    /// frame (pooled ones flagged), reusing its buffers.
    pub fn copy_trajectory_columns(&self, into: &mut TrajectoryColumns) {
        let a = &self.agents;
        into.clear();
        into.id.extend_from_slice(&a.id);
        into.position_m.extend_from_slice(&a.position);
        into.velocity_m_s.extend_from_slice(&a.velocity_m_s);
        into.facing.extend_from_slice(&a.facing);
        into.state.extend_from_slice(&a.state);
        into.tier.extend_from_slice(&a.tier);
        into.pooled.extend_from_slice(&a.pooled);
    }
}

/// A state's name in trajectory files (`walking`, `holding`, …), stable.
pub fn state_name(state: AgentState) -> &'static str {
    match state {
        AgentState::Walking => "walking",
        AgentState::Holding => "holding",
        AgentState::Travelling => "travelling",
        AgentState::Arrived => "arrived",
        AgentState::Fleeing => "fleeing",
        AgentState::KnockedDown => "knocked_down",
        AgentState::Pooled => "pooled",
    }
}

/// A tier's name in trajectory files (`full`, `simulated`, `stub`), stable.
pub fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::Full => "full",
        Tier::Simulated => "simulated",
        Tier::Stub => "stub",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::long_street_world;

    /// Every unpooled row of the columns, in row order, with the columns' values.
    fn expected(world: &World) -> Vec<TrajectoryRow> {
        let a = world.agents();
        (0..a.len())
            .filter(|&row| !a.pooled[row])
            .map(|row| TrajectoryRow {
                id: AgentId::from_bits(a.id[row]),
                position_m: a.position[row],
                velocity_m_s: a.velocity_m_s[row],
                facing: a.facing[row],
                state: a.state[row],
                tier: a.tier[row],
            })
            .collect()
    }

    #[test]
    fn rows_are_the_columns_of_every_unpooled_agent_in_row_order() {
        let mut world = long_street_world(40, 7).expect("street");
        for _ in 0..30 {
            world.step();
        }
        let rows: Vec<TrajectoryRow> = world.trajectory_rows().collect();
        assert_eq!(rows.len(), 40);
        assert_eq!(rows, expected(&world));
        // The position of a known agent equals its Motion Frame's (rounded to f32 there).
        let first = rows[0];
        let frame = world.motion_frame(first.id).expect("frame");
        assert_eq!(frame.location.x, first.position_m.x as f32);
        assert_eq!(frame.location.y, first.position_m.y as f32);
        assert!(rows.iter().any(|r| r.velocity_m_s.x.abs() > 1.0));
    }

    #[test]
    fn pooled_rows_are_left_out() {
        let mut world = long_street_world(10, 7).expect("street");
        world.step();
        world.agents.pooled[3] = true;
        let rows: Vec<TrajectoryRow> = world.trajectory_rows().collect();
        assert_eq!(rows.len(), 9);
        assert!(rows.iter().all(|r| r.id.bits() != world.agents.id[3]));
        assert_eq!(rows, expected(&world));
    }

    #[test]
    fn copied_columns_give_the_same_rows_and_reuse_their_buffers() {
        let mut world = long_street_world(30, 7).expect("street");
        let mut columns = TrajectoryColumns::default();
        for _ in 0..12 {
            world.step();
            world.copy_trajectory_columns(&mut columns);
            let rows: Vec<TrajectoryRow> = columns.rows().collect();
            assert_eq!(rows, expected(&world));
            assert_eq!(rows, world.trajectory_rows().collect::<Vec<_>>());
            assert_eq!(columns.len(), world.agents().len());
            assert_eq!(columns.row_count(), rows.len());
        }
        let unpooled = columns.row_count();
        let capacity = columns.id.capacity();
        world.agents.pooled[4] = true;
        world.copy_trajectory_columns(&mut columns);
        assert_eq!(columns.id.capacity(), capacity);
        assert!(columns.pooled[4]);
        assert_eq!(columns.row_count(), unpooled - 1);
        let rows: Vec<TrajectoryRow> = columns.rows().collect();
        assert_eq!(rows, expected(&world));
        assert!(rows.iter().all(|r| r.id.bits() != world.agents.id[4]));
    }

    #[test]
    fn heading_is_the_facing_yaw() {
        let row = TrajectoryRow {
            id: AgentId::new(0, 0),
            position_m: Vec2 { x: 0.0, y: 0.0 },
            velocity_m_s: Vec2 { x: 0.0, y: 0.0 },
            facing: Vec2 { x: 0.0, y: -1.0 },
            state: AgentState::Walking,
            tier: Tier::Full,
        };
        assert_eq!(row.heading_rad(), -std::f64::consts::FRAC_PI_2);
        assert_eq!(state_name(AgentState::KnockedDown), "knocked_down");
        assert_eq!(tier_name(Tier::Simulated), "simulated");
    }
}
