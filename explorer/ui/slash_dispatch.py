"""What each command-bar command does in the window (the same operations as ``convo``).

Outcomes and errors are shown inline in the bar; nothing here opens a modal dialog
except the file chooser of ``/export``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.app import compacting, merge, redo, tree_actions, undo
from explorer.app.slash import SlashCommand
from explorer.app.targets import build_target
from explorer.app.tree_actions import Change
from explorer.app.views import tree_lines
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.tree_commands import TreeCommands

if TYPE_CHECKING:
    from explorer.ui.main_window import MainWindow


class SlashDispatcher:
    def __init__(self, window: MainWindow) -> None:
        self.w = window
        self.commands = TreeCommands(window.store, lambda conv: window.refresh(conv))

    def run(self, command: SlashCommand) -> None:
        bar = self.w.command_bar
        conv = self.w.conversation_id
        if conv is None and command.name not in ("search",):
            bar.show_error("open a conversation first")
            return
        handler = getattr(self, f"_{command.name}", None)
        if handler is None:
            bar.show_error(f"/{command.name} is not available here")
            return
        try:
            handler(command)
        except (ExplorerError, OSError) as e:
            bar.show_error(error_line(e))

    def _target(self) -> int:
        """The selected message, or the tip."""
        conv = self.w.conversation_id or 0
        return self.w.selected_message() or self.w.store.conversation(conv).tip_id or 0

    def _tree(self, _: SlashCommand) -> None:
        self.w.command_bar.show_result("\n".join(tree_lines(self.w.store,
                                                            self.w.conversation_id or 0)))

    def _context(self, _: SlashCommand) -> None:
        target = build_target()
        use = compacting.usage(self.w.store, self.w.conversation_id or 0, target)
        lines = compacting.usage_lines(use) + compacting.measured_cache_lines(
            self.w.store, self.w.conversation_id or 0)
        self.w.command_bar.show_result("\n".join(lines))

    def _shake(self, _: SlashCommand) -> None:
        target = build_target()
        plan = compacting.plan_shake(self.w.store, self.w.conversation_id or 0, target)
        self.w.command_bar.show_result("\n".join(compacting.plan_lines(plan)))

    def _compact(self, command: SlashCommand) -> None:
        self.w.actions_.compaction_preview()
        preview = self.w.preview_window
        if preview is not None and command.arg:
            preview.set_options(rung=command.arg)
        self.w.command_bar.show_result(
            f"the compaction preview shows the plan{' up to ' + command.arg if command.arg else ''}"
            "; Apply records it")

    def _fork(self, command: SlashCommand) -> None:
        conv = self.w.conversation_id or 0
        target = self._target()
        self.w.command_bar.show_result(self.commands.fork(conv, target, command.arg or None))

    def _checkpoint(self, command: SlashCommand) -> None:
        conv = self.w.conversation_id or 0
        result = self.commands.checkpoint(conv, self._target(), command.arg or "")
        self.w.command_bar.set_context(sorted(self.w.store.checkpoints(conv)))
        self.w.command_bar.show_result(result)

    def _rewind(self, command: SlashCommand) -> None:
        conv = self.w.conversation_id or 0
        self.w.command_bar.show_result(self.commands.rewind(conv, command.arg or ""))

    def _export(self, command: SlashCommand) -> None:
        self.w.actions_.export(command.arg or "native", None)

    def _search(self, command: SlashCommand) -> None:
        self.w.actions_.search()
        dialog = self.w.search_dialog
        if dialog is not None:
            dialog.query_edit.setText(command.arg or "")
            dialog.run_query()

    def _send(self, command: SlashCommand) -> None:
        self.w.actions_.send(command.arg or "")

    # -- tending (T6–T8): the selected message, or the tip ------------------------------------
    def _tend(self, title: str, run: Callable[[], Change]) -> None:
        change = run()
        self.w.refresh()
        self.w.command_bar.show_result(f"{change.summary} (Ctrl+Z undoes it)"
                                       if title not in ("undo", "redo") else change.summary)

    def _archive(self, _: SlashCommand) -> None:
        self._tend("archive", lambda: tree_actions.archive(self.w.store, self._target()))

    def _unarchive(self, _: SlashCommand) -> None:
        self._tend("unarchive", lambda: tree_actions.unarchive(self.w.store, self._target()))

    def _delete(self, _: SlashCommand) -> None:
        self._tend("delete", lambda: tree_actions.delete(self.w.store, self._target()))

    def _star(self, _: SlashCommand) -> None:
        self._tend("star", lambda: tree_actions.star(self.w.store, self._target()))

    def _label(self, command: SlashCommand) -> None:
        self._tend("label", lambda: tree_actions.label(self.w.store, self._target(),
                                                       command.arg or ""))

    def _note(self, command: SlashCommand) -> None:
        self._tend("note", lambda: tree_actions.note(self.w.store, self._target(),
                                                     command.arg or ""))

    def _merge(self, _: SlashCommand) -> None:
        conv = self.w.conversation_id or 0
        tip = self.w.store.conversation(conv).tip_id or 0
        self._tend("merge", lambda: merge.merge(self.w.store, self._target(), tip)[0])

    def _undo(self, _: SlashCommand) -> None:
        self._tend("undo", lambda: undo.undo(self.w.store, self.w.conversation_id))

    def _replay(self, _: SlashCommand) -> None:
        self.w.runs.replay(self._target())

    def _fanout(self, command: SlashCommand) -> None:
        self.w.runs.fanout(command.arg or "")

    def _redo(self, _: SlashCommand) -> None:
        self._tend("redo", lambda: redo.redo(self.w.store, self.w.conversation_id))
