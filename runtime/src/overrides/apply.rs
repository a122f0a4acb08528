//! Applying a stage's edits: exclusions become keep-outs before the kernel runs; locked, moved,
//! replaced, frozen and added objects are occupants of the thinning; tombstones and world
//! mutations follow, in that precedence.
//!
//! Occupants enter the thinning rule itself. The result is exactly the scatter of the eligible set
//! `(E ∖ displaced) ∪ occupants`, where an occupant outranks every generated candidate: a candidate
//! is accepted iff it is eligible, not displaced, and no conflicting occupant and no conflicting
//! eligible candidate of higher `(priority, packed id)` exists; a rejection names the strongest
//! such object. Acceptance is local (it reads eligibility, never another candidate's acceptance),
//! so only candidates within two cells of an occupant or of a displaced candidate can change, and
//! exactly those are decided again (`tests.rs` checks this against a full re-solve).
//!
//! A delete is a tombstone applied after thinning: the deleted object still counted as an occupant
//! of the generated base, so deleting one never makes another appear (an exclusion clears space).

use super::base::{revision_of, CandidateBase, StageBase};
use super::{
    action_name, properties, ConflictReason, Edit, EditList, EditOutcome, Property, StageEdits,
};
use crate::content::{
    PlacedProduct, Placement, RejectReason, RejectedCandidate, ScatterLayer, ScatterProduct,
};
use crate::identity::ScatterId;
use crate::ops::scatter::Rect;
use crate::project::schema::{OverrideAction, Vec2};

/// The bound exclusions of `edits` in lattice units, in edit order (what the executor appends to
/// the stage's authored keep-outs before the kernel runs). Unrepresentable ones are left out and
/// reported by [`apply_scatter`].
pub fn exclusions_lattice(edits: &StageEdits, lattice_unit_m: f64) -> Vec<Rect> {
    edits
        .edits
        .iter()
        .filter(|(_, _, bound)| bound.is_ok())
        .filter_map(|(_, edit, _)| match edit {
            Edit::Override(o) => match &o.action {
                OverrideAction::Exclude { min, max } => exclusion_rect(*min, *max, lattice_unit_m),
                _ => None,
            },
            Edit::Mutation(_) => None,
        })
        .collect()
}

fn exclusion_rect(min: Vec2, max: Vec2, unit_m: f64) -> Option<Rect> {
    let to = |m: f64| crate::ops::registry::meters_to_lattice(m, unit_m);
    let rect = Rect::new(to(min.x)?, to(min.y)?, to(max.x)?, to(max.y)?);
    (!rect.is_empty()).then_some(rect)
}

/// A resolved override that survived validation, waiting for the precedence contest.
#[derive(Clone)]
struct Valid {
    /// Index into the stage's edits.
    edit: usize,
    layer: usize,
    id: ScatterId,
    strength: (u32, usize),
    props: &'static [Property],
    variant: Option<u32>,
    position: Option<(i64, i64)>,
    delete: bool,
    /// The candidate's base, `None` for an added object.
    base: Option<CandidateBase>,
}

/// An object the thinning must respect.
#[derive(Clone, Copy)]
struct Occupant {
    id: ScatterId,
    x: i64,
    y: i64,
    variant: u32,
    priority: u32,
    radius: i64,
    strength: (u32, usize),
    /// Whether it stands on a generated candidate (which it displaces).
    generated: bool,
}

