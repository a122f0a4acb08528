//! Tests of overrides: application against a full re-solve, precedence, conflicts, world
//! mutations against the sampling convention, migration and rebase.

use std::collections::BTreeMap;

use super::*;
use crate::content::{
    FamilyData, FamilyVariant, Placement, RejectReason, ScatterLayer, ScatterProduct,
};
use crate::identity::{pack_scatter_id, ScatterId};
use crate::ops::scatter::{region_cells, scatter, Rect, ScatterParams, ScatterVariant};
use crate::project::schema::{Mutation, Override, OverrideAction, OverrideSet, Vec2};
use crate::rng::{philox, Domain, DomainKey};

const SEED: u64 = 4242;
const STAGE: u32 = 7;

fn family() -> FamilyData {
    let variant = |id: &str, weight, exclusion_radius| FamilyVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius,
        collision_radius_m: 0.5,
        height_m: 2.0,
        sockets: Vec::new(),
    };
    FamilyData {
        id: "trees".to_owned(),
        variants: vec![
            variant("tall", 3, 250),
            variant("young", 2, 150),
            variant("rock", 1, 120),
        ],
    }
}

fn params() -> ScatterParams {
    let family = family();
    ScatterParams {
        cell_size: 400,
        candidates_per_cell: 2,
        region: Rect::new(0, 0, 4000, 4000),
        keep_outs: vec![Rect::new(1600, 1600, 2400, 2400)],
        variants: family
            .variants
            .iter()
            .map(|v| ScatterVariant {
                weight: v.weight,
                exclusion_radius: v.exclusion_radius,
            })
            .collect(),
        room: 1,
        layer: 0,
    }
}

/// The generated base with `extra` keep-outs (what the executor hands `apply_scatter`).
fn product_with(extra: &[Rect]) -> ScatterProduct {
    let mut p = params();
    p.keep_outs.extend_from_slice(extra);
    let cells = region_cells(&p).expect("cells");
    let output = scatter(&p, SEED, cells).expect("scatter");
    ScatterProduct {
        family: "trees".to_owned(),
        variant_ids: family().variant_ids(),
        lattice_unit_m: 0.01,
        cell_size: p.cell_size,
        candidates_per_cell: p.candidates_per_cell,
        area_stage: None,
        layers: vec![ScatterLayer {
            layer: 0,
            room: 1,
            area: None,
            region: p.region,
            keep_outs: p.keep_outs,
            output,
        }],
    }
}

fn product() -> ScatterProduct {
    product_with(&[])
}

fn stage_base() -> StageBase {
    StageBase::new(STAGE, SEED, &family(), 400, 2, 0.01)
}

fn set(overrides: Vec<Override>, mutations: Vec<Mutation>) -> OverrideSet {
    OverrideSet {
        id: "edits".to_owned(),
        recipe: "r".to_owned(),
        base_seed: Some(SEED),
        base_revision: String::new(),
        overrides,
        mutations,
    }
}

fn edit(target: u64, precedence: u32, action: OverrideAction) -> Override {
    let base = ScatterId::from_bits(target)
        .ok()
        .and_then(|id| stage_base().revision(id))
        .unwrap_or_default();
    Override {
        nested: Vec::new(),
        stage: STAGE,
        target,
        precedence,
        base,
        action,
    }
}

/// Applies `set` to the base as the executor does: exclusions first, then everything else.
fn apply(set: &OverrideSet) -> (ScatterProduct, Vec<EditOutcome>) {
    let overrides = Overrides::new(vec![set.clone()]);
    let edits = overrides.for_stage(STAGE, SEED);
    let mut product = product_with(&exclusions_lattice(&edits, 0.01));
    let outcomes = apply_scatter(&mut product, &stage_base(), &edits);
    (product, outcomes)
}

fn placement(product: &ScatterProduct, id: u64) -> Option<Placement> {
    product.placements().find(|p| p.id.bits() == id).copied()
}

fn rejection(product: &ScatterProduct, id: u64) -> Option<RejectReason> {
    product.layers[0]
        .output
        .rejected
        .iter()
        .find(|r| r.id.bits() == id)
        .map(|r| r.reason())
}

fn meters(x: i64) -> f64 {
    x as f64 * 0.01
}

/// A thinned candidate and the candidate that thinned it, both away from the keep-out.
fn thinned_pair(product: &ScatterProduct) -> (u64, u64) {
    product.layers[0]
        .output
        .rejected
        .iter()
        .find_map(|r| match r.reason() {
            RejectReason::Conflict { with } => Some((r.id.bits(), with.bits())),
            _ => None,
        })
        .expect("a thinned candidate")
}

