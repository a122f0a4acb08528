//! The predicted test of several candidates body by body: each body at another heading tested
//! against up to [`LANES`] candidates at once, a candidate in each lane (the transpose of
//! [`clear_candidates_with`](super::clear_candidates_with), which tests a block of bodies
//! against one candidate at a time). A walker whose straight way is blocked tests its eight other
//! candidates against a few bodies (most often fewer than a block): body by body that is one
//! lane test per body instead of one per candidate ([`pays`]).
//!
//! Every lane does [`lane_decided`]'s operations on the same values in the same order (the
//! body's own terms computed once, as scalars, the very operations the lanes would do), and a
//! lane it leaves undecided is tested in full by [`lane_clear`]; the verdict of a candidate is
//! the all-of over the same bodies, so the same bits whatever the order.

use super::{lane_clear, lane_decided, Others, Vec2, LANES};

/// Whether testing `n` bodies against `c` candidates body by body costs fewer lane tests than
/// block by block (`n` per group of [`LANES`] candidates against `c` per block of bodies).
#[inline(always)]
pub(super) fn pays(n: usize, c: usize) -> bool {
    n * c.div_ceil(LANES) < c * n.div_ceil(LANES)
}

/// Which of `endpoints` (bit `i` for `endpoints[i]`, at most 32) every one of the `n` bodies
/// of `others` lets pass, the candidates from `here` over a finite `horizon_s`, with the lane
/// test `refusals` (a body, its group of candidates, the lanes still clear; it returns those
/// of them the body refuses; `prepare` makes what it reads of a group once, before its bodies).
#[inline(always)]
pub(super) fn clear_by_body<G>(
    prepare: impl Fn(&[Vec2; LANES]) -> G,
    refusals: impl Fn((Vec2, f64), Body, &G, &[Vec2; LANES], u32) -> u32,
    others: &Others,
    (n, motion): (usize, (Vec2, f64)),
    endpoints: &[Vec2],
) -> u32 {
    let n = n.min(others.x.len()).min(others.y.len());
    let n = n.min(others.vx.len()).min(others.vy.len());
    let mut clear = 0u32;
    for (g, chunk) in endpoints.chunks(LANES).take(32 / LANES).enumerate() {
        // Lanes past the candidates repeat the first; they are never live.
        let mut group = [chunk[0]; LANES];
        group[..chunk.len()].copy_from_slice(chunk);
        let mut live = u32::MAX >> (32 - chunk.len());
        let prepared = prepare(&group);
        for k in 0..n {
            if live == 0 {
                break;
            }
            let body = ((others.x[k], others.y[k]), (others.vx[k], others.vy[k]));
            live &= !refusals(motion, body, &prepared, &group, live);
        }
        clear |= live << (g * LANES);
    }
    clear
}

/// A body: position and velocity.
pub(super) type Body = ((f64, f64), (f64, f64));

/// What the portable lane test reads of a group besides its endpoints: nothing.
#[inline(always)]
pub(super) fn no_group(_group: &[Vec2; LANES]) {}

/// The lanes of `live` whose candidate from `here` predicted to reach `group[lane]` over a
/// finite `horizon_s` the body refuses, one lane at a time (undecided lanes tested in full).
#[inline(always)]
pub(super) fn body_refusals(
    (here, horizon_s): (Vec2, f64),
    body: Body,
    _prepared: &(),
    group: &[Vec2; LANES],
    live: u32,
) -> u32 {
    let (mut refused, mut undecided) = (0u32, 0u32);
    for (lane, &endpoint) in group.iter().enumerate() {
        let (decided, clear) = lane_decided(here, endpoint, horizon_s, body.0, body.1);
        refused |= u32::from(!clear) << lane;
        undecided |= u32::from(!decided) << lane;
    }
    undecided &= live;
    if undecided != 0 {
        refused &= !undecided;
        for (lane, &endpoint) in group.iter().enumerate() {
            let full = !lane_clear(here, endpoint, horizon_s, body.0, body.1);
            refused |= u32::from(full & ((undecided >> lane) & 1 == 1)) << lane;
        }
    }
    refused & live
}

