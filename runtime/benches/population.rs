//! Population walking benchmarks on the long street-block variant (`sim::long_street_world`:
//! both sidewalks filled, a third of the walkers heading against the others, every walker
//! stepping with the steering fan and neighbour checks), on the global pool (every core: the
//! step bands its walkers over it, `sim::motion::parallel`):
//!
//! - one step with 1,000 / 10,000 / 100,000 walkers (targets: 10,000 ≤ 4 ms, i.e. ≥ 2.5 M
//!   agent-steps/s; 100,000 ≤ 50 ms);
//! - bytes per walker (target ≤ 512), from the columns' capacities and the walking buffers;
//! - re-simulating 600 frames from a checkpoint with 10,000 walkers (target ≤ 1 s), first on 1
//!   and 2 threads (three interleaved pairs), then on the global pool.
//!
//! Before criterion's own timings the bench prints medians of a few timed runs, the bytes per
//! walker and what the walkers decided in the measured steps.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput};
use stagecraft_runtime::sim::{long_street_world, WalkDecision, World};

mod support;
use support::{cpu_ms, low_end_pairs, median, thread_pairs};

/// Steps before measuring, so the velocity windows are filled and encounters under way.
const WARM_UP_FRAMES: u32 = 40;

fn crowd(walkers: usize) -> World {
    let mut world = long_street_world(walkers, 7).expect("the long street builds");
    assert_eq!(world.agent_count(), walkers);
    for _ in 0..WARM_UP_FRAMES {
        world.step();
    }
    world
}

/// What the walkers decided in the last step, as shares.
fn decisions(world: &World) -> String {
    let d = world.walk_decisions();
    let n = d.len().max(1) as f64;
    let share =
        |f: &dyn Fn(&WalkDecision) -> bool| 100.0 * d.iter().filter(|x| f(x)).count() as f64 / n;
    let mut waits: BTreeMap<String, usize> = BTreeMap::new();
    for x in d.iter().filter(|x| x.is_waiting()) {
        *waits.entry(format!("{x:?}")).or_default() += 1;
    }
    format!(
        "straight {:.1} %, following {:.1} %, steered {:.1} %, waiting {:.1} % {waits:?}",
        share(&|x| *x == WalkDecision::Straight),
        share(&|x| *x == WalkDecision::Following),
        share(&|x| matches!(x, WalkDecision::Steered(_))),
        share(&|x| x.is_waiting()),
    )
}

fn report_step(walkers: usize) {
    let mut world = crowd(walkers);
    let runs = if walkers >= 100_000 { 10 } else { 50 };
    let samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            world.step();
            start.elapsed()
        })
        .collect();
    let fastest = samples.iter().min().copied().unwrap_or_default();
    let step = median(samples);
    let rate = walkers as f64 / step.as_secs_f64();
    println!(
        "step, {walkers} walkers: median {:.3} ms (fastest {:.3} ms), {:.2} M agent-steps/s, \
         {:.1} bytes/walker of state ({:.1} with Motion scratch and frames); {}",
        step.as_secs_f64() * 1e3,
        fastest.as_secs_f64() * 1e3,
        rate / 1e6,
        world.state_heap_bytes() as f64 / walkers as f64,
        world.heap_bytes() as f64 / walkers as f64,
        decisions(&world),
    );
}

/// Re-simulating 600 frames from a checkpoint on 1 and 2 threads (three interleaved pairs; the
/// step bands its walkers over the pool it runs on): the restore and the steps apart.
fn report_resim_threads() {
    let mut world = crowd(10_000);
    let checkpoint = world.snapshot();
    let mut restore = Duration::ZERO;
    let (one, two) = thread_pairs("re-simulate 600 frames", 2, 1, || {
        let start = Instant::now();
        world.restore(&checkpoint).expect("own snapshot");
        restore = start.elapsed();
        for _ in 0..600 {
            world.step();
        }
        start.elapsed()
    });
    println!(
        "re-simulate 600 frames from a checkpoint, 10000 walkers: 1 thread {:.3} s, 2 threads \
         {:.3} s ({:.2}×; the last restore alone {:.3} ms; last step: {} bands, rows near a \
         cut and waits {:?})",
        one.as_secs_f64(),
        two.as_secs_f64(),
        one.as_secs_f64() / two.as_secs_f64(),
        restore.as_secs_f64() * 1e3,
        world.walk_bands(),
        world.walk_boundary(),
    );
}

