"""`Simulation.step` overhead over the Rust step, 10,000 agents (target <= 5 %), run by hand:

    python python/benches/bench_step.py

The world is the runtime's motion benchmark world (`two_way_street_world(10_000, 7)`, every
agent Full, as runtime/benches/motion.rs `two_way_street_10000_full`), warmed 40 frames. The same
process times the Rust step alone (`Simulation._timed_steps(1)`, `Instant` around
`World::step`) and a `sim.step()` call from Python (`time.perf_counter` around the call),
alternating one of each (each first every other pair) so both see the same world state and machine load; the medians are
compared. On a loaded machine those two medians differ by noise far larger than the binding's
cost, so the bench also times the binding alone: `sim.step(0)` (the call, argument conversion
and GIL release around an empty loop), whose cost over the Rust step is the overhead.
"""

import statistics
import time

import stagecraft

WALKERS = 10_000
PAIRS = 80


def main():
    sim = stagecraft._bench_world("two_way", WALKERS)
    sim.step(40)
    rust, python = [], []
    for pair in range(PAIRS):
        # Each goes first every other pair, so neither always runs after the other.
        for first in ((0, 1) if pair % 2 == 0 else (1, 0)):
            if first == 0:
                rust.append(sim._timed_steps(1))
            else:
                start = time.perf_counter()
                sim.step()
                python.append(time.perf_counter() - start)
    calls = []
    for _ in range(20):
        start = time.perf_counter()
        for _ in range(1000):
            sim.step(0)
        calls.append((time.perf_counter() - start) / 1000)
    call_us = statistics.median(calls) * 1e6
    rust_ms = statistics.median(rust) * 1e3
    python_ms = statistics.median(python) * 1e3
    print(f"{WALKERS} agents: Rust step {rust_ms:.3f} ms, Python sim.step() {python_ms:.3f} ms, "
          f"difference {100 * (python_ms / rust_ms - 1):+.2f} % (medians of {PAIRS} steps each); "
          f"the binding alone (sim.step(0)) {call_us:.2f} us = {100 * call_us / (rust_ms * 1e3):.4f} % of a step")


if __name__ == "__main__":
    main()
