"""The "2/3" sibling switcher shown on a message that has alternatives.

Edited prompts and regenerated answers are siblings (same parent). Chat apps
show them as ◀ 2/3 ▶ on the message itself; choosing one only asks for the
switch (``siblingChosen``): moving the tip is the store's job, so the
transcript never changes the tree behind the caller's back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from explorer.tree.tending import SiblingPlace


class SiblingSwitcher(QWidget):
    siblingChosen = Signal(int)
    compareRequested = Signal(int)  # the message whose siblings to show side by side

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ids: list[int] = []
        self._archived = 0
        self._index = 0
        self.describe: Callable[[list[int], int], list[str]] | None = None
        self._listing: str | None = None
        self.previous_button = QToolButton(self)
        self.previous_button.setText("◀")
        self.previous_button.setAutoRaise(True)
        self.previous_button.setToolTip("Previous alternative")
        self.next_button = QToolButton(self)
        self.next_button.setText("▶")
        self.next_button.setAutoRaise(True)
        self.next_button.setToolTip("Next alternative")
        self.label = QLabel(self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.label)
        layout.addWidget(self.next_button)
        self.compare_button = QToolButton(self)
        self.compare_button.setText("⇆")
        self.compare_button.setAutoRaise(True)
        self.compare_button.setToolTip("Compare the alternatives side by side")
        layout.addWidget(self.compare_button)
        self.compare_button.clicked.connect(self._compare)
        self.previous_button.clicked.connect(lambda: self._step(-1))
        self.next_button.clicked.connect(lambda: self._step(1))
        for child in (self.previous_button, self.label, self.next_button):
            child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Tooltips list every sibling by what sets it apart, read the first time one shows."""
        if event.type() == QEvent.Type.ToolTip and isinstance(watched, QWidget):
            listing = self.listing()
            if listing:
                head = ("◀ previous" if watched is self.previous_button else
                        "▶ next" if watched is self.next_button else
                        f"alternative {self._index + 1} of {len(self._ids)}")
                watched.setToolTip(f"{head}\n{listing}")
        return super().eventFilter(watched, event)

    def listing(self) -> str:
        if self._listing is None:
            lines = self.describe(self._ids, self._ids[self._index]) if (
                self.describe is not None and self._ids) else []
            self._listing = "\n".join(lines)
        return self._listing

    def set_siblings(self, ids: Sequence[int], current: int, archived: int = 0) -> None:
        """Show ``current``'s place among ``ids`` (in the store's order); ``archived``
        alternatives are left out of ``ids`` but counted aloud ("2/3 · 1 archived")."""
        self._archived = archived
        self._ids = list(ids)
        self._index = self._ids.index(current) if current in self._ids else 0
        self._listing = None
        self._refresh()

    def text(self) -> str:
        return self.label.text()

    def _step(self, delta: int) -> None:
        target = self._index + delta
        if 0 <= target < len(self._ids):
            self.siblingChosen.emit(self._ids[target])

    def _compare(self) -> None:
        if self._ids:
            self.compareRequested.emit(self._ids[self._index])

    def _refresh(self) -> None:
        count = len(self._ids)
        place = sibling_place_text(self._index, count, self._archived)
        self.label.setText(place)
        self.label.setToolTip(f"Alternative {self._index + 1} of {count} at this point")
        self.previous_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index < count - 1)
        self.setVisible(count > 1 or self._archived > 0)


def sibling_place_text(index: int, count: int, archived: int) -> str:
    """The same words ``convo show`` prints: ``2/3`` or ``2/3 · 1 archived``."""
    if not count:
        return ""
    return SiblingPlace(tuple(range(count)), index, archived).text()
