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

use std::ops::Range;

use super::base::{revision_of, CandidateBase, StageBase};
use super::{
    action_name, properties, ConflictReason, Edit, EditList, EditOutcome, Property, StageEdits,
};
use crate::content::{PlacedProduct, Placement, ScatterLayer, ScatterProduct};
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
#[derive(Clone, Copy)]
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
    /// A rotate: it touches the placed object's rotation only, never the thinning.
    rotate: bool,
    /// The candidate's base, `None` for an added object.
    base: Option<CandidateBase>,
}

/// An object the thinning must respect.
#[derive(Clone, Copy)]
pub(super) struct Occupant {
    /// Its identity.
    pub(super) id: ScatterId,
    /// Lattice position.
    pub(super) x: i64,
    /// Lattice position.
    pub(super) y: i64,
    /// Variant index.
    pub(super) variant: u32,
    /// The base priority (0 for an added object).
    pub(super) priority: u32,
    /// Exclusion radius of its variant.
    pub(super) radius: i64,
    /// Its strongest edit's (precedence, edit index).
    pub(super) strength: (u32, usize),
    /// Whether it stands on a generated candidate (which it displaces).
    pub(super) generated: bool,
}

/// Applies `edits` to a scatter stage's product (already generated with the exclusions as
/// keep-outs). Returns one outcome per edit, in edit order.
pub fn apply_scatter(
    product: &mut ScatterProduct,
    base: &StageBase,
    edits: &StageEdits,
) -> Vec<EditOutcome> {
    let (mut outcomes, drawn) = initial_outcomes(product, base, edits);
    let valid = validate(product, base, edits, &drawn, &mut outcomes);
    let (winners, groups, rotations) = contest(valid, &mut outcomes);
    let (tombstones, per_layer) = occupants_of(product.layers.len(), base, &winners, &groups);
    for (layer, occupants) in product.layers.iter_mut().zip(per_layer) {
        let kept = settle_occupants(base, occupants, &winners, &mut outcomes);
        super::rethin::rethin(layer, base, &kept);
    }
    let ids: Vec<ScatterId> = tombstones.iter().map(|(_, id)| *id).collect();
    let found = remove_placements(product, &ids);
    for ((edit, _), found) in tombstones.iter().zip(found) {
        if !found {
            fail(&mut outcomes, *edit, ConflictReason::TargetGone);
        }
    }
    // A rotate applies to a placement of the result (select-and-place turns it).
    for v in &rotations {
        if placement_mut(product, v.id).is_none() {
            fail(&mut outcomes, v.edit, ConflictReason::TargetGone);
        }
    }
    super::mutation::apply_mutations(product, base, edits, &mut outcomes);
    outcomes
}

/// One outcome per edit (its binding as the result so far, the target's base revision), and
/// the base draws of each edit's generated target, drawn once for the revision and validation.
fn initial_outcomes(
    product: &ScatterProduct,
    base: &StageBase,
    edits: &StageEdits,
) -> (Vec<EditOutcome>, Vec<Option<CandidateBase>>) {
    let mut drawn = Vec::with_capacity(edits.edits.len());
    let outcomes = edits
        .edits
        .iter()
        .map(|(at, edit, bound)| {
            let (target, action) = match edit {
                Edit::Override(o) => (o.target, action_name(&o.action)),
                Edit::Mutation(m) => (m.target, if m.harvested { "Harvest" } else { "Regrow" }),
            };
            let candidate = generated_target(product, base, edit);
            drawn.push(candidate.map(|(_, c)| c));
            EditOutcome {
                edit: at.clone(),
                stage: base.stage,
                target,
                action,
                found_base: candidate.map(|(id, c)| revision_of(base.seed, id, &c)),
                result: bound.clone(),
                regrow: None,
            }
        })
        .collect();
    (outcomes, drawn)
}