#[test]
fn a_lock_on_a_thinned_candidate_thins_the_candidate_that_beat_it() {
    let base = product();
    let (locked, winner) = thinned_pair(&base);
    assert!(placement(&base, winner).is_some());
    let (after, outcomes) = apply(&set(
        vec![edit(
            locked,
            0,
            OverrideAction::LockSelection {
                variant: "young".to_owned(),
            },
        )],
        vec![],
    ));
    assert_eq!(outcomes[0].result, Ok(()));
    let kept = placement(&after, locked).expect("the locked candidate is placed");
    assert_eq!(kept.variant, 1);
    let drawn = stage_base()
        .candidate(ScatterId::from_bits(locked).expect("id"))
        .expect("base");
    assert_eq!((kept.x, kept.y), (drawn.x, drawn.y));
    assert_eq!(
        rejection(&after, winner),
        Some(RejectReason::Conflict {
            with: ScatterId::from_bits(locked).expect("id")
        }),
        "the neighbour that used to win is thinned because of the lock"
    );
}

/// The scatter of `(E ∖ displaced) ∪ occupants` decided from scratch, candidate by candidate;
/// `occupants` are (id, x, y, variant) in edit order.
fn reference(
    base: &ScatterProduct,
    occupants: &[(u64, i64, i64, u32)],
) -> (Vec<u64>, Vec<(u64, u64)>) {
    let b = stage_base();
    let layer = &base.layers[0];
    let mut all: Vec<(u64, i64, i64, bool)> = layer
        .output
        .placements
        .iter()
        .map(|p| (p.id.bits(), p.x, p.y, true))
        .chain(layer.output.rejected.iter().map(|r| {
            let eligible = matches!(r.reason(), RejectReason::Conflict { .. });
            (r.id.bits(), r.x, r.y, eligible)
        }))
        .collect();
    all.sort_unstable();
    let displaced: Vec<u64> = occupants.iter().map(|o| o.0).collect();
    // (id, x, y, rank, radius) of every eligible candidate that stays.
    type Eligible = (u64, i64, i64, (u32, u64), i64);
    let eligible: Vec<Eligible> = all
        .iter()
        .filter(|c| c.3 && !displaced.contains(&c.0))
        .map(|c| {
            let d = b
                .candidate(ScatterId::from_bits(c.0).expect("id"))
                .expect("base");
            (c.0, c.1, c.2, (d.priority, c.0), b.radius(d.variant))
        })
        .collect();
    let close = |ax: i64, ay: i64, bx: i64, by: i64, r: i64| {
        (ax - bx) * (ax - bx) + (ay - by) * (ay - by) < r * r
    };
    let mut accepted: Vec<u64> = occupants.iter().map(|o| o.0).collect();
    let mut rejected = Vec::new();
    for &(id, x, y, rank, radius) in &eligible {
        // Occupants are given in edit order at one precedence: the later is the stronger.
        let by_occupant = occupants
            .iter()
            .rev()
            .find(|o| close(x, y, o.1, o.2, radius + b.radius(o.3)))
            .map(|o| o.0);
        let by_rank = eligible
            .iter()
            .filter(|n| n.0 != id && n.3 > rank && close(x, y, n.1, n.2, radius + n.4))
            .max_by_key(|n| n.3)
            .map(|n| n.0);
        match by_occupant.or(by_rank) {
            Some(with) => rejected.push((id, with)),
            None => accepted.push(id),
        }
    }
    accepted.sort_unstable();
    rejected.sort_unstable();
    (accepted, rejected)
}

fn result_of(product: &ScatterProduct) -> (Vec<u64>, Vec<(u64, u64)>) {
    let mut accepted: Vec<u64> = product.placements().map(|p| p.id.bits()).collect();
    accepted.sort_unstable();
    let mut rejected: Vec<(u64, u64)> = product.layers[0]
        .output
        .rejected
        .iter()
        .filter_map(|r| match r.reason() {
            RejectReason::Conflict { with } => Some((r.id.bits(), with.bits())),
            _ => None,
        })
        .collect();
    rejected.sort_unstable();
    (accepted, rejected)
}

