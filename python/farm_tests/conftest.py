"""Fixtures of the farm tests (`scripts/check-farm.sh`): a local Ray cluster of two workers for
the whole session, the `stagecraft` command line (`$STAGECRAFT_BIN`, else the debug build) and the
example projects."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PROJECTS = REPO / "projects"


def binary():
    if os.environ.get("STAGECRAFT_BIN"):
        return os.environ["STAGECRAFT_BIN"]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "stagecraft")


@pytest.fixture(scope="session")
def cli():
    """Runs `stagecraft ARGS…` and returns its parsed JSON (the command must succeed)."""

    def run(*args):
        done = subprocess.run([binary(), *map(str, args)], capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    return run


@pytest.fixture(scope="session")
def ray_cluster():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(autouse=True)
def stagecraft_bin(monkeypatch):
    monkeypatch.setenv("STAGECRAFT_BIN", binary())
