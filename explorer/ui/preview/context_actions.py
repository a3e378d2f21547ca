"""The window's "Context at this point" and "Compare context" entries.

Both build their contexts on the window's task runner (drawing pages takes a while on a long
path) with the target the settings name, redacted as every request is, and show them in a
window of their own; "Compare context" compares two marked nodes (or one marked node and the
one right-clicked), A being the one marked first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog

from explorer.app.tending.message_actions import Availability
from explorer.tree.errors import error_line
from explorer.ui.compare_marks import CompareMarks
from explorer.ui.window.view import WindowView

if TYPE_CHECKING:
    from explorer.app.context.at import NodeContext
    from explorer.app.context.diff import ContextDiff
    from explorer.compaction.target import Target


def build_target(*, redact: bool) -> Target:
    """The window's target; the estimator loads with the first question, not at start-up."""
    from explorer.app.targets import build_target as build

    return build(redact=redact)


class ContextActions:
    def __init__(self, view: WindowView, marks: CompareMarks) -> None:
        self.view = view
        self.marks = marks
        self.dialogs: list[QDialog] = []

    def handlers(self) -> dict[str, Callable[[int], None]]:
        return {"context_at": self.context_at, "compare_context": self.compare_context}

    def availability(self, mid: int) -> dict[str, Availability]:
        return {"compare_context": self._pair_availability(mid)}

    def _pair_availability(self, mid: int) -> Availability:
        ids = self.marks.ids()
        if len(ids) == 2 or (len(ids) == 1 and mid not in ids):
            return Availability(True)
        return Availability(False, "mark one node (M), then right-click another, or mark two")

    def pair(self, mid: int) -> tuple[int, int] | None:
        ids = self.marks.ids()
        if len(ids) == 2:
            return ids[0], ids[1]
        if len(ids) == 1 and mid != ids[0]:
            return ids[0], mid
        return None

    def context_at(self, mid: int) -> None:
        from explorer.app.context.at import context_at  # the dialogs load when first used
        from explorer.ui.preview.context_view import ContextDialog

        conv = self.view.conversation_id
        if conv is None:
            return
        store = self.view.store
        dialog = ContextDialog(f"Context at message {mid} — what the model saw",
                               self.view.window())
        self._open(dialog)
        redact = self.view.redaction.on

        def build(_ticket: object) -> NodeContext:
            return context_at(store, conv, mid, build_target(redact=redact))

        self.view.tasks.run(build, on_done=dialog.show_context,
                         on_failed=lambda e: dialog.show_error(error_line(e)))

    def compare_context(self, mid: int) -> None:
        from explorer.app.context.at import context_at
        from explorer.app.context.diff import diff
        from explorer.ui.preview.context_view import ContextDiffDialog

        conv = self.view.conversation_id
        pair = self.pair(mid)
        if conv is None or pair is None:
            return
        a, b = pair
        store = self.view.store
        dialog = ContextDiffDialog(f"Context at message {a} (A) and at message {b} (B)",
                                   self.view.window())
        self._open(dialog)

        redact = self.view.redaction.on

        def build(_ticket: object) -> ContextDiff:
            target = build_target(redact=redact)
            return diff(context_at(store, conv, a, target), context_at(store, conv, b, target))

        self.view.tasks.run(build, on_done=dialog.show_diff,
                         on_failed=lambda e: dialog.show_error(error_line(e)))
        self.marks.clear()

    def _open(self, dialog: QDialog) -> None:
        self.dialogs = [d for d in self.dialogs if d.isVisible()] + [dialog]
        dialog.show()
