//! End-to-end tests of author overrides and world mutations on the pine-clearing example: every
//! edit applies with the values it names, survives regeneration and parameter changes, enters
//! the cache keys, and a seed change applies nothing and reports the orphans through rebase.

use std::collections::BTreeMap;

use stagecraft_editor::project_io::load_dir;
use stagecraft_runtime::content::{Product, RejectReason, ScatterProduct};
use stagecraft_runtime::generate::{
    CacheOutcome, CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, Generator,
    MissReason, NoObserver,
};
use stagecraft_runtime::identity::{ChildKey, ScatterId};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::{
    rebase, rebase_report, regrow_variant, ConflictReason, Decision, Overrides, Standing,
};
use stagecraft_runtime::project::{OverrideAction, ParamValue, Project, Vec2};
use stagecraft_runtime::recipe::{compile, CompiledPlan, RecipeSource};
use stagecraft_tests::example_project;

const LOCKED: u64 = 281474976776192;
const THINNED_BY_LOCK: u64 = 281479271743488;
const TRANSFORM_LOCKED: u64 = 281474977431553;
const DELETED: u64 = 281474977628161;
const MOVED: u64 = 281474976710658;
const ADDED: u64 = 282033323180038;
const EXCLUDED: u64 = 281479272071179;
const FROZEN: u64 = 281474976972804;
const HARVESTED: u64 = 281474977234957;
const REGROWN: u64 = 281474977562638;
/// Thinned in the base by the excluded tree, placed once the exclusion makes that one ineligible.
const REVIVED: u64 = 281474977169418;

fn project() -> Project {
    let (_, loaded) = load_dir(&example_project("pine-clearing")).expect("readable");
    loaded.project.expect("loads")
}

fn plan(project: &Project) -> CompiledPlan {
    let recipe = &project.recipes["pine-clearing"];
    let source = RecipeSource {
        file: "recipes/pine-clearing.recipe.ron",
        tree: None,
    };
    compile(recipe, &project.families, &Registry::standard(), source)
        .plan
        .expect("compiles")
}

fn generate_in(
    generator: &mut Generator,
    plan: &CompiledPlan,
    seed: u64,
    overrides: &Overrides,
) -> stagecraft_runtime::generate::Generated {
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    generator
        .generate_with(plan, &request, overrides, &CancelToken::new(), &NoObserver)
        .expect("generates")
}

fn generate(project: &Project, seed: u64, overrides: &Overrides) -> GeneratedBundle {
    let bundle = generate_in(&mut Generator::new(), &plan(project), seed, overrides).bundle;
    (*bundle).clone()
}

fn scatter(bundle: &GeneratedBundle) -> &ScatterProduct {
    match bundle.stage(1001).map(|s| &*s.product) {
        Some(Product::Placements(scatter)) => scatter,
        _ => panic!("stage 1001 is a scatter"),
    }
}

fn placed(bundle: &GeneratedBundle, id: u64) -> Option<(i64, i64, u32, u16, u32)> {
    let Some(Product::PlacedObjects(placed)) = bundle.stage(1002).map(|s| &*s.product) else {
        panic!("stage 1002 places objects");
    };
    placed
        .objects
        .iter()
        .find(|o| o.placement.id.bits() == id)
        .map(|o| {
            let p = &o.placement;
            (p.x, p.y, p.variant, o.rotation_turns_65536, o.scale)
        })
}

fn rejection(bundle: &GeneratedBundle, id: u64) -> Option<RejectReason> {
    scatter(bundle)
        .layers
        .iter()
        .flat_map(|l| &l.output.rejected)
        .find(|r| r.id.bits() == id)
        .map(|r| r.reason())
}

fn id(bits: u64) -> ScatterId {
    ScatterId::from_bits(bits).expect("id")
}

