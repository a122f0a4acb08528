//! The conflict search: each pair of nearby candidates is tested once, in vector lanes without
//! branches, and the stronger rank of a conflicting pair is offered to the other candidate.
//!
//! Conflicting candidates are at most `reach_cells ≤ 2` cells apart (every radius is at most
//! `cell_size`). Rows are settled in ascending order: row `cy` is paired with itself at slot offsets
//! `1 ..= pad` and with each of the next `reach_cells` rows at offsets `−pad ..= pad`, where `pad =
//! (reach_cells + 1) · candidates_per_cell − 1` reaches every candidate `reach_cells` cells either
//! way. Slot `j` of the row and slot `j + offset` of the other row are one lane. So every pair
//! that can conflict is tested exactly once, by whichever of the two comes first in scan order.
//! The offsets also pair some candidates one cell further apart, which never conflict, so they
//! change nothing.
//!
//! Exactness: every lane's differences are below `4 · cell_size ≤ 2^31` in magnitude, so they fit
//! `i32` and their squares and sums are exact in `i64` (the convention's arithmetic). Slots with no
//! candidate, and ineligible candidates, carry [`NO_RANK`], so whatever they compute offers nothing.

//!
//! The passes are one portable function compiled for AVX-512F, AVX2 and no extension, the
//! CPU's best picked at run time ([`multiversion`]: no hand-written detection, no `unsafe`).

use multiversion::multiversion;

use super::rank::{Rank, NO_RANK};

/// The candidates of one generated row as structure-of-arrays lanes, with `pad` empty slots at
/// both ends so that every offset pass reads whole slices, and the ranks offered to them so far.
#[derive(Default, Clone)]
pub(super) struct Slots {
    /// Empty slots before the first candidate and after the last.
    pad: usize,
    /// Candidate positions, x.
    x: Vec<i64>,
    /// Candidate positions, y.
    y: Vec<i64>,
    /// Exclusion radii (0 for ineligible candidates).
    radius: Vec<i64>,
    /// Ranks ([`NO_RANK`] for ineligible candidates and empty slots).
    rank: Vec<Rank>,
    /// The highest rank of the conflicting eligible candidates settled with each slot so far
    /// (meaningless for an ineligible candidate, which nothing asks).
    offered: Vec<Rank>,
}

impl Slots {
    /// Empties the slots and makes room for `len` candidates, `pad` empty slots on either side.
    pub(super) fn reset(&mut self, pad: usize, len: usize) {
        self.pad = pad;
        let total = pad + len + pad;
        for lanes in [&mut self.x, &mut self.y, &mut self.radius] {
            lanes.clear();
            lanes.resize(total, 0);
        }
        for lanes in [&mut self.rank, &mut self.offered] {
            lanes.clear();
            lanes.resize(total, NO_RANK);
        }
    }

    /// Number of candidate slots (without the padding).
    pub(super) fn len(&self) -> usize {
        self.rank.len().saturating_sub(2 * self.pad)
    }

    /// Places an ineligible candidate at `index`: it only has a position.
    pub(super) fn set_position(&mut self, index: usize, x: i64, y: i64) {
        let slot = self.pad + index;
        if let (Some(sx), Some(sy)) = (self.x.get_mut(slot), self.y.get_mut(slot)) {
            (*sx, *sy) = (x, y);
        }
    }

    /// Makes the candidate at `index` eligible with its radius and rank.
    pub(super) fn set_eligible(&mut self, index: usize, radius: i64, rank: Rank) {
        let slot = self.pad + index;
        if let (Some(sr), Some(sk)) = (self.radius.get_mut(slot), self.rank.get_mut(slot)) {
            (*sr, *sk) = (radius, rank);
        }
    }

    /// Once the slot's row and the rows before it are settled: the rank of the strongest eligible
    /// candidate conflicting with the one at `index` that outranks it, if any.
    pub(super) fn outranked_by(&self, index: usize) -> Option<Rank> {
        let slot = self.pad + index;
        let own = self.rank.get(slot).copied().unwrap_or(NO_RANK);
        let offered = self.offered.get(slot).copied().unwrap_or(NO_RANK);
        (offered > own).then_some(offered)
    }
}

/// Slices of the four lanes, all of one length.
struct Lanes<'a> {
    x: &'a [i64],
    y: &'a [i64],
    radius: &'a [i64],
    rank: &'a [Rank],
}

