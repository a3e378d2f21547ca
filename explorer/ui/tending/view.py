"""What the tending and compare controllers may use of the window, and nothing more.

The controllers (``TendActions``, ``TendRuns``, ``CompareActions``) own their
commands and the state those commands keep; the window is a view they show
results in. They hold these narrow contracts instead of the main window, so what
they reach is listed here, mypy checks that the window provides it, and a test
checks that they reach nothing else (and never import the main window). The
members are named as in ``WindowView``, the wider contract of the window's other
controllers; ``Asks`` is what the window's ``Questions`` provide.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QStatusBar, QWidget

from explorer.store import Store
from explorer.ui.background.op_runner import OpRunner
from explorer.ui.background.tasks import TaskRunner
from explorer.ui.calls.worker import ModelJob
from explorer.ui.sharing.redaction_switch import RedactionSwitch
from explorer.ui.window.command_bar import CommandBar


class Asks(Protocol):
    """Questions to the person and notices (the window's ``Questions``; tests answer them)."""

    def tell(self, title: str, text: str) -> None: ...
    def fail(self, text: str) -> None: ...
    def ask_text(self, title: str, label: str, default: str = "") -> str | None: ...
    def ask_multiline(self, title: str, label: str, default: str = "") -> str | None: ...
    def ask_item(self, title: str, label: str, items: list[str]) -> str | None: ...


class TendView(Protocol):
    """The open conversation, the store behind it and the window's own surfaces."""

    @property
    def store(self) -> Store: ...
    @property
    def conversation_id(self) -> int | None: ...
    @property
    def ops(self) -> OpRunner: ...  # operations run there, off the main thread (O1)
    def window(self) -> QWidget: ...  # the parent of the dialogs and windows opened
    def refresh(self, conv_id: int | None = None) -> None: ...
    def status(self, text: str, ms: int) -> None: ...  # a passing line in the status bar


class RunView(TendView, Protocol):
    """What replay and fan-out also use: the task runner, the command bar for progress,
    the redaction switch (R1) and the model call the window may be running."""

    @property
    def tasks(self) -> TaskRunner: ...
    @property
    def command_bar(self) -> CommandBar: ...
    @property
    def redaction(self) -> RedactionSwitch: ...
    @property
    def model_job(self) -> ModelJob | None: ...
    def statusBar(self) -> QStatusBar: ...  # Qt's name; the Cancel button sits there
