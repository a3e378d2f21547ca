"""The store: bulk insert, deep paths, fork, durable appends, listing many conversations."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from explorer.formats.base import ImportedConversation
from explorer.store import Store
from explorer.store.connection import open_connection, transaction
from explorer.tree.model import Message, Part
from tests.benchmarks.harness import Result, timed

AREA = "store"


def _tree(n: int, seed: int = 7) -> list[Message]:
    rng = random.Random(seed)
    out: list[Message] = []
    for i in range(n):
        parent = None if i == 0 else (i - 1 if rng.random() < 0.9 else rng.randrange(i))
        role = "user" if i % 2 == 0 else "assistant"
        text = f"message {i} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
        out.append(Message(i, parent, role, [Part("text", text)]))
    return out


WORDS = [
    "the",
    "context",
    "window",
    "budget",
    "tool",
    "result",
    "snapshot",
    "branch",
    "fork",
    "checkpoint",
    "rewind",
    "compaction",
    "import",
    "export",
    "python",
    "sqlite",
    "graph",
    "tree",
    "path",
    "turn",
    "boundary",
]


def _chain(n: int) -> list[Message]:
    return [
        Message(
            i,
            i - 1 if i else None,
            "user" if i % 2 == 0 else "assistant",
            [Part("text", f"step {i} of a long session")],
        )
        for i in range(n)
    ]


def run() -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.db") as s:
        msgs = _tree(100_000)
        ic = ImportedConversation("big", "bench", msgs, source_id="big")
        t0 = time.perf_counter()
        s.import_conversation(ic)
        rate = 100_000 / (time.perf_counter() - t0)
        results.append(
            Result(
                AREA,
                "bulk insert 100k-message tree (one transaction, FTS)",
                rate,
                "msg/s",
                "≥ 80,000",
                rate >= 80_000,
            )
        )
        deep = s.import_conversation(
            ImportedConversation("deep", "bench", _chain(5000), source_id="deep")
        )
        cid = deep.conversation_id
        tip = s.conversation(cid).tip_id or 0
        ms = timed(lambda: s.path_ids(tip), repeat=20)
        results.append(Result(AREA, "path ids to a 5,000-deep tip", ms, "ms", "< 30", ms < 30))
        ms = timed(lambda: s.path(cid), repeat=10)
        results.append(Result(AREA, "full path (parts) to a 5,000-deep tip", ms, "ms", "", None))
        ms = timed(lambda: s.fork(cid, tip), repeat=5)
        results.append(Result(AREA, "fork a 5,000-message path", ms, "ms", "< 200", ms < 200))
        results.append(_append(s))
    results.append(_list_many())
    return results


def _append(s: Store) -> Result:
    c = s.create_conversation("appends")
    samples = []
    for i in range(200):
        turn = [
            Message(None, None, "user", [Part("text", f"prompt {i}")]),
            Message(None, None, "assistant", [Part("text", f"answer {i} " * 20)]),
        ]
        samples.append(timed(lambda t=turn: s.append_turn(c, t)))  # type: ignore[misc]
    samples.sort()
    median = samples[len(samples) // 2]
    return Result(
        AREA, "append_turn, synchronous=FULL (median of 200)", median, "ms", "< 5", median < 5
    )


def _list_many() -> Result:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "many.db"
        Store(path).close()
        conn = open_connection(path)
        with transaction(conn):
            conn.executemany(
                "INSERT INTO conversations(id, title, created_at, updated_at, meta) "
                "VALUES (?, ?, ?, ?, '{}')",
                [(i, f"conversation {i}", i, i) for i in range(1, 10_001)],
            )
            conn.executemany(
                "INSERT INTO messages(id, conversation_id, parent_id, role) "
                "VALUES (?, ?, NULL, 'user')",
                [(i, (i % 10_000) + 1) for i in range(1, 50_001)],
            )
        conn.close()

        def open_and_list() -> None:
            with Store(path) as s:
                assert len(s.conversations()) == 10_000

        ms = timed(open_and_list, repeat=5)
    return Result(AREA, "open and list 10,000 conversations", ms, "ms", "< 100", ms < 100)
