//! `stagecraft._stagecraft`: the Python extension over `stagecraft-runtime` (PyO3). The package
//! `stagecraft` (python/stagecraft/__init__.py) re-exports it; docs/python.md is the user's guide.
//!
//! Project files are read, and scenario worlds built, by `stagecraft-io` — the GUI-free crate the
//! editor and the `stagecraft` command line use too (the runtime does no IO); everything else
//! goes through the runtime entry points the command line uses, in the same order, so generation,
//! cook and state digests equal the command's (python/tests/test_cli_parity.py).

use pyo3::prelude::*;
use stagecraft_runtime::sim::{observed_street_world, two_way_street_world};

mod cook;
mod diff;
mod errors;
mod farm;
mod generation;
mod project;
mod records;
mod simulation;

/// Benchmarks only: a simulation over one of the runtime's benchmark worlds — `"two_way"` (the
/// motion benchmark's counter-flow street, every agent Full) or `"observed"` (mixed tiers around
/// an observer) — with `walkers` agents.
#[pyfunction]
#[pyo3(signature = (name, walkers, seed=7))]
fn _bench_world(
    py: Python<'_>,
    name: &str,
    walkers: usize,
    seed: u64,
) -> PyResult<simulation::Simulation> {
    let world = py.detach(|| match name {
        "two_way" => two_way_street_world(walkers, seed),
        "observed" => observed_street_world(walkers, seed),
        _ => None,
    });
    world
        .map(|world| simulation::Simulation::of_world(world, name))
        .ok_or_else(|| errors::error(format!("no benchmark world `{name}` of {walkers} walkers")))
}

#[pymodule]
fn _stagecraft(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("StagecraftError", py.get_type::<errors::StagecraftError>())?;
    m.add("ProjectError", py.get_type::<errors::ProjectError>())?;
    m.add_class::<errors::Diagnostic>()?;
    m.add_class::<project::Project>()?;
    m.add_class::<generation::Generation>()?;
    m.add_class::<diff::Diff>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_class::<simulation::Snapshot>()?;
    m.add("AGENT_STATES", simulation::state_names())?;
    m.add("TIERS", simulation::tier_names())?;
    m.add_function(wrap_pyfunction!(_bench_world, m)?)?;
    m.add_function(wrap_pyfunction!(farm::cook_plan, m)?)?;
    m.add_function(wrap_pyfunction!(farm::cook_cached, m)?)?;
    Ok(())
}
