"""The window's tending actions: archive, delete, star, label, note, merge back, unfold,
undo, redo (T6–T8).

The operations are ``TendCommands`` (the command bar runs the same ones); this adds
what the menus and the graph's chips need around them: the questions (a branch
name, a note, whether to delete checkpoints too), the notice of what happened
and the error shown instead. It reaches the window only through ``TendView``.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.message_actions import Availability
from explorer.app.tend_menu import tending_availability
from explorer.app.tree_actions import Change
from explorer.store import NotFound, StoreError
from explorer.store.marks import Marks
from explorer.tree.tending import CheckpointsOnBranch
from explorer.ui.tend_commands import TendCommands
from explorer.ui.tend_view import Asks, TendView

WITH_CHECKPOINTS = "Delete it with its checkpoints"


class TendActions:
    def __init__(self, view: TendView, asks: Asks) -> None:
        self.view = view
        self.asks = asks
        self.commands = TendCommands(view.store, lambda: view.refresh())

    def availability(self, mid: int) -> dict[str, Availability]:
        conv = self.view.conversation_id
        return tending_availability(self.view.store, conv, mid) if conv is not None else {}

    def handlers(self) -> dict[str, Callable[..., None]]:
        return {"archive": self.archive, "unarchive": self.unarchive, "delete": self.delete,
                "star": self.star, "label": self.label, "note": self.note,
                "merge": self.merge}

    def _do(self, title: str, fn: Callable[[], Change], after: str = "") -> bool:
        try:
            change = fn()
        except (StoreError, NotFound) as e:
            self.asks.fail(str(e.args[0]) if isinstance(e, NotFound) and e.args else str(e))
            return False
        self.asks.tell(title, change.summary + after)
        return True

    def archive(self, mid: int) -> None:
        self._do("Archive", lambda: self.commands.archive(mid))

    def unarchive(self, mid: int) -> None:
        self._do("Unarchive", lambda: self.commands.unarchive(mid))

    def delete(self, mid: int) -> None:
        """Delete the branch; when checkpoints sit on it, ask whether they go too."""
        try:
            change = self.commands.delete(mid)
        except StoreError as e:
            if not isinstance(e.__cause__, CheckpointsOnBranch):
                self.asks.fail(str(e))
                return
            answer = self.asks.ask_item("Delete branch", str(e).split(";")[0],
                                        ["Keep the branch", WITH_CHECKPOINTS])
            if answer == WITH_CHECKPOINTS:
                self._do("Delete", lambda: self.commands.delete(mid, with_checkpoints=True))
            return
        self.asks.tell("Delete", change.summary + " — Edit → Undo restores it")

    def star(self, mid: int) -> None:
        self._do("Prefer path", lambda: self.commands.star(mid))

    def label(self, mid: int) -> None:
        current = self._marks().labels.get(mid, "")
        name = self.asks.ask_text("Name branch", "Branch name (empty clears it):", current)
        if name is not None:
            self._do("Name branch", lambda: self.commands.label(mid, name))

    def note(self, mid: int) -> None:
        current = self._marks().notes.get(mid, "")
        text = self.asks.ask_multiline("Note", "Note on this message (empty clears it):",
                                       current)
        if text is not None:
            self._do("Note", lambda: self.commands.note(mid, text))

    def _marks(self) -> Marks:
        return self.view.store.marks(self.view.conversation_id or 0)

    def merge(self, mid: int) -> None:
        """Merge the branch ending at ``mid`` back after the tip, with the free digest."""
        conv = self.view.conversation_id
        if conv is not None:
            self._do("Merge back", lambda: self.commands.merge(conv, mid))

    def open_marker(self, points: list[int], kind: str) -> None:
        """A click on a branch point's chip: "▸ N archived" unfolds what is folded there,
        "✕ N deleted · undo" restores what was deleted there (each undoable again)."""
        conv = self.view.conversation_id
        if conv is None or not points:
            return
        if kind == "archived":
            self._do("Unarchive", lambda: self.commands.unfold(conv, points))
            return
        for restore in self.commands.deleted_at(conv, points):
            if not self._do("Restore", restore):
                return

    def undo(self) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self._do("Undo", lambda: self.commands.undo(conv))

    def redo(self) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self._do("Redo", lambda: self.commands.redo(conv))

    def undo_text(self) -> str:
        return self.commands.undo_text(self.view.conversation_id)

    def redo_text(self) -> str:
        return self.commands.redo_text(self.view.conversation_id)
