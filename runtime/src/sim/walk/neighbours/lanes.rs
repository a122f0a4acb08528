//! The neighbours' gathering and block tests in x86-64 vector intrinsics (AVX-512 and AVX2).
//!
//! The lane masks of a block in vector registers: each lane the same operations as
//! [`Scan::masks`](super::Scan::masks) (subtractions, products and sums in its order;
//! `−dot ≥ cos` as `dot ≤ −cos` and `|side| < limit` as `−limit < side < limit`, exactly the
//! same verdicts, NaN included), with ordered, non-signalling comparisons that are false for NaN
//! as Rust's.
//!
//! Unsafe code here loads a block of a grid column where the column holds it (the grid pads its
//! columns a block past every slot) and stores a vector through a pointer into a column reserved
//! just before to hold what is written there (each with its `SAFETY:` comment).

use super::{
    Bodies, Masks, Vec2, LANES, PASSED_SQ_M2, PASSING_SPEED_SQ, SAFETY_DIAMETER_M,
    SAME_DIRECTION_COS, YIELD_CORRIDOR_M,
};
use crate::sim::spatial::SpatialGrid;
use crate::sim::walk::step::FOLLOW_MIN_SPEED_M_S;
use std::arch::x86_64::*;

/// [`gather_walker_by`](super::gather_walker_by) with AVX-512 blocks filed straight into
/// the lists, the same lists and reading: the runs of each batch (computed in lanes,
/// `SpatialGrid::for_each_run_batch_near_avx512`) listed block by block, and every block's
/// tests as lane masks (each lane [`Scan::masks`](super::Scan::masks)' operations:
/// `|side| < limit` as one comparison of the absolute value), the bodies at another heading
/// compressed to the front of each column's vector and written whole after those filed so far;
/// a block with touchable bodies or moving leaders (few) only recorded, and those read again
/// from the grid's columns once every run is filed (the same operations on the same values, in
/// slot order; nothing moves meanwhile), the leaders' room taken by [`least_room`] (only
/// leaders near enough to shorten the step: [`LEAD_MARGIN_M`](super::LEAD_MARGIN_M)).
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
// Long because (over 80 lines): one AVX-512 kernel whose block loop keeps its lane vectors
// and masks in registers across a batch; split, every piece becomes another `unsafe`
// `target_feature` function with its own safety contract, and the hot loop's codegen is
// at the compiler's inlining mercy. Its steps are listed in the doc comment above.
pub(super) fn gather_avx512(
    grid: &SpatialGrid,
    row: usize,
    (here, axis, horizon_s, full_step_m): (Vec2, Vec2, f64, f64),
    slack_m: f64,
    bodies: &mut Bodies,
) -> super::Reading {
    let (reach, touch_reach_m, held) =
        super::begin_gathering(grid, here, horizon_s, full_step_m, bodies);
    let columns = grid.columns();
    // Every column cut to the `held` slots all hold (`held` is the least length, so the
    // cut is in bounds), so one bounds check of a block serves all six. (Cut one by one: an
    // array's `map` with a closure was a call per column, not inlined into this function.)
    let (cx, cy) = (cut(columns.x, held), cut(columns.y, held));
    let (cvx, cvy) = (cut(columns.vx, held), cut(columns.vy, held));
    let (cfx, cfy) = (cut(columns.fx, held), cut(columns.fy, held));
    let own = grid.slot_of(row).unwrap_or(usize::MAX);
    let splat = _mm512_set1_pd;
    let (hx, hy, ax, ay) = (splat(here.x), splat(here.y), splat(axis.x), splat(axis.y));
    let (reach_sq, touch_sq) = (splat(reach * reach), splat(touch_reach_m * touch_reach_m));
    let limit = FOLLOW_MIN_SPEED_M_S;
    let le = |a, b| _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b);
    let lt = |a, b| _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b);
    // Leaders at least this far ahead leave the step whole ([`super::LEAD_MARGIN_M`]).
    let bounded = full_step_m.is_finite() && full_step_m >= 0.0;
    let lead_reach = splat(SAFETY_DIAMETER_M + 2.0 * full_step_m + super::LEAD_MARGIN_M);
    let mut oncoming: __mmask8 = 0;
    let mut pending = 0;
    let leave_out: __mmask8 = if super::leaves_out_passing(here, horizon_s) {
        0xff
    } else {
        0
    };
    let file_runs = |runs: &[(usize, usize)]| {
        let (mut total, mut blocks) = (0, 0);
        for &(start, end) in runs {
            if end + LANES <= held {
                total += end - start;
                blocks += (end - start).div_ceil(LANES);
            }
        }
        bodies.others.reserve(bodies.other_count + total + LANES);
        if bodies.pending.len() < pending + blocks {
            bodies.pending.resize(pending + blocks, 0);
        }
        let o = &mut bodies.others;
        let (ox, oy, ovx, ovy) = (
            o.x.as_mut_ptr(),
            o.y.as_mut_ptr(),
            o.vx.as_mut_ptr(),
            o.vy.as_mut_ptr(),
        );
        let records = bodies.pending.as_mut_ptr();
        let mut filed = bodies.other_count;
        // Every block of the batch listed first (four a run written whatever its length,
        // those of a longer run added), so one loop files them all.
        const LISTED: usize = 4;
        let list = &mut bodies.blocks;
        if list.len() < blocks + LISTED {
            list.resize(blocks + LISTED, (0, 0));
        }
        let mut listed = 0;
        for &(start, end) in runs {
            // A run the columns do not hold with a block past it (never handed out: the
            // grid pads them) is left out whole.
            if end + LANES > held {
                continue;
            }
            let count = (end - start).div_ceil(LANES);
            if let Some(slots) = list.get_mut(listed..listed + LISTED) {
                for (k, slot) in slots.iter_mut().enumerate() {
                    *slot = (start + k * LANES, end);
                }
            }
            for k in LISTED..count {
                if let Some(slot) = list.get_mut(listed + k) {
                    *slot = (start + k * LANES, end);
                }
            }
            listed += count;
        }
        for &(first, end) in &list[..listed] {
            let valid = (u32::MAX >> (32 - (end - first).min(LANES))) as __mmask8;
            let load = |column: &[f64]| {
                // `first < end` and `end + LANES <= held` were checked when the block was
                // listed; the lanes past the run are masked out by `valid`.
                // SAFETY: every listed block lies in the columns, which hold `held` slots.
                unsafe { _mm512_loadu_pd(column.as_ptr().add(first)) }
            };
            let [x, y, vx, vy, fx, fy] = [cx, cy, cvx, cvy, cfx, cfy].map(load);
            let (dx, dy) = (_mm512_sub_pd(x, hx), _mm512_sub_pd(y, hy));
            let d2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
            let at = own.wrapping_sub(first);
            let own_lane = if at < LANES { 1 << at } else { 0 };
            let found = le(d2, reach_sq) & valid & !own_lane;
            let dot = _mm512_add_pd(_mm512_mul_pd(fx, ax), _mm512_mul_pd(fy, ay));
            let ahead = _mm512_add_pd(_mm512_mul_pd(dx, ax), _mm512_mul_pd(dy, ay));
            let side = _mm512_sub_pd(_mm512_mul_pd(ax, dy), _mm512_mul_pd(ay, dx));
            // `|side| < limit` is `−limit < side < limit` (NaN false in both).
            let side_abs = _mm512_abs_pd(side);
            let is_ahead = lt(splat(0.0), ahead);
            let same = le(splat(SAME_DIRECTION_COS), dot);
            let against = le(dot, splat(-SAME_DIRECTION_COS));
            oncoming |= found & against & is_ahead & lt(side_abs, splat(YIELD_CORRIDOR_M));
            let speed_sq = _mm512_add_pd(_mm512_mul_pd(vx, vx), _mm512_mul_pd(vy, vy));
            let moving = le(splat(limit * limit), speed_sq);
            let leads = found
                & same
                & moving
                & is_ahead
                & lt(side_abs, splat(SAFETY_DIAMETER_M))
                & if bounded { lt(ahead, lead_reach) } else { 0xff };
            let touch = found & le(d2, touch_sq);
            // `passes_every_candidate`, operation for operation.
            let receding = _mm512_add_pd(_mm512_mul_pd(dx, vx), _mm512_mul_pd(dy, vy));
            let passing = le(splat(0.0), receding)
                & le(splat(PASSED_SQ_M2), d2)
                & lt(speed_sq, splat(PASSING_SPEED_SQ));
            let others = found & !same & !(passing & leave_out);
            // SAFETY: the columns of the bodies at another heading hold
            // `other_count + total + LANES` entries (reserved above), and `filed` is at
            // most `other_count` plus the lanes of the blocks before this one, so the
            // eight written from `filed` lie within them.
            unsafe {
                _mm512_storeu_pd(ox.add(filed), _mm512_maskz_compress_pd(others, x));
                _mm512_storeu_pd(oy.add(filed), _mm512_maskz_compress_pd(others, y));
                _mm512_storeu_pd(ovx.add(filed), _mm512_maskz_compress_pd(others, vx));
                _mm512_storeu_pd(ovy.add(filed), _mm512_maskz_compress_pd(others, vy));
            }
            filed += others.count_ones() as usize;
            let record = first as u64 | u64::from(touch) << 32 | u64::from(leads) << 40;
            // SAFETY: `pending` holds the records so far plus one per block of this
            // batch (resized above), and at most one is kept per block before this one.
            unsafe { records.add(pending).write(record) };
            pending += usize::from(touch | leads != 0);
        }
        bodies.other_count = filed;
    };
    grid.for_each_run_batch_near_avx512(here, reach + slack_m, file_runs);
    // The recorded blocks, in slot order: touchable bodies filed, leaders' room taken.
    bodies.touchable.reserve(pending * LANES + LANES);
    bodies.leaders.reserve(pending * LANES + LANES);
    let (t, l) = (&mut bodies.touchable, &mut bodies.leaders);
    let (tx, ty, td) = (
        t.x.as_mut_ptr(),
        t.y.as_mut_ptr(),
        t.distance_sq_m2.as_mut_ptr(),
    );
    let (la, ls) = (l.ahead_m.as_mut_ptr(), l.side_m.as_mut_ptr());
    let (mut touched, mut led) = (0, 0);
    for &record in &bodies.pending[..pending] {
        let first = (record & u64::from(u32::MAX)) as usize;
        let touch = (record >> 32) as __mmask8;
        let leads = (record >> 40) as __mmask8;
        // A listed block, so in the columns; lanes past its run are in neither mask.
        let load = |column: &[f64]| {
            // SAFETY: a recorded block is a listed one, so it lies in the columns (see
            // the listing); lanes past its run are in neither mask.
            unsafe { _mm512_loadu_pd(column.as_ptr().add(first)) }
        };
        let (x, y) = (load(cx), load(cy));
        let (dx, dy) = (_mm512_sub_pd(x, hx), _mm512_sub_pd(y, hy));
        let d2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
        let ahead = _mm512_add_pd(_mm512_mul_pd(dx, ax), _mm512_mul_pd(dy, ay));
        let side = _mm512_sub_pd(_mm512_mul_pd(ax, dy), _mm512_mul_pd(ay, dx));
        // SAFETY: the touchable and leader columns hold `pending * LANES + LANES` entries
        // (reserved above), and `touched` and `led` are at most `LANES` per record before
        // this one.
        unsafe {
            _mm512_storeu_pd(tx.add(touched), _mm512_maskz_compress_pd(touch, x));
            _mm512_storeu_pd(ty.add(touched), _mm512_maskz_compress_pd(touch, y));
            _mm512_storeu_pd(td.add(touched), _mm512_maskz_compress_pd(touch, d2));
            _mm512_storeu_pd(la.add(led), _mm512_maskz_compress_pd(leads, ahead));
            _mm512_storeu_pd(ls.add(led), _mm512_maskz_compress_pd(leads, side));
        }
        touched += touch.count_ones() as usize;
        led += leads.count_ones() as usize;
    }
    bodies.lead_count = led;
    let followed_step_m = least_room(bodies, full_step_m, full_step_m);
    bodies.touch_count = touched;
    super::Reading {
        followed_step_m,
        oncoming: oncoming != 0,
    }
}

