//! Typed products of generation: pedestrian space and street blocks, placements, mission layouts,
//! streaming plans, their provenance, and the canonical encodings their digests are taken of.
//!
//! These are what the generator produces and what the simulation, the viewport and cooking consume.
//! They are plain data: every list is kept in a documented canonical order, and each product that is
//! pinned by tests has a canonical byte encoding and a BLAKE3 digest.

pub mod assembly;
pub mod encode;
pub mod geometry;
pub mod heatmap;
pub mod mission;
pub mod nested;
pub mod pedestrian;
pub mod placement;
pub mod product;
pub mod provenance;
mod record_sink;
mod sorted_merge;
pub mod streaming;
pub mod street;

pub use assembly::{AssemblyModule, AssemblyPlan};
pub use geometry::{BoundsM, PointM, RectM};
pub use mission::{ChunkRole, DailyKey, GridCell, MissionChunk, MissionLayout};
pub use nested::{NestedInput, NestedRun, NestedStage};
pub use pedestrian::{
    Crosswalk, CrosswalkSide, PedestrianSpace, Portal, Route, RouteKind, SpaceError,
};
pub use placement::{
    digest_placed, MergeError, PlacedObject, Placement, RejectReason, RejectedCandidate,
    ScatterOutput,
};
pub use product::{
    FamilyData, FamilyReads, FamilyVariant, MissionProduct, PlacedProduct, Product, ProductKind,
    ProductSummary, ScatterLayer, ScatterProduct, StreamingProduct,
};
pub use provenance::{
    Constraint, ConstraintCheck, Derivation, DrawPurpose, DrawRecord, ObjectProvenance, ParentRef,
    RejectionProvenance, StageProvenance,
};
pub use streaming::{StreamingCell, StreamingPlan};
pub use street::{
    KeepOut, LaneDirection, ScatterArea, StreetBlock, SurfaceKind, SurfacePolygon, VehicleLane,
};
