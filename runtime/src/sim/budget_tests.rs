//! Tests of the scenario numbers no run survives: their documented ranges (the compiler's
//! problems at their fields) and the run estimate's work ceiling and memory budget.

use std::mem::size_of;

use super::budget::{BYTES_PER_AGENT, BYTES_PER_AGENT_SNAPSHOT, MAX_SIM_WORK};
use super::*;
use crate::project::{PopulationSource, Scenario};
use crate::recipe::limits::DEFAULT_MEMORY_BUDGET_BYTES;
use crate::sim::state::{Event, EVENTS_PER_KIND, EVENT_KINDS};

fn scenario() -> Scenario {
    Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 100,
        sources: vec![PopulationSource {
            id: "walkers".into(),
            route: "sidewalk.north".into(),
            target_count: 4,
            walk_speed_m_s: 1.4,
            ..PopulationSource::default()
        }],
        ..Scenario::default()
    }
}

/// `(path, problem)` of each of the compiler's diagnostics.
fn refused(scenario: &Scenario) -> Vec<(String, SimProblem)> {
    let Err(error) = CompiledScenario::compile(scenario) else {
        panic!("the scenario must be refused");
    };
    error
        .diagnostics
        .into_iter()
        .map(|d| (d.path.to_string(), d.problem))
        .collect()
}

fn out_of_range(value: f64, range: &'static str) -> SimProblem {
    SimProblem::OutOfRange { value, range }
}

#[test]
fn values_no_run_survives_are_outside_their_documented_ranges() {
    let mut s = scenario();
    s.duration_frames = u64::MAX;
    s.population.ped_frame_rate = 1e9;
    s.population.vehicle_frame_rate = 1e9;
    s.population.ped_cycles_per_frame = 1e6;
    s.population.vehicle_cycles_per_frame = 0.0;
    s.sources[0].batch_size = u32::MAX;
    assert_eq!(
        refused(&s),
        vec![
            (
                "duration_frames".into(),
                out_of_range(u64::MAX as f64, "0 to 1000000 frames")
            ),
            (
                "sources[0].batch_size".into(),
                out_of_range(f64::from(u32::MAX), "1 to 64 peds")
            ),
            (
                "population.ped_frame_rate".into(),
                out_of_range(1e9, "a rate in (0, 1000] Hz")
            ),
            (
                "population.ped_cycles_per_frame".into(),
                out_of_range(1e6, "(0, 100] cycles per frame")
            ),
            (
                "population.vehicle_frame_rate".into(),
                out_of_range(1e9, "a rate in (0, 1000] Hz")
            ),
            (
                "population.vehicle_cycles_per_frame".into(),
                out_of_range(0.0, "(0, 100] cycles per frame")
            ),
        ]
    );
    // The ends of each range are accepted (a batch of 0 is below it).
    let mut s = scenario();
    s.duration_frames = 1_000_000;
    s.population.ped_frame_rate = 1000.0;
    s.population.ped_cycles_per_frame = 100.0;
    s.sources[0].batch_size = 64;
    assert!(CompiledScenario::compile(&s).is_ok());
    s.sources[0].batch_size = 0;
    assert_eq!(
        refused(&s),
        vec![(
            "sources[0].batch_size".into(),
            out_of_range(0.0, "1 to 64 peds")
        )]
    );
}

