#!/usr/bin/env bash
# Builds the editor and captures PNG screenshots of the real window (glow renderer, Mesa) under
# Xvfb into screenshots/, then checks that none is blank.
#
# Needs: xvfb (xvfb-run), libgl1-mesa-dri libegl1 libgl1 libxkbcommon-x11-0, python3.
# STAGECRAFT_PROFILE=debug uses a debug build (faster to build locally); release by default.
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${STAGECRAFT_PROFILE:-release}"
if [ "$profile" = release ]; then
    cargo build --release -p stagecraft-editor
else
    cargo build -p stagecraft-editor
fi
binary="${CARGO_TARGET_DIR:-target}/$profile/stagecraft"
mkdir -p screenshots

capture() {
    local project="$1" output="$2"
    shift 2
    echo "== $project $* -> $output"
    # Software GL keeps the capture independent of any GPU on the machine.
    LIBGL_ALWAYS_SOFTWARE=1 timeout 120 \
        xvfb-run -a -s "-screen 0 1280x800x24" "$binary" "$project" --screenshot "$output" "$@"
}

# Idle CPU of the real window: start the editor on a project, let it open and generate, then
# measure the CPU time it uses over IDLE_SECONDS with no input. The editor repaints only on
# input, playback, background results and file events, so this is near zero; a value over
# IDLE_CPU_LIMIT percent of one core fails the script.
idle_cpu() {
    local project="$1" seconds="${IDLE_SECONDS:-10}" limit="${IDLE_CPU_LIMIT:-10}"
    local state
    state="$(mktemp -d)"
    exec 3>"$state/display"
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
    local xvfb=$!
    exec 3>&-
    for _ in $(seq 50); do [ -s "$state/display" ] && break; sleep 0.1; done
    local display
    display=":$(head -n1 "$state/display")"
    # A private data folder, so the run neither reads nor writes the user's saved layout.
    DISPLAY="$display" XDG_DATA_HOME="$state" LIBGL_ALWAYS_SOFTWARE=1 \
        "$binary" "$project" >"$state/log" 2>&1 &
    local editor=$!
    sleep "${IDLE_SETTLE_SECONDS:-8}"
    local ticks_per_s before after
    ticks_per_s="$(getconf CLK_TCK)"
    before="$(awk '{print $14 + $15}' "/proc/$editor/stat")"
    sleep "$seconds"
    after="$(awk '{print $14 + $15}' "/proc/$editor/stat")"
    kill "$editor" 2>/dev/null || true
    wait "$editor" 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
    local percent
    percent="$(awk -v d="$((after - before))" -v t="$ticks_per_s" -v s="$seconds" \
        'BEGIN { printf "%.1f", 100 * d / (t * s) }')"
    echo "idle CPU of the editor on $project: $percent % of one core over $seconds s (software GL)"
    rm -rf "$state"
    awk -v p="$percent" -v l="$limit" 'BEGIN { exit !(p <= l) }' || {
        echo "the idle editor uses more than $limit % of a core" >&2
        return 1
    }
}

capture projects/street-block screenshots/editor-shell.png
# The generated street block with pedestrians walking: the Timeline opened at frame 240 (12 s).
capture projects/street-block screenshots/viewport-street-block.png --frame 240
# The tactical mission: mission cells by role and the streaming rings, with their legend.
capture projects/tactical-mission screenshots/viewport-tactical-mission.png --tab viewport
# The tactical mission's daily preview (PCG_Tactical, 2026-05-23, seed 424242).
capture projects/tactical-mission screenshots/daily-tactical-mission.png --tab daily
# The pine clearing with its overrides applied (locks, a tombstone, a moved tree, an added rock, an
# exclusion, a harvested and a regrown tree) and the Viewport's authoring tool row.
capture projects/pine-clearing screenshots/viewport-pine-clearing.png --tab viewport
# The street block's recipe graph, fitted to the tab on open.
capture projects/street-block screenshots/recipe-graph-street-block.png --tab recipe-graph
# A subrecipe stage, and a second output of its one child run, wired through typed pins.
capture projects/sidewalk-outputs screenshots/recipe-graph-sidewalk-outputs.png --tab recipe-graph
# Serial stepping, mid-recipe: the street block stepped to stage 2 of 3 (F10 / Shift+F10 in the
# editor), so the Viewport draws the block and the scatter's accepted props (boxes) with its
# rejected candidates (small markers, by reason) before select-and-place orients them; the corner
# says "step 2/3 · 2 Scatter props on sidewalks".
capture projects/street-block screenshots/viewport-stepping-street-block.png --tab viewport \
    --step 2 --layers grid,routes,rejected
# Lock-and-isolate stage inputs: the street block's scatter (stage 2) isolated with its inputs
# frozen (F9 or the graph node's menu), so the Viewport draws that stage's output alone and the
# toolbar says "isolated: stage 2 · inputs frozen at <digest>".
capture projects/street-block screenshots/viewport-isolate-street-block.png --tab viewport \
    --isolate 2 --layers grid,rejected
