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
//! In a random counter-flow at 0.8–1 walker per m² (`sim::two_way_street_world`, 40 warm-up
//! steps, then 10 s; the motion bench's `MOTION_FLOW=1`, debug build under load) most walkers
//! stall for good: of 1,000, 65 % move less than 1 m (mean 0.17 m/s, median 0.05 m/s, least
//! pair 0.623 m); of 10,000, 58 % (mean 0.10 m/s, median 0.08 m/s, least pair 0.630 m). The
//! issue's 10 % / 7 % were not reproduced on this world (35 % / 48 % do not even shuffle 1 m).
//!
//! What a stalled walker faces (read off the 250-walker street after 12 s): it stands in a
//! single file of its own stream packed at exactly the safety diameter (0.63–0.65 m from the
//! body ahead and behind: a standing leader is not followed, so the executed step lets it close
//! up to 0.63 m), the file's head 0.8 m from the standing head of an opposing file, the files
//! beside it 0.63–0.75 m away. Every fan candidate's 1 m prediction then reaches a standing
//! body at another heading, every short step out of the file comes within 0.63 m of a
//! neighbour, giving way to the left meets the next file, and the crowd is a solid packing
//! that no rule of the specification (a bounded local adapter: "waiting when no local candidate
//! is safe is an intentional result") unpacks. The packing forms during the warm-up.
//!
//! The corridor's reference line: the specification bounds a walker's deviation from its
//! *original path* (65 cm), and its demo gives each walker a route of its own lateral offset.
//! The bench street puts every walker on its sidewalk's route, so the corridor is the middle
//! 1.3 m whatever the walkway's width: on the 25 m walkways of 10,000 walkers nearly all start
//! outside it and walk towards the middle. `sim::two_way_street_lanes_world` gives every
//! walker a lane route of its own (its placement row's; the rules unchanged): 1,000 then stall
//! 45 % (mean 0.23 m/s, median 0.12, least pair 0.630 m) and 10,000 54 % (mean 0.18 m/s,
//! median 0.08); on the 250-walker street 56 % instead of 59 %, but slower on average (0.159
//! instead of 0.173 m/s), and in `a_dense_two_way_street_keeps_flowing`'s 540 walkers 207
//! instead of 164 wait at the end. Rule experiments on the 1,000-walker lane street (none
//! applied): following standing leaders as the specification's following reads (no forward
//! space: keep position) 69 % stalled (86 % on the sidewalk routes, and a pair came to 0.556 m);
//! standing same-direction bodies in the predicted test 48 %; always keeping to the left of
//! the corridor 46 %; and, to weigh the rule "stationary neighbours still occupy space",
//! standing bodies left out of the predicted test altogether (not the specification) 38 %
//! (50 % on the sidewalk routes): not the binding constraint. Earlier experiments (branch `wt-flow-lanes`): lifting the corridor to the
//! walkway's bounds 6–9 %, lanes drifting left past oncoming bodies 3–4 % at 0.63 m/s — both
//! leave the specification's corridor, and drifting lanes jam the crosswalk demo's queues.
//! Lanes that the opposing streams can sort into need room the ±0.65 m corridors around fixed
//! paths 0.73–0.97 m apart do not leave (two opposing sub-lanes need 0.63 m between them).

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
