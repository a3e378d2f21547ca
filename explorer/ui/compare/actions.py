"""The window's compare actions: marks, compare with siblings or the marked, and refusals.

A compare that cannot be made is refused with its reason in a notice that does
not block the window, and the marks stay; a window that opens uses them up.
"Make active" in a compare window names its own conversation: it branches there with
the window's one ``branch_in`` (``BranchActions``), given when this is made.
This controller owns the marks, the notice and the compare window it opened; it
reaches the window only through ``TendView``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.store import NotFound, StoreError
from explorer.ui.compare_marks import CompareMarks
from explorer.ui.tending.view import Asks, TendView

BranchIn = Callable[[int, int, Callable[[], object]], None]
"""conversation, message, then: make it the tip, show it, then call ``then``."""


class CompareActions:
    def __init__(self, view: TendView, asks: Asks, branch_in: BranchIn) -> None:
        self.view = view
        self.asks = asks
        self.branch_in = branch_in
        self.marks = CompareMarks(view.window())  # any nodes, to compare side by side
        self.notice: QMessageBox | None = None
        self.window: QWidget | None = None  # the compare window open now
        self.last_error = ""

    def handlers(self) -> dict[str, Callable[..., None]]:
        """Right-click entries."""
        return {"compare": self.compare, "mark": self.toggle_mark,
                "compare_marked": self.compare_marked}

    def refuse(self, title: str, text: str) -> None:
        """Say why something cannot be done, without blocking the window."""
        self.last_error = text
        self.view.status(text, 10000)
        if self.notice is not None:
            self.notice.close()
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.view.window())
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.show()
        self.notice = box

    def close_window(self) -> None:
        """Close the compare window this window opened (the main window is closing)."""
        if self.window is not None:
            self.window.close()

    @property
    def marked(self) -> list[int]:
        return self.marks.ids()

    def toggle_mark(self, mid: int) -> None:
        if not self.marks.toggle(mid):
            self.refuse("Compare", "at most 4 branches can be compared: unmark one first")
            return
        self.asks.tell("Compare", f"{len(self.marks)} message(s) marked for comparison"
                       + (" — Ctrl+D compares them" if len(self.marks) >= 2 else ""))

    def clear_marks(self) -> None:
        self.marks.clear()
        self.asks.tell("Compare", "compare marks cleared")

    def compare_marked(self) -> None:
        """Compare the marked messages; the marks are used up only if the window opens."""
        if len(self.marks) < 2:
            self.refuse("Cannot compare", f"{len(self.marks)} message(s) marked: mark 2 to 4 "
                        "messages on different branches (M), then compare them (Ctrl+D)")
            return
        if self.open(self.marks.ids()):
            self.marks.clear()

    def compare(self, mid: int) -> None:
        """Compare ``mid`` with its siblings."""
        from explorer.app.comparing.columns import (  # loaded when used
            CompareError,
            siblings_to_compare,
        )

        try:
            ids = siblings_to_compare(self.view.store, mid)
        except (CompareError, NotFound) as e:
            self.refuse("Cannot compare", str(e))
            return
        self.open(ids, clicked=mid)

    def open(self, ids: list[int], clicked: int | None = None) -> bool:
        """Open a compare window, or say why the choice cannot be compared (no empty window)."""
        from explorer.app.comparing.columns import MAX_COLUMNS, CompareError, compare
        from explorer.ui.compare.window import CompareWindow

        conv = self.view.conversation_id
        if conv is None:
            return False
        store = self.view.store
        if len(ids) <= MAX_COLUMNS:
            try:
                compare(store, ids, conv)
            except (CompareError, NotFound, StoreError) as e:
                self.refuse("Cannot compare", str(e))
                return False
        window = CompareWindow(store, conv, ids, self.view.window(), clicked=clicked)
        window.branchChosen.connect(
            lambda c, mid, w=window: self.branch_in(c, mid, w.mark_active))
        window.runner = lambda what, work, then, failed: self.view.ops.run(
            what, work, then, failed, refresh=lambda _r: False)
        window.read_beside()  # costs and files: this window's close waits for them
        window.forked.connect(self.view.refresh)
        if self.window is not None:
            self.window.close()
        self.window = window
        window.show()
        return True
