"""`Simulation.step` overhead over the Rust step, 10,000 agents (target <= 5 %), run by hand:

    python python/benches/bench_step.py

The world is the runtime's motion benchmark world (`two_way_street_world(10_000, 7)`, every
agent Full, as runtime/benches/motion.rs `two_way_street_10000_full`), warmed 40 frames. The same
process times the Rust loop alone (`Simulation._timed_steps`, `Instant` around `World::step`)
and a Python loop of `sim.step()` calls (`time.perf_counter` around each call), alternating
blocks so both see the same world state and machine load; the medians are compared.
"""

import statistics
import time

import stagecraft

WALKERS = 10_000
BLOCKS = 15
STEPS = 4


def main():
    sim = stagecraft._bench_world("two_way", WALKERS)
    sim.step(40)
    rust, python = [], []
    for _ in range(BLOCKS):
        rust.append(sim._timed_steps(STEPS) / STEPS)
        start = time.perf_counter()
        for _ in range(STEPS):
            sim.step()
        python.append((time.perf_counter() - start) / STEPS)
    rust_ms = statistics.median(rust) * 1e3
    python_ms = statistics.median(python) * 1e3
    print(f"{WALKERS} agents: Rust step {rust_ms:.3f} ms, Python sim.step() {python_ms:.3f} ms, "
          f"overhead {100 * (python_ms / rust_ms - 1):+.2f} % (median of {BLOCKS} blocks of {STEPS})")


if __name__ == "__main__":
    main()