#[test]
fn occupants_give_exactly_a_full_resolve_with_them() {
    let base = product();
    let b = stage_base();
    let eligible: Vec<u64> = base
        .placements()
        .map(|p| p.id.bits())
        .chain(base.layers[0].output.rejected.iter().filter_map(|r| {
            matches!(r.reason(), RejectReason::Conflict { .. }).then_some(r.id.bits())
        }))
        .collect();
    // Several deterministic picks of locked, replaced and moved candidates.
    let mut state = 0x9e37_79b9_u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    };
    for round in 0..12 {
        let mut overrides = Vec::new();
        let mut occupants: Vec<(u64, i64, i64, u32)> = Vec::new();
        for _ in 0..1 + round % 4 {
            let target = eligible[next(eligible.len())];
            if occupants.iter().any(|o| o.0 == target) {
                continue;
            }
            let c = b
                .candidate(ScatterId::from_bits(target).expect("id"))
                .expect("base");
            let (action, occupant) = match next(3) {
                0 => (
                    OverrideAction::LockSelection {
                        variant: "rock".to_owned(),
                    },
                    (target, c.x, c.y, 2),
                ),
                1 => (
                    OverrideAction::Replace {
                        variant: "tall".to_owned(),
                    },
                    (target, c.x, c.y, 0),
                ),
                _ => {
                    let (x, y) = (c.x + 37, (c.y - 41).max(1));
                    let position = Vec2 {
                        x: meters(x),
                        y: meters(y),
                    };
                    (OverrideAction::Move { position }, (target, x, y, c.variant))
                }
            };
            overrides.push(edit(target, 0, action));
            occupants.push(occupant);
        }
        let (after, outcomes) = apply(&set(overrides, vec![]));
        // Occupants that overlap a stronger one (or a keep-out) are reported and left out.
        let kept: Vec<(u64, i64, i64, u32)> = occupants
            .iter()
            .zip(&outcomes)
            .filter(|(_, o)| o.result.is_ok())
            .map(|(o, _)| *o)
            .collect();
        assert_eq!(result_of(&after), reference(&base, &kept), "round {round}");
    }
}

#[test]
fn precedence_decides_between_overrides_of_one_property() {
    let base = product();
    let target = base.placements().next().expect("a placement").id.bits();
    let replace = |variant: &str| OverrideAction::Replace {
        variant: variant.to_owned(),
    };
    let (after, outcomes) = apply(&set(
        vec![
            edit(target, 5, replace("rock")),
            edit(target, 1, replace("young")),
        ],
        vec![],
    ));
    assert_eq!(outcomes[0].result, Ok(()));
    assert_eq!(
        outcomes[1].result,
        Err(ConflictReason::Superseded {
            by: outcomes[0].edit.clone()
        })
    );
    assert_eq!(placement(&after, target).map(|p| p.variant), Some(2));
    // At equal precedence the later one wins; a move touches another property and also applies.
    let moved = Vec2 { x: 1.0, y: 1.0 };
    let (after, outcomes) = apply(&set(
        vec![
            edit(target, 0, replace("rock")),
            edit(target, 0, replace("young")),
            edit(target, 0, OverrideAction::Move { position: moved }),
        ],
        vec![],
    ));
    assert!(matches!(
        outcomes[0].result,
        Err(ConflictReason::Superseded { .. })
    ));
    assert_eq!(outcomes[1].result, Ok(()));
    assert_eq!(outcomes[2].result, Ok(()));
    let p = placement(&after, target).expect("placed");
    assert_eq!((p.variant, p.x, p.y), (1, 100, 100));
}

#[test]
fn hard_constraints_and_stale_bases_are_conflicts_never_applied_elsewhere() {
    let base = product();
    let target = base.placements().next().expect("a placement").id.bits();
    let into_keep_out = Vec2 { x: 20.0, y: 20.0 };
    let mut stale = edit(target, 0, OverrideAction::Delete);
    stale.base = "0000000000000000".to_owned();
    let beyond = pack_scatter_id(1, 0, 5, 0, 0).expect("id").bits();
    let (after, outcomes) = apply(&set(
        vec![
            edit(
                target,
                0,
                OverrideAction::Move {
                    position: into_keep_out,
                },
            ),
            stale,
            edit(beyond, 0, OverrideAction::Delete),
            edit(
                target,
                0,
                OverrideAction::LockSelection {
                    variant: "oak".to_owned(),
                },
            ),
        ],
        vec![],
    ));
    assert_eq!(
        outcomes[0].result,
        Err(ConflictReason::InsideKeepOut { keep_out: 0 })
    );
    assert!(matches!(
        &outcomes[1].result,
        Err(ConflictReason::BaseRevisionMismatch { expected, found })
            if expected == "0000000000000000" && Some(found) == outcomes[1].found_base.as_ref()
    ));
    assert_eq!(outcomes[2].result, Err(ConflictReason::TargetGone));
    assert_eq!(
        outcomes[3].result,
        Err(ConflictReason::UnknownVariant {
            variant: "oak".to_owned()
        })
    );
    assert_eq!(after, base, "nothing was applied");
}

