"""Benchmarks of `stagecraft.farm` on a local Ray (docs/farm.md's figures), run by hand:

    STAGECRAFT_BIN=target/debug/stagecraft python python/benches/bench_farm.py [cook|overhead|sweep]...

cook      the 16 km² forest in 16 tiles on 1 and on 2 local workers (one thread each), cold cache,
          three rounds alternating 1 and 2 workers, each engine best of 3 per round: in-process
          (`engine="python"`: one tile per task; the default batch; the cache synced; the cache in
          /dev/shm, the bundle still on disk) and the command line (`engine="cli"`, needs
          STAGECRAFT_BIN; skipped without it)
overhead  1,000 tiny items (the forest in 34 × 34 tiles of 12 × 12 cells): the driver's time per
          task beyond the tasks' own work, and the whole farm phase per item, one item per task
          and 50 per task (in-process engine)
sweep     1,000 runs of 600 frames on 2 workers: street-lifecycle/retire-reuse (Python API and
          CLI) and street-block/crosswalk-rush (Python API)
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import ray

from stagecraft import farm

REPO = pathlib.Path(__file__).resolve().parents[2]
FOREST = REPO / "projects" / "forest-16km2"


def fresh_ray(workers):
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    # Start the workers before timing anything.
    ray.get([ray.remote(lambda: None).remote() for _ in range(workers * 2)])


def cook_once(cache_root=None, **options):
    """One timed farm cook of the forest into a fresh cache and bundle folder: (seconds, report).
    The bundle goes to the temp folder (the disk); the cache there too, or under `cache_root`."""
    scratch = tempfile.mkdtemp()
    cache_scratch = tempfile.mkdtemp(dir=cache_root) if cache_root else scratch
    try:
        start = time.perf_counter()
        report = farm.cook(FOREST, f"{scratch}/out", tiles=100, cache=f"{cache_scratch}/cache", **options)
        return time.perf_counter() - start, report
    finally:
        shutil.rmtree(scratch)
        if cache_root:
            shutil.rmtree(cache_scratch)
        # Untimed: the disk settles (the deleted folders' journal, the kernel's write-back of the
        # cook's unsynced cache entries) before the next cook, which would otherwise wait on it.
        os.sync()


def bench_cook():
    print(f"load: {os.getloadavg()}")
    engines = {"in-process, one tile per task": dict(engine="python", batch=1),
               "in-process": dict(engine="python"),
               "in-process, cache synced": dict(engine="python", sync_cache=True)}
    if os.path.isdir("/dev/shm"):
        engines["in-process, cache in /dev/shm"] = dict(engine="python", cache_root="/dev/shm")
    if os.environ.get("STAGECRAFT_BIN"):
        single = tempfile.mkdtemp()
        start = time.perf_counter()
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        subprocess.run([farm.binary_path(), "cook", FOREST, "--out", f"{single}/b", "--cache", f"{single}/c"],
                       check=True, capture_output=True, env=env)
        print(f"cook forest-16km2, one process, one thread: {time.perf_counter() - start:.2f} s")
        shutil.rmtree(single)
        engines["command line"] = dict(engine="cli")
    best = {}
    for round_ in range(3):
        for workers in (1, 2):
            fresh_ray(workers)
            cook_once()  # the workers import the module before anything is timed
            for name, options in engines.items():
                runs = [cook_once(**options) for _ in range(3)]
                seconds, report = min(runs, key=lambda run: run[0])
                best[(round_, workers, name)] = seconds
                print(f"round {round_ + 1}, {workers} worker(s), {name}: best of 3 {seconds:.3f} s "
                      f"(plan {report['plan_s']:.3f} s, tiles {report['farm_s']:.3f} s, "
                      f"assemble {report['assemble_s']:.3f} s), digest {report['digest'][:16]}")
        for name in engines:
            one, two = best[(round_, 1, name)], best[(round_, 2, name)]
            print(f"round {round_ + 1}, {name}: {one:.3f} -> {two:.3f} s, {one / two:.2f}x")
    print(f"load: {os.getloadavg()}")


def bench_overhead():
    fresh_ray(2)
    for batch in (1, 50):
        scratch = tempfile.mkdtemp()
        start = time.perf_counter()
        report = farm.cook(FOREST, f"{scratch}/out", tiles=12, cache=f"{scratch}/cache", batch=batch)
        total = time.perf_counter() - start
        work = sum(report["task_wall_s"]) / 2
        overhead = (report["farm_s"] - work) / report["items"]
        print(f"{report['items']} items, {batch} per task ({report['tasks']} tasks): farm phase {report['farm_s']:.2f} s "
              f"({report['farm_s'] / report['items'] * 1e3:.2f} ms per item end to end on 2 workers), "
              f"tasks' own wall {sum(report['task_wall_s']):.2f} s ({sum(report['task_wall_s']) / report['items'] * 1e3:.2f} ms "
              f"per item); driver overhead {overhead * 1e3:.2f} ms per item; whole cook {total:.2f} s")
        shutil.rmtree(scratch)


def bench_sweep():
    fresh_ray(2)
    runs = (("street-lifecycle", "retire-reuse", "python"), ("street-block", "crosswalk-rush", "python"),
            ("street-lifecycle", "retire-reuse", "cli"))
    for name, scenario, engine in runs:
        start = time.perf_counter()
        table = farm.sweep(REPO / "projects" / name, scenario, seeds=range(1000), frames=600, batch=50, engine=engine)
        wall = time.perf_counter() - start
        print(f"sweep of 1,000 runs × 600 frames of {name}/{scenario}, engine {engine}, 2 workers: {wall:.1f} s, "
              f"{len(table) / wall:.1f} runs/s (mean run {table['wall_s'].mean() * 1e3:.1f} ms, "
              f"{table['agents'].max()} agents at most)")


if __name__ == "__main__":
    chosen = sys.argv[1:] or ["cook", "overhead", "sweep"]
    for name in chosen:
        {"cook": bench_cook, "overhead": bench_overhead, "sweep": bench_sweep}[name]()
