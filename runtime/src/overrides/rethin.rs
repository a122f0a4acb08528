//! Deciding again, after occupants enter a layer, exactly the candidates they can change: those
//! an occupant conflicts with (thinned by it), and those a displaced candidate had thinned
//! (revived unless another eligible candidate outranks them).
//!
//! Acceptance is local, so only candidates near an occupant or a displaced candidate are read.
//! "Near" is the exact reach of the conflict test: every candidate lies inside its own cell, so
//! the candidates within distance `r` of a point lie in the cells that the box `±(r − 1)` around
//! it touches (never more than two cells away, as every radius is at most the cell size), and a
//! cell's records are found by binary search in the canonical lists. The marks of a layer are one
//! `u32` per output record, so a layer of 100,000 placements costs a few hundred kilobytes of marks
//! however many occupants it has; the marked records are also listed, so reading the marks and
//! filtering the lists never visits every record when none or few were marked.

use super::apply::{within, Occupant};
use super::base::StageBase;
use crate::content::{Placement, RejectReason, RejectedCandidate, ScatterLayer};
use crate::identity::ScatterId;

/// A record's mark: untouched.
const NONE: u32 = u32::MAX;
/// A record's mark: an occupant stands on it (it leaves the lists).
const DISPLACED: u32 = u32::MAX - 1;
/// A record's mark: a thinned candidate accepted again (it moves to the placements).
const REVIVED: u32 = u32::MAX - 2;

/// A thinning participant near a point: an eligible candidate of the output.
#[derive(Clone, Copy)]
struct Near {
    id: ScatterId,
    x: i64,
    y: i64,
    /// Index in placements (`Ok`) or in rejected (`Err`).
    at: Result<usize, usize>,
}

/// The region's cells of a layer, for finding a cell's records in its two canonical lists (which
/// are sorted by cell row, then column) by binary search: no pass over the lists is needed.
struct CellIndex<'a> {
    cell_size: i64,
    min_x: i64,
    min_y: i64,
    width: i64,
    height: i64,
    placements: &'a [Placement],
    rejected: &'a [RejectedCandidate],
}

impl<'a> CellIndex<'a> {
    fn new(layer: &'a ScatterLayer, cell_size: i64) -> CellIndex<'a> {
        let r = &layer.region;
        let (min_x, min_y) = (r.min_x.div_euclid(cell_size), r.min_y.div_euclid(cell_size));
        let width = (r.max_x - 1).div_euclid(cell_size) - min_x + 1;
        let height = (r.max_y - 1).div_euclid(cell_size) - min_y + 1;
        CellIndex {
            cell_size,
            min_x,
            min_y,
            width,
            height,
            placements: &layer.output.placements,
            rejected: &layer.output.rejected,
        }
    }

    /// The index ranges of row `y`'s cells `x0..=x1` (clamped to the region's cells).
    fn row(
        &self,
        y: i64,
        x0: i64,
        x1: i64,
    ) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let y = y - self.min_y;
        let (x0, x1) = (
            (x0 - self.min_x).max(0),
            (x1 - self.min_x).min(self.width - 1),
        );
        if !(0..self.height).contains(&y) || x0 > x1 {
            return None;
        }
        // Cell keys (row, column) of the first cell of the range and of the cell after it.
        let (cy, first, end) = (y + self.min_y, x0 + self.min_x, x1 + self.min_x + 1);
        let (Ok(cy), Ok(first), Ok(end)) =
            (i16::try_from(cy), i16::try_from(first), i32::try_from(end))
        else {
            return None;
        };
        let (first, end) = ((cy, i32::from(first)), (cy, end));
        let cell = |cell_y: i16, cell_x: i16| (cell_y, i32::from(cell_x));
        let placements = self
            .placements
            .partition_point(|p| cell(p.cell_y(), p.cell_x()) < first)
            ..self
                .placements
                .partition_point(|p| cell(p.cell_y(), p.cell_x()) < end);
        let rejected = self
            .rejected
            .partition_point(|r| cell(r.cell_y(), r.cell_x()) < first)
            ..self
                .rejected
                .partition_point(|r| cell(r.cell_y(), r.cell_x()) < end);
        Some((placements, rejected))
    }

