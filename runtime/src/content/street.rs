//! Street block products: the pedestrian space plus road surfaces, vehicle lanes, and the areas and
//! keep-outs that a downstream scatter uses.
//!
//! Every element has a stable id derived from its role and index (`road`, `sidewalk.north`,
//! `lane.0`, `crosswalk.1`, `furniture.south`, `landing.0.north`…), never from a list position of
//! some other product. Lists are sorted by id.

use super::geometry::{BoundsM, PointM, RectM};
use super::pedestrian::PedestrianSpace;

/// The kind of a paved surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SurfaceKind {
    /// Carriageway.
    Road,
    /// Sidewalk.
    Sidewalk,
    /// Painted crossing on the carriageway.
    Crosswalk,
}

impl SurfaceKind {
    /// The kind's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            SurfaceKind::Road => "road",
            SurfaceKind::Sidewalk => "sidewalk",
            SurfaceKind::Crosswalk => "crosswalk",
        }
    }
}

/// A paved surface polygon (counter-clockwise outline).
#[derive(Debug, Clone, PartialEq)]
pub struct SurfacePolygon {
    /// Stable id.
    pub id: String,
    /// What the surface is.
    pub kind: SurfaceKind,
    /// The outline, counter-clockwise, without repeating the first point.
    pub outline: Vec<PointM>,
}

/// The travel direction of a vehicle lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LaneDirection {
    /// Towards +x.
    Eastbound,
    /// Towards −x.
    Westbound,
}

impl LaneDirection {
    /// The direction's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            LaneDirection::Eastbound => "eastbound",
            LaneDirection::Westbound => "westbound",
        }
    }
}

/// A vehicle lane: its centreline in travel direction and the crosswalks it meets, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleLane {
    /// Stable id, `lane.{i}` counted from the south edge of the road.
    pub id: String,
    /// Travel direction (right-hand traffic: the southern half drives east).
    pub direction: LaneDirection,
    /// Centreline from entry to exit.
    pub centerline: Vec<PointM>,
    /// Lane width in meters.
    pub width_m: f64,
    /// Ids of the crosswalks the lane crosses, in travel order.
    pub crosswalks: Vec<String>,
}

/// A rectangle a downstream scatter may fill (one scatter layer per area).
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterArea {
    /// Stable id, such as `furniture.north`.
    pub id: String,
    /// The area.
    pub rect: RectM,
}

/// A rectangle where nothing may be scattered, such as a crosswalk landing.
#[derive(Debug, Clone, PartialEq)]
pub struct KeepOut {
    /// Stable id, such as `landing.0.south`.
    pub id: String,
    /// The rectangle.
    pub rect: RectM,
}

/// The product of `street.block`.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetBlock {
    /// Length of the block along x, in meters.
    pub length_m: f64,
    /// Carriageway width, in meters.
    pub road_width_m: f64,
    /// Width of each sidewalk, in meters.
    pub sidewalk_width_m: f64,
    /// The validated pedestrian space.
    pub space: PedestrianSpace,
    /// Road, sidewalk and crosswalk surfaces, sorted by id.
    pub surfaces: Vec<SurfacePolygon>,
    /// Vehicle lanes, sorted by id.
    pub lanes: Vec<VehicleLane>,
    /// Areas a scatter may fill, sorted by id.
    pub scatter_areas: Vec<ScatterArea>,
    /// Rectangles a scatter must avoid, sorted by id.
    pub keep_outs: Vec<KeepOut>,
}

impl StreetBlock {
    /// The bounds of every surface.
    pub fn bounds(&self) -> Option<BoundsM> {
        BoundsM::of_points(
            self.surfaces
                .iter()
                .flat_map(|surface| surface.outline.iter().copied()),
        )
    }
}
