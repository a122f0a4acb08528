#!/usr/bin/env bash
# The Python module (python/, PyO3 + maturin, its own Cargo workspace): format and lint its crate,
# build and install it with `pip install ./python` (release, as a user installs it) into the shared
# CI venv, and run its pytest suite, which compares every digest with the `stagecraft` command line
# that `cargo test --workspace` built. Prints how long the module took to build.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
export STAGECRAFT_BIN="${STAGECRAFT_BIN:-$target/debug/stagecraft}"
if [ ! -x "$STAGECRAFT_BIN" ]; then
    echo "== building the command line ($STAGECRAFT_BIN is missing)"
    cargo build --workspace --bins
fi

venv=$(scripts/ci-venv.sh pytest numpy)
# The module's builds live beside the workspace's, in their own folder (another Cargo workspace).
export CARGO_TARGET_DIR="$target/python"
export PYO3_PYTHON="$venv/bin/python"

echo "== cargo fmt --check (python/)"
cargo fmt --manifest-path python/Cargo.toml --check
echo "== cargo clippy -D warnings (python/)"
cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings

echo "== pip install ./python"
start=$(date +%s)
"$venv/bin/pip" install -q ./python
echo "== the module built and installed in $(($(date +%s) - start)) s"

echo "== pytest python/tests"
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
