"""The window's compare actions: marks, compare with siblings or the marked, and refusals.

A compare that cannot be made is refused with its reason in a notice that does
not block the window, and the marks stay; a window that opens uses them up.
"Make active" in a compare window names its own conversation (``branch_in``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from explorer.app import tree_actions
from explorer.store import NotFound, StoreError
from explorer.ui.compare_marks import CompareMarks

if TYPE_CHECKING:
    from explorer.ui.main_window import MainWindow


class CompareActions:
    """Mixed into the window's actions, which provide ``tell``, ``_conv`` and friends."""

    w: MainWindow
    marks: CompareMarks
    notice: QMessageBox | None
    last_error: str

    if TYPE_CHECKING:  # provided by the window's actions this is mixed into
        def tell(self, title: str, text: str) -> None: ...
        def branch(self, mid: int) -> None: ...
        def _conv(self) -> int | None: ...
        def _guard(self, fn: Callable[[], None]) -> None: ...
        def _selected(self, then: Callable[[int], None]) -> None: ...

    def refuse(self, title: str, text: str) -> None:
        """Say why something cannot be done, without blocking the window."""
        self.last_error = text
        self.w.statusBar().showMessage(text, 10000)
        if self.notice is not None:
            self.notice.close()
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.w)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.show()
        self.notice = box

    @property
    def marked(self) -> list[int]:
        return self.marks.ids()

    def toggle_mark(self, mid: int) -> None:
        if not self.marks.toggle(mid):
            self.refuse("Compare", "at most 4 branches can be compared: unmark one first")
            return
        self.tell("Compare", f"{len(self.marks)} message(s) marked for comparison"
                  + (" — Ctrl+D compares them" if len(self.marks) >= 2 else ""))

    def clear_marks(self) -> None:
        self.marks.clear()
        self.tell("Compare", "compare marks cleared")

    def compare_marked(self) -> None:
        """Compare the marked messages; the marks are used up only if the window opens."""
        if len(self.marks) < 2:
            self.refuse("Cannot compare", f"{len(self.marks)} message(s) marked: mark 2 to 4 "
                        "messages on different branches (M), then compare them (Ctrl+D)")
            return
        if self._open_compare(self.marks.ids()):
            self.marks.clear()

    def compare(self, mid: int) -> None:
        from explorer.app.compare import CompareError, siblings_to_compare  # loaded when used

        try:
            ids = siblings_to_compare(self.w.store, mid)
        except (CompareError, NotFound) as e:
            self.refuse("Cannot compare", str(e))
            return
        self._open_compare(ids, clicked=mid)

    def _open_compare(self, ids: list[int], clicked: int | None = None) -> bool:
        """Open a compare window, or say why the choice cannot be compared (no empty window)."""
        from explorer.app.compare import MAX_COLUMNS, CompareError, compare
        from explorer.ui.compare import CompareWindow

        conv = self._conv()
        if conv is None:
            return False
        if len(ids) <= MAX_COLUMNS:
            try:
                compare(self.w.store, ids, conv)
            except (CompareError, NotFound, StoreError) as e:
                self.refuse("Cannot compare", str(e))
                return False
        window = CompareWindow(self.w.store, conv, ids, self.w, clicked=clicked)
        window.branchChosen.connect(self.branch_in)
        window.forked.connect(self.w.refresh)
        if self.w.compare_window is not None:
            self.w.compare_window.close()
        self.w.compare_window = window
        window.show()
        return True

    def branch_in(self, conv: int, mid: int) -> None:
        """Make ``mid`` the tip of ``conv`` and show that conversation (compare's Make active)."""
        def run() -> None:
            tree_actions.branch(self.w.store, conv, mid)
            self.w.refresh(conv)
            self.tell("Branch", f"the tip is now message {mid}")
        self._guard(run)

    def mark_selected(self) -> None:
        self._selected(self.toggle_mark)
