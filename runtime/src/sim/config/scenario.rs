//! A scenario compiled for the runtime: what the world runs, every reference resolved to an
//! index (the compiler is `sim::scenario`).

use super::boxes::SimBox;
use super::commands::DirectiveSpec;
use super::crossings::CrossingSettings;
use super::motion::MotionConfig;
use super::observers::ObserverSpec;
use super::population::{PopulationParams, SourceSpec, VehicleSourceSpec};
use super::scene::{BarrierSpec, SceneObjectSpec};

/// A scenario compiled for the runtime.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledScenario {
    /// The scenario's id.
    pub id: String,
    /// The recipe whose content it runs on.
    pub recipe: String,
    /// Fixed step, seconds.
    pub fixed_step_s: f64,
    /// Length, frames.
    pub duration_frames: u64,
    /// Views, in file order.
    pub observers: Vec<ObserverSpec>,
    /// Sources, in file order (directives and agents index them).
    pub sources: Vec<SourceSpec>,
    /// No ambient births inside this box.
    pub no_spawn_box: Option<SimBox>,
    /// Ambient members inside this box are never retired automatically.
    pub no_removal_box: Option<SimBox>,
    /// Directives sorted by frame (file order within a frame).
    pub directives: Vec<DirectiveSpec>,
    /// Vehicle sources, in file order.
    pub vehicle_sources: Vec<VehicleSourceSpec>,
    /// Appearance families the sources name, sorted and unique.
    pub families: Vec<String>,
    /// Population parameters.
    pub population: PopulationParams,
    /// Motion tiers, avoidance budget, crowd governor and exits (checked).
    pub motion: MotionConfig,
    /// Crosswalks, signals, groups and the liveness guard.
    pub crossings: CrossingSettings,
    /// Authored scene objects, in file order (rendezvous goals, footprints the paths avoid).
    pub objects: Vec<SceneObjectSpec>,
    /// Authored barriers, in file order.
    pub barriers: Vec<BarrierSpec>,
}

impl CompiledScenario {
    /// The index of source `id`.
    pub fn source_index(&self, id: &str) -> Option<usize> {
        self.sources.iter().position(|s| s.id == id)
    }
}
