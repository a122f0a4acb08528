//! Motion-at-scale benchmarks (issue: pedestrian motion at scale). The report first times the
//! step on 1 and 2 threads (in-process A/B: three interleaved pairs, each the median of several
//! steps on a rayon pool of that size; the step bands its walkers over the pool it runs on,
//! `sim::motion::parallel`) for the two-way street (targets: ≥ 1.7× on 2 threads, ≥ 4 M
//! agent-steps/s) and the mixed tiers (target ≤ 5 ms), then on 4, 8 and 16 threads where the
//! machine has that many cores (a scaling curve; larger counts are skipped). The rest runs on
//! the global pool:
//!
//! - 10,000 agents all Full with avoidance for every agent (budget unlimited) on the two-way
//!   street (`sim::two_way_street_world`: 200 m, walkways widened to ≤ 1 agent/m², jittered grid,
//!   a seeded 50 / 50 east / west split): agent-steps/s (target ≥ 2.2 M);
//! - 100,000 agents with mixed tiers around an observer (`sim::observed_street_world`): one 0.05 s
//!   step (target ≤ 8 ms);
//! - Motion Frame publication for 100,000 agents (target ≤ 1 ms).
//!
//! Publication is incremental (`sim::motion::publish`): a step rewrites only the frames whose
//! rows changed. The report times it inside real steps of the mixed-tier world
//! (`World::step_marking_publication`: the clock runs from right before the publication to right
//! after it), with the rows each step rewrote. Criterion's `frames_100000_publish` republishes
//! right after such a step, over and over (criterion plans its iterations from the timed part, so
//! timing a 100,000-agent step per iteration would take minutes): each republication checks every
//! row and rewrites the updated ones and those whose frame may change without an update, which is
//! a step's work less the few rows whose narrow columns (tier, panic, …) changed in that step.
//!
//! Before criterion's own timings the bench prints the flow report (`report_flow`: the two-way
//! street of 1,000 and of 10,000 walkers, 40 warm-up steps, then 10 simulated seconds — mean and
//! median speed over the window (net displacement / 10 s), the share whose net displacement is
//! under 1 m (stalled) and whose path is (still), the least pairwise distance seen, the mean step
//! time, and what the stalled walkers decided step by step; measured by `sim::FlowWatch`; targets: stalled ≤ 1 %, mean speed
//! ≥ 0.8 m/s at 1,000 and ≥ 0.6 m/s at 10,000, no pair closer than the body diameter), then
//! medians of a few timed runs and the motion counters of the measured steps. Run briefly:
//! `--warm-up-time 1 --measurement-time 3`; `MOTION_FLOW=1` prints the flow report only
//! (`MOTION_FLOW=1000` only the streets of those sizes, comma-separated).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use stagecraft_runtime::sim::{observed_street_world, two_way_street_world, FlowWatch, World};

mod support;
use support::{
    cpu_ms, cpu_ns, low_end_pairs, many_core_counts, median, pool, process_cpu_ns, thread_pairs,
};

/// Steps before measuring, so the velocity windows are filled and the tiers settled.
const WARM_UP_FRAMES: u32 = 40;
/// Simulated seconds the flow report watches the crowd for.
const FLOW_WINDOW_S: f64 = 10.0;

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

/// One step of `world`, timed.
fn one_step(world: &mut World) -> Duration {
    let start = Instant::now();
    world.step();
    start.elapsed()
}

/// The thread A/B of `world` (`agents` agents, `runs` steps a sample) and the scaling curve.
fn report_threads(label: &str, mut world: World, agents: usize, runs: usize) {
    let (one, two) = thread_pairs(label, 2, runs, || one_step(&mut world));
    let rate = |t: Duration| agents as f64 / t.as_secs_f64() / 1e6;
    println!(
        "{label}: 1 thread {:.3} ms ({:.2} M agent-steps/s), 2 threads {:.3} ms ({:.2} M \
         agent-steps/s): {:.2}× (bands last step: {}, rows near a cut and waits: {:?})",
        one.as_secs_f64() * 1e3,
        rate(one),
        two.as_secs_f64() * 1e3,
        rate(two),
        one.as_secs_f64() / two.as_secs_f64(),
        world.walk_bands(),
        world.walk_boundary(),
    );
    for threads in many_core_counts() {
        let many = pool(threads).install(|| timed_steps(&mut world, runs));
        println!(
            "  {label}, {threads} threads: {:.3} ms ({:.2} M agent-steps/s, {:.2}× one thread;              rows near a cut and waits: {:?})",
            many.as_secs_f64() * 1e3,
            rate(many),
            one.as_secs_f64() / many.as_secs_f64(),
            world.walk_boundary(),
        );
    }
}

