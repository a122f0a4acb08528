"""`stagecraft.farm` on a local Ray cluster of two workers: tiled cooks equal the single-process
`stagecraft cook` byte for byte (pine-clearing, the 16 km² forest), in-process (the default
engine, the cache synced or not) and through the command line, a worker killed mid-task is
retried to the same bytes, a damaged cache entry is cooked again, and a sweep of 200 seeds gives
200 rows whose digests are `stagecraft simulate --seed N`'s."""

import pathlib

import pandas
import pytest

from conftest import PROJECTS
from stagecraft import farm


def files(folder):
    folder = pathlib.Path(folder)
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def single_process(cli, project, tmp_path):
    out = tmp_path / "single"
    report = cli("cook", project, "--out", out, "--cache", tmp_path / "single-cache", "--json")
    return report["digest"], files(out)


@pytest.mark.parametrize("name,tiles,engine,sync", [
    ("pine-clearing", 4, "python", False),
    ("forest-16km2", 100, "python", False),
    ("forest-16km2", 100, "python", True),
    ("forest-16km2", 100, "cli", True),
])
def test_a_tiled_cook_on_two_workers_equals_the_single_process_cook(ray_cluster, cli, tmp_path, name, tiles, engine, sync):
    project = PROJECTS / name
    digest, expected = single_process(cli, project, tmp_path)
    report = farm.cook(project, tmp_path / "farmed", tiles=tiles, cache=tmp_path / "cache", engine=engine, sync_cache=sync)
    assert report["digest"] == digest
    assert report["out"] == str(tmp_path / "farmed")
    # The default batch: two tasks per worker, 16 items on two workers in 4 tasks of 4.
    assert report["items"] == 16 and report["tasks"] == 4
    assert report["tiles_cooked"] == 16
    assert files(tmp_path / "farmed") == expected
    # The cache's entries are the command line's: `cook --items` of every tile finds them all.
    ids = [item["id"] for item in farm.plan(project, tiles=tiles, cache=tmp_path / "cache") if item["tile"]]
    listed = cli("cook", project, "--tile-cells", tiles, "--items", ",".join(ids), "--cache", tmp_path / "cache", "--json")
    assert [t["cache"] for t in listed["tiles"]] == ["hit"] * 16
    # Again from the same cache: every tile is a hit, the bytes are the same.
    again = farm.cook(project, tmp_path / "again", tiles=tiles, cache=tmp_path / "cache", batch=1, engine=engine)
    assert again["tasks"] == 16 and again["tiles_cooked"] == 0
    assert files(tmp_path / "again") == expected


@pytest.mark.parametrize("engine", ["python", "cli"])
def test_a_worker_killed_mid_task_is_retried_to_the_same_bytes(ray_cluster, cli, tmp_path, engine):
    project = PROJECTS / "forest-16km2"
    digest, expected = single_process(cli, project, tmp_path)
    chaos = tmp_path / "chaos"
    chaos.mkdir()
    doomed = ["forest/1001/t1_0", "forest/1001/t2_3"]
    (chaos / "fail.txt").write_text("\n".join(doomed))
    cache = tmp_path / "cache"
    report = farm.cook(project, tmp_path / "farmed", tiles=100, cache=cache, engine=engine, batch=1, _chaos=str(chaos))
    # Both first attempts started a cook and died in it; the retries cooked the tiles.
    assert sorted(p.name for p in chaos.glob("*.attempted")) == ["forest_1001_t1_0.attempted", "forest_1001_t2_3.attempted"]
    assert report["digest"] == digest
    assert files(tmp_path / "farmed") == expected
    # Nothing half-written is left where entries live.
    entries = list((cache / "entries").iterdir())
    assert all((entry / "entry.ron").is_file() for entry in entries)
    if engine == "python":
        # In-process, each first attempt died with its tile's entry staged (both files written and
        # verified) and not yet published: the dead processes' staging folders are all that is left
        # of them (a later cook removes them once they are old), and the entries are the retries'.
        keys = {item["id"]: item["key"] for item in farm.plan(project, tiles=100, cache=cache)}
        staged = sorted(p.name.rsplit("-", 2)[0] for p in (cache / "staging").iterdir())
        assert staged == sorted(keys[item] for item in doomed)
        assert all((cache / "entries" / keys[item] / "entry.ron").is_file() for item in doomed)


