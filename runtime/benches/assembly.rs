//! Modular assembly: 10,000 modules (1,250 frames of 8 socketed slots, 6 modules, quarter-turn
//! rotations) through the `assembly` stage kernel, plan and provenance records (target ≤ 20 ms),
//! and the plan alone, serial and on the rayon pool.
//!
//! Before criterion's own timings the bench prints the module count and the median of a few
//! timed runs of each.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use stagecraft_runtime::content::{FamilyData, FamilyVariant};
use stagecraft_runtime::generate::CancelToken;
use stagecraft_runtime::ops::assembly::{assemble, AssemblyParams};
use stagecraft_runtime::ops::registry::{
    InputValue, KernelContext, Registry, StageInputs, StageParams,
};

mod support;

const SEED: u64 = 0x0a55_e4b1;

fn family() -> FamilyData {
    let module = |id: &str, weight, sockets: &[&str]| FamilyVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius: 0,
        collision_radius_m: 1.5,
        height_m: 12.0,
        sockets: sockets.iter().map(|s| (*s).to_owned()).collect(),
    };
    FamilyData {
        id: "facade-modules".to_owned(),
        variants: vec![
            module("corner-brick", 2, &["corner"]),
            module("corner-stone", 1, &["corner"]),
            module("bay-window", 3, &["bay"]),
            module("bay-balcony", 1, &["bay"]),
            module("door-arched", 1, &["door"]),
            module("shopfront", 2, &["door", "bay"]),
        ],
    }
}

fn params() -> AssemblyParams {
    AssemblyParams {
        sockets: "corner bay door bay bay door bay corner"
            .split(' ')
            .map(str::to_owned)
            .collect(),
        frames: 1250,
        slot_pitch: 300,
        frame_gap: 100,
        origin_x: 0,
        origin_y: 0,
        rotation_steps: 4,
        lattice_unit_m: 0.01,
        room: 1,
        layer: 0,
    }
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    support::median(samples)
}

fn main() {
    let family = family();
    let params = params();
    let registry = Registry::standard();
    let descriptor = *registry.get("assembly", 1).expect("assembly registered");
    let stage_params = StageParams::Assembly(params.clone());
    let cancel = CancelToken::new();
    let progress = |_: u64| {};
    let mut inputs = StageInputs::default();
    inputs.bind("modules", InputValue::Family(&family));
    let run_kernel = |parallel: bool| {
        let context = KernelContext {
            recipe: "bench",
            stage: 1,
            seed: SEED,
            parallel,
            cancel: &cancel,
            progress: &progress,
        };
        (descriptor.kernel)(&stage_params, &inputs, &context).expect("assembles")
    };
    let modules = assemble(&params, &family, SEED, false)
        .expect("assembles")
        .modules
        .len();
    let kernel_serial = median(9, || {
        black_box(run_kernel(false));
    });
    let kernel_parallel = median(9, || {
        black_box(run_kernel(true));
    });
    let plan_serial = median(9, || {
        black_box(assemble(&params, &family, SEED, false).expect("assembles"));
    });
    println!(
        "{modules} modules: stage kernel (plan + provenance) median {:.2} ms serial, {:.2} ms parallel; plan alone {:.2} ms serial",
        kernel_serial.as_secs_f64() * 1e3,
        kernel_parallel.as_secs_f64() * 1e3,
        plan_serial.as_secs_f64() * 1e3,
    );
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    criterion.bench_function("assembly/stage kernel 10k modules serial", |b| {
        b.iter(|| run_kernel(false))
    });
    criterion.bench_function("assembly/stage kernel 10k modules parallel", |b| {
        b.iter(|| run_kernel(true))
    });
    criterion.bench_function("assembly/plan 10k modules serial", |b| {
        b.iter(|| assemble(&params, &family, SEED, false))
    });
    criterion.final_summary();
}

/// The editor binary's allocator, so that timings match the product (see `editor/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
