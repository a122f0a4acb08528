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

capture projects/street-block screenshots/editor-shell.png
# The generated street block with pedestrians walking: the Timeline opened at frame 240 (12 s).
capture projects/street-block screenshots/viewport-street-block.png --frame 240

python3 scripts/check_png_nonblank.py screenshots/*.png
# The 3D viewport itself must have rendered, not just the panels around it.
python3 scripts/check_viewport_png.py screenshots/viewport-street-block.png
