//! The bodies one mover's steering candidates are tested against, picked once for all of them
//! ([`Bodies`]): those at another heading (the predicted body test's, as columns of position
//! and observed velocity) and those an executed step may touch. A walker fills them straight
//! from the grid's columns in one pass over the runs the grid hands out, a block of
//! [`LANES`] bodies at a time, that also reads what walking needs before steering (the room
//! behind a moving leader, an oncoming body ahead): [`gather_walker`]; a task movement fills
//! them from its gathered [`Neighbour`]s ([`Bodies::fill`]). Every verdict is an all-of, which
//! the order of the tests never changes, so a body that refuses a candidate moves to the front
//! of its list; several candidates' predicted tests may also run together
//! ([`Bodies::predicted_clear_each`]: the same verdicts, their blocks tested side by side, or,
//! where that is fewer lane tests, each body against all of them in one vector: `by_body`).
//!
//! The blocks and the predicted test run in vector lanes where the CPU has AVX-512 or AVX2
//! (the same code compiled for each, the CPU's best picked at run time by [`multiversion`];
//! the AVX-512 lane masks, and the AVX2 gathering's, written with intrinsics): every lane does
//! exactly the scalar operations in the scalar order (adds, subtractions, products, quotients,
//! square roots and comparisons, never fused), so the verdicts are bit for bit those of the
//! portable path. With AVX-512 every block of a batch of runs is listed first and filed in one
//! loop, without a branch on its lanes: the kept lanes of each column are compressed to the
//! front of a vector written whole after the bodies filed so far; the few blocks with touchable
//! bodies or moving leaders are only recorded, and read again once all are filed (the leaders'
//! room taken once). With AVX2 each half block's kept lanes are moved to the front by one
//! permutation, and touchable bodies and leaders are recorded and read again the same way.
//! A closure that runs lanes is defined inside the `#[target_feature]` function of its build,
//! so it is compiled with that build's features (one defined in the portable function and
//! kept out of line by the compiler runs without them).
//!
//! The grid's columns hold a block of lanes past every slot ([`COLUMN_BLOCK`]), so every path
//! reads whole blocks and masks the lanes past a run: one lane-mask implementation, no scalar
//! tail beside it.
//!
//! A body at another heading that cannot refuse any candidate — far enough that a lookahead
//! cannot bring the walker within the diameter of it, and not moving towards the walker — is
//! left out of the predicted test's list by every path ([`passes_every_candidate`]): the
//! verdicts, all-ofs, are the same, over shorter lists.

// Unsafe code here only calls a `#[target_feature]` function from the build multiversion
// compiled, and runs only, for that feature, and, inside the AVX-512 functions, loads a block of
// a grid column where the column holds it (the grid pads its columns a block past every slot)
// and stores a vector through a pointer into a column reserved just before to hold the eight
// `f64`s written there (each with its `SAFETY:` comment).
#![allow(unsafe_code)]

use multiversion::multiversion;

mod by_body;
#[cfg(target_arch = "x86_64")]
mod lanes;

use super::body::SAFETY_DIAMETER_M;
use super::follow::{room_behind_m, Relative, SAME_DIRECTION_COS};
use super::steer::{body_clear, swept_clear, Neighbour};
use super::step::{FOLLOW_MIN_SPEED_M_S, YIELD_CORRIDOR_M};
use super::{LOOKAHEAD_M, OPPOSING_SCAN_M};
use crate::project::Vec2;
use crate::sim::spatial::{BodyColumns, SpatialGrid, COLUMN_BLOCK};

/// Bodies filed, or tested, together (eight `f64` lanes: one AVX-512 vector; the grid's
/// columns hold whole blocks of them).
const LANES: usize = 8;
const _: () = assert!(COLUMN_BLOCK == LANES);
/// Fewer bodies at another heading than this are tested one by one.
const FEW_OTHERS: usize = 4;

/// A body at another heading at least this far from a walker, and not moving towards it, lets
/// every candidate pass the predicted test (see [`passes_every_candidate`]), meters: the
/// safety diameter plus the lookahead, with a margin far above any rounding.
const PASSED_M: f64 = SAFETY_DIAMETER_M + LOOKAHEAD_M + 1e-3;
/// [`PASSED_M`] squared, m².
const PASSED_SQ_M2: f64 = PASSED_M * PASSED_M;
/// Bodies faster than this (squared, m²/s²) are always filed for the predicted test.
const PASSING_SPEED_SQ: f64 = 1e4;

/// Whether a walker at `here` whose predictions look `horizon_s` ahead leaves out the bodies
/// that let every candidate pass ([`passes_every_candidate`]): only with a horizon and
/// coordinates small enough for the margin of [`PASSED_M`] to hold.
fn leaves_out_passing(here: Vec2, horizon_s: f64) -> bool {
    (0.0..=1e3).contains(&horizon_s) && here.x.abs() <= 1e6 && here.y.abs() <= 1e6
}

/// Whether the body `(dx, dy)` from a walker (its position less the walker's, `d2` that
/// squared as the masks compute it) with velocity `(vx, vy)` lets every candidate pass the
/// predicted test, so that it need not be filed for it (each verdict is an all-of).
///
/// A candidate's predicted endpoint is one lookahead `L` from the walker (its direction is a
/// unit vector), and the test keeps the closest point of the relative motion from `r0 = −d` to
/// `r0 + u − v·h` (`|u| ≤ L`, `h` the horizon) at least the diameter `D` from the origin. When
/// the body does not move towards the walker (`d·v ≥ 0`, so `r0·v·h ≤ 0`),
/// `|r0 − t·v·h| ≥ |r0|`, and every point of that motion is at least `|r0| − t·L ≥ |d| − L`
/// away: at least `D` plus the margin of [`PASSED_M`] when `|d| ≥ PASSED_M`. The margin is
/// far above the rounding of the test's operations with the horizon, speeds and coordinates
/// [`leaves_out_passing`] and [`PASSING_SPEED_SQ`] allow (and the body does not overlap the
/// walker, so the test takes its swept branch).
#[inline(always)]
fn passes_every_candidate((dx, dy): (f64, f64), d2: f64, (vx, vy): (f64, f64)) -> bool {
    let receding = dx * vx + dy * vy;
    let speed_sq = vx * vx + vy * vy;
    (receding >= 0.0) & (d2 >= PASSED_SQ_M2) & (speed_sq < PASSING_SPEED_SQ)
}

/// The bodies at another heading as columns, as the predicted test reads them: current
/// position and observed velocity (the test computes `here − position` and
/// `velocity × horizon` itself: the same operations on the same values as filing them would).
/// The four columns keep one length; entries past the count are stale.
#[derive(Clone, Debug, Default)]
struct Others {
    x: Vec<f64>,
    y: Vec<f64>,
    vx: Vec<f64>,
    vy: Vec<f64>,
}

impl Others {
    /// Makes room for `n` bodies, in whole blocks of [`LANES`] (the columns only grow).
    fn reserve(&mut self, n: usize) {
        let n = n.div_ceil(LANES) * LANES;
        if self.x.len() < n {
            for column in [&mut self.x, &mut self.y, &mut self.vx, &mut self.vy] {
                column.resize(n, 0.0);
            }
        }
    }

