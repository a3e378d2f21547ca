"""The transcript's scroll bar keeps its groove (V2: a scroll step repaints the handle only)
and looks exactly as a plain scroll bar does, wherever the handle is."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QScrollBar
from pytestqt.qtbot import QtBot

from explorer.ui.transcript.scrollbar import KeptGrooveScrollBar
from explorer.ui.transcript.scrolling import AnchoredScroll


def pictures(qtbot: QtBot, bar: QScrollBar) -> list[QImage]:
    qtbot.addWidget(bar)
    bar.resize(15, 600)
    bar.setRange(0, 100_000)
    bar.setPageStep(600)
    bar.show()
    shots = []
    for value in (0, 1, 50_000, 99_999, 100_000, 0, 777):
        bar.setValue(value)
        shots.append(bar.grab().toImage())
    bar.setEnabled(False)
    shots.append(bar.grab().toImage())
    return shots


def test_V2_the_kept_groove_paints_the_same_pixels_as_a_plain_bar(qtbot: QtBot) -> None:
    kept = KeptGrooveScrollBar()
    kept.setOrientation(Qt.Orientation.Vertical)
    plain = QScrollBar(Qt.Orientation.Vertical)
    assert pictures(qtbot, kept) == pictures(qtbot, plain)
    assert kept.kept_paints >= 7, "the groove was copied, not painted, on each step"


def test_V2_the_transcript_scrolls_with_the_kept_groove_bar(qtbot: QtBot) -> None:
    view = AnchoredScroll()
    qtbot.addWidget(view)
    assert isinstance(view.verticalScrollBar(), KeptGrooveScrollBar)
