#!/usr/bin/env python3
"""Fails when the 3D viewport region of an editor screenshot is blank.

The region is where the default layout puts the Viewport tab's 3D area in a 1280x800 window
(right half, below its toolbar), trimmed so the text drawn over the 3D area (counts at the top
left, the agent-state legend at the bottom) is left out: only the GL rendering is measured. A
viewport that did not render is one flat panel colour there; a rendered street block with agents
has a luminance variance in the thousands.

Pure standard library (it reuses the PNG reader of check_png_nonblank.py). Usage:
    check_viewport_png.py FILE.png [FILE.png ...]
"""

import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_png_nonblank import read_png  # noqa: E402

# Fractions of the window: left, right, top, bottom.
REGION = (0.60, 0.98, 0.20, 0.55)
MIN_VARIANCE = 100.0   # luminance variance (0-255 scale) over the region
MIN_COLOURS = 24       # distinct colours in the region


def check(path):
    width, height, channels, rows = read_png(path)
    left, right = int(REGION[0] * width), int(REGION[1] * width)
    top, bottom = int(REGION[2] * height), int(REGION[3] * height)
    values, colours = [], set()
    for y in range(top, bottom, 2):
        row = rows[y]
        for x in range(left, right, 2):
            pixel = row[x * channels:x * channels + min(channels, 3)]
            colours.add(bytes(pixel))
            if channels >= 3:
                values.append(0.2126 * pixel[0] + 0.7152 * pixel[1] + 0.0722 * pixel[2])
            else:
                values.append(float(pixel[0]))
    if not values:
        return "the viewport region is empty", 0.0
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    if variance < MIN_VARIANCE:
        return f"luminance variance {variance:.1f} < {MIN_VARIANCE}", variance
    if len(colours) < MIN_COLOURS:
        return f"only {len(colours)} colours", variance
    return None, variance


def main(paths):
    if not paths:
        print("usage: check_viewport_png.py FILE.png ...", file=sys.stderr)
        return 2
    failed = False
    for path in paths:
        try:
            problem, variance = check(path)
        except (OSError, ValueError, IndexError, zlib.error) as error:
            problem, variance = str(error), 0.0
        if problem:
            failed = True
            print(f"BLANK VIEWPORT {path}: {problem}")
        else:
            print(f"ok    viewport of {path} (luminance variance {variance:.0f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
