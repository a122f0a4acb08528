//! Helpers the runtime's benchmark reports share: the median of timed samples and the CPU time
//! of the calling thread or of the whole process (so figures can be read on a loaded machine).

#![allow(dead_code)]

use std::time::Duration;

/// The median of `samples` (the upper one of an even count).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// CPU time this thread has run, in nanoseconds (Linux `/proc/thread-self/schedstat`), so the
/// figures can be read on a loaded machine where wall time includes waiting for a core.
pub fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// CPU time every thread of this process has run, in nanoseconds (the sum of each task's
/// `/proc/self/task/*/schedstat`): work on a rayon pool counts too, which [`cpu_ns`] misses.
pub fn process_cpu_ns() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let text = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// Mean CPU time per call of `f` over `runs` calls, in milliseconds.
pub fn cpu_ms(runs: u32, mut f: impl FnMut()) -> Option<f64> {
    let start = cpu_ns()?;
    for _ in 0..runs {
        f();
    }
    Some((cpu_ns()? - start) as f64 / 1e6 / f64::from(runs))
}

/// A rayon pool of `threads` threads (the step bands its walkers over the pool it runs on).
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// The thread counts of a scaling curve beyond 1 and 2 that this machine has cores for (4, 8
/// and 16; a count above the available cores is skipped: its threads would only take turns).
pub fn many_core_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    [4, 8, 16].into_iter().filter(|t| *t <= cores).collect()
}

/// In-process A/B of `run` (one timed sample, called inside the pool) on 1 and on `threads`
/// threads: three interleaved pairs (1, n, 1, n, 1, n), each the median of `runs` samples.
/// Returns the medians over the pairs, (one thread, `threads` threads), and prints every pair.
pub fn thread_pairs(
    label: &str,
    threads: usize,
    runs: usize,
    mut run: impl FnMut() -> Duration + Send,
) -> (Duration, Duration) {
    let (one, many) = (pool(1), pool(threads));
    let (mut ones, mut manys) = (Vec::new(), Vec::new());
    for pair in 1..=3 {
        let a = one.install(|| median((0..runs).map(|_| run()).collect()));
        let b = many.install(|| median((0..runs).map(|_| run()).collect()));
        println!(
            "  {label}, pair {pair}: 1 thread {:.3} ms, {threads} threads {:.3} ms ({:.2}×)",
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            a.as_secs_f64() / b.as_secs_f64()
        );
        ones.push(a);
        manys.push(b);
    }
    (median(ones), median(manys))
}

/// The fastest and the 10th-percentile of `samples` (for a machine other work loads: a step
/// another process interrupted is slower, never faster, so the low end is the step's own time).
pub fn low_end(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (samples[0], samples[samples.len() / 10])
}

/// Load-robust A/B of one timed sample `run` on 1 and on 2 threads: three interleaved rounds
/// of `samples` samples on each, printing the fastest and the 10th-percentile sample of each.
pub fn low_end_pairs(label: &str, samples: usize, mut run: impl FnMut() -> Duration + Send) {
    let (one, two) = (pool(1), pool(2));
    for round in 1..=3 {
        let a = one.install(|| low_end((0..samples).map(|_| run()).collect()));
        let b = two.install(|| low_end((0..samples).map(|_| run()).collect()));
        println!(
            "  {label}, round {round}: 1 thread fastest {:.3} ms, p10 {:.3} ms; 2 threads fastest \
             {:.3} ms, p10 {:.3} ms ({:.2}× at p10)",
            a.0.as_secs_f64() * 1e3,
            a.1.as_secs_f64() * 1e3,
            b.0.as_secs_f64() * 1e3,
            b.1.as_secs_f64() * 1e3,
            a.1.as_secs_f64() / b.1.as_secs_f64()
        );
    }
}
