//! The one steering helper every mover uses (route walkers in `step`, task movements in
//! `sim::tasks::movement`): the fan tried best first around a desired direction, each candidate
//! accepted only when its scene check (the mover's own: walkway and blockers, or the path grid),
//! the specification's predicted body test against every body at another heading and the executed
//! short step against every body pass — so a choice is always a step that can be taken, and the
//! next candidate is tried when the best one's step cannot.

use super::body::{clear, SAFETY_DIAMETER_M};
use super::fan::{Fan, FanCandidate};
use super::neighbours::Bodies;
use super::{LOOKAHEAD_M, OPPOSING_SCAN_M};
use crate::project::Vec2;
use crate::sim::spatial::SpatialGrid;
use crate::sim::state::{Agents, CandidateRejection};

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
    /// prediction reaches `predicted` (it changes nothing, so it may run after the body tests
    /// of a candidate whose refusal reason is not kept).
    fn candidate(
        &self,
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

/// A steering choice: the candidate's angle and unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// Angle from the desired direction, degrees.
    pub angle_deg: i8,
    /// Unit direction of the step.
    pub direction: Vec2,
}

/// The best fan candidate around `desired` whose scene check, prediction (against `bodies`)
/// and executed step of `step_m` all pass, or the reason the straight candidate was refused.
pub fn steer(
    fan: &Fan,
    bodies: &mut Bodies,
    scene: &mut impl Scene,
    here: Vec2,
    desired: Vec2,
    step_m: f64,
) -> Result<Choice, CandidateRejection> {
    let reach_sq = (SAFETY_DIAMETER_M + step_m) * (SAFETY_DIAMETER_M + step_m);
    let mut straight = CandidateRejection::BodyConflict;
    // A candidate's direction, predicted endpoint and step end (the same values whenever
    // they are computed).
    let geometry = |candidate: &FanCandidate| {
        let direction = candidate.direction(desired);
        let predicted = offset(here, direction, LOOKAHEAD_M);
        (direction, predicted, offset(here, direction, step_m))
    };
    // Once the straight candidate is refused, the predicted tests of all the others are done
    // together (bit `i` for candidate `i`): a walker that found the straight way blocked
    // often tries most of them, and together they overlap rather than wait for each other.
    let mut predicted_clear: Option<u32> = None;
    for (i, candidate) in fan.candidates.iter().enumerate() {
        let (direction, predicted, step_end) = geometry(candidate);
        // Only the straight candidate's refusal reason is kept (the scene's first); for the
        // others the cheaper body tests, which usually refuse a blocked walker's candidate at
        // the first body they meet, go first: the verdict is the same conjunction.
        let verdict = if candidate.angle_deg == 0 {
            scene.candidate(here, step_end, predicted).and_then(|()| {
                (bodies.predicted_clear(here, predicted)
                    && bodies.step_clear(here, step_end, reach_sq))
                .then_some(())
                .ok_or(CandidateRejection::BodyConflict)
            })
        } else {
            let clear = *predicted_clear.get_or_insert_with(|| {
                let mut endpoints = [Vec2::default(); 9];
                for (endpoint, candidate) in endpoints.iter_mut().zip(&fan.candidates[i..]) {
                    *endpoint = geometry(candidate).1;
                }
                let rest = fan.candidates.len() - i;
                bodies.predicted_clear_each(here, &endpoints[..rest]) << i
            });
            ((clear >> i) & 1 == 1 && bodies.step_clear(here, step_end, reach_sq))
                .then_some(())
                .ok_or(CandidateRejection::BodyConflict)
                .and_then(|()| scene.candidate(here, step_end, predicted))
        };
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

/// The executed step from `here` to `endpoint`, checked again against the scene and the bodies
/// at their current positions (those within the safety diameter plus the step of where they
/// were gathered).
#[inline]
pub fn check_executed(
    bodies: &mut Bodies,
    scene: &impl Scene,
    here: Vec2,
    endpoint: Vec2,
) -> Result<(), CandidateRejection> {
    scene.step(here, endpoint)?;
    let (dx, dy) = (endpoint.x - here.x, endpoint.y - here.y);
    let reach = SAFETY_DIAMETER_M + (dx * dx + dy * dy).sqrt();
    bodies
        .step_clear(here, endpoint, reach * reach)
        .then_some(())
        .ok_or(CandidateRejection::BodyConflict)
}

/// The specification's body test on the ground plane (z = 0 for every walker). A pair that already
/// overlaps (bodies placed by something other than a walking step) passes only a candidate
/// that does not bring the mover closer, so overlapping bodies can always separate.
///
/// With a finite horizon every vertical term of [`clear`] is exactly +0, so its arithmetic is
/// done here in the plane, operation for operation (the same roundings; only the sign of a zero
/// can differ, and it is squared away); a non-finite horizon goes through [`clear`] itself.
#[inline]
pub(super) fn body_clear(
    here: Vec2,
    endpoint: Vec2,
    other: Vec2,
    velocity: Vec2,
    horizon_s: f64,
) -> bool {
    let (r0x, r0y) = (here.x - other.x, here.y - other.y);
    let now_sq = r0x * r0x + r0y * r0y;
    if now_sq < SAFETY_DIAMETER_M * SAFETY_DIAMETER_M {
        let then_sq = (endpoint.x - other.x).powi(2) + (endpoint.y - other.y).powi(2);
        return then_sq >= now_sq;
    }
    if !horizon_s.is_finite() {
        return clear(
            [here.x, here.y, 0.0],
            [endpoint.x, endpoint.y, 0.0],
            [other.x, other.y, 0.0],
            [velocity.x, velocity.y, 0.0],
            horizon_s,
        );
    }
    let r1x = endpoint.x - other.x - velocity.x * horizon_s;
    let r1y = endpoint.y - other.y - velocity.y * horizon_s;
    swept_clear((r0x, r0y), (r1x, r1y))
}

/// The planar tail of the specification's body test: the relative position moving from `r0` to `r1`
/// (mover minus body, meters) keeps its closest point to the origin at least the safety
/// diameter away.
#[inline(always)]
pub(super) fn swept_clear((r0x, r0y): (f64, f64), (r1x, r1y): (f64, f64)) -> bool {
    let (dx, dy) = (r1x - r0x, r1y - r0y);
    let length_sq = dx * dx + dy * dy;
    let t = if length_sq > 0.0 {
        (-(r0x * dx + r0y * dy) / length_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (cx, cy) = (r0x + dx * t, r0y + dy * t);
    cx * cx + cy * cy >= SAFETY_DIAMETER_M * SAFETY_DIAMETER_M
}

/// Every other body within `reach_m` (at least the opposing scan) of the mover in `row`, at
/// its current position; `slack_m` is how far a body may be from where the grid bucketed it.
/// Positions, velocities and facings are the grid's (`SpatialGrid::rebuild_bodies`, kept
/// current by `SpatialGrid::update` wherever a mover steps), which equal the agents' columns.
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
    grid.for_each_body_near(here, reach + slack_m, |other, body| {
        let position = body.position;
        let (dx, dy) = (position.x - here.x, position.y - here.y);
        let distance_sq_m2 = dx * dx + dy * dy;
        if distance_sq_m2 <= reach * reach && other as usize != row {
            out.push(Neighbour {
                position,
                velocity: body.velocity,
                facing: body.facing,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The body test exactly as the specification orders it, in three dimensions.
    fn reference(here: Vec2, endpoint: Vec2, other: Vec2, velocity: Vec2, horizon_s: f64) -> bool {
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

    #[test]
    fn the_planar_body_test_gives_the_three_dimensional_verdicts() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut draw = |scale: f64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * scale
        };
        let d = SAFETY_DIAMETER_M;
        let (mut clear_count, mut conflicts) = (0, 0);
        for i in 0..200_000 {
            let here = Vec2 {
                x: draw(500.0),
                y: draw(50.0),
            };
            let endpoint = offset(
                here,
                Vec2 {
                    x: draw(1.0),
                    y: draw(1.0),
                },
                1.0,
            );
            // Some neighbours at (or a hair around) the diameter, some exactly on the path.
            let other = match i % 5 {
                0 => Vec2 {
                    x: here.x - [d, d + 1e-12, d - 1e-12, -d][i % 20 / 5],
                    y: here.y,
                },
                1 => endpoint,
                _ => Vec2 {
                    x: here.x + draw(2.5),
                    y: here.y + draw(2.5),
                },
            };
            let velocity = if i % 7 == 0 {
                Vec2::default()
            } else {
                Vec2 {
                    x: draw(2.0),
                    y: draw(2.0),
                }
            };
            let horizon_s = [0.0, 0.7, 1.0 / 1.4, f64::INFINITY, -0.0][i % 5];
            let want = reference(here, endpoint, other, velocity, horizon_s);
            assert_eq!(
                body_clear(here, endpoint, other, velocity, horizon_s),
                want,
                "{here:?} {endpoint:?} {other:?} {velocity:?} {horizon_s}"
            );
            clear_count += usize::from(want);
            conflicts += usize::from(!want);
        }
        assert!(
            clear_count > 10_000 && conflicts > 10_000,
            "{clear_count} {conflicts}"
        );
    }
}
