"""stagecraft.farm: cook large worlds in tiles and run scenario sweeps on Ray.

    from stagecraft import farm
    report = farm.cook("projects/forest-16km2", "out/forest", tiles=100)      # local Ray
    table = farm.sweep("projects/street-lifecycle", "retire-reuse", seeds=range(200))
    table = farm.sweep(..., cluster="ray://head:10001", parquet="sweep.parquet")

Ray is the engine (`pip install ray pandas pyarrow`); nothing here schedules work itself. By
default every task runs in the Ray worker's own process through this module
(`stagecraft.cook_cached`, the `stagecraft cook` driver in-process: no process per item;
`Simulation(seed=)` for a sweep without `set`); `engine="cli"` runs the `stagecraft` command line
instead (`$STAGECRAFT_BIN`, else `stagecraft` on the PATH, or `binary=`) — `cook --items …
--tile-cells N` into the shared cache folder, `simulate --seed N --json`. Both write the same
bytes. Work is pure: a task retried after a failure or a dead worker writes the same bytes, and
the cache publishes an entry only once it is whole and verified. On a cluster the cache folder
must be one every node reads and writes (a shared file system). See docs/farm.md.
"""

import json
import os
import pathlib
import shutil
import subprocess
import time

__all__ = ["cook", "plan", "sweep", "binary_path", "connect", "auto_batch"]


def binary_path(binary=None):
    """The `stagecraft` command line the tasks run: `binary`, else `$STAGECRAFT_BIN`, else
    `stagecraft` on the PATH."""
    found = binary or os.environ.get("STAGECRAFT_BIN") or shutil.which("stagecraft")
    if not found or not pathlib.Path(found).is_file():
        raise FileNotFoundError(
            "the stagecraft command line is not found: pass binary=, set STAGECRAFT_BIN or put "
            "`stagecraft` on the PATH (cargo install --path editor)"
        )
    return str(pathlib.Path(found).resolve())


def connect(cluster=None, num_cpus=None):
    """Starts or joins Ray: a running Ray is used as it is; `cluster=None` starts a local one
    (`num_cpus` workers), an address (`"auto"`, `"ray://head:10001"`) joins that cluster."""
    import ray

    if not ray.is_initialized():
        if cluster is None:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=cluster, log_to_driver=False)
    return ray


def _run(binary, args, threads=None):
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"stagecraft {' '.join(map(str, args))} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def plan(project, tiles=None, cache=None, binary=None, engine="python"):
    """`stagecraft cook PROJECT --plan --json` (with `--tile-cells tiles`): the work items
    (in-process through `stagecraft.cook_plan`, or the command line with `engine="cli"`)."""
    if engine == "python":
        import stagecraft

        return stagecraft.cook_plan(str(project), cache=_opt_str(cache), tile_cells=tiles)
    args = ["cook", project, "--plan", "--json"]
    if tiles:
        args += ["--tile-cells", tiles]
    if cache:
        args += ["--cache", cache]
    return _run(binary_path(binary), args)["items"]


def _batches(items, size):
    size = max(1, int(size))
    return [items[i : i + size] for i in range(0, len(items), size)]


TASKS_PER_WORKER = 2
"""Tasks per worker an automatic `batch` aims for: enough that a slow worker's share is taken by
the others, few enough that Ray's ~1.3 ms per task stays small beside the items' work."""