    /// Writes body `k` (in room made by [`Others::reserve`]; ignored past it).
    #[inline(always)]
    fn set(&mut self, k: usize, (x, y): (f64, f64), (vx, vy): (f64, f64)) {
        if let (Some(sx), Some(sy), Some(svx), Some(svy)) = (
            self.x.get_mut(k),
            self.y.get_mut(k),
            self.vx.get_mut(k),
            self.vy.get_mut(k),
        ) {
            (*sx, *sy, *svx, *svy) = (x, y, vx, vy);
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        for column in [&mut self.x, &mut self.y, &mut self.vx, &mut self.vy] {
            column.swap(a, b);
        }
    }

    fn position(&self, k: usize) -> Vec2 {
        Vec2 {
            x: self.x[k],
            y: self.y[k],
        }
    }

    fn velocity(&self, k: usize) -> Vec2 {
        Vec2 {
            x: self.vx[k],
            y: self.vy[k],
        }
    }
}

/// The bodies an executed step may touch as columns: current position and squared distance
/// from where the mover gathered it (each step test filters by its own reach, as the scan over
/// every neighbour did). The three columns keep one length; entries past the count are stale.
#[derive(Clone, Debug, Default)]
struct Touchables {
    x: Vec<f64>,
    y: Vec<f64>,
    distance_sq_m2: Vec<f64>,
}

impl Touchables {
    /// Makes room for `n` bodies, in whole blocks of [`LANES`] (the columns only grow).
    fn reserve(&mut self, n: usize) {
        let n = n.div_ceil(LANES) * LANES;
        if self.x.len() < n {
            for column in [&mut self.x, &mut self.y, &mut self.distance_sq_m2] {
                column.resize(n, 0.0);
            }
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        for column in [&mut self.x, &mut self.y, &mut self.distance_sq_m2] {
            column.swap(a, b);
        }
    }

    fn capacity(&self) -> usize {
        self.x.capacity() + self.y.capacity() + self.distance_sq_m2.capacity()
    }
}

/// The moving leaders a walker's vector filing found (ahead within the safety diameter
/// sideways, heading the same way), relative to its route axis, for their room to be taken
/// once all are filed. The two columns keep one length; entries past the count are stale.
#[derive(Clone, Debug, Default)]
struct Leaders {
    ahead_m: Vec<f64>,
    side_m: Vec<f64>,
}

impl Leaders {
    /// Makes room for `n` leaders, in whole blocks of [`LANES`] (the columns only grow).
    fn reserve(&mut self, n: usize) {
        let n = n.div_ceil(LANES) * LANES;
        if self.ahead_m.len() < n {
            for column in [&mut self.ahead_m, &mut self.side_m] {
                column.resize(n, 0.0);
            }
        }
    }
}

/// The bodies of one mover's candidate tests (buffers reused from mover to mover).
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// Prediction horizon of the tests, seconds.
    horizon_s: f64,
    /// Where the mover stood when they were filed.
    here: Vec2,
    others: Others,
    other_count: usize,
    touchable: Touchables,
    touch_count: usize,
    leaders: Leaders,
    lead_count: usize,
    /// The blocks with touchable bodies or moving leaders, as the AVX-512 and AVX2 gatherings
    /// record them (`lanes::gather_avx512`, `lanes::gather_avx2`): first slot, touchable lanes
    /// << 32, leader lanes << 40.
    pending: Vec<u64>,
    /// The blocks of a batch of runs as the AVX-512 gathering lists them: first slot, end of
    /// its run.
    blocks: Vec<(usize, usize)>,
}

impl Bodies {
    /// Empties the lists for a mover at `here` whose predictions look `horizon_s` ahead.
    fn reset(&mut self, here: Vec2, horizon_s: f64) {
        self.horizon_s = horizon_s;
        self.here = here;
        self.other_count = 0;
        self.touch_count = 0;
        self.lead_count = 0;
    }

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
        self.reset(here, horizon_s);
        self.others.reserve(neighbours.len());
        self.touchable.reserve(neighbours.len());
        for n in neighbours {
            let same = n.facing.x * axis.x + n.facing.y * axis.y >= SAME_DIRECTION_COS;
            if !same {
                let (p, v) = (n.position, n.velocity);
                self.others.set(self.other_count, (p.x, p.y), (v.x, v.y));
                self.other_count += 1;
            }
            if n.distance_sq_m2 <= touch_sq {
                let t = &mut self.touchable;
                if let (Some(x), Some(y), Some(d)) = (
                    t.x.get_mut(self.touch_count),
                    t.y.get_mut(self.touch_count),
                    t.distance_sq_m2.get_mut(self.touch_count),
                ) {
                    (*x, *y, *d) = (n.position.x, n.position.y, n.distance_sq_m2);
                    self.touch_count += 1;
                }
            }
        }
    }

    /// The specification's predicted body test of the candidate from `here` predicted to reach
    /// `predicted` against every body at another heading (same-direction bodies are the
    /// following rule's; the executed step still checks them). A body that refuses it moves to
    /// the front, so the next candidate (most often refused by the same body) meets it first.
    pub fn predicted_clear(&mut self, here: Vec2, predicted: Vec2) -> bool {
        let n = self.other_count;
        let refused = if self.horizon_s.is_finite() {
            first_refusal(&self.others, n, self.here, predicted, self.horizon_s)
        } else {
            // The velocity itself stands for the displacement (the 3-D form's infinite terms).
            let others = &self.others;
            (0..n).find(|&k| {
                !body_clear(
                    here,
                    predicted,
                    others.position(k),
                    others.velocity(k),
                    self.horizon_s,
                )
            })
        };
        match refused {
            Some(k) => {
                self.others.swap(0, k);
                false
            }
            None => true,
        }
    }

    /// [`Bodies::predicted_clear`] of the candidates from `here` predicted to reach each of
    /// `predicted` (at most [`MAX_CANDIDATES`]; bit `i` set when `predicted[i]` is clear), all
    /// tested together: the same verdicts (each an all-of over the same bodies), though no
    /// refusing body moves to the front.
    pub fn predicted_clear_each(&mut self, here: Vec2, predicted: &[Vec2]) -> u32 {
        let n = self.other_count;
        // A few bodies are tested one by one, unless body by body pays.
        let few = n < FEW_OTHERS && !by_body::pays(n, predicted.len());
        if !self.horizon_s.is_finite() || few || predicted.len() > MAX_CANDIDATES {
            return (predicted.iter().enumerate()).fold(0, |bits, (i, &p)| {
                bits | u32::from(self.predicted_clear(here, p)) << i
            });
        }
        clear_candidates(&self.others, n, self.here, predicted, self.horizon_s)
    }

    /// The executed step from `here` to `endpoint` against every body within `reach_sq` of
    /// where the mover gathered them, at their current positions; a refusing body moves to the
    /// front.
    pub fn step_clear(&mut self, here: Vec2, endpoint: Vec2, reach_sq: f64) -> bool {
        let n = self.touch_count;
        let t = &self.touchable;
        let (x, y, d) = (&t.x[..n], &t.y[..n], &t.distance_sq_m2[..n]);
        let refused = (0..n).position(|k| {
            let position = Vec2 { x: x[k], y: y[k] };
            d[k] <= reach_sq && !body_clear(here, endpoint, position, Vec2::default(), 0.0)
        });
        match refused {
            Some(k) => {
                self.touchable.swap(0, k);
                false
            }
            None => true,
        }
    }

    /// Heap bytes of the buffers.
    pub fn heap_bytes(&self) -> usize {
        (self.others.x.capacity()
            + self.others.y.capacity()
            + self.others.vx.capacity()
            + self.others.vy.capacity())
            * std::mem::size_of::<f64>()
            + (self.touchable.capacity()
                + self.leaders.ahead_m.capacity()
                + self.leaders.side_m.capacity())
                * std::mem::size_of::<f64>()
            + self.pending.capacity() * std::mem::size_of::<u64>()
            + self.blocks.capacity() * std::mem::size_of::<(usize, usize)>()
    }
}

/// The first of the `n` bodies of `others` that refuses the candidate from `here` predicted to
/// reach `endpoint` over a finite `horizon_s` (vector lanes where the CPU has them).
fn first_refusal(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> Option<usize> {
    // A block of lanes costs more than a few bodies one by one.
    if n < FEW_OTHERS {
        let test = |k: usize| {
            let body = ((others.x[k], others.y[k]), (others.vx[k], others.vy[k]));
            lane_clear(here, endpoint, horizon_s, body.0, body.1)
        };
        return (0..n).find(|&k| !test(k));
    }
    first_refusal_dispatched(others, n, here, endpoint, horizon_s)
}

/// [`first_refusal_portable`] compiled for AVX-512F (its block test in lane masks:
/// [`first_refusal_avx512`]), AVX2 and no extension, the best the CPU has run.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2"), dispatcher = "direct")]
fn first_refusal_dispatched(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> Option<usize> {
    multiversion::target::match_target! {
        "x86_64+avx512f" => {
            // SAFETY: this arm is compiled only into the AVX-512F build, which multiversion
            // runs only where the CPU has AVX-512F.
            unsafe { first_refusal_avx512(others, n, here, endpoint, horizon_s) }
        }
        "x86_64+avx2" => {
            // SAFETY: this arm is compiled only into the AVX2 build, which multiversion runs
            // only where the CPU has AVX2.
            unsafe { first_refusal_avx2(others, n, here, endpoint, horizon_s) }
        }
        _ => first_refusal_portable(others, n, here, endpoint, horizon_s),
    }
}

/// [`first_refusal_portable`] compiled for AVX2: its block test is a closure defined here, so
/// it is compiled with this function's features (the portable function's closure, which the
/// compiler kept out of line, ran without them: two lanes a vector instead of four; written in
/// AVX2 intrinsics as the AVX-512 test is, the block test ran 25 % more instructions, its
/// sixteen vectors of body terms spilled from AVX2's sixteen registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn first_refusal_avx2(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> Option<usize> {
    first_refusal_with(
        |block, held, here, endpoint, horizon_s| {
            block_refusals(block, held, here, endpoint, horizon_s)
        },
        others,
        (n, here, endpoint, horizon_s),
    )
}

/// A value on a cache line of its own (64-byte aligned).
#[repr(align(64))]
struct CacheLine<T>(T);

/// [`first_refusal_portable`] with AVX-512F lane masks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn first_refusal_avx512(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> Option<usize> {
    first_refusal_with(
        |block, held, here, endpoint, horizon_s| {
            // On a 64-byte boundary, so the frame around the loop is too (its vector spills
            // then never straddle cache lines, whatever the callers' frames).
            let mut refused = CacheLine([0]);
            let refusals = &mut refused.0;
            lanes::block_refusals_avx512(block, held, (here, horizon_s), &[endpoint], refusals);
            refused.0[0]
        },
        others,
        (n, here, endpoint, horizon_s),
    )
}

