"""The window's actions, found in the one controller that does each.

Tree actions (branch, edit, fork, checkpoint, rewind) live in
:class:`~explorer.ui.tending.branch_actions.BranchActions`, dialogs and windows in
:class:`~explorer.ui.window.dialogs.WindowDialogs`, copying and exporting in
:class:`~explorer.ui.sharing.exports.Exports`, model calls in
:class:`~explorer.ui.calls.model_calls.ModelCalls`; questions to the person go through
the window's :class:`~explorer.ui.questions.Questions`. This object makes them,
holding only the window's :class:`~explorer.ui.window.view.WindowView`, and maps
the right-click menu's entries to them (compare and tending add their own).
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.tending.message_actions import MessageActions, actions_for
from explorer.ui.calls.model_calls import ModelCalls
from explorer.ui.sharing.exports import Exports
from explorer.ui.sharing.share_dialog import ShareBranch
from explorer.ui.tending.branch_actions import BranchActions
from explorer.ui.tending.tree_commands import TreeCommands
from explorer.ui.window.dialogs import OpenCompare, WindowDialogs
from explorer.ui.window.view import WindowView


class WindowActions:
    def __init__(self, view: WindowView, open_compare: OpenCompare) -> None:
        self.view = view
        self.commands = TreeCommands(view.store, view.ops)  # the command bar's too
        self.branches = BranchActions(view, self.commands)
        self.dialogs = WindowDialogs(view, open_compare)
        self.exports = Exports(view.store, view.tasks, view.ops, lambda: view.conversation_id,
                               lambda: view.redaction.on, view.questions, view.window())
        self.share = ShareBranch(view.store, view.ops, view.questions, view.window(),
                                 lambda: view.conversation_id)
        self.model_calls = ModelCalls(
            view.tasks, view.store, view.command_bar, lambda: view.conversation_id,
            lambda: view.redaction.on, lambda *q: view.questions.ask_multiline(*q),
            lambda text: view.questions.fail(text), view.window())

    def availability(self, mid: int) -> MessageActions:
        conv = self.view.conversation_id
        assert conv is not None
        return actions_for(self.view.store, conv, mid)

    def menu_handlers(self) -> dict[str, Callable[..., None]]:
        """The right-click menu's entries that live here."""
        b, e, m = self.branches, self.exports, self.model_calls
        return {"branch": b.branch, "edit": b.edit, "fork": b.fork,
                "checkpoint": b.checkpoint, "rewind": b.rewind,
                "export": lambda mid, fmt: e.export(fmt, mid), "copy": e.copy,
                "rerun": m.rerun, "regenerate": m.regenerate,
                "handoff": self.dialogs.continue_in, "share": self.share.share}

    def on_selected(self, then: Callable[[int], None]) -> None:
        """Run ``then`` on the selected message, or say that nothing is selected."""
        mid = self.view.selected_message()
        if mid is None:
            self.view.questions.tell("Nothing selected",
                                     "Select a message in the tree or the transcript first")
            return
        then(mid)