# The rejection heatmap of the pine clearing's scatter: rejected candidates per bin of cells over
# the region (the clearing and path keep-outs and the thinning conflicts), with its legend of
# counts per colour.
capture projects/pine-clearing screenshots/viewport-heatmap-pine-clearing.png --tab viewport \
    --heatmap rejections --layers grid
# The street-lifecycle example's "away and back" clip at 7.5 s: the Population tab's per-source
# counts, why each source is (not) spawning, and the lifecycle counters.
capture projects/street-lifecycle screenshots/population-street-lifecycle.png --frame 137 --tab population
# The crosswalk demo at 15 s: ping-pong crossers queued at the kerb and crossing, the signal's stop
# bars, the hazard vehicle and the crosswalk overlays.
capture projects/crosswalk-demo screenshots/viewport-crosswalk-demo.png --frame 300 --tab viewport
# The Motion tab on the street block at 12 s: updated / skipped, avoidance processed / deferred,
# tiers, forced Full and the governor's estimate against its budget, plotted per frame.
capture projects/street-block screenshots/motion-street-block.png --frame 240 --tab motion
# The street block's panic-flee scenario 1.2 s after the panic (frame 200), looking at its centre
# with only the grid and the Panic layer: panicked walkers under their cones, flee ribbons along
# the sidewalks to the portals and to the full shop door (crimson post).
capture projects/street-block screenshots/viewport-panic-flee.png --scenario panic-flee --frame 224 \
    --tab viewport --look-at 2,3,15 --layers grid,panic
# The streaming crowd at 15 s, looking at the east edge of the loaded ring (the camera is at
# x = 0 m): inside the green outline walkers stand on Full (Hero) discs, outside it their
# requests are demoted one rung to Simulated (Medium) and crossed out.
capture projects/streaming-crowd screenshots/viewport-streaming-ring.png --scenario ring-walk \
    --frame 300 --tab viewport --look-at 40,0,14 --layers grid,tiers
# The crowd governor at 15 s: 400 walkers within the camera's Full band ask for 14 ms, the governor
# demotes 300 of them to fit 8 ms; the Motion tab plots its demotions and the estimate against the
# budget per frame.
capture projects/crowd-governor screenshots/motion-crowd-governor.png --scenario governor \
    --frame 300 --tab motion
# The HLOD donut following the camera: the same run at 15 s seen from farther out, the camera's
# one-cell loaded ring (green outline) inside the 16 HLOD cells planned around it this step (blue
# outlines; cells pruned over budget would be crossed in red). The legend gives cells and MB.
capture projects/streaming-crowd screenshots/viewport-hlod-donut.png --scenario ring-walk \
    --frame 300 --tab viewport --look-at 0,-10,90 --layers grid,tiers
# The Crossings tab on the crosswalk demo at 20 s: the signal's phase and time in phase, the gate,
# the crossers per phase and the queues, groups, queries and the liveness counters, plotted.
capture projects/crosswalk-demo screenshots/crossings-crosswalk-demo.png --frame 400 --tab crossings
# The camera drives the tiers: orbiting a point 38 m west of the crosswalk (past the 32 m at which Full is left), the walking crossers
# are Simulated (smaller bodies on teal discs) while the queued and crossing ones stay forced
# Full (full-size bodies on yellow discs).
capture projects/crosswalk-demo screenshots/viewport-camera-tiers.png --frame 400 --tab viewport \
    --look-at -38,0,44 --layers grid,routes,tiers,camera-tiers
# The walk phase at 7 s, close up: crossers in magenta, the queue in orange, and the group's
# yellow follower → leader lines (one follower still behind, regrouping).
capture projects/crosswalk-demo screenshots/viewport-group-crossing.png --frame 140 --tab viewport \
    --look-at 0,0,7 --layers grid,routes
# The Inspector on the crosswalk demo's crossing settings (issue 27): lanes, queue rows, the
# signal timings, the liveness thresholds, groups and the hazard vehicle, each row from the
# runtime's section schema with its unit, range and a reset to its default.
capture projects/crosswalk-demo screenshots/inspector-crossings.png --scenario ping-pong \
    --tab inspector --inspect crossings

python3 scripts/check_png_nonblank.py screenshots/*.png
# The 3D viewport itself must have rendered, not just the panels around it.
python3 scripts/check_viewport_png.py screenshots/viewport-street-block.png
python3 scripts/check_viewport_png.py screenshots/viewport-tactical-mission.png
python3 scripts/check_viewport_png.py screenshots/viewport-pine-clearing.png
python3 scripts/check_viewport_png.py screenshots/viewport-panic-flee.png
python3 scripts/check_viewport_png.py screenshots/viewport-streaming-ring.png
python3 scripts/check_viewport_png.py screenshots/viewport-hlod-donut.png
python3 scripts/check_viewport_png.py screenshots/viewport-camera-tiers.png
python3 scripts/check_viewport_png.py screenshots/viewport-group-crossing.png
python3 scripts/check_viewport_png.py screenshots/viewport-stepping-street-block.png
python3 scripts/check_viewport_png.py screenshots/viewport-heatmap-pine-clearing.png
python3 scripts/check_viewport_png.py screenshots/viewport-isolate-street-block.png

idle_cpu projects/street-block
