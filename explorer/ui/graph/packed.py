"""Qt geometry straight from packed coordinate arrays, with no Python object per point.

Both builders feed little-endian bytes to ``QDataStream``, which fills the Qt
container in C++ (the bytes are laid out by :mod:`explorer.app.graph.qt_streams`, Qt-free).
Edges become a ``QPainterPath`` of separate segments rather than a ``QPolygonF`` for
``drawLines``: PySide converts the polygon passed to ``drawLines`` point by point
through Python (about half a microsecond a point, most of a dots-level repaint), while
``strokePath`` takes the path as it is.
"""

from __future__ import annotations

from array import array

from PySide6.QtCore import QByteArray, QDataStream
from PySide6.QtGui import QPainterPath, QPolygonF

from explorer.app.graph.qt_streams import polygon_bytes, segment_bytes


def polygon(coords: array[float]) -> QPolygonF:
    """A QPolygonF of the (x, y) pairs in ``coords``."""
    return polygon_from(polygon_bytes(coords))


def segments(coords: array[float]) -> QPainterPath:
    """A path of one separate segment per two (x, y) pairs in ``coords`` (x0, y0, x1, y1, …)."""
    return path_from(segment_bytes(coords))


def polygon_from(raw: bytes) -> QPolygonF:
    """The polygon :func:`~explorer.app.graph.qt_streams.polygon_bytes` streamed."""
    poly = QPolygonF()
    _reader(raw) >> poly
    return poly


def path_from(raw: bytes) -> QPainterPath:
    """The path :func:`~explorer.app.graph.qt_streams.segment_bytes` streamed (empty: none)."""
    path = QPainterPath()
    if raw:
        _reader(raw) >> path
    return path


def _reader(raw: bytes) -> QDataStream:
    stream = QDataStream(QByteArray(raw))  # read-only over its own copy of the bytes
    stream.setByteOrder(QDataStream.ByteOrder.LittleEndian)
    return stream
