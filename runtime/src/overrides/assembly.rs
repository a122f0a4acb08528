//! Author overrides of an assembly stage's modules: lock selection, replace, delete and rotate.
//!
//! A module is named by its packed identity (frame, slot). Each edit is checked against the
//! generated plan (the target exists, its base revision matches, a chosen module exists in the
//! family and fits the slot's socket type); of the valid edits touching one property of one
//! module, the one of highest precedence (at equal precedence, the later) wins and the others are
//! `superseded`. Winners then apply: a selection sets the module, a rotate its rotation, a delete
//! removes it. Other actions and world mutations are reported as unsupported; nothing is ever
//! applied to another module instead.

use std::collections::BTreeMap;

use super::{action_name, properties, ConflictReason, Edit, EditOutcome, Property, StageEdits};
use crate::content::{AssemblyModule, AssemblyPlan, FamilyData};
use crate::project::schema::OverrideAction;

/// The base revision of a generated module: 16 lowercase hex digits of BLAKE3 over `"MODBASE1"`,
/// the seed, the id, its variant and its rotation.
pub fn module_revision(seed: u64, module: &AssemblyModule) -> String {
    let mut bytes = [0u8; 38];
    bytes[..8].copy_from_slice(b"MODBASE1");
    bytes[8..16].copy_from_slice(&seed.to_le_bytes());
    bytes[16..24].copy_from_slice(&module.id.bits().to_le_bytes());
    bytes[24..28].copy_from_slice(&module.variant.to_le_bytes());
    bytes[28..30].copy_from_slice(&module.rotation_turns_65536.to_le_bytes());
    bytes[30..38].copy_from_slice(&module.x.to_le_bytes());
    crate::content::encode::hex(&blake3::hash(&bytes).as_bytes()[..8])
}

/// What a valid edit does.
#[derive(Clone, Copy)]
enum Effect {
    Select(u32),
    Rotate(u16),
    Delete,
}

/// Applies `edits` to the plan of stage `stage` generated at `seed`; one outcome per edit, in
/// edit order.
pub fn apply_assembly(
    plan: &mut AssemblyPlan,
    family: &FamilyData,
    edits: &StageEdits,
    stage: u32,
    seed: u64,
) -> Vec<EditOutcome> {
    let mut outcomes = Vec::with_capacity(edits.edits.len());
    let mut valid: Vec<(usize, u64, u32, Effect)> = Vec::new();
    for (index, (at, edit, bound)) in edits.edits.iter().enumerate() {
        let (target, action) = match edit {
            Edit::Override(o) => (o.target, action_name(&o.action)),
            Edit::Mutation(m) => (m.target, "Harvest"),
        };
        let found_base = plan.module(target).map(|m| module_revision(seed, m));
        let result = bound
            .clone()
            .and_then(|()| judge(plan, family, edit, found_base.as_deref()));
        if let (Ok(effect), Edit::Override(o)) = (&result, edit) {
            valid.push((index, target, o.precedence, *effect));
        }
        outcomes.push(EditOutcome {
            edit: at.clone(),
            stage,
            target,
            action,
            found_base,
            result: result.map(|_| ()),
            regrow: None,
        });
    }
    let winners = contest(edits, &valid, &mut outcomes);
    for (target, effect) in winners {
        let Some(at) = plan.position_of(target) else {
            continue;
        };
        match effect {
            Effect::Select(variant) => plan.modules[at].variant = variant,
            Effect::Rotate(rotation) => plan.modules[at].rotation_turns_65536 = rotation,
            Effect::Delete => {
                plan.modules.remove(at);
            }
        }
    }
    outcomes
}

/// Whether one edit can apply to the generated plan, and what it does.
fn judge(
    plan: &AssemblyPlan,
    family: &FamilyData,
    edit: &Edit,
    found_base: Option<&str>,
) -> Result<Effect, ConflictReason> {
    let Edit::Override(o) = edit else {
        return Err(ConflictReason::UnsupportedStage);
    };
    let effect = match &o.action {
        OverrideAction::LockSelection { variant } | OverrideAction::Replace { variant } => {
            select(family, variant)?
        }
        OverrideAction::Rotate { rotation } => Effect::Rotate(*rotation),
        OverrideAction::Delete => Effect::Delete,
        _ => return Err(ConflictReason::UnsupportedStage),
    };
    let module = plan.module(o.target).ok_or(ConflictReason::TargetGone)?;
    let found = found_base.unwrap_or_default();
    if !o.base.is_empty() && o.base != found {
        return Err(ConflictReason::BaseRevisionMismatch {
            expected: o.base.clone(),
            found: found.to_owned(),
        });
    }
    if let Effect::Select(variant) = effect {
        let socket = plan.socket_of(module);
        let fits = family
            .variants
            .get(variant as usize)
            .is_some_and(|v| v.fits(socket));
        if !fits {
            return Err(ConflictReason::SocketMismatch {
                socket: socket.to_owned(),
            });
        }
    }
    Ok(effect)
}

/// Selecting the family's variant `variant`, or why it cannot be.
fn select(family: &FamilyData, variant: &str) -> Result<Effect, ConflictReason> {
    family
        .variants
        .iter()
        .position(|v| v.id == variant)
        .map(|index| Effect::Select(index as u32))
        .ok_or_else(|| ConflictReason::UnknownVariant {
            variant: variant.to_owned(),
        })
}

/// The winning effect per (target, property); losers are marked superseded. Returns the winners'
/// effects by target, deletes last so a selection never lands on a removed module.
fn contest(
    edits: &StageEdits,
    valid: &[(usize, u64, u32, Effect)],
    outcomes: &mut [EditOutcome],
) -> Vec<(u64, Effect)> {
    let props_of = |index: usize| match &edits.edits[index].1 {
        Edit::Override(o) => properties(&o.action),
        Edit::Mutation(_) => &[] as &[Property],
    };
    // (target, property) → strongest (precedence, edit index).
    let mut strongest: BTreeMap<(u64, Property), (u32, usize)> = BTreeMap::new();
    for &(index, target, precedence, _) in valid {
        for &property in props_of(index) {
            let slot = strongest.entry((target, property)).or_insert((0, 0));
            *slot = (*slot).max((precedence, index));
        }
    }
    let mut winners = Vec::new();
    for &(index, target, precedence, effect) in valid {
        let beaten = props_of(index).iter().find_map(|&property| {
            let strongest = strongest.get(&(target, property))?;
            (*strongest > (precedence, index)).then_some(strongest.1)
        });
        match beaten {
            Some(by) => {
                outcomes[index].result = Err(ConflictReason::Superseded {
                    by: edits.edits[by].0.clone(),
                })
            }
            None => winners.push((target, effect)),
        }
    }
    winners.sort_by_key(|(target, effect)| (matches!(effect, Effect::Delete), *target));
    winners
}

#[cfg(test)]
#[path = "assembly_tests.rs"]
mod tests;
