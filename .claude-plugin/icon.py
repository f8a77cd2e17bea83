#!/usr/bin/env python3
"""Draw the plugin's listing icon, .claude-plugin/icon.png: two nodes with a gap between them and
three dots crossing it (a synapse), each node branching out to three smaller ones.

Claude Code's `plugin validate` (2.1.332) asks for a square PNG of 512 to 2048 px under 2 MB at
.claude-plugin/icon.png. Standard library only, so anyone can redraw it:
`python3 .claude-plugin/icon.py`.
Every shape is a signed distance, turned into coverage over one pixel, so edges are smooth without
supersampling; few flat colours keep the file small.
"""

import math
import struct
import zlib
from pathlib import Path

SIZE = 512
BACKGROUND = (23, 32, 51)
BRANCH = (67, 86, 130)
AMBER = (242, 182, 74)
TEAL = (92, 200, 192)
SPARK = (247, 227, 176)

LEFT, RIGHT = (170.0, 256.0), (342.0, 256.0)
NODE_RADIUS = 62.0
TIPS = [(-92.0, -106.0), (-112.0, 0.0), (-92.0, 106.0)]


def circle(x, y, centre, radius):
    return math.hypot(x - centre[0], y - centre[1]) - radius


def segment(x, y, a, b, half_width):
    ax, ay = x - a[0], y - a[1]
    bx, by = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, (ax * bx + ay * by) / (bx * bx + by * by)))
    return math.hypot(ax - bx * t, ay - by * t) - half_width


def shapes():
    """(distance function, colour), drawn in order, later over earlier."""
    out = []
    for centre, colour, side in ((LEFT, AMBER, 1.0), (RIGHT, TEAL, -1.0)):
        for dx, dy in TIPS:
            tip = (centre[0] + dx * side, centre[1] + dy)
            out.append((lambda x, y, c=centre, t=tip: segment(x, y, c, t, 7.0), BRANCH))
            out.append((lambda x, y, t=tip: circle(x, y, t, 17.0), colour))
        out.append((lambda x, y, c=centre: circle(x, y, c, NODE_RADIUS), colour))
    for dy in (-30.0, 0.0, 30.0):
        out.append((lambda x, y, d=dy: circle(x, y, (256.0, 256.0 + d), 8.0), SPARK))
    return out


def pixels():
    drawn = shapes()
    rows = []
    for py in range(SIZE):
        row = bytearray([0])  # filter type 0: the rows are stored as they are
        y = py + 0.5
        for px in range(SIZE):
            x = px + 0.5
            r, g, b = BACKGROUND
            for distance, colour in drawn:
                cover = min(1.0, max(0.0, 0.5 - distance(x, y)))
                if cover > 0.0:
                    r += (colour[0] - r) * cover
                    g += (colour[1] - g) * cover
                    b += (colour[2] - b) * cover
            row += bytes((round(r), round(g), round(b)))
        rows.append(bytes(row))
    return b"".join(rows)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png():
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels(), 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    target = Path(__file__).with_name("icon.png")
    target.write_bytes(png())
    print(f"{target}: {target.stat().st_size} bytes")
