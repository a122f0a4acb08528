//! Every scenario of every example project steps to the same state digest on 1, 2, 3, 7 and 16
//! threads as the serial walking loop (`sim::motion::parallel`: the walkers stepped in bands
//! over the pool the step runs on, every band count allowed down to one row a band).

use stagecraft_io::scenario::ScenarioContent;
use stagecraft_io::sources::open_project;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::sim::banded_digests as digests;
use stagecraft_tests::example_projects;

/// Frames each scenario is stepped (or its duration when shorter).
const FRAMES: u64 = 120;
/// The thread counts every scenario is stepped on.
const THREADS: [usize; 5] = [1, 2, 3, 7, 16];

#[test]
fn every_example_scenario_steps_the_same_on_every_thread_count() {
    let registry = Registry::standard();
    // Scenarios whose walkers stepped in several bands on some pool.
    let mut banded = 0;
    let mut scenarios = 0;
    for dir in example_projects() {
        let (_, loaded) = open_project(&dir, &registry).expect("readable");
        let project = loaded.project.as_ref().expect("loads");
        for scenario in project.scenarios.values() {
            let content = ScenarioContent::generate(&loaded, scenario, &registry).expect("content");
            let world = || content.world().expect("world");
            let frames = FRAMES.min(scenario.duration_frames);
            let (serial, _) = digests(world(), frames, None);
            let mut most = 1;
            for threads in THREADS {
                let (parallel, bands) = digests(world(), frames, Some(threads));
                assert!(bands <= threads);
                most = most.max(bands);
                assert_eq!(
                    serial,
                    parallel,
                    "{} / {} on {threads} threads",
                    dir.display(),
                    scenario.id
                );
            }
            scenarios += 1;
            banded += usize::from(most > 1);
        }
    }
    assert!(scenarios >= 5, "{scenarios} scenarios");
    // Many scenarios had walkers to band (one without any walks serially on every pool).
    assert!(banded >= 8, "{banded} of {scenarios} scenarios banded");
}
