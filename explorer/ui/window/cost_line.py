"""What the open conversation cost, in the status bar (C5).

``convo cost``'s total, read off the main thread once the window is quiet (the first frame
and the views' loads come first: a 100,000-message session's cost takes a second or two to
add up), and said the way the command line says it: money where the models have a price,
tokens always, and how many answers were estimated rather than measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from explorer.app.costs.words import cost_words
from explorer.store import Store
from explorer.ui.background.first_paint import AfterFirstPaint
from explorer.ui.background.quiet_gate import QuietGate
from explorer.ui.background.tasks import LatestRunner, Ticket

if TYPE_CHECKING:
    from explorer.app.costs.tally import Tally


class CostLine(QLabel):
    """The open conversation's cost, filled in when the window is quiet."""

    def __init__(self, store: Store, busy: Callable[[], bool], parent: QWidget,
                 chips: Callable[[dict[int, str]], None] = lambda _c: None) -> None:
        super().__init__(parent)
        self.chips = chips
        """Where the branches' cost chips go (the graph), by message id."""
        self.store = store
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setToolTip("What the answers on every branch cost, from the usage the file "
                        "records (convo cost --by branch says it per branch)")
        self.runner = LatestRunner(self, threads=1, name="conversation-cost")
        self.runner.finished.connect(self._shown)
        self.runner.failed.connect(lambda _e: self.setText(""))
        self.gate: QuietGate[int] = QuietGate(self._start, painted=False, parent=self)
        self.gate.wait_for(busy)
        AfterFirstPaint(parent, self.gate.painted)
        self.conversation_id: int | None = None
        self._shown_for: tuple[int, int | None, int | None] | None = None

    def show_conversation(self, conv_id: int) -> None:
        """Add the conversation up again, unless nothing it is made of changed since (the
        window refreshes after every action; a 100k session takes a second or two)."""
        key = (conv_id, self.store.revision(conv_id),
               self.store.conversation(conv_id, boundary=False).tip_id)
        if key == self._shown_for and self.text():
            return
        self._shown_for = key
        self.conversation_id = conv_id
        self.setText("")
        self.gate.offer(conv_id)

    def _start(self, conv_id: int) -> None:
        if self.runner.runner.closed:
            return

        def job(ticket: Ticket) -> tuple[int, Tally, dict[int, str]]:
            from explorer.app.costs.chips import cost_chips
            from explorer.app.costs.report import cost_report

            report = cost_report(self.store, conv_id)
            return conv_id, report.total(), cost_chips(report)

        self.runner.submit(job)

    def _shown(self, result: tuple[int, Tally, dict[int, str]]) -> None:
        conv_id, total, chips = result
        if conv_id == self.conversation_id:
            self.setText(cost_words(total))
            self.chips(chips)

    def shutdown(self) -> None:
        self.gate.drop()
        self.runner.shutdown()