/// [`first_refusal`] a block of [`LANES`] bodies at a time (every lane tested, then the first
/// refusing one taken).
#[inline(always)]
fn first_refusal_portable(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> Option<usize> {
    first_refusal_with(block_refusals, others, (n, here, endpoint, horizon_s))
}

/// [`first_refusal_portable`] with the block test `refusals` (`(n, here, endpoint, horizon)`).
#[inline(always)]
fn first_refusal_with(
    refusals: impl Fn([&[f64; LANES]; 4], usize, Vec2, Vec2, f64) -> u32,
    others: &Others,
    (n, here, endpoint, horizon_s): (usize, Vec2, Vec2, f64),
) -> Option<usize> {
    let (x, y, vx, vy) = (&others.x, &others.y, &others.vx, &others.vy);
    let mut start = 0;
    while start < n {
        // The columns hold whole blocks (entries past `n` are stale and never refuse).
        let (Some(bx), Some(by), Some(bvx), Some(bvy)) = (
            block_at(x, start),
            block_at(y, start),
            block_at(vx, start),
            block_at(vy, start),
        ) else {
            break;
        };
        let block = [bx, by, bvx, bvy];
        let refused = refusals(block, n - start, here, endpoint, horizon_s);
        if refused != 0 {
            return Some(start + refused.trailing_zeros() as usize);
        }
        start += LANES;
    }
    None
}

/// The lanes of `block` (`[x, y, vx, vy]`, the first `held` lanes bodies) that refuse the
/// candidate from `here` predicted to reach `endpoint` over a finite `horizon_s`.
#[inline(always)]
fn block_refusals(
    [bx, by, bvx, bvy]: [&[f64; LANES]; 4],
    held: usize,
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
) -> u32 {
    // Most lanes are decided without the division; a block with one that is not is tested in
    // full.
    let (mut refused, mut undecided) = (0u32, 0u32);
    for lane in 0..LANES {
        let body = ((bx[lane], by[lane]), (bvx[lane], bvy[lane]));
        let (decided, clear) = lane_decided(here, endpoint, horizon_s, body.0, body.1);
        let counts = lane < held;
        refused |= u32::from(!clear & counts) << lane;
        undecided |= u32::from(!decided & counts) << lane;
    }
    if undecided != 0 {
        refused = 0;
        for lane in 0..LANES {
            let body = ((bx[lane], by[lane]), (bvx[lane], bvy[lane]));
            let clear = lane_clear(here, endpoint, horizon_s, body.0, body.1);
            refused |= u32::from(!clear & (lane < held)) << lane;
        }
    }
    refused
}

/// The most candidates [`clear_candidates`] tests at once.
const MAX_CANDIDATES: usize = 16;

/// Which candidates from `here` predicted to reach `endpoints` (at most
/// [`MAX_CANDIDATES`]) every one of the `n` bodies of `others` lets pass over a finite
/// `horizon_s`: bit `i` for `endpoints[i]` (vector lanes where the CPU has them).
fn clear_candidates(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoints: &[Vec2],
    horizon_s: f64,
) -> u32 {
    clear_candidates_dispatched(others, n, here, endpoints, horizon_s)
}

/// [`clear_candidates_portable`] compiled for AVX-512F (its block test in lane masks:
/// [`clear_candidates_avx512`]), AVX2 and no extension, the best the CPU has run.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2"), dispatcher = "direct")]
fn clear_candidates_dispatched(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoints: &[Vec2],
    horizon_s: f64,
) -> u32 {
    multiversion::target::match_target! {
        "x86_64+avx512f" => {
            // SAFETY: this arm is compiled only into the AVX-512F build, which multiversion
            // runs only where the CPU has AVX-512F.
            unsafe { clear_candidates_avx512(others, n, here, endpoints, horizon_s) }
        }
        "x86_64+avx2" => {
            // SAFETY: this arm is compiled only into the AVX2 build, which multiversion runs
            // only where the CPU has AVX2.
            unsafe { clear_candidates_avx2(others, n, here, endpoints, horizon_s) }
        }
        _ => clear_candidates_portable(others, n, here, endpoints, horizon_s),
    }
}

/// [`clear_candidates_portable`] compiled for AVX2: its lane tests are closures defined here,
/// compiled with this function's features (see [`first_refusal_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn clear_candidates_avx2(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoints: &[Vec2],
    horizon_s: f64,
) -> u32 {
    let endpoints = &endpoints[..endpoints.len().min(MAX_CANDIDATES)];
    let motion = (here, horizon_s);
    if by_body::pays(n, endpoints.len()) {
        return by_body::clear_by_body(
            by_body::no_group,
            |motion, body, prepared, group, live| {
                by_body::body_refusals(motion, body, prepared, group, live)
            },
            others,
            (n, motion),
            endpoints,
        );
    }
    clear_candidates_with(
        |block, held, motion, endpoints, refused| {
            each_block_refusals(block, held, motion, endpoints, refused);
        },
        others,
        (n, here, endpoints, horizon_s),
    )
}

/// [`clear_candidates_portable`] with AVX-512F lane masks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn clear_candidates_avx512(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoints: &[Vec2],
    horizon_s: f64,
) -> u32 {
    let endpoints = &endpoints[..endpoints.len().min(MAX_CANDIDATES)];
    if by_body::pays(n, endpoints.len()) {
        let motion = (here, horizon_s);
        return by_body::clear_by_body(
            |group| by_body::lanes::group(group),
            |motion, body, &(gx, gy), group, live| {
                by_body::lanes::body_refusals_avx512(motion, body, (gx, gy), group, live)
            },
            others,
            (n, motion),
            endpoints,
        );
    }
    clear_candidates_with(
        |block, held, motion, endpoints, refused| {
            lanes::block_refusals_avx512(block, held, motion, endpoints, refused);
        },
        others,
        (n, here, endpoints, horizon_s),
    )
}

/// [`clear_candidates`] a block of [`LANES`] bodies at a time, every candidate still clear
/// tested against each block with no branch between them (their tests overlap rather than
/// wait for one another's verdict), until none is left clear or the bodies end.
#[inline(always)]
fn clear_candidates_portable(
    others: &Others,
    n: usize,
    here: Vec2,
    endpoints: &[Vec2],
    horizon_s: f64,
) -> u32 {
    let endpoints = &endpoints[..endpoints.len().min(MAX_CANDIDATES)];
    if by_body::pays(n, endpoints.len()) {
        let motion = (here, horizon_s);
        return by_body::clear_by_body(
            by_body::no_group,
            by_body::body_refusals,
            others,
            (n, motion),
            endpoints,
        );
    }
    clear_candidates_with(each_block_refusals, others, (n, here, endpoints, horizon_s))
}

/// [`block_refusals`] of each of `endpoints`, written to `refusals`.
#[inline(always)]
fn each_block_refusals(
    block: [&[f64; LANES]; 4],
    held: usize,
    (here, horizon_s): (Vec2, f64),
    endpoints: &[Vec2],
    refusals: &mut [u32],
) {
    for (&endpoint, refused) in endpoints.iter().zip(refusals) {
        *refused = block_refusals(block, held, here, endpoint, horizon_s);
    }
}

