//! The serial schedule's conflict sweep: rows are settled in ascending order, and each pair of
//! nearby eligible candidates is tested once, from whichever comes first in scan order.

use super::decide::index;
use super::generate::{Disc, GeneratedRow, Rank};
use super::layer::Layer;

/// Settles every pair between an eligible candidate of row `cy` (`rows[0]`) and the candidates
/// after it in scan order: later ones of the same row, and those of rows `cy + 1` and `cy + 2`
/// (`rows[1]` and `rows[2]`, `None` outside the evaluated cells).
///
/// Rows `cy − 1` and `cy − 2` settled their pairs with row `cy` before, and a conflicting pair is
/// always inside the window of its earlier member (the pair's reach is at most that member's
/// radius plus the largest radius). So afterwards [`super::generate::EligibleRow::strongest`] of every eligible
/// candidate of row `cy` names the strongest conflicting candidate that outranks it, exactly as a
/// search of its own window would.
pub(super) fn sweep_row(
    layer: &Layer<'_>,
    rows: [Option<&mut GeneratedRow>; 3],
    cy: i64,
    (first_x, last_x): (i64, i64),
) {
    let [Some(row), below, further] = rows.map(|row| row.map(|row| &mut row.eligible)) else {
        return;
    };
    let mut later_rows = [below, further];
    let columns = row.column_starts.len().saturating_sub(1);
    for column in 0..columns {
        let cx = first_x + column as i64;
        for own in row.range(column, column) {
            let Some(&disc) = row.discs.get(own) else {
                continue;
            };
            let Some(window) = Window::of(layer, &disc, (cx, cy), (first_x, last_x)) else {
                continue;
            };
            let (first, last) = (*window.columns.start(), *window.columns.end());
            let mut contender = Contender {
                disc,
                best: disc.best,
            };
            let end = row.range(first, last).end;
            contender.settle(row.discs.get_mut(own + 1..end).unwrap_or(&mut []));
            for (offset, later) in (1..).zip(later_rows.iter_mut()) {
                if let Some(later) = later.as_deref_mut().filter(|_| offset <= window.last_row) {
                    let range = later.range(first, last);
                    contender.settle(later.discs.get_mut(range).unwrap_or(&mut []));
                }
            }
            if let Some(disc) = row.discs.get_mut(own) {
                disc.best = contender.best;
            }
        }
    }
}

/// An eligible candidate whose pairs are being settled, with its running result.
struct Contender {
    /// The candidate as generated (and as settled by earlier rows).
    disc: Disc,
    /// The rank of the strongest conflicting candidate so far (its own rank at first).
    best: Rank,
}

impl Contender {
    /// Settles the pairs with `others`: each conflicting pair records the stronger candidate in the
    /// weaker one's result, if it beats what is there.
    #[inline(always)]
    fn settle(&mut self, others: &mut [Disc]) {
        let Disc {
            x, y, radius, rank, ..
        } = self.disc;
        for other in others {
            let (dx, dy) = (x - other.x, y - other.y);
            let pair_reach = radius + other.radius;
            // Branch-free: a pair that does not conflict offers the lowest rank, which changes
            // nothing.
            let conflicts = dx * dx + dy * dy < pair_reach * pair_reach;
            let (offered, taken) = if conflicts {
                (other.rank, rank)
            } else {
                (Rank::LOWEST, Rank::LOWEST)
            };
            self.best = self.best.max(offered);
            other.best = other.best.max(taken);
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
    /// The window of an eligible candidate `disc` in cell
    /// `(cx, cy)`, clipped to the evaluated columns `first_x..=last_x`; `None` when nothing can
    /// conflict with it (every radius is zero).
    fn of(
        layer: &Layer<'_>,
        &Disc { x, y, radius, .. }: &Disc,
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
