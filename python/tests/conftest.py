"""Shared fixtures: the repository's example projects and the `stagecraft` command line built by
`cargo build --workspace` (`$STAGECRAFT_BIN`, else `$CARGO_TARGET_DIR/debug/stagecraft`, else
`target/debug/stagecraft`), which the parity tests compare the module with."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PROJECTS = REPO / "projects"
EXAMPLES = sorted(p.name for p in PROJECTS.iterdir() if (p / "stagecraft.ron").is_file())


def cli_path():
    if os.environ.get("STAGECRAFT_BIN"):
        return pathlib.Path(os.environ["STAGECRAFT_BIN"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "stagecraft"


@pytest.fixture(scope="session")
def cli():
    """Runs `stagecraft ARGS… --json` and returns (exit code, parsed JSON)."""
    path = cli_path()
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `cargo build --workspace` first (or set STAGECRAFT_BIN)")

    def run(*args):
        done = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)
        try:
            return done.returncode, json.loads(done.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"stagecraft {' '.join(map(str, args))}: {done.stdout}{done.stderr}")

    return run


def example(name):
    return PROJECTS / name
