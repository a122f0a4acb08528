//! `simulate --threads N`: the rayon pool a run's steps use. The step bands its walkers over the
//! pool it runs on (`stagecraft_runtime::sim::motion::parallel`), with the same digest on any
//! number of threads; without `--threads` it runs on the global pool (every core).

use anyhow::Context as _;
use stagecraft_runtime::sim::World;

/// A pool of `threads` threads, or `None` (the global pool) without a count.
pub fn step_pool(threads: Option<usize>) -> anyhow::Result<Option<rayon::ThreadPool>> {
    threads
        .map(|threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|k| format!("stagecraft-sim-{k}"))
                .build()
                .with_context(|| format!("cannot start {threads} simulation threads"))
        })
        .transpose()
}

/// One step of `world` on `pool` (the global pool for `None`).
pub fn step_on(pool: Option<&rayon::ThreadPool>, world: &mut World) {
    match pool {
        Some(pool) => pool.install(|| world.step()),
        None => world.step(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_builds_a_pool_of_that_many_threads_and_none_uses_the_global_pool() {
        let pool = step_pool(Some(3)).expect("a pool").expect("some");
        assert_eq!(pool.current_num_threads(), 3);
        assert!(step_pool(None).expect("nothing to build").is_none());
    }
}
