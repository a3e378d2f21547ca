"""The app's window opens its remembered conversation once its first frame is on screen
(V2: the window first, the data after): the loads' workers never compete with the
frame for the interpreter."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings
from pytestqt.qtbot import QtBot

from explorer.ui.app import open_store
from explorer.ui.window.main_window import MainWindow


class Order(QObject):
    """Records the window's first paint and the graph's load, in the order they happen."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.seen: list[str] = []
        load = window.graph.load_conversation

        def loading(conv_id: int) -> None:
            self.seen.append(f"load {conv_id}")
            load(conv_id)

        window.graph.load_conversation = loading  # type: ignore[method-assign]
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and "paint" not in self.seen:
            self.seen.append("paint")
        return False


def _window(tmp_path: Path, remembered: int) -> MainWindow:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    settings.setValue("window/conversation", remembered)
    return MainWindow(open_store(tmp_path / "w.db"), settings, open_after_first_paint=True)


def test_V2_the_remembered_conversation_loads_after_the_first_frame(
    qtbot: QtBot, tmp_path: Path
) -> None:
    window = _window(tmp_path, 2)
    qtbot.addWidget(window)
    order = Order(window)
    try:
        # Built, not yet shown: the list shows which conversation is coming, nothing reads.
        assert window.first_open is not None and window.first_open.pending
        assert window.conversations.current() == 2
        assert window.conversation_id is None and not window.graph.is_loading
        with qtbot.waitSignal(window.graph.loaded, timeout=20_000):
            window.show()
        assert order.seen == ["paint", "load 2"]
        assert window.conversation_id == 2 and not window.first_open.pending
    finally:
        window.close()
        window.store.close()


def test_a_conversation_chosen_before_the_first_frame_is_not_replaced(
    qtbot: QtBot, tmp_path: Path
) -> None:
    window = _window(tmp_path, 2)
    qtbot.addWidget(window)
    order = Order(window)
    try:
        window.open_conversation(1)
        with qtbot.waitSignal(window.graph.loaded, timeout=20_000):
            window.show()
        qtbot.waitUntil(lambda: "paint" in order.seen)
        qtbot.wait(50)  # the turn after the first frame, when the remembered one would open
        assert order.seen == ["load 1", "paint"]
        assert window.conversation_id == 1 and window.first_open is not None
        assert not window.first_open.pending
    finally:
        window.close()
        window.store.close()
