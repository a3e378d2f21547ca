"""Builders for realistic turns, shared by the tests."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import keyring.backend
import keyring.errors
import pytest

from explorer.store import Store
from explorer.tree.model import Message, Part, Usage


def user(text: str) -> Message:
    return Message(id=None, parent_id=None, role="user", parts=[Part("text", text)])


def assistant(text: str, model: str = "test-model") -> Message:
    return Message(id=None, parent_id=None, role="assistant", parts=[Part("text", text)],
                   model=model, usage=Usage(input_tokens=100, output_tokens=20))


def tool_call(name: str, call_id: str, args: dict[str, object] | None = None) -> Message:
    return Message(id=None, parent_id=None, role="assistant", parts=[
        Part("tool_use", text=json.dumps(args or {}), tool_name=name, tool_use_id=call_id)
    ])


def tool_result(call_id: str, text: str, error: bool = False) -> Message:
    return Message(id=None, parent_id=None, role="user", parts=[
        Part("tool_result", text=text, tool_use_id=call_id, is_error=error)
    ])


def tool_turn(n: int, tool: str = "Bash", error: bool = False) -> list[Message]:
    """A whole turn: prompt, a tool call, its result, an answer."""
    return [
        user(f"prompt {n}"),
        tool_call(tool, f"call-{n}", {"command": f"run {n}"}),
        tool_result(f"call-{n}", f"output {n}", error=error),
        assistant(f"answer {n}"),
    ]


def chat_turn(n: int) -> list[Message]:
    return [user(f"prompt {n}"), assistant(f"answer {n}")]


@contextmanager
def statements_run(conn: sqlite3.Connection) -> Iterator[list[str]]:
    """The SQL statements ``conn`` runs inside the block, bound values inlined."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def settled_conversation(store: Store, turns: int, title: str = "settled") -> int:
    """A conversation of ``turns`` turns, chat and tool turns in turn, with the tip's clean
    boundary already kept (its own write): "unchanged" in a test then means what the test
    changes, no more."""
    conv = store.create_conversation(title)
    store.append_turn(conv, [m for n in range(turns)
                             for m in (tool_turn(n) if n % 2 else chat_turn(n))])
    store.conversation(conv)
    store.writes_done()
    return conv


def new_store(tmp_path: Path, name: str = "t.db") -> Store:
    return Store(tmp_path / name)


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend that keeps its entries in a dict (no system service needed)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.entries:
            raise keyring.errors.PasswordDeleteError("no such entry")
        del self.entries[(service, username)]


class BrokenKeyring(keyring.backend.KeyringBackend):
    """A backend that fails the way a locked desktop keyring does."""

    priority = 1

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("the keyring daemon is not answering")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(f"could not store {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise RuntimeError("no")


def newer_database(db: Path) -> None:
    """The demo in ``db``, then marked as upgraded by a later version (migration
    ``0099_future`` applied by version 2.3.0), its journal copied in."""
    from explorer.app.importing.demo import load_demo
    from explorer.store.connection import open_connection

    with Store(db) as store:
        load_demo(store)
    conn = open_connection(db)
    conn.execute("INSERT INTO _migrations (name, applied_at, version) "
                 "VALUES ('0099_future', 0, '2.3.0')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def run_cli(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    """``convo --db DB ARGS…`` in this process: its exit code, stdout and stderr."""
    from explorer.cli.main import main

    code = main(["--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err