#[test]
fn every_pine_clearing_edit_applies_with_the_values_it_names() {
    let project = project();
    let seed = project.manifest.root_seed;
    let base = generate(&project, seed, &Overrides::none());
    let edited = generate(
        &project,
        seed,
        &Overrides::of_recipe(&project, "pine-clearing"),
    );
    let outcomes: Vec<_> = edited.edit_outcomes().collect();
    assert_eq!(outcomes.len(), 9);
    assert!(outcomes.iter().all(|o| o.result.is_ok()), "{outcomes:?}");
    // The lock keeps a thinned pine (as a young pine) and thins the one that used to win.
    assert_eq!(
        rejection(&base, LOCKED),
        Some(RejectReason::Conflict {
            with: id(THINNED_BY_LOCK)
        })
    );
    assert_eq!(
        placed(&edited, LOCKED).map(|p| (p.0, p.1, p.2)),
        Some((542, 219, 1))
    );
    assert!(placed(&base, THINNED_BY_LOCK).is_some());
    assert_eq!(
        rejection(&edited, THINNED_BY_LOCK),
        Some(RejectReason::Conflict { with: id(LOCKED) })
    );
    // Moved 1.18 m east and 1.44 m south of its generated spot; same identity and variant.
    assert_eq!(
        placed(&base, MOVED).map(|p| (p.0, p.1, p.2)),
        Some((182, 1156, 2))
    );
    assert_eq!(
        placed(&edited, MOVED).map(|p| (p.0, p.1, p.2)),
        Some((300, 1300, 2))
    );
    // Provenance: the moved tree's draws are its candidate's; the boulder drew nothing; each
    // object names the edits that apply to it.
    let record = |b: &GeneratedBundle, bits: u64| {
        let stage = b.stage(1001).expect("scatter stage");
        let key = ChildKey::Scatter(id(bits));
        stage.object_provenance(&key).map(|r| r.into_owned())
    };
    assert_eq!(
        record(&edited, MOVED).map(|r| r.draws),
        record(&base, MOVED).map(|r| r.draws)
    );
    assert_eq!(record(&edited, ADDED).map(|r| r.draws.len()), Some(0));
    let naming: Vec<&str> = edited
        .stage(1001)
        .expect("stage")
        .provenance
        .edits_of(MOVED)
        .map(|o| o.action)
        .collect();
    assert_eq!(naming, vec!["Move"]);
    // The tombstone, the exclusion (keep-out 2, after the two authored ones) and the harvest.
    assert!(placed(&base, DELETED).is_some() && placed(&edited, DELETED).is_none());
    assert_eq!(
        rejection(&edited, EXCLUDED),
        Some(RejectReason::InKeepOut { keep_out: 2 })
    );
    assert!(placed(&base, EXCLUDED).is_some());
    assert!(placed(&base, HARVESTED).is_some() && placed(&edited, HARVESTED).is_none());
    // The added boulder.
    assert_eq!(
        placed(&edited, ADDED).map(|p| (p.0, p.1, p.2)),
        Some((4700, 2400, 2))
    );
    // The locked and frozen transforms, and the regrowth's ordinal and variant.
    assert_eq!(
        placed(&edited, TRANSFORM_LOCKED).map(|p| (p.3, p.4)),
        Some((16199, 929))
    );
    assert_eq!(
        placed(&edited, FROZEN).map(|p| (p.2, p.3, p.4)),
        Some((0, 50536, 976))
    );
    let stage_base = edited
        .stage(1001)
        .and_then(|s| s.provenance.edit_base.clone())
        .expect("the scatter stage records its base");
    let variant = regrow_variant(&stage_base, id(REGROWN), 1).expect("draw");
    let regrown = outcomes
        .iter()
        .find(|o| o.target == REGROWN)
        .expect("regrow");
    assert_eq!(regrown.regrow, Some((1, variant)));
    assert_eq!(placed(&edited, REGROWN).map(|p| p.2), Some(variant));
    // What appeared: the locked pine, the boulder, and what the moved and excluded trees
    // no longer outrank.
    let ids = |b: &GeneratedBundle| -> Vec<u64> {
        scatter(b).placements().map(|p| p.id.bits()).collect()
    };
    let appeared: Vec<u64> = ids(&edited)
        .into_iter()
        .filter(|i| !ids(&base).contains(i))
        .collect();
    let vanished: Vec<u64> = ids(&base)
        .into_iter()
        .filter(|i| !ids(&edited).contains(i))
        .collect();
    assert_eq!(appeared, vec![LOCKED, ADDED, REVIVED]);
    assert_eq!(
        vanished,
        vec![THINNED_BY_LOCK, DELETED, EXCLUDED, HARVESTED]
    );
    assert_eq!(
        rejection(&base, REVIVED),
        Some(RejectReason::Conflict { with: id(EXCLUDED) })
    );
}