def test_the_default_batch_spreads_items_over_two_tasks_per_worker():
    assert farm.auto_batch(list(range(16)), 2) == 4
    assert farm.auto_batch(list(range(17)), 2) == 5
    assert farm.auto_batch(list(range(16)), 1) == 8
    assert farm.auto_batch(list(range(3)), 8) == 1
    assert farm.auto_batch(list(range(1000)), 64) == 8
    assert farm.auto_batch([], 2) == 1


def test_a_remote_function_is_made_once_per_function_and_options(ray_cluster):
    # A new remote function is exported to the cluster again and fetched by every worker before
    # its first task: the farm makes each once per process and reuses it for every cook.
    made = farm._remote(ray_cluster, farm._cook_items_python, num_cpus=1, max_retries=3)
    again = farm._remote(ray_cluster, farm._cook_items_python, max_retries=3, num_cpus=1)
    other = farm._remote(ray_cluster, farm._cook_items_python, num_cpus=2, max_retries=3)
    assert again is made
    assert other is not made
    assert farm._remote(ray_cluster, farm._run_seeds, num_cpus=1, max_retries=3) is not made


def test_a_damaged_cache_entry_is_detected_and_cooked_again(ray_cluster, cli, tmp_path):
    project = PROJECTS / "pine-clearing"
    digest, expected = single_process(cli, project, tmp_path)
    cache = tmp_path / "cache"
    farm.cook(project, tmp_path / "first", tiles=4, cache=cache)
    items = farm.plan(project, tiles=4, cache=cache)
    damaged = cache / "entries" / items[5]["key"] / "product.bin"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x20
    damaged.write_bytes(bytes(data))
    report = farm.cook(project, tmp_path / "second", tiles=4, cache=cache)
    assert report["tiles_cooked"] == 1
    assert report["digest"] == digest
    assert files(tmp_path / "second") == expected
    assert damaged.read_bytes() != bytes(data)


def test_a_sweep_of_200_seeds_gives_the_command_line_digests(ray_cluster, cli, tmp_path):
    project = PROJECTS / "street-lifecycle"
    seeds = list(range(1000, 1200))
    table = farm.sweep(project, "retire-reuse", seeds=seeds, batch=20, parquet=tmp_path / "sweep.parquet")
    assert len(table) == 200
    assert list(table["seed"]) == seeds
    assert set(table["scenario"]) == {"retire-reuse"}
    assert (table["frame"] == 240).all()
    assert table["state_digest"].nunique() > 150
    assert (table["wall_s"] > 0).all()
    for seed in seeds[::20]:
        report = cli("simulate", project, "--scenario", "retire-reuse", "--seed", seed, "--json")
        row = table[table["seed"] == seed].iloc[0]
        assert row["state_digest"] == report["state_digest"]
        assert row["bundle_digest"] == report["bundle_digest"]
        assert row["births"] == report["final"]["births"]
    back = pandas.read_parquet(tmp_path / "sweep.parquet")
    assert list(back["state_digest"]) == list(table["state_digest"])


def test_a_sweep_with_set_edits_runs_the_edited_recipe(ray_cluster, cli, tmp_path):
    project = PROJECTS / "street-block"
    table = farm.sweep(project, "crosswalk-rush", seeds=[5, 6], frames=60, set=["2.cell_size=400"])
    report = cli("simulate", project, "--scenario", "crosswalk-rush", "--seed", 6, "--frames", 60,
                 "--set", "2.cell_size=400", "--json")
    assert list(table["set"]) == ["2.cell_size=400"] * 2
    assert table.iloc[1]["state_digest"] == report["state_digest"]


def test_the_python_engine_gives_the_command_line_digests(ray_cluster, cli):
    project = PROJECTS / "street-lifecycle"
    table = farm.sweep(project, "retire-reuse", seeds=[11, 12, 13], frames=240, engine="python")
    for seed in (11, 13):
        report = cli("simulate", project, "--scenario", "retire-reuse", "--seed", seed, "--json")
        assert table[table["seed"] == seed].iloc[0]["state_digest"] == report["state_digest"]