    fn span(&self, v: i64, reach: i64, c: i64) -> (i64, i64) {
        cell_span(v, reach, self.cell_size, c)
    }

    /// The index ranges of cell `(cx, cy)`'s records, if it is a cell of the region.
    fn cell(&self, cx: i64, cy: i64) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        self.row(cy, cx, cx)
    }
}

/// The cells (inclusive, along one axis, of size `cs`) where a point lying closer than `reach`
/// to coordinate `v` can be, within two cells of cell `c`.
pub(super) fn cell_span(v: i64, reach: i64, cs: i64, c: i64) -> (i64, i64) {
    let r = reach.saturating_sub(1).max(0);
    (
        v.saturating_sub(r).div_euclid(cs).max(c - 2),
        v.saturating_add(r).div_euclid(cs).min(c + 2),
    )
}

/// A point to gather the neighbours of: its position, how far a neighbour can matter, and the
/// cell whose two-cell window bounds the search.
#[derive(Clone, Copy)]
struct Query {
    x: i64,
    y: i64,
    reach: i64,
    cell: (i64, i64),
}

/// Every eligible candidate of the output that can lie closer than `q.reach` to `q`'s point (a
/// superset: the caller tests the distance).
fn near(layer: &ScatterLayer, index: &CellIndex, q: Query, out: &mut Vec<Near>) {
    out.clear();
    let (x0, x1) = index.span(q.x, q.reach, q.cell.0);
    let (y0, y1) = index.span(q.y, q.reach, q.cell.1);
    for y in y0..=y1 {
        let Some((ps, rs)) = index.row(y, x0, x1) else {
            continue;
        };
        if let Some(list) = layer.output.placements.get(ps.clone()) {
            out.extend(list.iter().zip(ps).map(|(p, i)| Near {
                id: p.id,
                x: p.x,
                y: p.y,
                at: Ok(i),
            }));
        }
        if let Some(list) = layer.output.rejected.get(rs.clone()) {
            for (r, i) in list.iter().zip(rs) {
                if matches!(r.reason(), RejectReason::Conflict { .. }) {
                    out.push(Near {
                        id: r.id,
                        x: r.x,
                        y: r.y,
                        at: Err(i),
                    });
                }
            }
        }
    }
}

/// The rank `(priority, packed id)` and radius of an eligible output candidate.
fn rank_of(layer: &ScatterLayer, base: &StageBase, n: &Near) -> Option<((u32, u64), i64)> {
    match n.at {
        Ok(i) => {
            let p = layer.output.placements.get(i)?;
            Some(((p.priority, p.id.bits()), base.radius(p.variant)))
        }
        Err(_) => {
            let variant = base.drawn_variant(n.id)?;
            Some((
                (base.drawn_priority(n.id), n.id.bits()),
                base.radius(variant),
            ))
        }
    }
}

/// The radius of an eligible output candidate ([`rank_of`]'s, without drawing the priority a
/// thinned candidate's rank needs).
fn radius_of(layer: &ScatterLayer, base: &StageBase, n: &Near) -> Option<i64> {
    match n.at {
        Ok(i) => layer
            .output
            .placements
            .get(i)
            .map(|p| base.radius(p.variant)),
        Err(_) => base.drawn_variant(n.id).map(|variant| base.radius(variant)),
    }
}

/// One mark per record of a layer's output (placements, then rejected, by index): [`NONE`],
/// [`DISPLACED`], [`REVIVED`], or the index of the strongest occupant conflicting with it.
struct Marks {
    placements: usize,
    state: Vec<u32>,
    /// Every slot ever marked (with repeats), so reading the marks never scans all records.
    touched: Vec<usize>,
}

impl Marks {
    fn slot(&self, at: Result<usize, usize>) -> usize {
        match at {
            Ok(i) => i,
            Err(i) => self.placements + i,
        }
    }

    fn get(&self, at: Result<usize, usize>) -> u32 {
        self.state.get(self.slot(at)).copied().unwrap_or(NONE)
    }

    fn set(&mut self, at: Result<usize, usize>, mark: u32) {
        let slot = self.slot(at);
        if let Some(s) = self.state.get_mut(slot) {
            *s = mark;
            self.touched.push(slot);
        }
    }