#[test]
fn edits_survive_regeneration_and_a_parameter_change() {
    let mut project = project();
    let seed = project.manifest.root_seed;
    let overrides = Overrides::of_recipe(&project, "pine-clearing");
    let first = generate(&project, seed, &overrides);
    assert_eq!(
        first,
        generate(&project, seed, &overrides),
        "regeneration is identical"
    );
    // A narrower scale range re-draws every scale, except the locked and frozen ones.
    let recipe = project.recipes.get_mut("pine-clearing").expect("recipe");
    let stage = recipe
        .stages
        .iter_mut()
        .find(|s| s.id == 1002)
        .expect("stage");
    stage
        .parameters
        .insert("scale_min".into(), ParamValue::Int(500));
    stage
        .parameters
        .insert("scale_max".into(), ParamValue::Int(600));
    let changed = generate(&project, seed, &overrides);
    assert!(changed.edit_outcomes().all(|o| o.result.is_ok()));
    assert_eq!(placed(&changed, TRANSFORM_LOCKED).map(|p| p.4), Some(929));
    assert_eq!(placed(&changed, FROZEN).map(|p| p.4), Some(976));
    assert_eq!(
        placed(&changed, MOVED).map(|p| (p.0, p.1)),
        Some((300, 1300))
    );
    let Some(Product::PlacedObjects(objects)) = changed.stage(1002).map(|s| &*s.product) else {
        panic!("placed");
    };
    let others = objects
        .objects
        .iter()
        .filter(|o| ![TRANSFORM_LOCKED, FROZEN].contains(&o.placement.id.bits()));
    assert!(others.clone().count() > 70);
    assert!(others.into_iter().all(|o| (500..=600).contains(&o.scale)));
}

#[test]
fn an_edited_override_regenerates_exactly_the_stages_it_touches() {
    let mut project = project();
    let seed = project.manifest.root_seed;
    let plan = plan(&project);
    let mut generator = Generator::new();
    let overrides = Overrides::of_recipe(&project, "pine-clearing");
    generate_in(&mut generator, &plan, seed, &overrides);
    let again = generate_in(&mut generator, &plan, seed, &overrides);
    assert_eq!(
        again.report.hits(),
        2,
        "nothing changed: both stages from the cache"
    );
    let set = project
        .overrides
        .get_mut("pine-clearing-edits")
        .expect("set");
    set.overrides[3].action = OverrideAction::Move {
        position: Vec2 { x: 3.5, y: 13.0 },
    };
    let moved = generate_in(
        &mut generator,
        &plan,
        seed,
        &Overrides::of_recipe(&project, "pine-clearing"),
    );
    let reasons = |g: &stagecraft_runtime::generate::Generated| -> Vec<CacheOutcome> {
        g.report.stages.iter().map(|s| s.cache).collect()
    };
    // The move changes the placements, so select-and-place reruns for its input.
    assert_eq!(
        reasons(&moved),
        vec![
            CacheOutcome::Miss(MissReason::OverridesChanged),
            CacheOutcome::Miss(MissReason::InputsChanged)
        ]
    );
    assert_eq!(placed(&moved.bundle, MOVED).map(|p| p.0), Some(350));
    assert_ne!(moved.bundle.digest(), again.bundle.digest());
    // A locked rotation changes no placement: the scatter reruns to the same product, and
    // select-and-place reruns because of the edit alone.
    let set = project
        .overrides
        .get_mut("pine-clearing-edits")
        .expect("set");
    set.overrides[1].action = OverrideAction::LockTransform {
        position: Vec2 { x: 44.72, y: 6.81 },
        rotation: 100,
        scale: 929,
    };
    let turned = generate_in(
        &mut generator,
        &plan,
        seed,
        &Overrides::of_recipe(&project, "pine-clearing"),
    );
    assert_eq!(
        reasons(&turned),
        vec![
            CacheOutcome::Miss(MissReason::OverridesChanged),
            CacheOutcome::Miss(MissReason::OverridesChanged)
        ]
    );
    assert_eq!(
        turned.bundle.stages[0].digest,
        moved.bundle.stages[0].digest
    );
    assert_eq!(
        placed(&turned.bundle, TRANSFORM_LOCKED).map(|p| p.3),
        Some(100)
    );
}

