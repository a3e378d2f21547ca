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

from explorer.app.ops import OPERATIONS, op
from explorer.app.ops.availability import for_message, for_whole_turn, sentence
from explorer.app.ops.catalog import CONV, TEND
from explorer.app.tending.message_actions import Availability

if TYPE_CHECKING:
    from explorer.ui.window.main_window import MainWindow

Shortcut = QKeySequence.StandardKey | str | None


def action_name(text: str) -> str:
    """The object name a menu text gives its action ("Set checkpoint…" → set_checkpoint)."""
    return text.rstrip("…★ ").lower().replace(" ", "_")


class WindowMenus:
    """File, Edit, Conversation (with Tend branch), View and Help; Undo and Redo name what they
    undo.

    The declared operations (``OpSpec.menu``) are placed by their declaration, in catalog
    order; each runs the handler its controller gives for it, on the selected message when it
    acts on one. Opening a menu disables what the selected message does not allow, with the
    sentence ``convo`` prints as the tooltip; a shortcut asks the same question when pressed.
    """

    def __init__(self, window: MainWindow) -> None:
        self.w = window
        self.declared: dict[str, QAction] = {}
        self.on_message: set[str] = set()
        """The declared entries that act on the selected message."""
        self._file()
        self.undo, self.redo = self._edit()
        self._conversation()
        self._view()
        self._help()

    def bar_handlers(self) -> dict[str, Callable[[], object]]:
        """The menu bar's operations that do not act on the selected message."""
        w, d = self.w, self.w.actions_.dialogs
        return {"import": d.import_dialog, "sync": d.find_conversations,
                "export": w.actions_.exports.export_conversation, "undo": w.tend.undo,
                "redo": w.tend.redo, "rewind": w.actions_.branches.rewind_dialog,
                "compact": d.compaction_preview, "fanout": w.runs.fanout}

    def _declared(self, menu: QMenu, place: str) -> None:
        """Every operation declared at ``place``, with its handler."""
        bar, on_message = self.bar_handlers(), self.w.op_handlers()
        asks = False
        for spec in OPERATIONS:
            if spec.menu != place:
                continue
            slot = bar.get(spec.id)
            if slot is None:
                slot, asks = self.on_selected_op(spec.id, on_message[spec.id]), True
                self.on_message.add(spec.id)
            self.declared[spec.id] = self.op_action(menu, spec.id, slot)
        menu.setToolTipsVisible(True)
        if asks and "/" not in place:  # a submenu is reflected when its menu opens
            menu.aboutToShow.connect(self._reflect_selection)
            menu.aboutToHide.connect(self._enable_all)

    def _file(self) -> None:
        w = self.w
        menu = w.menuBar().addMenu("&File")
        self._declared(menu, "File")
        menu.addAction(w.redaction.action)
        menu.addSeparator()
        self.action(menu, "Quit", w.close, QKeySequence.StandardKey.Quit)

    def _edit(self) -> tuple[QAction, QAction]:
        w, d = self.w, self.w.actions_.dialogs
        menu = w.menuBar().addMenu("&Edit")
        self._declared(menu, "Edit")
        undo, redo = self.declared["undo"], self.declared["redo"]
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
        w = self.w
        menu = w.menuBar().addMenu("&Conversation")
        self._declared(menu, CONV)
        menu.addSeparator()
        self.action(menu, "Compare with siblings", self.on_selected(w.compares.compare),
                    "Ctrl+Shift+D")
        self.action(menu, "Mark for comparison", self.on_selected(w.compares.toggle_mark), "M")
        self.action(menu, "Compare marked", w.compares.compare_marked, "Ctrl+D")
        self.action(menu, "Clear compare marks", w.compares.clear_marks)
        self.action(menu, "Context at this point…",
                    self.on_selected(w.context_actions.context_at), "Ctrl+Shift+X")
        self._declared(menu.addMenu("Tend branch"), TEND)

    def _reflect_selection(self) -> None:
        """Disable what the selected message does not allow, saying why (read on opening)."""
        found = self._availability()
        if found is None:
            return
        mid, available = found
        root = self.w.graph.node_root(mid)  # archive and delete take a turn node whole
        whole = available if root == mid else for_whole_turn(
            self.w.store, self.w.conversation_id or 0, root)
        for op_id in self.on_message:
            at, table = (root, whole) if op(op_id).whole_turn else (mid, available)
            act, here = self.declared[op_id], table[op_id]
            act.setEnabled(here.enabled)
            act.setToolTip(op(op_id).help if here.enabled else sentence(op_id, at, here))

    def _enable_all(self) -> None:
        """A closed menu's shortcuts stay live: they ask again when pressed."""
        for act in self.declared.values():
            act.setEnabled(True)

    def _availability(self) -> tuple[int, dict[str, Availability]] | None:
        conv, mid = self.w.conversation_id, self.w.selected_message()
        if conv is None or mid is None:
            return None
        return mid, for_message(self.w.store, conv, mid)

    def on_selected_op(self, op_id: str, handler: Callable[[int], None]) -> Callable[[], None]:
        """``handler`` on the selected message, unless the operation cannot run there: then
        the sentence ``convo`` would print is told instead."""
        def run(mid: int) -> None:
            if op(op_id).whole_turn:  # a turn node's archive or delete takes the whole turn
                mid = self.w.graph.node_root(mid)
            available = for_message(self.w.store, self.w.conversation_id or 0, mid)[op_id]
            if not available.enabled:
                self.w.questions.tell(op(op_id).title, sentence(op_id, mid, available))
                return
            handler(mid)
        return self.on_selected(run)

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
