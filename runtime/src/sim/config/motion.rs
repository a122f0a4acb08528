//! Compiled motion settings: the tier bands and capacities, the avoidance budget, the crowd
//! governor and the exits fleeing agents run to (the compiler checks them; the phases read only
//! this type, never the document's `MotionSettings`).

use crate::project::Vec3;

/// How motion tiers, avoidance, the crowd governor and flight behave.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionConfig {
    /// The named tier policy the tier values come from (`project::TIER_POLICIES`), overridden
    /// field by field by the scenario.
    pub tier_policy: &'static str,
    /// Within this distance of the nearest observer an agent becomes Full, meters.
    pub full_enter_m: f64,
    /// Beyond this distance a Full agent leaves Full, meters (≥ `full_enter_m`).
    pub full_exit_m: f64,
    /// Within this distance an agent becomes Simulated, meters.
    pub simulated_enter_m: f64,
    /// Beyond this distance a Simulated agent becomes Stub, meters (≥ `simulated_enter_m`).
    pub simulated_exit_m: f64,
    /// Agents that may be Full at once (forced-full agents may exceed it).
    pub full_capacity: u32,
    /// Agents that may be Simulated at once.
    pub simulated_capacity: u32,
    /// Tier promotions applied per step.
    pub promotions_per_step: u32,
    /// Tier demotions applied per step.
    pub demotions_per_step: u32,
    /// At or above this relevance an agent asks for Full.
    pub hero_relevance: f64,
    /// At or above this relevance an agent asks for at least Simulated.
    pub medium_relevance: f64,
    /// Walkers whose avoidance (the steering fan) runs per step; `None` is unlimited.
    pub avoidance_budget: Option<u32>,
    /// Whether the crowd governor demotes agents when the estimate exceeds its budget.
    pub crowd_governor: bool,
    /// The crowd governor's budget, milliseconds per step.
    pub crowd_budget_ms: f64,
    /// Agents' relevance when no directive sets it, 0..1.
    pub default_relevance: f64,
    /// Exits that fleeing agents run to, besides the street block's portals.
    pub exits: Vec<MotionExit>,
    /// The motion profiles task peds walk with (the standard ones unless the project has
    /// `*.motion.ron` assets).
    pub profiles: super::profiles::ProfileTable,
}

/// An authored exit fleeing agents run to.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionExit {
    /// Its id.
    pub id: String,
    /// Where it is, meters.
    pub position: Vec3,
    /// Agents it takes at once.
    pub capacity: u32,
}

impl Default for MotionConfig {
    /// The document's defaults (`project::MotionSettings::default()` compiles to this; a test
    /// of the compiler holds them equal).
    fn default() -> Self {
        MotionConfig {
            // The default tier policy's name (the compiler's test holds the defaults equal).
            tier_policy: "motion-bands",
            full_enter_m: 25.0,
            full_exit_m: 32.0,
            simulated_enter_m: 55.0,
            simulated_exit_m: 65.0,
            full_capacity: 12,
            simulated_capacity: 12,
            promotions_per_step: 12,
            demotions_per_step: 24,
            hero_relevance: 0.85,
            medium_relevance: 0.35,
            avoidance_budget: Some(128),
            crowd_governor: false,
            crowd_budget_ms: 8.0,
            default_relevance: 0.0,
            exits: Vec::new(),
            profiles: super::profiles::ProfileTable::standard(),
        }
    }
}