/// [`clear_candidates_portable`] with the block test `refusals` (`(n, here, endpoints,
/// horizon)`).
#[inline(always)]
fn clear_candidates_with(
    refusals: impl Fn([&[f64; LANES]; 4], usize, (Vec2, f64), &[Vec2], &mut [u32]),
    others: &Others,
    (n, here, endpoints, horizon_s): (usize, Vec2, &[Vec2], f64),
) -> u32 {
    let endpoints = &endpoints[..endpoints.len().min(MAX_CANDIDATES)];
    let mut clear = (1u32 << endpoints.len()) - 1;
    let (x, y, vx, vy) = (&others.x, &others.y, &others.vx, &others.vy);
    let mut start = 0;
    // The candidates still clear, at the front (and which each is): a block tests only
    // those.
    let mut live = [Vec2::default(); MAX_CANDIDATES];
    let mut ids = [0u8; MAX_CANDIDATES];
    let mut count = endpoints.len();
    live[..count].copy_from_slice(endpoints);
    for (i, id) in ids.iter_mut().enumerate() {
        *id = i as u8;
    }
    while start < n && count != 0 {
        // The columns hold whole blocks (entries past `n` are stale and never refuse).
        let (Some(bx), Some(by), Some(bvx), Some(bvy)) = (
            block_at(x, start),
            block_at(y, start),
            block_at(vx, start),
            block_at(vy, start),
        ) else {
            break;
        };
        let block = [bx, by, bvx, bvy];
        let mut refused = [0; MAX_CANDIDATES];
        let motion = (here, horizon_s);
        refusals(block, n - start, motion, &live[..count], &mut refused);
        let mut kept = 0;
        for j in 0..count {
            let refused = refused[j] != 0;
            (live[kept], ids[kept]) = (live[j], ids[j]);
            clear &= !(u32::from(refused) << ids[j]);
            kept += usize::from(!refused);
        }
        count = kept;
        start += LANES;
    }
    clear
}

/// A moving leader at least the safety diameter plus twice the step plus this ahead (meters)
/// leaves a walker its whole step, so the AVX-512 gathering does not file it: its room behind
/// (`ahead − clearance − step`, the clearance `√(D² − side²)` at most `D` and a rounding, the
/// step finite and not negative) is then at least the step, which the reading starts from and
/// only lowers (a minimum); the margin is far above the roundings of those few operations.
const LEAD_MARGIN_M: f64 = 1e-6;

/// Relative margin around the safety diameter's square within which only the division
/// decides: far above the rounding of the swept test's few operations.
const DECIDE_MARGIN: f64 = 1e-9;

/// [`lane_clear`]'s verdict where it is certain without its division: `(decided, clear)`.
///
/// With `r0`, `d = r1 − r0`, `len = |d|²` and `num = r0·d` computed as the swept test computes
/// them: an overlapping pair, and a closest point at the start (`num ≥ 0`, or `len = 0`: the
/// test's `t` is ±0, so it reads `|r0|² ≥ D²`, true) or at the end (`−num ≥ len`: its `t` is
/// 1, and the end is computed here as there) give its verdict exactly. Between them the
/// closest point's squared distance is `|r0|² − num²/len`, compared without the division as
/// `|r0|²·len − num²` against `(D² ± m)·len` with `m = 1e-9 (|r0|² + len + D²)`: beyond the
/// margin the test, whose roundings move that distance by a few ulps of `|r0|² + len`, agrees.
/// Magnitudes outside `1e-100 < len`, `|r0|², len < 1e100` (NaN included) stay undecided.
#[inline(always)]
fn lane_decided(
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
    (x, y): (f64, f64),
    (vx, vy): (f64, f64),
) -> (bool, bool) {
    let k = SAFETY_DIAMETER_M * SAFETY_DIAMETER_M;
    let (r0x, r0y) = (here.x - x, here.y - y);
    let now_sq = r0x * r0x + r0y * r0y;
    let (ex, ey) = (endpoint.x - x, endpoint.y - y);
    let not_closer = ex * ex + ey * ey >= now_sq;
    let (r1x, r1y) = (ex - vx * horizon_s, ey - vy * horizon_s);
    let (dx, dy) = (r1x - r0x, r1y - r0y);
    let len = dx * dx + dy * dy;
    let num = r0x * dx + r0y * dy;
    let (cx, cy) = (r0x + dx, r0y + dy);
    let end_clear = cx * cx + cy * cy >= k;
    let margin = DECIDE_MARGIN * (now_sq + len + k);
    let gap = now_sq * len - num * num;
    let (far, near) = (gap >= (k + margin) * len, gap <= (k - margin) * len);
    let sane = (len > 1e-100) & (len < 1e100) & (now_sq < 1e100);
    let at_start = num >= 0.0;
    let at_end = -num >= len;
    let overlap = now_sq < k;
    let still = (len == 0.0) & (now_sq < 1e100);
    let decided = overlap | still | (sane & (at_start | at_end | far | near));
    let clear = if overlap {
        not_closer
    } else if still | at_start {
        true
    } else if at_end {
        end_clear
    } else {
        far
    };
    (decided, clear)
}

/// `steer::body_clear` with a finite horizon for the body at `(x, y)` with velocity
/// `(vx, vy)`, both branches computed and one taken (so lanes need no branch): the same
/// operations on the same values.
#[inline(always)]
fn lane_clear(
    here: Vec2,
    endpoint: Vec2,
    horizon_s: f64,
    (x, y): (f64, f64),
    (vx, vy): (f64, f64),
) -> bool {
    let (r0x, r0y) = (here.x - x, here.y - y);
    let now_sq = r0x * r0x + r0y * r0y;
    let (ex, ey) = (endpoint.x - x, endpoint.y - y);
    // An overlapping pair passes a candidate that does not bring the mover closer.
    let not_closer = ex * ex + ey * ey >= now_sq;
    let swept = swept_clear((r0x, r0y), (ex - vx * horizon_s, ey - vy * horizon_s));
    if now_sq < SAFETY_DIAMETER_M * SAFETY_DIAMETER_M {
        not_closer
    } else {
        swept
    }
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
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn gather_walker(
    grid: &SpatialGrid,
    row: usize,
    here: Vec2,
    axis: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    slack_m: f64,
    bodies: &mut Bodies,
) -> Reading {
    gather_walker_dispatched(
        grid,
        row,
        here,
        axis,
        horizon_s,
        full_step_m,
        slack_m,
        bodies,
    )
}

/// [`gather_walker`] in the AVX-512F and POPCNT build ([`gather_walker_avx512`]), the AVX2
/// one ([`gather_walker_avx2`]) or the portable one, the best the CPU has run. Its arguments
/// are scalars rather than a tuple, so they arrive in registers (a tuple went through memory,
/// and its first load waited on the caller's stores).
#[multiversion(targets("x86_64+avx512f+popcnt", "x86_64+avx2"), dispatcher = "direct")]
#[allow(clippy::too_many_arguments)]
fn gather_walker_dispatched(
    grid: &SpatialGrid,
    row: usize,
    here: Vec2,
    axis: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    slack_m: f64,
    bodies: &mut Bodies,
) -> Reading {
    multiversion::target::match_target! {
        "x86_64+avx512f+popcnt" => {
            // SAFETY: this arm is compiled only into the AVX-512F and POPCNT build, which
            // multiversion runs only where the CPU has both.
            unsafe {
                gather_walker_avx512(grid, row, here, axis, horizon_s, full_step_m, slack_m, bodies)
            }
        }
        "x86_64+avx2" => {
            // SAFETY: this arm is compiled only into the AVX2 build, which multiversion runs
            // only where the CPU has AVX2.
            unsafe {
                gather_walker_avx2(grid, row, here, axis, horizon_s, full_step_m, slack_m, bodies)
            }
        }
        _ => {
            let motion = (here, axis, horizon_s, full_step_m);
            gather_walker_by(scan_block_portable, grid, row, motion, slack_m, bodies)
        }
    }
}

/// [`gather_walker`] with AVX-512F (and POPCNT, for the counts of the lanes filed): see
/// `lanes::gather_avx512`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
#[allow(clippy::too_many_arguments)]
fn gather_walker_avx512(
    grid: &SpatialGrid,
    row: usize,
    here: Vec2,
    axis: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    slack_m: f64,
    bodies: &mut Bodies,
) -> Reading {
    // Scalars rather than one tuple in memory: the arguments arrive in registers.
    let motion = (here, axis, horizon_s, full_step_m);
    lanes::gather_avx512(grid, row, motion, slack_m, bodies)
}

/// [`gather_walker`] with AVX2: see `lanes::gather_avx2`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn gather_walker_avx2(
    grid: &SpatialGrid,
    row: usize,
    here: Vec2,
    axis: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    slack_m: f64,
    bodies: &mut Bodies,
) -> Reading {
    // Scalars rather than one tuple in memory: the arguments arrive in registers.
    let motion = (here, axis, horizon_s, full_step_m);
    lanes::gather_avx2(grid, row, motion, slack_m, bodies)
}

