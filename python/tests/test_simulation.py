"""`Simulation`: stepping, Motion Frames as NumPy, events, snapshots."""

import json

import numpy as np
import pytest

import stagecraft
from conftest import example

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