/// Applies `edits` to a scatter stage's product (already generated with the exclusions as
/// keep-outs). Returns one outcome per edit, in edit order.
pub fn apply_scatter(
    product: &mut ScatterProduct,
    base: &StageBase,
    edits: &StageEdits,
) -> Vec<EditOutcome> {
    let mut outcomes: Vec<EditOutcome> = edits
        .edits
        .iter()
        .map(|(at, edit, bound)| {
            let (target, action) = match edit {
                Edit::Override(o) => (o.target, action_name(&o.action)),
                Edit::Mutation(m) => (m.target, if m.harvested { "Harvest" } else { "Regrow" }),
            };
            EditOutcome {
                edit: at.clone(),
                stage: base.stage,
                target,
                action,
                found_base: found_base(product, base, edit),
                result: bound.clone(),
                regrow: None,
            }
        })
        .collect();
    let valid = validate(product, base, edits, &mut outcomes);
    let winners = contest(&valid, &mut outcomes);
    let mut tombstones: Vec<(usize, ScatterId)> = Vec::new();
    let mut per_layer: Vec<Vec<(Occupant, Vec<usize>)>> = vec![Vec::new(); product.layers.len()];
    for group in winners {
        let Some(first) = group.first() else { continue };
        if let Some(delete) = group.iter().find(|v| v.delete) {
            tombstones.push((delete.edit, delete.id));
            continue;
        }
        let start = first
            .base
            .map_or((0, 0, 0, 0), |b| (b.x, b.y, b.variant, b.priority));
        let (mut x, mut y, mut variant, priority) = start;
        for v in &group {
            if let Some(new) = v.variant {
                variant = new;
            }
            if let Some((nx, ny)) = v.position {
                (x, y) = (nx, ny);
            }
        }
        let strength = group.iter().map(|v| v.strength).max().unwrap_or((0, 0));
        let occupant = Occupant {
            id: first.id,
            x,
            y,
            variant,
            priority,
            radius: base.radius(variant),
            strength,
            generated: first.base.is_some(),
        };
        if let Some(layer) = per_layer.get_mut(first.layer) {
            layer.push((occupant, group.iter().map(|v| v.edit).collect()));
        }
    }
    for (layer, occupants) in product.layers.iter_mut().zip(per_layer) {
        let kept = settle_occupants(base, occupants, &mut outcomes);
        rethin(layer, base, &kept);
    }
    for (edit, id) in &tombstones {
        if placement_mut(product, *id).is_none() {
            fail(&mut outcomes, *edit, ConflictReason::TargetGone);
        }
    }
    remove_placements(product, tombstones.into_iter().map(|(_, id)| id).collect());
    super::mutation::apply_mutations(product, base, edits, &mut outcomes);
    outcomes
}

/// The target's base revision now, for every edit with a generated target.
fn found_base(product: &ScatterProduct, base: &StageBase, edit: &Edit) -> Option<String> {
    let (target, is_add_or_exclude) = match edit {
        Edit::Override(o) => (
            o.target,
            matches!(
                o.action,
                OverrideAction::Add { .. } | OverrideAction::Exclude { .. }
            ),
        ),
        Edit::Mutation(m) => (m.target, false),
    };
    if is_add_or_exclude {
        return None;
    }
    let id = ScatterId::from_bits(target).ok()?;
    product
        .layers
        .iter()
        .any(|l| base.is_candidate_of(l, id))
        .then(|| base.revision(id))
        .flatten()
}

fn fail(outcomes: &mut [EditOutcome], edit: usize, reason: ConflictReason) {
    if let Some(outcome) = outcomes.get_mut(edit) {
        if outcome.result.is_ok() {
            outcome.result = Err(reason);
        }
    }
}

/// Why `(x, y)` is not an eligible position of `layer`, if it is not.
fn hard_constraint(layer: &ScatterLayer, x: i64, y: i64) -> Option<ConflictReason> {
    if !layer.region.contains(x, y) {
        return Some(ConflictReason::OutsideRegion);
    }
    layer
        .keep_outs
        .iter()
        .position(|r| r.contains(x, y))
        .map(|k| ConflictReason::InsideKeepOut { keep_out: k as u32 })
}

/// Checks every bound override against the base: its target, base revision, hard constraints and
/// variant. Failures are written to `outcomes`; the survivors are returned.
fn validate(
    product: &ScatterProduct,
    base: &StageBase,
    edits: &StageEdits,
    outcomes: &mut [EditOutcome],
) -> Vec<Valid> {
    let mut valid = Vec::new();
    for (index, (_, edit, _)) in edits.edits.iter().enumerate() {
        let Edit::Override(o) = edit else { continue };
        if outcomes[index].result.is_err() {
            continue;
        }
        if let OverrideAction::Exclude { min, max } = &o.action {
            if exclusion_rect(*min, *max, base.lattice_unit_m).is_none() {
                fail(outcomes, index, ConflictReason::Unrepresentable);
            }
            continue;
        }
        match validate_one(product, base, o, index, &outcomes[index]) {
            Ok(v) => valid.push(v),
            Err(reason) => fail(outcomes, index, reason),
        }
    }
    valid
}

