"""What the window's menus and right-click entries do, each one store operation.

Questions to the person (a label, a new prompt, a file name) go through the
``ask_*`` methods, so tests answer them without modal dialogs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from explorer.app import tree_actions
from explorer.app.message_actions import MessageActions, actions_for, branch_target
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.compare_actions import CompareActions
from explorer.ui.exports import Exports
from explorer.ui.import_dialog import start_import_dialog
from explorer.ui.model_calls import ModelCalls
from explorer.ui.tree_commands import TreeCommands

if TYPE_CHECKING:
    from explorer.app.handoff import Handoff
    from explorer.ui.main_window import MainWindow


class WindowActions:
    def __init__(self, window: MainWindow) -> None:
        self.w = window
        self.last_error = ""
        self.compares = CompareActions(window, self)  # marks, compare windows, refusals
        self.commands = TreeCommands(window.store, lambda conv: window.refresh(conv))
        self.exports = Exports(window.store, window.tasks, lambda: window.conversation_id,
                               lambda: window.redaction.on, self, window)
        self.model_calls = ModelCalls(
            window.tasks, window.store, window.command_bar, lambda: window.conversation_id,
            lambda: window.redaction.on, lambda *q: self.ask_multiline(*q), self.fail, window)

    # -- questions (replaced in tests) ------------------------------------------------
    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        text, ok = QInputDialog.getText(self.w, title, label, text=default)
        return text if ok else None

    def ask_multiline(self, title: str, label: str, default: str = "") -> str | None:
        text, ok = QInputDialog.getMultiLineText(self.w, title, label, default)
        return text if ok else None

    def ask_item(self, title: str, label: str, items: list[str]) -> str | None:
        item, ok = QInputDialog.getItem(self.w, title, label, items, 0, False)
        return item if ok else None

    def ask_save_path(self, title: str, suggested: str, filters: str) -> Path | None:
        name, _ = QFileDialog.getSaveFileName(self.w, title, suggested, filters)
        return Path(name) if name else None

    def tell(self, title: str, text: str) -> None:
        self.w.statusBar().showMessage(text, 8000)

    def fail(self, text: str) -> None:
        self.last_error = text
        self.w.statusBar().showMessage(text, 10000)
        QMessageBox.warning(self.w, "Conversation Explorer", text)

    # -- plumbing -----------------------------------------------------------------------
    def _conv(self) -> int | None:
        return self.w.conversation_id

    def availability(self, mid: int) -> MessageActions:
        conv = self._conv()
        assert conv is not None
        return actions_for(self.w.store, conv, mid)

    def menu_handlers(self) -> dict[str, Callable[..., None]]:
        return {"branch": self.branch, "edit": self.edit, "fork": self.fork,
                "checkpoint": self.checkpoint, "rewind": self.rewind,
                "export": self.export_branch, "copy": self.copy,
                "rerun": self.rerun, "regenerate": self.regenerate,
                "continue_in": self.continue_in, **self.compares.handlers()}

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (ExplorerError, OSError) as e:
            self.fail(error_line(e))

    def _selected(self, then: Callable[[int], None]) -> None:
        mid = self.w.selected_message()
        if mid is None:
            self.tell("Nothing selected", "Select a message in the tree or the transcript first")
            return
        then(mid)

    # -- tree operations ------------------------------------------------------------------
    def branch(self, mid: int) -> None:
        conv = self._conv()
        if conv is None:
            return

        def run() -> None:
            tree_actions.branch(self.w.store, conv, mid)
            self.w.refresh()
            self.tell("Branch", f"the tip is now message {mid}")
        self._guard(run)

    def show_sibling(self, mid: int) -> None:
        """The transcript's ◀ ▶: switch to that sibling's newest continuation."""
        self.branch(branch_target(self.w.store, mid))

    def edit(self, mid: int) -> None:
        conv = self._conv()
        if conv is None:
            return
        text = self.ask_multiline("Edit prompt", "The edited prompt (the original stays):",
                                  self.w.store.message(mid).text)
        if text is None:
            return

        def run() -> None:
            new = tree_actions.edit(self.w.store, conv, mid, text).changed["created"][0]
            self.w.refresh()
            self.tell("Edit prompt", f"message {new} is a sibling of {mid} and the new tip")
        self._guard(run)

    def fork(self, mid: int) -> None:
        conv = self._conv()
        if conv is None:
            return
        title = self.ask_text("Fork from here", "Title of the new conversation:",
                              f"Fork of {self.w.store.conversation(conv).title}")
        if title is None:
            return

        self._guard(lambda: self.tell("Fork", self.commands.fork(conv, mid, title)))

    def checkpoint(self, mid: int) -> None:
        conv = self._conv()
        if conv is None:
            return
        label = self.ask_text("Set checkpoint", "Label:")
        if not label:
            return

        self._guard(lambda: self.tell("Checkpoint", self.commands.checkpoint(conv, mid, label)))

    def rewind(self, label: str) -> None:
        conv = self._conv()
        if conv is None:
            return

        self._guard(lambda: self.tell("Rewind", self.commands.rewind(conv, label)))

    def rewind_dialog(self) -> None:
        conv = self._conv()
        if conv is None:
            return
        labels = sorted(self.w.store.checkpoints(conv))
        if not labels:
            self.tell("Rewind", "this conversation has no checkpoints")
            return
        label = self.ask_item("Rewind to checkpoint", "Checkpoint:", labels)
        if label:
            self.rewind(label)

    def compaction_preview(self, rung: str | None = None) -> None:
        """The preview of the compaction plan (up to ``rung`` when given)."""
        from explorer.ui.preview.window import CompactionPreview  # loaded when first opened

        conv = self._conv()
        if conv is None:
            return
        if self.w.preview_window is not None:
            self.w.preview_window.shutdown()
            self.w.preview_window.close()
        window = CompactionPreview(self.w.store, conv, self.w)
        window.bind_redaction(self.w.redaction)
        window.applied.connect(lambda _record: self.w.refresh())
        window.bench.probed.connect(self._probed)
        self.w.preview_window = window
        if rung:
            window.set_options(rung=rung)
        window.show()

    def _probed(self, ids: list[int]) -> None:
        """The preview's probe answers, side by side with their costs (the test bench)."""
        self.w.refresh()
        self.compares.open(ids)

    # -- model calls (on a worker; the turn is stored only when the answer is complete) ----
    def send(self, text: str) -> None:
        self.model_calls.send(text)

    def rerun(self, mid: int) -> None:
        self.model_calls.rerun(mid)

    def regenerate(self, mid: int) -> None:
        self.model_calls.regenerate(mid)

    def cancel_model(self) -> None:
        self.model_calls.cancel()

    # The dialogs below load their modules when first opened, not with the window.
    def settings_dialog(self) -> None:
        from explorer.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.w)
        dialog.setModal(True)
        dialog.show()
        self.w.settings_window = dialog

    # -- text and files ---------------------------------------------------------------------
    def copy(self, mid: int) -> None:
        self.exports.copy(mid)

    def export_branch(self, mid: int, fmt: str) -> None:
        self.exports.export(fmt, mid)

    def export_conversation(self) -> None:
        self.exports.export_conversation()

    def export(self, fmt: str, at: int | None) -> None:
        self.exports.export(fmt, at)

    # -- menu entries acting on the selection ---------------------------------------------
    def branch_selected(self) -> None:
        self._selected(self.branch)

    def edit_selected(self) -> None:
        self._selected(self.edit)

    def fork_selected(self) -> None:
        self._selected(self.fork)

    def checkpoint_selected(self) -> None:
        self._selected(self.checkpoint)

    def compare_selected(self) -> None:
        self._selected(self.compares.compare)

    def copy_selected(self) -> None:
        self._selected(self.copy)

    # -- windows of their own ------------------------------------------------------------
    def search(self, query: str | None = None) -> None:
        """The search over all conversations; ``query``, when given, is run at once."""
        from explorer.ui.search_dialog import SearchDialog

        if self.w.search_dialog is None:
            dialog = SearchDialog(self.w.store, self.w)
            dialog.hitChosen.connect(self.open_hit)
            self.w.search_dialog = dialog
        self.w.search_dialog.show()
        self.w.search_dialog.raise_()
        if query is not None:
            self.w.search_dialog.query_edit.setText(query)
            self.w.search_dialog.run_query()

    def open_hit(self, conv_id: int, mid: int) -> None:
        self.w.open_conversation(conv_id)
        self.w.graph.center_on(mid)
        self.w.graph.select_node(mid)
        self.w.branch_state.graph_selected(mid)  # an off-path hit shows as a branch preview

    def import_dialog(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self.w, "Import transcripts")
        if names:
            self.start_import([Path(n) for n in names])

    def continue_in(self, mid: int, agent: str) -> None:
        """Hand the branch ending at ``mid`` back to ``agent`` as a new session."""
        from explorer.app.handoff import handoff
        from explorer.ui.handoff_dialog import HandoffDialog

        conv = self._conv()
        if conv is None:
            return
        store = self.w.store

        def shown(done: Handoff) -> None:
            dialog = HandoffDialog(done, self.w)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.show()

        self.w.tasks.run(lambda _ticket: handoff(store, conv, agent, at=mid), on_done=shown,
                         on_failed=lambda e: self.fail(str(e)))

    def find_conversations(self) -> None:
        """The agents' session folders, found off-thread; the ticked ones are synced."""
        from explorer.ui.sources_dialog import SourcesDialog

        dialog = SourcesDialog(self.w.store, self.w.tasks, self.w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    def start_import(self, paths: list[Path]) -> None:
        dialog = start_import_dialog(self.w.store, paths, self.w)
        dialog.importFinished.connect(lambda _report: self.w.refresh())
        dialog.conversationChosen.connect(self.w.open_conversation)
        self.w.import_dialog = dialog
