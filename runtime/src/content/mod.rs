//! Typed products of generation: placements, mission layouts and streaming plans.
//!
//! These are what the generator produces and what the simulation, the viewport and cooking consume.
//! They are plain data: every list is kept in a documented canonical order, and each product that is
//! pinned by tests has a canonical byte encoding and a BLAKE3 digest.

pub mod mission;
pub mod placement;
pub mod streaming;

pub use mission::{ChunkRole, DailyKey, GridCell, MissionChunk, MissionLayout};
pub use placement::{
    digest_placed, MergeError, PlacedObject, Placement, RejectReason, RejectedCandidate,
    ScatterOutput,
};
pub use streaming::{StreamingCell, StreamingPlan};
