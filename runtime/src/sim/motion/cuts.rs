//! Where the banded walking loop (`motion::parallel`) cuts the ground: near each quantile of a
//! sorted sample of the stepped rows' coordinates along one axis, at the gap between two
//! neighbouring samples that costs least — the samples it moves off the quantile (the bands'
//! imbalance) plus the samples within the halo of the cut (rows near a cut wait for each other
//! and are copied into both bands' grids), one sample weighing as much as the other. A crowd
//! split by an empty strip wider than twice the halo (the two-way street's road between its
//! sidewalks) is cut in that strip: no row is near the cut, and the bands never wait.
//!
//! The cuts are placed on the sample across each axis, and the axis is then chosen on exact
//! costs over every stepped row ([`exact_costs`]: imbalance, and rows near a cut weighing
//! [`NEAR_WEIGHT`] rows each).
//!
//! Where the cuts go changes only how the rows are shared among the bands, never a row's step
//! (the loop's result is the serial loop's for any cuts).

use rayon::prelude::*;

use super::parallel::Step;
use crate::project::Vec2;
use crate::sim::state::Agents;

/// A stepped row near a cut weighs as much as this many rows of imbalance between the bands
/// when the axis is chosen: it may wait for the other band, and where rows read each other in
/// a chain along the crowd (the long street's walkers, 2 m apart, each within the halo of the
/// next) one row near a cut makes a band wait for most of the other.
const NEAR_WEIGHT: usize = 16;
/// Stepped rows a task of [`exact_costs`] tallies.
const TALLY_CHUNK: usize = 4096;

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

/// The exact costs of cutting at `cuts_x` across x and at `cuts_y` across y, over every stepped
/// row (in chunks on the current pool): for each axis, the rows each cut has below it off its
/// share of the rows, plus [`NEAR_WEIGHT`] per row within `halo_m` of a cut (the sample the
/// cuts were placed on sees one row in many, and misses a row near a cut as easily as a gap).
pub(super) fn exact_costs(
    agents: &Agents,
    steps: &[Step],
    (cuts_x, cuts_y): (&[f64], &[f64]),
    halo_m: f64,
) -> (usize, usize) {
    let tally = |chunk: &[Step]| {
        let mut tally = Tally::new(cuts_x.len());
        for step in chunk {
            let p = agents.position[step.row as usize];
            if p.x.is_finite() && p.y.is_finite() {
                tally.file(p, (cuts_x, cuts_y), halo_m);
            }
        }
        tally
    };
    let total = steps
        .par_chunks(TALLY_CHUNK)
        .map(tally)
        .reduce(|| Tally::new(cuts_x.len()), Tally::add);
    (total.cost(0), total.cost(1))
}

/// Per axis, the rows filed in each band and the rows near a cut.
struct Tally {
    bands: [Vec<usize>; 2],
    near: [usize; 2],
}

impl Tally {
    fn new(cuts: usize) -> Tally {
        Tally {
            bands: [vec![0; cuts + 1], vec![0; cuts + 1]],
            near: [0; 2],
        }
    }

    fn file(&mut self, p: Vec2, (cuts_x, cuts_y): (&[f64], &[f64]), halo_m: f64) {
        for (axis, (c, cuts)) in [(p.x, cuts_x), (p.y, cuts_y)].into_iter().enumerate() {
            let band = cuts.partition_point(|cut| *cut <= c);
            self.bands[axis][band] += 1;
            let below = band.checked_sub(1).is_some_and(|k| c - cuts[k] <= halo_m);
            let above = cuts.get(band).is_some_and(|cut| cut - c <= halo_m);
            self.near[axis] += usize::from(below || above);
        }
    }

    fn add(mut self, other: Tally) -> Tally {
        for (mine, theirs) in self.bands.iter_mut().zip(&other.bands) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self.near[0] += other.near[0];
        self.near[1] += other.near[1];
        self
    }

    fn cost(&self, axis: usize) -> usize {
        let bands = &self.bands[axis];
        let (count, total) = (bands.len(), bands.iter().sum::<usize>());
        let mut below = 0;
        let mut off = 0;
        for (k, rows) in bands.iter().enumerate().take(count - 1) {
            below += rows;
            off += below.abs_diff((k + 1) * total / count);
        }
        off + NEAR_WEIGHT * self.near[axis]
    }
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