def auto_batch(items, workers):
    """Items per task when `batch` is not given: the items spread over `TASKS_PER_WORKER` tasks
    per worker (16 forest tiles on 2 workers: 4 tasks of 4 tiles), at least one item each."""
    workers = max(1, int(workers))
    return max(1, -(-len(items) // (workers * TASKS_PER_WORKER)))


_REMOTES = {}


def _remote(ray, function, **options):
    """`ray.remote(**options)(function)`, made once per function and options for the process: a
    new remote function is exported to the cluster again, and each worker fetches it before its
    first task (about 3 ms a cook on a local two-worker Ray)."""
    key = (function.__name__, tuple(sorted(options.items())))
    if key not in _REMOTES:
        _REMOTES[key] = ray.remote(**options)(function)
    return _REMOTES[key]


def _opt_str(path):
    return None if path is None else str(path)


def _cook_items_python(project, cache, tiles, ids, threads, sync, chaos):
    """One task, in the worker's process: cooks the work items `ids` into the cache on `threads`
    threads. `chaos` (tests only) names a folder: the first attempt at an item listed there dies
    (the process aborts) once the item's first cache entry is staged, before it is published."""
    import stagecraft

    doomed = bool(chaos) and _first_attempt(chaos, ids)
    start = time.perf_counter()
    report = stagecraft.cook_cached(project, cache=cache, items=list(ids), tile_cells=tiles,
                                    threads=threads or 1, sync=sync, evict=False,
                                    _abort_before_publish=doomed)
    return {"items": ids, "wall_s": time.perf_counter() - start, "tiles": report["tiles"], "stages": report["stages"]}


def _cook_items(binary, project, cache, tiles, ids, threads, chaos):
    """One task through the command line: cooks the work items `ids` into the cache. `chaos`
    (tests only) names a folder: the first attempt at an item listed there starts the cook, kills
    it mid-run and dies."""
    args = ["cook", project, "--cache", cache, "--items", ",".join(ids), "--json"]
    if tiles:
        args += ["--tile-cells", tiles]
    if chaos and _first_attempt(chaos, ids):
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads or 1))
        child = subprocess.Popen([binary, *map(str, args)], env=env, stdout=subprocess.DEVNULL)
        time.sleep(0.05)
        child.kill()
        child.wait()
        os._exit(1)  # the worker dies: Ray retries the task on another one
    start = time.perf_counter()
    report = _run(binary, args, threads)
    return {"items": ids, "wall_s": time.perf_counter() - start, "tiles": report["tiles"], "stages": report["stages"]}


def _first_attempt(chaos, ids):
    folder = pathlib.Path(chaos)
    wanted = {line.strip() for line in (folder / "fail.txt").read_text().splitlines() if line.strip()}
    for item in ids:
        if item in wanted:
            marker = folder / (item.replace("/", "_") + ".attempted")
            try:
                marker.touch(exist_ok=False)
                return True
            except FileExistsError:
                return False
    return False


def cook(project, out, cluster=None, tiles=None, cache=None, batch=None, threads=1, num_cpus=None,
         binary=None, max_retries=3, assemble_threads=None, engine="python", sync_cache=False,
         _chaos=None):
    """Cooks `project` into the bundle folder `out` on Ray: the plan's items that need nothing
    cooked first (every tile of a tiled stage, every stage without an upstream one), `batch` per
    task, each task cooking its items into the shared cache on `threads` threads; then the
    bundle is assembled on the driver (tiles read and merged in canonical order, the remaining
    stages cooked, products encoded and written in parallel) on `assemble_threads` threads
    (default: the cluster's CPUs, as Ray counts them). The bundle is byte for byte the
    single-machine `stagecraft cook`'s, on any number of workers and threads, with either engine.
    `batch=None` (default) spreads the items over two tasks per worker (`auto_batch`; a worker
    holds `threads` of the cluster's CPUs).

    `engine="python"` (default) plans, cooks each task's items and assembles in-process through
    this module (`stagecraft.cook_plan`, `stagecraft.cook_cached`); its cache entries are
    published without fsync unless `sync_cache=True` (still staged, verified and published by one
    rename; the bundle itself is always synced; docs/farm.md). `engine="cli"` runs `stagecraft
    cook --plan`, `cook --items` per task and `cook --out` (every write synced).

    Returns {"digest", "out", "items", "tasks", "tiles_cooked", "task_wall_s", "plan_s",
    "farm_s", "assemble_s"}."""
    if engine not in ("python", "cli"):
        raise ValueError(f"engine must be 'python' or 'cli', not {engine!r}")
    ray = connect(cluster, num_cpus)
    binary = binary_path(binary) if engine == "cli" else None
    project = str(pathlib.Path(project).resolve())
    cache = str(pathlib.Path(cache or pathlib.Path(project) / ".stagecraft" / "cache").resolve())
    start = time.perf_counter()
    items = plan(project, tiles, cache, binary, engine)
    ready = [item["id"] for item in items if not item["after"]]
    planned = time.perf_counter()
    options = dict(max_retries=max_retries, retry_exceptions=True, num_cpus=threads)
    if batch is None:
        workers = int(ray.cluster_resources().get("CPU", 1)) // max(1, int(threads))
        batch = auto_batch(ready, workers)
    if engine == "python":
        task = _remote(ray, _cook_items_python, **options)
        refs = [task.remote(project, cache, tiles, ids, threads, sync_cache, _chaos) for ids in _batches(ready, batch)]
    else:
        task = _remote(ray, _cook_items, **options)
        refs = [task.remote(binary, project, cache, tiles, ids, threads, _chaos) for ids in _batches(ready, batch)]
    results = ray.get(refs)
    farmed = time.perf_counter()
    if assemble_threads is None:
        assemble_threads = max(1, int(ray.cluster_resources().get("CPU", 1)))
    report = _assemble(engine, binary, project, out, cache, tiles, assemble_threads, sync_cache)
    done = time.perf_counter()
    return {
        "digest": report["digest"],
        "out": str(report["out"]),
        "items": len(ready),
        "tasks": len(refs),
        "tiles_cooked": sum(1 for r in results for t in r["tiles"] if t["cache"] == "miss"),
        "task_wall_s": [r["wall_s"] for r in results],
        "plan_s": planned - start,
        "farm_s": farmed - planned,
        "assemble_s": done - farmed,
    }


