//! The bodies one mover's steering candidates are tested against, picked once for all of them
//! ([`Bodies`]): those at another heading (the predicted body test's, each with its relative
//! start and its displacement over the horizon computed once for every candidate) and those an
//! executed step may touch. A walker fills them straight from the grid's columns in one pass
//! that also reads what walking needs before steering (the room behind a moving leader, an
//! oncoming body ahead): [`gather_walker`]; a task movement fills them from its gathered
//! [`Neighbour`]s ([`Bodies::fill`]). Every verdict is an all-of, which the order of the tests
//! never changes, so a body that refuses a candidate moves to the front of its list.

use super::body::SAFETY_DIAMETER_M;
use super::follow::{room_behind_m, Relative, SAME_DIRECTION_COS};
use super::steer::{body_clear, swept_clear, Neighbour};
use super::step::{FOLLOW_MIN_SPEED_M_S, YIELD_CORRIDOR_M};
use super::OPPOSING_SCAN_M;
use crate::project::Vec2;
use crate::sim::spatial::SpatialGrid;

/// A body at another heading, as the predicted test reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Other {
    /// Current position, meters.
    position: Vec2,
    /// `here − position`, meters.
    r0: Vec2,
    /// `velocity × horizon`, meters (the velocity itself when the horizon is not finite).
    w: Vec2,
}

/// A body an executed step may touch: current position and squared distance from where the
/// mover gathered it (each step test filters by its own reach, as the scan over every
/// neighbour did).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Touchable {
    position: Vec2,
    distance_sq_m2: f64,
}

/// The bodies of one mover's candidate tests (buffers reused from mover to mover; entries past
/// the counts are stale).
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// Prediction horizon of the tests, seconds.
    horizon_s: f64,
    others: Vec<Other>,
    other_count: usize,
    touchable: Vec<Touchable>,
    touchable_count: usize,
}

impl Bodies {
    /// The lists of a task movement at `here` heading `axis` over its gathered `neighbours`
    /// (their distances are from where they were gathered), for steps of at most `step_m`.
    pub fn fill(
        &mut self,
        neighbours: &[Neighbour],
        here: Vec2,
        axis: Vec2,
        horizon_s: f64,
        step_m: f64,
    ) {
        let touch_sq = (SAFETY_DIAMETER_M + step_m) * (SAFETY_DIAMETER_M + step_m);
        let mut filing = Filing::new(self, here, horizon_s, touch_sq, neighbours.len());
        for n in neighbours {
            let same = n.facing.x * axis.x + n.facing.y * axis.y >= SAME_DIRECTION_COS;
            filing.file(same, n.position, n.velocity, n.distance_sq_m2);
        }
        filing.done();
    }

    /// The seed's predicted body test of the candidate from `here` predicted to reach
    /// `predicted` against every body at another heading (same-direction bodies are the
    /// following rule's; the executed step still checks them). A body that refuses it moves to
    /// the front, so the next candidate (most often refused by the same body) meets it first.
    pub fn predicted_clear(&mut self, here: Vec2, predicted: Vec2) -> bool {
        let others = &mut self.others[..self.other_count];
        let refused = if self.horizon_s.is_finite() {
            others.iter().position(|o| !other_clear(predicted, o))
        } else {
            others
                .iter()
                .position(|o| !body_clear(here, predicted, o.position, o.w, self.horizon_s))
        };
        match refused {
            Some(k) => {
                others.swap(0, k);
                false
            }
            None => true,
        }
    }

    /// The executed step from `here` to `endpoint` against every body within `reach_sq` of
    /// where the mover gathered them, at their current positions; a refusing body moves to the
    /// front.
    pub fn step_clear(&mut self, here: Vec2, endpoint: Vec2, reach_sq: f64) -> bool {
        let touchable = &mut self.touchable[..self.touchable_count];
        let refused = touchable.iter().position(|t| {
            t.distance_sq_m2 <= reach_sq
                && !body_clear(here, endpoint, t.position, Vec2::default(), 0.0)
        });
        match refused {
            Some(k) => {
                touchable.swap(0, k);
                false
            }
            None => true,
        }
    }

    /// Heap bytes of the buffers.
    pub fn heap_bytes(&self) -> usize {
        self.others.capacity() * std::mem::size_of::<Other>()
            + self.touchable.capacity() * std::mem::size_of::<Touchable>()
    }
}

/// Bodies being filed into a [`Bodies`]' lists: the lists as slices and their counts held in
/// locals, so the hot loop keeps them in registers.
struct Filing<'a> {
    counts: (&'a mut usize, &'a mut usize),
    others: &'a mut [Other],
    touchable: &'a mut [Touchable],
    other_count: usize,
    touchable_count: usize,
    here: Vec2,
    /// The horizon, or 1 when it is not finite (then `w` holds the velocity itself).
    w_per_velocity: f64,
    touch_sq: f64,
}

