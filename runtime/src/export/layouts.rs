//! The bundle's mission layouts and streaming plans as an export carries them: each with where
//! it comes from and the ground-plane bounds of its cells, so an engine can place a chunk or a
//! streaming cell without knowing Stagecraft's grid conventions. Stagecraft's frame (metres, Z
//! up); the writers convert.
//!
//! A mission grid's column grows east and its row south, from the origin: cell `(x, y)` covers
//! `[x·s, (x+1)·s] × [−(y+1)·s, −y·s]` (`MissionProduct::cell_center_m`). A streaming cell is
//! `floor(location / s)` per axis: cell `(x, y)` covers `[x·s, (x+1)·s] × [y·s, (y+1)·s]`.

use crate::content::{BoundsM, GridCell, MissionProduct, PointM, StreamingCell, StreamingProduct};

/// One mission layout of the bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct MissionGroup {
    /// The recipe id.
    pub recipe: String,
    /// The emitting stage.
    pub stage: u32,
    /// The product (cell size and solved layout).
    pub product: MissionProduct,
}

impl MissionGroup {
    /// The centre of `cell`, metres.
    pub fn cell_center_m(&self, cell: GridCell) -> PointM {
        self.product.cell_center_m(cell.x, cell.y)
    }

    /// The ground-plane bounds of `cell`, metres.
    pub fn cell_bounds_m(&self, cell: GridCell) -> BoundsM {
        square(self.cell_center_m(cell), self.product.cell_size_m)
    }
}

/// The role of a cell in a streaming plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StreamingRole {
    /// Fully loaded around the observer.
    Loaded,
    /// An HLOD cell kept within the budget.
    Hlod,
    /// An HLOD cell dropped to fit the budget.
    HlodPruned,
}

impl StreamingRole {
    /// The role's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            StreamingRole::Loaded => "loaded",
            StreamingRole::Hlod => "hlod",
            StreamingRole::HlodPruned => "hlod_pruned",
        }
    }
}

/// One streaming plan of the bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingGroup {
    /// The recipe id.
    pub recipe: String,
    /// The emitting stage.
    pub stage: u32,
    /// The product (cell size, observer and plan).
    pub product: StreamingProduct,
}

impl StreamingGroup {
    /// Every cell of the plan with its role: the loaded cells (row-major), then the kept HLOD
    /// cells and the pruned ones (each in pruning order).
    pub fn cells(&self) -> impl Iterator<Item = (StreamingRole, StreamingCell)> + '_ {
        let plan = &self.product.plan;
        [
            (StreamingRole::Loaded, &plan.loaded_cells),
            (StreamingRole::Hlod, &plan.hlod_cells),
            (StreamingRole::HlodPruned, &plan.hlod_pruned_cells),
        ]
        .into_iter()
        .flat_map(|(role, cells)| cells.iter().map(move |cell| (role, *cell)))
    }

    /// The centre of `cell`, metres.
    pub fn cell_center_m(&self, cell: StreamingCell) -> PointM {
        let size = self.product.cell_size_m;
        PointM::new(
            (f64::from(cell.x) + 0.5) * size,
            (f64::from(cell.y) + 0.5) * size,
        )
    }

    /// The ground-plane bounds of `cell`, metres.
    pub fn cell_bounds_m(&self, cell: StreamingCell) -> BoundsM {
        square(self.cell_center_m(cell), self.product.cell_size_m)
    }
}

/// The square of edge `size_m` centred on `center`.
fn square(center: PointM, size_m: f64) -> BoundsM {
    let half = size_m / 2.0;
    BoundsM {
        min_x: center.x - half,
        min_y: center.y - half,
        max_x: center.x + half,
        max_y: center.y + half,
    }
}
