//! Where the banded walking loop (`motion::parallel`) cuts the ground: near each quantile of a
//! sorted sample of the stepped rows' coordinates along one axis, at the gap between two
//! neighbouring samples that costs least — the samples it moves off the quantile (the bands'
//! imbalance) plus the samples within the halo of the cut (rows near a cut wait for each other
//! and are copied into both bands' grids), one sample weighing as much as the other. A crowd
//! split by an empty strip wider than twice the halo (the two-way street's road between its
//! sidewalks) is cut in that strip: no row is near the cut, and the bands never wait.
//!
//! Where the cuts go changes only how the rows are shared among the bands, never a row's step
//! (the loop's result is the serial loop's for any cuts).

/// Each cut may move this fraction of a band's share of the sample off its quantile (a quarter
/// of a band: the cuts' windows never overlap, so the cuts stay ascending).
const WINDOW_DIVISOR: usize = 4;

/// Places `count − 1` cuts along `sorted` (ascending, finite) into `cuts`, each at the cheapest
/// gap within its window around its quantile (see the module doc), and returns the total
/// cost, in samples. With too few samples for a window a cut falls on the quantile's sample.
pub(super) fn place(sorted: &[f64], count: usize, halo_m: f64, cuts: &mut Vec<f64>) -> usize {
    cuts.clear();
    let n = sorted.len();
    if n == 0 {
        return 0;
    }
    let window = n / (WINDOW_DIVISOR * count.max(1));
    let mut total = 0;
    for k in 1..count {
        let ideal = k * n / count;
        let (first, last) = (
            ideal.saturating_sub(window).max(1),
            (ideal + window).min(n - 1),
        );
        let mut best: Option<(usize, usize, f64)> = None;
        for gap in first..=last {
            let (below, above) = (sorted[gap - 1], sorted[gap]);
            let cut = below + (above - below) / 2.0;
            let low = sorted.partition_point(|s| *s < cut - halo_m);
            let high = sorted.partition_point(|s| *s <= cut + halo_m);
            let off = gap.abs_diff(ideal);
            let cost = off + (high - low);
            if best.is_none_or(|(c, o, _)| (cost, off) < (c, o)) {
                best = Some((cost, off, cut));
            }
        }
        let (cost, cut) = best.map_or((0, sorted[ideal.min(n - 1)]), |(c, _, cut)| (c, cut));
        total += cost;
        cuts.push(cut);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn a_crowd_with_an_empty_strip_is_cut_in_the_strip() {
        // 60 samples from 0 to 5.9 m, 40 from 20 to 23.9 m: the quantile (the 50th sample,
        // 4.9 m) is 4.9 m from the left group's end; the gap 6 m to 20 m has nothing within a
        // 3 m halo of its middle, 13 m, 10 samples off the quantile.
        let mut sorted: Vec<f64> = (0..60).map(|i| f64::from(i) * 0.1).collect();
        sorted.extend((0..40).map(|i| 20.0 + f64::from(i) * 0.1));
        let mut cuts = Vec::new();
        let cost = place(&sorted, 2, 3.0, &mut cuts);
        assert_eq!(cuts, vec![sorted[59] + (20.0 - sorted[59]) / 2.0]);
        assert_eq!(cost, 10);
    }

    #[test]
    fn an_even_crowd_is_cut_at_its_quantiles() {
        // One sample per 0.1 m: any gap has the same samples near it, so the quantile wins.
        let sorted: Vec<f64> = (0..400).map(|i| f64::from(i) * 0.1).collect();
        let mut cuts = Vec::new();
        let cost = place(&sorted, 4, 1.0, &mut cuts);
        let expected: Vec<f64> = [100, 200, 300]
            .iter()
            .map(|i| sorted[i - 1] + (sorted[*i] - sorted[i - 1]) / 2.0)
            .collect();
        assert_eq!(cuts, expected);
        // Each cut has the 20 samples within 1 m of it (10 each side).
        assert_eq!(cost, 3 * 20);
    }

    #[test]
    fn a_single_sample_cuts_at_it() {
        let mut cuts = Vec::new();
        assert_eq!(place(&[2.5], 3, 1.0, &mut cuts), 0);
        assert_eq!(cuts, vec![2.5, 2.5]);
    }
}
