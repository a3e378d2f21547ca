"""A Files tab: what a path did to files, or each compared branch side by side (C5).

Two forks of a coding session differ less in their words than in the code they wrote. The
branches' file effects (``convo effects --at A --at B``) are rebuilt off the main thread,
when the tab is first shown for a comparison, and shown as the command prints them: where
each file changed, and the diff between what the branches end with.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QFontDatabase, QShowEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from explorer.store import Store
from explorer.ui.background.tasks import LatestRunner, Ticket


class FilesTab(QPlainTextEdit):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.runner = LatestRunner(self, threads=1, name="compare-files")
        self.runner.finished.connect(self.setPlainText)
        self.runner.failed.connect(lambda e: self.setPlainText(f"could not read the files: {e}"))
        self._asked: tuple[int, tuple[int, ...]] | None = None
        self._wanted: tuple[int, tuple[int, ...]] | None = None

    def set_branches(self, conv: int, leaves: Sequence[int]) -> None:
        """The branches to show; read when the tab is shown (or now, when it is)."""
        self._wanted = (conv, tuple(leaves))
        if self.isVisible():
            self._read()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._read()

    def _read(self) -> None:
        if self._wanted is None or self._wanted == self._asked or self.runner.runner.closed:
            return
        self._asked = conv, leaves = self._wanted
        self.setPlainText("Reading what each branch did to files…")

        def job(ticket: Ticket) -> str:
            from explorer.app.effects.compare import compare_effects, path_effects
            from explorer.app.effects.text import comparison_lines, effect_lines

            if len(leaves) == 1:  # one path: what it did (the transcript's Files tab)
                return "\n".join(effect_lines(path_effects(self.store, conv, leaves[0])))
            _each, files = compare_effects(self.store, conv, list(leaves))
            return "\n".join(comparison_lines(list(leaves), files))

        self.runner.submit(job)
