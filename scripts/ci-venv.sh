#!/usr/bin/env bash
# Prints the path of the shared Python virtual environment the external checks use, creating it
# (target/ci-venv, git-ignored with target/) and installing the named PyPI packages into it.
#   venv=$(scripts/ci-venv.sh usd-core pedpy)   then   "$venv/bin/python" …
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CARGO_TARGET_DIR:-$PWD/target}/ci-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
fi
if [ "$#" -gt 0 ]; then
    "$venv/bin/python" -m pip install -q "$@" >&2
fi
echo "$venv"
