//! The serial schedule's conflict sweep: rows are settled in ascending order, and each pair of
//! nearby eligible candidates is tested once, from whichever comes first in scan order.

use super::decide::index;
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
        let (x, y, radius) = self.at;
        let discs = row.discs;
        let (Some(xs), Some(ys), Some(radii), Some(ranks), Some(best)) = (
            discs.xs.get(range.clone()),
            discs.ys.get(range.clone()),
            discs.radii.get(range.clone()),
            row.ranks.get(range.clone()),
            row.best.get_mut(range),
        ) else {
            return;
        };
        // Branch-free: a pair that does not conflict offers `Rank::NONE`, which changes nothing.
        for ((((&other_x, &other_y), &other_radius), &rank), best) in
            xs.iter().zip(ys).zip(radii).zip(ranks).zip(best)
        {
            let (dx, dy) = (x - other_x, y - other_y);
            let pair_reach = radius + other_radius;
            let conflicts = dx * dx + dy * dy < pair_reach * pair_reach;
            let (offered, taken) = if conflicts {
                (rank, self.rank)
            } else {
                (Rank::NONE, Rank::NONE)
            };
            self.best = self.best.max(offered);
            *best = (*best).max(taken);
        }
    }
}

/// The cells that can hold a conflict of an eligible candidate of cell `(cx, cy)`: columns as
/// indices into the evaluated columns, and the last row as an offset 0..=2 from `cy` (the sweep
/// only looks down).
///
/// A conflict needs |dx| and |dy| below `reach = radius + max_radius`, so only the cells overlapping
/// that window can hold one; `reach ≤ 2 · cell_size` keeps them within two cells of (cx, cy).
/// Skipping the others is an optimization: the result is the same as scanning ±2 cells.
struct Window {
    /// Evaluated columns, as indices from the first evaluated column.
    columns: std::ops::RangeInclusive<usize>,
    /// The last row, as an offset from the candidate's row.
    last_row: i64,
}

impl Window {
    /// The window of an eligible candidate at `(x, y)` with exclusion radius `radius` in cell
    /// `(cx, cy)`, clipped to the evaluated columns `first_x..=last_x`; `None` when nothing can
    /// conflict with it (every radius is zero).
    fn of(
        layer: &Layer<'_>,
        (x, y, radius): (i64, i64, i64),
        (cx, cy): (i64, i64),
        (first_x, last_x): (i64, i64),
    ) -> Option<Window> {
        let reach = radius + layer.max_radius;
        if reach == 0 {
            return None;
        }
        let cell_size = layer.params.cell_size;
        let (offset_x, offset_y) = (x - cx * cell_size, y - cy * cell_size);
        let low_x = (cx + cells_below(offset_x - reach + 1, cell_size)).max(first_x);
        let high_x = (cx + cells_below(offset_x + reach - 1, cell_size)).min(last_x);
        Some(Window {
            columns: index(low_x - first_x)..=index(high_x - first_x),
            last_row: cells_below(offset_y + reach - 1, cell_size),
        })
    }
}

/// `floor(offset / cell_size)` for `−2 · cell_size ≤ offset < 3 · cell_size`, without a division.
fn cells_below(offset: i64, cell_size: i64) -> i64 {
    i64::from(offset >= cell_size) + i64::from(offset >= 2 * cell_size)
        - i64::from(offset < 0)
        - i64::from(offset < -cell_size)
}
