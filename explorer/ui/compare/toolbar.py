"""The compare window's controls: which siblings to show, how to mark differences, the base."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.app.comparing.columns import MAX_COLUMNS, MIN_COLUMNS, MODES, Comparison, Mode
from explorer.app.comparing.columns import heading as message_heading
from explorer.store import Store

MODE_TEXT = {"off": "&Off", "words": "&Words", "lines": "&Lines"}


class BranchPicker(QWidget):
    """Check 2–4 of many siblings; shown only when there are more than fit side by side."""

    chosen = Signal(list)

    def __init__(self, store: Store, candidates: Sequence[int], checked: Sequence[int],
                 marks: dict[int, str] | None = None) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setMaximumHeight(120)
        for mid in candidates:
            m = store.message(mid)
            preview = " ".join(m.text.split())[:90]
            note = (marks or {}).get(mid)
            item = QListWidgetItem(f"{message_heading(m)}{f' ({note})' if note else ''} — "
                                   f"{preview}")
            item.setData(Qt.ItemDataRole.UserRole, mid)
            item.setCheckState(Qt.CheckState.Checked if mid in checked
                               else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.button = QPushButton("Compare checked")
        self.hint = QLabel()
        self.list.itemChanged.connect(self._update)
        self.button.clicked.connect(lambda: self.chosen.emit(self.checked()))
        side = QVBoxLayout()
        side.addWidget(self.button)
        side.addWidget(self.hint)
        side.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(side)
        self._update()

    def checked(self) -> list[int]:
        items = (self.list.item(i) for i in range(self.list.count()))
        return [int(it.data(Qt.ItemDataRole.UserRole)) for it in items
                if it.checkState() == Qt.CheckState.Checked]

    def set_checked(self, ids: Sequence[int]) -> None:
        for i in range(self.list.count()):
            it = self.list.item(i)
            on = int(it.data(Qt.ItemDataRole.UserRole)) in ids
            it.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _update(self) -> None:
        n = len(self.checked())
        ok = MIN_COLUMNS <= n <= MAX_COLUMNS
        self.button.setEnabled(ok)
        self.hint.setText(f"{n} checked" if ok else f"check {MIN_COLUMNS}–{MAX_COLUMNS}")


class DiffBar(QWidget):
    """Differences off / by word / by line, changes only, and which column is the base."""

    modeChosen = Signal(str)
    changesOnlyToggled = Signal(bool)
    baseChosen = Signal(int)

    def __init__(self, mode: Mode = "words") -> None:
        super().__init__()
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[str, QToolButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Differences:"))
        for name in MODES:
            b = QToolButton()
            b.setText(MODE_TEXT[name])
            b.setCheckable(True)
            b.setChecked(name == mode)
            b.setObjectName(f"mode-{name}")
            b.clicked.connect(lambda _=False, n=name: self.modeChosen.emit(n))
            self.group.addButton(b)
            self.buttons[name] = b
            layout.addWidget(b)
        self.changes_only = QCheckBox("&Changes only")
        self.changes_only.setToolTip("Leave out unchanged text away from the differences")
        self.changes_only.toggled.connect(self.changesOnlyToggled)
        layout.addSpacing(12)
        layout.addWidget(self.changes_only)
        layout.addSpacing(12)
        self.base_label = QLabel("&Base:")
        self.base = QComboBox()
        self.base_label.setBuddy(self.base)
        self.base.setMinimumContentsLength(28)
        self.base.activated.connect(self.baseChosen)
        layout.addWidget(self.base_label)
        layout.addWidget(self.base)
        layout.addStretch(1)

    def show_comparison(self, c: Comparison) -> None:
        """Offer the columns as bases, the current one chosen, without announcing it."""
        self.base.blockSignals(True)
        self.base.clear()
        for j, col in enumerate(c.columns):
            active = " (active)" if c.active == j else ""
            self.base.addItem(f"{c.letter(j)} · {col.label}{active}")
        self.base.setCurrentIndex(c.base)
        self.base.blockSignals(False)
        self.changes_only.setEnabled(c.mode != "off")
        self.buttons[c.mode].setChecked(True)
