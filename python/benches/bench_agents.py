"""`Simulation.agents()` as a NumPy structured array for 100,000 agents (target <= 2 ms), run by
hand:

    python python/benches/bench_agents.py

The world is the runtime's mixed-tier benchmark world (`observed_street_world(100_000, 7)`, as
runtime/benches/motion.rs), stepped 40 frames; each call packs every Motion Frame into the
array (nothing is cached between calls).
"""

import statistics
import time

import stagecraft

WALKERS = 100_000
RUNS = 50


def main():
    sim = stagecraft._bench_world("observed", WALKERS)
    sim.step(40)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        agents = sim.agents()
        times.append(time.perf_counter() - start)
    assert len(agents) == WALKERS
    print(f"agents() for {len(agents)} agents: median {statistics.median(times) * 1e3:.3f} ms, "
          f"min {min(times) * 1e3:.3f} ms ({agents.nbytes / 1e6:.1f} MB, {RUNS} runs)")


if __name__ == "__main__":
    main()
