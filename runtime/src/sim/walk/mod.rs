//! Walking along routes with local avoidance (the specification's formal Sidewalk adapter): routes
//! commit movement, avoidance only suggests steering.
//!
//! One walker's step, in order: complete its connection if it stands at the goal (`progress`);
//! buy a physical step with its route budget; shorten it behind a same-direction leader that
//! is moving (`follow`; one standing still is a body to pass); aim along its lane — it keeps
//! the lateral offset it walks at, keeps left (leaning back to the line from right of it, and
//! further left while an oncoming body is ahead, the side the fan's +0.03 passes on), and
//! narrows onto the line over the last 4 m before the goal; then the shared steering helper
//! (`steer`, also the task movements') tries the fan best first (`fan`) — each candidate must
//! stay on the walkway, respect the connection's longitudinal bounds, clear static blockers
//! (with a forward exit for a sidestep when static geometry blocks the straight way, `ground`),
//! pass the predicted body test against every neighbour at another heading within the opposing
//! scan (`body`), and its shorter executed step must clear every body, so a refused step never
//! hides a safe candidate behind it. Progress is the longitudinal projection of the accepted
//! displacement. With no safe candidate the walker waits: no progress, no position change —
//! except that after 0.5 s blocked by bodies it gives way once per step through the same fan
//! around its left-hand direction (a step back allowed, never any progress for it), so two
//! walkers face to face part instead of waiting for each other for ever. Every outcome is a
//! [`WalkDecision`] with its reason.
//!
//! Walkers update in row order and read their neighbours' current positions, so a step is
//! checked against bodies that already moved this step and is seen by those that move later.

pub mod body;
pub mod fan;
pub mod follow;
pub mod ground;
pub mod neighbours;
pub mod progress;
pub mod steer;
mod step;

#[cfg(test)]
mod tests;

pub use step::{walk_agent, Avoidance, Neighbour, Scratch, WalkEnv};

use super::spatial::SpatialGrid;
use fan::Fan;

pub use crate::sim::state::body::LOOKAHEAD_M;

/// Bodies within this horizontal distance are a walker's neighbours, meters.
pub const OPPOSING_SCAN_M: f64 = 2.5;
/// The route corridor: a walker's lateral offset from its route's line stays within this
/// whatever its avoidance, lane keeping or group corrections ask (the walkway's width bounds it
/// further where narrower), meters (motion specification: 65 cm).
pub const ROUTE_CORRIDOR_M: f64 = 0.65;
/// Window over which a body's velocity is observed, seconds.
pub const VELOCITY_WINDOW_S: f64 = 0.2;
/// Cell of the neighbour grid, meters: 0.7 × the opposing scan. A walker's scan reaches about
/// four grid rows, one run of slots each; smaller cells hug its disc closer but hand out more,
/// shorter runs, and each run costs about as much as a block of bodies (at 1.25 m the two-way
/// street stepped about 5 % slower), while larger ones file too many bodies beyond the disc
/// (the neighbours found, and so every decision, are the same whatever the cell).
pub const NEIGHBOUR_CELL_M: f64 = 0.7 * OPPOSING_SCAN_M;

/// What the Motion phase keeps between steps for walking: derived data and scratch buffers,
/// never state (a snapshot does not hold it; it is rebuilt from the agents and the space).
#[derive(Clone, Debug, Default)]
pub struct WalkState {
    /// Neighbour grid over the agents' positions at the start of the phase.
    pub(in crate::sim) grid: SpatialGrid,
    /// Surroundings of the walker being stepped.
    pub(in crate::sim) scratch: Scratch,
    /// The steering fan.
    pub(in crate::sim) fan: Fan,
}

impl WalkState {
    /// Heap bytes held by the grid and scratch buffers.
    pub fn heap_bytes(&self) -> usize {
        self.grid.heap_bytes()
            + self.scratch.neighbours.capacity() * std::mem::size_of::<Neighbour>()
            + self.scratch.bodies.heap_bytes()
            + (self.scratch.blockers.capacity() + self.scratch.far_blockers.capacity())
                * std::mem::size_of::<(crate::project::Vec2, f64)>()
            + (self.scratch.shapes.capacity() + self.scratch.far_shapes.capacity())
                * std::mem::size_of::<crate::sim::config::Obstacle>()
    }
}
