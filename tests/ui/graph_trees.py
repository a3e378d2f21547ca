"""Large generated conversation trees written straight into a store, for the graph."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.store.ids import next_ids
from explorer.ui.graph import TreeGraphWidget


@contextlib.contextmanager
def loaded_graph(qtbot: QtBot, path: Path, cid: int, size: tuple[int, int]
                 ) -> Iterator[TreeGraphWidget]:
    """A shown message-view graph of conversation ``cid`` in the file at ``path``, laid out;
    shut down and its store closed on exit."""
    store = Store(path)
    w = TreeGraphWidget(store, mode="messages")
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    try:
        with qtbot.waitSignal(w.loaded, timeout=60_000):
            w.load_conversation(cid)
        yield w
    finally:
        w.shutdown()
        store.close()


def generated_conversation(store: Store, n: int, *, seed: int = 1, branch: float = 0.05) -> int:
    """A conversation of ``n`` messages: long runs that sometimes branch from an earlier message.

    Written as bare rows in one transaction (no parts): the graph reads only the skeleton.
    The tip is the last message, so the active path is one of the longest runs.
    """
    cid = store.create_conversation(f"generated {n}")

    def write(conn: sqlite3.Connection) -> None:
        first = next_ids(conn, "messages", n).start
        rnd = random.Random(seed)
        depth = [0] * n
        rows = []
        for i in range(n):
            if i == 0:
                parent = None
            else:
                parent = i - 1 if rnd.random() >= branch else rnd.randrange(i)
                depth[i] = depth[parent] + 1
            role = "user" if depth[i] % 2 == 0 else "assistant"
            rows.append((first + i, cid, None if parent is None else first + parent, role,
                         float(i), f"{role} message {i}: some words to show"))
        conn.executemany(
            "INSERT INTO messages (id, conversation_id, parent_id, role, created_at, preview) "
            "VALUES (?, ?, ?, ?, ?, ?)", rows)
        conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (first + n - 1, cid))

    store._writer.call(write)
    return cid


def agent_session(store: Store, n: int, *, seed: int = 1, rewind: float = 0.02) -> int:
    """A coding-agent session of about ``n`` messages: deep, mostly linear, with rewinds.

    Each turn is a prompt, a tool call, its result and an answer (tool loops of one to
    four calls, each answered, so every turn ends on a clean boundary); with probability
    ``rewind`` the next prompt continues from a turn a little way back, leaving the
    abandoned turns as a side branch, as a rewind does.
    Every twentieth rewind target gets a checkpoint. The tip is the last message.
    """
    cid = store.create_conversation(f"agent session {n}")

    def write(conn: sqlite3.Connection) -> None:
        ids = iter(range(next_ids(conn, "messages", n + 8).start, 10**15))
        part_ids = iter(range(next_ids(conn, "parts", 2 * n + 16).start, 10**15))
        rnd = random.Random(seed)
        messages: list[tuple[object, ...]] = []
        parts: list[tuple[object, ...]] = []
        ends: list[int] = []  # last message of each turn on the current line
        labels: list[tuple[int, str]] = []
        parent: int | None = None
        turn = 0
        while len(messages) < n:
            if ends and rnd.random() < rewind:
                back = rnd.randrange(1, min(40, len(ends)) + 1)
                parent = ends[-back - 1] if back < len(ends) else None
                del ends[len(ends) - back:]
                if parent is not None and len(labels) * 20 < turn // 40:
                    labels.append((parent, f"cp-{len(labels) + 1}"))
            turn += 1

            def add(role: str, preview: str, kind: str, tool: str | None = None,
                    answers: int | None = None) -> int:
                nonlocal parent
                mid = next(ids)
                messages.append((mid, cid, parent, role, float(mid), preview))
                use = f"toolu_{mid}" if kind == "tool_use" else (
                    f"toolu_{answers}" if answers is not None else None)
                parts.append((next(part_ids), mid, 0, kind, preview, tool, use, 0))
                parent = mid
                return mid

            add("user", f"turn {turn}: please change the parser and run the tests", "text")
            for _ in range(rnd.randint(1, 4)):  # each call answered by the next message
                call = add("assistant", "[Bash] pytest -q", "tool_use", "Bash")
                add("user", "[result] 12 passed", "tool_result", answers=call)
            ends.append(add("assistant", f"Done with turn {turn}: the parser reads it now",
                            "text"))
        conn.executemany(
            "INSERT INTO messages (id, conversation_id, parent_id, role, created_at, preview) "
            "VALUES (?, ?, ?, ?, ?, ?)", messages)
        conn.executemany(
            "INSERT INTO parts (id, message_id, idx, kind, text, tool_name, tool_use_id, "
            "is_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", parts)
        conn.executemany(
            "INSERT INTO checkpoints (conversation_id, label, message_id, created_at) "
            "VALUES (?, ?, ?, 0)", [(cid, label, mid) for mid, label in labels])
        conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (parent, cid))

    store._writer.call(write)
    return cid


def paint_frame(w: TreeGraphWidget) -> None:
    """Paint one frame of the graph's viewport into an image, as the screen would get it."""
    image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    w.view.render(painter, QRectF(image.rect()), w.view.viewport().rect())
    painter.end()