/// The flow report: each street size warmed, then watched for [`FLOW_WINDOW_S`].
fn report_flow() {
    // `MOTION_FLOW=1000` (any list of sizes, comma-separated) reports only those streets.
    let sizes: Vec<usize> = std::env::var("MOTION_FLOW")
        .ok()
        .map(|list| {
            list.split(',')
                .filter_map(|s| s.trim().parse().ok())
                .collect()
        })
        .filter(|sizes: &Vec<usize>| !sizes.is_empty())
        .unwrap_or_else(|| vec![1_000, 10_000]);
    for walkers in sizes {
        let mut street = warmed(two_way_street_world(walkers, 7).expect("street"));
        let mut watch = FlowWatch::start(&street);
        let (end_s, mut steps, mut stepping) =
            (street.time_s() + FLOW_WINDOW_S, 0u32, Duration::ZERO);
        while street.time_s() < end_s - 1e-9 {
            steps += 1;
            let start = Instant::now();
            street.step();
            stepping += start.elapsed();
            watch.observe(&street);
        }
        let flow = watch.report(&street);
        println!(
            "flow, two-way street of {walkers} walkers over {:.1} s: mean speed {:.3} m/s, median \
             {:.3} m/s, stalled (net displacement < 1 m) {:.2} %, still (path < 1 m) {:.2} %, min \
             pairwise distance {:.3} m, mean step {:.3} ms",
            flow.duration_s,
            flow.mean_speed_m_s,
            flow.median_speed_m_s,
            flow.stalled_share * 100.0,
            flow.still_share * 100.0,
            flow.min_distance_m,
            stepping.as_secs_f64() * 1e3 / f64::from(steps.max(1)),
        );
        let causes = watch.stall_causes(&street);
        let total: u64 = causes.iter().map(|(_, steps)| steps).sum();
        for (cause, steps) in causes.iter().take(4) {
            println!(
                "  stalled walkers' steps: {:5.1} % {cause}",
                *steps as f64 * 100.0 / total.max(1) as f64
            );
        }
    }
}

fn report() {
    let street = warmed(two_way_street_world(10_000, 7).expect("street"));
    report_threads("two-way street, 10000 walkers", street, 10_000, 10);
    let mixed = warmed(observed_street_world(100_000, 7).expect("street"));
    report_threads("mixed tiers, 100000 agents", mixed, 100_000, 5);
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
    let (publication, cpu, rewritten) = publication_in_steps(&mut mixed, 20);
    println!(
        "Motion Frame publication in a step, 100000 agents: median {:.3} ms, CPU {} ms per \
         publication, {rewritten} rows rewritten per step ({} bytes a frame)",
        publication.as_secs_f64() * 1e3,
        cpu.map_or("?".to_owned(), |ms| format!("{ms:.3}")),
        std::mem::size_of::<stagecraft_runtime::sim::MotionFrame>(),
    );
}

/// The publication part of `steps` real steps of `world`: the median wall time, the mean CPU
/// time (milliseconds) and the mean number of rows rewritten.
fn publication_in_steps(world: &mut World, steps: usize) -> (Duration, Option<f64>, usize) {
    let (mut walls, mut cpu_ns_total, mut rewritten) = (Vec::new(), Some(0u64), 0);
    for _ in 0..steps {
        let mut start: Option<(Instant, Option<u64>)> = None;
        let mut sample = None;
        world.step_marking_publication(&mut || match start.take() {
            None => start = Some((Instant::now(), cpu_ns())),
            Some((at, cpu)) => {
                let cpu = cpu.zip(cpu_ns()).map(|(from, to)| to - from);
                sample = Some((at.elapsed(), cpu));
            }
        });
        let (wall, cpu) = sample.expect("the step marks its publication twice");
        walls.push(wall);
        cpu_ns_total = cpu_ns_total.zip(cpu).map(|(total, ns)| total + ns);
        rewritten += world.motion_frames_rewritten();
    }
    let cpu_ms = cpu_ns_total.map(|ns| ns as f64 / 1e6 / steps as f64);
    (median(walls), cpu_ms, rewritten / steps.max(1))
}

