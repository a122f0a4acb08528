#!/usr/bin/env python3
"""Fails when a PNG screenshot is blank: unreadable, tiny, one flat colour, or nearly so.

Pure standard library (zlib + struct), so CI needs no imaging package. Usage:
    check_png_nonblank.py FILE.png [FILE.png ...]
"""

import struct
import sys
import zlib

MIN_COLOURS = 16          # a real editor frame has text, panels and highlights
MIN_NON_BACKGROUND = 0.01  # at least 1 % of pixels differ from the most common colour


def read_png(path):
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    offset, chunks, header = 8, [], None
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour_type}, interlace {interlace})")
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous, position = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[position]
        line = bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check(path):
    width, height, channels, rows = read_png(path)
    if width < 64 or height < 64:
        return f"{width}x{height} is too small"
    counts = {}
    for row in rows[::2]:
        for x in range(0, len(row), channels * 2):
            pixel = row[x:x + min(channels, 3)]
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    if len(counts) < MIN_COLOURS:
        return f"only {len(counts)} colours"
    if 1 - background / total < MIN_NON_BACKGROUND:
        return f"{100 * background / total:.1f} % of pixels are one colour"
    return None


def main(paths):
    if not paths:
        print("usage: check_png_nonblank.py FILE.png ...", file=sys.stderr)
        return 2
    failed = False
    for path in paths:
        try:
            problem = check(path)
        except (OSError, ValueError, zlib.error) as error:
            problem = str(error)
        if problem:
            failed = True
            print(f"BLANK {path}: {problem}")
        else:
            print(f"ok    {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
