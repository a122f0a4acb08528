#!/usr/bin/env bash
# External check of the JSON that leaves the tool, with Python's `jsonschema` (not our code):
# cooks every example project, exports each bundle with `stagecraft export --format json` and
# validates the export against docs/schemas/bundle.schema.json (and its placement count against
# the manifest's); runs `simulate --events` (and `--json`) on every example scenario and
# validates the event log against docs/schemas/events.schema.json.
# Needs the debug binary (`cargo test --workspace` builds it); honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin="${CARGO_TARGET_DIR:-$root/target}/debug/stagecraft"
[ -x "$bin" ] || cargo build --workspace --quiet
venv=$(scripts/ci-venv.sh jsonschema)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A copy laid out like the repository (projects/ beside assets/, a repository marker), so each
# project's `../../assets` resolves and nothing the cook writes lands in the work tree.
mkdir -p "$work/repo/.git"
cp -r projects assets "$work/repo/"
bundles=()
for project in "$work"/repo/projects/*/; do
    name=$(basename "$project")
    "$bin" cook "$project" --out "$work/$name.bundle" --cache "$work/cache" >"$work/$name.cook.txt" \
        || { cat "$work/$name.cook.txt"; exit 1; }
    "$bin" export "$work/$name.bundle" --format json --out "$work/$name.json"
    bundles+=("$work/$name.json")
done

events=()
for scenario in projects/*/scenarios/*.scenario.ron; do
    project=$(dirname "$(dirname "$scenario")")
    id=$(basename "$scenario" .scenario.ron)
    out="$work/$(basename "$project").$id"
    "$bin" simulate "$project" --scenario "$id" --frames 300 --json \
        --events "$out.events.json" >"$out.report.json" || { cat "$out.report.json"; exit 1; }
    events+=("$out.events.json")
done

"$venv/bin/python" - "$root/docs/schemas" "${#bundles[@]}" "${bundles[@]}" "${events[@]}" <<'PY'
import json, sys
from jsonschema import Draft202012Validator

schemas, count, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
bundle_schema = json.load(open(f"{schemas}/bundle.schema.json"))
events_schema = json.load(open(f"{schemas}/events.schema.json"))
Draft202012Validator.check_schema(bundle_schema)
Draft202012Validator.check_schema(events_schema)
failed = 0

def validate(schema, path):
    global failed
    document = json.load(open(path))
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=lambda e: list(e.path))
    for error in errors[:5]:
        print(f"{path}: {'/'.join(map(str, error.path))}: {error.message}")
    failed += bool(errors)
    return document

for path in files[:count]:
    bundle = validate(bundle_schema, path)
    listed = {(r["id"], s["id"]): s["elements"] for r in bundle["manifest"]["recipes"] for s in r["stages"]}
    for product in bundle["products"]:
        data = product["product"]
        if data["kind"] == "Placements":
            n = sum(len(layer["placements"]) for layer in data["layers"])
        elif data["kind"] == "PlacedObjects":
            n = len(data["objects"])
        else:
            continue
        if n != listed[(product["recipe"], product["stage"])]:
            print(f"{path}: stage {product['stage']}: {n} placements, the manifest lists {listed[(product['recipe'], product['stage'])]}")
            failed += 1
    print(f"{path}: valid, {len(bundle['products'])} products")

for path in files[count:]:
    log = validate(events_schema, path)
    positioned = sum(e["position_m"] is not None for e in log["events"])
    print(f"{path}: valid, {len(log['events'])} events ({positioned} with a position)")

if failed:
    sys.exit(f"{failed} JSON documents do not match their schema")
print(f"{len(files)} JSON documents valid against docs/schemas")
PY
