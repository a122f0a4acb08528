//! Knockdown benchmark: 100 simultaneously knocked-down bodies (a 10 × 10 grid, 2 m apart, with
//! 20 props among them) stepping one fixed step of 0.05 s — physics (three substeps) plus every
//! recovery's support trace, clearance query and state machine. Target: ≤ 2 ms per step.
//!
//! Two cases: bodies in flight (cloned 5 frames after the impulse, while they topple and hit the
//! ground) and bodies lying on a surface that is not walkable (they settle but never recover, so
//! all 100 stay in the scene). Before criterion's own timings the bench prints the median of
//! the first 60 steps after the impulse.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use stagecraft_runtime::project::Vec2;
use stagecraft_runtime::sim::knockdown::physics::standing_blocked;
use stagecraft_runtime::sim::knockdown::{KnockdownRequest, Knockdowns, RecoveryEnv};
use stagecraft_runtime::sim::{
    AgentHandle, AgentState, Obstacle, ObstacleOrigin, ObstacleSet, SceneObstacle,
};

mod support;
use support::median;

const BODIES: u32 = 100;
const STEP_S: f64 = 0.05;

/// The 20 props as the scene's obstacles.
fn props() -> ObstacleSet {
    let props = (0..20)
        .map(|i| SceneObstacle {
            footprint: Obstacle::Circle {
                centre: Vec2 {
                    x: 1.0 + 2.0 * f64::from(i % 10),
                    y: 1.0 + 4.0 * f64::from(i / 10),
                },
                radius_m: 0.15,
            },
            height_m: 1.0,
            in_navigation: true,
            origin: ObstacleOrigin::Prop { stage: 0, index: i },
        })
        .collect();
    ObstacleSet::new(props, 0)
}

fn knocked() -> Knockdowns {
    let props = props();
    let mut knock = Knockdowns::default();
    for i in 0..BODIES {
        let request = KnockdownRequest {
            handle: AgentHandle {
                index: i,
                generation: 0,
            },
            position: Vec2 {
                x: 2.0 * f64::from(i % 10),
                y: 2.0 * f64::from(i / 10),
            },
            facing: Vec2 { x: 1.0, y: 0.0 },
            velocity_m_s: Vec2 { x: 1.4, y: 0.0 },
            impulse_n_s: [80.0 + f64::from(i % 7) * 10.0, f64::from(i % 5) * 8.0, 0.0],
            intent: AgentState::Walking,
        };
        knock.knock_down(&props, request);
    }
    knock
}

fn steps(knock: &mut Knockdowns, walkable: bool, frames: u32) -> Vec<Duration> {
    let on_space = move |_: Vec2| walkable;
    let nobody = |_: AgentHandle, _: Vec2| false;
    let scene = props();
    let standing = |feet: [f64; 3]| standing_blocked(&scene, feet);
    let env = RecoveryEnv {
        walkable: &on_space,
        ped_in_the_way: &nobody,
        standing_blocked: &standing,
    };
    (0..frames)
        .map(|_| {
            let start = Instant::now();
            black_box(knock.step(STEP_S, &env));
            start.elapsed()
        })
        .collect()
}

fn main() {
    let mut first = knocked();
    let samples = steps(&mut first, false, 60);
    let worst = samples.iter().max().copied().unwrap_or_default();
    println!(
        "knockdown: {BODIES} bodies, first 60 steps: median {:?}, worst {:?}, still down {}",
        median(samples),
        worst,
        first.len()
    );
    let mut in_flight = knocked();
    steps(&mut in_flight, true, 5);
    let mut lying = knocked();
    steps(&mut lying, false, 60);

    let mut c = Criterion::default().configure_from_args();
    c.bench_function("knockdown/100 bodies in flight, one step", |b| {
        b.iter_batched(
            || in_flight.clone(),
            // The clone is returned, so its drop is not timed.
            |mut k| (steps(&mut k, true, 1), k),
            BatchSize::SmallInput,
        );
    });
    c.bench_function("knockdown/100 bodies lying, one step", |b| {
        b.iter_batched(
            || lying.clone(),
            |mut k| (steps(&mut k, false, 1), k),
            BatchSize::SmallInput,
        );
    });
    c.final_summary();
}
