//! Why an agent has its tier, for an inspector: what its crosswalk phase, its distance to the
//! nearest view, its relevance and the streaming ring ask for under the scenario's named tier
//! policy, recomputed from the world at its frame (never changing it). When the request and the
//! applied tier differ, a capacity, a transition budget or the crowd governor held it (the step
//! does not keep which).

use crate::sim::state::{CrosswalkPhase, Tier};

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
    /// The scenario's named tier policy, whose bands and thresholds made the request
    /// (`motion-bands`, `crowd-radii`).
    pub policy: &'static str,
}