#[test]
fn a_seed_change_applies_nothing_and_rebase_reports_the_orphans() {
    let project = project();
    let overrides = Overrides::of_recipe(&project, "pine-clearing");
    let new_seed = 7;
    let plain = generate(&project, new_seed, &Overrides::none());
    let edited = generate(&project, new_seed, &overrides);
    assert!(edited.edit_outcomes().all(|o| matches!(
        o.result,
        Err(ConflictReason::SeedNotBound {
            base_seed: Some(20261129),
            seed: 7
        })
    )));
    assert_eq!(
        scatter(&edited),
        scatter(&plain),
        "no old edit is silently reapplied"
    );
    let sets = overrides.sets().to_vec();
    let preview = generate(&project, new_seed, &Overrides::preview(sets.clone()));
    let report = rebase_report(&sets, &preview, &plain.digest_hex());
    let standings: Vec<(&str, &str)> = report
        .entries
        .iter()
        .map(|e| (e.action, e.standing.name()))
        .collect();
    assert_eq!(
        standings,
        vec![
            ("LockSelection", "orphaned"),
            ("LockTransform", "orphaned"),
            ("Delete", "orphaned"),
            ("Move", "orphaned"),
            ("Add", "applies"),
            ("Exclude", "applies"),
            ("FreezeSubtree", "orphaned"),
            ("Harvest", "orphaned"),
            ("Regrow", "orphaned"),
        ]
    );
    // Dropping the orphans binds the set to the new seed; what is left then applies.
    let decisions: BTreeMap<_, _> = report
        .entries
        .iter()
        .filter(|e| e.standing == Standing::Orphaned)
        .map(|e| (e.edit.clone(), Decision::Drop))
        .collect();
    let rebased = rebase(&sets[0], &report, &decisions).expect("rebased");
    assert_eq!((rebased.base_seed, rebased.overrides.len()), (Some(7), 2));
    assert_eq!(rebased.base_revision, plain.digest_hex());
    let applied = generate(&project, new_seed, &Overrides::new(vec![rebased]));
    assert_eq!(
        applied.edit_outcomes().filter(|o| o.result.is_ok()).count(),
        2
    );
    assert_eq!(
        placed(&applied, ADDED).map(|p| (p.0, p.1, p.2)),
        Some((4700, 2400, 2))
    );
}

/// Sets a parameter of the pine-clearing scatter stage (1001).
fn set_scatter_param(project: &mut Project, name: &str, value: ParamValue) {
    let recipe = project.recipes.get_mut("pine-clearing").expect("recipe");
    let stage = recipe
        .stages
        .iter_mut()
        .find(|s| s.id == 1001)
        .expect("stage");
    stage.parameters.insert(name.into(), value);
}

#[test]
fn an_added_object_survives_a_higher_candidate_count() {
    let mut project = project();
    let seed = project.manifest.root_seed;
    let add = project.overrides["pine-clearing-edits"]
        .overrides
        .iter()
        .find(|o| matches!(o.action, OverrideAction::Add { .. }))
        .map(|o| o.target)
        .expect("the example adds a boulder");
    for candidates in [3, 64, 128] {
        set_scatter_param(
            &mut project,
            "candidates_per_cell",
            ParamValue::Int(candidates),
        );
        let edited = generate(
            &project,
            seed,
            &Overrides::of_recipe(&project, "pine-clearing"),
        );
        let outcome = edited
            .edit_outcomes()
            .find(|o| o.action == "Add")
            .map(|o| o.result.clone());
        assert_eq!(outcome, Some(Ok(())), "{candidates} candidates per cell");
        assert_eq!(
            placed(&edited, add).map(|p| (p.0, p.1, p.2)),
            Some((4700, 2400, 2)),
            "{candidates} candidates per cell"
        );
    }
}

/// The rebase report of the project's sets against its generation at `seed`.
fn report_at(project: &Project, seed: u64) -> stagecraft_runtime::overrides::RebaseReport {
    let sets = Overrides::of_recipe(project, "pine-clearing")
        .sets()
        .to_vec();
    let plain = generate(project, seed, &Overrides::none());
    let preview = generate(project, seed, &Overrides::preview(sets.clone()));
    rebase_report(&sets, &preview, &plain.digest_hex())
}