    fn is_displaced(&self, at: Result<usize, usize>) -> bool {
        self.get(at) == DISPLACED
    }

    /// The index of the strongest occupant conflicting with the record.
    fn hit(&self, at: Result<usize, usize>) -> Option<usize> {
        let mark = self.get(at);
        (mark < REVIVED).then_some(mark as usize)
    }
}

/// Where candidate `id` (a candidate of the layer: its cell is one of the region's) is in the
/// layer's output, if it is there: its cell's records, found through the index.
fn locate(layer: &ScatterLayer, index: &CellIndex, id: ScatterId) -> Option<Result<usize, usize>> {
    let k = id.unpack();
    let key = (k.cell_y, k.cell_x, k.candidate);
    let (ps, rs) = index.cell(i64::from(k.cell_x), i64::from(k.cell_y))?;
    let out = &layer.output;
    if let Some(i) = ps
        .clone()
        .find(|&i| out.placements.get(i).map(Placement::canonical_key) == Some(key))
    {
        return Some(Ok(i));
    }
    rs.clone()
        .find(|&i| out.rejected.get(i).map(RejectedCandidate::canonical_key) == Some(key))
        .map(Err)
}

/// What one layer's rethinning reads: the layer's base output, the stage's base, the cell index
/// and the largest radius.
struct Ctx<'a> {
    layer: &'a ScatterLayer,
    base: &'a StageBase,
    index: CellIndex<'a>,
    /// The largest radius of the family (as the conflict filter uses it).
    max_radius: i64,
    /// The largest absolute radius (for the search reach only).
    max_reach: i64,
}

impl Ctx<'_> {
    fn cell_of(&self, x: i64, y: i64) -> (i64, i64) {
        let cs = self.index.cell_size;
        (x.div_euclid(cs), y.div_euclid(cs))
    }
}

/// Decides again the candidates of `layer` that `occupants` can change, and writes the result.
pub(super) fn rethin(layer: &mut ScatterLayer, base: &StageBase, occupants: &[Occupant]) {
    if occupants.is_empty() || occupants.len() >= REVIVED as usize {
        return;
    }
    let (marks, revived, reasons) = decide(layer, base, occupants);
    write_result(layer, occupants, &marks, revived, reasons);
}

/// The marks, revived placements and new rejection reasons of `layer` with `occupants`.
fn decide(
    layer: &ScatterLayer,
    base: &StageBase,
    occupants: &[Occupant],
) -> (Marks, Vec<Placement>, Vec<(usize, RejectReason)>) {
    let cs = base.cell_size.max(1);
    let placements = layer.output.placements.len();
    let mut marks = Marks {
        placements,
        state: vec![NONE; placements + layer.output.rejected.len()],
        touched: Vec::new(),
    };
    let ctx = Ctx {
        layer,
        base,
        index: CellIndex::new(layer, cs),
        max_radius: base.radii.iter().copied().max().unwrap_or(0),
        max_reach: base
            .radii
            .iter()
            .map(|r| r.saturating_abs())
            .max()
            .unwrap_or(0),
    };
    let displaced: Vec<(ScatterId, Result<usize, usize>)> = occupants
        .iter()
        .filter(|o| o.generated)
        .filter_map(|o| locate(layer, &ctx.index, o.id).map(|at| (o.id, at)))
        .collect();
    for (_, at) in &displaced {
        marks.set(*at, DISPLACED);
    }
    let mut scratch = Vec::new();
    mark_hits(&ctx, occupants, &mut marks, &mut scratch);
    // Thinned candidates: a hit names its occupant; one whose winner was displaced is decided
    // again without it.
    let mut reasons: Vec<(usize, RejectReason)> = Vec::new();
    // The rejected candidates an occupant hit, in list order: only marked slots can be.
    let mut hit: Vec<usize> = marks
        .touched
        .iter()
        .filter_map(|&slot| slot.checked_sub(placements))
        .collect();
    hit.sort_unstable();
    hit.dedup();
    for i in hit {
        if let Some(o) = marks.hit(Err(i)).and_then(|o| occupants.get(o)) {
            reasons.push((i, RejectReason::Conflict { with: o.id }));
        }
    }
    let revive = revive_candidates(&ctx, &displaced, &marks, &mut scratch);
    let revived = decide_revived(&ctx, revive, &mut marks, &mut reasons, &mut scratch);
    (marks, revived, reasons)
}