/// [`gather_walker`] filing each run with `file_run` (`motion`: here, axis, horizon, full
/// step).
#[inline(always)]
fn gather_walker_by(
    file_block: impl Fn(&mut Scan<'_>, &BodyColumns<'_>, usize, u32),
    grid: &SpatialGrid,
    row: usize,
    (here, axis, horizon_s, full_step_m): (Vec2, Vec2, f64, f64),
    slack_m: f64,
    bodies: &mut Bodies,
) -> Reading {
    let (reach, touch_reach_m, held) = begin_gathering(grid, here, horizon_s, full_step_m, bodies);
    // Each run a block of `LANES` slots at a time (the last block of a run reads the slots
    // after it too, which the grid's padding holds: whatever they hold, their lanes are not
    // found), with room made for the run and a whole block past it (every lane of a block is
    // written).
    let columns = grid.columns();
    let mut scan = Scan {
        here,
        axis,
        reach_sq: reach * reach,
        touch_sq: touch_reach_m * touch_reach_m,
        own: grid.slot_of(row).unwrap_or(usize::MAX),
        full_step_m,
        leave_out: if leaves_out_passing(here, horizon_s) {
            u32::MAX
        } else {
            0
        },
        reading: Reading {
            followed_step_m: full_step_m,
            oncoming: false,
        },
        bodies,
    };
    grid.for_each_run_near(here, reach + slack_m, |run| {
        // A run the columns do not hold with a block past it (never handed out: the grid pads
        // them) is left out whole.
        if run.end + LANES > held {
            return;
        }
        let b = &mut *scan.bodies;
        b.others.reserve(b.other_count + run.len() + LANES);
        b.touchable.reserve(b.touch_count + run.len() + LANES);
        b.leaders.reserve(b.lead_count + run.len() + LANES);
        let mut first = run.start;
        while first < run.end {
            let valid = (run.end - first).min(LANES);
            file_block(&mut scan, &columns, first, u32::MAX >> (32 - valid));
            first += LANES;
        }
    });
    scan.reading
}

/// One walker's pass over the runs: what it reads, and the lists being filed.
struct Scan<'a> {
    here: Vec2,
    axis: Vec2,
    reach_sq: f64,
    touch_sq: f64,
    /// The walker's own slot (never its own neighbour).
    own: usize,
    full_step_m: f64,
    /// Every lane when the bodies that let every candidate pass are left out, else none.
    leave_out: u32,
    reading: Reading,
    bodies: &'a mut Bodies,
}

/// [`scan_block_with`] with scalar lane masks.
/// What every gathering path sets up first: the bodies are reset around `here`, and it returns
/// the scan's reach, the reach within which a step may touch a body (the diameter plus the step,
/// and a little more, as each step test filters by its own reach), and how many slots every body
/// column holds.
#[inline(always)]
fn begin_gathering(
    grid: &SpatialGrid,
    here: Vec2,
    horizon_s: f64,
    full_step_m: f64,
    bodies: &mut Bodies,
) -> (f64, f64, usize) {
    let reach = (SAFETY_DIAMETER_M + full_step_m).max(OPPOSING_SCAN_M);
    let touch_reach_m = SAFETY_DIAMETER_M + full_step_m + 1e-6;
    bodies.reset(here, horizon_s);
    let columns = grid.columns();
    // One by one rather than through an array's `map` (which the AVX-512 gathering called).
    let held = (columns.x.len().min(columns.y.len()))
        .min(columns.vx.len().min(columns.vy.len()))
        .min(columns.fx.len().min(columns.fy.len()));
    (reach, touch_reach_m, held)
}

fn scan_block_portable(scan: &mut Scan<'_>, columns: &BodyColumns<'_>, first: usize, valid: u32) {
    scan_block_with(scan, columns, first, valid, |scan, first, valid, block| {
        let mut tests = scan.masks::<LANES>(block);
        tests.found &= valid;
        scan.file(first, tests, block, |bodies, others, block| {
            bodies.file_others::<LANES>(others, block)
        });
    });
}

/// The tests of a block of bodies, one bit per lane (lane 0 the lowest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Masks {
    /// Within the reach (the walker itself included).
    found: u32,
    /// Facing within 45° of the axis.
    same: u32,
    /// Facing within 45° of the reverse axis.
    against: u32,
    /// Within a step's reach.
    touch: u32,
    /// Moving at least the following speed.
    moving: u32,
    /// Ahead and within the safety diameter sideways.
    in_line: u32,
    /// Ahead and within the yield corridor sideways.
    in_corridor: u32,
    /// Letting every candidate pass ([`passes_every_candidate`]).
    passing: u32,
}

/// Files the block of [`LANES`] slots from `first` (the lanes its run holds set in `valid`,
/// the lowest ones) with `file_block` (the columns hold a block from every slot of a run: the
/// grid pads them, and the gathering leaves out a run they do not).
#[inline(always)]
fn scan_block_with(
    scan: &mut Scan<'_>,
    columns: &BodyColumns<'_>,
    first: usize,
    valid: u32,
    file_block: impl Fn(&mut Scan<'_>, usize, u32, [&[f64; LANES]; 6]),
) {
    let [x, y, vx, vy, fx, fy] = [
        columns.x, columns.y, columns.vx, columns.vy, columns.fx, columns.fy,
    ];
    let chunk = |column| block_at(column, first);
    if let (Some(bx), Some(by), Some(bvx), Some(bvy), Some(bfx), Some(bfy)) = (
        chunk(x),
        chunk(y),
        chunk(vx),
        chunk(vy),
        chunk(fx),
        chunk(fy),
    ) {
        file_block(scan, first, valid, [bx, by, bvx, bvy, bfx, bfy]);
    }
}

/// The [`LANES`] entries of `column` from `first`, if it holds them.
#[inline(always)]
fn block_at(column: &[f64], first: usize) -> Option<&[f64; LANES]> {
    column.get(first..).and_then(<[f64]>::first_chunk::<LANES>)
}

impl Scan<'_> {
    /// The tests of the `N` bodies `[x, y, vx, vy, fx, fy]`, one lane at a time.
    #[inline(always)]
    fn masks<const N: usize>(&self, [x, y, vx, vy, fx, fy]: [&[f64; N]; 6]) -> Masks {
        let (here, axis) = (self.here, self.axis);
        let limit = FOLLOW_MIN_SPEED_M_S;
        let bit = |condition: bool, lane: usize| u32::from(condition) << lane;
        let mut m = Masks::default();
        for lane in 0..N {
            let (dx, dy) = (x[lane] - here.x, y[lane] - here.y);
            let d2 = dx * dx + dy * dy;
            // `same_direction(facing, axis)`; against the axis is the same dot product negated
            // (exactly: negation commutes with every rounding), so a body is at most one.
            let dot = fx[lane] * axis.x + fy[lane] * axis.y;
            // `Relative::of(here, axis, position)`.
            let (ahead, side) = (dx * axis.x + dy * axis.y, axis.x * dy - axis.y * dx);
            let speed_sq = vx[lane] * vx[lane] + vy[lane] * vy[lane];
            m.found |= bit(d2 <= self.reach_sq, lane);
            m.same |= bit(dot >= SAME_DIRECTION_COS, lane);
            m.against |= bit(-dot >= SAME_DIRECTION_COS, lane);
            m.touch |= bit(d2 <= self.touch_sq, lane);
            m.moving |= bit(speed_sq >= limit * limit, lane);
            let ahead = ahead > 0.0;
            m.in_line |= bit(ahead & (side.abs() < SAFETY_DIAMETER_M), lane);
            m.in_corridor |= bit(ahead & (side.abs() < YIELD_CORRIDOR_M), lane);
            m.passing |= bit(
                passes_every_candidate((dx, dy), d2, (vx[lane], vy[lane])),
                lane,
            );
        }
        m
    }

    /// Reads and files the `N` bodies from `first_slot` on (`[x, y, vx, vy, fx, fy]`) whose
    /// tests are `m`: the oncoming lean, the rare leaders and touchable bodies (in slot order,
    /// their values recomputed with the same operations), and the bodies at another heading.
    #[inline(always)]
    fn file<const N: usize>(
        &mut self,
        first_slot: usize,
        m: Masks,
        block: [&[f64; N]; 6],
        file_others: impl Fn(&mut Bodies, u32, [&[f64; N]; 4]),
    ) {
        const { assert!(N.is_power_of_two() && N <= 32) };
        let [x, y, vx, vy, _, _] = block;
        let mut found = m.found;
        if self.own.wrapping_sub(first_slot) < N {
            found &= !(1 << (self.own - first_slot));
        }
        if found == 0 {
            return;
        }
        self.reading.oncoming |= found & m.against & m.in_corridor != 0;
        // A moving leader ahead within the diameter sideways (what `room_behind_m` needs to
        // constrain at all), and bodies within a step's reach: few, so well-predicted.
        let leads = found & m.same & m.moving & m.in_line;
        let walker = (self.here, self.axis, self.full_step_m);
        let followed = &mut self.reading.followed_step_m;
        *followed = room_behind_leads(walker, leads, [x, y], *followed);
        if found & m.touch != 0 {
            self.bodies
                .file_touchable::<N>(self.here, found & m.touch, [x, y]);
        }
        // Same-direction flows leave most blocks without one (a well-predicted branch).
        let others = found & !m.same & !(m.passing & self.leave_out);
        if others != 0 {
            file_others(self.bodies, others, [x, y, vx, vy]);
        }
    }
}

