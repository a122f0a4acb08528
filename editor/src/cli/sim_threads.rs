//! `simulate --threads N`: the rayon pool a run's steps use. The step bands its walkers over the
//! pool it runs on (`stagecraft_runtime::sim::motion::parallel`), with the same digest on any
//! number of threads; without `--threads` it runs on the global pool (every core), except while
//! trajectories are recorded: then the steps leave one core to the trajectory writer's thread
//! (which costs about as much CPU per row as a walker's step), on machines with more than one.

use anyhow::Context as _;

/// The steps' thread count: `--threads` when given; else, while trajectories are recorded, one
/// fewer than the `cores` (at least one), leaving a core to the writer; else `None` (the global
/// pool, every core).
pub fn step_threads(threads: Option<usize>, recording: bool, cores: usize) -> Option<usize> {
    threads.or_else(|| recording.then(|| cores.saturating_sub(1).max(1)))
}

/// The pool of [`step_threads`] on this machine's cores, or `None` (the global pool).
pub fn run_pool(
    threads: Option<usize>,
    recording: bool,
) -> anyhow::Result<Option<rayon::ThreadPool>> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    step_pool(step_threads(threads, recording, cores))
}

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

/// Runs `work` (a whole run's loop: its steps and whatever each frame does beside them) on
/// `pool`, or on the calling thread with the global pool for `None`. One `install` for the
/// loop, not one a step: each `install` hands the caller's work to a pool thread and waits for
/// it, a wake-up and a switch of threads every frame (on the 2-core machine, recording the
/// 1,000-walker street, that hand-over cost more than the steps on the pool gained).
pub fn run_on<T: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_on_a_pool_runs_on_its_thread_and_without_one_on_the_caller() {
        let pool = step_pool(Some(1)).expect("a pool").expect("some");
        let caller = std::thread::current().id();
        let (on_pool, name) = run_on(Some(&pool), || {
            let here = std::thread::current();
            (here.id(), here.name().map(str::to_owned))
        });
        assert_ne!(on_pool, caller);
        assert_eq!(name.as_deref(), Some("stagecraft-sim-0"));
        assert_eq!(run_on(None, || std::thread::current().id()), caller);
        assert_eq!(run_on(Some(&pool), rayon::current_num_threads), 1);
    }

    #[test]
    fn a_count_builds_a_pool_of_that_many_threads_and_none_uses_the_global_pool() {
        let pool = step_pool(Some(3)).expect("a pool").expect("some");
        assert_eq!(pool.current_num_threads(), 3);
        assert!(step_pool(None).expect("nothing to build").is_none());
    }

    #[test]
    fn recording_trajectories_leaves_one_core_to_the_writer_unless_threads_are_given() {
        assert_eq!(step_threads(None, false, 8), None);
        assert_eq!(step_threads(None, true, 8), Some(7));
        assert_eq!(step_threads(None, true, 2), Some(1));
        assert_eq!(step_threads(None, true, 1), Some(1));
        assert_eq!(step_threads(Some(2), true, 2), Some(2));
        assert_eq!(step_threads(Some(3), false, 2), Some(3));
    }
}