/// Groups the contest's winners per target into tombstones (edit, target) and per layer the
/// occupants (with the range of their edits among the winners).
#[allow(clippy::type_complexity)]
fn occupants_of(
    layers: usize,
    base: &StageBase,
    winners: &[Valid],
    groups: &[Range<usize>],
) -> (Vec<(usize, ScatterId)>, Vec<Vec<(Occupant, Range<usize>)>>) {
    let mut tombstones: Vec<(usize, ScatterId)> = Vec::new();
    let mut per_layer: Vec<Vec<(Occupant, Range<usize>)>> = vec![Vec::new(); layers];
    for range in groups {
        let Some(group) = winners.get(range.clone()) else {
            continue;
        };
        let Some(first) = group.first() else { continue };
        if let Some(delete) = group.iter().find(|v| v.delete) {
            tombstones.push((delete.edit, delete.id));
            continue;
        }
        let start = first
            .base
            .map_or((0, 0, 0, 0), |b| (b.x, b.y, b.variant, b.priority));
        let (mut x, mut y, mut variant, priority) = start;
        for v in group {
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
            layer.push((occupant, range.clone()));
        }
    }
    (tombstones, per_layer)
}

/// The identity and base draws of the edit's target, when it names a generated candidate.
fn generated_target(
    product: &ScatterProduct,
    base: &StageBase,
    edit: &Edit,
) -> Option<(ScatterId, CandidateBase)> {
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
    if !product.layers.iter().any(|l| base.is_candidate_of(l, id)) {
        return None;
    }
    Some((id, base.candidate(id)?))
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
    drawn: &[Option<CandidateBase>],
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
        let drawn = drawn.get(index).copied().flatten();
        match validate_one(product, base, o, index, drawn, &outcomes[index]) {
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
    drawn: Option<CandidateBase>,
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
        rotate: false,
        base: None,
    };
    if matches!(o.action, OverrideAction::Rotate { .. }) {
        v.rotate = true;
        return validate_rotate(product, base, o, v, drawn, outcome);
    }
    if is_add {
        let layer = layer_index.and_then(|i| product.layers.get(i));
        return validate_add(base, &o.action, layer, v);
    }
    let Some(layer) = layer_index
        .and_then(|i| product.layers.get(i))
        .filter(|l| base.is_candidate_of(l, id))
    else {
        return Err(ConflictReason::TargetGone);
    };
    let candidate = drawn
        .or_else(|| base.candidate(id))
        .ok_or(ConflictReason::TargetGone)?;
    check_revision(o, outcome, || revision_of(base.seed, id, &candidate))?;
    v.base = Some(candidate);
    if matches!(o.action, OverrideAction::Delete) {
        v.delete = true;
        return Ok(v);
    }
    if let Some(reason) = hard_constraint(layer, candidate.x, candidate.y) {
        return Err(reason);
    }
    let (variant, position) = edited_variant_and_position(&o.action);
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

/// An add: its identity must be an authored one in an existing layer, its variant known and
/// its position inside the layer's hard constraints.
fn validate_add(
    base: &StageBase,
    action: &OverrideAction,
    layer: Option<&ScatterLayer>,
    mut v: Valid,
) -> Result<Valid, ConflictReason> {
    let Some(layer) = layer else {
        return Err(ConflictReason::IdentityCollision);
    };
    if !v.id.is_authored() {
        return Err(ConflictReason::IdentityCollision);
    }
    if let OverrideAction::Add { variant, position } = action {
        v.variant = Some(variant_index(base, variant)?);
        let at = lattice(base, *position)?;
        if let Some(reason) = hard_constraint(layer, at.0, at.1) {
            return Err(reason);
        }
        v.position = Some(at);
    }
    Ok(v)
}

/// The variant and position an edit of a generated candidate sets, if any (a lock of the
/// selection without a variant sets neither).
fn edited_variant_and_position(action: &OverrideAction) -> (Option<&str>, Option<Vec2>) {
    match action {
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
    }
}

/// A rotate of a generated candidate checks its base revision as every override does; a rotate
/// of an added object (no generated base) needs only its layer. Whether the target is placed is
/// decided after thinning.
fn validate_rotate(
    product: &ScatterProduct,
    base: &StageBase,
    o: &crate::project::schema::Override,
    mut v: Valid,
    drawn: Option<CandidateBase>,
    outcome: &EditOutcome,
) -> Result<Valid, ConflictReason> {
    let key = v.id.unpack();
    let Some(layer) = product
        .layers
        .iter()
        .find(|l| l.room == key.room.get() && l.layer == key.layer)
    else {
        return Err(ConflictReason::TargetGone);
    };
    if !base.is_candidate_of(layer, v.id) {
        return Ok(v);
    }
    let candidate = drawn
        .or_else(|| base.candidate(v.id))
        .ok_or(ConflictReason::TargetGone)?;
    check_revision(o, outcome, || revision_of(base.seed, v.id, &candidate))?;
    v.base = Some(candidate);
    Ok(v)
}

/// Fails with a base revision mismatch when `o` expects a revision other than its target's
/// (the outcome's, or `revision` when the outcome has none).
fn check_revision(
    o: &crate::project::schema::Override,
    outcome: &EditOutcome,
    revision: impl FnOnce() -> String,
) -> Result<(), ConflictReason> {
    if o.base.is_empty() {
        return Ok(());
    }
    let mismatch = |found: String| ConflictReason::BaseRevisionMismatch {
        expected: o.base.clone(),
        found,
    };
    match &outcome.found_base {
        Some(found) if *found == o.base => Ok(()),
        Some(found) => Err(mismatch(found.clone())),
        None => {
            let found = revision();
            if found == o.base {
                Ok(())
            } else {
                Err(mismatch(found))
            }
        }
    }
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
/// winners, targets ascending and strongest first, and the range of each target's winners;
/// winning rotates, which never enter the thinning, are returned apart.
#[allow(clippy::type_complexity)]
fn contest(
    valid: Vec<Valid>,
    outcomes: &mut [EditOutcome],
) -> (Vec<Valid>, Vec<Range<usize>>, Vec<Valid>) {
    // Sorted through small keys (each strength is unique: it holds the edit index), so the
    // 100-byte records are moved once.
    let mut order: Vec<(u64, std::cmp::Reverse<(u32, usize)>, u32)> = valid
        .iter()
        .enumerate()
        .map(|(i, v)| (v.id.bits(), std::cmp::Reverse(v.strength), i as u32))
        .collect();
    order.sort_unstable();
    let valid: Vec<Valid> = order
        .iter()
        .filter_map(|(_, _, i)| valid.get(*i as usize).copied())
        .collect();
    let mut winners: Vec<Valid> = Vec::with_capacity(valid.len());
    let mut groups: Vec<Range<usize>> = Vec::new();
    let mut claimed: Vec<(Property, usize)> = Vec::new();
    let mut current: Option<u64> = None;
    let mut rotations = Vec::new();
    for v in valid {
        if current != Some(v.id.bits()) {
            current = Some(v.id.bits());
            claimed.clear();
            groups.push(winners.len()..winners.len());
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
            None if v.rotate => {
                claimed.extend(v.props.iter().map(|p| (*p, v.edit)));
                rotations.push(v);
            }
            None => {
                claimed.extend(v.props.iter().map(|p| (*p, v.edit)));
                winners.push(v);
                if let Some(group) = groups.last_mut() {
                    group.end = winners.len();
                }
            }
        }
    }
    groups.retain(|g| !g.is_empty());
    (winners, groups, rotations)
}

/// Resolves overlaps between one layer's occupants, strongest first: an occupant overlapping a
/// stronger one is dropped and its edits report the conflict. Returns the kept occupants.
fn settle_occupants(
    base: &StageBase,
    mut occupants: Vec<(Occupant, Range<usize>)>,
    winners: &[Valid],
    outcomes: &mut [EditOutcome],
) -> Vec<Occupant> {
    occupants.sort_by_key(|(o, _)| std::cmp::Reverse(o.strength));
    let cs = base.cell_size.max(1);
    let cell = |o: &Occupant| (o.y.div_euclid(cs), o.x.div_euclid(cs));
    // Every radius is at most the cell size, so overlapping occupants are within two cells.
    let cells: Vec<(i64, i64)> = occupants.iter().map(|(o, _)| cell(o)).collect();
    let index = OccupantCells::new(&cells);
    let max_reach = occupants
        .iter()
        .map(|(o, _)| o.radius.saturating_abs())
        .max()
        .unwrap_or(0);
    let mut kept_flags = vec![false; occupants.len()];
    for i in 0..occupants.len() {
        let o = occupants[i].0;
        let (cy, cx) = cell(&o);
        // Only the cells an overlapping occupant can stand in are read, in the same order.
        let reach = o.radius.saturating_abs() + max_reach;
        let (x0, x1) = super::rethin::cell_span(o.x, reach, cs, cx);
        let (y0, y1) = super::rethin::cell_span(o.y, reach, cs, cy);
        let mut blocker = None;
        for y in y0..=y1 {
            let found = index.any_in_row(y, x0, x1, |j| {
                let hit = j != i && kept_flags[j] && conflicts(&o, &occupants[j].0);
                if hit {
                    blocker = Some(occupants[j].0.id.bits());
                }
                hit
            });
            if found {
                break;
            }
        }
        match blocker {
            Some(with) => {
                for v in winners.get(occupants[i].1.clone()).unwrap_or_default() {
                    fail(outcomes, v.edit, ConflictReason::OverlapsOccupant { with });
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

/// The occupants of a layer by cell, so a row of cells is one slice of indices in (cell X,
/// index) order: a dense table of where each cell of their bounding box starts, or, when that
/// box is far larger than the occupants are many, the indices sorted by cell and searched.
enum OccupantCells {
    Dense {
        min: (i64, i64),
        width: i64,
        height: i64,
        /// Start of each cell's indices, row-major over the bounding box, and the end.
        starts: Vec<u32>,
        indices: Vec<u32>,
    },
    Sorted(Vec<((i64, i64), u32)>),
}

impl OccupantCells {
    /// The index of occupants standing in `cells` ((cell Y, cell X) each, in occupant order).
    fn new(cells: &[(i64, i64)]) -> OccupantCells {
        let (mut min, mut max) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for &(y, x) in cells {
            min = (min.0.min(y), min.1.min(x));
            max = (max.0.max(y), max.1.max(x));
        }
        let span = |lo: i64, hi: i64| hi.checked_sub(lo).and_then(|d| d.checked_add(1));
        let count = match (span(min.0, max.0), span(min.1, max.1)) {
            (Some(h), Some(w)) => h.checked_mul(w).and_then(|c| usize::try_from(c).ok()),
            _ => None,
        };
        let Some(count) = count.filter(|c| *c <= 64 * (cells.len() + 1024)) else {
            let mut sorted: Vec<((i64, i64), u32)> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| (*c, i as u32))
                .collect();
            sorted.sort_unstable();
            return OccupantCells::Sorted(sorted);
        };
        let width = max.1 - min.1 + 1;
        let at = |(y, x): (i64, i64)| ((y - min.0) * width + (x - min.1)) as usize;
        let mut starts = vec![0u32; count + 1];
        for c in cells {
            starts[at(*c) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut indices = vec![0u32; cells.len()];
        for (i, c) in cells.iter().enumerate() {
            let slot = &mut next[at(*c)];
            indices[*slot as usize] = i as u32;
            *slot += 1;
        }
        OccupantCells::Dense {
            min,
            width,
            height: max.0 - min.0 + 1,
            starts,
            indices,
        }
    }

    /// Calls `visit` with the occupants in cells `x0..=x1` of row `y`, in (cell X, index)
    /// order, until it returns `true`; returns whether one did.
    fn any_in_row(&self, y: i64, x0: i64, x1: i64, mut visit: impl FnMut(usize) -> bool) -> bool {
        match self {
            OccupantCells::Dense {
                min,
                width,
                height,
                starts,
                indices,
            } => {
                let y = y - min.0;
                let (x0, x1) = ((x0 - min.1).max(0), (x1 - min.1).min(width - 1));
                if !(0..*height).contains(&y) || x0 > x1 {
                    return false;
                }
                let (first, last) = ((y * width + x0) as usize, (y * width + x1) as usize + 1);
                let (Some(&from), Some(&to)) = (starts.get(first), starts.get(last)) else {
                    return false;
                };
                indices
                    .get(from as usize..to as usize)
                    .unwrap_or_default()
                    .iter()
                    .any(|j| visit(*j as usize))
            }
            OccupantCells::Sorted(sorted) => {
                let from = sorted.partition_point(|(c, _)| *c < (y, x0));
                sorted[from..]
                    .iter()
                    .take_while(|((yy, xx), _)| *yy == y && *xx <= x1)
                    .any(|(_, j)| visit(*j as usize))
            }
        }
    }
}

fn conflicts(a: &Occupant, b: &Occupant) -> bool {
    within(a.x - b.x, a.y - b.y, a.radius + b.radius)
}

/// `dx² + dy² < r²`, exact in `i128`.
pub(super) fn within(dx: i64, dy: i64, r: i64) -> bool {
    let (dx, dy, r) = (i128::from(dx), i128::from(dy), i128::from(r));
    dx * dx + dy * dy < r * r
}

/// Removes the placements `ids` from the product, in one pass over each layer's placements
/// (the ids sorted by canonical key walk along them). Returns, per id, whether it was a
/// placement of the first layer of its room and layer (where [`placement_mut`] finds it).
pub(super) fn remove_placements(product: &mut ScatterProduct, ids: &[ScatterId]) -> Vec<bool> {
    let mut found = vec![false; ids.len()];
    if ids.is_empty() {
        return found;
    }
    let keys: Vec<_> = ids.iter().map(|id| id.unpack()).collect();
    let first_layer: Vec<Option<usize>> = keys
        .iter()
        .map(|k| {
            product
                .layers
                .iter()
                .position(|l| l.room == k.room.get() && l.layer == k.layer)
        })
        .collect();
    for (li, layer) in product.layers.iter_mut().enumerate() {
        let mut wanted: Vec<((i16, i16, u8), usize)> = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.room.get() == layer.room && k.layer == layer.layer)
            .map(|(i, k)| ((k.cell_y, k.cell_x, k.candidate), i))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        wanted.sort_unstable();
        let mut w = 0;
        layer.output.placements.retain(|p| {
            let key = p.canonical_key();
            while wanted.get(w).is_some_and(|(k, _)| *k < key) {
                w += 1;
            }
            let mut drop = false;
            for &(k, i) in wanted.get(w..).unwrap_or_default() {
                if k != key {
                    break;
                }
                if ids[i] == p.id {
                    drop = true;
                    if first_layer[i] == Some(li) {
                        found[i] = true;
                    }
                }
            }
            !drop
        });
    }
    found
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

/// Applies the transforms that applied lock-transform, freeze and rotate overrides of the
/// placements stage keep: the objects' rotation (and, but for a rotate, their scale).
/// `upstream` are the placements stage's outcomes.
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
            } => (*rotation, Some(*scale)),
            OverrideAction::Rotate { rotation } => (*rotation, None),
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
            if let Some(scale) = scale {
                object.scale = scale;
            }
        }
    }
}
