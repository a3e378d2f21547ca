"""The window as its controllers see it: a narrow, typed contract instead of ``MainWindow``.

The controllers (the menus' and right-click actions, the dialogs, live follow, the
context windows) hold a :class:`WindowView`, never the window itself, so what they
may use of it is written down here and checked by mypy; a test checks that they
use nothing else. The window's panes, splitter and menus stay its own business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from explorer.store import Store
    from explorer.ui.background.op_runner import OpRunner
    from explorer.ui.background.tasks import TaskRunner
    from explorer.ui.questions import Questions
    from explorer.ui.sharing.redaction_switch import RedactionSwitch
    from explorer.ui.window.command_bar import CommandBar


class WindowView(Protocol):
    @property
    def store(self) -> Store:
        """The one store: reads here, writes through its one writer."""

    @property
    def tasks(self) -> TaskRunner:
        """The window's worker pool: long work runs there, results come back by signal."""

    @property
    def ops(self) -> OpRunner:
        """Where operations run, off the main thread and in order; outcomes come back (O1)."""

    @property
    def questions(self) -> Questions:
        """Questions to the person and notices of outcomes and errors."""

    @property
    def command_bar(self) -> CommandBar:
        """Where commands and model calls show their results inline."""

    @property
    def redaction(self) -> RedactionSwitch:
        """The window's switch: are secrets redacted from sends, previews, exports (R1)."""

    @property
    def conversation_id(self) -> int | None:
        """The open conversation, if any."""

    def window(self) -> QWidget:
        """The parent for the dialogs and windows a controller opens (Qt's name)."""

    def selected_message(self) -> int | None:
        """The message selected in the graph or the transcript."""

    def open_conversation(self, conv_id: int) -> None:
        """Show ``conv_id`` with its tip selected."""

    def reveal(self, mid: int) -> None:
        """Centre and select ``mid`` in the open conversation (a preview when off the path)."""

    def refresh(self, conv_id: int | None = None) -> None:
        """Reload every view after the store changed (``conv_id`` is opened if another)."""

    def refresh_views(self, names: frozenset[str]) -> None:
        """Reload only the named views: "conversations", "graph", "transcript", "context"."""

    def update_status(self) -> None:
        """Rewrite the status line and the context bars for the open conversation."""

    def status(self, text: str, ms: int) -> None:
        """A transient line in the status bar, for ``ms`` milliseconds."""
