"""The bytes ``QDataStream`` reads a ``QPolygonF`` or a ``QPainterPath`` from, made without Qt.

Laying the coordinates out in Qt's stream format is byte shuffling over the whole of a
cell (long C calls that hold the GIL); made here, it can run in the process that gathers
the cells (:mod:`explorer.app.graph.cells`), and the window only streams the bytes into
Qt's containers (:mod:`explorer.ui.graph.packed`).
"""

from __future__ import annotations

import struct
import sys
from array import array

_MOVE_TO, _LINE_TO = 0, 1  # QPainterPath.ElementType values as streamed
_ELEMENT = 20  # bytes per streamed path element: int32 type, float64 x, float64 y
_ODD_FILL = 0  # Qt.FillRule.OddEvenFill


def polygon_bytes(coords: array[float]) -> bytes:
    """A QPolygonF of the (x, y) pairs in ``coords``, as streamed (little-endian)."""
    return struct.pack("<I", len(coords) // 2) + _little(coords).tobytes()


def segment_bytes(coords: array[float]) -> bytes:
    """A QPainterPath of one separate segment per two (x, y) pairs in ``coords``
    (x0, y0, x1, y1, …), as streamed; empty bytes for no segment."""
    n = len(coords) // 4 * 2  # points, a whole number of segments
    if n == 0:
        return b""
    points = _little(coords[: 2 * n]).tobytes()
    types = _little_ints(array("i", (_MOVE_TO, _LINE_TO)) * (n // 2)).tobytes()
    body = bytearray(_ELEMENT * n)
    for k in range(4):  # interleave: each element is its 4 type bytes, then its 16 point bytes
        body[k::_ELEMENT] = types[k::4]
    for k in range(16):
        body[4 + k::_ELEMENT] = points[k::16]
    tail = struct.pack("<ii", n - 2, _ODD_FILL)  # start of the last subpath, fill rule
    return struct.pack("<i", n) + bytes(body) + tail


def _little(coords: array[float]) -> array[float]:
    if sys.byteorder == "little":
        return coords
    copy = array("d", coords)
    copy.byteswap()
    return copy


def _little_ints(values: array[int]) -> array[int]:
    if sys.byteorder != "little":
        values.byteswap()
    return values
