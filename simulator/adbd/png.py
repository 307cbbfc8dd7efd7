"""A drawn screenshot for `screencap -p` when the simulated phone has no picture of its own.

Grey outlines of every element on a white screen: enough for a report to show where things
were. Written with zlib alone so the server needs no imaging library.
"""

from __future__ import annotations

import re
import struct
import zlib

_BOUNDS = re.compile(r'bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"')
_BACKGROUND = 0xFF
_OUTLINE = 0x80


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def draw_outlines(width: int, height: int, dump_xml: str) -> bytes:
    """A greyscale PNG of the given size with the outline of every node of a uiautomator dump."""
    rows = [bytearray([_BACKGROUND]) * width for _ in range(height)]
    for match in _BOUNDS.finditer(dump_xml):
        x1, y1, x2, y2 = (int(value) for value in match.groups())
        x1, x2 = max(0, min(x1, width - 1)), max(0, min(x2 - 1, width - 1))
        y1, y2 = max(0, min(y1, height - 1)), max(0, min(y2 - 1, height - 1))
        if x2 < x1 or y2 < y1:
            continue
        for y in (y1, y2):
            rows[y][x1 : x2 + 1] = bytes([_OUTLINE]) * (x2 - x1 + 1)
        for y in range(y1, y2 + 1):
            rows[y][x1] = rows[y][x2] = _OUTLINE
    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 on every row
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 6))
        + _chunk(b"IEND", b"")
    )