fn validate_one(
    product: &ScatterProduct,
    base: &StageBase,
    o: &crate::project::schema::Override,
    index: usize,
    outcome: &EditOutcome,
) -> Result<Valid, ConflictReason> {
    let is_add = matches!(o.action, OverrideAction::Add { .. });
    let id = ScatterId::from_bits(o.target).map_err(|_| {
        if is_add {
            ConflictReason::IdentityCollision
        } else {
            ConflictReason::TargetGone
        }
    })?;
    let key = id.unpack();
    let layer_index = product
        .layers
        .iter()
        .position(|l| l.room == key.room.get() && l.layer == key.layer);
    let mut v = Valid {
        edit: index,
        layer: layer_index.unwrap_or(0),
        id,
        strength: (o.precedence, index),
        props: properties(&o.action),
        variant: None,
        position: None,
        delete: false,
        base: None,
    };
    if is_add {
        let Some(layer) = layer_index.and_then(|i| product.layers.get(i)) else {
            return Err(ConflictReason::IdentityCollision);
        };
        if u32::from(key.candidate) < base.candidates_per_cell {
            return Err(ConflictReason::IdentityCollision);
        }
        if let OverrideAction::Add { variant, position } = &o.action {
            v.variant = Some(variant_index(base, variant)?);
            let at = lattice(base, *position)?;
            if let Some(reason) = hard_constraint(layer, at.0, at.1) {
                return Err(reason);
            }
            v.position = Some(at);
        }
        return Ok(v);
    }
    let Some(layer) = layer_index
        .and_then(|i| product.layers.get(i))
        .filter(|l| base.is_candidate_of(l, id))
    else {
        return Err(ConflictReason::TargetGone);
    };
    let candidate = base.candidate(id).ok_or(ConflictReason::TargetGone)?;
    let found = outcome
        .found_base
        .clone()
        .unwrap_or_else(|| revision_of(base.seed, id, &candidate));
    if !o.base.is_empty() && o.base != found {
        return Err(ConflictReason::BaseRevisionMismatch {
            expected: o.base.clone(),
            found,
        });
    }
    v.base = Some(candidate);
    if matches!(o.action, OverrideAction::Delete) {
        v.delete = true;
        return Ok(v);
    }
    if let Some(reason) = hard_constraint(layer, candidate.x, candidate.y) {
        return Err(reason);
    }
    let (variant, position) = match &o.action {
        OverrideAction::LockSelection { variant } if variant.is_empty() => (None, None),
        OverrideAction::LockSelection { variant } | OverrideAction::Replace { variant } => {
            (Some(variant.as_str()), None)
        }
        OverrideAction::LockTransform { position, .. } | OverrideAction::Move { position } => {
            (None, Some(*position))
        }
        OverrideAction::FreezeSubtree {
            variant, position, ..
        } => (Some(variant.as_str()), Some(*position)),
        _ => (None, None),
    };
    if let Some(variant) = variant {
        v.variant = Some(variant_index(base, variant)?);
    }
    if let Some(position) = position {
        let at = lattice(base, position)?;
        if let Some(reason) = hard_constraint(layer, at.0, at.1) {
            return Err(reason);
        }
        v.position = Some(at);
    }
    Ok(v)
}

fn variant_index(base: &StageBase, variant: &str) -> Result<u32, ConflictReason> {
    base.variant_index(variant)
        .ok_or_else(|| ConflictReason::UnknownVariant {
            variant: variant.to_owned(),
        })
}

fn lattice(base: &StageBase, position: Vec2) -> Result<(i64, i64), ConflictReason> {
    match (base.to_lattice(position.x), base.to_lattice(position.y)) {
        (Some(x), Some(y)) => Ok((x, y)),
        _ => Err(ConflictReason::Unrepresentable),
    }
}

