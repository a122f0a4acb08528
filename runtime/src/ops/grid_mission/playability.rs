//! Playability of mission layouts: BFS over 4-neighbours through waypoints, and NPC placement.
//!
//! Blockers are walls; the search visits neighbours in the fixed order east, west, south, north,
//! so the bot path is deterministic.

use std::collections::VecDeque;

use thiserror::Error;

use super::MAX_GRID_SIDE;
use crate::content::{ChunkRole, GridCell, MissionChunk, MissionLayout};

/// Why a layout is not playable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PlayabilityFailure {
    /// The grid size is outside `1..=MAX_GRID_SIDE` per side.
    #[error("grid {width}×{height} is outside 1..={MAX_GRID_SIDE} per side")]
    GridSize {
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
    },
    /// A waypoint lies outside the grid.
    #[error("waypoint ({}, {}) is outside the grid", cell.x, cell.y)]
    WaypointOutside {
        /// The waypoint.
        cell: GridCell,
    },
    /// A waypoint is a wall.
    #[error("waypoint ({}, {}) is blocked", cell.x, cell.y)]
    WaypointBlocked {
        /// The waypoint.
        cell: GridCell,
    },
    /// No path joins two consecutive waypoints.
    #[error("segment {segment}: ({}, {}) cannot reach ({}, {})", from.x, from.y, to.x, to.y)]
    Unreachable {
        /// Index of the segment (0 = spawn → first waypoint after it).
        segment: usize,
        /// Its start.
        from: GridCell,
        /// Its end.
        to: GridCell,
    },
}

/// Why a layout fails the NPC-placement check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NpcPlacementFailure {
    /// The layout is not playable, so NPC placement is not considered.
    #[error("unplayable: {0}")]
    Unplayable(PlayabilityFailure),
    /// Too few cells admit NPCs.
    #[error("{found} cells admit NPCs, below the minimum {required}")]
    TooFew {
        /// Cells admitting NPCs.
        found: u32,
        /// The minimum.
        required: u32,
    },
}

/// Whether a chunk admits NPCs: objective, encounter, landmark, connector, or the NPC-spawn tag;
/// never blockers, spawn or extraction.
pub fn admits_npc(role: ChunkRole, npc_spawn_tag: bool) -> bool {
    let excluded = matches!(
        role,
        ChunkRole::Blocker | ChunkRole::Spawn | ChunkRole::Extraction
    );
    let by_role = matches!(
        role,
        ChunkRole::Objective | ChunkRole::Encounter | ChunkRole::Landmark | ChunkRole::Connector
    );
    !excluded && (by_role || npc_spawn_tag)
}

/// A grid of walls for path finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraversalGrid {
    width: u32,
    height: u32,
    walls: Vec<bool>,
}

impl TraversalGrid {
    /// An open grid; each side must be in `1..=MAX_GRID_SIDE`.
    pub fn new(width: u32, height: u32) -> Result<TraversalGrid, PlayabilityFailure> {
        if !(1..=MAX_GRID_SIDE).contains(&width) || !(1..=MAX_GRID_SIDE).contains(&height) {
            return Err(PlayabilityFailure::GridSize { width, height });
        }
        Ok(TraversalGrid {
            width,
            height,
            walls: vec![false; (width * height) as usize],
        })
    }

    /// Marks `cell` as a wall or open; cells outside the grid are ignored.
    pub fn set_wall(&mut self, cell: GridCell, wall: bool) {
        if let Some(index) = self.index(cell) {
            self.walls[index] = wall;
        }
    }

    /// Whether `cell` is a wall (cells outside the grid are walls).
    pub fn is_wall(&self, cell: GridCell) -> bool {
        self.index(cell).is_none_or(|index| self.walls[index])
    }

    fn index(&self, cell: GridCell) -> Option<usize> {
        (cell.x < self.width && cell.y < self.height)
            .then(|| (cell.y * self.width + cell.x) as usize)
    }

    fn cell(&self, index: usize) -> GridCell {
        // Indices come from `index`, so they are below width × height ≤ 64².
        let index = index as u32;
        GridCell::new(index % self.width, index / self.width)
    }

