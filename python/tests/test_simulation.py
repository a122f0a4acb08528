"""`Simulation`: stepping, Motion Frames as NumPy, events, snapshots."""

import json
import shutil

import numpy as np
import pytest

import stagecraft
from conftest import REPO, example

AGENT_FIELDS = ["id", "source", "ordinal", "x", "y", "vx", "vy", "speed", "heading", "panic", "state", "tier", "moving", "updated", "pooled"]


@pytest.fixture(scope="module")
def street():
    return stagecraft.Project.open(example("street-block"))


def test_agents_are_the_motion_frames(street):
    sim = stagecraft.Simulation(street, "crosswalk-rush")
    assert sim.frame == 0 and sim.scenario == "crosswalk-rush"
    sim.step(120)
    agents = sim.agents()
    assert isinstance(agents, np.ndarray)
    assert list(agents.dtype.names) == AGENT_FIELDS
    assert agents.dtype.itemsize == 47
    assert len(agents) == len(sim) > 0
    assert len(set(agents["id"])) == len(agents)
    assert ((agents["id"] >> 32) == agents["source"]).all()
    assert ((agents["id"] & 0xFFFFFFFF) == agents["ordinal"]).all()
    assert agents["state"].max() < len(stagecraft.AGENT_STATES)
    assert agents["tier"].max() < len(stagecraft.TIERS)
    assert agents["moving"].any()
    assert (agents["speed"] >= 0).all()
    # The observed velocity of a moving agent is its speed.
    moving = agents[agents["moving"] & agents["updated"]]
    assert np.allclose(np.hypot(moving["vx"], moving["vy"]), moving["speed"], rtol=1e-3, atol=1e-3)


def test_names_of_states_and_tiers():
    assert stagecraft.AGENT_STATES == ["walking", "holding", "travelling", "arrived", "fleeing", "knocked_down", "pooled"]
    assert stagecraft.TIERS == ["full", "simulated", "stub"]


def test_snapshot_and_restore_repeat_the_run(street):
    sim = stagecraft.Simulation(street, "crosswalk-rush")
    sim.step(60)
    snap = sim.snapshot()
    assert snap.frame == 60
    sim.step(60)
    straight = sim.state_digest()
    agents = sim.agents()
    sim.restore(snap)
    assert sim.frame == 60
    sim.step(60)
    assert sim.state_digest() == straight
    assert sim.agents().tobytes() == agents.tobytes()
    # Into a fresh simulation of the same scenario too.
    fresh = stagecraft.Simulation(street, "crosswalk-rush")
    fresh.restore(snap)
    fresh.step(60)
    assert fresh.state_digest() == straight


def test_a_snapshot_of_another_scenario_is_refused(street):
    sim = stagecraft.Simulation(street, "crosswalk-rush")
    other = stagecraft.Simulation(street, "panic-flee")
    other.step(10)
    before = sim.state_digest()
    with pytest.raises(stagecraft.StagecraftError) as raised:
        sim.restore(other.snapshot())
    assert "cannot be restored" in str(raised.value)
    assert sim.state_digest() == before and sim.frame == 0


def test_events_equal_the_cli_event_log(cli, street, tmp_path):
    events_file = tmp_path / "events.json"
    code, _ = cli("simulate", example("street-block"), "--scenario", "crosswalk-rush", "--frames", 120, "--events", events_file, "--json")
    assert code == 0
    expected = json.loads(events_file.read_text())["events"]
    sim = stagecraft.Simulation(street, "crosswalk-rush")
    sim.step(120)
    events = sim.events()
    assert len(events) == len(expected) > 0
    assert events == expected
    assert {"admitted", "realized"} <= {e["kind"] for e in events}


def test_unknown_scenarios_are_named(street):
    with pytest.raises(stagecraft.StagecraftError) as raised:
        stagecraft.Simulation(street, "nope")
    assert str(raised.value) == "the project has no scenario `nope`; its scenarios: crosswalk-rush, panic-flee"


def test_bench_worlds():
    sim = stagecraft._bench_world("two_way", 200)
    assert len(sim) == 200 and len(sim.agents()) == 200
    sim.step(2)
    assert sim.frame == 2
    assert sim._timed_steps(3) > 0
    with pytest.raises(stagecraft.StagecraftError):
        stagecraft._bench_world("nope", 10)


def _street_copy(root):
    """The street-block example copied under `root` as the repository lays it out (its shared
    `../../assets` beside it, a `.git` marker so they stay inside one repository)."""
    project = root / "projects" / "street-block"
    shutil.copytree(example("street-block"), project)
    shutil.copytree(REPO / "assets", root / "assets")
    (root / ".git").mkdir()
    return project


