"""The window's context panel: the figure of one conversation, costed off the main thread.

The panel waits for the window's first frame and the views' loads (:class:`QuietGate`), keeps
the incremental :class:`ContextFigure` across refreshes, and folds its details (legend and
prompt-cache line) behind a toggle the window remembers, so the transcript keeps its height.
A figure arriving never changes the panel's height either (its lines keep their room, the
long path's "plan the cache" button sits in the heading): the transcript below is not laid
out again, only the figure repaints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from explorer.store import Store
from explorer.ui.background.first_paint import AfterFirstPaint
from explorer.ui.background.memory import release_after_load
from explorer.ui.background.quiet_gate import QuietGate
from explorer.ui.background.tasks import Job, LatestRunner, Ticket
from explorer.ui.elided_label import ElidedLabel
from explorer.ui.preview.context_bar import ContextBar

if TYPE_CHECKING:  # the estimator (and Pillow) load on the panel's worker, not at start-up
    from explorer.app.context.figure import ContextFigure
    from explorer.compaction.target import Target

# On paths longer than this the prompt-cache outlook is planned when asked: it plans the whole
# next request (every message read and laid out), which opening a huge session must not cost.
# The context figure itself is costed incrementally and shown at any length.
AUTO_MEASURE_LIMIT = 20_000
RELEASE_AFTER = 5000  # messages costed in one refresh before its read memory is handed back
CACHE_KEY = "prompt_cache"  # the cache figures travel beside the usage from the worker
DETAILS_KEY = "context/details"  # whether the legend and the cache line are shown


class ContextPanel(QWidget):
    """A :class:`ContextBar` for one conversation, recomputed off the main thread."""

    def __init__(self, store: Store, parent: QWidget | None = None, *,
                 after_first_paint: bool = False, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.store = store
        # In the window the figure waits for the first frame and the views' loads: the
        # estimator's import and the costing must not compete with them for the
        # interpreter (V2: the window comes first, no stall over 50 ms).
        self.gate: QuietGate[Job] = QuietGate(self._submit, painted=not after_first_paint,
                                              parent=self)
        if after_first_paint:  # once the whole frame is on screen
            AfterFirstPaint(self, self.gate.painted)
        self.threshold = 0.8
        self.bar = ContextBar()
        # A long model name is cut with "…" (whole in the tooltip), never widening the pane.
        self.title = ElidedLabel()
        self.title.set_full("Context")
        self.runner = LatestRunner(self, threads=1, name="context-figure")  # in the open's lane
        self.runner.finished.connect(self._on_usage)
        self.runner.progress.connect(self._on_progress)
        self.runner.failed.connect(lambda e: self.bar.show_error(f"{type(e).__name__}: {e}"))
        self._figure: ContextFigure | None = None
        self._planned: tuple[object, Any] | None = None  # the last cache plan, by figure stamp
        self.measure_button = QToolButton()
        self.measure_button.setText("Plan the prompt cache")
        self.measure_button.setAutoRaise(True)
        self.measure_button.setToolTip("This long path's prompt cache is planned when you ask: "
                                       "read every message of the active path and plan the "
                                       "next request as send would (off the main thread; the "
                                       "window stays usable).")
        self.measure_button.clicked.connect(self._measure_on_request)
        # Shown or hidden, it never changes what the panel asks of the window: it takes the
        # room the title leaves (down to nothing), so the splitter never moves for it.
        self.measure_button.setMinimumWidth(1)
        self.measure_button.setSizePolicy(QSizePolicy.Policy.Maximum,
                                          QSizePolicy.Policy.Fixed)
        self.measure_button.hide()
        self.settings = settings
        self.details_button = QToolButton()
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setToolTip("Show or hide the tokens of each part and the prompt "
                                       "cache's outlook")
        self.details_button.toggled.connect(self._show_details)
        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 0, 0)
        heading.addWidget(self.title, 1)
        heading.addWidget(self.measure_button)
        heading.addWidget(self.details_button)
        layout = QVBoxLayout(self)
        layout.addLayout(heading)
        layout.addWidget(self.bar)
        self.conversation_id: int | None = None
        self.deferred: int | None = None  # path length of a figure left for the person to ask
        self._target: Target | None = None
        shown = settings is None or settings.value(DETAILS_KEY, False, type=bool)
        self.details_button.setChecked(bool(shown))
        self._show_details(bool(shown))

    def _show_details(self, shown: bool) -> None:
        """Fold or unfold the legend and the cache line; the window remembers the choice."""
        self.bar.details.setVisible(shown)
        self.details_button.setArrowType(Qt.ArrowType.DownArrow if shown
                                         else Qt.ArrowType.RightArrow)
        if self.settings is not None:
            self.settings.setValue(DETAILS_KEY, shown)

    def show_conversation(self, conv_id: int, target: Target | None = None,
                          *, force: bool = False) -> None:
        """Recompute for ``conv_id`` (call again when the tip moves); newer calls win.

        The figure is costed incrementally (:class:`ContextFigure`); the prompt-cache
        outlook plans the whole next request, so on a path longer than
        ``AUTO_MEASURE_LIMIT`` it waits until the person asks (``force``).
        """
        self.conversation_id = conv_id
        if target is not None:
            self._show_target(target)
        self.measure_button.hide()
        store = self.store

        def job(ticket: Ticket) -> dict[str, Any]:
            from explorer.app.targets import build_target  # here: the window's start skips it

            use = target or build_target()
            ticket.report(use)  # the title names it at once, before the figure is costed
            figure = self.figure
            ticket.step("measuring")
            costed = figure.costed
            usage = figure.usage(conv_id, use, ticket.check).to_dict()
            if figure.costed - costed >= RELEASE_AFTER:  # a long read: its pages go back
                release_after_load(store)
            length = figure.length  # the figure's own path: not walked again
            if length > AUTO_MEASURE_LIMIT and not force:
                return {**usage, "deferred": length}
            planned = self._planned
            if figure.stamp is not None and planned is not None and planned[0] == figure.stamp:
                return {**usage, CACHE_KEY: planned[1]}  # the same file, target and path
            ticket.step("pricing the prompt cache")
            from explorer.app.context import (
                compacting,  # on the worker, when needed
                prompt_cache,
            )

            context = compacting.active_context(store, conv_id)
            ticket.check()  # a newer request or a closing window: the plan is not wanted
            figures = prompt_cache.figures(context, use)
            self._planned = None if figure.stamp is None else (figure.stamp, figures)
            return {**usage, CACHE_KEY: figures}

        self.gate.offer(job)  # a newer request replaces one still held

    def _submit(self, job: Job) -> None:
        if not self.runner.runner.closed:
            self.runner.submit(job)

    def _measure_on_request(self) -> None:
        if self.conversation_id is not None:
            self.bar.cache_text.setText("Planning the prompt cache…")
            self.show_conversation(self.conversation_id, self._target, force=True)

    @property
    def figure(self) -> ContextFigure:
        """The incremental figure (costs kept across refreshes: only new messages are
        costed), made on first use: on the panel's worker when the window opens."""
        if self._figure is None:
            from explorer.app.context.figure import ContextFigure

            self._figure = ContextFigure(self.store)
        return self._figure

    @property
    def busy(self) -> bool:
        return self.runner.busy or self.gate.holding

    def _on_progress(self, payload: object) -> None:
        if not isinstance(payload, str):  # the target the job costs for (stages are text)
            self._show_target(payload)

    def _show_target(self, target: Any) -> None:
        self._target = target
        self.title.set_full(f"Context · {target.kind} · {target.model}")

    def _on_usage(self, usage: object) -> None:
        assert isinstance(usage, dict)
        deferred = usage.pop("deferred", None)
        cache = usage.pop(CACHE_KEY, None)
        self.bar.set_usage(usage, self.threshold)
        self.deferred = int(deferred) if deferred is not None else None
        if self.deferred is None:
            self.bar.set_cache(cache)
            return
        self.bar.set_cache(None)
        self.bar.cache_text.setText(
            f"Prompt cache: the active path holds {self.deferred:,} messages; the next "
            "request's cache outlook is planned when you ask.")
        self.measure_button.show()

    def shutdown(self) -> None:
        self.gate.drop()
        self.runner.shutdown()

    def closeEvent(self, event: Any) -> None:
        self.shutdown()
        super().closeEvent(event)
