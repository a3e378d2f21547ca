"""The window's tending actions: archive, delete, star, label, note, merge back, unfold,
undo, redo (T6–T8).

The operations are ``TendCommands`` (the command bar runs the same ones, off the main
thread); this adds what the menus and the graph's chips need around them: the questions
(a branch name, a note, whether to delete checkpoints too), the notice of what happened
and the error shown instead, once the operation is written. It reaches the window only
through ``TendView``.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.tending.menu import tending_availability
from explorer.app.tending.message_actions import Availability
from explorer.app.tending.tree_actions import Change
from explorer.store import StoreError
from explorer.store.marks import Marks
from explorer.tree.tending import CheckpointsOnBranch
from explorer.ui.background.op_runner import telling
from explorer.ui.tending.commands import TendCommands
from explorer.ui.tending.view import Asks, TendView

WITH_CHECKPOINTS = "Delete it with its checkpoints"


class TendActions:
    def __init__(self, view: TendView, asks: Asks) -> None:
        self.view = view
        self.asks = asks
        self.commands = TendCommands(view.store, view.ops)

    def availability(self, mid: int) -> dict[str, Availability]:
        conv = self.view.conversation_id
        return tending_availability(self.view.store, conv, mid) if conv is not None else {}

    def handlers(self) -> dict[str, Callable[..., None]]:
        return {"archive": self.archive, "unarchive": self.unarchive, "delete": self.delete,
                "star": self.star, "label": self.label, "note": self.note,
                "merge": self.merge}

    def _told(self, title: str, after: str = "") -> Callable[[Change], None]:
        return lambda change: self.asks.tell(title, change.summary + after)

    def _failed(self, error: BaseException) -> None:
        """A refusal is told in one line; anything else is a bug for the error bar."""
        telling(self.asks.fail)(error)

    def archive(self, mid: int) -> None:
        self.commands.archive(mid, self._told("Archive"), self._failed)

    def unarchive(self, mid: int) -> None:
        self.commands.unarchive(mid, self._told("Unarchive"), self._failed)

    def delete(self, mid: int) -> None:
        """Delete the branch; when checkpoints sit on it, ask whether they go too."""
        self.commands.delete(mid, self._told("Delete", " — Edit → Undo restores it"),
                             lambda e: self._delete_refused(mid, e))

    def _delete_refused(self, mid: int, error: BaseException) -> None:
        if not (isinstance(error, StoreError)
                and isinstance(error.__cause__, CheckpointsOnBranch)):
            self._failed(error)
            return
        answer = self.asks.ask_item("Delete branch", str(error).split(";")[0],
                                    ["Keep the branch", WITH_CHECKPOINTS])
        if answer == WITH_CHECKPOINTS:
            self.commands.delete(mid, self._told("Delete"), self._failed, with_checkpoints=True)

    def star(self, mid: int) -> None:
        self.commands.star(mid, self._told("Prefer path"), self._failed)

    def label(self, mid: int) -> None:
        current = self._marks().labels.get(mid, "")
        name = self.asks.ask_text("Name branch", "Branch name (empty clears it):", current)
        if name is not None:
            self.commands.label(mid, name, self._told("Name branch"), self._failed)

    def note(self, mid: int) -> None:
        current = self._marks().notes.get(mid, "")
        text = self.asks.ask_multiline("Note", "Note on this message (empty clears it):",
                                       current)
        if text is not None:
            self.commands.note(mid, text, self._told("Note"), self._failed)

    def _marks(self) -> Marks:
        return self.view.store.marks(self.view.conversation_id or 0)

    def merge(self, mid: int) -> None:
        """Merge the branch ending at ``mid`` back after the tip, with the free digest."""
        conv = self.view.conversation_id
        if conv is not None:
            self.commands.merge(conv, mid, self._told("Merge back"), self._failed)

    def open_marker(self, points: list[int], kind: str) -> None:
        """A click on a branch point's chip: "▸ N archived" unfolds what is folded there,
        "✕ N deleted · undo" restores what was deleted there (each undoable again)."""
        conv = self.view.conversation_id
        if conv is None or not points:
            return
        if kind == "archived":
            self.commands.unfold(conv, points, self._told("Unarchive"), self._failed)
        else:
            self.commands.restore_at(conv, points, self._told("Restore"), self._failed)

    def undo(self) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self.commands.undo(conv, self._told("Undo"), self._failed)

    def redo(self) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self.commands.redo(conv, self._told("Redo"), self._failed)

    def undo_text(self) -> str:
        return self.commands.undo_text(self.view.conversation_id)

    def redo_text(self) -> str:
        return self.commands.redo_text(self.view.conversation_id)