/// The first `held` entries of `column` (all of it when shorter).
#[inline(always)]
fn cut(column: &[f64], held: usize) -> &[f64] {
    column.get(..held).unwrap_or(column)
}

/// `followed_m` lowered to the least room behind the leaders [`gather_avx512`] filed
/// (`room_behind_m` of each with `margin_m`, eight lanes at a time: the same operations,
/// `√` exact; no room is NaN or −0, so their minimum taken in any order is the scalar
/// one's).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn least_room(bodies: &Bodies, margin_m: f64, followed_m: f64) -> f64 {
    let (n, leaders) = (bodies.lead_count, &bodies.leaders);
    let splat = _mm512_set1_pd;
    let d = SAFETY_DIAMETER_M;
    let mut least = followed_m;
    for first in (0..n).step_by(LANES) {
        let chunk = |column| super::block_at(column, first).map(|c| load(c));
        let (Some(ahead), Some(side)) = (chunk(&leaders.ahead_m), chunk(&leaders.side_m)) else {
            break;
        };
        let keep = (u32::MAX >> (32 - (n - first).min(LANES))) as __mmask8;
        let clearance = _mm512_sqrt_pd(_mm512_sub_pd(splat(d * d), _mm512_mul_pd(side, side)));
        let room = _mm512_sub_pd(_mm512_sub_pd(ahead, clearance), splat(margin_m));
        let room = _mm512_max_pd(room, _mm512_setzero_pd());
        let room = _mm512_mask_blend_pd(keep, splat(f64::INFINITY), room);
        least = least.min(_mm512_reduce_min_pd(room));
    }
    least
}

