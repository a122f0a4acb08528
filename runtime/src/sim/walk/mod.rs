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
//!
//! ## Flow at crowd density (what stalls; measured by `sim::FlowWatch`)
//! In a random counter-flow at 0.8–1 walker per m² (`sim::two_way_street_world`) most walkers
//! stall for good (about two thirds of 1,000 move less than 1 m in 10 s after warm-up). Nearly
//! every fan candidate fails the predicted body test there: a standing oncoming body within
//! 0.63 m of the 1 m lookahead, or a moving one within 0.63 m of its 2 m relative sweep,
//! refuses it, and the executed step refuses the rest against same-direction bodies already
//! touching. Opposing walkers meet head on and stop; those behind them (a standing leader is a
//! body to pass, not one to follow) spread beside them, until walls of standing walkers face
//! each other across the corridor; a walker in a wall cannot part (its left is its own stream)
//! and gives way into nothing. The binding constraint is the route corridor centred on the
//! route's line: both streams of a 3 m walkway share its middle 1.3 m. Experiments (branch
//! `wt-flow-lanes`, not applied): centring the corridor on each walker's own lane (where it was
//! placed) and letting a boxed-in walker edge along (half steps that pass the executed-step
//! test) brought 67 % stalled down to about 37 % on a 250-walker street; lifting the corridor
//! to the walkway's bounds, 6–9 %; lanes that drift left while an oncoming body is ahead
//! (opposing streams sorting into lanes), 3–4 % at 0.63 m/s. But drifting lanes jam the
//! crosswalk demo's queues, and the lane corridor made the long street's crowd wait more, so
//! none of them is applied.

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
