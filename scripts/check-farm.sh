#!/usr/bin/env bash
# The farm (docs/farm.md): `stagecraft.farm` on a local two-worker Ray cluster — tiled cooks of
# pine-clearing and the 16 km² forest equal to the single-process cook byte for byte, a worker
# killed mid-task retried to the same bytes, a damaged cache entry rebuilt, a 200-seed sweep of
# street-lifecycle/retire-reuse whose digests are the CLI's (python/farm_tests) — and the CI-matrix
# way: the shard commands of docs/farm.md's GitHub Actions example, run one after the other,
# assembling the same bundle. Installs ray, pandas, pyarrow and pytest into the CI venv and the
# module the way scripts/check-python.sh does (sharing its build folder).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
export STAGECRAFT_BIN="${STAGECRAFT_BIN:-$target/debug/stagecraft}"
if [ ! -x "$STAGECRAFT_BIN" ]; then
    echo "== building the command line ($STAGECRAFT_BIN is missing)"
    cargo build --workspace --bins
fi

echo "== the CI-matrix way: docs/farm.md's shard commands"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The example's matrix and commands, read from the document itself so they cannot drift.
shards=$(sed -n 's/^ *shard: \[\(.*\)\]$/\1/p' docs/farm.md | tr -d ' ')
count=$(echo "$shards" | tr ',' '\n' | wc -l)
for k in ${shards//,/ }; do
    "$STAGECRAFT_BIN" cook projects/forest-16km2 --tile-cells 100 --shard "$k/$count" \
        --cache "$scratch/cache" >/dev/null
done
"$STAGECRAFT_BIN" cook projects/forest-16km2 --tile-cells 100 --cache "$scratch/cache" \
    --out "$scratch/assembled" >/dev/null
"$STAGECRAFT_BIN" cook projects/forest-16km2 --cache "$scratch/single-cache" \
    --out "$scratch/single" >/dev/null
diff -r "$scratch/assembled" "$scratch/single"
echo "   $count shards of forest-16km2 assembled byte-identical to the single cook"

venv=$(scripts/ci-venv.sh pytest numpy pandas pyarrow "ray>=2.9")
export CARGO_TARGET_DIR="$target/python"
export PYO3_PYTHON="$venv/bin/python"
echo "== pip install ./python"
start=$(date +%s)
"$venv/bin/pip" install -q ./python
echo "== the module built and installed in $(($(date +%s) - start)) s"

echo "== pytest python/farm_tests (a local Ray cluster of 2 workers)"
start=$(date +%s)
RAY_DEDUP_LOGS=0 "$venv/bin/python" -m pytest python/farm_tests -q -p no:cacheprovider
echo "== the farm tests ran in $(($(date +%s) - start)) s"