/// The precedence contest: per target, the strongest override (precedence, then the later one)
/// claims its properties; an override sharing a claimed property is superseded. Returns the
/// winners grouped by target, targets ascending.
fn contest(valid: &[Valid], outcomes: &mut [EditOutcome]) -> Vec<Vec<Valid>> {
    let mut order: Vec<&Valid> = valid.iter().collect();
    order.sort_by_key(|v| (v.id.bits(), std::cmp::Reverse(v.strength)));
    let mut groups: Vec<Vec<Valid>> = Vec::new();
    let mut claimed: Vec<(Property, usize)> = Vec::new();
    let mut current: Option<u64> = None;
    for v in order {
        if current != Some(v.id.bits()) {
            current = Some(v.id.bits());
            claimed.clear();
            groups.push(Vec::new());
        }
        let by = claimed
            .iter()
            .find(|(p, _)| v.props.contains(p))
            .map(|(_, edit)| *edit);
        match by {
            Some(winner) => {
                let by = outcomes[winner].edit.clone();
                fail(outcomes, v.edit, ConflictReason::Superseded { by });
            }
            None => {
                claimed.extend(v.props.iter().map(|p| (*p, v.edit)));
                if let Some(group) = groups.last_mut() {
                    group.push(v.clone());
                }
            }
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Resolves overlaps between one layer's occupants, strongest first: an occupant overlapping a
/// stronger one is dropped and its edits report the conflict. Returns the kept occupants.
fn settle_occupants(
    base: &StageBase,
    mut occupants: Vec<(Occupant, Vec<usize>)>,
    outcomes: &mut [EditOutcome],
) -> Vec<Occupant> {
    occupants.sort_by_key(|(o, _)| std::cmp::Reverse(o.strength));
    let cs = base.cell_size.max(1);
    let cell = |o: &Occupant| (o.y.div_euclid(cs), o.x.div_euclid(cs));
    // Every radius is at most the cell size, so overlapping occupants are within two cells.
    let mut by_cell: Vec<((i64, i64), usize)> = occupants
        .iter()
        .enumerate()
        .map(|(i, (o, _))| (cell(o), i))
        .collect();
    by_cell.sort_unstable();
    let mut kept_flags = vec![false; occupants.len()];
    for i in 0..occupants.len() {
        let o = occupants[i].0;
        let (cy, cx) = cell(&o);
        let mut blocker = None;
        'search: for y in cy - 2..=cy + 2 {
            let from = by_cell.partition_point(|(c, _)| *c < (y, cx - 2));
            for &((yy, xx), j) in &by_cell[from..] {
                if yy != y || xx > cx + 2 {
                    break;
                }
                if j != i && kept_flags[j] && conflicts(&o, &occupants[j].0) {
                    blocker = Some(occupants[j].0.id.bits());
                    break 'search;
                }
            }
        }
        match blocker {
            Some(with) => {
                for &edit in &occupants[i].1 {
                    fail(outcomes, edit, ConflictReason::OverlapsOccupant { with });
                }
            }
            None => kept_flags[i] = true,
        }
    }
    occupants
        .into_iter()
        .zip(kept_flags)
        .filter(|(_, kept)| *kept)
        .map(|((o, _), _)| o)
        .collect()
}

fn conflicts(a: &Occupant, b: &Occupant) -> bool {
    within(a.x - b.x, a.y - b.y, a.radius + b.radius)
}

/// `dx² + dy² < r²`, exact in `i128`.
fn within(dx: i64, dy: i64, r: i64) -> bool {
    let (dx, dy, r) = (i128::from(dx), i128::from(dy), i128::from(r));
    dx * dx + dy * dy < r * r
}

/// A thinning participant near an occupant: an eligible candidate of the output.
#[derive(Clone, Copy)]
struct Near {
    id: ScatterId,
    x: i64,
    y: i64,
    /// Index in placements (`Ok`) or in rejected (`Err`).
    at: Result<usize, usize>,
}

/// Where each cell's records start in a layer's two canonical lists (row-major over the region's
/// cells, which is their canonical order), so gathering a neighbourhood costs no search.
struct CellIndex {
    min_x: i64,
    min_y: i64,
    width: i64,
    height: i64,
    placements: Vec<u32>,
    rejected: Vec<u32>,
}

impl CellIndex {
    fn new(layer: &ScatterLayer, cell_size: i64) -> CellIndex {
        let r = &layer.region;
        let (min_x, min_y) = (r.min_x.div_euclid(cell_size), r.min_y.div_euclid(cell_size));
        let width = (r.max_x - 1).div_euclid(cell_size) - min_x + 1;
        let height = (r.max_y - 1).div_euclid(cell_size) - min_y + 1;
        let cells = usize::try_from(width * height).unwrap_or(0);
        let starts = |keys: &mut dyn Iterator<Item = (i16, i16)>| {
            let mut counts = vec![0u32; cells + 1];
            for (cy, cx) in keys {
                let (x, y) = (i64::from(cx) - min_x, i64::from(cy) - min_y);
                if (0..width).contains(&x) && (0..height).contains(&y) {
                    counts[(y * width + x) as usize + 1] += 1;
                }
            }
            for i in 1..counts.len() {
                counts[i] += counts[i - 1];
            }
            counts
        };
        let out = &layer.output;
        CellIndex {
            min_x,
            min_y,
            width,
            height,
            placements: starts(&mut out.placements.iter().map(|p| (p.cell_y, p.cell_x))),
            rejected: starts(&mut out.rejected.iter().map(|p| (p.cell_y, p.cell_x))),
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
        let (first, last) = (
            (y * self.width + x0) as usize,
            (y * self.width + x1) as usize + 1,
        );
        let range = |starts: &[u32]| {
            starts.get(first).copied().unwrap_or(0) as usize
                ..starts.get(last).copied().unwrap_or(0) as usize
        };
        Some((range(&self.placements), range(&self.rejected)))
    }
}

/// Every eligible candidate of the output in the cells within two of `(cx, cy)`.
fn near(layer: &ScatterLayer, index: &CellIndex, cx: i64, cy: i64, out: &mut Vec<Near>) {
    out.clear();
    for y in cy - 2..=cy + 2 {
        let Some((ps, rs)) = index.row(y, cx - 2, cx + 2) else {
            continue;
        };
        for i in ps {
            if let Some(p) = layer.output.placements.get(i) {
                out.push(Near {
                    id: p.id,
                    x: p.x,
                    y: p.y,
                    at: Ok(i),
                });
            }
        }
        for i in rs {
            if let Some(r) = layer.output.rejected.get(i) {
                if matches!(r.reason, RejectReason::Conflict { .. }) {
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

/// Per record of a layer's output (placements, then rejected, by index): displaced, and the
/// strongest occupant conflicting with it.
struct Marks {
    placements: usize,
    displaced: Vec<bool>,
    hit: Vec<Option<((u32, usize), u64)>>,
}

impl Marks {
    fn slot(&self, at: Result<usize, usize>) -> usize {
        match at {
            Ok(i) => i,
            Err(i) => self.placements + i,
        }
    }

    fn is_displaced(&self, at: Result<usize, usize>) -> bool {
        self.displaced.get(self.slot(at)).copied().unwrap_or(false)
    }

    fn hit_by(&self, at: Result<usize, usize>) -> Option<u64> {
        self.hit
            .get(self.slot(at))
            .copied()
            .flatten()
            .map(|(_, id)| id)
    }
}

/// Where candidate `id` is in the layer's output, if it is there.
fn locate(layer: &ScatterLayer, id: ScatterId) -> Option<Result<usize, usize>> {
    let k = id.unpack();
    let key = (k.cell_y, k.cell_x, k.candidate);
    let out = &layer.output;
    if let Ok(i) = out
        .placements
        .binary_search_by_key(&key, Placement::canonical_key)
    {
        return Some(Ok(i));
    }
    out.rejected
        .binary_search_by_key(&key, RejectedCandidate::canonical_key)
        .ok()
        .map(Err)
}

/// Decides again the candidates of `layer` that `occupants` can change, and writes the result.
fn rethin(layer: &mut ScatterLayer, base: &StageBase, occupants: &[Occupant]) {
    if occupants.is_empty() {
        return;
    }
    let cs = base.cell_size.max(1);
    let max_radius = base.radii.iter().copied().max().unwrap_or(0);
    let placements = layer.output.placements.len();
    let mut marks = Marks {
        placements,
        displaced: vec![false; placements + layer.output.rejected.len()],
        hit: vec![None; placements + layer.output.rejected.len()],
    };
    let displaced: Vec<(ScatterId, Result<usize, usize>)> = occupants
        .iter()
        .filter(|o| o.generated)
        .filter_map(|o| locate(layer, o.id).map(|at| (o.id, at)))
        .collect();
    for (_, at) in &displaced {
        let slot = marks.slot(*at);
        marks.displaced[slot] = true;
    }
    let index = CellIndex::new(layer, cs);
    let mut scratch = Vec::new();
    for o in occupants {
        near(
            layer,
            &index,
            o.x.div_euclid(cs),
            o.y.div_euclid(cs),
            &mut scratch,
        );
        for n in &scratch {
            if marks.is_displaced(n.at) || n.id == o.id {
                continue;
            }
            if !within(n.x - o.x, n.y - o.y, o.radius + max_radius) {
                continue;
            }
            let Some((_, radius)) = rank_of(layer, base, n) else {
                continue;
            };
            if within(n.x - o.x, n.y - o.y, o.radius + radius) {
                let slot = marks.slot(n.at);
                let stronger = marks.hit[slot].is_none_or(|(s, _)| o.strength > s);
                if stronger {
                    marks.hit[slot] = Some((o.strength, o.id.bits()));
                }
            }
        }
    }
    // Thinned candidates: a hit names its occupant; one whose winner was displaced is decided
    // again without it.
    let mut reasons: Vec<(usize, RejectReason)> = Vec::new();
    for i in 0..layer.output.rejected.len() {
        if let Some(with) = marks
            .hit_by(Err(i))
            .and_then(|o| ScatterId::from_bits(o).ok())
        {
            reasons.push((i, RejectReason::Conflict { with }));
        }
    }
    let mut revive: Vec<usize> = Vec::new();
    for (d, _) in &displaced {
        near(
            layer,
            &index,
            i64::from(d.unpack().cell_x),
            i64::from(d.unpack().cell_y),
            &mut scratch,
        );
        for n in &scratch {
            let Err(i) = n.at else { continue };
            let thinned_by_d = matches!(
                layer.output.rejected[i].reason,
                RejectReason::Conflict { with } if with == *d
            );
            if thinned_by_d && !marks.is_displaced(n.at) && marks.hit_by(n.at).is_none() {
                revive.push(i);
            }
        }
    }
    revive.sort_unstable();
    revive.dedup();
    let mut revived: Vec<Placement> = Vec::new();
    for i in revive {
        let r = layer.output.rejected[i];
        let me = Near {
            id: r.id,
            x: r.x,
            y: r.y,
            at: Err(i),
        };
        let Some((rank, radius)) = rank_of(layer, base, &me) else {
            continue;
        };
        near(
            layer,
            &index,
            i64::from(r.cell_x),
            i64::from(r.cell_y),
            &mut scratch,
        );
        let mut strongest: Option<(u32, u64)> = None;
        for n in &scratch {
            if n.id == r.id || marks.is_displaced(n.at) {
                continue;
            }
            if !within(n.x - r.x, n.y - r.y, radius + max_radius) {
                continue;
            }
            let Some((other, other_radius)) = rank_of(layer, base, n) else {
                continue;
            };
            if other > rank && within(n.x - r.x, n.y - r.y, radius + other_radius) {
                strongest = strongest.max(Some(other));
            }
        }
        match strongest.and_then(|(_, bits)| ScatterId::from_bits(bits).ok()) {
            Some(with) => reasons.push((i, RejectReason::Conflict { with })),
            None => {
                if let Some(c) = base.candidate(r.id) {
                    revived.push(Placement {
                        id: r.id,
                        cell_x: r.cell_x,
                        cell_y: r.cell_y,
                        candidate: r.candidate,
                        x: r.x,
                        y: r.y,
                        variant: c.variant,
                        priority: c.priority,
                    });
                }
            }
        }
    }
    write_result(layer, occupants, &marks, revived, reasons);
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
            r.reason = reason;
        }
    }
    let mut revived_ids: Vec<(i16, i16, u8)> =
        revived.iter().map(Placement::canonical_key).collect();
    revived_ids.sort_unstable();
    let mut newly_rejected = Vec::new();
    let mut index = 0;
    out.placements.retain(|p| {
        let at = Ok(index);
        index += 1;
        if marks.is_displaced(at) {
            return false;
        }
        match marks.hit_by(at).and_then(|o| ScatterId::from_bits(o).ok()) {
            Some(with) => {
                newly_rejected.push(RejectedCandidate {
                    id: p.id,
                    cell_x: p.cell_x,
                    cell_y: p.cell_y,
                    candidate: p.candidate,
                    x: p.x,
                    y: p.y,
                    reason: RejectReason::Conflict { with },
                });
                false
            }
            None => true,
        }
    });
    let mut index = 0;
    out.rejected.retain(|r| {
        let at = Err(index);
        index += 1;
        !marks.is_displaced(at) && revived_ids.binary_search(&r.canonical_key()).is_err()
    });
    out.rejected.extend(newly_rejected);
    out.placements.extend(revived);
    out.placements.extend(occupants.iter().map(|o| {
        let key = o.id.unpack();
        Placement {
            id: o.id,
            cell_x: key.cell_x,
            cell_y: key.cell_y,
            candidate: key.candidate,
            x: o.x,
            y: o.y,
            variant: o.variant,
            priority: o.priority,
        }
    }));
    // Both lists are a sorted run and a short tail: the stable sort merges them in linear time.
    out.placements.sort_by_key(Placement::canonical_key);
    out.rejected.sort_by_key(RejectedCandidate::canonical_key);
}

/// Removes the placements `ids` from the product, in one pass per layer.
pub(super) fn remove_placements(product: &mut ScatterProduct, mut ids: Vec<ScatterId>) {
    if ids.is_empty() {
        return;
    }
    ids.sort_unstable_by_key(|id| id.bits());
    for layer in &mut product.layers {
        layer.output.placements.retain(|p| {
            ids.binary_search_by_key(&p.id.bits(), |id| id.bits())
                .is_err()
        });
    }
}

/// The placement `id` of the product, mutably.
pub(super) fn placement_mut(product: &mut ScatterProduct, id: ScatterId) -> Option<&mut Placement> {
    let key = id.unpack();
    let layer = product
        .layers
        .iter_mut()
        .find(|l| l.room == key.room.get() && l.layer == key.layer)?;
    let list = &mut layer.output.placements;
    let at = list
        .binary_search_by_key(
            &(key.cell_y, key.cell_x, key.candidate),
            Placement::canonical_key,
        )
        .ok()?;
    list.get_mut(at)
}

/// Applies the transforms that applied lock-transform and freeze overrides of the placements
/// stage keep: the objects' rotation and scale. `upstream` are the placements stage's outcomes.
pub fn apply_placed(product: &mut PlacedProduct, edits: &StageEdits, upstream: &[EditOutcome]) {
    for ((_, edit, _), outcome) in edits.edits.iter().zip(upstream) {
        if outcome.result.is_err() || outcome.edit.list != EditList::Override {
            continue;
        }
        let Edit::Override(o) = edit else { continue };
        let (rotation, scale) = match &o.action {
            OverrideAction::LockTransform {
                rotation, scale, ..
            }
            | OverrideAction::FreezeSubtree {
                rotation, scale, ..
            } => (*rotation, *scale),
            _ => continue,
        };
        let Ok(id) = ScatterId::from_bits(o.target) else {
            continue;
        };
        let key = id.unpack();
        let found = product.objects.binary_search_by_key(
            &(
                key.room.get(),
                key.layer,
                key.cell_y,
                key.cell_x,
                key.candidate,
            ),
            |object| {
                let k = object.placement.id.unpack();
                (k.room.get(), k.layer, k.cell_y, k.cell_x, k.candidate)
            },
        );
        let object = match found {
            Ok(at) => product.objects.get_mut(at),
            Err(_) => product
                .objects
                .iter_mut()
                .find(|object| object.placement.id == id),
        };
        if let Some(object) = object {
            object.rotation_turns_65536 = rotation;
            object.scale = scale;
        }
    }
}