impl<'a> Filing<'a> {
    /// Empties `bodies` for a mover at `here` whose predictions look `horizon_s` ahead and whose
    /// step tests reach `√touch_sq`, with room for `n` bodies.
    fn new(bodies: &'a mut Bodies, here: Vec2, horizon_s: f64, touch_sq: f64, n: usize) -> Self {
        bodies.horizon_s = horizon_s;
        if bodies.others.len() < n {
            bodies.others.resize(n, Other::default());
        }
        if bodies.touchable.len() < n {
            bodies.touchable.resize(n, Touchable::default());
        }
        Filing {
            counts: (&mut bodies.other_count, &mut bodies.touchable_count),
            others: &mut bodies.others[..n],
            touchable: &mut bodies.touchable[..n],
            other_count: 0,
            touchable_count: 0,
            here,
            w_per_velocity: if horizon_s.is_finite() {
                horizon_s
            } else {
                1.0
            },
            touch_sq,
        }
    }

    /// Files a body (written in place whatever it is, kept only when it counts: branch-free, as
    /// the heading splits a crowd in counter-flow about half and half). `d2` is its squared
    /// distance from where the mover gathered it; `same` when it heads the mover's way.
    #[inline(always)]
    fn file(&mut self, same: bool, position: Vec2, velocity: Vec2, d2: f64) {
        if let Some(slot) = self.others.get_mut(self.other_count) {
            *slot = Other {
                position,
                r0: Vec2 {
                    x: self.here.x - position.x,
                    y: self.here.y - position.y,
                },
                w: Vec2 {
                    x: velocity.x * self.w_per_velocity,
                    y: velocity.y * self.w_per_velocity,
                },
            };
            self.other_count += usize::from(!same);
        }
        // Few bodies are within a step's reach: a well-predicted branch.
        if d2 <= self.touch_sq {
            if let Some(slot) = self.touchable.get_mut(self.touchable_count) {
                *slot = Touchable {
                    position,
                    distance_sq_m2: d2,
                };
                self.touchable_count += 1;
            }
        }
    }

    /// Publishes the counts.
    fn done(self) {
        *self.counts.0 = self.other_count;
        *self.counts.1 = self.touchable_count;
    }
}

/// `steer::body_clear` with a finite horizon for a body whose relative start and displacement
/// were computed once for every candidate: the same operations on the same values.
#[inline(always)]
fn other_clear(endpoint: Vec2, o: &Other) -> bool {
    let Other { position, r0, w } = *o;
    let now_sq = r0.x * r0.x + r0.y * r0.y;
    if now_sq < SAFETY_DIAMETER_M * SAFETY_DIAMETER_M {
        let then_sq = (endpoint.x - position.x).powi(2) + (endpoint.y - position.y).powi(2);
        return then_sq >= now_sq;
    }
    let r1x = endpoint.x - position.x - w.x;
    let r1y = endpoint.y - position.y - w.y;
    swept_clear((r0.x, r0.y), (r1x, r1y))
}

/// What a walker reads of its neighbours before steering.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The step left behind the nearest constraining same-direction leader that is moving
    /// (at most the full step), meters.
    pub followed_step_m: f64,
    /// Whether an oncoming body is ahead within the yield corridor.
    pub oncoming: bool,
}