def _assemble(engine, binary, project, out, cache, tiles, threads, sync):
    """The assembling cook on the driver: `stagecraft cook --out` (in-process or the command)."""
    if engine == "python":
        import stagecraft

        return stagecraft.cook_cached(project, cache=cache, out=str(out), tile_cells=tiles,
                                      threads=threads, sync=sync)
    args = ["cook", project, "--out", out, "--cache", cache, "--json"]
    if tiles:
        args += ["--tile-cells", tiles]
    return _run(binary, args, threads=threads)


def _simulate_python(project, scenario, seed, frames):
    """One run in this process: `project` is a `stagecraft.Project` opened once per task, which
    keeps the scenario's generated content (seed-independent) for every run's world; one thread,
    as the task holds one CPU."""
    import stagecraft

    sim = stagecraft.Simulation(project, scenario, seed=seed, threads=1)
    sim.step(frames)
    return {"frame": sim.frame, "agents": len(sim), "seed": sim.seed, "final": sim.counters(),
            "state_digest": sim.state_digest(), "bundle_digest": None}


def _run_seeds(binary, project, scenario, seeds, frames, sets, engine):
    rows = []
    if engine == "python":
        import stagecraft

        opened = stagecraft.Project.open(project)
    for seed in seeds:
        start = time.perf_counter()
        if engine == "python":
            report = _simulate_python(opened, scenario, seed, frames)
        else:
            args = ["simulate", project, "--scenario", scenario, "--seed", seed, "--json", "--every", 0]
            if frames is not None:
                args += ["--frames", frames]
            for edit in sets:
                args += ["--set", edit]
            report = _run(binary, args, threads=1)
        row = {"seed": seed, "frame": report["frame"], "agents": report["agents"],
               "state_digest": report["state_digest"], "bundle_digest": report["bundle_digest"],
               "wall_s": time.perf_counter() - start}
        row.update(report["final"])
        rows.append(row)
    return rows


def sweep(project, scenario, seeds, frames=None, set=(), cluster=None, batch=10, num_cpus=None,
          parquet=None, binary=None, engine=None, max_retries=3):
    """Runs `scenario` of `project` once per seed in `seeds` (the world's seed, as `simulate
    --seed`), `frames` frames each (default: the scenario's duration), with the `set` edits
    (`STAGE.PARAM=VALUE`, as `simulate --set`), `batch` runs per Ray task. Returns a pandas
    DataFrame, one row per seed in `seeds` order: `seed`, `scenario`, `set`, `frame`, `agents`,
    `state_digest` (equal to `stagecraft simulate --seed N`'s), `bundle_digest`, `wall_s` and
    every final counter; with `parquet=PATH` also writes it there.

    `engine`: "python" (the module's `Simulation`, no process per run; needs `frames`, not
    `set`) or "cli" (a `stagecraft simulate` per run); default "python" when it can, else "cli".
    The "python" engine leaves `bundle_digest` empty."""
    import pandas

    ray = connect(cluster, num_cpus)
    sets = list([set] if isinstance(set, str) else set)
    engine = engine or ("cli" if sets or frames is None else "python")
    if engine == "python" and (sets or frames is None):
        raise ValueError("engine='python' needs frames= and no set= (use engine='cli')")
    binary = binary_path(binary) if engine == "cli" else None
    project = str(pathlib.Path(project).resolve())
    seeds = [int(s) for s in seeds]
    task = _remote(ray, _run_seeds, max_retries=max_retries, retry_exceptions=True, num_cpus=1)
    refs = [task.remote(binary, project, scenario, chunk, frames, sets, engine) for chunk in _batches(seeds, batch)]
    rows = [row for chunk in ray.get(refs) for row in chunk]
    table = pandas.DataFrame(rows)
    table.insert(1, "scenario", scenario)
    table.insert(2, "set", " ".join(sets))
    if parquet:
        table.to_parquet(parquet, index=False)
    return table
