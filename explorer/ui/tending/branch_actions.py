"""Branch, edit, fork, checkpoint and rewind: the tree actions of the menus and right-click.

Each is one store operation, run off the main thread by the window's operation runner;
fork, checkpoint and rewind are the command bar's
:class:`~explorer.ui.tending.tree_commands.TreeCommands` too, so they are written once. What is
asked (a title, a label, a prompt) goes through the window's questions first; the outcome
and any error are told when the operation is written, not raised.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.tending import tree_actions
from explorer.app.tending.message_actions import branch_target
from explorer.ui.background.op_runner import telling
from explorer.ui.tending.tree_commands import TreeCommands
from explorer.ui.window.view import WindowView


class BranchActions:
    def __init__(self, view: WindowView, commands: TreeCommands) -> None:
        self.view = view
        self.commands = commands

    @property
    def failed(self) -> Callable[[BaseException], None]:
        return telling(self.view.questions.fail)

    def told(self, title: str) -> Callable[[str], None]:
        return lambda line: self.view.questions.tell(title, line)

    def branch(self, mid: int) -> None:
        self.branch_in(self.view.conversation_id, mid)

    def branch_in(self, conv: int | None, mid: int, select: int | None = None,
                  then: Callable[[], object] | None = None) -> None:
        """Make ``mid`` the tip of ``conv`` and show that conversation (with ``select``
        selected, once it is shown); then call ``then``."""
        if conv is None:
            return

        def done(_change: object) -> None:
            self.view.questions.tell("Branch", f"the tip is now message {mid}")
            if select is not None:
                self.view.reveal(select)
            if then is not None:
                then()
        self.view.ops.run("Branching", lambda: tree_actions.branch(self.view.store, conv, mid),
                          done, self.failed, refresh=lambda _c: conv)

    def show_sibling(self, mid: int) -> None:
        """The transcript's ◀ ▶: switch to that sibling's newest continuation, the sibling
        itself selected."""
        self.branch_in(self.view.conversation_id, branch_target(self.view.store, mid),
                       select=mid)

    def edit(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        text = self.view.questions.ask_multiline(
            "Edit prompt", "The edited prompt (the original stays):",
            self.view.store.message(mid).text)
        if text is None:
            return
        self.view.ops.run(
            "Editing the prompt", lambda: tree_actions.edit(self.view.store, conv, mid, text),
            lambda change: self.view.questions.tell(
                "Edit prompt",
                f"message {change.changed['created'][0]} is a sibling of {mid} and the new tip"),
            self.failed)

    def fork(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        title = self.view.questions.ask_text(
            "Fork from here", "Title of the new conversation:",
            f"Fork of {self.view.store.conversation(conv).display_title}")
        if title is not None:
            self.commands.fork(conv, mid, title, self.told("Fork"), self.failed)

    def checkpoint(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        label = self.view.questions.ask_text("Set checkpoint", "Label:")
        if label:
            self.commands.checkpoint(conv, mid, label, self.told("Checkpoint"), self.failed)

    def rewind(self, label: str) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self.commands.rewind(conv, label, self.told("Rewind"), self.failed)

    def rewind_dialog(self) -> None:
        """Edit → Rewind to checkpoint: choose one of the conversation's checkpoints."""
        conv = self.view.conversation_id
        if conv is None:
            return
        labels = sorted(self.view.store.checkpoints(conv))
        if not labels:
            self.view.questions.tell("Rewind", "this conversation has no checkpoints")
            return
        label = self.view.questions.ask_item("Rewind to checkpoint", "Checkpoint:", labels)
        if label:
            self.rewind(label)
