//! The per-candidate conflict search of the parallel schedule: each candidate scans its own window,
//! so rows can be decided independently.

use super::decide::Window;
use super::generate::{Candidate, GeneratedRow, Rank};
use super::layer::Layer;
use crate::identity::ScatterId;

/// The generated rows a decided row can conflict with: rows `cy − 2 ..= cy + 2` of the evaluated
/// cells, each holding the candidates of every evaluated column in (cx, k) order.
pub(super) struct Neighbourhood<'a> {
    /// Row `cy − 2 + i` at index `i`; `None` where that row is outside the evaluated cells.
    pub(super) rows: [Option<&'a GeneratedRow>; 5],
    /// The first evaluated column.
    pub(super) first_x: i64,
    /// The last evaluated column.
    pub(super) last_x: i64,
}

/// The highest-ranked eligible candidate that conflicts with and outranks the eligible `candidate`
/// of cell `(cx, cy)` (the middle row of `near`), if any. Rank is `(priority, packed id)`, larger
/// wins.
pub(super) fn strongest_conflict(
    layer: &Layer<'_>,
    near: &Neighbourhood<'_>,
    cx: i64,
    cy: i64,
    candidate: &Candidate,
) -> Option<ScatterId> {
    let radius = i64::from(candidate.radius);
    let window = Window::of(
        layer,
        (candidate.x, candidate.y, radius),
        (cx, cy),
        (near.first_x, near.last_x),
    )?;
    // Starting from the candidate's own rank, "outranks the best so far" also means "outranks the
    // candidate"; the candidate never outranks itself.
    let mut best = Rank {
        priority: candidate.priority,
        id: candidate.id,
    };
    let mut strongest = None;
    for offset in window.first_row..=window.last_row {
        let Some(Some(row)) = near.rows.get((offset + 2) as usize) else {
            continue;
        };
        let eligible = &row.eligible;
        let range = eligible.range(window.columns.clone());
        for index in eligible
            .discs
            .conflicting(range, (candidate.x, candidate.y, radius))
        {
            let rank = eligible.ranks[index];
            if rank > best {
                best = rank;
                strongest = Some(rank.id);
            }
        }
    }
    strongest
}
