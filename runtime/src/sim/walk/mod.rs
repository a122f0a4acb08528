//! Walking along routes with local avoidance (the specification's formal Sidewalk adapter): routes
//! commit movement, avoidance only suggests steering.
//!
//! One walker's step, in order: complete its connection if it stands at the goal (`progress`);
//! buy a physical step with its route budget; shorten it behind a same-direction leader that
//! is moving (`follow`; one standing still is a body to pass); aim along its lane (below), the
//! lane narrowing onto its path over the last 4 m before the goal; then the shared steering
//! helper (`steer`, also the task movements') tries the fan best first (`fan`) — each candidate
//! must stay on the walkway inside the route corridor, respect the connection's longitudinal
//! bounds, clear static blockers (with a forward exit for a sidestep when static geometry blocks
//! the straight way, `ground`), pass the predicted body test against every neighbour at another
//! heading within the opposing scan (`body`), and its shorter executed step must clear every
//! body, so a refused step never hides a safe candidate behind it. Progress is the longitudinal
//! projection of the accepted displacement. With no candidate clear of the bodies for
//! `step::YIELD_AFTER_S` the walker gives way: off its lane, a whole step along the first
//! candidate of the fan around the direction of its lane whose executed step passes every
//! physical check (walkway and corridor, the connection's bounds, blockers, every body kept a
//! safety diameter away) — without the prediction, which every candidate just failed — or,
//! still for `step::FAR_SIDE_AFTER_S`, the same around the direction away from its lane, or else
//! through the fan around its lane's side with the prediction, a step back allowed (never any
//! progress for it); and when that finds nothing too, or it is in its lane, it edges — a half
//! step along the first candidate of the fan around its desired direction, or else of the fan's
//! 25°–90° candidates around the opposite way, that passes those physical checks (which never
//! let a step go back along the connection). Boxed in with an oncoming body ahead, it backs off:
//! a half step along the first candidate of the fan around the way back along its connection
//! that passes them (the step back allowed there), so the fronts of two opposite queues part.
//! Otherwise it waits: no progress, no position change. Every outcome is a [`WalkDecision`] with
//! its reason.
//!
//! A walker bound to a crosswalk (approaching it, or walking on from its exit kerb; the
//! crossings move it while it queues or crosses) walks by the rule before lanes and edging: it
//! keeps the lateral offset it walks at, leaning back to the line from right of it and further
//! left while an oncoming body is ahead, and after `step::CROSSING_YIELD_AFTER_S` blocked by
//! bodies it gives way once per step through the fan around its left-hand direction, or waits.
//! There the crossing's queue and lanes govern where it stands; with lanes and edging the
//! crosswalk demo's twelve ping-pong crossers jammed for good at the far end of their route.
//!
//! Walkers update in row order and read their neighbours' current positions, so a step is
//! checked against bodies that already moved this step and is seen by those that move later.
//!
//! ## Own paths, the corridor and lanes
//! The motion specification bounds local corrections to the walker's *original path*: "Locomotion
//! Policy 还把最大路线偏差设为 65 cm，限制局部修正把行人推出原路径走廊" (the maximum route deviation is
//! 65 cm, so local corrections cannot push a walker out of its original path's corridor), and its
//! demo gives each walker a path of its own lateral offset ("前三条横向偏移为 -25、0、25 cm"). A walker's
//! own path is its route's line moved sideways by its `path_offset_m` (0 for a population birth,
//! which stands on the line; where a bench world placed it): its connection runs along that path
//! and its corridor is ±[`ROUTE_CORRIDOR_M`] of it, on the walkway.
//!
//! While an oncoming body is ahead (within two safety diameters of its line), a walker keeps a
//! lane across its route (`step::lane_m`; otherwise the offset it walks at, leaning back to its
//! path from right of it): keeping left — the side the fan's
//! +0.03 preference passes on ("Positive-angle candidates receive a 0.03 preference to reduce
//! perfectly symmetric opposing choices") — the lanes of one heading lie half a lane spacing left
//! of the route's line plus whole multiples of two spacings, the other heading's between them,
//! with the spacing the corridor's 0.65 m: one spacing is at least the safety diameter (0.63 m),
//! so opposing walkers one lane apart pass clear of the body test, and the nearest lane of a
//! walker's heading is never farther than one spacing, so it lies inside the corridor of any
//! own path. A walker aims at its lane `step::LANE_AIM_M` ahead. Two opposing walkers face to face
//! between two lanes always part: each lane of the pair is the nearer of its heading.
//!
//! ## Flow at crowd density (measured by `sim::FlowWatch`)
//! The flow report (`runtime/benches/motion.rs`, `MOTION_FLOW=1000,10000`; the two-way street
//! of `sim::two_way_street_world`, 0.8–1 walker per m², 40 warm-up steps, then 10 s): see
//! `docs/flow.md` for the figures before and after, and the history of the stalls. In short:
//! issue 34 measured 10 % / 7 % stalled at 1,000 / 10,000 before the 0.65 m route corridor came
//! (trust issue 26, commit f90b16a), which was then centred on the *route's* line for every
//! walker: the bench street's 500 or 5,000 walkers per sidewalk had the middle 1.3 m of the
//! walkway, those outside it could only move back towards it, and 65 % / 58 % stalled. Own paths,
//! lanes and edging bring that to 1.7 % / 2.5 % (mean 0.995 / 0.811 m/s) with the corridor kept;
//! giving way with the executed step and edging both ways to 0.2 % / 1.5 % (1.046 / 0.872 m/s);
//! giving way to the far side and backing off to 0.3 % / 0.39 % (1.043 / 0.903 m/s).

pub mod body;
pub mod fan;
pub mod follow;
pub mod ground;
pub mod neighbours;
pub mod progress;
pub mod rows;
pub mod steer;
mod step;

#[cfg(test)]
mod tests;

pub use rows::WalkRows;
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
/// Cell (row height) of the neighbour grid, meters: 0.7 × the opposing scan; its cells are a
/// quarter as wide (`spatial::COLUMN_SPLIT`), so each row's run ends close to the disc's chord. A
/// walker's scan reaches about four grid rows, one run of slots each; lower rows hug its disc
/// closer but hand out more, shorter runs, and each run costs about as much as a block of bodies
/// (with square cells, at 1.25 m the two-way street stepped about 5 % slower), while taller ones
/// file too many bodies beyond the disc (the neighbours found, and so every decision, are the
/// same whatever the cell).
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
