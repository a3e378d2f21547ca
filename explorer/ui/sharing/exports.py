"""Copying a message and exporting a conversation or a branch, in any format.

One job: ask where to write (through the window's questions, which tests answer),
write off nothing but the store, and say what was written. It is given the
store, the task runner, the open conversation and whether secrets are redacted
when it is made, so it does not reach into the window.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtWidgets import QApplication, QWidget

from explorer.store import Store
from explorer.ui.background.op_runner import OpRunner, telling
from explorer.ui.background.tasks import TaskRunner


def suffix(fmt: str) -> str:
    """The file suffix of an export format (the exporters load with the first export)."""
    from explorer.app.sharing.exporting import EXPORTERS

    return ".jsonl" if fmt == "native" else EXPORTERS[fmt].suffix


class Questions(Protocol):
    """What exporting asks the person, and how it answers (the window's ``ask_*``)."""

    def ask_item(self, title: str, label: str, items: list[str]) -> str | None: ...

    def ask_save_path(self, title: str, suggested: str, filters: str) -> Path | None: ...

    def tell(self, title: str, text: str) -> None: ...

    def fail(self, text: str) -> None: ...


class Exports:
    def __init__(self, store: Store, tasks: TaskRunner, ops: OpRunner,
                 conversation: Callable[[], int | None],
                 redact: Callable[[], bool], questions: Questions, parent: QWidget) -> None:
        self.store, self.tasks, self.ops, self.parent = store, tasks, ops, parent
        self._conversation, self.redact, self.q = conversation, redact, questions

    @property
    def failed(self) -> Callable[[BaseException], None]:
        """A refusal or a file error is told in one line; anything else is a bug."""
        return telling(self.q.fail)

    def copy(self, mid: int) -> None:
        message = self.store.message(mid)
        text = message.text or "\n".join(p.text for p in message.parts if p.text)
        QApplication.clipboard().setText(text)
        self.q.tell("Copy", f"copied {len(text):,} characters")

    def export_conversation(self) -> None:
        from explorer.ui.sharing.agent_export import chosen_format, format_choices

        answer = self.q.ask_item("Export conversation", "Format:", format_choices())
        if answer:
            self.export(chosen_format(answer), None)

    def export(self, fmt: str, at: int | None) -> None:
        """The conversation (or the branch ending at ``at``) as ``fmt``, where the person says."""
        conv = self._conversation()
        if conv is None:
            return
        from explorer.ui.sharing.agent_export import AGENT_FORMATS, export_for_agent

        if fmt in AGENT_FORMATS:  # proposed where the agent keeps this project's sessions
            export_for_agent(self, conv, fmt, at)
            return
        title = self.store.conversation(conv).display_title
        stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in title)[:60].strip()
        ext = suffix(fmt)
        dest = self.q.ask_save_path("Export", f"{stem or 'conversation'}{ext}",
                                    f"{fmt} (*{ext});;All files (*)")
        if dest is None:
            return

        redact = self.redact()

        def work() -> tuple[int, list[str]]:
            from explorer.app.sharing import exporting

            notes: list[str] = []
            return exporting.export_to_file(self.store, conv, dest, fmt, at, notes,
                                            redact=redact), notes

        def done(result: tuple[int, list[str]]) -> None:
            lines, notes = result
            extra = f" ({len(notes)} note(s): {notes[0]})" if notes else ""
            self.q.tell("Export", f"wrote {lines} lines to {dest}{extra}")

        # written off the main thread: a long conversation's export takes seconds (O1)
        self.ops.run("Exporting", work, done, self.failed, refresh=lambda _r: False)
