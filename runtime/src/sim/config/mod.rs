//! The compiled configuration the world runs: the compiled scenario and every spec type the
//! phases read (directives, boxes, observers, sources, clocks, crossings, motion, factions,
//! scene geometry). The scenario compiler (`sim::scenario`) fills these from a document; below
//! it nothing holds a `project::` document type — only plain values such as `Vec2`.
//!
//! Layer: above `state` (agents, events) and the base modules, below every phase; it imports
//! nothing from a phase, the compiler or the world.

pub mod boxes;
pub mod commands;
pub mod crossings;
pub mod factions;
pub mod motion;
pub mod observers;
pub mod population;
pub mod profiles;
pub mod scenario;
pub mod scene;
pub mod world;

pub use boxes::SimBox;
pub use commands::{
    is_directive_duration, Command, DirectiveSpec, DirectiveTarget, DEFAULT_SOURCE,
    MAX_DIRECTIVE_DURATION_S, MAX_IMPULSE_N_S,
};
pub use crossings::{CrossingSettings, HazardSpec, SignalTiming};
pub use factions::Factions;
pub use motion::{MotionConfig, MotionExit};
pub use observers::{ObserverKey, ObserverSpec, SpawnRanges, DEFAULT_CLOSE_M};
pub use population::{
    AttachFault, ClockConfig, ClocksConfig, PopulationParams, RemovalScales, SourceSpec,
    VehicleSourceSpec,
};
pub use scenario::CompiledScenario;
pub use scene::{BarrierSpec, Obstacle, SceneObjectSpec};
pub use world::{SourceConfig, VehicleSourceConfig, WorldConfig};
