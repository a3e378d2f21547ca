"""The right-click menu of a node or message, built from what the message allows.

Disabled entries say why in their text ("Set checkpoint… — inside a turn"), so a
person never has to guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from explorer.app.ops import op
from explorer.app.tending.menu import TEXTS
from explorer.app.tending.message_actions import Availability, MessageActions

MAX_MARKED = 4


class MessageMenu(QMenu):
    """Every action of SPEC §7 for one message; handlers receive the message id."""

    def __init__(self, actions: MessageActions, handlers: dict[str, Callable[..., None]],
                 parent: QWidget | None = None, marked: Sequence[int] = (),
                 tending: Mapping[str, Availability] | None = None,
                 context: Mapping[str, Availability] | None = None) -> None:
        super().__init__(parent)
        self.info = actions
        self.handlers = handlers
        mid = actions.message_id
        self._op("branch", actions.branch)
        self._op("edit", actions.edit)
        self._op("rerun", actions.edit)
        self._op("regenerate", actions.regenerate)
        self._op("fork", actions.fork)
        self.addSeparator()
        if tending:
            self._tending(tending)
        self._op("checkpoint", actions.checkpoint)
        rewind = self.addMenu(op("rewind").title.rstrip("…"))
        rewind.setObjectName("rewind")
        rewind.menuAction().setProperty("op", "rewind")
        for label in actions.rewind_labels:
            act = rewind.addAction(label)
            act.triggered.connect(lambda _=False, lb=label: handlers["rewind"](lb))
        rewind.setEnabled(bool(actions.rewind_labels))
        if not actions.rewind_labels:
            rewind.setTitle("Rewind to checkpoint — no checkpoints yet")
        self.addSeparator()
        self._add("Compare with siblings", "compare", actions.compare)
        mark_text = "Unmark for comparison" if mid in marked else "Mark for comparison"
        self._add(mark_text, "mark", Availability(mid in marked or len(marked) < MAX_MARKED,
                                                  f"at most {MAX_MARKED} branches"))
        others = len(marked)
        self._add(f"Compare marked ({others})", "compare_marked",
                  Availability(2 <= others <= MAX_MARKED, "mark 2 to 4 messages first"))
        self._add("Context at this point…", "context_at", Availability(True))
        self._add("Compare context (with marked)", "compare_context",
                  (context or {}).get("compare_context",
                                      Availability(False, "mark one or two nodes first")))
        from explorer.app.sharing.exporting import FORMATS  # the exporters load with the first menu

        export = self.addMenu("Export branch")
        export.setObjectName("export")
        export.menuAction().setProperty("op", "export")
        for fmt in FORMATS:
            act = export.addAction(fmt)
            act.triggered.connect(lambda _=False, f=fmt: handlers["export"](mid, f))
        if "continue_in" in handlers:
            agents = self.addMenu(op("handoff").title)
            agents.setObjectName("continue_in")
            agents.menuAction().setProperty("op", "handoff")
            for agent, name in (("claude-code", "Claude Code"), ("pi", "pi"),
                                ("codex", "Codex CLI")):
                act = agents.addAction(name)
                act.setObjectName(f"continue_in_{agent}")
                act.triggered.connect(lambda _=False, a=agent: handlers["continue_in"](mid, a))
        self._add("Copy text", "copy", Availability(True))

    def _tending(self, tending: Mapping[str, Availability]) -> None:
        """Archive or unarchive, delete, prefer, name, note, merge back (T6–T8)."""
        for key in TEXTS:
            if key != ("archive" if tending["unarchive"].enabled else "unarchive"):
                self._op(key, tending[key])
        if tending.get("replay_stale", Availability(False)).enabled:  # redo it after the edit
            self._op("replay", tending["replay_stale"],
                     "Replay this stale branch onto the edited prompt…")
        elif "replay" in tending:
            self._op("replay", tending["replay"], "Replay branch onto this edit…")
        self._op("fanout", Availability(True))
        self.addSeparator()

    def _op(self, op_id: str, availability: Availability, text: str = "") -> QAction:
        """A declared operation's entry: its title (or a more precise ``text``), under the
        key the operation declares for this menu."""
        spec = op(op_id)
        assert spec.context is not None, op_id
        act = self._add(text or spec.title, spec.context, availability)
        act.setProperty("op", op_id)
        return act

    def _add(self, text: str, key: str, availability: Availability) -> QAction:
        label = text if availability.enabled else f"{text} — {availability.reason}"
        act = self.addAction(label)
        act.setObjectName(key)
        act.setEnabled(availability.enabled and key in self.handlers)
        act.setToolTip(availability.reason)
        mid = self.info.message_id
        if key in self.handlers and key != "compare_marked":
            act.triggered.connect(lambda _=False: self.handlers[key](mid))
        elif key == "compare_marked" and key in self.handlers:
            act.triggered.connect(lambda _=False: self.handlers[key]())
        return act

    def action(self, key: str) -> QAction:
        found = self.findChild(QAction, key)
        if found is None:
            raise KeyError(key)
        return found
