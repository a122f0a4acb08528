//! Philox4x32-10 over many scopes at once: word 0 of attempt 0 at (scope, event, dimension) for a
//! slice of scopes, sixteen lanes at a time, compiled for AVX-512 and AVX2 as well and the CPU's
//! best picked at run time ([`multiversion`]: no hand-written detection, no `unsafe` here).
//!
//! The lanes compute exactly [`super::philox`]; only the instruction selection differs, so results
//! are identical on every machine (a test compares every compiled path with the scalar function).

use multiversion::multiversion;

use super::{philox, PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1};

/// Counters computed together.
const LANES: usize = 16;

/// Writes word 0 of `philox([lo32(scope), hi32(scope), event, dimension], key)` for each scope in
/// `scopes` to the same index of `out` (which must be at least as long): [`first_words_portable`]
/// compiled for AVX-512F, AVX2 and no extension, the best the CPU has run.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2"))]
pub(super) fn first_words(
    key: [u32; 2],
    scopes: &[u64],
    event: u32,
    dimension: u16,
    out: &mut [u32],
) {
    first_words_portable(key, scopes, event, dimension, out);
}

/// Whole chunks of [`LANES`] scopes through [`lanes`], the rest through the scalar function.
#[inline(always)]
fn first_words_portable(
    key: [u32; 2],
    scopes: &[u64],
    event: u32,
    dimension: u16,
    out: &mut [u32],
) {
    let word3 = u32::from(dimension);
    let mut chunks = scopes.chunks_exact(LANES);
    let mut outputs = out.chunks_exact_mut(LANES);
    for (chunk, output) in chunks.by_ref().zip(outputs.by_ref()) {
        let mut words = [[0u32; LANES]; 2];
        for (lane, &scope) in chunk.iter().enumerate() {
            words[0][lane] = scope as u32;
            words[1][lane] = (scope >> 32) as u32;
        }
        output.copy_from_slice(&lanes(key, words, event, word3));
    }
    let done = scopes.len() - chunks.remainder().len();
    for (&scope, output) in chunks.remainder().iter().zip(out.iter_mut().skip(done)) {
        *output = philox([scope as u32, (scope >> 32) as u32, event, word3], key)[0];
    }
}

/// Philox4x32-10 on [`LANES`] counters `[low[i], high[i], event, word3]`, returning word 0 of each.
///
/// Each word lives in the low half of a `u64`, so a round is one 32 × 32 → 64-bit multiply per
/// product (a single vector instruction on x86) and its high half a shift, with no shuffles between
/// halves of 32-bit lanes. The high halves of the state pick up bits no result depends on: every
/// multiply reads only the low 32 bits of its operand (the mask), and XOR and shifts right never
/// move high bits into low ones. So the low halves are exactly the 32-bit algorithm.
#[inline(always)]
fn lanes(key: [u32; 2], [low, high]: [[u32; LANES]; 2], event: u32, word3: u32) -> [u32; LANES] {
    const LOW: u64 = 0xFFFF_FFFF;
    let (mut w0, mut w1) = (low.map(u64::from), high.map(u64::from));
    let (mut w2, mut w3) = ([u64::from(event); LANES], [u64::from(word3); LANES]);
    let mut round_key = key.map(u64::from);
    for round in 0..PHILOX_ROUNDS {
        if round > 0 {
            round_key[0] = (round_key[0] + u64::from(PHILOX_W0)) & LOW;
            round_key[1] = (round_key[1] + u64::from(PHILOX_W1)) & LOW;
        }
        let mut next = [[0u64; LANES]; 4];
        for lane in 0..LANES {
            let product0 = u64::from(PHILOX_M0) * (w0[lane] & LOW);
            let product1 = u64::from(PHILOX_M1) * (w2[lane] & LOW);
            next[0][lane] = (product1 >> 32) ^ w1[lane] ^ round_key[0];
            next[1][lane] = product1;
            next[2][lane] = (product0 >> 32) ^ w3[lane] ^ round_key[1];
            next[3][lane] = product0;
        }
        [w0, w1, w2, w3] = next;
    }
    w0.map(|word| word as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scopes of every shape: small, with high halves set, all ones, and a run longer than a chunk.
    fn scopes(count: usize) -> Vec<u64> {
        (0..count as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 40))
            .chain([0, 1, u64::MAX, 0xFFFF_FFFF, 1 << 32])
            .collect()
    }

    /// [`first_words_portable`] compiled for AVX2 alone, so that its AVX2 build is tested on a
    /// CPU whose dispatch picks AVX-512.
    #[multiversion(targets("x86_64+avx2"))]
    fn first_words_avx2(
        key: [u32; 2],
        scopes: &[u64],
        event: u32,
        dimension: u16,
        out: &mut [u32],
    ) {
        first_words_portable(key, scopes, event, dimension, out);
    }

    #[test]
    fn batched_words_equal_the_scalar_function() {
        let paths = crate::simd_paths::report("rng::batch", &["AVX-512", "AVX2"]);
        let key = [0x1234_5678, 0x9ABC_DEF0];
        for count in [0, 1, 15, 16, 17, 33, 100] {
            let scopes = scopes(count);
            for (event, dimension) in [(0, 0), (0, 2), (7, 0xFFFF)] {
                let scalar: Vec<u32> = scopes
                    .iter()
                    .map(|&s| {
                        philox(
                            [s as u32, (s >> 32) as u32, event, u32::from(dimension)],
                            key,
                        )[0]
                    })
                    .collect();
                let run = |words: fn([u32; 2], &[u64], u32, u16, &mut [u32])| {
                    let mut out = vec![0; scopes.len()];
                    words(key, &scopes, event, dimension, &mut out);
                    out
                };
                let at = format!("{count} scopes at ({event}, {dimension})");
                assert_eq!(run(first_words_portable), scalar, "portable, {at}");
                assert_eq!(
                    run(first_words),
                    scalar,
                    "dispatched ({}), {at}",
                    paths.best
                );
                assert_eq!(run(first_words_avx2), scalar, "AVX2 build, {at}");
            }
        }
    }
}