fn bench_motion(criterion: &mut Criterion) {
    report_flow();
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
    // Republication right after a real step (see the module documentation).
    mixed.step();
    group.bench_function("frames_100000_publish", |b| {
        b.iter(|| black_box(&mut mixed).publish_motion_frames())
    });
    group.finish();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var("MOTION_FLOW").is_ok() {
        report_flow();
        return;
    }
    // `MOTION_FRAMES=steps` only times the publication inside that many steps of the mixed-tier
    // world.
    if let Ok(spec) = std::env::var("MOTION_FRAMES") {
        let steps = spec.trim().parse().unwrap_or(20usize);
        let mut mixed = warmed(observed_street_world(100_000, 7).expect("street"));
        if std::env::var("MOTION_REPUBLISH").is_ok() {
            mixed.step();
            let cpu = cpu_ms(steps as u32, || mixed.publish_motion_frames());
            println!(
                "republication: CPU {cpu:?} ms, {} rows",
                mixed.motion_frames_rewritten()
            );
            return;
        }
        let (publication, cpu, rewritten) = publication_in_steps(&mut mixed, steps);
        println!(
            "publication in {steps} steps, 100000 agents: median {:.3} ms, CPU {} ms, {rewritten} \
             rows rewritten per step",
            publication.as_secs_f64() * 1e3,
            cpu.map_or("?".to_owned(), |ms| format!("{ms:.3}")),
        );
        return;
    }
    // `MOTION_SCALING=1000,2000,5000` only prints the 1 / 2 thread pairs of the two-way street
    // at those sizes (where stepping in bands starts to pay, `DEFAULT_MIN_ROWS_PER_BAND`).
    if let Ok(spec) = std::env::var("MOTION_SCALING") {
        for walkers in spec
            .split(',')
            .filter_map(|s| s.trim().parse::<usize>().ok())
        {
            let street = warmed(two_way_street_world(walkers, 7).expect("street"));
            let label = format!("two-way street, {walkers} walkers");
            report_threads(&label, street, walkers, 20);
        }
        return;
    }
    // `MOTION_THREADS=1` only prints the 1 / 2 thread pairs (and the scaling curve).
    if std::env::var("MOTION_THREADS").is_ok() {
        let street = warmed(two_way_street_world(10_000, 7).expect("street"));
        report_threads("two-way street, 10000 walkers", street, 10_000, 10);
        let mixed = warmed(observed_street_world(100_000, 7).expect("street"));
        report_threads("mixed tiers, 100000 agents", mixed, 100_000, 5);
        return;
    }
    // `MOTION_LOWEST=street|mixed,steps` only prints the fastest and 10th-percentile step of
    // that world on 1 and 2 threads (three rounds of `steps` steps each): figures a loaded
    // machine spoils less than medians.
    if let Ok(spec) = std::env::var("MOTION_LOWEST") {
        let mut parts = spec.split(',').map(str::trim);
        let kind = parts.next().unwrap_or("street").to_owned();
        let steps = parts
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(100usize);
        let mut world = if kind == "mixed" {
            warmed(observed_street_world(100_000, 7).expect("street"))
        } else {
            warmed(two_way_street_world(10_000, 7).expect("street"))
        };
        low_end_pairs(&kind, steps, || one_step(&mut world));
        return;
    }
    // `MOTION_STEPS=street|mixed,steps` only steps that world (for `perf stat`/`perf record`)
    // and prints the CPU time per step: the calling thread's, and all threads' (the pool's
    // work included).
    if let Ok(spec) = std::env::var("MOTION_STEPS") {
        let mut parts = spec.split(',').map(str::trim);
        let kind = parts.next().unwrap_or("street").to_owned();
        let steps = parts.next().and_then(|p| p.parse().ok()).unwrap_or(100u32);
        let mut world = if kind == "mixed" {
            warmed(observed_street_world(100_000, 7).expect("street"))
        } else {
            warmed(two_way_street_world(10_000, 7).expect("street"))
        };
        let (thread_start, process_start) = (cpu_ns(), process_cpu_ns());
        for _ in 0..steps {
            world.step();
        }
        let per_step = |start: Option<u64>, now: Option<u64>| match (start, now) {
            (Some(start), Some(now)) => (now - start) as f64 / 1e6 / f64::from(steps),
            _ => f64::NAN,
        };
        let this_thread = per_step(thread_start, cpu_ns());
        let all_threads = per_step(process_start, process_cpu_ns());
        let waiting = world
            .walk_decisions()
            .iter()
            .filter(|d| d.is_waiting())
            .count();
        let c = world.motion_counters();
        println!(
            "{kind}, {steps} steps: {this_thread:.3} ms CPU per step on this thread, \
             {all_threads:.3} ms on all threads, waiting {waiting}, digest {}",
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
