"""Branch, edit, fork, checkpoint and rewind: the tree actions of the menus and right-click.

Each is one store operation; fork, checkpoint and rewind are the command bar's
:class:`~explorer.ui.tree_commands.TreeCommands` too, so they are written once.
What is asked (a title, a label, a prompt) goes through the window's questions;
errors are told, not raised.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app import tree_actions
from explorer.app.message_actions import branch_target
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.tree_commands import TreeCommands
from explorer.ui.window_view import WindowView


class BranchActions:
    def __init__(self, view: WindowView, commands: TreeCommands) -> None:
        self.view = view
        self.commands = commands

    def guard(self, fn: Callable[[], None]) -> None:
        """Run ``fn``; a store or file error is told to the person, not raised."""
        try:
            fn()
        except (ExplorerError, OSError) as e:
            self.view.questions.fail(error_line(e))

    def branch(self, mid: int) -> None:
        self.branch_in(self.view.conversation_id, mid)

    def branch_in(self, conv: int | None, mid: int) -> None:
        """Make ``mid`` the tip of ``conv`` and show that conversation."""
        if conv is None:
            return

        def run() -> None:
            tree_actions.branch(self.view.store, conv, mid)
            self.view.refresh(conv)
            self.view.questions.tell("Branch", f"the tip is now message {mid}")
        self.guard(run)

    def show_sibling(self, mid: int) -> None:
        """The transcript's ◀ ▶: switch to that sibling's newest continuation."""
        self.branch(branch_target(self.view.store, mid))

    def edit(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        text = self.view.questions.ask_multiline(
            "Edit prompt", "The edited prompt (the original stays):",
            self.view.store.message(mid).text)
        if text is None:
            return

        def run() -> None:
            new = tree_actions.edit(self.view.store, conv, mid, text).changed["created"][0]
            self.view.refresh()
            self.view.questions.tell(
                "Edit prompt", f"message {new} is a sibling of {mid} and the new tip")
        self.guard(run)

    def fork(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        title = self.view.questions.ask_text(
            "Fork from here", "Title of the new conversation:",
            f"Fork of {self.view.store.conversation(conv).display_title}")
        if title is not None:
            self.guard(lambda: self.view.questions.tell(
                "Fork", self.commands.fork(conv, mid, title)))

    def checkpoint(self, mid: int) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        label = self.view.questions.ask_text("Set checkpoint", "Label:")
        if label:
            self.guard(lambda: self.view.questions.tell(
                "Checkpoint", self.commands.checkpoint(conv, mid, label)))

    def rewind(self, label: str) -> None:
        conv = self.view.conversation_id
        if conv is not None:
            self.guard(lambda: self.view.questions.tell(
                "Rewind", self.commands.rewind(conv, label)))

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
