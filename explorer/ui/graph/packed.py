"""Qt geometry straight from packed coordinate arrays, with no Python object per point.

Both builders feed little-endian bytes to ``QDataStream``, which fills the Qt
container in C++. Edges become a ``QPainterPath`` of separate segments rather than
a ``QPolygonF`` for ``drawLines``: PySide converts the polygon passed to
``drawLines`` point by point through Python (about half a microsecond a point,
most of a dots-level repaint), while ``strokePath`` takes the path as it is.
"""

from __future__ import annotations

import struct
import sys
from array import array

from PySide6.QtCore import QByteArray, QDataStream
from PySide6.QtGui import QPainterPath, QPolygonF

_MOVE_TO, _LINE_TO = 0, 1  # QPainterPath.ElementType values as streamed
_ELEMENT = 20  # bytes per streamed path element: int32 type, float64 x, float64 y
_ODD_FILL = 0  # Qt.FillRule.OddEvenFill


def polygon(coords: array[float]) -> QPolygonF:
    """A QPolygonF of the (x, y) pairs in ``coords``."""
    raw = struct.pack("<I", len(coords) // 2) + _little(coords).tobytes()
    poly = QPolygonF()
    _reader(raw) >> poly
    return poly


def segments(coords: array[float]) -> QPainterPath:
    """A path of one separate segment per two (x, y) pairs in ``coords`` (x0, y0, x1, y1, …)."""
    n = len(coords) // 4 * 2  # points, a whole number of segments
    if n == 0:
        return QPainterPath()
    points = _little(coords[: 2 * n]).tobytes()
    types = _little_ints(array("i", (_MOVE_TO, _LINE_TO)) * (n // 2)).tobytes()
    body = bytearray(_ELEMENT * n)
    for k in range(4):  # interleave: each element is its 4 type bytes, then its 16 point bytes
        body[k::_ELEMENT] = types[k::4]
    for k in range(16):
        body[4 + k::_ELEMENT] = points[k::16]
    tail = struct.pack("<ii", n - 2, _ODD_FILL)  # start of the last subpath, fill rule
    path = QPainterPath()
    _reader(struct.pack("<i", n) + bytes(body) + tail) >> path
    return path


def _reader(raw: bytes) -> QDataStream:
    stream = QDataStream(QByteArray(raw))  # read-only over its own copy of the bytes
    stream.setByteOrder(QDataStream.ByteOrder.LittleEndian)
    return stream


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
