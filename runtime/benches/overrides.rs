//! Applying author overrides: 10,000 overrides (locks, moves, replacements, deletions, additions)
//! on a scatter of about 100,000 placements (target ≤ 20 ms), and the edits' digest that enters
//! the cache key.
//!
//! The layer is 1.2 km × 1.2 km at 4 m cells with 2 candidates per cell and small exclusion radii
//! (0.6 m, 0.9 m, 1.4 m), so most candidates are placed. Before criterion's own timings the bench
//! prints the placement count and the median of a few timed runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use stagecraft_runtime::content::{FamilyData, FamilyVariant, ScatterLayer, ScatterProduct};
use stagecraft_runtime::identity::pack_scatter_id;
use stagecraft_runtime::ops::scatter::{
    region_cells, scatter_par, Rect, ScatterParams, ScatterVariant,
};
use stagecraft_runtime::overrides::{apply_scatter, Overrides, StageBase};
use stagecraft_runtime::project::{Override, OverrideAction, OverrideSet, Vec2};

mod support;
use support::cpu_ns;

const SEED: u64 = 0x0bad_5eed;
const STAGE: u32 = 3;
const EDGE: i64 = 120_000;

fn family() -> FamilyData {
    let variant = |id: &str, weight, exclusion_radius| FamilyVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius,
        collision_radius_m: 0.3,
        height_m: 3.0,
        sockets: Vec::new(),
    };
    FamilyData {
        id: "forest".to_owned(),
        variants: vec![
            variant("small", 5, 60),
            variant("medium", 3, 90),
            variant("large", 1, 140),
        ],
    }
}

fn product() -> ScatterProduct {
    let family = family();
    let params = ScatterParams {
        cell_size: 400,
        candidates_per_cell: 2,
        region: Rect::new(0, 0, EDGE, EDGE),
        keep_outs: vec![],
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
    };
    let cells = region_cells(&params).expect("cells");
    let output = scatter_par(&params, SEED, cells).expect("scatter");
    ScatterProduct {
        family: family.id.clone(),
        variant_ids: family.variant_ids(),
        lattice_unit_m: 0.01,
        cell_size: 400,
        candidates_per_cell: 2,
        area_stage: None,
        layers: vec![ScatterLayer {
            layer: 0,
            room: 1,
            area: None,
            region: params.region,
            keep_outs: params.keep_outs,
            output,
        }],
    }
}

/// 10,000 overrides over every tenth placement, with their base revisions.
fn overrides(product: &ScatterProduct, base: &StageBase) -> OverrideSet {
    let mut overrides = Vec::with_capacity(10_000);
    for (i, p) in product.placements().step_by(9).take(9_000).enumerate() {
        let action = match i % 4 {
            0 => OverrideAction::LockSelection {
                variant: "medium".to_owned(),
            },
            1 => OverrideAction::Move {
                position: Vec2 {
                    x: (p.x + 50) as f64 * 0.01,
                    y: p.y as f64 * 0.01,
                },
            },
            2 => OverrideAction::Replace {
                variant: "small".to_owned(),
            },
            _ => OverrideAction::Delete,
        };
        overrides.push(Override {
            nested: Vec::new(),
            stage: STAGE,
            target: p.id.bits(),
            precedence: 0,
            base: base.revision(p.id).unwrap_or_default(),
            action,
        });
    }
    for i in 0..1_000i64 {
        let (cx, cy) = (i % 300, i / 300 * 7);
        let target = pack_scatter_id(1, 0, 2, cx, cy).expect("id").bits();
        overrides.push(Override {
            nested: Vec::new(),
            stage: STAGE,
            target,
            precedence: 0,
            base: String::new(),
            action: OverrideAction::Add {
                variant: "small".to_owned(),
                position: Vec2 {
                    x: (cx * 400 + 200) as f64 * 0.01,
                    y: (cy * 400 + 200) as f64 * 0.01,
                },
            },
        });
    }
    OverrideSet {
        id: "bench".to_owned(),
        recipe: "r".to_owned(),
        base_seed: Some(SEED),
        base_revision: String::new(),
        overrides,
        mutations: vec![],
    }
}

fn median(runs: usize, mut call: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            call();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let base_product = product();
    let base = StageBase::new(STAGE, SEED, &family(), 400, 2, 0.01);
    let set = overrides(&base_product, &base);
    let all = Overrides::new(vec![set]);
    let edits = all.for_stage(STAGE, SEED);
    let mut check = base_product.clone();
    let outcomes = apply_scatter(&mut check, &base, &edits);
    let applied = outcomes.iter().filter(|o| o.result.is_ok()).count();
    println!(
        "{} placements, {} overrides ({applied} applied), {} placements after",
        base_product.placement_count(),
        edits.edits.len(),
        check.placement_count()
    );
    let apply_time = median(7, || {
        let mut product = base_product.clone();
        black_box(apply_scatter(&mut product, &base, &edits));
    });
    let mut cpu_apply = Vec::new();
    for _ in 0..7 {
        let mut product = base_product.clone();
        let start = cpu_ns();
        black_box(apply_scatter(&mut product, &base, &edits));
        if let (Some(start), Some(end)) = (start, cpu_ns()) {
            cpu_apply.push(end - start);
        }
    }
    cpu_apply.sort_unstable();
    if let Some(ns) = cpu_apply.get(cpu_apply.len() / 2) {
        println!("apply: median CPU time {:.2} ms", *ns as f64 / 1e6);
    }
    let clone_time = median(7, || {
        black_box(base_product.clone());
    });
    let digest_time = median(7, || {
        black_box(all.for_stage(STAGE, SEED).digest());
    });
    println!(
        "apply: median {:.2} ms (of which cloning the product {:.2} ms); edits + digest {:.2} ms",
        apply_time.as_secs_f64() * 1e3,
        clone_time.as_secs_f64() * 1e3,
        digest_time.as_secs_f64() * 1e3
    );
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    criterion.bench_function("overrides/apply 10k to 100k placements", |b| {
        b.iter_batched(
            || base_product.clone(),
            |mut product| apply_scatter(&mut product, &base, &edits),
            BatchSize::LargeInput,
        )
    });
    criterion.bench_function("overrides/edits and digest of 10k", |b| {
        b.iter(|| all.for_stage(STAGE, SEED).digest())
    });
    criterion.final_summary();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
