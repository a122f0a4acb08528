//! Why an agent has its tier, for an inspector: what its crosswalk phase, its distance to the
//! nearest view, its relevance and the streaming ring ask for, recomputed from the world at its
//! frame (never changing it). When the request and the applied tier differ, a capacity, a
//! transition budget or the crowd governor held it (the step does not keep which).

use super::governor::requested_by_relevance;
use super::tiers::{nearest_view_distance, TierPolicy};
use crate::sim::observers::Observation;
use crate::sim::state::{AgentId, CrosswalkPhase, Tier};
use crate::sim::world::World;

/// What decided an agent's tier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TierCause {
    /// No observer (and no camera): every agent is Full.
    NoObserver,
    /// Forced Full by its crosswalk phase (Requested, Waiting, Crossing or Clearing).
    Crossing(CrosswalkPhase),
    /// Requested from distance, relevance and the ring.
    Requested {
        /// Horizontal distance to the nearest view's population center, meters.
        distance_m: f64,
        /// The tier the distance bands ask for (with hysteresis from the applied tier).
        by_distance: Tier,
        /// The tier relevance, panic and alertness ask for.
        by_relevance: Tier,
        /// Outside the streaming plan's loaded ring (the request is lowered one rung).
        outside_ring: bool,
        /// The request after all three.
        requested: Tier,
    },
}

/// An agent's applied tier and what decided it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierWhy {
    /// The applied tier.
    pub applied: Tier,
    /// What decided it.
    pub cause: TierCause,
    /// Whether the editor's camera stood in for the observers.
    pub camera: bool,
}

impl World {
    /// The views tiers read at this frame: the camera's when set, else the scenario's.
    pub fn tier_observation(&self) -> Observation {
        let specs = &self.config.scenario.observers;
        match self.camera {
            Some(camera) => camera.observation(specs, self.frame),
            None => Observation::take(specs, &self.pop.observers, self.frame),
        }
    }

    /// Why the live agent `id` has its tier.
    pub fn tier_why(&self, id: AgentId) -> Option<TierWhy> {
        let row = self.row_of_id(id)?;
        let agents = &self.agents;
        let applied = agents.tier[row];
        let observation = self.tier_observation();
        let phase = agents.crosswalk[row].phase;
        let cause = if observation.views.is_empty() {
            TierCause::NoObserver
        } else if phase.forces_full() {
            TierCause::Crossing(phase)
        } else {
            let policy = TierPolicy::of(&self.config.scenario.motion);
            let distance_m = nearest_view_distance(&observation, agents.position[row]);
            let by_distance = policy.by_distance(applied, distance_m);
            let by_relevance = requested_by_relevance(
                agents.relevance[row],
                agents.panic[row],
                agents.compromised[row],
            );
            let outside_ring = self.outside_ring(row);
            let wanted = by_distance.min(by_relevance);
            TierCause::Requested {
                distance_m,
                by_distance,
                by_relevance,
                outside_ring,
                requested: if outside_ring {
                    wanted.demoted()
                } else {
                    wanted
                },
            }
        };
        Some(TierWhy {
            applied,
            cause,
            camera: self.camera.is_some(),
        })
    }
}
