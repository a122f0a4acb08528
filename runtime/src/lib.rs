//! Stagecraft's headless, deterministic runtime: project documents, recipes, generation and simulation.
//!
//! The runtime does no file-system IO, reads no clock and knows nothing about any GUI: it takes
//! strings and values and returns data or typed errors.

pub mod boxes;
pub mod content;
pub mod cook;
pub mod diff;
pub mod export;
pub mod generate;
pub mod identity;
pub mod ops;
pub mod overrides;
pub mod project;
pub mod recipe;
pub mod rng;
pub mod sim;
#[cfg(test)]
mod simd_paths;