#[test]
fn a_spacing_change_breaks_every_lock_move_delete_and_harvest_and_a_freeze_materializes() {
    let mut project = project();
    let seed = project.manifest.root_seed;
    set_scatter_param(&mut project, "cell_size", ParamValue::Int(500));
    let report = report_at(&project, seed);
    let standings: Vec<(&str, &str)> = report
        .entries
        .iter()
        .map(|e| {
            let reason = match &e.standing {
                Standing::Conflict(reason) => reason.name(),
                other => other.name(),
            };
            (e.action, reason)
        })
        .collect();
    assert_eq!(
        standings,
        vec![
            ("LockSelection", "base-revision-mismatch"),
            ("LockTransform", "base-revision-mismatch"),
            // Its target's cell (13, …) is past the region's 12 cells of 5 m.
            ("Delete", "orphaned"),
            ("Move", "base-revision-mismatch"),
            ("Add", "applies"),
            ("Exclude", "applies"),
            ("FreezeSubtree", "base-revision-mismatch"),
            ("Harvest", "orphaned"),
            ("Regrow", "orphaned"),
        ]
    );
    let set = &project.overrides["pine-clearing-edits"];
    let decide = |materialize: usize| -> BTreeMap<_, _> {
        report
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let decision = if i == materialize {
                    Decision::Materialize
                } else if e.standing == Standing::Applies {
                    Decision::Keep
                } else {
                    Decision::Drop
                };
                (e.edit.clone(), decision)
            })
            .collect()
    };
    // The move records a position but no variant, and the base it was made on (cell size 400)
    // is not this one: refused, naming what is missing.
    let refused = rebase(set, &report, &decide(3)).map_err(|e| e.to_string());
    assert_eq!(
        refused,
        Err(
            "pine-clearing-edits:overrides[3] cannot be materialized: no edit records its variant, and the base it was authored against is not this one"
                .to_owned()
        )
    );
    // The freeze records everything: an authored pine at its recorded spot, turned as recorded.
    let rebased = rebase(set, &report, &decide(6)).expect("rebased");
    let made: Vec<_> = rebased
        .overrides
        .iter()
        .filter(|o| o.target != 0 && o.target != ADDED)
        .collect();
    assert_eq!(made.len(), 2, "{made:?}");
    let new = made[0].target;
    let id = id(new);
    assert!(id.is_authored());
    // Cell (16.05 m, 18.13 m) / 5 m = (3, 3), the first authored index.
    assert_eq!((id.cell_x(), id.cell_y(), id.candidate()), (3, 3, 128));
    assert_eq!(
        made[0].action,
        OverrideAction::Add {
            variant: "pine-tall".into(),
            position: Vec2 { x: 16.05, y: 18.13 }
        }
    );
    assert_eq!(
        (made[1].target, &made[1].action),
        (new, &OverrideAction::Rotate { rotation: 50536 })
    );
    let applied = generate(&project, seed, &Overrides::new(vec![rebased]));
    assert!(applied.edit_outcomes().all(|o| o.result.is_ok()));
    let tall = project.families["alpine-trees"]
        .variants
        .iter()
        .position(|v| v.id == "pine-tall")
        .expect("pine-tall") as u32;
    assert_eq!(
        placed(&applied, new).map(|p| (p.0, p.1, p.2, p.3)),
        Some((1605, 1813, tall, 50536))
    );
}

#[test]
fn after_a_seed_change_a_move_materializes_with_the_variant_of_the_base_it_was_made_on() {
    let project = project();
    let report = report_at(&project, 7);
    let set = &project.overrides["pine-clearing-edits"];
    let decisions: BTreeMap<_, _> = report
        .entries
        .iter()
        .map(|e| {
            let decision = match (e.action, &e.standing) {
                ("Move", _) => Decision::Materialize,
                (_, Standing::Applies) => Decision::Keep,
                _ => Decision::Drop,
            };
            (e.edit.clone(), decision)
        })
        .collect();
    let rebased = rebase(set, &report, &decisions).expect("rebased");
    let add = rebased
        .overrides
        .iter()
        .find(|o| o.target != ADDED && matches!(o.action, OverrideAction::Add { .. }))
        .expect("the materialized move");
    // The moved tree was variant 2 of the family in the base it was moved in (seed 20261129).
    let variant = project.families["alpine-trees"].variants[2].id.clone();
    assert_eq!(
        add.action,
        OverrideAction::Add {
            variant,
            position: Vec2 { x: 3.0, y: 13.0 }
        }
    );
    let applied = generate(&project, 7, &Overrides::new(vec![rebased.clone()]));
    assert!(applied.edit_outcomes().all(|o| o.result.is_ok()));
    assert_eq!(
        placed(&applied, add.target).map(|p| (p.0, p.1, p.2)),
        Some((300, 1300, 2))
    );
}