/// Marks every eligible record an occupant conflicts with by the strongest such occupant.
fn mark_hits(ctx: &Ctx<'_>, occupants: &[Occupant], marks: &mut Marks, scratch: &mut Vec<Near>) {
    for (oi, o) in occupants.iter().enumerate() {
        let query = Query {
            x: o.x,
            y: o.y,
            reach: o.radius.saturating_abs() + ctx.max_reach,
            cell: ctx.cell_of(o.x, o.y),
        };
        near(ctx.layer, &ctx.index, query, scratch);
        for n in scratch.iter() {
            if marks.is_displaced(n.at) || n.id == o.id {
                continue;
            }
            if !within(n.x - o.x, n.y - o.y, o.radius + ctx.max_radius) {
                continue;
            }
            let Some(radius) = radius_of(ctx.layer, ctx.base, n) else {
                continue;
            };
            if within(n.x - o.x, n.y - o.y, o.radius + radius) {
                let stronger = match marks.hit(n.at).and_then(|h| occupants.get(h)) {
                    Some(held) => o.strength > held.strength,
                    None => true,
                };
                if stronger {
                    marks.set(n.at, oi as u32);
                }
            }
        }
    }
}

/// The rejected records (by index, ascending) that a displaced candidate had thinned and that
/// nothing displaces or hits now.
fn revive_candidates(
    ctx: &Ctx<'_>,
    displaced: &[(ScatterId, Result<usize, usize>)],
    marks: &Marks,
    scratch: &mut Vec<Near>,
) -> Vec<usize> {
    let out = &ctx.layer.output;
    let mut revive: Vec<usize> = Vec::new();
    for (d, at) in displaced {
        // What `d` thinned conflicted with it: within twice the largest radius of its position.
        let (x, y) = match *at {
            Ok(i) => out.placements.get(i).map(|p| (p.x, p.y)),
            Err(i) => out.rejected.get(i).map(|r| (r.x, r.y)),
        }
        .unwrap_or_default();
        let key = d.unpack();
        let query = Query {
            x,
            y,
            reach: ctx.max_reach.saturating_mul(2),
            cell: (i64::from(key.cell_x), i64::from(key.cell_y)),
        };
        near(ctx.layer, &ctx.index, query, scratch);
        for n in scratch.iter() {
            let Err(i) = n.at else { continue };
            let thinned_by_d = matches!(
                out.rejected[i].reason(),
                RejectReason::Conflict { with } if with == *d
            );
            if thinned_by_d && !marks.is_displaced(n.at) && marks.hit(n.at).is_none() {
                revive.push(i);
            }
        }
    }
    revive.sort_unstable();
    revive.dedup();
    revive
}

/// Decides each revive candidate against the eligible candidates that stay: accepted (marked
/// [`REVIVED`] and returned, in canonical order) or thinned by the strongest one (its reason).
fn decide_revived(
    ctx: &Ctx<'_>,
    revive: Vec<usize>,
    marks: &mut Marks,
    reasons: &mut Vec<(usize, RejectReason)>,
    scratch: &mut Vec<Near>,
) -> Vec<Placement> {
    let mut revived: Vec<Placement> = Vec::new();
    for i in revive {
        let r = ctx.layer.output.rejected[i];
        let me = Near {
            id: r.id,
            x: r.x,
            y: r.y,
            at: Err(i),
        };
        let Some((rank, radius)) = rank_of(ctx.layer, ctx.base, &me) else {
            continue;
        };
        let query = Query {
            x: r.x,
            y: r.y,
            reach: radius.saturating_abs() + ctx.max_reach,
            cell: (i64::from(r.cell_x()), i64::from(r.cell_y())),
        };
        near(ctx.layer, &ctx.index, query, scratch);
        let mut strongest: Option<(u32, u64)> = None;
        for n in scratch.iter() {
            if n.id == r.id || marks.is_displaced(n.at) {
                continue;
            }
            if !within(n.x - r.x, n.y - r.y, radius + ctx.max_radius) {
                continue;
            }
            let Some((other, other_radius)) = rank_of(ctx.layer, ctx.base, n) else {
                continue;
            };
            if other > rank && within(n.x - r.x, n.y - r.y, radius + other_radius) {
                strongest = strongest.max(Some(other));
            }
        }
        match strongest.and_then(|(_, bits)| ScatterId::from_bits(bits).ok()) {
            Some(with) => reasons.push((i, RejectReason::Conflict { with })),
            None => {
                if let Some(c) = ctx.base.candidate(r.id) {
                    marks.set(Err(i), REVIVED);
                    revived.push(Placement {
                        id: r.id,
                        x: r.x,
                        y: r.y,
                        variant: c.variant,
                        priority: c.priority,
                    });
                }
            }
        }
    }
    revived
}