#[test]
fn a_set_bound_to_another_seed_applies_nothing() {
    let base = product();
    let target = base.placements().next().expect("a placement").id.bits();
    let mut other = set(vec![edit(target, 0, OverrideAction::Delete)], vec![]);
    other.base_seed = Some(SEED + 1);
    let (after, outcomes) = apply(&other);
    assert_eq!(
        outcomes[0].result,
        Err(ConflictReason::SeedNotBound {
            base_seed: Some(SEED + 1),
            seed: SEED
        })
    );
    assert_eq!(after, base);
    // The preview for a rebase report evaluates it as if bound.
    let preview = Overrides::preview(vec![other]).for_stage(STAGE, SEED);
    assert_eq!(preview.edits[0].2, Ok(()));
}

#[test]
fn delete_add_and_exclude() {
    let base = product();
    let deleted = base.placements().next().expect("a placement").id.bits();
    let added = pack_scatter_id(1, 0, 128, 3, 9).expect("id").bits();
    let exclusion = OverrideAction::Exclude {
        min: Vec2 { x: 0.0, y: 30.0 },
        max: Vec2 { x: 40.0, y: 40.0 },
    };
    let spot = Vec2 { x: 13.0, y: 37.5 };
    let collides = pack_scatter_id(1, 0, 1, 3, 9).expect("id").bits();
    let add = |target| Override {
        nested: Vec::new(),
        stage: STAGE,
        target,
        precedence: 0,
        base: String::new(),
        action: OverrideAction::Add {
            variant: "rock".to_owned(),
            position: Vec2 { x: 30.0, y: 10.0 },
        },
    };
    let mut into_exclusion = add(added);
    into_exclusion.action = OverrideAction::Add {
        variant: "rock".to_owned(),
        position: spot,
    };
    let (after, outcomes) = apply(&set(
        vec![
            edit(deleted, 0, OverrideAction::Delete),
            Override {
                nested: Vec::new(),
                stage: STAGE,
                target: 0,
                precedence: 0,
                base: String::new(),
                action: exclusion,
            },
            add(added),
            add(collides),
            into_exclusion,
        ],
        vec![],
    ));
    let results: Vec<_> = outcomes.iter().map(|o| o.result.clone()).collect();
    assert_eq!(
        results,
        vec![
            Ok(()),
            Ok(()),
            Ok(()),
            Err(ConflictReason::IdentityCollision),
            Err(ConflictReason::InsideKeepOut { keep_out: 1 }),
        ]
    );
    assert!(placement(&after, deleted).is_none());
    let rock = placement(&after, added).expect("added");
    assert_eq!((rock.x, rock.y, rock.variant), (3000, 1000, 2));
    assert!(after
        .placements()
        .all(|p| p.y < 3000 || p.id.bits() == added));
    assert!(
        base.placements().any(|p| p.y >= 3000),
        "the exclusion removed something"
    );
}

#[test]
fn regrow_follows_the_sampling_convention() {
    let b = stage_base();
    let id = pack_scatter_id(1, 0, 1, 4, 2).expect("id");
    let key = DomainKey::new(SEED, Domain::Regrow).words();
    for ordinal in [1u32, 2, 3, 77, u32::MAX] {
        // sample_bounded(6) at (domain 6, scope = packed id, event = ordinal, dim 0).
        let mut attempt = 0u32;
        let v = loop {
            let word = philox(
                [
                    id.bits() as u32,
                    (id.bits() >> 32) as u32,
                    ordinal,
                    attempt << 16,
                ],
                key,
            )[0];
            if u64::from(word) < (1u64 << 32) - ((1u64 << 32) % 6) {
                break word % 6;
            }
            attempt += 1;
        };
        let expected = [0, 0, 0, 1, 1, 2][v as usize];
        assert_eq!(
            regrow_variant(&b, id, ordinal),
            Some(expected),
            "ordinal {ordinal}"
        );
    }
}

#[test]
fn the_regrow_ordinal_advances_once_and_stops_at_u32_max() {
    let mut mutations = Vec::new();
    let site = MutationSite {
        stage: STAGE,
        nested: Vec::new(),
        target: 99,
    };
    harvest(&mut mutations, &site, String::new());
    assert_eq!(regrow(&mut mutations[0]), Ok(1));
    assert_eq!(regrow(&mut mutations[0]), Err(RegrowError::NotHarvested));
    assert_eq!((mutations[0].harvested, mutations[0].ordinal), (false, 1));
    harvest(&mut mutations, &site, String::new());
    assert_eq!(mutations.len(), 1, "one record per placement");
    let nested = MutationSite {
        nested: vec![1],
        ..site.clone()
    };
    assert_eq!(harvest(&mut mutations, &nested, String::new()), 1);
    assert_eq!(
        mutations[1].nested,
        [1],
        "a child run's placement is another"
    );
    assert_eq!(regrow(&mut mutations[0]), Ok(2));
    let mut last = Mutation {
        nested: Vec::new(),
        stage: STAGE,
        target: 99,
        base: String::new(),
        harvested: true,
        ordinal: u32::MAX,
    };
    assert_eq!(regrow(&mut last), Err(RegrowError::OrdinalExhausted));
    assert_eq!(
        (last.harvested, last.ordinal),
        (true, u32::MAX),
        "stays harvested"
    );
}