fn report_resim() {
    report_resim_threads();
    let mut world = crowd(10_000);
    let checkpoint = world.snapshot();
    let samples: Vec<Duration> = (0..3)
        .map(|_| {
            let start = Instant::now();
            world.restore(&checkpoint).expect("own snapshot");
            for _ in 0..600 {
                world.step();
            }
            start.elapsed()
        })
        .collect();
    let fastest = samples.iter().min().copied().unwrap_or_default();
    println!(
        "re-simulate 600 frames from a checkpoint, 10000 walkers: median {:.3} s (fastest {:.3} s)",
        median(samples).as_secs_f64(),
        fastest.as_secs_f64()
    );
}

fn bench_population(criterion: &mut Criterion) {
    for walkers in [1_000, 10_000, 100_000] {
        report_step(walkers);
    }
    report_resim();

    let mut group = criterion.benchmark_group("walk_step_long_street");
    for walkers in [1_000usize, 10_000, 100_000] {
        let mut world = crowd(walkers);
        group.throughput(Throughput::Elements(walkers as u64));
        if walkers >= 100_000 {
            group.sample_size(10);
        }
        group.bench_function(format!("{walkers}"), |b| {
            b.iter(|| black_box(&mut world).step())
        });
    }
    group.finish();

    let mut group = criterion.benchmark_group("resimulate_600_frames_from_checkpoint");
    group.sample_size(10);
    let mut world = crowd(10_000);
    let checkpoint = world.snapshot();
    group.bench_function("10000", |b| {
        b.iter_batched(
            || checkpoint.clone(),
            |checkpoint| {
                world.restore(&checkpoint).expect("own snapshot");
                for _ in 0..600 {
                    world.step();
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `POPULATION_STEPS=walkers,steps` only steps that crowd (for `perf stat`/`perf record`,
    // whose cycle counts do not depend on how loaded the machine is).
    // `POPULATION_RESIM=runs` only re-simulates 600 frames from a checkpoint with 10,000
    // walkers `runs` times and prints the CPU time of one.
    // `POPULATION_RESIM_THREADS=1` only runs the 1 / 2 thread re-simulation pairs.
    // `POPULATION_RESIM_LOWEST=1` only prints the fastest and 10th-percentile step of the
    // re-simulation from the checkpoint on 1 and 2 threads (600 steps each, three rounds; 600
    // times the 10th percentile approximates the re-simulation on a loaded machine).
    if std::env::var("POPULATION_RESIM_LOWEST").is_ok() {
        let mut world = crowd(10_000);
        let checkpoint = world.snapshot();
        let mut steps = 0;
        low_end_pairs("re-simulation step", 600, || {
            if steps % 600 == 0 {
                world.restore(&checkpoint).expect("own snapshot");
            }
            steps += 1;
            let start = Instant::now();
            world.step();
            start.elapsed()
        });
        return;
    }
    if std::env::var("POPULATION_RESIM_THREADS").is_ok() {
        report_resim_threads();
        return;
    }
    if let Ok(runs) = std::env::var("POPULATION_RESIM") {
        let runs = runs.trim().parse().unwrap_or(1u32);
        let mut world = crowd(10_000);
        let checkpoint = world.snapshot();
        let seconds = cpu_ms(runs, || {
            world.restore(&checkpoint).expect("own snapshot");
            for _ in 0..600 {
                world.step();
            }
        })
        .unwrap_or(f64::NAN)
            / 1e3;
        println!(
            "re-simulate 600 frames, 10000 walkers: {seconds:.3} s CPU; digest {}",
            world.state_digest_hex()
        );
        return;
    }
    if let Ok(spec) = std::env::var("POPULATION_STEPS") {
        let mut parts = spec
            .split(',')
            .filter_map(|p| p.trim().parse::<usize>().ok());
        let (walkers, steps) = (parts.next().unwrap_or(10_000), parts.next().unwrap_or(100));
        let mut world = crowd(walkers);
        let per_step = cpu_ms(steps as u32, || world.step()).unwrap_or(f64::NAN);
        println!(
            "{walkers} walkers, {steps} steps: {per_step:.3} ms CPU per step; {}; digest {}",
            decisions(&world),
            world.state_digest_hex()
        );
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench_population(&mut criterion);
    criterion.final_summary();
}
