//! Parameters, limits and errors of the P0 scatter kernel.

use thiserror::Error;

pub use crate::content::geometry::Rect;
use crate::identity::PackError;
use crate::rng::SamplerExhausted;

/// Largest cell size in lattice units; keeps every squared distance the kernel computes exact in
/// `i64` (neighbours differ by less than 3 cells per axis: `2 · (3 · 2^29)^2 < 2^63`).
pub const MAX_CELL_SIZE: i64 = 1 << 29;
/// Largest number of candidates per cell: candidate indices are 8 bits, and those from 128 up
/// are the authored objects' space (`identity::AUTHORED_CANDIDATE_MIN`), which no layer reaches.
pub const MAX_CANDIDATES_PER_CELL: u32 = crate::identity::AUTHORED_CANDIDATE_MIN as u32;
/// Largest number of keep-out rectangles per layer.
pub const MAX_KEEP_OUTS: usize = 4096;
/// Largest number of variants per family.
pub const MAX_VARIANTS: usize = 4096;
/// Ceiling on candidates one call evaluates (requested cells plus their 2-cell margin, times the
/// candidates per cell); split larger requests — any split gives the same result.
pub const MAX_EVALUATED_CANDIDATES: u64 = 1 << 24;

/// One variant of the scattered family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScatterVariant {
    /// Relative selection weight, at least 1.
    pub weight: u32,
    /// Exclusion radius in lattice units, `0..=cell_size`.
    pub exclusion_radius: i64,
}

/// Parameters of one scatter layer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScatterParams {
    /// Cell edge in lattice units, `1..=MAX_CELL_SIZE`.
    pub cell_size: i64,
    /// Candidates per cell, `1..=128`.
    pub candidates_per_cell: u32,
    /// The layer's region (non-empty); its cells must fit `i16`.
    pub region: Rect,
    /// Rectangles where nothing is placed.
    pub keep_outs: Vec<Rect>,
    /// The family's variants, in the family's order.
    pub variants: Vec<ScatterVariant>,
    /// Room (or recipe instance) ordinal, `1..=65535`.
    pub room: u32,
    /// Layer id, `0..=255`.
    pub layer: u32,
}

/// A half-open range of cells `[min_x, end_x) × [min_y, end_y)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellRange {
    /// First column.
    pub min_x: i32,
    /// First row.
    pub min_y: i32,
    /// One past the last column.
    pub end_x: i32,
    /// One past the last row.
    pub end_y: i32,
}

impl CellRange {
    /// A range from its bounds.
    pub const fn new(min_x: i32, min_y: i32, end_x: i32, end_y: i32) -> CellRange {
        CellRange {
            min_x,
            min_y,
            end_x,
            end_y,
        }
    }

    /// The single cell `(x, y)` (`x`, `y` fit `i16`, so the ends cannot overflow).
    pub fn single(x: i16, y: i16) -> CellRange {
        let (x, y) = (i32::from(x), i32::from(y));
        CellRange::new(x, y, x + 1, y + 1)
    }
}

/// A scatter request that cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ScatterError {
    /// The cell size is outside `1..=MAX_CELL_SIZE`.
    #[error("cell size {cell_size} is outside 1..={MAX_CELL_SIZE}")]
    CellSize {
        /// The rejected cell size.
        cell_size: i64,
    },
    /// The candidate count is outside `1..=128`.
    #[error("candidates per cell {candidates} is outside 1..=128")]
    CandidatesPerCell {
        /// The rejected count.
        candidates: u32,
    },
    /// The region contains no point.
    #[error("the region is empty")]
    EmptyRegion,
    /// A cell of the region does not fit `i16`.
    #[error("the region's cells {min_x}..={max_x} × {min_y}..={max_y} do not fit i16")]
    RegionCells {
        /// First column.
        min_x: i64,
        /// First row.
        min_y: i64,
        /// Last column.
        max_x: i64,
        /// Last row.
        max_y: i64,
    },
    /// There are more keep-outs than [`MAX_KEEP_OUTS`].
    #[error("{count} keep-outs exceed the limit of {MAX_KEEP_OUTS}")]
    TooManyKeepOuts {
        /// The number given.
        count: usize,
    },
    /// A keep-out has a lower bound above its upper bound.
    #[error("keep-out {index} is inverted")]
    InvertedKeepOut {
        /// Its index.
        index: usize,
    },
    /// The family has no variant.
    #[error("the family has no variant")]
    NoVariants,
    /// The family has more variants than [`MAX_VARIANTS`].
    #[error("{count} variants exceed the limit of {MAX_VARIANTS}")]
    TooManyVariants {
        /// The number given.
        count: usize,
    },
    /// A variant weight is 0.
    #[error("variant {index} has weight 0")]
    VariantWeight {
        /// Its index.
        index: usize,
    },
    /// The weights sum past `u32::MAX`.
    #[error("the variant weights sum past {}", u32::MAX)]
    TotalWeight,
    /// A variant's exclusion radius is negative or larger than the cell size.
    #[error("variant {index} has exclusion radius {radius}, outside 0..=cell size")]
    ExclusionRadius {
        /// Its index.
        index: usize,
        /// The rejected radius.
        radius: i64,
    },
    /// The room or layer does not fit the packed identity.
    #[error("identity: {0}")]
    Identity(#[from] PackError),
    /// The requested cell range has an end below its start.
    #[error("the cell range is inverted")]
    InvertedRange,
    /// The request would evaluate more than [`MAX_EVALUATED_CANDIDATES`] candidates.
    #[error("the request evaluates {candidates} candidates, over the limit of {MAX_EVALUATED_CANDIDATES}")]
    Capacity {
        /// Candidates the request would evaluate.
        candidates: u64,
    },
    /// A bounded draw exhausted its attempts.
    #[error(transparent)]
    Sampler(#[from] SamplerExhausted),
    /// The allocator could not provide the memory the output needs.
    #[error("could not reserve memory for {items} output records")]
    OutOfMemory {
        /// Records the reservation was for.
        items: usize,
    },
}
