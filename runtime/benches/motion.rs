//! Motion-at-scale benchmarks (issue: pedestrian motion at scale), single thread:
//!
//! - 10,000 agents all Full with avoidance for every agent (budget unlimited) on the two-way
//!   street (`sim::two_way_street_world`: 200 m, walkways widened to ≤ 1 agent/m², jittered grid,
//!   a seeded 50 / 50 east / west split): agent-steps/s (target ≥ 2.2 M);
//! - 100,000 agents with mixed tiers around an observer (`sim::observed_street_world`): one 0.05 s
//!   step (target ≤ 8 ms);
//! - Motion Frame publication for 100,000 agents (target ≤ 1 ms).
//!
//! Before criterion's own timings the bench prints medians of a few timed runs and the motion
//! counters of the measured steps. Run briefly: `--warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use stagecraft_runtime::sim::{observed_street_world, two_way_street_world, World};

mod support;
use support::{cpu_ms, median};

/// Steps before measuring, so the velocity windows are filled and the tiers settled.
const WARM_UP_FRAMES: u32 = 40;

fn warmed(mut world: World) -> World {
    for _ in 0..WARM_UP_FRAMES {
        world.step();
    }
    world
}

fn timed_steps(world: &mut World, runs: usize) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                world.step();
                start.elapsed()
            })
            .collect(),
    )
}

fn report() {
    let mut street = warmed(two_way_street_world(10_000, 7).expect("street"));
    let step = timed_steps(&mut street, 30);
    let c = street.motion_counters();
    let waiting = street
        .walk_decisions()
        .iter()
        .filter(|d| d.is_waiting())
        .count();
    println!(
        "two-way street, 10000 Full walkers, unlimited avoidance: median step {:.3} ms, {:.2} M \
         agent-steps/s (updated {}, processed {}, waiting {waiting})",
        step.as_secs_f64() * 1e3,
        10_000.0 / step.as_secs_f64() / 1e6,
        c.updated,
        c.avoidance_processed,
    );
    let mut mixed = warmed(observed_street_world(100_000, 7).expect("street"));
    let step = timed_steps(&mut mixed, 10);
    let c = mixed.motion_counters();
    println!(
        "mixed tiers, 100000 agents: median step {:.3} ms (tiers {:?}, updated {}, processed {}, \
         deferred {})",
        step.as_secs_f64() * 1e3,
        c.tiers,
        c.updated,
        c.avoidance_processed,
        c.avoidance_deferred,
    );
    let publication = median(
        (0..20)
            .map(|_| {
                let start = Instant::now();
                mixed.publish_motion_frames();
                start.elapsed()
            })
            .collect(),
    );
    let cpu = cpu_ms(50, || mixed.publish_motion_frames());
    println!(
        "Motion Frame publication, 100000 agents: median {:.3} ms, CPU {} ms per publication \
         ({} bytes a frame)",
        publication.as_secs_f64() * 1e3,
        cpu.map_or("?".to_owned(), |ms| format!("{ms:.3}")),
        std::mem::size_of::<stagecraft_runtime::sim::MotionFrame>(),
    );
}

fn bench_motion(criterion: &mut Criterion) {
    report();
    let mut group = criterion.benchmark_group("motion");
    group.sample_size(10);
    let mut street = warmed(two_way_street_world(10_000, 7).expect("street"));
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("two_way_street_10000_full", |b| {
        b.iter(|| black_box(&mut street).step())
    });
    let mut mixed = warmed(observed_street_world(100_000, 7).expect("street"));
    group.throughput(Throughput::Elements(100_000));
    group.bench_function("mixed_tiers_100000_step", |b| {
        b.iter(|| black_box(&mut mixed).step())
    });
    group.bench_function("frames_100000_publish", |b| {
        b.iter(|| black_box(&mut mixed).publish_motion_frames())
    });
    group.finish();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `MOTION_STEPS=street|mixed,steps` only steps that world (for `perf stat`/`perf record`)
    // and prints the CPU time per step.
    if let Ok(spec) = std::env::var("MOTION_STEPS") {
        let mut parts = spec.split(',').map(str::trim);
        let kind = parts.next().unwrap_or("street").to_owned();
        let steps = parts.next().and_then(|p| p.parse().ok()).unwrap_or(100u32);
        let mut world = if kind == "mixed" {
            warmed(observed_street_world(100_000, 7).expect("street"))
        } else {
            warmed(two_way_street_world(10_000, 7).expect("street"))
        };
        let per_step = cpu_ms(steps, || world.step()).unwrap_or(f64::NAN);
        let waiting = world
            .walk_decisions()
            .iter()
            .filter(|d| d.is_waiting())
            .count();
        let c = world.motion_counters();
        println!(
            "{kind}, {steps} steps: {per_step:.3} ms CPU per step, waiting {waiting}, digest {}",
            world.state_digest_hex()
        );
        println!(
            "  last step: tiers {:?}, updated {}, forced full {}, processed {}, deferred {}",
            c.tiers, c.updated, c.forced_full, c.avoidance_processed, c.avoidance_deferred,
        );
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench_motion(&mut criterion);
    criterion.final_summary();
}
