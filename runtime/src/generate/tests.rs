//! Tests of the executor, the stage cache, failures and provenance.

use std::collections::BTreeMap;

use super::*;
use crate::content::{Product, RejectReason};
use crate::identity::ChildKey;
use crate::ops::registry::Registry;
use crate::project::{read_document, AssetFamily, AssetVariant, DocKind, Recipe};
use crate::recipe::{compile, RecipeSource};
use crate::rng::{sample_u32, Address, Domain, DomainKey};

pub(crate) fn families(radius: i64) -> BTreeMap<String, AssetFamily> {
    let variant = |id: &str, weight: u32, radius: i64| AssetVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius: radius,
        collision_radius_m: 0.5,
        height_m: 2.0,
        sockets: Vec::new(),
        ..AssetVariant::default()
    };
    let family = AssetFamily {
        id: "props".to_owned(),
        name: String::new(),
        variants: vec![variant("bench", 2, radius), variant("lamp", 1, 200)],
    };
    [("props".to_owned(), family)].into_iter().collect()
}

/// A street block, a scatter over its areas and select-and-place; `scatter` and `place` are the
/// parameter maps of stages 2 and 3.
pub(crate) fn street_text(scatter: &str, place: &str) -> String {
    format!(
        "Recipe(schema: 1, id: \"street\", address_schema: 1, inputs: {{\"props\": Family(\"props\")}},
         stages: [
           Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {{\"crosswalks\": 2}}),
           Stage(id: 2, operator: \"environment.scatter\", algorithm: 1, inputs: [1, \"props\"],
                 parameters: {{{scatter}}}),
           Stage(id: 3, operator: \"environment.select-and-place\", algorithm: 1, inputs: [2],
                 parameters: {{{place}}}),
         ], outputs: [1, 3])"
    )
}

pub(crate) fn plan_with(
    text: &str,
    families: &BTreeMap<String, AssetFamily>,
) -> crate::recipe::CompiledPlan {
    plan_in(text, families, &Registry::standard())
}

pub(crate) fn plan_in(
    text: &str,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
) -> crate::recipe::CompiledPlan {
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, "r", text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: "r",
        tree: tree.as_ref(),
    };
    let outcome = compile(&recipe, families, registry, source);
    outcome
        .plan
        .unwrap_or_else(|| panic!("{:#?}", outcome.diagnostics))
}

pub(crate) fn plan(text: &str) -> crate::recipe::CompiledPlan {
    plan_with(text, &families(150))
}

pub(crate) const SCATTER: &str = "\"cell_size\": 300, \"candidates_per_cell\": 2";
pub(crate) const PLACE: &str = "\"scale_min\": 900, \"scale_max\": 1100";

pub(crate) fn request(mode: ExecutionMode) -> GenerateRequest {
    GenerateRequest {
        root_seed: 7,
        mode,
        generation: 0,
    }
}

