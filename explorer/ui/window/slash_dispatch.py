"""What each command-bar command does in the window (the same operations as ``convo``).

One table maps each command's name to the callable that runs it, so a command is
found by lookup, not by building a method name, and the list of what the bar can
do is in one place. The dispatcher is given what it works with (the store, the
bar, the window's selection, refresh and controllers) once, when it is made; it does
not reach into the window afterwards. Outcomes and errors are shown inline in the
bar; nothing here opens a modal dialog except the file chooser of ``/export``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.app.ops.slash import WITH_CHECKPOINTS, SlashCommand
from explorer.app.tending.tree_actions import Change
from explorer.app.views.read import tree_lines
from explorer.store import StoreError
from explorer.tree.errors import ExplorerError, error_line
from explorer.tree.tending import CheckpointsOnBranch
from explorer.ui.background.op_runner import telling
from explorer.ui.window.view import WindowView

if TYPE_CHECKING:
    from explorer.ui.tending.commands import TendCommands
    from explorer.ui.tending.runs import TendRuns
    from explorer.ui.window.actions import WindowActions

Handler = Callable[[SlashCommand], None]
WITHOUT_CONVERSATION = frozenset({"search"})  # commands that need no open conversation


class SlashDispatcher:
    def __init__(self, view: WindowView, actions: WindowActions, runs: TendRuns,
                 tend: TendCommands) -> None:
        self.store = view.store
        self.bar = view.command_bar
        self._conversation: Callable[[], int | None] = lambda: view.conversation_id
        self._selected = view.selected_message
        self.commands = actions.commands  # the menus' fork, checkpoint and rewind
        dialogs, exports, calls = actions.dialogs, actions.exports, actions.model_calls
        self.table: dict[str, Handler] = {
            "tree": self._tree,
            "context": self._context,
            "shake": self._shake,
            "compact": lambda c: self._compact(c, dialogs.compaction_preview),
            "fork": self._fork,
            "checkpoint": self._checkpoint,
            "rewind": self._rewind,
            "export": lambda c: exports.export(c.arg or "native", None),
            "search": lambda c: dialogs.search(c.arg or ""),
            "send": lambda c: calls.send(c.arg or ""),
            "replay": lambda _c: runs.replay(self._target()),
            "fanout": lambda c: runs.fanout(c.arg or ""),
            # tending (T6–T8) on the selected message, or the tip: the menus' commands
            "archive": lambda _c: tend.archive(self._target(), self._tend, self._failed),
            "unarchive": lambda _c: tend.unarchive(self._target(), self._tend, self._failed),
            "delete": lambda c: self._delete(c, tend),
            "star": lambda _c: tend.star(self._target(), self._tend, self._failed),
            "label": lambda c: tend.label(self._target(), c.arg or "", self._tend,
                                          self._failed),
            "note": lambda c: tend.note(self._target(), c.arg or "", self._tend, self._failed),
            "merge": lambda _c: tend.merge(self._conv(), self._target(), self._tend,
                                           self._failed),
            "undo": lambda _c: tend.undo(self._conv(), self._shown, self._failed),
            "redo": lambda _c: tend.redo(self._conv(), self._shown, self._failed),
        }

    def run(self, command: SlashCommand) -> None:
        if self._conversation() is None and command.name not in WITHOUT_CONVERSATION:
            self.bar.show_error("open a conversation first")
            return
        handler = self.table.get(command.name)
        if handler is None:
            self.bar.show_error(f"/{command.name} is not available here")
            return
        try:
            handler(command)
        except (ExplorerError, OSError) as e:
            self.bar.show_error(error_line(e))

    def _conv(self) -> int:
        return self._conversation() or 0

    def _target(self) -> int:
        """The selected message, or the tip."""
        return self._selected() or self.store.conversation(self._conv()).tip_id or 0

    def _tree(self, _: SlashCommand) -> None:
        self.bar.show_result("\n".join(tree_lines(self.store, self._conv())))

    def _context(self, _: SlashCommand) -> None:
        from explorer.app.context import compacting  # the planner loads when a command needs it
        from explorer.app.targets import build_target  # the estimator loads when asked

        use = compacting.usage(self.store, self._conv(), build_target())
        lines = compacting.usage_lines(use) + compacting.measured_cache_lines(
            self.store, self._conv())
        self.bar.show_result("\n".join(lines))

    def _shake(self, _: SlashCommand) -> None:
        from explorer.app.context import compacting
        from explorer.app.targets import build_target

        plan = compacting.plan_shake(self.store, self._conv(), build_target())
        self.bar.show_result("\n".join(compacting.plan_lines(plan)))

    def _compact(self, command: SlashCommand, preview: Callable[[str | None], None]) -> None:
        preview(command.arg or None)
        self.bar.show_result(
            f"the compaction preview shows the plan{' up to ' + command.arg if command.arg else ''}"
            "; Apply records it")

    def _fork(self, command: SlashCommand) -> None:
        self.commands.fork(self._conv(), self._target(), command.arg or None,
                           self.bar.show_result, self._failed)

    def _checkpoint(self, command: SlashCommand) -> None:
        conv = self._conv()

        def shown(result: str) -> None:
            self.bar.set_context(sorted(self.store.checkpoints(conv)))
            self.bar.show_result(result)
        self.commands.checkpoint(conv, self._target(), command.arg or "", shown, self._failed)

    def _rewind(self, command: SlashCommand) -> None:
        self.commands.rewind(self._conv(), command.arg or "", self.bar.show_result,
                             self._failed)

    def _delete(self, command: SlashCommand, tend: TendCommands) -> None:
        """Delete the selected branch; checkpoints on it go only with ``with-checkpoints``,
        and a refusal says how to type that here (not the command line's flag)."""
        tend.delete(self._target(), self._tend, self._delete_refused,
                    with_checkpoints=command.arg == WITH_CHECKPOINTS)

    def _delete_refused(self, error: BaseException) -> None:
        cause = error.__cause__
        if isinstance(error, StoreError) and isinstance(cause, CheckpointsOnBranch):
            self.bar.show_error(f"the branch holds checkpoint(s) {cause.named}; type "
                                f"/delete {WITH_CHECKPOINTS} to delete them with it, or move "
                                "them first")
            return
        self._failed(error)

    def _failed(self, error: BaseException) -> None:
        """A refusal, told under the bar's input; anything else is a bug for the error bar."""
        telling(self.bar.show_error)(error)

    def _tend(self, change: Change) -> None:
        """Show what a tending command did (the views were refreshed already)."""
        self.bar.show_result(f"{change.summary} (Ctrl+Z undoes it)")

    def _shown(self, change: Change) -> None:
        self.bar.show_result(change.summary)
