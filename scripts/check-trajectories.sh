#!/usr/bin/env bash
# External check of `stagecraft simulate --trajectories`: the street-block example's crosswalk
# rush written as JuPedSim's SQLite trajectory database, loaded with PedPy's JuPedSim loader
# (trajectory and walkable area), and PedPy's density and speed profiles computed from it
# (scripts/checks/pedpy_check.py asserts their values and the counts the CLI reported).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
bin="$target/debug/stagecraft"
if [ ! -x "$bin" ]; then
    cargo build --workspace --bins >&2
fi
venv=$(scripts/ci-venv.sh pedpy)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" simulate projects/street-block --scenario crosswalk-rush --frames 600 \
    --trajectory-every 2 --trajectories "$work/rush.sqlite" --json > "$work/report.json"
"$venv/bin/python" scripts/checks/pedpy_check.py "$work/rush.sqlite" "$work/report.json"
