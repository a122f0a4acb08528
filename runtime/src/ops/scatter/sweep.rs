//! The serial schedule's conflict sweep: rows are settled in ascending order, and each pair of
//! nearby eligible candidates is tested once, from whichever comes first in scan order.

use super::decide::Window;
use super::generate::{Discs, EligibleRow, GeneratedRow, Rank};
use super::layer::Layer;

/// Settles every pair between an eligible candidate of row `cy` (`rows[0]`) and the candidates
/// after it in scan order: later ones of the same row, and those of rows `cy + 1` and `cy + 2`
/// (`rows[1]` and `rows[2]`, `None` outside the evaluated cells).
///
/// Rows `cy − 1` and `cy − 2` settled their pairs with row `cy` before, and a conflicting pair is
/// always inside the window of its earlier member (the pair's reach is at most that member's
/// radius plus the largest radius). So afterwards [`EligibleRow::strongest`] of every eligible
/// candidate of row `cy` names the strongest conflicting candidate that outranks it, exactly as a
/// search of its own window would.
pub(super) fn sweep_row(
    layer: &Layer<'_>,
    rows: [Option<&mut GeneratedRow>; 3],
    cy: i64,
    (first_x, last_x): (i64, i64),
) {
    let [Some(row), below, further] = rows else {
        return;
    };
    let mut later_rows = [below, further].map(|row| row.map(|row| Contest::of(&mut row.eligible)));
    let mut row = Contest::of(&mut row.eligible);
    let columns = row.column_starts.len().saturating_sub(1);
    for column in 0..columns {
        let cx = first_x + column as i64;
        for own in row.range(column, column) {
            let at = (row.discs.xs[own], row.discs.ys[own], row.discs.radii[own]);
            let Some(window) = Window::of(layer, at, (cx, cy), (first_x, last_x)) else {
                continue;
            };
            let (first, last) = (*window.columns.start(), *window.columns.end());
            let mut contender = Contender {
                at,
                rank: row.ranks[own],
                best: row.best[own],
            };
            let end = row.range(first, last).end;
            contender.settle(&mut row, own + 1..end.max(own + 1));
            for (offset, later) in (1..).zip(later_rows.iter_mut()) {
                if let Some(later) = later.as_mut().filter(|_| offset <= window.last_row) {
                    let range = later.range(first, last);
                    contender.settle(later, range);
                }
            }
            row.best[own] = contender.best;
        }
    }
}

/// The parts of an eligible row the sweep reads, and the results it writes.
struct Contest<'a> {
    discs: &'a Discs,
    ranks: &'a [Rank],
    best: &'a mut [Rank],
    column_starts: &'a [u32],
}

impl<'a> Contest<'a> {
    fn of(row: &'a mut EligibleRow) -> Contest<'a> {
        Contest {
            discs: &row.discs,
            ranks: &row.ranks,
            best: &mut row.best,
            column_starts: &row.column_starts,
        }
    }

    /// The indices of the eligible candidates of columns `first..=last`.
    fn range(&self, first: usize, last: usize) -> std::ops::Range<usize> {
        let start = self.column_starts.get(first).copied().unwrap_or(0) as usize;
        let end = self.column_starts.get(last + 1).copied().unwrap_or(0) as usize;
        start..end.max(start)
    }
}

/// An eligible candidate whose pairs are being settled, with its running result.
struct Contender {
    /// Position and radius.
    at: (i64, i64, i64),
    /// Its own rank.
    rank: Rank,
    /// The rank of the strongest conflicting candidate so far (its own rank at first).
    best: Rank,
}

impl Contender {
    /// Settles the pairs with the eligible candidates `range` of `row`: each conflicting pair
    /// records the stronger candidate in the weaker one's result, if it beats what is there.
    #[inline(always)]
    fn settle(&mut self, row: &mut Contest<'_>, range: std::ops::Range<usize>) {
        for other in row.discs.conflicting(range, self.at) {
            let rank = row.ranks[other];
            self.best = self.best.max(rank);
            let best = &mut row.best[other];
            *best = (*best).max(self.rank);
        }
    }
}
