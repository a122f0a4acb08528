//! Helpers the runtime's benchmark reports share: the median of timed samples and the CPU time
//! of the calling thread (so figures can be read on a loaded machine).

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

/// Mean CPU time per call of `f` over `runs` calls, in milliseconds.
pub fn cpu_ms(runs: u32, mut f: impl FnMut()) -> Option<f64> {
    let start = cpu_ns()?;
    for _ in 0..runs {
        f();
    }
    Some((cpu_ns()? - start) as f64 / 1e6 / f64::from(runs))
}
