#!/usr/bin/env bash
# Dependency policy: `cargo deny check` (advisories, licences, bans, sources; deny.toml lists any
# accepted advisory with its reason) and the declared rust-version against the dependencies' own.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== rust-version"
cargo metadata --format-version 1 --locked | python3 scripts/checks/msrv.py

if ! command -v cargo-deny >/dev/null 2>&1; then
    echo "== installing cargo-deny"
    cargo install --locked cargo-deny@0.20.2 >/dev/null 2>&1 ||
        cargo install --locked cargo-deny
fi

# The RustSec advisory database is a git repository on GitHub. Where GitHub cannot be reached,
# a local copy named by STAGECRAFT_ADVISORY_DB is used; with neither, the advisories are NOT
# checked and the run says so loudly (licences, bans and sources still are).
db_dir="${CARGO_HOME:-$HOME/.cargo}/advisory-dbs"
if [ -n "${STAGECRAFT_ADVISORY_DB:-}" ]; then
    # cargo-deny 0.20 keeps the default database in this folder (a hash of its URL).
    local_db="$db_dir/advisory-db-3157b0e258782691"
    mkdir -p "$db_dir"
    rm -rf "$local_db"
    git clone -q "$STAGECRAFT_ADVISORY_DB" "$local_db"
    echo "== cargo deny check (advisory database: $STAGECRAFT_ADVISORY_DB)"
    cargo deny --locked --offline check --hide-inclusion-graph
elif timeout 30 git ls-remote -q https://github.com/rustsec/advisory-db HEAD >/dev/null 2>&1; then
    echo "== cargo deny check"
    cargo deny --locked check --hide-inclusion-graph
else
    echo "!! WARNING: github.com is unreachable from this machine: the RustSec advisories are NOT"
    echo "!! checked here (set STAGECRAFT_ADVISORY_DB to a copy of rustsec/advisory-db to check them)."
    echo "== cargo deny check licenses bans sources"
    cargo deny --locked check --hide-inclusion-graph licenses bans sources
fi