fn write_result(
    layer: &mut ScatterLayer,
    occupants: &[Occupant],
    marks: &Marks,
    revived: Vec<Placement>,
    reasons: Vec<(usize, RejectReason)>,
) {
    let out = &mut layer.output;
    for (i, reason) in reasons {
        if let Some(r) = out.rejected.get_mut(i) {
            r.set_reason(reason);
        }
    }
    let mut newly_rejected = Vec::new();
    let mut added = revived;
    added.extend(occupants.iter().map(|o| Placement {
        id: o.id,
        x: o.x,
        y: o.y,
        variant: o.variant,
        priority: o.priority,
    }));
    let mut index = 0;
    let keep_placement = |p: &Placement| {
        let at = Ok(index);
        index += 1;
        if marks.is_displaced(at) {
            return false;
        }
        match marks.hit(at).and_then(|o| occupants.get(o)) {
            Some(o) => {
                newly_rejected.push(RejectedCandidate::new(
                    p.id,
                    p.x,
                    p.y,
                    RejectReason::Conflict { with: o.id },
                ));
                false
            }
            None => true,
        }
    };
    // A list none of whose records was marked keeps them all: it is not filtered.
    let placements_marked = marks.touched.iter().any(|&slot| slot < marks.placements);
    let rejected_marked = marks.touched.iter().any(|&slot| slot >= marks.placements);
    merge_in_place(
        &mut out.placements,
        placements_marked.then_some(keep_placement),
        added,
        Placement::canonical_key,
    );
    let mut index = 0;
    let keep_rejected = |_: &RejectedCandidate| {
        let mark = marks.get(Err(index));
        index += 1;
        mark != DISPLACED && mark != REVIVED
    };
    merge_in_place(
        &mut out.rejected,
        rejected_marked.then_some(keep_rejected),
        newly_rejected,
        RejectedCandidate::canonical_key,
    );
}

/// Keeps the records of `list` (in canonical order) that `keep` accepts, visited in order (all of
/// them when there is no `keep`), and merges `added` (any order) in, in place: on equal keys kept records first, then added ones in
/// their order (what a stable sort of the two lists one after the other gives). The list grows
/// only when it ends longer than it was, so a layer of 100,000 placements is not copied into a
/// new allocation.
fn merge_in_place<T: Copy, K: Ord>(
    list: &mut Vec<T>,
    keep: Option<impl FnMut(&T) -> bool>,
    mut added: Vec<T>,
    key: impl Fn(&T) -> K,
) {
    if let Some(keep) = keep {
        list.retain(keep);
    }
    if added.is_empty() {
        return;
    }
    added.sort_by_key(|t| key(t));
    let kept = list.len();
    list.extend_from_slice(&added);
    // Merge from the back: the largest remaining record goes to the last free slot; on equal
    // keys the added one goes later.
    let (mut i, mut j, mut w) = (kept, added.len(), list.len());
    while j > 0 {
        let take_kept = i > 0 && key(&list[i - 1]) > key(&added[j - 1]);
        w -= 1;
        if take_kept {
            list[w] = list[i - 1];
            i -= 1;
        } else {
            list[w] = added[j - 1];
            j -= 1;
        }
    }
}
