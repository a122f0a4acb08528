"""Digests from Python equal the command line's, for every example project: generation (each
recipe's bundle digest), simulation (the state digest after the same frames, every scenario),
cooking (the bundle digest) and diff counts."""

import pytest

import stagecraft
from conftest import EXAMPLES, example

SCENARIOS = [
    (name, scenario)
    for name in EXAMPLES
    for scenario in stagecraft.Project.open(example(name)).scenarios
]
FRAMES = 120


def test_every_example_is_covered():
    assert len(EXAMPLES) == 11
    assert len(SCENARIOS) == 23


@pytest.mark.parametrize("name", EXAMPLES)
def test_generate_digests_equal_the_cli(cli, name):
    code, report = cli("generate", example(name), "--json")
    assert code == 0
    expected = {r["recipe"]: r["digest"] for r in report["recipes"]}
    generation = stagecraft.Project.open(example(name)).generate()
    assert generation.digests == expected
    assert generation.seed == report["seed"]
    assert generation.object_counts == {r["recipe"]: r["objects"] for r in report["recipes"]}


@pytest.mark.parametrize("name", ["street-block", "pine-clearing"])
def test_generate_at_another_seed_equals_the_cli(cli, name):
    code, report = cli("generate", example(name), "--json", "--seed", 99)
    assert code == 0
    generation = stagecraft.Project.open(example(name)).generate(seed=99)
    assert generation.digests == {r["recipe"]: r["digest"] for r in report["recipes"]}
    assert generation.digests != stagecraft.Project.open(example(name)).generate().digests


@pytest.mark.parametrize("name,scenario", SCENARIOS)
def test_simulate_state_digest_equals_the_cli(cli, name, scenario):
    code, report = cli("simulate", example(name), "--scenario", scenario, "--frames", FRAMES, "--json")
    assert code == 0
    sim = stagecraft.Simulation(stagecraft.Project.open(example(name)), scenario)
    sim.step(FRAMES)
    assert sim.frame == report["frame"] == FRAMES
    assert len(sim) == report["agents"]
    assert sim.counters() == report["final"]
    assert sim.state_digest() == report["state_digest"]


@pytest.mark.parametrize("seed", [11, 12, 2**63 + 5])
def test_a_reseeded_simulation_equals_simulate_seed(cli, seed):
    code, report = cli("simulate", example("street-lifecycle"), "--scenario", "retire-reuse", "--seed", seed, "--json")
    assert code == 0
    assert report["seed"] == seed
    project = stagecraft.Project.open(example("street-lifecycle"))
    sim = stagecraft.Simulation(project, "retire-reuse", seed=seed)
    assert sim.seed == seed
    sim.step(report["frame"])
    assert sim.state_digest() == report["state_digest"]
    unseeded = stagecraft.Simulation(project, "retire-reuse")
    unseeded.step(report["frame"])
    assert unseeded.seed == 7
    assert unseeded.state_digest() != report["state_digest"]


def test_a_long_run_in_many_calls_equals_the_cli(cli):
    code, report = cli("simulate", example("street-block"), "--scenario", "crosswalk-rush", "--frames", 600, "--json")
    assert code == 0
    sim = stagecraft.Simulation(stagecraft.Project.open(example("street-block")), "crosswalk-rush")
    for _ in range(600):
        sim.step()
    assert sim.state_digest() == report["state_digest"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_cook_digest_equals_the_cli(cli, tmp_path, name):
    code, report = cli("cook", example(name), "--out", tmp_path / "cli", "--cache", tmp_path / "cache", "--json")
    assert code == 0
    cooked = stagecraft.Project.open(example(name)).cook(tmp_path / "py")
    assert cooked["digest"] == report["digest"]
    assert (tmp_path / "py" / "manifest.ron").read_bytes() == (tmp_path / "cli" / "manifest.ron").read_bytes()
    cli_files = sorted(p.name for p in (tmp_path / "cli" / "products").iterdir())
    assert sorted(p.name for p in (tmp_path / "py" / "products").iterdir()) == cli_files
    assert cooked["files"] == len(cli_files) + 1


def test_diff_counts_equal_the_cli(cli):
    path = example("pine-clearing")
    code, report = cli("diff", path, path, "--b-seed", 5, "--json")
    assert code == 1
    project = stagecraft.Project.open(path)
    diff = project.diff(project, other_seed=5)
    assert diff.counts == report["counts"]
    assert not diff.equal
    assert len(diff.entries) == len(report["entries"])
    assert diff.entries[:20] == report["entries"][:20]