/// [`body_refusals`] in one AVX-512 vector (the candidates' lanes), each lane
/// [`lane_decided`]'s operations in its order: the body's terms (`here − position`, its square,
/// `velocity × horizon`, the overlap) as scalars, the same operations, broadcast; the negation
/// a sign flip; comparisons ordered and false for NaN as Rust's. Undecided lanes are tested in
/// full.
#[cfg(target_arch = "x86_64")]
pub(super) mod lanes {
    use super::super::{DECIDE_MARGIN, SAFETY_DIAMETER_M};
    use super::{Body, Vec2, LANES};
    use std::arch::x86_64::*;

    /// A group of candidates' endpoints as two vectors (`x`, `y`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(in super::super) fn group(group: &[Vec2; LANES]) -> (__m512d, __m512d) {
        let [a, b, c, d, e, f, g, h] = *group;
        (
            _mm512_setr_pd(a.x, b.x, c.x, d.x, e.x, f.x, g.x, h.x),
            _mm512_setr_pd(a.y, b.y, c.y, d.y, e.y, f.y, g.y, h.y),
        )
    }

    /// [`body_refusals`](super::body_refusals) with the group's endpoints in `(gx, gy)`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(in super::super) fn body_refusals_avx512(
        (here, horizon_s): (Vec2, f64),
        ((x, y), (vx, vy)): Body,
        (gx, gy): (__m512d, __m512d),
        group: &[Vec2; LANES],
        live: u32,
    ) -> u32 {
        let k_sq = SAFETY_DIAMETER_M * SAFETY_DIAMETER_M;
        let (r0x, r0y) = (here.x - x, here.y - y);
        let now_sq = r0x * r0x + r0y * r0y;
        let (vhx, vhy) = (vx * horizon_s, vy * horizon_s);
        let splat = _mm512_set1_pd;
        let (add, sub, mul) = (_mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd);
        let ge = |a, b| _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, b);
        let le = |a, b| _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b);
        let lt = |a, b| _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b);
        let (ex, ey) = (sub(gx, splat(x)), sub(gy, splat(y)));
        let now = splat(now_sq);
        if now_sq < k_sq {
            // An overlapping pair: decided, clear when the candidate does not bring it closer.
            let not_closer = ge(add(mul(ex, ex), mul(ey, ey)), now);
            return u32::from(!not_closer) & live;
        }
        let k = splat(k_sq);
        let (r0x, r0y) = (splat(r0x), splat(r0y));
        let (r1x, r1y) = (sub(ex, splat(vhx)), sub(ey, splat(vhy)));
        let (dx, dy) = (sub(r1x, r0x), sub(r1y, r0y));
        let len = add(mul(dx, dx), mul(dy, dy));
        let num = add(mul(r0x, dx), mul(r0y, dy));
        let (cx, cy) = (add(r0x, dx), add(r0y, dy));
        let end_clear = ge(add(mul(cx, cx), mul(cy, cy)), k);
        let margin = mul(splat(DECIDE_MARGIN), add(add(now, len), k));
        let gap = sub(mul(now, len), mul(num, num));
        let far = ge(gap, mul(add(k, margin), len));
        let near = le(gap, mul(sub(k, margin), len));
        let sane_now = now_sq < 1e100;
        let sane = lt(splat(1e-100), len) & lt(len, splat(1e100)) & if sane_now { 0xff } else { 0 };
        let zero = _mm512_setzero_pd();
        let at_start = ge(num, zero);
        let sign = _mm512_set1_epi64(i64::MIN);
        let minus_num = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(num), sign));
        let at_end = ge(minus_num, len);
        let still = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(len, zero) & if sane_now { 0xff } else { 0 };
        let decided = still | (sane & (at_start | at_end | far | near));
        // still | at_start ? true : at_end ? end_clear : far
        let passing = still | at_start;
        let clear = passing | (!passing & at_end & end_clear) | (!passing & !at_end & far);
        let refused = u32::from(!clear) & live;
        let undecided = u32::from(!decided) & live;
        if undecided == 0 {
            return refused;
        }
        let body = ((x, y), (vx, vy));
        let motion = (here, horizon_s);
        super::body_refusals(motion, body, &(), group, undecided) | (refused & !undecided)
    }
}
