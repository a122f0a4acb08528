//! Merging parts into one list sorted by a key, on the current rayon pool: each part is sorted,
//! the key range is cut into bands at keys sampled from the parts, and the bands — each the
//! slices of every part that fall in it, found by binary search — are gathered into their
//! places in one list and sorted there, at once. The result is exactly the stable sort of the
//! parts' concatenation (equal keys stay in part order: they fall into one band, gathered in
//! part order), on any number of threads and whatever bands the samples give.

use rayon::prelude::*;

/// Bands the key range is cut into (enough for any pool to share the work evenly; the result
/// does not depend on it).
const BANDS: usize = 64;

/// Below this many elements in all, the parts are concatenated and sorted on this thread.
const SERIAL_BELOW: usize = 1 << 14;

/// The elements of `parts` in one list, stably sorted by `key` (see the module documentation).
pub(crate) fn merge_sorted_par<T, K>(mut parts: Vec<Vec<T>>, key: impl Fn(&T) -> K + Sync) -> Vec<T>
where
    T: Copy + Send + Sync,
    K: Ord + Clone + Send + Sync,
{
    let total: usize = parts.iter().map(Vec::len).sum();
    if total < SERIAL_BELOW {
        let mut merged = parts.concat();
        merged.sort_by_key(|t| key(t));
        return merged;
    }
    // A part in canonical order (a tile's) is checked in one pass.
    parts
        .par_iter_mut()
        .for_each(|part| part.sort_by_key(|t| key(t)));
    let Some(&first) = parts.iter().find_map(|part| part.first()) else {
        return Vec::new();
    };
    let pivots = pivots(&parts, &key);
    // Where each band starts in each part: `cuts[part][band]`, the part's length last.
    let cuts: Vec<Vec<usize>> = parts
        .par_iter()
        .map(|part| {
            let starts = pivots.iter().map(|p| part.partition_point(|t| key(t) < *p));
            std::iter::once(0)
                .chain(starts)
                .chain(std::iter::once(part.len()))
                .collect()
        })
        .collect();
    // Every slot is written twice on the pool (filled, then overwritten by its band), which
    // is cheaper than gathering each band apart and laying them end to end on one thread.
    let mut merged = Vec::with_capacity(total);
    merged.par_extend(rayon::iter::repeat_n(first, total));
    let mut rest = merged.as_mut_slice();
    let mut bands = Vec::with_capacity(pivots.len() + 1);
    for band in 0..=pivots.len() {
        let len: usize = cuts.iter().map(|cut| cut[band + 1] - cut[band]).sum();
        let (here, after) = std::mem::take(&mut rest).split_at_mut(len);
        bands.push(here);
        rest = after;
    }
    bands.into_par_iter().enumerate().for_each(|(band, out)| {
        let mut at = 0;
        for (part, cut) in parts.iter().zip(&cuts) {
            let piece = &part[cut[band]..cut[band + 1]];
            out[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        }
        out.sort_by_key(|t| key(t));
    });
    merged
}

/// Up to `BANDS - 1` increasing keys that cut the sorted `parts` into bands of about equal size:
/// quantiles of keys sampled evenly from every part.
fn pivots<T, K: Ord + Clone>(parts: &[Vec<T>], key: &impl Fn(&T) -> K) -> Vec<K> {
    let mut samples: Vec<K> = parts
        .iter()
        .filter(|part| !part.is_empty())
        .flat_map(|part| (0..BANDS).map(move |i| key(&part[i * part.len() / BANDS])))
        .collect();
    samples.sort();
    let mut pivots: Vec<K> = (1..BANDS)
        .map(|i| samples[i * samples.len() / BANDS].clone())
        .collect();
    pivots.dedup();
    pivots
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stable sort of the concatenation: what the merge must equal.
    fn reference(parts: &[Vec<(u32, u32)>]) -> Vec<(u32, u32)> {
        let mut all = parts.concat();
        all.sort_by_key(|t| t.0);
        all
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn interleaved_sorted_parts_merge_to_their_stable_sort_on_any_pool() {
        // Sixteen parts of a 4 × 4 grid of tiles (keys are row-major cells), as tiles give them:
        // each part sorted, the parts interleaving row by row. The second field tags the part.
        let parts: Vec<Vec<(u32, u32)>> = (0..16u32)
            .map(|tile| {
                let (tx, ty) = (tile % 4, tile / 4);
                (0..40u32)
                    .flat_map(|y| (0..40u32).map(move |x| (ty * 40 + y, tx * 40 + x)))
                    .map(|(y, x)| (y * 160 + x, tile))
                    .collect()
            })
            .collect();
        let expected = reference(&parts);
        assert_eq!(expected.len(), 25_600);
        assert_eq!(expected[..3], [(0, 0), (1, 0), (2, 0)]);
        assert_eq!(expected[40], (40, 1));
        for threads in [1, 2, 5] {
            let merged = pool(threads).install(|| merge_sorted_par(parts.clone(), |t| t.0));
            assert_eq!(merged, expected, "{threads} threads");
        }
    }

    #[test]
    fn unsorted_parts_equal_keys_and_empty_parts_keep_the_stable_order() {
        // Keys repeat (a duplicate the caller reports), parts arrive unsorted, some are empty.
        let parts: Vec<Vec<(u32, u32)>> = (0..7u32)
            .map(|part| {
                if part % 3 == 2 {
                    return Vec::new();
                }
                (0..9_000u32)
                    .map(|i| ((i * 7_919 + part * 13) % 20_000, part))
                    .collect()
            })
            .collect();
        let expected = reference(&parts);
        let merged = pool(2).install(|| merge_sorted_par(parts.clone(), |t| t.0));
        assert_eq!(merged, expected);
        let repeated = expected.windows(2).filter(|w| w[0].0 == w[1].0).count();
        assert!(repeated > 100, "the keys repeat: {repeated}");
    }
}
