//! The rebase's materialize decision: a locked, moved or frozen generated object becomes an
//! authored one, as the specification's upgrade section allows ("retain the old base, materialize
//! it, or run an explicit migration"). The object is what the set records of its target: the
//! variant of a lock, a replacement or a freeze; the position of a move, a transform lock or a
//! freeze; the rotation of a transform lock, a freeze or a rotate — the strongest edit's (higher
//! precedence, then the later one) where several record one. What no edit records is taken from
//! the base the set was authored against (its `base_seed` with the stage as it is now), but only
//! when that base still has the edit's recorded base revision, so it is the very object the edit
//! was made on; otherwise the materialize is refused, naming what is missing.
//!
//! The result is an `Add` of that variant at that position, with a fresh identity of the authored
//! space (`identity::authored_id`) in the position's cell, and a `Rotate` of it when a rotation is
//! recorded. Its scale is select-and-place's draw for the new identity: an `Add` records none.
//! Every materialized edit of one target makes that one object. An edit of a subrecipe child
//! run's object (a `nested` path) reads that child stage's base and makes an `Add` with the same
//! stage and path, so the authored object is made in that run.

use super::rebase::{base_at, RebaseError, RebaseReport};
use super::rebase_nested::stage_path_text;
use super::EditRef;
use crate::identity::{authored_id, ScatterId};
use crate::project::schema::{Override, OverrideAction, OverrideSet, Vec2};

/// The authored identities a rebase gives out: those of every `Add` the report names, and those
/// materialized so far (old target → new identity).
pub(super) struct Authored<'r> {
    report: &'r RebaseReport,
    used: Vec<u64>,
    /// (stage, nested path, old target, new identity) of every object materialized so far.
    made: Vec<(u32, Vec<u32>, u64, u64)>,
}

/// What the set records of one target.
#[derive(Default)]
struct Recorded {
    variant: Option<String>,
    position: Option<Vec2>,
    rotation: Option<u16>,
}

