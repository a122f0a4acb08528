//! The one steering helper every mover uses (route walkers in `step`, task movements in
//! `sim::tasks::movement`): the fan tried best first around a desired direction, each candidate
//! accepted only when its scene check (the mover's own: walkway and blockers, or the path grid),
//! the seed's predicted body test against every body at another heading and the executed short
//! step against every body pass — so a choice is always a step that can be taken, and the next
//! candidate is tried when the best one's step cannot.

use super::body::{clear, SAFETY_DIAMETER_M};
use super::fan::Fan;
use super::follow::same_direction;
use super::{CandidateRejection, LOOKAHEAD_M, OPPOSING_SCAN_M};
use crate::project::Vec2;
use crate::sim::agents::Agents;
use crate::sim::spatial::SpatialGrid;

/// Neighbours of one kind a mover keeps on the stack (more fall back to a scan).
const BODY_SLOTS: usize = 64;

/// A neighbour as a mover sees it: current position, observed velocity, facing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Current position, meters.
    pub position: Vec2,
    /// Velocity observed over the last window, meters per second.
    pub velocity: Vec2,
    /// Unit facing.
    pub facing: Vec2,
    /// Squared horizontal distance from the mover when gathered, m².
    pub distance_sq_m2: f64,
}

/// The scene half of a candidate's check, owned by the kind of mover.
pub trait Scene {
    /// The scene check of a candidate from `here` whose step ends at `step_end` and whose
    /// prediction reaches `predicted`.
    fn candidate(
        &mut self,
        here: Vec2,
        step_end: Vec2,
        predicted: Vec2,
    ) -> Result<(), CandidateRejection>;

    /// Told why the straight candidate was refused before the others are tried (a walker
    /// blocked by static geometry then needs a forward exit for a sidestep).
    fn straight_refused(&mut self, _reason: CandidateRejection) {}

    /// The scene check of the executed step from `here` to `endpoint`.
    fn step(&self, here: Vec2, endpoint: Vec2) -> Result<(), CandidateRejection>;
}

/// What the fan is steered against besides the scene.
#[derive(Clone, Copy, Debug)]
pub struct Surroundings<'a> {
    /// The steering fan.
    pub fan: &'a Fan,
    /// Bodies within the opposing scan.
    pub neighbours: &'a [Neighbour],
    /// The mover's heading axis: bodies facing within 45° of it are followed, not predicted.
    pub axis: Vec2,
    /// Prediction horizon: lookahead over desired speed, seconds.
    pub horizon_s: f64,
}

/// A steering choice: the candidate's angle and unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// Angle from the desired direction, degrees.
    pub angle_deg: i8,
    /// Unit direction of the step.
    pub direction: Vec2,
}

/// The best fan candidate around `desired` whose scene check, prediction and executed step of
/// `step_m` all pass, or the reason the straight candidate was refused.
pub fn steer(
    around: &Surroundings<'_>,
    scene: &mut impl Scene,
    here: Vec2,
    desired: Vec2,
    step_m: f64,
) -> Result<Choice, CandidateRejection> {
    let bodies = Bodies::of(around, step_m);
    let mut straight = CandidateRejection::BodyConflict;
    for candidate in &around.fan.candidates {
        let direction = candidate.direction(desired);
        let predicted = offset(here, direction, LOOKAHEAD_M);
        let step_end = offset(here, direction, step_m);
        let verdict = scene
            .candidate(here, step_end, predicted)
            .and_then(|()| bodies.predicted_clear(around, here, predicted))
            .and_then(|()| bodies.step_clear(around.neighbours, here, step_end));
        match verdict {
            Ok(()) => {
                return Ok(Choice {
                    angle_deg: candidate.angle_deg,
                    direction,
                })
            }
            Err(reason) if candidate.angle_deg == 0 => {
                straight = reason;
                scene.straight_refused(reason);
            }
            Err(_) => {}
        }
    }
    Err(straight)
}

/// The neighbours each test of one mover's candidates reads, picked once for all nine: those at
/// another heading (the predictions) and those an executed step can touch. Indices on the
/// stack; a crowd too large for them falls back to scanning every neighbour (same verdicts).
struct Bodies {
    others: [u16; BODY_SLOTS],
    others_len: Option<usize>,
    touchable: [u16; BODY_SLOTS],
    touchable_len: Option<usize>,
}

impl Bodies {
    fn of(around: &Surroundings<'_>, step_m: f64) -> Bodies {
        let reach_sq = (SAFETY_DIAMETER_M + step_m) * (SAFETY_DIAMETER_M + step_m);
        let mut bodies = Bodies {
            others: [0; BODY_SLOTS],
            others_len: Some(0),
            touchable: [0; BODY_SLOTS],
            touchable_len: Some(0),
        };
        for (index, n) in around.neighbours.iter().enumerate() {
            let Ok(index) = u16::try_from(index) else {
                bodies.others_len = None;
                bodies.touchable_len = None;
                break;
            };
            if !same_direction(n.facing, around.axis) {
                push(&mut bodies.others, &mut bodies.others_len, index);
            }
            if n.distance_sq_m2 <= reach_sq {
                push(&mut bodies.touchable, &mut bodies.touchable_len, index);
            }
        }
        bodies
    }