/// A walker's neighbours in one pass over the grid's columns: every other body within the
/// opposing scan (or the safety diameter plus `full_step_m`, if farther) of `here` (the
/// walker in `row`; `slack_m` is how far a body may be from where the grid bucketed it) is
/// read for following (heading within 45° of `axis`, moving) and the oncoming lean, and filed
/// into `bodies` for predictions over `horizon_s` and for steps of at most `full_step_m`.
/// `slots` is scratch.
#[allow(clippy::too_many_arguments)]
pub fn gather_walker(
    grid: &SpatialGrid,
    row: usize,
    here: Vec2,
    axis: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    slack_m: f64,
    slots: &mut Vec<u32>,
    bodies: &mut Bodies,
) -> Reading {
    let reach = (SAFETY_DIAMETER_M + full_step_m).max(OPPOSING_SCAN_M);
    let reach_sq = reach * reach;
    let own = grid.slot_of(row).unwrap_or(usize::MAX);
    let columns = grid.columns();
    // `slots` only grows; `found` of its entries are this walker's (written branch-free).
    let mut found = 0;
    grid.for_each_run_near(here, reach + slack_m, |run| {
        if slots.len() < found + run.len() {
            slots.resize(found + run.len(), 0);
        }
        for (slot, (x, y)) in run
            .clone()
            .zip(columns.x[run.clone()].iter().zip(&columns.y[run]))
        {
            let (dx, dy) = (x - here.x, y - here.y);
            let d2 = dx * dx + dy * dy;
            slots[found] = slot as u32;
            found += usize::from((d2 <= reach_sq) & (slot != own));
        }
    });
    // A step may touch bodies within the diameter plus the step; a little more is kept, as
    // each step test filters by its own reach.
    let touch_reach_m = SAFETY_DIAMETER_M + full_step_m + 1e-6;
    let mut filing = Filing::new(
        bodies,
        here,
        horizon_s,
        touch_reach_m * touch_reach_m,
        found,
    );
    let limit = FOLLOW_MIN_SPEED_M_S;
    let mut reading = Reading {
        followed_step_m: full_step_m,
        oncoming: false,
    };
    // One length for every column, so each slot is checked once.
    let len = columns.x.len();
    let (x, y, vx, vy, fx, fy) = (
        columns.x,
        &columns.y[..len],
        &columns.vx[..len],
        &columns.vy[..len],
        &columns.fx[..len],
        &columns.fy[..len],
    );
    for &slot in &slots[..found] {
        let slot = slot as usize;
        if slot >= len {
            continue;
        }
        let p = Vec2 {
            x: x[slot],
            y: y[slot],
        };
        let v = Vec2 {
            x: vx[slot],
            y: vy[slot],
        };
        let (dx, dy) = (p.x - here.x, p.y - here.y);
        let d2 = dx * dx + dy * dy;
        // `same_direction(facing, axis)`; against the axis is the same dot product negated
        // (exactly: negation commutes with every rounding), so a body is at most one of them.
        let dot = fx[slot] * axis.x + fy[slot] * axis.y;
        let same = dot >= SAME_DIRECTION_COS;
        let relative = Relative::of(here, axis, p);
        // A moving leader ahead within the diameter sideways (what `room_behind_m` needs to
        // constrain at all): rare, so the branch is well predicted.
        let leads = same
            & (v.x * v.x + v.y * v.y >= limit * limit)
            & (relative.ahead_m > 0.0)
            & (relative.side_m.abs() < SAFETY_DIAMETER_M);
        if leads {
            if let Some(room) = room_behind_m(relative, full_step_m) {
                reading.followed_step_m = reading.followed_step_m.min(room);
            }
        }
        reading.oncoming |= (-dot >= SAME_DIRECTION_COS)
            & (relative.ahead_m > 0.0)
            & (relative.side_m.abs() < YIELD_CORRIDOR_M);
        filing.file(same, p, v, d2);
    }
    filing.done();
    reading
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::walk::follow::same_direction;
    use crate::sim::walk::steer::{gather_neighbours, offset};
    use crate::sim::walk::LOOKAHEAD_M;
    use crate::sim::Agents;

    /// A xorshift stream in [−scale, scale).
    fn stream(mut state: u64) -> impl FnMut(f64) -> f64 {
        move |scale| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * scale
        }
    }

    fn unit(x: f64, y: f64) -> Vec2 {
        let length = x.hypot(y).max(1e-12);
        Vec2 {
            x: x / length,
            y: y / length,
        }
    }

    /// The reading and every candidate's verdicts as walking computed them from the gathered
    /// neighbours before the columns: one scan for the leader and the oncoming lean, the body
    /// test against every body at another heading, the step against every body it can reach.
    fn reference(
        neighbours: &[Neighbour],
        here: Vec2,
        axis: Vec2,
        horizon_s: f64,
        full_step_m: f64,
        endpoints: &[(Vec2, Vec2, f64)],
    ) -> (Reading, Vec<(bool, bool)>) {
        let mut reading = Reading {
            followed_step_m: full_step_m,
            oncoming: false,
        };
        for n in neighbours {
            let relative = Relative::of(here, axis, n.position);
            if same_direction(n.facing, axis) {
                let moving = n.velocity.x.hypot(n.velocity.y) >= FOLLOW_MIN_SPEED_M_S;
                if let Some(room) = room_behind_m(relative, full_step_m).filter(|_| moving) {
                    reading.followed_step_m = reading.followed_step_m.min(room);
                }
            } else if same_direction(
                n.facing,
                Vec2 {
                    x: -axis.x,
                    y: -axis.y,
                },
            ) {
                reading.oncoming |=
                    relative.ahead_m > 0.0 && relative.side_m.abs() < YIELD_CORRIDOR_M;
            }
        }
        let verdicts = endpoints
            .iter()
            .map(|&(predicted, step_end, step_m)| {
                let predicted_ok = neighbours
                    .iter()
                    .filter(|n| !same_direction(n.facing, axis))
                    .all(|n| body_clear(here, predicted, n.position, n.velocity, horizon_s));
                let reach = SAFETY_DIAMETER_M + step_m;
                let step_ok = neighbours
                    .iter()
                    .filter(|n| n.distance_sq_m2 <= reach * reach)
                    .all(|n| body_clear(here, step_end, n.position, Vec2::default(), 0.0));
                (predicted_ok, step_ok)
            })
            .collect();
        (reading, verdicts)
    }

    #[test]
    fn the_columns_give_the_verdicts_of_every_gathered_neighbour() {
        let mut draw = stream(0x9e37_79b9_7f4a_7c15);
        let walkers = 600;
        let mut agents = Agents::default();
        let mut points = Vec::new();
        let (mut velocities, mut facings) = (Vec::new(), Vec::new());
        for i in 0..walkers {
            // A dense strip (about 2 per m²), some bodies exactly on top of one another.
            let p = if i % 50 == 49 {
                points[i - 1]
            } else {
                Vec2 {
                    x: draw(10.0) + 1e4,
                    y: draw(3.5),
                }
            };
            let east = draw(1.0) > 0.0;
            let facing = unit(if east { 1.0 } else { -1.0 } + draw(0.6), draw(0.6));
            let speed = 1.4 + draw(0.3);
            let stalled = i % 9 == 0;
            let v = if stalled {
                Vec2::default()
            } else {
                Vec2 {
                    x: facing.x * speed,
                    y: facing.y * speed,
                }
            };
            points.push(p);
            velocities.push(v);
            facings.push(facing);
        }
        agents.position = points.clone();
        let mut grid = SpatialGrid::default();
        grid.rebuild_bodies(&points, &velocities, &facings, 1.25);
        let (mut slots, mut bodies, mut neighbours) = (Vec::new(), Bodies::default(), Vec::new());
        let (mut filed, mut conflicts, mut clears) = (0usize, 0usize, 0usize);
        for row in 0..walkers {
            let here = points[row];
            let axis = unit(facings[row].x.signum(), 0.0);
            let horizon_s = [LOOKAHEAD_M / 1.4, LOOKAHEAD_M / 1.26, f64::INFINITY][row % 3];
            let full_step_m = [0.07, 0.0, 0.5][row % 3];
            let reading = gather_walker(
                &grid,
                row,
                here,
                axis,
                horizon_s,
                full_step_m,
                0.0,
                &mut slots,
                &mut bodies,
            );
            let reach_m = SAFETY_DIAMETER_M + full_step_m;
            gather_neighbours(&grid, &agents, row, reach_m, 0.0, &mut neighbours);
            let others = neighbours
                .iter()
                .filter(|n| !same_direction(n.facing, axis))
                .count();
            assert_eq!(bodies.other_count, others, "walker {row}");
            filed += others;
            let endpoints: Vec<(Vec2, Vec2, f64)> = (0..24)
                .map(|k| {
                    let direction = unit(draw(1.0), draw(1.0));
                    let step_m = full_step_m * (k % 4) as f64 / 3.0;
                    (
                        offset(here, direction, LOOKAHEAD_M),
                        offset(here, direction, step_m),
                        step_m,
                    )
                })
                .collect();
            let (want, verdicts) =
                reference(&neighbours, here, axis, horizon_s, full_step_m, &endpoints);
            assert_eq!(reading, want, "walker {row}");
            let agree = |bodies: &mut Bodies| {
                for (&(predicted, step_end, step_m), &(predicted_ok, step_ok)) in
                    endpoints.iter().zip(&verdicts)
                {
                    let reach = SAFETY_DIAMETER_M + step_m;
                    assert_eq!(
                        bodies.predicted_clear(here, predicted),
                        predicted_ok,
                        "{row}"
                    );
                    assert_eq!(
                        bodies.step_clear(here, step_end, reach * reach),
                        step_ok,
                        "{row}"
                    );
                }
            };
            agree(&mut bodies);
            conflicts += verdicts.iter().filter(|(ok, _)| !ok).count();
            clears += verdicts.iter().filter(|(ok, _)| *ok).count();
            // A task movement filling the lists from the same neighbours agrees too.
            bodies.fill(&neighbours, here, axis, horizon_s, full_step_m);
            agree(&mut bodies);
        }
        assert!(filed > 10 * walkers, "bodies at another heading: {filed}");
        assert!(conflicts > 1000 && clears > 1000, "{conflicts} {clears}");
    }
}
