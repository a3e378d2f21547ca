"""Pinch to zoom: a touchpad's native zoom gesture and a touch-screen pinch both zoom the graph
around the fingers, so the node under them stays under them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_trees import generated_conversation
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QNativeGestureEvent, QPointingDevice
from PySide6.QtWidgets import QApplication, QGestureEvent, QPinchGesture
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.view import GraphView

FINGERS = QPoint(300, 200)  # off the viewport's centre, so zooming about the centre would show


@pytest.fixture
def graph(qtbot: QtBot, tmp_path: Path) -> Iterator[TreeGraphWidget]:
    store = Store(tmp_path / "pinch.db")
    w = TreeGraphWidget(store, mode="messages")
    qtbot.addWidget(w)
    w.resize(900, 700)
    w.show()
    try:
        with qtbot.waitSignal(w.loaded, timeout=20_000):
            w.load_conversation(generated_conversation(store, 400, seed=3, branch=0.2))
        w.view.set_scale(1.0)  # the tree is far larger than the viewport: nothing is centred
        yield w
    finally:
        w.shutdown()
        store.close()


def _native_zoom(view: GraphView, at: QPoint, value: float) -> QNativeGestureEvent:
    local = QPointF(at)
    return QNativeGestureEvent(
        Qt.NativeGestureType.ZoomNativeGesture, QPointingDevice.primaryPointingDevice(), 2,
        local, local, QPointF(view.viewport().mapToGlobal(at)), value, QPointF(0, 0))


def _assert_zoomed_about(view: GraphView, at: QPoint, before: QPointF, factor: float,
                         old_scale: float) -> None:
    assert view.scale_factor() == pytest.approx(old_scale * factor, rel=1e-6)
    after = view.mapToScene(at)
    slack = 1.5 / view.scale_factor()  # the view scrolls by whole pixels
    assert abs(after.x() - before.x()) <= slack and abs(after.y() - before.y()) <= slack


@pytest.mark.parametrize("value", [0.25, -0.2])
def test_native_zoom_gesture_zooms_around_the_fingers(
    graph: TreeGraphWidget, value: float
) -> None:
    view = graph.view
    old_scale, before = view.scale_factor(), view.mapToScene(FINGERS)
    assert before != view.mapToScene(view.viewport().rect().center())
    event = _native_zoom(view, FINGERS, value)
    QApplication.sendEvent(view.viewport(), event)
    _assert_zoomed_about(view, FINGERS, before, 1.0 + value, old_scale)


def test_other_native_gestures_leave_the_scale_alone(graph: TreeGraphWidget) -> None:
    view = graph.view
    old_scale = view.scale_factor()
    local = QPointF(FINGERS)
    event = QNativeGestureEvent(
        Qt.NativeGestureType.RotateNativeGesture, QPointingDevice.primaryPointingDevice(), 2,
        local, local, QPointF(view.viewport().mapToGlobal(FINGERS)), 30.0, QPointF(0, 0))
    QApplication.sendEvent(view.viewport(), event)
    assert view.scale_factor() == old_scale


def test_pinch_gesture_zooms_around_its_centre(graph: TreeGraphWidget) -> None:
    view = graph.view
    old_scale, before = view.scale_factor(), view.mapToScene(FINGERS)
    pinch = QPinchGesture()
    pinch.setScaleFactor(0.5)
    pinch.setCenterPoint(QPointF(view.viewport().mapToGlobal(FINGERS)))
    event = QGestureEvent([pinch])
    assert QApplication.sendEvent(view.viewport(), event)
    _assert_zoomed_about(view, FINGERS, before, 0.5, old_scale)


def test_pinching_far_out_stops_at_the_lowest_zoom(graph: TreeGraphWidget) -> None:
    view = graph.view
    for _ in range(40):
        QApplication.sendEvent(view.viewport(), _native_zoom(view, FINGERS, -0.5))
    lowest = view.scale_factor()
    assert lowest < 1.0
    QApplication.sendEvent(view.viewport(), _native_zoom(view, FINGERS, -0.5))
    assert view.scale_factor() == lowest
