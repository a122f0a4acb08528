//! Pedestrians as structure-of-arrays columns keyed by a stable agent id.

use crate::project::{PopulationKind, Vec2};

/// A stable reference to an agent: its index in the columns and the generation of that slot.
///
/// The generation changes when a slot is reused, so a stale handle is detected, never confused
/// with the slot's new occupant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentHandle {
    /// Slot index in the [`Agents`] columns.
    pub index: u32,
    /// Generation of the slot when the handle was made.
    pub generation: u32,
}

/// What an agent is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AgentState {
    /// Walking along its route, turning back at its ends.
    Walking,
    /// Stopped by a `Hold` directive; `Continue` resumes what it did before.
    Holding,
    /// Walking straight to a directive's goal.
    Travelling,
    /// Standing at a reached goal.
    Arrived,
    /// Running away from a threat.
    Fleeing,
}

impl AgentState {
    /// A stable small number for digests and colours.
    pub fn code(self) -> u8 {
        match self {
            AgentState::Walking => 0,
            AgentState::Holding => 1,
            AgentState::Travelling => 2,
            AgentState::Arrived => 3,
            AgentState::Fleeing => 4,
        }
    }
}

/// The agents of a world, one column per property; row `i` of every column is one agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agents {
    /// Stable agent id: `source index << 32 | birth ordinal within the source`.
    pub id: Vec<u64>,
    /// Slot generation (see [`AgentHandle`]).
    pub generation: Vec<u32>,
    /// Index of the scenario source the agent was born from.
    pub source: Vec<u16>,
    /// Index of the route the agent walks.
    pub route: Vec<u16>,
    /// Distance along the route, meters.
    pub distance_m: Vec<f64>,
    /// +1 walks towards the route's end, −1 towards its start.
    pub direction: Vec<i8>,
    /// Walking speed, meters per second.
    pub speed_m_s: Vec<f64>,
    /// Ground position, meters.
    pub position: Vec<Vec2>,
    /// Unit facing direction on the ground.
    pub facing: Vec<Vec2>,
    /// Current state.
    pub state: Vec<AgentState>,
    /// State to resume after a hold.
    pub resume: Vec<AgentState>,
    /// Goal of `Travelling`, or the threat of `Fleeing`.
    pub target: Vec<Option<Vec2>>,
    /// Safe distance while fleeing, meters.
    pub safe_distance_m: Vec<f64>,
    /// Ambient or Mission (claimed by a script).
    pub kind: Vec<PopulationKind>,
    /// Script owner of a claimed agent.
    pub owner: Vec<Option<String>>,
    /// Fixed steps this agent has been updated.
    pub steps: Vec<u64>,
}

impl Agents {
    /// Number of agents.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// True when there are no agents.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// The handle of row `index`.
    pub fn handle(&self, index: usize) -> Option<AgentHandle> {
        let generation = *self.generation.get(index)?;
        Some(AgentHandle {
            index: u32::try_from(index).ok()?,
            generation,
        })
    }

    /// The row a handle refers to, if it is still current.
    pub fn resolve(&self, handle: AgentHandle) -> Option<usize> {
        let index = handle.index as usize;
        (self.generation.get(index) == Some(&handle.generation)).then_some(index)
    }

    /// Number of agents in `state`.
    pub fn count_in(&self, state: AgentState) -> u64 {
        self.state.iter().filter(|s| **s == state).count() as u64
    }
}
