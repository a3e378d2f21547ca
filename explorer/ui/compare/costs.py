"""What each compared branch cost on its own, below the shared ancestor (C5).

The conversation's costs are added up off the main thread once per comparison (a long
session takes a second or two); each column's header then says its own answers' money and
tokens, in the words of the status bar and ``convo cost``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from explorer.app.costs.words import cost_words
from explorer.store import Store
from explorer.ui.background.tasks import LatestRunner, Ticket

if TYPE_CHECKING:
    from explorer.app.comparing.columns import Comparison


class ColumnCosts(QObject):
    """Asks for the columns' costs; ``show(texts)`` gets one line per column, in order."""

    def __init__(self, store: Store, show: Callable[[list[str]], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.runner = LatestRunner(self, threads=1, name="compare-costs")
        self.runner.finished.connect(show)
        self.runner.failed.connect(lambda _e: None)  # the header keeps its other facts

    def ask(self, comparison: Comparison) -> None:
        if self.runner.runner.closed:
            return
        conv = comparison.conversation_id
        columns: Sequence[tuple[int, ...]] = [c.message_ids for c in comparison.columns]

        def job(ticket: Ticket) -> list[str]:
            from explorer.app.costs.report import cost_report

            report = cost_report(self.store, conv)
            return [f"own {cost_words(report.tally(ids))}" for ids in columns]

        self.runner.submit(job)

    def shutdown(self) -> None:
        self.runner.shutdown()