#[test]
fn mutations_apply_after_overrides() {
    let base = product();
    let mut ids = base.placements().map(|p| p.id.bits());
    let (harvested, regrown, deleted) = (
        ids.next().expect("one"),
        ids.next().expect("two"),
        ids.next().expect("three"),
    );
    let mutation = |target, harvested, ordinal| Mutation {
        nested: Vec::new(),
        stage: STAGE,
        target,
        base: stage_base()
            .revision(ScatterId::from_bits(target).expect("id"))
            .unwrap_or_default(),
        harvested,
        ordinal,
    };
    let (after, outcomes) = apply(&set(
        vec![edit(deleted, 0, OverrideAction::Delete)],
        vec![
            mutation(harvested, true, 0),
            mutation(regrown, false, 3),
            mutation(deleted, true, 0),
        ],
    ));
    let id = ScatterId::from_bits(regrown).expect("id");
    let variant = regrow_variant(&stage_base(), id, 3).expect("draw");
    assert!(placement(&after, harvested).is_none());
    assert_eq!(placement(&after, regrown).map(|p| p.variant), Some(variant));
    assert_eq!(outcomes[2].regrow, Some((3, variant)));
    assert_eq!(
        outcomes[3].result,
        Err(ConflictReason::TargetGone),
        "a harvest of a deleted object finds nothing"
    );
}

#[test]
fn the_edits_digest_changes_with_any_edit() {
    let target = product().placements().next().expect("p").id.bits();
    let one = set(vec![edit(target, 0, OverrideAction::Delete)], vec![]);
    let mut two = one.clone();
    two.overrides[0].precedence = 1;
    let digest = |s: &OverrideSet| {
        Overrides::new(vec![s.clone()])
            .for_stage(STAGE, SEED)
            .digest()
    };
    assert_ne!(digest(&one), digest(&two));
    assert_eq!(digest(&one), digest(&one.clone()));
    assert!(Overrides::new(vec![one])
        .for_stage(STAGE + 1, SEED)
        .is_empty());
}

fn report_for(
    set: &OverrideSet,
    seed: u64,
    entries: Vec<(EditRef, Standing, Option<String>)>,
) -> RebaseReport {
    RebaseReport {
        recipe: set.recipe.clone(),
        seed,
        base_revision: "new-base".to_owned(),
        stages: vec![StageBase::new(STAGE, seed, &family(), 400, 2, 0.01)],
        nested_stages: Vec::new(),
        entries: entries
            .into_iter()
            .map(|(edit, standing, found_base)| RebaseEntry {
                edit,
                stage: STAGE,
                nested: Vec::new(),
                target: 0,
                action: "x",
                standing,
                found_base,
            })
            .collect(),
    }
}

#[test]
fn rebase_keeps_drops_and_retargets_as_decided() {
    let a = pack_scatter_id(1, 0, 0, 1, 1).expect("id").bits();
    let b = pack_scatter_id(1, 0, 1, 2, 2).expect("id").bits();
    let old = set(
        vec![
            edit(a, 0, OverrideAction::Delete),
            edit(
                a,
                0,
                OverrideAction::LockSelection {
                    variant: String::new(),
                },
            ),
            edit(b, 0, OverrideAction::Delete),
        ],
        vec![Mutation {
            nested: Vec::new(),
            stage: STAGE,
            target: b,
            base: String::new(),
            harvested: true,
            ordinal: 0,
        }],
    );
    let at = |list, index| EditRef {
        set: "edits".to_owned(),
        list,
        index,
    };
    let new_seed = SEED + 9;
    let report = report_for(
        &old,
        new_seed,
        vec![
            (
                at(EditList::Override, 0),
                Standing::Applies,
                Some("aaaaaaaaaaaaaaaa".into()),
            ),
            (
                at(EditList::Override, 1),
                Standing::Orphaned,
                Some("bbbbbbbbbbbbbbbb".into()),
            ),
            (at(EditList::Override, 2), Standing::Orphaned, None),
            (at(EditList::Mutation, 0), Standing::Orphaned, None),
        ],
    );
    assert_eq!(
        rebase(&old, &report, &BTreeMap::new()),
        Err(RebaseError::Undecided(at(EditList::Override, 1)))
    );
    let decisions = BTreeMap::from([
        (at(EditList::Override, 1), Decision::Keep),
        (at(EditList::Override, 2), Decision::Retarget(a)),
        (at(EditList::Mutation, 0), Decision::Drop),
    ]);
    let new = rebase(&old, &report, &decisions).expect("rebased");
    assert_eq!(new.base_seed, Some(new_seed));
    assert_eq!(new.base_revision, "new-base");
    assert_eq!(new.overrides.len(), 3);
    assert_eq!(new.overrides[0].base, "aaaaaaaaaaaaaaaa");
    assert_eq!(new.overrides[1].base, "bbbbbbbbbbbbbbbb");
    let rebased = StageBase::new(STAGE, new_seed, &family(), 400, 2, 0.01);
    let a_id = ScatterId::from_bits(a).expect("id");
    let variant = rebased.candidate(a_id).expect("base").variant as usize;
    assert_eq!(
        new.overrides[1].action,
        OverrideAction::LockSelection {
            variant: family().variants[variant].id.clone()
        },
        "a migrated lock records the new base's variant"
    );
    assert_eq!(new.overrides[2].target, a);
    assert_eq!(Some(new.overrides[2].base.clone()), rebased.revision(a_id));
    assert!(new.mutations.is_empty());
}

