"""The right-click menu of a node or message, built from what the message allows.

Disabled entries say why in their text ("Set checkpoint… — inside a turn"), so a
person never has to guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from explorer.app.ops import op
from explorer.app.ops.availability import sentence
from explorer.app.sharing.handoff_targets import TARGETS
from explorer.app.tending.menu import TEND_KEYS
from explorer.app.tending.message_actions import Availability, MessageActions

MAX_MARKED = 4


class MessageMenu(QMenu):
    """Every action of SPEC §7 for one message; handlers receive the message id.

    The declared operations (``OpSpec.context``) are offered by id: ``available`` holds
    each one's availability (:func:`explorer.app.ops.availability.for_message`), and a
    disabled entry says the short reason in its text and the whole sentence, the one
    ``convo`` prints, in its tooltip. Without ``available`` (a menu built from the message
    alone) the tending entries are left out.
    """

    def __init__(self, actions: MessageActions, handlers: dict[str, Callable[..., None]],
                 parent: QWidget | None = None, marked: Sequence[int] = (),
                 available: Mapping[str, Availability] | None = None,
                 context: Mapping[str, Availability] | None = None,
                 whole_node: tuple[int, Mapping[str, Availability]] | None = None) -> None:
        super().__init__(parent)
        self.whole_node = whole_node
        self.setToolTipsVisible(True)
        self.info = actions
        self.handlers = handlers
        self.available = dict(available or {
            "branch": actions.branch, "edit": actions.edit, "rerun": actions.edit,
            "regenerate": actions.regenerate, "fork": actions.fork,
            "checkpoint": actions.checkpoint})
        mid = actions.message_id
        for op_id in ("branch", "edit", "rerun", "regenerate", "fork"):
            self._op(op_id)
        self.addSeparator()
        if available is not None:
            self._tending()
        self._op("checkpoint")
        self._rewind(actions.rewind_labels)
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
        self._export(mid)
        if "handoff" in handlers:
            self._handoff(mid)
        if "share" in handlers:
            self._op("share")
        self._add("Copy text", "copy", Availability(True))

    def _rewind(self, labels: Sequence[str]) -> None:
        rewind = self._submenu("rewind", op("rewind").title.rstrip("…"))
        for label in labels:
            act = rewind.addAction(label)
            act.triggered.connect(lambda _=False, lb=label: self.handlers["rewind"](lb))
        rewind.setEnabled(bool(labels))
        if not labels:
            rewind.setTitle("Rewind to checkpoint — no checkpoints yet")

    def _export(self, mid: int) -> None:
        from explorer.app.sharing.exporting import FORMATS  # the exporters load with the first menu

        export = self._submenu("export", "Export branch")
        for fmt in FORMATS:
            act = export.addAction(fmt)
            act.triggered.connect(lambda _=False, f=fmt: self.handlers["export"](mid, f))

    def _handoff(self, mid: int) -> None:
        agents = self._submenu("handoff", op("handoff").title)
        for agent, target in TARGETS.items():
            act = agents.addAction(target.name)
            act.setObjectName(f"continue_in_{agent}")
            act.triggered.connect(lambda _=False, a=agent: self.handlers["handoff"](mid, a))

    def _submenu(self, op_id: str, title: str) -> QMenu:
        """A declared operation whose entry chooses among several (labels, formats, agents)."""
        sub = self.addMenu(title)
        sub.setObjectName(op_id)
        sub.menuAction().setProperty("op", op_id)
        return sub

    def _tending(self) -> None:
        """Archive or unarchive, delete, prefer, name, note, merge back (T6–T8)."""
        unarchive = self.available["unarchive"].enabled
        for key in TEND_KEYS:
            if key != ("archive" if unarchive else "unarchive"):
                self._op(key)
        if self.available.get("replay_stale", Availability(False)).enabled:
            self._op("replay", "Replay this stale branch onto the edited prompt…")
        else:
            self._op("replay", "Replay branch onto this edit…")
        self._op("fanout")
        self.addSeparator()

    def _op(self, op_id: str, text: str = "") -> QAction:
        """A declared operation's entry: its title (or a more precise ``text``), its
        availability, and the sentence ``convo`` would print when it is not available."""
        spec = op(op_id)
        assert spec.context, op_id
        target, found = self.info.message_id, self.available.get(op_id, Availability(True))
        if self.whole_node is not None and spec.whole_turn:
            target, found = self.whole_node[0], self.whole_node[1][op_id]
        act = self._add(text or spec.title, op_id, found, target)
        act.setProperty("op", op_id)
        act.setToolTip(spec.help if found.enabled else sentence(op_id, target, found))
        return act

    def _add(self, text: str, key: str, availability: Availability,
             target: int | None = None) -> QAction:
        label = text if availability.enabled else f"{text} — {availability.reason}"
        act = self.addAction(label)
        act.setObjectName(key)
        act.setEnabled(availability.enabled and key in self.handlers)
        act.setToolTip(availability.reason)
        mid = self.info.message_id if target is None else target
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
