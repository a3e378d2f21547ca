"""The window's menu bar: every action with its shortcut, each run by the controller that does it.

The menus only name and place the actions (the right-click menu offers the ones on one
message); what an action does lives in its controller (``WindowActions``, ``TendActions``,
``CompareActions``, ...). An action on "the selected message" asks the window's selection when
it is triggered, so it acts on the message chosen inside a turn (V1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from explorer.app.ops import op
from explorer.app.tending.menu import TEND_KEYS

if TYPE_CHECKING:
    from explorer.ui.window.main_window import MainWindow

Shortcut = QKeySequence.StandardKey | str | None


def action_name(text: str) -> str:
    """The object name a menu text gives its action ("Set checkpoint…" → set_checkpoint)."""
    return text.rstrip("…★ ").lower().replace(" ", "_")


class WindowMenus:
    """File, Edit, Conversation (with Tend branch), View and Help; Undo and Redo name what they
    undo."""

    def __init__(self, window: MainWindow) -> None:
        self.w = window
        self._file()
        self.undo, self.redo = self._edit()
        self._conversation()
        self._view()
        self._help()

    def _file(self) -> None:
        w, d = self.w, self.w.actions_.dialogs
        menu = w.menuBar().addMenu("&File")
        self.op_action(menu, "import", d.import_dialog)
        self.op_action(menu, "sync", d.find_conversations)
        self.op_action(menu, "export", w.actions_.exports.export_conversation)
        menu.addAction(w.redaction.action)
        menu.addSeparator()
        self.action(menu, "Quit", w.close, QKeySequence.StandardKey.Quit)

    def _edit(self) -> tuple[QAction, QAction]:
        w, d = self.w, self.w.actions_.dialogs
        menu = w.menuBar().addMenu("&Edit")
        undo = self.op_action(menu, "undo", w.tend.undo)
        redo = self.op_action(menu, "redo", w.tend.redo)
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        menu.aboutToShow.connect(lambda: self._name_undo(undo, redo))
        menu.addSeparator()
        self.action(menu, "Find in all conversations…", d.search, QKeySequence.StandardKey.Find)
        self.action(menu, "Copy message text", self.on_selected(w.actions_.exports.copy),
                    "Ctrl+Shift+C")
        self.action(menu, "Command bar", w.open_command_bar, "Ctrl+K")
        menu.addSeparator()
        self.action(menu, "Settings…", d.settings_dialog, "Ctrl+,")  # Cmd+, on macOS
        return undo, redo

    def _name_undo(self, undo: QAction, redo: QAction) -> None:
        """"Undo archive", "Redo send": what the two would do, read when the menu opens."""
        undo.setText(self.w.tend.undo_text())
        redo.setText(self.w.tend.redo_text())

    def _conversation(self) -> None:
        w, b, d = self.w, self.w.actions_.branches, self.w.actions_.dialogs
        menu = w.menuBar().addMenu("&Conversation")
        self.op_action(menu, "branch", self.on_selected(b.branch))
        self.op_action(menu, "edit", self.on_selected(b.edit))
        self.op_action(menu, "fork", self.on_selected(b.fork))
        self.op_action(menu, "checkpoint", self.on_selected(b.checkpoint))
        self.op_action(menu, "rewind", b.rewind_dialog)
        self.action(menu, "Compare with siblings", self.on_selected(w.compares.compare),
                    "Ctrl+Shift+D")
        self.action(menu, "Mark for comparison", self.on_selected(w.compares.toggle_mark), "M")
        self.action(menu, "Compare marked", w.compares.compare_marked, "Ctrl+D")
        self.action(menu, "Clear compare marks", w.compares.clear_marks)
        self.op_action(menu, "compact", d.compaction_preview)
        self.action(menu, "Context at this point…",
                    self.on_selected(w.context_actions.context_at), "Ctrl+Shift+X")
        self._tend(menu.addMenu("Tend branch"))

    def _tend(self, menu: QMenu) -> None:
        """The tending actions on the selected message (the right-click menu has them too)."""
        w = self.w
        handlers = w.tend.handlers()
        for key in TEND_KEYS:
            self.op_action(menu, key, self.on_selected(handlers[key]))
        menu.addSeparator()
        self.op_action(menu, "replay", self.on_selected(w.runs.replay))
        self.op_action(menu, "fanout", w.runs.fanout)

    def _view(self) -> None:
        w = self.w
        menu = w.menuBar().addMenu("&View")
        self.action(menu, "Fit tree", w.graph.fit, "F")
        self.action(menu, "Go to tip", w.go_to_tip, "Ctrl+T")
        for act in (w.follow.action, w.graph.mode_action):
            menu.addAction(act)
            w.addAction(act)

    def _help(self) -> None:
        menu = self.w.menuBar().addMenu("&Help")
        self.action(menu, "Open log folder", self.w.open_log_folder)
        self.action(menu, "Show last errors", self.w.error_bar.show_again)

    def op_action(self, menu: QMenu, op_id: str, slot: Callable[[], object]) -> QAction:
        """The entry of a declared operation: its text and shortcut are the declaration's."""
        spec = op(op_id)
        act = self.action(menu, spec.title, slot, spec.shortcut)
        act.setProperty("op", op_id)
        act.setToolTip(spec.help)
        return act

    def on_selected(self, handler: Callable[[int], None]) -> Callable[[], None]:
        """``handler`` on the selected message when triggered (or say nothing is selected)."""
        return lambda: self.w.actions_.on_selected(handler)

    def action(self, menu: QMenu, text: str, slot: Callable[[], object],
               shortcut: Shortcut = None) -> QAction:
        """An entry of ``menu`` whose shortcut works anywhere in the window."""
        act = menu.addAction(text)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.triggered.connect(lambda _=False: slot())
        act.setObjectName(action_name(text))
        self.w.addAction(act)
        return act
