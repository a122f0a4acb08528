//! The scenario compiler: a scenario document compiled into what the world runs
//! ([`CompiledScenario`](crate::sim::config::CompiledScenario), in `sim::config`) — sources,
//! observers, boxes and directives with their targets resolved to indices, sorted by frame —
//! and the diagnostics (with field paths) of what the world cannot run.
//!
//! Compiling reads the document once; the world never sees a document type. Rules here are the
//! ones the runtime itself depends on (finite numbers, positive steps and speeds, ordered boxes,
//! directives naming a source of the scenario, sizes that fit the indices); the document's
//! authoring rules and their located messages stay in `project::validate`.
//!
//! `compile` (the document → `CompiledScenario`), `command` (directives and their commands),
//! `settings` (the motion, crossings and population sections), `canonical` (the compiled
//! scenario's canonical bytes), `collect` (the diagnostics collector). Layer: above the phases,
//! below the world; nothing below it imports it.

mod canonical;
mod collect;
mod command;
mod compile;
pub mod profiles;
mod settings;

pub use settings::compile_motion;