    /// The seed's predicted body test of a candidate against every neighbour at another heading
    /// (same-direction bodies are the following rule's; the executed step still checks them).
    fn predicted_clear(
        &self,
        around: &Surroundings<'_>,
        here: Vec2,
        predicted: Vec2,
    ) -> Result<(), CandidateRejection> {
        let test =
            |n: &Neighbour| body_clear(here, predicted, n.position, n.velocity, around.horizon_s);
        let clear = match self.others_len {
            Some(len) => self.others[..len]
                .iter()
                .all(|i| test(&around.neighbours[usize::from(*i)])),
            None => around
                .neighbours
                .iter()
                .filter(|n| !same_direction(n.facing, around.axis))
                .all(test),
        };
        clear.then_some(()).ok_or(CandidateRejection::BodyConflict)
    }

    /// The executed step against the bodies it can touch, at their current positions.
    fn step_clear(
        &self,
        neighbours: &[Neighbour],
        here: Vec2,
        endpoint: Vec2,
    ) -> Result<(), CandidateRejection> {
        match self.touchable_len {
            Some(len) => {
                let clear = self.touchable[..len].iter().all(|i| {
                    let n = &neighbours[usize::from(*i)];
                    body_clear(here, endpoint, n.position, Vec2::default(), 0.0)
                });
                clear.then_some(()).ok_or(CandidateRejection::BodyConflict)
            }
            None => step_clear(neighbours, here, endpoint),
        }
    }
}

/// Appends `index` to a stack list, or marks it overflowed (`None`).
fn push(slots: &mut [u16; BODY_SLOTS], len: &mut Option<usize>, index: u16) {
    if let Some(n) = *len {
        if n == BODY_SLOTS {
            *len = None;
        } else {
            slots[n] = index;
            *len = Some(n + 1);
        }
    }
}

/// The executed step from `here` to `endpoint`, checked again against the scene and the bodies
/// at their current positions.
pub fn check_executed(
    neighbours: &[Neighbour],
    scene: &impl Scene,
    here: Vec2,
    endpoint: Vec2,
) -> Result<(), CandidateRejection> {
    scene.step(here, endpoint)?;
    step_clear(neighbours, here, endpoint)
}

/// The executed step against every body at its current position (the swept test with zero
/// neighbour velocity); a body farther than the safety diameter plus the step cannot be touched.
fn step_clear(
    neighbours: &[Neighbour],
    here: Vec2,
    endpoint: Vec2,
) -> Result<(), CandidateRejection> {
    let (dx, dy) = (endpoint.x - here.x, endpoint.y - here.y);
    let reach = SAFETY_DIAMETER_M + (dx * dx + dy * dy).sqrt();
    for n in neighbours
        .iter()
        .filter(|n| n.distance_sq_m2 <= reach * reach)
    {
        if !body_clear(here, endpoint, n.position, Vec2::default(), 0.0) {
            return Err(CandidateRejection::BodyConflict);
        }
    }
    Ok(())
}

/// The seed's body test on the ground plane (z = 0 for every walker). A pair that already
/// overlaps (bodies placed by something other than a walking step) passes only a candidate
/// that does not bring the mover closer, so overlapping bodies can always separate.
#[inline]
fn body_clear(here: Vec2, endpoint: Vec2, other: Vec2, velocity: Vec2, horizon_s: f64) -> bool {
    let now_sq = (here.x - other.x).powi(2) + (here.y - other.y).powi(2);
    if now_sq < SAFETY_DIAMETER_M * SAFETY_DIAMETER_M {
        let then_sq = (endpoint.x - other.x).powi(2) + (endpoint.y - other.y).powi(2);
        return then_sq >= now_sq;
    }
    clear(
        [here.x, here.y, 0.0],
        [endpoint.x, endpoint.y, 0.0],
        [other.x, other.y, 0.0],
        [velocity.x, velocity.y, 0.0],
        horizon_s,
    )
}

/// Every other body within `reach_m` (at least the opposing scan) of the mover in `row`, at
/// its current position; `slack_m` is how far a body may be from where the grid bucketed it.
pub fn gather_neighbours(
    grid: &SpatialGrid,
    agents: &Agents,
    row: usize,
    reach_m: f64,
    slack_m: f64,
    out: &mut Vec<Neighbour>,
) {
    out.clear();
    let here = agents.position[row];
    let reach = reach_m.max(OPPOSING_SCAN_M);
    let (velocities, facings) = (&agents.velocity_m_s, &agents.facing);
    grid.for_each_point_near(here, reach + slack_m, |other, position| {
        let (dx, dy) = (position.x - here.x, position.y - here.y);
        let distance_sq_m2 = dx * dx + dy * dy;
        let other = other as usize;
        if distance_sq_m2 <= reach * reach && other != row {
            out.push(Neighbour {
                position,
                velocity: velocities[other],
                facing: facings[other],
                distance_sq_m2,
            });
        }
    });
}

/// `p + direction × length_m`.
#[inline]
pub fn offset(p: Vec2, direction: Vec2, length_m: f64) -> Vec2 {
    Vec2 {
        x: p.x + direction.x * length_m,
        y: p.y + direction.y * length_m,
    }
}