/// A dense mix of every override kind and both mutations over a 60 × 60-cell base (locks,
/// near and far moves, replacements, deletes, freezes, adds, exclusions, competing edits of one
/// target, edits of thinned candidates), pinned by a digest of the product and every outcome:
/// a faster `apply_scatter` must give exactly these bytes.
#[test]
fn a_dense_mix_of_edits_gives_the_pinned_result() {
    let mut p = params();
    p.region = Rect::new(0, 0, 24_000, 24_000);
    let cells = region_cells(&p).expect("cells");
    let mut base = product();
    base.layers[0].region = p.region;
    base.layers[0].output = scatter(&p, SEED, cells).expect("scatter");
    let b = stage_base();
    let layer = &base.layers[0].output;
    let mut overrides = Vec::new();
    let targets: Vec<(u64, i64, i64)> = layer
        .placements
        .iter()
        .map(|p| (p.id.bits(), p.x, p.y))
        .chain(layer.rejected.iter().map(|r| (r.id.bits(), r.x, r.y)))
        .collect();
    for (i, &(id, x, y)) in targets.iter().enumerate().step_by(5) {
        let action = match i % 7 {
            0 => OverrideAction::LockSelection {
                variant: "rock".to_owned(),
            },
            1 => OverrideAction::Move {
                position: Vec2 {
                    x: meters(x + 130),
                    y: meters(y - 40),
                },
            },
            2 => OverrideAction::Replace {
                variant: "tall".to_owned(),
            },
            3 => OverrideAction::Delete,
            4 => OverrideAction::FreezeSubtree {
                variant: "young".to_owned(),
                position: Vec2 {
                    x: meters(x),
                    y: meters(y + 600),
                },
                rotation: 7,
                scale: 900,
            },
            5 => OverrideAction::LockTransform {
                position: Vec2 {
                    x: meters(x - 300),
                    y: meters(y),
                },
                rotation: 3,
                scale: 1000,
            },
            _ => OverrideAction::LockSelection {
                variant: String::new(),
            },
        };
        overrides.push(edit(id, (i % 3) as u32, action));
        if i % 11 == 0 {
            overrides.push(edit(id, 1, OverrideAction::Delete));
        }
    }
    for i in 0..300i64 {
        let (cx, cy) = (i % 60, (i * 7) % 60);
        let target = pack_scatter_id(1, 0, 130 + (i % 3) as u32, cx, cy)
            .expect("id")
            .bits();
        overrides.push(Override {
            nested: Vec::new(),
            stage: STAGE,
            target,
            precedence: 0,
            base: String::new(),
            action: OverrideAction::Add {
                variant: "young".to_owned(),
                position: Vec2 {
                    x: meters(cx * 400 + 150),
                    y: meters(cy * 400 + 250),
                },
            },
        });
    }
    for i in 0..6i64 {
        overrides.push(edit(
            0,
            0,
            OverrideAction::Exclude {
                min: Vec2 {
                    x: meters(i * 3900),
                    y: meters(i * 3100),
                },
                max: Vec2 {
                    x: meters(i * 3900 + 900),
                    y: meters(i * 3100 + 1300),
                },
            },
        ));
    }
    let mutations: Vec<Mutation> = targets
        .iter()
        .skip(3)
        .step_by(17)
        .enumerate()
        .map(|(i, &(id, _, _))| Mutation {
            nested: Vec::new(),
            stage: STAGE,
            target: id,
            base: ScatterId::from_bits(id)
                .ok()
                .and_then(|s| b.revision(s))
                .unwrap_or_default(),
            harvested: i % 2 == 0,
            ordinal: (i % 5) as u32,
        })
        .collect();
    let overrides = Overrides::new(vec![set(overrides, mutations)]);
    let edits = overrides.for_stage(STAGE, SEED);
    p.keep_outs.extend(exclusions_lattice(&edits, 0.01));
    let mut product = base.clone();
    product.layers[0].keep_outs = p.keep_outs.clone();
    product.layers[0].output = scatter(&p, SEED, cells).expect("scatter");
    let outcomes = apply_scatter(&mut product, &b, &edits);
    let applied = outcomes.iter().filter(|o| o.result.is_ok()).count();
    let mut w = crate::content::encode::ByteWriter::tagged(b"TESTMIX1");
    w.bytes(&crate::content::Product::Placements(product.clone()).canonical_bytes());
    w.str(&format!("{outcomes:?}"));
    let digest = crate::content::encode::hex(&w.digest());
    assert_eq!(
        (
            edits.edits.len(),
            applied,
            product.placement_count(),
            &digest[..16]
        ),
        (2301, 1013, 1410, "631625724e1417e7")
    );
}