pub(crate) fn run(plan: &crate::recipe::CompiledPlan, mode: ExecutionMode) -> Generated {
    run_plan(
        plan,
        &request(mode),
        &mut StageCache::new(0),
        &CancelToken::new(),
        &NoObserver,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn serial_and_parallel_agree_on_one_and_two_threads() {
    let plan = plan(&street_text(SCATTER, PLACE));
    let serial = run(&plan, ExecutionMode::Serial).bundle;
    assert!(
        serial.stage(2).is_some_and(|s| s.summary.objects > 10),
        "props were placed"
    );
    for threads in [1, 2] {
        let parallel = pool(threads).install(|| run(&plan, ExecutionMode::Parallel).bundle);
        assert_eq!(parallel.digest(), serial.digest(), "{threads} threads");
        assert_eq!(*parallel, *serial);
    }
    assert_eq!(
        run(&plan, ExecutionMode::Serial).bundle.digest(),
        serial.digest()
    );
}

#[test]
fn street_props_stay_on_the_furniture_strips_and_off_the_landings() {
    let bundle = run(&plan(&street_text(SCATTER, PLACE)), ExecutionMode::Serial).bundle;
    let Some(Product::Placements(scatter)) = bundle.stage(2).map(|s| &*s.product) else {
        panic!("stage 2 has placements");
    };
    let layers: Vec<(u8, Option<&str>)> = scatter
        .layers
        .iter()
        .map(|l| (l.layer, l.area.as_deref()))
        .collect();
    assert_eq!(
        layers,
        [(0, Some("furniture.north")), (1, Some("furniture.south"))]
    );
    for layer in &scatter.layers {
        for p in &layer.output.placements {
            assert!(layer.region.contains(p.x, p.y));
            assert!(layer.keep_outs.iter().all(|k| !k.contains(p.x, p.y)));
        }
        assert!(layer
            .output
            .rejected
            .iter()
            .any(|r| matches!(r.reason(), RejectReason::InKeepOut { .. })));
    }
}

#[test]
fn editing_one_stage_reruns_only_it_and_its_dependents() {
    let mut generator = Generator::new();
    let go = |generator: &mut Generator, text: &str, generation: u64| {
        let request = GenerateRequest {
            generation,
            ..request(ExecutionMode::Parallel)
        };
        generator
            .generate(&plan(text), &request, &CancelToken::new(), &NoObserver)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let cold = go(&mut generator, &street_text(SCATTER, PLACE), 1);
    assert_eq!(cold.report.hits(), 0);
    assert_eq!(cold.report.misses(), 3);
    let warm = go(&mut generator, &street_text(SCATTER, PLACE), 2);
    assert_eq!((warm.report.hits(), warm.report.misses()), (3, 0));
    assert_eq!(warm.bundle.digest(), cold.bundle.digest());

    let edited = go(
        &mut generator,
        &street_text("\"cell_size\": 300, \"candidates_per_cell\": 3", PLACE),
        3,
    );
    assert_eq!(edited.report.ran(), [2, 3]);
    assert_eq!(
        edited.report.stages,
        [
            StageRun {
                stage: 1,
                cache: CacheOutcome::Hit
            },
            StageRun {
                stage: 2,
                cache: CacheOutcome::Miss(MissReason::ParametersChanged)
            },
            StageRun {
                stage: 3,
                cache: CacheOutcome::Miss(MissReason::InputsChanged)
            },
        ]
    );
    let transform_only = go(
        &mut generator,
        &street_text(SCATTER, "\"scale_min\": 800, \"scale_max\": 1100"),
        4,
    );
    assert_eq!(
        transform_only.report.ran(),
        [3],
        "stage 2 is cached from the first run"
    );
    assert_eq!(
        generator.cache().stats(),
        CacheStats {
            hits: 3 + 1 + 2,
            misses: 3 + 2 + 1,
            corrupt: 0,
            evictions: 0
        }
    );
    // Changing the seed misses everything; a miss names the first part that changed since that
    // stage last ran (stage 3 last ran with other scale parameters).
    let reseeded = generator
        .generate(
            &plan(&street_text(SCATTER, PLACE)),
            &GenerateRequest {
                root_seed: 8,
                ..request(ExecutionMode::Serial)
            }
            .with_generation(5),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let reasons: Vec<CacheOutcome> = reseeded.report.stages.iter().map(|s| s.cache).collect();
    assert_eq!(
        reasons,
        [
            CacheOutcome::Miss(MissReason::SeedChanged),
            CacheOutcome::Miss(MissReason::SeedChanged),
            CacheOutcome::Miss(MissReason::ParametersChanged),
        ]
    );
}

impl GenerateRequest {
    fn with_generation(self, generation: u64) -> GenerateRequest {
        GenerateRequest { generation, ..self }
    }
}

#[test]
fn a_damaged_cache_entry_is_discarded_and_rebuilt() {
    let plan = plan(&street_text(SCATTER, PLACE));
    let mut cache = StageCache::default();
    let first = run_plan(
        &plan,
        &request(ExecutionMode::Serial),
        &mut cache,
        &CancelToken::new(),
        &NoObserver,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let block = first.bundle.stage(1).unwrap_or_else(|| panic!("stage 1"));
    let placed = (*first
        .bundle
        .stage(3)
        .unwrap_or_else(|| panic!("stage 3"))
        .product)
        .clone();
    assert!(cache.damage(CacheKey(block.key), placed));
    let second = run_plan(
        &plan,
        &request(ExecutionMode::Serial),
        &mut cache,
        &CancelToken::new(),
        &NoObserver,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        second.report.stages[0].cache,
        CacheOutcome::Miss(MissReason::Corrupt)
    );
    assert_eq!(second.report.hits(), 2);
    assert_eq!(second.bundle.digest(), first.bundle.digest());
    assert_eq!(cache.stats().corrupt, 1);
}

#[test]
fn a_byte_budget_evicts_the_least_recently_used_products() {
    let plan = plan(&street_text(SCATTER, PLACE));
    let run_seed = |cache: &mut StageCache, root_seed: u64| {
        let request = GenerateRequest {
            root_seed,
            ..request(ExecutionMode::Serial)
        };
        run_plan(&plan, &request, cache, &CancelToken::new(), &NoObserver)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let mut unbounded = StageCache::default();
    let first = run_seed(&mut unbounded, 7);
    let one_run = unbounded.bytes();
    let summed: usize = first
        .bundle
        .stages
        .iter()
        .map(|s| s.product.approx_heap_bytes())
        .sum();
    assert_eq!(one_run, summed, "the cache counts every stored product");
    assert!(one_run > 1_000, "{one_run} bytes");
    // Room for one and a half runs: a second seed's products push the first seed's out.
    let budget = one_run + one_run / 2;
    let mut cache = StageCache::with_budget(DEFAULT_CACHE_ENTRIES, budget);
    run_seed(&mut cache, 7);
    assert_eq!(cache.bytes(), one_run);
    assert_eq!(cache.stats().evictions, 0);
    let second = run_seed(&mut cache, 8);
    assert!(cache.bytes() <= budget, "{} > {budget}", cache.bytes());
    assert!(cache.stats().evictions >= 1);
    // The newest products stay: the second seed again is served from the cache.
    let again = run_seed(&mut cache, 8);
    assert_eq!(again.report.misses(), 0);
    assert_eq!(again.bundle.digest(), second.bundle.digest());
    // A budget below one product still keeps the newest entry.
    let mut tiny = StageCache::with_budget(DEFAULT_CACHE_ENTRIES, 1);
    run_seed(&mut tiny, 7);
    assert_eq!(tiny.len(), 1);
}

/// The standard operators plus `environment.scatter` version 2, whose kernel always refuses.
fn failing_registry() -> Registry {
    use crate::ops::registry::{
        KernelContext, OperatorDescriptor, StageError, StageInputs, StageOutput, StageParams,
    };
    fn refuse(
        _: &StageParams,
        _: &StageInputs<'_>,
        _: &KernelContext<'_>,
    ) -> Result<StageOutput, StageError> {
        Err(StageError::new(
            FailureKind::InvalidInput,
            Some("family"),
            "refused by the test kernel",
        ))
    }
    let mut registry = Registry::standard();
    let scatter = *registry
        .get("environment.scatter", 1)
        .unwrap_or_else(|| panic!("scatter"));
    let failing = OperatorDescriptor {
        algorithm: 2,
        kernel: refuse,
        ..scatter
    };
    registry.register(failing).unwrap_or_else(|e| panic!("{e}"));
    registry
}

#[test]
fn a_radius_above_the_cell_size_is_refused_when_compiling_not_generating() {
    let (recipe, tree, _) =
        read_document::<Recipe>(DocKind::Recipe, "r", &street_text(SCATTER, PLACE));
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: "r",
        tree: tree.as_ref(),
    };
    let outcome = compile(&recipe, &families(301), &Registry::standard(), source);
    assert!(outcome.plan.is_none());
    let errors: Vec<String> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    assert_eq!(
        errors,
        vec![
            "stages[1].parameters[\"cell_size\"]: stage 2: variant `bench` of family `props` has exclusion radius 301, above the cell size 300"
        ]
    );
}

#[test]
fn failure_publishes_nothing_and_names_the_dependents() {
    let mut generator = Generator::new();
    let good = plan(&street_text(SCATTER, PLACE));
    let first = generator
        .generate(
            &good,
            &request(ExecutionMode::Serial),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    // A kernel failure no recipe rule foresees: version 2 of the scatter always fails at `family`.
    let bad = plan_in(
        &street_text(SCATTER, PLACE).replace(
            "\"environment.scatter\", algorithm: 1",
            "\"environment.scatter\", algorithm: 2",
        ),
        &families(150),
        &failing_registry(),
    );
    let error = generator
        .generate(
            &bad,
            &request(ExecutionMode::Parallel),
            &CancelToken::new(),
            &NoObserver,
        )
        .err()
        .unwrap_or_else(|| panic!("must fail"));
    assert_eq!(error.kind(), FailureKind::InvalidInput);
    assert_eq!(error.stage(), Some(2));
    assert_eq!(error.failures[0].field.as_deref(), Some("family"));
    assert_eq!(error.failures[1].stage, Some(3));
    assert_eq!(error.failures[1].kind, FailureKind::DependencyFailure);
    let current = generator
        .current()
        .unwrap_or_else(|| panic!("still published"));
    assert_eq!(current.digest(), first.bundle.digest());
}

#[test]
fn cancelled_and_stale_requests_change_nothing() {
    let plan = plan(&street_text(SCATTER, PLACE));
    let mut generator = Generator::new();
    let cancel = CancelToken::new();
    cancel.cancel();
    let error = generator
        .generate(&plan, &request(ExecutionMode::Serial), &cancel, &NoObserver)
        .err()
        .unwrap_or_else(|| panic!("cancelled"));
    assert_eq!(error.kind(), FailureKind::Cancellation);
    assert!(generator.current().is_none());
    let newer = request(ExecutionMode::Serial).with_generation(9);
    generator
        .generate(&plan, &newer, &CancelToken::new(), &NoObserver)
        .unwrap_or_else(|e| panic!("{e}"));
    let stale = request(ExecutionMode::Serial).with_generation(3);
    let error = generator
        .generate(&plan, &stale, &CancelToken::new(), &NoObserver)
        .err()
        .unwrap_or_else(|| panic!("stale"));
    assert_eq!(error.kind(), FailureKind::StaleRequest);
    assert_eq!(generator.published_generation(), Some(9));
}

#[test]
fn provenance_answers_parent_asset_draws_and_rejections() {
    let bundle = run(&plan(&street_text(SCATTER, PLACE)), ExecutionMode::Serial).bundle;
    let placed = bundle.stage(3).unwrap_or_else(|| panic!("stage 3"));
    let Product::PlacedObjects(objects) = &*placed.product else {
        panic!("placed objects");
    };
    let first = objects.objects[0];
    let key = ChildKey::Scatter(first.placement.id);
    let view = bundle
        .provenance(3, &key)
        .unwrap_or_else(|| panic!("provenance"));
    assert_eq!(view.recipe, "street");
    assert_eq!(
        view.asset,
        Some((
            "props".to_owned(),
            objects.variant_ids[first.placement.variant as usize].clone()
        ))
    );
    // Identity chain: placed object → scatter candidate → street-block area.
    let parent = view
        .identity
        .parent
        .as_deref()
        .unwrap_or_else(|| panic!("parent"));
    assert_eq!(parent.stage.0, 2);
    let area = parent.parent.as_deref().unwrap_or_else(|| panic!("area"));
    assert_eq!(
        (area.stage.0, &area.child_key),
        (1, &ChildKey::Slot("area/furniture.north".to_owned()))
    );
    let rotation = view.record.draws[0];
    let key_words = DomainKey::new(7, Domain::Transform);
    assert_eq!(
        rotation.value,
        sample_u32(&key_words, Address::new(first.placement.id.bits(), 0, 0))
    );
    assert_eq!(rotation.value >> 16, u32::from(first.rotation_turns_65536));
    // The scatter stage stores no records: the four draws of an accepted candidate, and why
    // others lost, are derived on demand and match the product exactly.
    let scatter = bundle.stage(2).unwrap_or_else(|| panic!("stage 2"));
    assert!(scatter.provenance.objects.is_empty() && scatter.provenance.rejected.is_empty());
    let Product::Placements(product) = &*scatter.product else {
        panic!("placements");
    };
    let record = scatter
        .object_provenance(&key)
        .unwrap_or_else(|| panic!("scatter record"));
    assert_eq!(record.draws.len(), 4);
    let placement = first.placement;
    let cs = product.cell_size;
    let values: Vec<u32> = record.draws.iter().map(|d| d.value).collect();
    assert_eq!(
        values[..3],
        [
            (placement.x - i64::from(placement.cell_x()) * cs) as u32,
            (placement.y - i64::from(placement.cell_y()) * cs) as u32,
            placement.priority,
        ]
    );
    // Weights 2 and 1: draws 0 and 1 choose the bench, 2 the lamp.
    assert_eq!(u32::from(values[3] >= 2), placement.variant);
    assert_eq!(record.draws[3].domain, Domain::Variant);
    let conflict = product
        .layers
        .iter()
        .flat_map(|l| &l.output.rejected)
        .find(|r| matches!(r.reason(), RejectReason::Conflict { .. }))
        .unwrap_or_else(|| panic!("a conflict"));
    let derived = bundle
        .rejection(2, &ChildKey::Scatter(conflict.id))
        .unwrap_or_else(|| panic!("rejection record"));
    assert_eq!(derived.reason, conflict.reason());
    assert_eq!(derived.draws.len(), 4, "eligible candidates drew a variant");
    let outside = product
        .layers
        .iter()
        .flat_map(|l| &l.output.rejected)
        .find(|r| !matches!(r.reason(), RejectReason::Conflict { .. }))
        .unwrap_or_else(|| panic!("an ineligible candidate"));
    let derived = bundle
        .rejection(2, &ChildKey::Scatter(outside.id))
        .unwrap_or_else(|| panic!("rejection record"));
    assert_eq!(
        derived.draws.len(),
        2,
        "ineligible candidates drew offsets only"
    );
    // Deriving twice gives the same record: nothing advanced.
    assert_eq!(
        bundle.rejection(2, &ChildKey::Scatter(outside.id)),
        Some(derived)
    );
    assert_eq!(bundle.rejection(2, &ChildKey::Scatter(placement.id)), None);
}

#[test]
fn a_mission_feeds_its_spawn_to_the_streaming_plan() {
    let text = "Recipe(schema: 1, id: \"m\", address_schema: 1, stages: [
        Stage(id: 1, operator: \"layout.grid-mission\", algorithm: 1, parameters: {
            \"width\": 6, \"height\": 5, \"min_extraction_distance\": 5, \"cell_size_m\": 20.0,
            \"chunks\": [(\"s\", \"spawn\", false), (\"o\", \"objective\", false),
                         (\"e\", \"extraction\", false), (\"h\", \"connector\", true),
                         (\"w\", \"blocker\", false)]}),
        Stage(id: 2, operator: \"streaming.plan\", algorithm: 1, inputs: [1]),
    ], outputs: [1, 2])";
    let bundle = run(&plan(text), ExecutionMode::Parallel).bundle;
    let (Some(Product::MissionLayout(mission)), Some(Product::StreamingPlan(streaming))) = (
        bundle.stage(1).map(|s| &*s.product),
        bundle.stage(2).map(|s| &*s.product),
    ) else {
        panic!("mission and streaming products");
    };
    let spawn = mission.layout.spawn;
    assert_eq!(
        streaming.observer_m,
        mission.cell_center_m(spawn.x, spawn.y)
    );
    assert_eq!(streaming.plan.loaded_cells.len(), 9);
    let chunk = bundle
        .stage(1)
        .and_then(|s| s.provenance.objects.first().cloned());
    assert!(chunk.is_some_and(|c| c.draws.len() == 1));
}

/// A scatter product of two layers and the placed objects of its placements, each encoding to
/// more than 1 MiB, so a parallel digest hashes more than one chunk on several threads.
fn large_products() -> (Product, Product) {
    use crate::content::{
        PlacedObject, PlacedProduct, Placement, RejectedCandidate, ScatterLayer, ScatterOutput,
        ScatterProduct,
    };
    use crate::identity::pack_scatter_id;
    let layer = |layer: u8| {
        let mut output = ScatterOutput::default();
        for cy in 0..200i16 {
            for cx in 0..200i16 {
                for k in 0..2u8 {
                    let id =
                        pack_scatter_id(1, u32::from(layer), u32::from(k), cx.into(), cy.into())
                            .unwrap_or_else(|e| panic!("{e}"));
                    let (x, y) = (i64::from(cx) * 7 + i64::from(k), i64::from(cy) * 5);
                    let mix = (i32::from(cx) * 3 + i32::from(cy) + i32::from(k)) % 4;
                    let reason = match mix {
                        0 => None,
                        1 => Some(RejectReason::OutsideRegion),
                        2 => Some(RejectReason::InKeepOut { keep_out: 3 }),
                        _ => Some(RejectReason::Conflict { with: id }),
                    };
                    match reason {
                        None => output.placements.push(Placement {
                            id,
                            x,
                            y,
                            variant: u32::from(k),
                            priority: (x * 31 + y) as u32,
                        }),
                        Some(reason) => output
                            .rejected
                            .push(RejectedCandidate::new(id, x, y, reason)),
                    }
                }
            }
        }
        ScatterLayer {
            layer,
            room: 1,
            area: Some(format!("area-{layer}")),
            region: crate::content::geometry::Rect::new(0, 0, 1_400, 1_000),
            keep_outs: Vec::new(),
            output,
        }
    };
    let scatter = ScatterProduct {
        family: "props".into(),
        variant_ids: vec!["bench".into(), "lamp".into()],
        lattice_unit_m: 0.01,
        cell_size: 7,
        candidates_per_cell: 2,
        area_stage: None,
        layers: vec![layer(0), layer(1)],
    };
    let placed = PlacedProduct {
        family: "props".into(),
        variant_ids: scatter.variant_ids.clone(),
        lattice_unit_m: 0.01,
        scale_unit: 0.001,
        placements_stage: 2,
        objects: scatter
            .placements()
            .map(|p| PlacedObject {
                placement: *p,
                rotation_turns_65536: p.priority as u16,
                scale: 900 + p.variant,
            })
            .collect(),
    };
    (Product::Placements(scatter), Product::PlacedObjects(placed))
}

#[test]
fn a_parallel_digest_is_the_serial_digest_on_any_pool() {
    let (scatter, placed) = large_products();
    for product in [&scatter, &placed] {
        let bytes = product.canonical_bytes();
        assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
        let expected = *blake3::hash(&bytes).as_bytes();
        assert_eq!(product.digest(), expected);
        for threads in [1, 2, 4] {
            assert_eq!(
                pool(threads).install(|| product.digest_par()),
                expected,
                "{threads} threads"
            );
        }
        let cached = pool(2).install(|| {
            CachedStage::new_par(product.clone(), crate::content::StageProvenance::default())
        });
        let serial = CachedStage::new(product.clone(), crate::content::StageProvenance::default());
        assert_eq!(cached, serial);
    }
}

/// An unused stage is not executed: stage 4 runs a scatter whose kernel always fails, but reaches
/// no output, so the generation succeeds with the bundle of the recipe without it.
#[test]
fn a_stage_that_reaches_no_output_is_not_run() {
    let base = street_text(SCATTER, PLACE);
    let with_dead = base.replace(
        "         ], outputs: [1, 3])",
        "           Stage(id: 4, operator: \"environment.scatter\", algorithm: 2, inputs: [1, \"props\"],
                 parameters: {\"cell_size\": 300, \"room\": 2}),
         ], outputs: [1, 3])",
    );
    assert_ne!(with_dead, base);
    let dead = plan_in(&with_dead, &families(150), &failing_registry());
    let ids: Vec<u32> = dead.stages().iter().map(|s| s.id()).collect();
    assert_eq!(ids, [1, 2, 3]);
    let mut generator = Generator::new();
    let generated = generator
        .generate(
            &dead,
            &request(ExecutionMode::Parallel),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("the failing stage ran: {e}"));
    let reference = Generator::new()
        .generate(
            &plan(&base),
            &request(ExecutionMode::Parallel),
            &CancelToken::new(),
            &NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(generated.bundle.digest(), reference.bundle.digest());
    let ran: Vec<u32> = generated.report.stages.iter().map(|s| s.stage).collect();
    assert_eq!(ran, [1, 2, 3]);
}
