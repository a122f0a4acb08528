//! Task benchmarks, single thread:
//!
//! - path queries per second on the `street-lifecycle` example's block (80 m, one crossing;
//!   target ≥ 20,000): queries between deterministic points on both sidewalks and the crossing,
//!   5–30 m apart, through the path service's A* with its 2,048-expansion bound;
//! - one step of 1,000 peds under active rendezvous directives on the long street block
//!   (`sim::directed_street_world`; target ≤ 2 ms per step), measured after every path is
//!   installed; every task ped walks by its motion profile (start, loop and goal-stop
//!   budgets, turns);
//! - the step budget's 12-step binary search (`sim::config::profiles::budgeted_step` on a
//!   curve that always exceeds the budget; target ≥ 1 M per second).
//!
//! Before criterion's own timings the bench prints medians of a few timed runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput};
use stagecraft_runtime::ops::street_block::{build_street_block, StreetBlockParams};
use stagecraft_runtime::project::Vec2;
use stagecraft_runtime::sim::config::profiles::{budgeted_step, DistanceCurve};
use stagecraft_runtime::sim::tasks::gait::GaitPhase;
use stagecraft_runtime::sim::tasks::paths::{PathGrid, MAX_EXPANSIONS};
use stagecraft_runtime::sim::{directed_street_world, ParentState, SimSpace, World};

mod support;
use support::median;

/// The example's street block (`projects/street-lifecycle/recipes/street-lifecycle.recipe.ron`).
fn example_grid() -> PathGrid {
    let params = StreetBlockParams {
        length_m: 80.0,
        road_width_m: 7.0,
        sidewalk_width_m: 4.0,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    };
    let block = build_street_block(&params).expect("the example block builds");
    let space = SimSpace::from_street_blocks(&[&block]).expect("space");
    PathGrid::new(&space.routes, &[])
}

/// Deterministic query pairs: starts along both sidewalks, goals 5–30 m away on the same or the
/// other sidewalk (across the crossing).
fn pairs(count: usize) -> Vec<(Vec2, Vec2)> {
    (0..count)
        .map(|i| {
            let a = (i as f64 * 0.618_033_988_75).fract();
            let b = (i as f64 * 0.754_877_666).fract();
            let north = |k: usize| if k.is_multiple_of(2) { 6.25 } else { -6.25 };
            let x0 = -35.0 + 70.0 * a;
            let reach = 5.0 + 25.0 * b;
            let x1 = if x0 + reach <= 35.0 {
                x0 + reach
            } else {
                x0 - reach
            };
            let lateral = (b - 0.5) * 1.4;
            (
                Vec2 {
                    x: x0,
                    y: north(i) + lateral,
                },
                Vec2 {
                    x: x1,
                    y: north(i / 3) - lateral,
                },
            )
        })
        .collect()
}

fn report_queries(grid: &PathGrid, pairs: &[(Vec2, Vec2)]) {
    let mut found = 0;
    let mut expansions = 0u64;
    let mut limited = 0;
    for (a, b) in pairs {
        match grid.find(*a, *b) {
            Ok(path) => {
                found += 1;
                expansions += u64::from(path.expansions);
            }
            Err(stagecraft_runtime::sim::state::PathFailure::ExpansionLimit) => limited += 1,
            Err(_) => {}
        }
    }
    let samples: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for (a, b) in pairs {
                black_box(grid.find(*a, *b).ok());
            }
            start.elapsed()
        })
        .collect();
    let per_query = median(samples).as_secs_f64() / pairs.len() as f64;
    println!(
        "path queries: {:.0} per second single thread ({:.1} µs each; {found}/{} found, \
         {limited} stopped at {MAX_EXPANSIONS} expansions, {:.0} expansions on average)",
        1.0 / per_query,
        per_query * 1e6,
        pairs.len(),
        expansions as f64 / f64::from(found.max(1)),
    );
}

fn directed(peds: usize) -> World {
    let mut world = directed_street_world(peds, 7).expect("the long street builds");
    // 1,000 queries at 64 per step are all answered within 16 steps.
    for _ in 0..40 {
        world.step();
    }
    let travelling = world
        .tasks()
        .parents
        .values()
        .filter(|p| p.state == ParentState::Travelling)
        .count();
    assert!(
        travelling * 10 >= peds * 9,
        "{travelling} of {peds} travelling"
    );
    world
}

fn report_step(peds: usize) {
    let mut world = directed(peds);
    let samples: Vec<Duration> = (0..40)
        .map(|_| {
            let start = Instant::now();
            world.step();
            start.elapsed()
        })
        .collect();
    let parents = &world.tasks().parents;
    let active = parents.values().filter(|p| p.state.is_active()).count();
    let phase = |wanted: GaitPhase| {
        world
            .tasks()
            .movements
            .values()
            .filter(|m| m.gait.phase == wanted)
            .count()
    };
    println!(
        "{peds} peds under directives with motion profiles: median step {:.3} ms ({active} \
         parents active, {} paths answered; {} starting, {} looping, {} stopping, {} turning)",
        median(samples).as_secs_f64() * 1e3,
        world.tasks().service.answered,
        phase(GaitPhase::Start),
        phase(GaitPhase::Loop),
        phase(GaitPhase::Stop),
        phase(GaitPhase::Turn),
    );
}

/// A curve of 10 m/s: at 3.30 m/s over a 5.94324 m/s reference every proposal exceeds the
/// budget, so every call searches.
fn steep_curve() -> DistanceCurve {
    DistanceCurve::sampled(1.0, |u| 10.0 * u)
}

/// `count` searched budget steps from clip times spread over the clip; the sum of their times.
fn searches(curve: &DistanceCurve, count: u32) -> f64 {
    (0..count)
        .map(|i| {
            let t = f64::from(i % 900) * 1e-3;
            budgeted_step(curve, black_box(t), 1.0 / 60.0, 3.3, 5.94324, 1.0).time_s
        })
        .sum()
}

fn report_searches() {
    let curve = steep_curve();
    assert!(budgeted_step(&curve, 0.1, 1.0 / 60.0, 3.3, 5.94324, 1.0).searched);
    let count = 1_000_000;
    let samples: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            black_box(searches(&curve, count));
            start.elapsed()
        })
        .collect();
    let seconds = median(samples).as_secs_f64();
    println!(
        "budget binary searches (12 iterations each): {:.2} M per second",
        f64::from(count) / seconds / 1e6
    );
}

fn main() {
    let grid = example_grid();
    let pairs = pairs(2_000);
    report_queries(&grid, &pairs);
    report_step(1_000);
    report_searches();

    let mut c = Criterion::default().configure_from_args();
    {
        let mut group = c.benchmark_group("path_service");
        group.throughput(Throughput::Elements(pairs.len() as u64));
        group.bench_function("street_lifecycle_queries_2000", |b| {
            b.iter(|| {
                for (a, z) in &pairs {
                    black_box(grid.find(*a, *z).ok());
                }
            })
        });
        group.finish();
    }
    {
        let mut group = c.benchmark_group("directed_step");
        group.throughput(Throughput::Elements(1_000));
        let template = directed(1_000);
        group.bench_function("peds_1000", |b| {
            b.iter_batched_ref(
                || template.clone(),
                |world| world.step(),
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
    {
        let mut group = c.benchmark_group("motion_budget");
        group.throughput(Throughput::Elements(1_000));
        let curve = steep_curve();
        group.bench_function("binary_searches_1000", |b| {
            b.iter(|| black_box(searches(&curve, 1_000)))
        });
        group.finish();
    }
    c.final_summary();
}