/// [`block_refusals`](super::block_refusals) of each of `endpoints` in one AVX-512
/// vector, written to `refusals` (one per endpoint; the terms of the bodies alone computed
/// once): each lane [`lane_decided`](super::lane_decided)'s operations in its order (the
/// negation a sign flip, the comparisons ordered and false for NaN as Rust's), its
/// branches as masks; a candidate with an undecided lane in the block is tested in full by
/// the portable test.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn block_refusals_avx512(
    block: [&[f64; LANES]; 4],
    held: usize,
    (here, horizon_s): (Vec2, f64),
    endpoints: &[Vec2],
    refusals: &mut [u32],
) {
    let [x, y, vx, vy] = block.map(|column| load(column));
    let splat = _mm512_set1_pd;
    let k = splat(SAFETY_DIAMETER_M * SAFETY_DIAMETER_M);
    let (add, sub, mul) = (_mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd);
    let ge = |a, b| _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, b);
    let le = |a, b| _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b);
    let lt = |a, b| _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b);
    let h = splat(horizon_s);
    let (r0x, r0y) = (sub(splat(here.x), x), sub(splat(here.y), y));
    let now_sq = add(mul(r0x, r0x), mul(r0y, r0y));
    let (vhx, vhy) = (mul(vx, h), mul(vy, h));
    let big = splat(1e100);
    let zero = _mm512_setzero_pd();
    let sign = _mm512_set1_epi64(i64::MIN);
    let overlap = lt(now_sq, k);
    let counts = (u32::MAX >> (32 - held.min(LANES))) as __mmask8;
    for (&endpoint, refused) in endpoints.iter().zip(refusals.iter_mut()) {
        let (ex, ey) = (sub(splat(endpoint.x), x), sub(splat(endpoint.y), y));
        let not_closer = ge(add(mul(ex, ex), mul(ey, ey)), now_sq);
        let (r1x, r1y) = (sub(ex, vhx), sub(ey, vhy));
        let (dx, dy) = (sub(r1x, r0x), sub(r1y, r0y));
        let len = add(mul(dx, dx), mul(dy, dy));
        let num = add(mul(r0x, dx), mul(r0y, dy));
        let (cx, cy) = (add(r0x, dx), add(r0y, dy));
        let end_clear = ge(add(mul(cx, cx), mul(cy, cy)), k);
        let margin = mul(splat(super::DECIDE_MARGIN), add(add(now_sq, len), k));
        let gap = sub(mul(now_sq, len), mul(num, num));
        let far = ge(gap, mul(add(k, margin), len));
        let near = le(gap, mul(sub(k, margin), len));
        let sane = lt(splat(1e-100), len) & lt(len, big) & lt(now_sq, big);
        let at_start = ge(num, zero);
        let minus_num = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(num), sign));
        let at_end = ge(minus_num, len);
        let still = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(len, zero) & lt(now_sq, big);
        let decided = overlap | still | (sane & (at_start | at_end | far | near));
        // overlap ? not_closer : still | at_start ? true : at_end ? end_clear : far
        let passing = still | at_start;
        let clear = (overlap & not_closer)
            | (!overlap & passing)
            | (!overlap & !passing & at_end & end_clear)
            | (!overlap & !passing & !at_end & far);
        *refused = if !decided & counts != 0 {
            super::block_refusals(block, held, here, endpoint, horizon_s)
        } else {
            u32::from(!clear & counts)
        };
    }
}

