#!/usr/bin/env bash
# External check of `stagecraft export`: cooks every example project, exports it as glTF and
# USD, then
#   - runs the Khronos glTF validator (npm `gltf-validator`, installed under the target folder)
#     on each .glb and requires 0 errors and 0 warnings (infos and hints allowed), and checks
#     that each instanced node's instance count equals its ids and that the instances per stage
#     equal the bundle's element counts (`stagecraft verify --json`);
#   - opens each .usda with Pixar's USD (PyPI `usd-core`), checks Y up and metres, counts the
#     PointInstancer instances and compares their ids with the .glb's.
# Exits non-zero on any failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
bin="$target/debug/stagecraft"
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --workspace)
fi

tools="$target/check-gltf"
if [ ! -f "$tools/node_modules/gltf-validator/package.json" ]; then
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error gltf-validator >&2
fi
venv="$("$root/scripts/ci-venv.sh" usd-core)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for project in "$root"/projects/*/; do
    name="$(basename "$project")"
    out="$work/$name"
    "$bin" cook "$project" --out "$out.bundle" --cache "$work/cache" > /dev/null
    "$bin" verify "$out.bundle" --json > "$out.verify.json"
    "$bin" export "$out.bundle" --project "$project" --format gltf --out "$out.glb" --json \
        > "$out.gltf.json"
    "$bin" export "$out.bundle" --project "$project" --format usd --out "$out.usda" --json \
        > "$out.usd.json"
    if ! node "$root/scripts/checks/gltf_check.js" "$tools/node_modules/gltf-validator" \
        "$out.glb" "$out.gltf.json" "$out.verify.json" "$out.ids.json"; then
        echo "check-gltf: $name: glTF check failed" >&2
        status=1
        continue
    fi
    if ! "$venv/bin/python" "$root/scripts/checks/usd_check.py" "$out.usda" "$out.ids.json"; then
        echo "check-gltf: $name: USD check failed" >&2
        status=1
    fi
done
if [ "$status" -eq 0 ]; then
    echo "check-gltf: every example's glTF validates clean and its USD opens with matching ids"
fi
exit "$status"