#[test]
fn the_estimate_counts_agents_cycles_births_checkpoints_and_the_bounded_logs() {
    let compiled = CompiledScenario::compile(&scenario()).expect("compiles");
    let estimate = SimEstimate::of(&compiled, 100);
    // 4 walkers + a pool of 16; one ped and one vehicle cycle per 0.05 s step at 20 Hz.
    assert_eq!(estimate.peak_agents, 20);
    assert_eq!(estimate.cycles_per_step, 2);
    assert_eq!(estimate.work, 100 * 22);
    // One batch of 1 per ped cycle for 100 frames, plus the opening fill's whole population.
    assert_eq!(estimate.births, 100 + 20);
    assert_eq!(estimate.agent_bytes, 20 * BYTES_PER_AGENT);
    // 100 frames hold the checkpoints of frames 0 and 64; the births table is in each and in
    // the world.
    assert_eq!(estimate.birth_bytes, 120 * 8 * 3);
    let event_log = (EVENT_KINDS.len() * EVENTS_PER_KIND * size_of::<Event>()) as u64;
    let history_frame = (size_of::<(u64, Counters)>() + size_of::<(u64, MotionCounters)>()) as u64;
    assert_eq!(
        estimate.bounded_bytes,
        2 * (20 * BYTES_PER_AGENT_SNAPSHOT + event_log)
            + event_log
            + MAX_HISTORY_FRAMES as u64 * history_frame
    );
    assert_eq!(
        estimate.bytes(),
        estimate.agent_bytes + estimate.birth_bytes + estimate.bounded_bytes
    );
    assert_eq!(
        estimate.problems(&compiled, DEFAULT_MEMORY_BUDGET_BYTES),
        vec![]
    );
    // However long the run, the checkpoints stop at 65 and the logs do not grow: only the
    // births table does.
    let long = SimEstimate::of(&compiled, 1_000_000);
    assert_eq!(
        long.bounded_bytes - estimate.bounded_bytes,
        63 * (20 * 1024 + event_log)
    );
    assert_eq!(long.birth_bytes, (1_000_000 + 20) * 8 * 66);
}

#[test]
fn a_run_past_the_work_ceiling_is_refused_at_its_length() {
    let mut s = scenario();
    s.duration_frames = 1_000_000;
    s.sources[0].target_count = 10_000;
    let compiled = CompiledScenario::compile(&s).expect("compiles");
    let estimate = SimEstimate::of(&compiled, s.duration_frames);
    let problems = estimate.problems(&compiled, DEFAULT_MEMORY_BUDGET_BYTES);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path.to_string(), "duration_frames");
    assert_eq!(
        problems[0].problem,
        SimProblem::OverWork {
            frames: 1_000_000,
            per_step: 10_018,
            work: 10_018_000_000,
            ceiling: MAX_SIM_WORK,
        }
    );
    assert!(problems[0]
        .problem
        .to_string()
        .contains("could take 10018000000 steps of work, over the ceiling of 4294967296"));
    // The same scenario for 400,000 frames fits.
    let shorter = SimEstimate::of(&compiled, 400_000);
    assert_eq!(
        shorter.problems(&compiled, DEFAULT_MEMORY_BUDGET_BYTES),
        vec![]
    );
    // Cycles that dominate the step are located at the population settings.
    let mut busy = scenario();
    busy.duration_frames = 1_000_000;
    busy.fixed_step_s = 1.0;
    busy.population.max_frame_time_s = 1.0;
    busy.population.ped_frame_rate = 1000.0;
    busy.population.ped_cycles_per_frame = 100.0;
    let compiled = CompiledScenario::compile(&busy).expect("compiles");
    let problems = SimEstimate::of(&compiled, 1_000_000).problems(&compiled, u64::MAX);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path.to_string(), "population");
    assert!(matches!(
        problems[0].problem,
        SimProblem::OverWork {
            per_step: 100_040,
            ..
        }
    ));
}

#[test]
fn a_run_past_the_memory_budget_is_refused_at_its_largest_population() {
    let mut s = scenario();
    s.sources[0].target_count = 5_000_000;
    let compiled = CompiledScenario::compile(&s).expect("compiles");
    let estimate = SimEstimate::of(&compiled, 100);
    let problems = estimate.problems(&compiled, DEFAULT_MEMORY_BUDGET_BYTES);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path.to_string(), "sources[0].target_count");
    assert_eq!(
        problems[0].problem,
        SimProblem::OverMemory {
            bytes: estimate.bytes(),
            budget: DEFAULT_MEMORY_BUDGET_BYTES,
        }
    );
    assert!(estimate.bytes() > 5_000_000 * BYTES_PER_AGENT);
    assert!(problems[0]
        .problem
        .to_string()
        .ends_with("of memory, over the budget of 8192 MiB"));
    // A smaller budget refuses the small scenario too, at its largest number: the pool of 16.
    let compiled = CompiledScenario::compile(&scenario()).expect("compiles");
    let problems = SimEstimate::of(&compiled, 100).problems(&compiled, 1 << 20);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path.to_string(), "population.pool_capacity");
}