/// `followed_m` lowered to the room behind each leader of `leads` (lanes of the block
/// `[x, y]`), for a walker at `here` on `axis` stepping `full_step_m` (`room_behind_m`, lane
/// by lane in lane order).
#[inline(always)]
fn room_behind_leads<const N: usize>(
    (here, axis, full_step_m): (Vec2, Vec2, f64),
    mut leads: u32,
    [x, y]: [&[f64; N]; 2],
    mut followed_m: f64,
) -> f64 {
    while leads != 0 {
        let lane = leads.trailing_zeros() as usize % N;
        leads &= leads - 1;
        let position = Vec2 {
            x: x[lane],
            y: y[lane],
        };
        let leader = Relative::of(here, axis, position);
        if let Some(room) = room_behind_m(leader, full_step_m) {
            followed_m = followed_m.min(room);
        }
    }
    followed_m
}

impl Bodies {
    /// Writes the `N` bodies at `[x, y]` after the touchable bodies filed so far with their
    /// squared distance from `here` (recomputed with the masks' operations), each in place
    /// whatever it is, kept only when its bit of `touch` is set.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn file_touchable<const N: usize>(&mut self, here: Vec2, touch: u32, [x, y]: [&[f64; N]; 2]) {
        let start = self.touch_count;
        let t = &mut self.touchable;
        // The gathering made room for every run and a whole block past them.
        let (Some(sx), Some(sy), Some(sd)) = (
            t.x.get_mut(start..start + N),
            t.y.get_mut(start..start + N),
            t.distance_sq_m2.get_mut(start..start + N),
        ) else {
            return;
        };
        let mut k = 0;
        for lane in 0..N {
            // `k ≤ lane < N`, and `N` is a power of two.
            let slot = k & (N - 1);
            let (dx, dy) = (x[lane] - here.x, y[lane] - here.y);
            (sx[slot], sy[slot], sd[slot]) = (x[lane], y[lane], dx * dx + dy * dy);
            k += ((touch >> lane) & 1) as usize;
        }
        self.touch_count += k;
    }

    /// Writes the `N` bodies `[x, y, vx, vy]` after the bodies at another heading filed so
    /// far, each in place whatever it is, kept only when its bit of `others` is set (the
    /// heading splits a crowd in counter-flow about half and half: no branch).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn file_others<const N: usize>(&mut self, others: u32, [x, y, vx, vy]: [&[f64; N]; 4]) {
        let bodies = self;
        let start = bodies.other_count;
        // `reserve` made room for the whole run, so for every block of it.
        let (Some(sx), Some(sy), Some(svx), Some(svy)) = (
            bodies.others.x.get_mut(start..start + N),
            bodies.others.y.get_mut(start..start + N),
            bodies.others.vx.get_mut(start..start + N),
            bodies.others.vy.get_mut(start..start + N),
        ) else {
            return;
        };
        let mut k = 0;
        for lane in 0..N {
            // `k ≤ lane < N`, and `N` is a power of two.
            let slot = k & (N - 1);
            (sx[slot], sy[slot], svx[slot], svy[slot]) = (x[lane], y[lane], vx[lane], vy[lane]);
            k += ((others >> lane) & 1) as usize;
        }
        bodies.other_count += k;
    }
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
        let (mut bodies, mut neighbours) = (Bodies::default(), Vec::new());
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
                &mut bodies,
            );
            let reach_m = SAFETY_DIAMETER_M + full_step_m;
            gather_neighbours(&grid, &agents, row, reach_m, 0.0, &mut neighbours);
            // Those at another heading, less the ones that let every candidate pass.
            let leave_out = leaves_out_passing(here, horizon_s);
            let others = neighbours
                .iter()
                .filter(|n| !same_direction(n.facing, axis))
                .filter(|n| {
                    let d = (n.position.x - here.x, n.position.y - here.y);
                    let v = (n.velocity.x, n.velocity.y);
                    !(leave_out && passes_every_candidate(d, n.distance_sq_m2, v))
                })
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

    /// What a walker's gathering leaves: its reading, the bodies at another heading (position
    /// and velocity, in order) and the touchable ones.
    type Gathered = (Reading, Vec<[f64; 4]>, Vec<[f64; 3]>);

    fn gathered(reading: Reading, bodies: &Bodies) -> Gathered {
        let o = &bodies.others;
        let others = (0..bodies.other_count)
            .map(|k| [o.x[k], o.y[k], o.vx[k], o.vy[k]])
            .collect();
        let t = &bodies.touchable;
        let touchable = (0..bodies.touch_count)
            .map(|k| [t.x[k], t.y[k], t.distance_sq_m2[k]])
            .collect();
        (reading, others, touchable)
    }

    /// Bodies on and around the tests' boundaries (at exactly the reach, the step's reach, the
    /// diameter and the corridor sideways, exactly 45° off the axis, exactly the following
    /// speed, exactly abreast) around a walker at `(x0, 0)` heading +x, then random ones.
    fn boundary_crowd(draw: &mut impl FnMut(f64) -> f64, x0: f64) -> Vec<(Vec2, Vec2, Vec2)> {
        let diagonal = std::f64::consts::FRAC_1_SQRT_2;
        let facings = [
            Vec2 { x: 1.0, y: 0.0 },
            Vec2 { x: -1.0, y: 0.0 },
            Vec2 {
                x: diagonal,
                y: diagonal,
            },
            Vec2 {
                x: -diagonal,
                y: -diagonal,
            },
            Vec2 { x: 0.0, y: 1.0 },
        ];
        let offsets = [
            (2.5, 0.0),
            (-2.5, 0.0),
            (0.0, 2.5),
            (0.0, SAFETY_DIAMETER_M),
            (1.0, SAFETY_DIAMETER_M),
            (1.0, -SAFETY_DIAMETER_M),
            (1.0, YIELD_CORRIDOR_M),
            (0.0, 0.5),
            (0.7, 0.0),
            (SAFETY_DIAMETER_M + 0.07, 0.0),
            (0.0, 0.0),
            // Where a leader's room behind is the whole step (of 0.07 and 0.5 m), and a hair
            // past it.
            (SAFETY_DIAMETER_M + 0.14, 0.0),
            (SAFETY_DIAMETER_M + 1.0, 0.0),
            (SAFETY_DIAMETER_M + 0.14 + 1e-6, 1e-9),
            (SAFETY_DIAMETER_M + 1.0 + 2e-6, 0.0),
        ];
        let mut crowd = vec![(Vec2 { x: x0, y: 0.0 }, facings[0], Vec2 { x: 1.4, y: 0.0 })];
        for (k, &(dx, dy)) in offsets.iter().enumerate() {
            for (f, &facing) in facings.iter().enumerate() {
                let speed = [FOLLOW_MIN_SPEED_M_S, 0.0, 1.4][(k + f) % 3];
                let velocity = Vec2 {
                    x: facing.x * speed,
                    y: facing.y * speed,
                };
                crowd.push((Vec2 { x: x0 + dx, y: dy }, facing, velocity));
            }
        }
        for _ in 0..40 {
            let facing = unit(draw(1.0), draw(1.0));
            let p = Vec2 {
                x: x0 + draw(3.0),
                y: draw(3.0),
            };
            crowd.push((
                p,
                facing,
                Vec2 {
                    x: draw(2.0),
                    y: draw(2.0),
                },
            ));
        }
        crowd
    }

    #[test]
    fn every_instruction_path_files_and_reads_as_the_portable_one() {
        let paths = crate::simd_paths::report("walk gathering", &["AVX-512", "AVX2"]);
        let mut draw = stream(0x51_7cc1_b727_220a);
        let (mut points, mut velocities, mut facings) = (Vec::new(), Vec::new(), Vec::new());
        for centre in 0..12 {
            for (p, facing, v) in boundary_crowd(&mut draw, 1e4 + 20.0 * f64::from(centre)) {
                points.push(p);
                facings.push(facing);
                velocities.push(v);
            }
        }
        let mut grid = SpatialGrid::default();
        grid.rebuild_bodies(&points, &velocities, &facings, 1.25);
        let mut bodies = Bodies::default();
        let (mut leaders, mut oncoming, mut touched) = (0, 0, 0);
        for row in 0..points.len() {
            let full_step_m = [0.07, 0.0, 0.5][row % 3];
            let axis = if row % 4 == 3 {
                unit(1.0, 0.3)
            } else {
                Vec2 { x: 1.0, y: 0.0 }
            };
            let (here, step) = (points[row], full_step_m);
            let motion = (here, axis, 0.7, step);
            let reading =
                gather_walker_by(scan_block_portable, &grid, row, motion, 0.0, &mut bodies);
            let want = gathered(reading, &bodies);
            leaders += usize::from(want.0.followed_step_m < full_step_m);
            oncoming += usize::from(want.0.oncoming);
            touched += want.2.len();
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("popcnt")
                {
                    // SAFETY: the CPU supports AVX-512F and POPCNT, detected just above.
                    let reading = unsafe {
                        gather_walker_avx512(&grid, row, here, axis, 0.7, step, 0.0, &mut bodies)
                    };
                    assert_eq!(gathered(reading, &bodies), want, "avx512, walker {row}");
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2, detected just above.
                    let reading = unsafe {
                        gather_walker_avx2(&grid, row, here, axis, 0.7, step, 0.0, &mut bodies)
                    };
                    assert_eq!(gathered(reading, &bodies), want, "avx2, walker {row}");
                }
            }
            let reading = gather_walker(&grid, row, here, axis, 0.7, step, 0.0, &mut bodies);
            let at = format!("dispatched ({}), walker {row}", paths.best);
            assert_eq!(gathered(reading, &bodies), want, "{at}");
        }
        assert!(
            leaders > 50 && oncoming > 50 && touched > 500,
            "{leaders} {oncoming} {touched}"
        );
    }

    #[test]
    fn every_instruction_path_finds_the_first_refusal_of_the_body_test() {
        let paths = crate::simd_paths::report("walk first refusal", &["AVX-512", "AVX2"]);
        let mut draw = stream(0x2545_f491_4f6c_dd1d);
        let d = SAFETY_DIAMETER_M;
        let (mut refusals, mut clears) = (0, 0);
        for case in 0..20_000 {
            let here = Vec2 {
                x: 1e4 + draw(100.0),
                y: draw(10.0),
            };
            let endpoint = offset(here, unit(draw(1.0), draw(1.0)), 1.0);
            let horizon_s = [0.7, 1.0 / 1.4, 0.0, 5.0][case % 4];
            let n = case % 37;
            let mut others = Others::default();
            others.reserve(n);
            for k in 0..n {
                // Bodies at (or a hair around) the diameter, on the path, on top of the mover,
                // with displacements that end exactly where the mover starts.
                let position = match (case + k) % 7 {
                    0 => Vec2 {
                        x: here.x - [d, d + 1e-12, d - 1e-12, -d][k % 4],
                        y: here.y,
                    },
                    1 => endpoint,
                    2 => here,
                    _ => Vec2 {
                        x: here.x + draw(3.0),
                        y: here.y + draw(3.0),
                    },
                };
                let velocity = match (case + k) % 5 {
                    0 => Vec2::default(),
                    1 if horizon_s > 0.0 => Vec2 {
                        x: (endpoint.x - here.x) / horizon_s,
                        y: (endpoint.y - here.y) / horizon_s,
                    },
                    _ => Vec2 {
                        x: draw(2.0),
                        y: draw(2.0),
                    },
                };
                // Only the first few bodies conflict, so later blocks are reached too.
                let position = if k > 2 && case % 3 == 0 {
                    Vec2 {
                        x: position.x + 40.0,
                        y: position.y,
                    }
                } else {
                    position
                };
                others.set(k, (position.x, position.y), (velocity.x, velocity.y));
            }
            let want = (0..n).find(|&k| {
                !body_clear(
                    here,
                    endpoint,
                    others.position(k),
                    others.velocity(k),
                    horizon_s,
                )
            });
            refusals += usize::from(want.is_some());
            clears += usize::from(want.is_none());
            assert_eq!(
                first_refusal_portable(&others, n, here, endpoint, horizon_s),
                want
            );
            #[cfg(target_arch = "x86_64")]
            if paths.avx512 {
                let h = horizon_s;
                // SAFETY: the CPU supports AVX-512F, detected by `report`.
                let got = unsafe { first_refusal_avx512(&others, n, here, endpoint, h) };
                assert_eq!(got, want, "avx512, case {case}");
            }
            #[cfg(target_arch = "x86_64")]
            if paths.avx2 {
                // SAFETY: the CPU supports AVX2, detected by `report`.
                let got = unsafe { first_refusal_avx2(&others, n, here, endpoint, horizon_s) };
                assert_eq!(got, want, "AVX2 build, case {case}");
            }
            let got = first_refusal(&others, n, here, endpoint, horizon_s);
            assert_eq!(got, want, "dispatched ({}), case {case}", paths.best);
        }
        assert!(refusals > 5_000 && clears > 2_000, "{refusals} {clears}");
    }

    /// A random walker `here` (with one of four horizons) among `n` bodies around it
    /// ([`crowd_around`]) and `count` candidate endpoints a metre away.
    fn random_case(
        draw: &mut impl FnMut(f64) -> f64,
        case: usize,
        n: usize,
        count: usize,
    ) -> (Vec2, f64, Others, Vec<Vec2>) {
        let here = Vec2 {
            x: 1e4 + draw(100.0),
            y: draw(10.0),
        };
        let horizon_s = [0.7, 1.0 / 1.4, 0.0, 5.0][case % 4];
        let others = crowd_around(draw, here, n, case);
        let endpoints = (0..count)
            .map(|_| offset(here, unit(draw(1.0), draw(1.0)), 1.0))
            .collect();
        (here, horizon_s, others, endpoints)
    }

    /// The verdicts of the reference body test: bit `i` set when `endpoints[i]` is clear of
    /// every one of the first `n` bodies.
    fn reference_verdicts(
        others: &Others,
        n: usize,
        here: Vec2,
        endpoints: &[Vec2],
        horizon_s: f64,
    ) -> u32 {
        endpoints
            .iter()
            .enumerate()
            .fold(0u32, |bits, (i, &endpoint)| {
                let ok = (0..n).all(|k| {
                    body_clear(
                        here,
                        endpoint,
                        others.position(k),
                        others.velocity(k),
                        horizon_s,
                    )
                });
                bits | u32::from(ok) << i
            })
    }

    /// `n` bodies at (or a hair around) the diameter from `here`, on top of it, or around it;
    /// far ones in later blocks, so some candidates are clear.
    fn crowd_around(
        draw: &mut impl FnMut(f64) -> f64,
        here: Vec2,
        n: usize,
        case: usize,
    ) -> Others {
        let d = SAFETY_DIAMETER_M;
        let mut others = Others::default();
        others.reserve(n);
        for k in 0..n {
            let position = match (case + k) % 5 {
                0 => Vec2 {
                    x: here.x - [d, d + 1e-12, d - 1e-12, -d][k % 4],
                    y: here.y,
                },
                1 => here,
                _ => Vec2 {
                    x: here.x + draw(3.0) + if k > 1 { 3.0 } else { 0.0 },
                    y: here.y + draw(3.0),
                },
            };
            let velocity = (draw(2.0), draw(2.0));
            others.set(k, (position.x, position.y), velocity);
        }
        others
    }

    #[test]
    fn every_instruction_path_tests_candidates_together_as_one_by_one() {
        let paths = crate::simd_paths::report("walk candidates together", &["AVX-512", "AVX2"]);
        let mut draw = stream(0x6a09_e667_f3bc_c908);
        let (mut clear, mut refused) = (0, 0);
        for case in 0..4_000 {
            let (n, count) = (case % 29, 1 + case % MAX_CANDIDATES);
            let (here, horizon_s, others, endpoints) = random_case(&mut draw, case, n, count);
            let want = reference_verdicts(&others, n, here, &endpoints, horizon_s);
            clear += want.count_ones();
            refused += count as u32 - want.count_ones();
            let portable = clear_candidates_portable(&others, n, here, &endpoints, horizon_s);
            assert_eq!(portable, want, "case {case}");
            #[cfg(target_arch = "x86_64")]
            if paths.avx512 {
                let h = horizon_s;
                // SAFETY: the CPU supports AVX-512F, detected by `report`.
                let got = unsafe { clear_candidates_avx512(&others, n, here, &endpoints, h) };
                assert_eq!(got, want, "avx512, case {case}");
            }
            #[cfg(target_arch = "x86_64")]
            if paths.avx2 {
                // SAFETY: the CPU supports AVX2, detected by `report`.
                let got = unsafe { clear_candidates_avx2(&others, n, here, &endpoints, horizon_s) };
                assert_eq!(got, want, "AVX2 build, case {case}");
            }
            let got = clear_candidates(&others, n, here, &endpoints, horizon_s);
            assert_eq!(got, want, "dispatched ({}), case {case}", paths.best);
            // Through the lists, one by one or together.
            let mut bodies = Bodies {
                horizon_s,
                here,
                others: others.clone(),
                other_count: n,
                ..Bodies::default()
            };
            assert_eq!(bodies.predicted_clear_each(here, &endpoints), want);
            let one_by_one = (endpoints.iter().enumerate()).fold(0u32, |bits, (i, &p)| {
                bits | u32::from(bodies.predicted_clear(here, p)) << i
            });
            assert_eq!(one_by_one, want, "case {case}");
        }
        assert!(clear > 2_000 && refused > 10_000, "{clear} {refused}");
    }

    #[test]
    fn candidates_tested_body_by_body_get_the_verdicts_of_the_body_test() {
        let mut draw = stream(0x3c6e_f372_fe94_f82b);
        let (mut clear, mut refused) = (0, 0);
        for case in 0..6_000 {
            let (n, count) = (case % 23, 1 + (case / 23) % 32);
            let (here, horizon_s, others, endpoints) = random_case(&mut draw, case, n, count);
            let want = reference_verdicts(&others, n, here, &endpoints, horizon_s);
            clear += want.count_ones();
            refused += count as u32 - want.count_ones();
            let motion = (here, horizon_s);
            let portable = by_body::clear_by_body(
                by_body::no_group,
                by_body::body_refusals,
                &others,
                (n, motion),
                &endpoints,
            );
            assert_eq!(portable, want, "portable, case {case}");
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU supports AVX-512F, detected just above.
                    let got = unsafe { clear_by_body_avx512(&others, n, motion, &endpoints) };
                    assert_eq!(got, want, "avx512, case {case}");
                }
            }
        }
        assert!(clear > 5_000 && refused > 20_000, "{clear} {refused}");
    }

    /// [`by_body::clear_by_body`] with the AVX-512 lane test.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn clear_by_body_avx512(
        others: &Others,
        n: usize,
        motion: (Vec2, f64),
        endpoints: &[Vec2],
    ) -> u32 {
        by_body::clear_by_body(
            |group| by_body::lanes::group(group),
            |motion, body, &(gx, gy), group, live| {
                by_body::lanes::body_refusals_avx512(motion, body, (gx, gy), group, live)
            },
            others,
            (n, motion),
            endpoints,
        )
    }

    #[test]
    fn a_body_left_out_lets_every_candidate_pass() {
        let mut draw = stream(0x2b99_2ddf_a232_49d6);
        let (mut left_out, mut kept) = (0, 0);
        for case in 0..400_000 {
            // Walkers anywhere the leaving out allows, bodies on and just past the distance,
            // moving away, across or not at all, at any speed it allows, over any horizon.
            let scale = [1.0, 1e3, 1e6][case % 3];
            let here = Vec2 {
                x: draw(scale),
                y: draw(scale),
            };
            let horizon_s = [LOOKAHEAD_M / 1.4, draw(0.5).abs() * 2e3, 1e3, 0.0][case % 4];
            let toward = unit(draw(1.0), draw(1.0));
            let distance_m = PASSED_M + [0.0, 1e-12, draw(1e-3).abs(), draw(1.0).abs()][case % 4];
            let p = offset(here, toward, distance_m);
            let speed = [0.0, 1.4, draw(100.0).abs(), 99.999][case % 4];
            let across = Vec2 {
                x: -toward.y,
                y: toward.x,
            };
            let heading = match case % 5 {
                0 => across,
                1 => toward,
                _ => unit(toward.x + draw(1.0), toward.y + draw(1.0)),
            };
            let v = Vec2 {
                x: heading.x * speed,
                y: heading.y * speed,
            };
            let (dx, dy) = (p.x - here.x, p.y - here.y);
            if !(leaves_out_passing(here, horizon_s)
                && passes_every_candidate((dx, dy), dx * dx + dy * dy, (v.x, v.y)))
            {
                kept += 1;
                continue;
            }
            left_out += 1;
            // Straight at the body (the nearest any candidate comes), and any way.
            for k in 0..4 {
                let direction = if k == 0 {
                    toward
                } else {
                    unit(draw(1.0), draw(1.0))
                };
                let predicted = offset(here, direction, LOOKAHEAD_M);
                assert!(
                    body_clear(here, predicted, p, v, horizon_s),
                    "case {case}: {here:?} {predicted:?} {p:?} {v:?} {horizon_s}"
                );
            }
        }
        assert!(left_out > 100_000 && kept > 10_000, "{left_out} {kept}");
    }

    #[test]
    fn the_body_test_decided_without_its_division_agrees_with_it() {
        let mut draw = stream(0x0bad_5eed_1234_5678);
        let d = SAFETY_DIAMETER_M;
        let (mut decided, mut undecided) = (0, 0);
        for case in 0..400_000 {
            let here = Vec2 {
                x: 1e4 + draw(100.0),
                y: draw(10.0),
            };
            let horizon_s = [1.0, 0.7, 1.0 / 1.4, 0.0][case % 4];
            let (endpoint, position, velocity) = if case % 2 == 0 {
                // A relative path passing at a hair around the diameter from the body: from
                // (−a, p) to (b, p) relative to it, p = D (1 + e).
                let e = [
                    0.0, 1e-16, -1e-16, 1e-12, -1e-12, 1e-9, -1e-9, 1e-7, -1e-7, 1e-3,
                ][case % 10];
                let p = d * (1.0 + e) * if case % 4 < 2 { 1.0 } else { -1.0 };
                let (a, b) = (0.2 + draw(1.0).abs(), 0.2 + draw(1.0).abs());
                let position = Vec2 {
                    x: here.x + a,
                    y: here.y - p,
                };
                let endpoint = offset(here, unit(draw(1.0), draw(1.0)), 1.0);
                let h = if horizon_s > 0.0 { horizon_s } else { 1.0 };
                let velocity = Vec2 {
                    x: (endpoint.x - position.x - b) / h,
                    y: (endpoint.y - position.y - p) / h,
                };
                (endpoint, position, velocity)
            } else {
                let endpoint = offset(here, unit(draw(1.0), draw(1.0)), 1.0);
                let position = match case % 6 {
                    1 => endpoint,
                    3 => Vec2 {
                        x: here.x + [d, -d, 0.0][case % 3],
                        y: here.y + [0.0, 0.0, d][case % 3],
                    },
                    _ => Vec2 {
                        x: here.x + draw(3.0),
                        y: here.y + draw(3.0),
                    },
                };
                let velocity = match case % 10 {
                    1 => Vec2::default(),
                    3 => Vec2 {
                        x: f64::NAN,
                        y: 0.0,
                    },
                    5 => Vec2 { x: 1e200, y: 0.0 },
                    _ => Vec2 {
                        x: draw(2.0),
                        y: draw(2.0),
                    },
                };
                (endpoint, position, velocity)
            };
            let body = ((position.x, position.y), (velocity.x, velocity.y));
            let want = lane_clear(here, endpoint, horizon_s, body.0, body.1);
            assert_eq!(
                want,
                body_clear(here, endpoint, position, velocity, horizon_s),
                "case {case}"
            );
            let (is_decided, clear) = lane_decided(here, endpoint, horizon_s, body.0, body.1);
            if is_decided {
                assert_eq!(clear, want, "case {case}: {here:?} {endpoint:?} {body:?}");
            }
            decided += usize::from(is_decided);
            undecided += usize::from(!is_decided);
        }
        assert!(
            decided > 150_000 && undecided > 10_000,
            "{decided} {undecided}"
        );
    }
}