def _prop_nearest_walkers(project, frames):
    """The placed prop whose centre the walkers of `crosswalk-rush` pass closest to in `frames`
    frames of the base world: (its row of `generate(overrides=False)`, that distance in m)."""
    placed = project.generate(overrides=False).placements
    placed = placed[placed["kind"] == "PlacedObjects"]
    sim = stagecraft.Simulation(project, "crosswalk-rush")
    nearest = np.full(len(placed), np.inf)
    for _ in range(frames // 10):
        sim.step(10)
        agents = sim.agents()
        dx = placed["x_m"][:, None] - agents["x"][None, :]
        dy = placed["y_m"][:, None] - agents["y"][None, :]
        nearest = np.minimum(nearest, np.hypot(dx, dy).min(axis=1))
    row = int(nearest.argmin())
    return placed[row], float(nearest[row])


def test_a_simulation_runs_over_the_overridden_world_as_the_cli(cli, tmp_path):
    # The scenario's recipe is generated with the project's override sets, as `stagecraft
    # simulate`, `generate` and the editor generate it (stagecraft-io builds all these worlds).
    project_dir = _street_copy(tmp_path)
    base = stagecraft.Project.open(project_dir)
    frames = 300
    prop, distance_m = _prop_nearest_walkers(base, frames)
    # The lamp by the south walkway (0.15 m radius) becomes a bench (0.9 m) in the walkers' way: a
    # walker's body (0.30 m radius) clears a blocker by its radius plus the body radius, so the
    # nearest walker passes clear of the lamp but not of a bench.
    body_radius_m = 0.30
    assert (prop["variant"], round(float(prop["x_m"]), 2), round(float(prop["y_m"]), 2)) == ("lamp", 6.67, -4.87)
    assert 0.15 + body_radius_m < distance_m < 0.9 + body_radius_m
    code, base_report = cli("simulate", project_dir, "--scenario", "crosswalk-rush", "--frames", frames, "--every", 0, "--json")
    assert code == 0
    (project_dir / "overrides" / "street-block-edits.overrides.ron").write_text(
        "OverrideSet(\n    schema: 3,\n    id: \"street-block-edits\",\n    recipe: \"street-block\",\n"
        "    base_seed: Some(7),\n    base_revision: \"\",\n    overrides: [\n        Override(\n"
        f"            stage: 2,\n            target: {int(prop['id'])},\n            precedence: 0,\n"
        "            base: \"\",\n            action: Replace(variant: \"bench\"),\n        ),\n    ],\n"
        "    mutations: [],\n)\n"
    )
    edited = stagecraft.Project.open(project_dir)
    generated = edited.generate()
    placed = generated.placements
    assert placed[placed["id"] == prop["id"]]["variant"].tolist() == ["bench", "bench"]
    code, report = cli("simulate", project_dir, "--scenario", "crosswalk-rush", "--frames", frames, "--every", 0, "--json")
    assert code == 0
    sim = stagecraft.Simulation(edited, "crosswalk-rush")
    sim.step(frames)
    assert sim.state_digest() == report["state_digest"]
    assert report["bundle_digest"] == generated.digests["street-block"]
    assert report["bundle_digest"] != base_report["bundle_digest"]
    assert report["state_digest"] != base_report["state_digest"]


def test_any_thread_count_steps_to_the_same_digest(street):
    digests = []
    for threads in (1, 3, None):
        sim = stagecraft.Simulation(street, "crosswalk-rush", threads=threads)
        sim.step(120)
        digests.append(sim.state_digest())
    assert digests[0] == digests[1] == digests[2]
    with pytest.raises(stagecraft.StagecraftError, match="threads must be at least 1"):
        stagecraft.Simulation(street, "crosswalk-rush", threads=0)


def test_simulations_of_one_project_share_its_content_and_give_fresh_digests():
    # A project keeps each scenario's generated content for its next Simulation (a sweep's runs
    # differ only in the world's seed): every run's digest equals one over a freshly opened project.
    project = stagecraft.Project.open(example("street-lifecycle"))
    shared = []
    for seed in (3, 4, 3):
        sim = stagecraft.Simulation(project, "retire-reuse", seed=seed)
        sim.step(60)
        shared.append(sim.state_digest())
    fresh = []
    for seed in (3, 4):
        sim = stagecraft.Simulation(stagecraft.Project.open(example("street-lifecycle")), "retire-reuse", seed=seed)
        sim.step(60)
        fresh.append(sim.state_digest())
    assert shared == [fresh[0], fresh[1], fresh[0]]
    assert fresh[0] != fresh[1]
