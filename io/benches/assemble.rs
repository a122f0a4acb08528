//! The assembling cook of `projects/forest-16km2` (the farm's last step): its 16 tiles of
//! 100 × 100 cells already in the cache (as the farm's tasks leave them, unsynced), a fresh copy
//! of that cache and a fresh bundle folder per run; the cook reads and merges the tiles, runs the
//! second stage, stores both stages into the cache and writes the synced bundle (18.6 MB: 10.3
//! and 8.3 MB products, each written twice).
//!
//! Printed: the process CPU time per assembling cook (all threads, user and system: less
//! dependent on the machine's load than wall time) and the wall time, on 1 and on 2 threads, in
//! three alternating pairs; then criterion's wall-time samples of each.
//! `ASSEMBLE_PROFILE=N` runs N one-thread cooks and nothing else (for `perf record`);
//! `ASSEMBLE_PROFILE=N,T` runs them on T threads.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use stagecraft_io::cook::{
    compile_all, cook_project, driver::plain_diagnostics, work_items, CookOptions, DiskCache,
};
use stagecraft_runtime::generate::NoObserver;

const TILE_CELLS: u32 = 100;

fn forest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/forest-16km2")
}

/// A cache holding every tile of the forest (what the farm's tasks leave), in `dir`.
fn tile_cache(dir: &Path) -> PathBuf {
    let project = forest();
    let cache = dir.join("tiles");
    let compiled = compile_all(&project, &|_| Ok(()), plain_diagnostics).expect("the forest");
    let items = work_items(
        &compiled,
        &DiskCache::new(&cache),
        compiled.root_seed,
        Some(TILE_CELLS),
    );
    let ids: Vec<String> = items
        .iter()
        .filter(|i| i.tile.is_some())
        .map(|i| i.id.clone())
        .collect();
    assert_eq!(ids.len(), 16, "the forest is 16 tiles of 100 × 100 cells");
    let options = CookOptions {
        cache: Some(cache.clone()),
        items: Some(ids),
        tile_cells: Some(TILE_CELLS),
        unsynced_cache: true,
        budget_bytes: u64::MAX,
        ..CookOptions::default()
    };
    cook_project(&project, &options, &|_, _| NoObserver, plain_diagnostics).expect("the tiles");
    cache
}

/// A fresh scratch folder holding a copy of the tile cache: (scratch, cache, bundle folder).
fn fresh(tiles: &Path, root: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let scratch = tempfile::tempdir_in(root).expect("a scratch folder");
    let cache = scratch.path().join("cache");
    copy_tree(tiles, &cache);
    let out = scratch.path().join("out");
    (scratch, cache, out)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a listing").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

/// One assembling cook (the farm's: cache unsynced, bundle synced); returns the bundle digest.
fn assemble(cache: &Path, out: &Path) -> String {
    let options = CookOptions {
        out: Some(out.to_owned()),
        cache: Some(cache.to_owned()),
        tile_cells: Some(TILE_CELLS),
        unsynced_cache: true,
        ..CookOptions::default()
    };
    let report = cook_project(&forest(), &options, &|_, _| NoObserver, plain_diagnostics)
        .expect("the assembling cook");
    assert_eq!(report.tiles.iter().filter(|t| t.hit).count(), 16);
    report.digest().expect("a digest")
}

/// CPU time of this process, all threads: (user, system) from `/proc/self/stat` (clock ticks).
fn process_cpu() -> (Duration, Duration) {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15; `after` starts at field 3.
    let tick = |i: usize| Duration::from_millis(fields.get(i - 3).copied().unwrap_or(0) * 10);
    (tick(14), tick(15))
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
}

/// `runs` assembling cooks on `pool`: mean (wall, user CPU, system CPU) per cook, setup excluded.
fn measure(pool: &rayon::ThreadPool, tiles: &Path, root: &Path, runs: u32) -> [Duration; 3] {
    let mut sums = [Duration::ZERO; 3];
    for _ in 0..runs {
        let (_scratch, cache, out) = fresh(tiles, root);
        let (user, system) = process_cpu();
        let start = Instant::now();
        black_box(pool.install(|| assemble(&cache, &out)));
        let wall = start.elapsed();
        let (user_after, system_after) = process_cpu();
        sums[0] += wall;
        sums[1] += user_after - user;
        sums[2] += system_after - system;
    }
    sums.map(|s| s / runs)
}

/// `ASSEMBLE_PROFILE=N` or `N,THREADS`: (runs, threads), one thread unless given.
fn profile_runs() -> Option<(u32, usize)> {
    let text = std::env::var("ASSEMBLE_PROFILE").ok()?;
    let (runs, threads) = text.split_once(',').unwrap_or((&text, "1"));
    Some((runs.trim().parse().ok()?, threads.trim().parse().ok()?))
}

fn main() {
    let root = tempfile::tempdir().expect("a scratch folder");
    let tiles = tile_cache(root.path());
    if let Some((runs, threads)) = profile_runs() {
        let [wall, user, system] = measure(&pool(threads), &tiles, root.path(), runs);
        println!("{runs} assembling cooks on {threads} thread(s): wall {wall:?}, user {user:?}, system {system:?} each");
        return;
    }
    let (one, two) = (pool(1), pool(2));
    let (_scratch, cache, out) = fresh(&tiles, root.path());
    println!("bundle digest {}", one.install(|| assemble(&cache, &out)));
    for pair in 1..=3 {
        for (threads, pool) in [(1, &one), (2, &two)] {
            let [wall, user, system] = measure(pool, &tiles, root.path(), 20);
            println!(
                "pair {pair}, {threads} thread(s): wall {:.1} ms, CPU user {:.1} ms + system {:.1} ms per assembling cook",
                wall.as_secs_f64() * 1e3,
                user.as_secs_f64() * 1e3,
                system.as_secs_f64() * 1e3
            );
        }
    }
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("assemble forest-16km2");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(6));
    for (threads, pool) in [(1, &one), (2, &two)] {
        group.bench_function(format!("{threads} thread(s)"), |bench| {
            bench.iter_batched(
                || fresh(&tiles, root.path()),
                |(scratch, cache, out)| {
                    black_box(pool.install(|| assemble(&cache, &out)));
                    scratch
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}