#[test]
fn the_base_revision_is_the_objbase1_digest_it_documents() {
    let b = stage_base();
    for bits in [
        pack_scatter_id(1, 0, 0, 0, 0).expect("id"),
        pack_scatter_id(1, 0, 1, 7, 3).expect("id"),
        pack_scatter_id(9, 4, 1, -5, 2).expect("id"),
    ] {
        let c = b.candidate(bits).expect("base");
        let mut w = crate::content::encode::ByteWriter::tagged(b"OBJBASE1");
        w.u64(SEED)
            .u64(bits.bits())
            .i64(c.x)
            .i64(c.y)
            .u32(c.variant);
        let expected = crate::content::encode::hex(&w.digest())[..16].to_owned();
        assert_eq!(b.revision(bits), Some(expected));
    }
}

/// Placed objects of `product` as select-and-place would give them (rotation 0, scale 1000),
/// with the rotate edits of `set` applied through `apply_placed`.
fn placed_after(
    product: &ScatterProduct,
    set: &OverrideSet,
    outcomes: &[EditOutcome],
) -> crate::content::PlacedProduct {
    let mut placed = crate::content::PlacedProduct {
        family: product.family.clone(),
        variant_ids: product.variant_ids.clone(),
        lattice_unit_m: product.lattice_unit_m,
        scale_unit: 0.001,
        placements_stage: STAGE,
        objects: product
            .placements()
            .map(|p| crate::content::PlacedObject {
                placement: *p,
                rotation_turns_65536: 0,
                scale: 1000,
            })
            .collect(),
    };
    let edits = Overrides::new(vec![set.clone()]).for_stage(STAGE, SEED);
    apply_placed(&mut placed, &edits, outcomes);
    placed
}

#[test]
fn a_rotate_turns_only_its_target_and_never_changes_the_thinning() {
    let base = product();
    let mut ids = base.placements().map(|p| p.id.bits());
    let (turned, moved, locked) = (
        ids.next().expect("a placement"),
        ids.nth(3).expect("a placement"),
        ids.nth(3).expect("a placement"),
    );
    let (thinned, _) = thinned_pair(&base);
    let rotate = |target, precedence, rotation| {
        edit(target, precedence, OverrideAction::Rotate { rotation })
    };
    let lock = OverrideAction::LockTransform {
        position: Vec2 {
            x: meters(placement(&base, locked).expect("placed").x),
            y: meters(placement(&base, locked).expect("placed").y),
        },
        rotation: 111,
        scale: 1200,
    };
    let set = set(
        vec![
            rotate(turned, 0, 16_384),
            edit(
                moved,
                0,
                OverrideAction::Move {
                    position: Vec2 {
                        x: meters(placement(&base, moved).expect("placed").x + 20),
                        y: meters(placement(&base, moved).expect("placed").y),
                    },
                },
            ),
            rotate(moved, 0, 32_768),
            edit(locked, 0, lock),
            rotate(locked, 1, 999),
            rotate(thinned, 0, 5),
        ],
        vec![],
    );
    let (after, outcomes) = apply(&set);
    let results: Vec<_> = outcomes.iter().map(|o| o.result.clone()).collect();
    assert_eq!(
        results[..3],
        [Ok(()), Ok(()), Ok(())],
        "rotate and move combine"
    );
    assert!(
        matches!(&results[3], Err(ConflictReason::Superseded { by }) if by.index == 4),
        "the stronger rotate wins the rotation over the transform lock: {:?}",
        results[3]
    );
    assert_eq!(results[4], Ok(()));
    assert!(
        placement(&after, thinned).is_none(),
        "still thinned after the move"
    );
    assert_eq!(
        results[5],
        Err(ConflictReason::TargetGone),
        "a thinned candidate"
    );
    // Rotating alone leaves the scatter exactly as generated.
    let (only_rotated, _) = apply(&self::set(vec![rotate(turned, 0, 16_384)], vec![]));
    assert_eq!(only_rotated, base);
    let placed = placed_after(&after, &set, &outcomes);
    let object = |id: u64| {
        placed
            .objects
            .iter()
            .find(|o| o.placement.id.bits() == id)
            .map(|o| (o.rotation_turns_65536, o.scale))
    };
    assert_eq!(object(turned), Some((16_384, 1000)));
    assert_eq!(object(moved), Some((32_768, 1000)));
    assert_eq!(
        object(locked),
        Some((999, 1000)),
        "the rotate keeps the generated scale"
    );
    let untouched = placed
        .objects
        .iter()
        .filter(|o| ![turned, moved, locked].contains(&o.placement.id.bits()))
        .all(|o| (o.rotation_turns_65536, o.scale) == (0, 1000));
    assert!(untouched);
}

