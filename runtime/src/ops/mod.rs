//! Operators of the recipe engine, one module each: pure deterministic kernels over typed inputs.
//!
//! Kernels read only their typed parameters and explicit seeds: no files, no clock, no global RNG.

pub mod assembly;
pub mod grid_mission;
pub mod registry;
pub mod scatter;
pub mod select_place;
pub mod streaming;
pub mod street_block;
