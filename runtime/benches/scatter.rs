//! Scatter throughput: 1 km × 1 km at 4 m cells, 2 candidates per cell, serial and on 2 threads.
//!
//! Lattice unit: 1 cm. The region is `[0, 100 000)²` (1 km square), cells are 400 units (4 m), so the
//! layer has 250 × 250 = 62 500 cells and 125 000 candidates. The family is three tree variants with
//! exclusion radii of 1.0 m, 1.5 m and 3.0 m (weights 5, 3, 1), and a 6 m wide path crosses the
//! region as a keep-out. Before criterion's own timings, the bench prints candidates/s and
//! placements/s from the median of a few timed runs of each variant.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use stagecraft_runtime::ops::scatter::{
    region_cells, scatter, scatter_par, CellRange, Rect, ScatterParams, ScatterVariant,
};

/// Lattice units per meter (1 cm lattice).
const UNITS_PER_M: i64 = 100;
const SEED: u64 = 0x5ca7_7e12;

fn forest() -> ScatterParams {
    let variant = |weight: u32, radius_m_tenths: i64| ScatterVariant {
        weight,
        exclusion_radius: radius_m_tenths * UNITS_PER_M / 10,
    };
    ScatterParams {
        cell_size: 4 * UNITS_PER_M,
        candidates_per_cell: 2,
        region: Rect::new(0, 0, 1_000 * UNITS_PER_M, 1_000 * UNITS_PER_M),
        keep_outs: vec![Rect::new(
            0,
            497 * UNITS_PER_M,
            1_000 * UNITS_PER_M,
            503 * UNITS_PER_M,
        )],
        variants: vec![variant(5, 10), variant(3, 15), variant(1, 30)],
        room: 1,
        layer: 0,
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(error) => panic!("cannot build a {threads}-thread pool: {error}"),
    }
}

/// Fastest and median wall times of `runs` calls, and the placement count of the last one.
fn timings(runs: usize, mut call: impl FnMut() -> usize) -> (Duration, Duration, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut placements = 0;
    for _ in 0..runs {
        let start = Instant::now();
        placements = call();
        times.push(start.elapsed());
    }
    times.sort();
    (times[0], times[runs / 2], placements)
}

/// Prints throughput at the median time, and the fastest run (the least disturbed by other work on
/// a shared machine).
fn report(
    label: &str,
    candidates: u64,
    (fastest, median, placements): (Duration, Duration, usize),
) {
    let secs = median.as_secs_f64();
    println!(
        "scatter/{label}: median {:.2} ms (fastest {:.2} ms), {:.2} M candidates/s, {:.2} M placements/s ({placements} placements of {candidates} candidates)",
        secs * 1e3,
        fastest.as_secs_f64() * 1e3,
        candidates as f64 / secs / 1e6,
        placements as f64 / secs / 1e6,
    );
}

fn run_serial(params: &ScatterParams, range: CellRange) -> usize {
    match scatter(params, SEED, range) {
        Ok(output) => output.placements.len(),
        Err(error) => panic!("scatter failed: {error}"),
    }
}

fn run_parallel(pool: &rayon::ThreadPool, params: &ScatterParams, range: CellRange) -> usize {
    match pool.install(|| scatter_par(params, SEED, range)) {
        Ok(output) => output.placements.len(),
        Err(error) => panic!("scatter failed: {error}"),
    }
}

fn bench_scatter(criterion: &mut Criterion) {
    let params = forest();
    let range = match region_cells(&params) {
        Ok(range) => range,
        Err(error) => panic!("invalid bench layer: {error}"),
    };
    let cells = u64::from((range.end_x - range.min_x).unsigned_abs())
        * u64::from((range.end_y - range.min_y).unsigned_abs());
    let candidates = cells * u64::from(params.candidates_per_cell);
    let two = pool(2);

    report(
        "serial",
        candidates,
        timings(25, || run_serial(&params, range)),
    );
    report(
        "2-threads",
        candidates,
        timings(25, || run_parallel(&two, &params, range)),
    );

    let mut group = criterion.benchmark_group("scatter_1km_4m_cells_2_candidates");
    group.throughput(Throughput::Elements(candidates));
    group.sample_size(20);
    group.bench_function("serial", |b| {
        b.iter(|| run_serial(black_box(&params), range))
    });
    group.bench_function("2-threads", |b| {
        b.iter(|| run_parallel(&two, black_box(&params), range))
    });
    group.finish();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_scatter(&mut criterion);
    criterion.final_summary();
}