#[test]
fn a_rotate_of_an_added_object_applies_and_a_stronger_delete_supersedes_one() {
    let base = product();
    let deleted = base.placements().next().expect("a placement").id.bits();
    let added = pack_scatter_id(1, 0, 128, 3, 9).expect("id").bits();
    let set = set(
        vec![
            Override {
                nested: Vec::new(),
                stage: STAGE,
                target: added,
                precedence: 0,
                base: String::new(),
                action: OverrideAction::Add {
                    variant: "rock".to_owned(),
                    position: Vec2 { x: 30.0, y: 10.0 },
                },
            },
            Override {
                nested: Vec::new(),
                stage: STAGE,
                target: added,
                precedence: 0,
                base: String::new(),
                action: OverrideAction::Rotate { rotation: 4096 },
            },
            edit(deleted, 0, OverrideAction::Rotate { rotation: 7 }),
            edit(deleted, 2, OverrideAction::Delete),
            edit(deleted, 0, OverrideAction::Rotate { rotation: 8 }),
        ],
        vec![],
    );
    let (after, outcomes) = apply(&set);
    let results: Vec<_> = outcomes.iter().map(|o| o.result.clone()).collect();
    assert_eq!(results[..2], [Ok(()), Ok(())]);
    for superseded in &results[2..3] {
        assert!(
            matches!(superseded, Err(ConflictReason::Superseded { by }) if by.index == 3),
            "{superseded:?}"
        );
    }
    assert!(matches!(&results[4], Err(ConflictReason::Superseded { by }) if by.index == 3));
    assert_eq!(results[3], Ok(()));
    let placed = placed_after(&after, &set, &outcomes);
    let rock = placed
        .objects
        .iter()
        .find(|o| o.placement.id.bits() == added)
        .expect("the added rock");
    assert_eq!((rock.rotation_turns_65536, rock.scale), (4096, 1000));
    assert!(placed
        .objects
        .iter()
        .all(|o| o.placement.id.bits() != deleted));
}

#[test]
fn a_rotate_with_a_stale_base_is_a_conflict() {
    let base = product();
    let target = base.placements().next().expect("a placement").id.bits();
    let mut stale = edit(target, 0, OverrideAction::Rotate { rotation: 1 });
    stale.base = "0000000000000000".to_owned();
    let (after, outcomes) = apply(&set(vec![stale], vec![]));
    assert!(matches!(
        outcomes[0].result,
        Err(ConflictReason::BaseRevisionMismatch { .. })
    ));
    assert_eq!(after, base);
}

/// Two added objects closer than their radii: the stronger stays, the weaker reports the
/// overlap naming it; a third far away is kept too.
#[test]
fn an_occupant_overlapping_a_stronger_one_reports_it() {
    let add = |cx: i64, cy: i64, precedence: u32, x_m: f64| {
        let target = pack_scatter_id(1, 0, 129, cx, cy).expect("id").bits();
        let action = OverrideAction::Add {
            variant: "young".to_owned(),
            position: Vec2 { x: x_m, y: 2.0 },
        };
        (target, edit(target, precedence, action))
    };
    let (strong, a) = add(0, 0, 2, 2.0);
    let (_, b) = add(1, 0, 1, 4.1);
    let (_, c) = add(8, 0, 0, 33.0);
    let (after, outcomes) = apply(&set(vec![b, a, c], vec![]));
    let results: Vec<_> = outcomes.iter().map(|o| o.result.clone()).collect();
    assert_eq!(
        results,
        vec![
            Err(ConflictReason::OverlapsOccupant { with: strong }),
            Ok(()),
            Ok(())
        ]
    );
    assert!(placement(&after, strong).is_some());
}