impl<'a> Lanes<'a> {
    /// `len` slots from `pad + offset` of each padded lane.
    fn of(pad: usize, len: usize, offset: isize, [x, y, radius, rank]: [&'a [i64]; 4]) -> Self {
        let start = pad.saturating_add_signed(offset);
        let lanes = |values: &'a [i64]| values.get(start..start + len).unwrap_or(&[]);
        Lanes {
            x: lanes(x),
            y: lanes(y),
            radius: lanes(radius),
            rank: lanes(rank),
        }
    }
}

/// Settles every pair between a candidate of `row` and the candidates after it in scan order:
/// later ones of the same row, and those of `later` (the next `reach_cells` rows, in order). All
/// rows have the same slots and padding. `scratch` is reused between calls.
///
/// Rows before `row` settled their pairs with it before, so afterwards
/// [`Slots::outranked_by`] of every slot of `row` is exactly what the definition of acceptance asks.
pub(super) fn settle_row(row: &mut Slots, later: &mut [&mut Slots], scratch: &mut Vec<Rank>) {
    scratch.clear();
    scratch.resize(row.len(), NO_RANK);
    settle(row, later, scratch);
}

/// [`settle_portable`] compiled for AVX-512F, AVX2 and no extension, the best the CPU has run.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2"))]
fn settle(row: &mut Slots, later: &mut [&mut Slots], own_best: &mut [Rank]) {
    settle_portable(row, later, own_best);
}

/// The passes of [`settle_row`]. What the row's own candidates are offered collects in `own_best`
/// and joins the row's offers at the end, so no pass writes the lanes it reads.
#[inline(always)]
fn settle_portable(row: &mut Slots, later: &mut [&mut Slots], own_best: &mut [Rank]) {
    let (pad, len) = (row.pad, row.len());
    let lanes = [&row.x[..], &row.y[..], &row.radius[..], &row.rank[..]];
    let own = Lanes::of(pad, len, 0, lanes);
    for offset in 1..=pad {
        let start = pad + offset;
        let Some(offered) = row.offered.get_mut(start..start + len) else {
            continue;
        };
        pass(
            &own,
            &Lanes::of(pad, len, offset as isize, lanes),
            own_best,
            offered,
        );
    }
    for other in later.iter_mut() {
        let other = &mut **other;
        let lanes = [
            &other.x[..],
            &other.y[..],
            &other.radius[..],
            &other.rank[..],
        ];
        let reach = pad as isize;
        for offset in -reach..=reach {
            let start = pad.saturating_add_signed(offset);
            let Some(offered) = other.offered.get_mut(start..start + len) else {
                continue;
            };
            pass(&own, &Lanes::of(pad, len, offset, lanes), own_best, offered);
        }
    }
    let Some(row_offered) = row.offered.get_mut(pad..pad + len) else {
        return;
    };
    for (offered, &best) in row_offered.iter_mut().zip(own_best.iter()) {
        *offered = (*offered).max(best);
    }
}

/// One lane per slot `j`: tests `own` slot `j` against `other` slot `j`, and if they conflict
/// offers each the other's rank (`own_best[j]` and `other_offered[j]` keep the highest).
#[inline(always)]
fn pass(own: &Lanes<'_>, other: &Lanes<'_>, own_best: &mut [Rank], other_offered: &mut [Rank]) {
    let n = own_best.len().min(other_offered.len());
    let (Some(x), Some(y), Some(radius), Some(rank)) = (
        own.x.get(..n),
        own.y.get(..n),
        own.radius.get(..n),
        own.rank.get(..n),
    ) else {
        return;
    };
    let (Some(other_x), Some(other_y), Some(other_radius), Some(other_rank)) = (
        other.x.get(..n),
        other.y.get(..n),
        other.radius.get(..n),
        other.rank.get(..n),
    ) else {
        return;
    };
    let (own_best, other_offered) = (&mut own_best[..n], &mut other_offered[..n]);
    for j in 0..n {
        // Exact: see the module documentation (the casts keep the low 32 bits, which hold the
        // whole value for every pair that can conflict).
        let dx = i64::from(x[j].wrapping_sub(other_x[j]) as i32);
        let dy = i64::from(y[j].wrapping_sub(other_y[j]) as i32);
        let reach = i64::from((radius[j] + other_radius[j]) as i32);
        let conflicts = (dx * dx).wrapping_add(dy * dy) < reach * reach;
        let (theirs, mine) = (other_rank[j], rank[j]);
        let (to_own, to_other) = if conflicts {
            (theirs, mine)
        } else {
            (NO_RANK, NO_RANK)
        };
        own_best[j] = own_best[j].max(to_own);
        other_offered[j] = other_offered[j].max(to_other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CELL: i64 = 1000;
    const PER_CELL: usize = 3;
    const PAD: usize = 3 * PER_CELL - 1;

    /// Three rows of `cells` cells with scattered positions, radii up to a cell, distinct ranks,
    /// and some ineligible candidates.
    fn rows(cells: usize) -> Vec<Slots> {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..3)
            .map(|row| {
                let mut slots = Slots::default();
                slots.reset(PAD, cells * PER_CELL);
                for index in 0..cells * PER_CELL {
                    let cell = (index / PER_CELL) as i64;
                    let random = next();
                    let x = cell * CELL + (random % CELL as u64) as i64;
                    let y = row * CELL + ((random >> 20) % CELL as u64) as i64;
                    slots.set_position(index, x, y);
                    if random % 5 != 0 {
                        let radius = ((random >> 40) % (CELL as u64 + 1)) as i64;
                        let rank = ((next() >> 8) << 8 | (row as u64) << 6 | index as u64) as i64;
                        slots.set_eligible(index, radius, rank);
                    }
                }
                slots
            })
            .collect()
    }

    /// Pair by pair, in wide arithmetic: what each slot of each row is offered.
    fn reference(rows: &[Slots]) -> Vec<Vec<Rank>> {
        let mut offered: Vec<Vec<Rank>> = rows.iter().map(|r| vec![NO_RANK; r.len()]).collect();
        for a in 0..rows.len() {
            for b in a..rows.len() {
                for i in 0..rows[a].len() {
                    for j in 0..rows[b].len() {
                        let forward = if a == b { j > i } else { true };
                        if !forward || i.abs_diff(j) > PAD {
                            continue;
                        }
                        let (p, q) = (PAD + i, PAD + j);
                        let (ra, rb) = (rows[a].rank[p], rows[b].rank[q]);
                        if ra == NO_RANK || rb == NO_RANK {
                            continue;
                        }
                        let dx = i128::from(rows[a].x[p] - rows[b].x[q]);
                        let dy = i128::from(rows[a].y[p] - rows[b].y[q]);
                        let reach = i128::from(rows[a].radius[p] + rows[b].radius[q]);
                        if dx * dx + dy * dy < reach * reach {
                            offered[a][i] = offered[a][i].max(rb);
                            offered[b][j] = offered[b][j].max(ra);
                        }
                    }
                }
            }
        }
        offered
    }

    /// Settles the rows in order with `settle`, returning what each eligible slot was offered.
    fn settled(
        rows: &[Slots],
        mut settle: impl FnMut(&mut Slots, &mut [&mut Slots]),
    ) -> Vec<Vec<Rank>> {
        let mut rows = rows.to_vec();
        for first in 0..rows.len() {
            let (before, after) = rows.split_at_mut(first + 1);
            let mut later: Vec<&mut Slots> = after.iter_mut().collect();
            if let Some(row) = before.last_mut() {
                settle(row, &mut later);
            }
        }
        let offers = |row: &Slots| {
            let lanes = PAD..PAD + row.len();
            let ranks = row.rank[lanes.clone()].iter();
            let offered = ranks.zip(&row.offered[lanes]);
            offered
                .map(|(&rank, &offered)| if rank == NO_RANK { NO_RANK } else { offered })
                .collect()
        };
        rows.iter().map(offers).collect()
    }

    /// [`settle_portable`] compiled for AVX2 alone, so that its AVX2 build is tested on a CPU
    /// whose dispatch picks AVX-512.
    #[multiversion(targets("x86_64+avx2"))]
    fn settle_avx2(row: &mut Slots, later: &mut [&mut Slots], own_best: &mut [Rank]) {
        settle_portable(row, later, own_best);
    }

    #[test]
    fn every_instruction_path_settles_pairs_as_the_definition_does() {
        let paths = crate::simd_paths::report("scatter::conflicts", &["AVX-512", "AVX2"]);
        for cells in [1, 2, 5, 17] {
            let rows = rows(cells);
            let expected = reference(&rows);
            let conflicts: usize = expected.iter().flatten().filter(|&&r| r != NO_RANK).count();
            assert!(
                cells < 5 || conflicts > cells,
                "{conflicts} conflicts in {cells} cells"
            );
            let mut scratch = Vec::new();
            let dispatched = settled(&rows, |row, later| settle_row(row, later, &mut scratch));
            assert_eq!(
                dispatched, expected,
                "dispatched ({}), {cells} cells",
                paths.best
            );
            let portable = settled(&rows, |row, later| {
                settle_portable(row, later, &mut vec![NO_RANK; row.len()])
            });
            assert_eq!(portable, expected, "portable, {cells} cells");
            let avx2 = settled(&rows, |row, later| {
                settle_avx2(row, later, &mut vec![NO_RANK; row.len()])
            });
            assert_eq!(avx2, expected, "AVX2 build, {cells} cells");
        }
    }
}