impl<'r> Authored<'r> {
    /// Nothing materialized yet; the report's added objects keep their identities.
    pub(super) fn new(report: &'r RebaseReport) -> Authored<'r> {
        let used = report
            .entries
            .iter()
            .filter(|e| e.action == "Add")
            .map(|e| e.target)
            .collect();
        Authored {
            report,
            used,
            made: Vec::new(),
        }
    }

    /// The overrides that materialize override `index` of `set` (at `at`): an `Add` and maybe a
    /// `Rotate` the first time its target is materialized, nothing after.
    pub(super) fn materialize(
        &mut self,
        set: &OverrideSet,
        index: usize,
        at: &EditRef,
    ) -> Result<Vec<Override>, RebaseError> {
        let refuse = |why: &str| RebaseError::CannotMaterialize {
            edit: at.clone(),
            why: why.to_owned(),
        };
        let o = set
            .overrides
            .get(index)
            .ok_or_else(|| refuse("no such edit"))?;
        if !matches!(
            o.action,
            OverrideAction::LockSelection { .. }
                | OverrideAction::LockTransform { .. }
                | OverrideAction::Move { .. }
                | OverrideAction::FreezeSubtree { .. }
        ) {
            return Err(refuse(
                "only a lock, a transform lock, a move or a freeze of a generated object is materialized",
            ));
        }
        if self.made.iter().any(|(stage, nested, old, _)| {
            *stage == o.stage && *nested == o.nested && *old == o.target
        }) {
            return Ok(Vec::new());
        }
        let old = ScatterId::from_bits(o.target)
            .ok()
            .filter(|id| !id.is_authored())
            .ok_or_else(|| refuse("its target is not a generated object"))?;
        // A child run's object reads the base of the child stage its nested path ends at.
        let base = base_at(self.report, o.stage, &o.nested).ok_or_else(|| {
            refuse(&format!(
                "its stage {} is not a scatter stage of the new generation",
                stage_path_text(o.stage, &o.nested)
            ))
        })?;
        let mut recorded = recorded_of(set, o);
        if recorded.variant.is_none() || recorded.position.is_none() {
            fill_from_authored_base(&mut recorded, set, o, old, base);
        }
        let variant = recorded.variant.ok_or_else(|| {
            refuse(
                "no edit records its variant, and the base it was authored against is not this one",
            )
        })?;
        let position = recorded.position.ok_or_else(|| {
            refuse("no edit records its position, and the base it was authored against is not this one")
        })?;
        let (Some(x), Some(y)) = (base.to_lattice(position.x), base.to_lattice(position.y)) else {
            return Err(refuse("its position is not representable in lattice units"));
        };
        let cs = base.cell_size.max(1);
        let key = old.unpack();
        let id = authored_id(
            u32::from(key.room.get()),
            u32::from(key.layer),
            x.div_euclid(cs),
            y.div_euclid(cs),
            &self.used,
        )
        .ok_or_else(|| refuse("every authored identity of its cell is taken"))?;
        self.used.push(id.bits());
        self.made
            .push((o.stage, o.nested.clone(), o.target, id.bits()));
        let added = |action| Override {
            // Made in the same run as its target: the same stage and nested path.
            nested: o.nested.clone(),
            stage: o.stage,
            target: id.bits(),
            precedence: o.precedence,
            base: String::new(),
            action,
        };
        let mut out = vec![added(OverrideAction::Add { variant, position })];
        if let Some(rotation) = recorded.rotation {
            out.push(added(OverrideAction::Rotate { rotation }));
        }
        Ok(out)
    }
}

/// What the overrides of `set` naming `o`'s target (its stage, nested path and identity)
/// record, the strongest winning.
fn recorded_of(set: &OverrideSet, o: &Override) -> Recorded {
    let mut edits: Vec<(u32, usize, &OverrideAction)> = set
        .overrides
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stage == o.stage && e.nested == o.nested && e.target == o.target)
        .map(|(i, o)| (o.precedence, i, &o.action))
        .collect();
    // Weakest first, so the strongest writes last.
    edits.sort_by_key(|(precedence, i, _)| (*precedence, *i));
    let mut recorded = Recorded::default();
    for (_, _, action) in edits {
        match action {
            OverrideAction::LockSelection { variant } | OverrideAction::Replace { variant }
                if !variant.is_empty() =>
            {
                recorded.variant = Some(variant.clone());
            }
            OverrideAction::Move { position } => recorded.position = Some(*position),
            OverrideAction::LockTransform {
                position, rotation, ..
            } => {
                recorded.position = Some(*position);
                recorded.rotation = Some(*rotation);
            }
            OverrideAction::FreezeSubtree {
                variant,
                position,
                rotation,
                ..
            } => {
                recorded.variant = Some(variant.clone());
                recorded.position = Some(*position);
                recorded.rotation = Some(*rotation);
            }
            OverrideAction::Rotate { rotation } => recorded.rotation = Some(*rotation),
            _ => {}
        }
    }
    recorded
}

/// Fills what no edit records from the base `o` was authored against: the set's seed with the
/// stage as it is now, trusted only when that base has `o`'s recorded base revision.
fn fill_from_authored_base(
    recorded: &mut Recorded,
    set: &OverrideSet,
    o: &Override,
    old: ScatterId,
    base: &super::StageBase,
) {
    let Some(seed) = set.base_seed else { return };
    if o.base.is_empty() {
        return;
    }
    let authored = base.with_seed(seed);
    let Some(candidate) = authored.candidate(old) else {
        return;
    };
    if super::base::revision_of(seed, old, &candidate) != o.base {
        return;
    }
    if recorded.variant.is_none() {
        recorded.variant = authored
            .variant_ids
            .get(candidate.variant as usize)
            .cloned();
    }
    if recorded.position.is_none() {
        recorded.position = Some(Vec2 {
            x: candidate.x as f64 * authored.lattice_unit_m,
            y: candidate.y as f64 * authored.lattice_unit_m,
        });
    }
}