/// The eight lanes of a block's column in one vector.
#[target_feature(enable = "avx512f")]
#[inline]
fn load(c: &[f64; LANES]) -> __m512d {
    _mm512_setr_pd(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
}

/// For each mask of four `f64` lanes, the 32-bit lane indices that move its kept lanes to
/// the front of a vector, in lane order (the lanes after them repeat lane 0: stale).
const COMPRESS_4: [[i32; 8]; 16] = {
    let mut table = [[0i32; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let (mut lane, mut kept) = (0i32, 0usize);
        while lane < 4 {
            if mask >> lane & 1 == 1 {
                table[mask][2 * kept] = 2 * lane;
                table[mask][2 * kept + 1] = 2 * lane + 1;
                kept += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// The 32-bit lane indices [`COMPRESS_4`] lists for the lanes `kept` (four bits).
#[target_feature(enable = "avx2")]
#[inline]
fn order_of(kept: u32) -> __m256i {
    let o = COMPRESS_4[(kept & 0xf) as usize];
    _mm256_setr_epi32(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7])
}

/// `values`' lanes moved by `order` (an [`order_of`]).
#[target_feature(enable = "avx2")]
#[inline]
fn compressed(values: __m256d, order: __m256i) -> __m256d {
    _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(values), order))
}

/// What a walker's AVX2 gathering compares every body with, splatted.
struct Probe {
    hx: __m256d,
    hy: __m256d,
    ax: __m256d,
    ay: __m256d,
    reach_sq: __m256d,
    touch_sq: __m256d,
}

/// [`Scan::masks`](super::Scan::masks) of four bodies (`[x, y, vx, vy, fx, fy]`, one AVX2
/// vector each), as four-bit masks.
#[target_feature(enable = "avx2")]
#[inline]
fn half_masks(p: &Probe, [x, y, vx, vy, fx, fy]: [__m256d; 6]) -> Masks {
    let splat = _mm256_set1_pd;
    let (add, sub, mul) = (_mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd);
    let bits = |v| _mm256_movemask_pd(v) as u32;
    let le = |a, b| _mm256_cmp_pd::<_CMP_LE_OQ>(a, b);
    let lt = |a, b| _mm256_cmp_pd::<_CMP_LT_OQ>(a, b);
    let (dx, dy) = (sub(x, p.hx), sub(y, p.hy));
    let d2 = add(mul(dx, dx), mul(dy, dy));
    let dot = add(mul(fx, p.ax), mul(fy, p.ay));
    let ahead = add(mul(dx, p.ax), mul(dy, p.ay));
    let side = sub(mul(p.ax, dy), mul(p.ay, dx));
    let speed_sq = add(mul(vx, vx), mul(vy, vy));
    let within = |limit: f64| _mm256_and_pd(lt(splat(-limit), side), lt(side, splat(limit)));
    let ahead = lt(splat(0.0), ahead);
    let limit = FOLLOW_MIN_SPEED_M_S;
    // `passes_every_candidate`, operation for operation.
    let receding = add(mul(dx, vx), mul(dy, vy));
    let passing = _mm256_and_pd(
        _mm256_and_pd(le(splat(0.0), receding), le(splat(PASSED_SQ_M2), d2)),
        lt(speed_sq, splat(PASSING_SPEED_SQ)),
    );
    Masks {
        found: bits(le(d2, p.reach_sq)),
        same: bits(le(splat(SAME_DIRECTION_COS), dot)),
        against: bits(le(dot, splat(-SAME_DIRECTION_COS))),
        touch: bits(le(d2, p.touch_sq)),
        moving: bits(le(splat(limit * limit), speed_sq)),
        in_line: bits(_mm256_and_pd(ahead, within(SAFETY_DIAMETER_M))),
        in_corridor: bits(_mm256_and_pd(ahead, within(YIELD_CORRIDOR_M))),
        passing: bits(passing),
    }
}

/// [`gather_walker_by`](super::gather_walker_by) with AVX2 blocks filed straight into the
/// lists, the same lists and reading, as [`gather_avx512`] files them: every block's tests
/// in two vectors of four lanes ([`half_masks`]), the bodies at another heading of each
/// half moved to the front of a vector by one permutation ([`COMPRESS_4`]) and written
/// whole after those filed so far (no branch on the lanes); a block with touchable bodies
/// or moving leaders (few) only recorded, and those read again once every run is filed,
/// lane by lane as the portable filing reads them (in slot order; nothing moves meanwhile).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn gather_avx2(
    grid: &SpatialGrid,
    row: usize,
    (here, axis, horizon_s, full_step_m): (Vec2, Vec2, f64, f64),
    slack_m: f64,
    bodies: &mut Bodies,
) -> super::Reading {
    let (reach, touch_reach_m, held) =
        super::begin_gathering(grid, here, horizon_s, full_step_m, bodies);
    let columns = grid.columns();
    // Every column cut to the `held` slots all hold, so one check serves all six.
    let (cx, cy) = (cut(columns.x, held), cut(columns.y, held));
    let (cvx, cvy) = (cut(columns.vx, held), cut(columns.vy, held));
    let (cfx, cfy) = (cut(columns.fx, held), cut(columns.fy, held));
    let own = grid.slot_of(row).unwrap_or(usize::MAX);
    let splat = _mm256_set1_pd;
    let probe = Probe {
        hx: splat(here.x),
        hy: splat(here.y),
        ax: splat(axis.x),
        ay: splat(axis.y),
        reach_sq: splat(reach * reach),
        touch_sq: splat(touch_reach_m * touch_reach_m),
    };
    let leave_out = if super::leaves_out_passing(here, horizon_s) {
        0xf
    } else {
        0
    };
    let (mut oncoming, mut pending) = (0u32, 0usize);
    let file_runs = |runs: &[(usize, usize)]| {
        let (mut total, mut blocks) = (0, 0);
        for &(start, end) in runs {
            if start < end && end + LANES <= held {
                total += end - start;
                blocks += (end - start).div_ceil(LANES);
            }
        }
        bodies.others.reserve(bodies.other_count + total + LANES);
        if bodies.pending.len() < pending + blocks {
            bodies.pending.resize(pending + blocks, 0);
        }
        let o = &mut bodies.others;
        let targets = [
            o.x.as_mut_ptr(),
            o.y.as_mut_ptr(),
            o.vx.as_mut_ptr(),
            o.vy.as_mut_ptr(),
        ];
        let records = bodies.pending.as_mut_ptr();
        let mut filed = bodies.other_count;
        for &(start, end) in runs {
            // A run the columns do not hold with a block past it (never handed out: the
            // grid pads them) is left out whole.
            if end + LANES > held {
                continue;
            }
            let mut first = start;
            while first < end {
                let valid = u32::MAX >> (32 - (end - first).min(LANES));
                let at = own.wrapping_sub(first);
                let keep = valid & if at < LANES { !(1 << at) } else { u32::MAX };
                let (mut touch, mut leads) = (0u32, 0u32);
                for half in 0..2 {
                    let slot = first + 4 * half;
                    let load = |column: &[f64]| {
                        // SAFETY: `first < end` and `end + LANES <= held`, and every column
                        // holds `held` slots, so the four from `slot` lie within it.
                        unsafe { _mm256_loadu_pd(column.as_ptr().add(slot)) }
                    };
                    let (x, y, vx, vy) = (load(cx), load(cy), load(cvx), load(cvy));
                    let m = half_masks(&probe, [x, y, vx, vy, load(cfx), load(cfy)]);
                    let shift = 4 * half;
                    let found = m.found & (keep >> shift) & 0xf;
                    if found == 0 {
                        continue;
                    }
                    oncoming |= found & m.against & m.in_corridor;
                    leads |= (found & m.same & m.moving & m.in_line) << shift;
                    touch |= (found & m.touch) << shift;
                    let others = found & !m.same & !(m.passing & leave_out);
                    let order = order_of(others);
                    for (target, values) in targets.iter().zip([x, y, vx, vy]) {
                        // SAFETY: the columns of the bodies at another heading hold
                        // `other_count + total + LANES` entries (reserved above), and
                        // `filed` is at most `other_count` plus the lanes of the halves
                        // before this one, so the four written from `filed` lie within.
                        unsafe { _mm256_storeu_pd(target.add(filed), compressed(values, order)) };
                    }
                    filed += others.count_ones() as usize;
                }
                let record = first as u64 | u64::from(touch) << 32 | u64::from(leads) << 40;
                // SAFETY: `pending` holds the records so far plus one per block of this
                // batch (resized above), and at most one is kept per block before this one.
                unsafe { records.add(pending).write(record) };
                pending += usize::from(touch | leads != 0);
                first += LANES;
            }
        }
        bodies.other_count = filed;
    };
    grid.for_each_run_batch_near(here, reach + slack_m, file_runs);
    let followed_step_m = recorded(bodies, pending, (cx, cy), (here, axis, full_step_m));
    super::Reading {
        followed_step_m,
        oncoming: oncoming != 0,
    }
}

/// Files the touchable bodies of the `pending` blocks [`gather_avx2`] recorded and returns
/// the step left behind their moving leaders, in slot order, lane by lane as the portable
/// filing (`Scan::file`) does.
#[inline(always)]
fn recorded(
    bodies: &mut Bodies,
    pending: usize,
    (cx, cy): (&[f64], &[f64]),
    (here, axis, full_step_m): (Vec2, Vec2, f64),
) -> f64 {
    bodies.touchable.reserve(pending * LANES + LANES);
    let mut followed_step_m = full_step_m;
    for k in 0..pending {
        let record = bodies.pending[k];
        let first = (record & u64::from(u32::MAX)) as usize;
        let (touch, leads) = ((record >> 32) as u8 as u32, (record >> 40) as u8 as u32);
        let (Some(x), Some(y)) = (super::block_at(cx, first), super::block_at(cy, first)) else {
            continue;
        };
        let walker = (here, axis, full_step_m);
        followed_step_m = super::room_behind_leads(walker, leads, [x, y], followed_step_m);
        if touch != 0 {
            bodies.file_touchable::<LANES>(here, touch, [x, y]);
        }
    }
    followed_step_m
}