    /// The open 4-neighbours of `cell`, in the fixed order east, west, south, north.
    fn neighbours(&self, cell: GridCell) -> impl Iterator<Item = usize> + '_ {
        let east = cell.x.checked_add(1).map(|x| GridCell::new(x, cell.y));
        let west = cell.x.checked_sub(1).map(|x| GridCell::new(x, cell.y));
        let south = cell.y.checked_add(1).map(|y| GridCell::new(cell.x, y));
        let north = cell.y.checked_sub(1).map(|y| GridCell::new(cell.x, y));
        [east, west, south, north]
            .into_iter()
            .flatten()
            .filter(|n| !self.is_wall(*n))
            .filter_map(|n| self.index(n))
    }
}

/// A BFS path through `waypoints` in order, including every waypoint once at each junction.
pub fn find_path_through_waypoints(
    grid: &TraversalGrid,
    waypoints: &[GridCell],
) -> Result<Vec<GridCell>, PlayabilityFailure> {
    for &cell in waypoints {
        if grid.index(cell).is_none() {
            return Err(PlayabilityFailure::WaypointOutside { cell });
        }
        if grid.is_wall(cell) {
            return Err(PlayabilityFailure::WaypointBlocked { cell });
        }
    }
    let mut path: Vec<GridCell> = waypoints.first().copied().into_iter().collect();
    for (segment, pair) in waypoints.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let leg =
            bfs(grid, from, to).ok_or(PlayabilityFailure::Unreachable { segment, from, to })?;
        path.extend(leg.into_iter().skip(1));
    }
    Ok(path)
}

/// The shortest path from `from` to `to` (both open and inside), first-found in neighbour order.
fn bfs(grid: &TraversalGrid, from: GridCell, to: GridCell) -> Option<Vec<GridCell>> {
    let (start, goal) = (grid.index(from)?, grid.index(to)?);
    let mut previous = vec![usize::MAX; grid.walls.len()];
    previous[start] = start;
    let mut queue = VecDeque::from([start]);
    while let Some(current) = queue.pop_front() {
        if current == goal {
            let mut path = vec![grid.cell(goal)];
            let mut at = goal;
            while at != start {
                at = previous[at];
                path.push(grid.cell(at));
            }
            path.reverse();
            return Some(path);
        }
        for next in grid.neighbours(grid.cell(current)) {
            if previous[next] == usize::MAX {
                previous[next] = current;
                queue.push_back(next);
            }
        }
    }
    None
}

/// The layout's waypoints: spawn, objectives in order, extraction.
pub(super) fn waypoints(
    spawn: GridCell,
    objectives: &[GridCell],
    extraction: GridCell,
) -> Vec<GridCell> {
    let mut points = Vec::with_capacity(objectives.len() + 2);
    points.push(spawn);
    points.extend_from_slice(objectives);
    points.push(extraction);
    points
}

/// The bot path of a layout, treating chunks that block traversal as walls.
pub fn validate_playability(layout: &MissionLayout) -> Result<Vec<GridCell>, PlayabilityFailure> {
    let mut grid = TraversalGrid::new(layout.width, layout.height)?;
    for chunk in &layout.chunks {
        grid.set_wall(chunk.cell, chunk.blocks_traversal);
    }
    find_path_through_waypoints(
        &grid,
        &waypoints(layout.spawn, &layout.objectives, layout.extraction),
    )
}

/// The cells admitting NPCs (row-major), once the layout is known to be playable; fails below
/// `minimum`.
pub fn validate_npc_placement(
    layout: &MissionLayout,
    minimum: u32,
) -> Result<Vec<GridCell>, NpcPlacementFailure> {
    validate_playability(layout).map_err(NpcPlacementFailure::Unplayable)?;
    let cells = npc_cells(&layout.chunks);
    let found = u32::try_from(cells.len()).unwrap_or(u32::MAX);
    if found < minimum {
        return Err(NpcPlacementFailure::TooFew {
            found,
            required: minimum,
        });
    }
    Ok(cells)
}

/// Cells of `chunks` admitting NPCs, row-major.
pub(super) fn npc_cells(chunks: &[MissionChunk]) -> Vec<GridCell> {
    let mut cells: Vec<GridCell> = chunks
        .iter()
        .filter(|chunk| !chunk.blocks_traversal && admits_npc(chunk.role, chunk.npc_spawn_tag))
        .map(|chunk| chunk.cell)
        .collect();
    cells.sort();
    cells
}
