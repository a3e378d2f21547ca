"""Handing back the read connections' page caches after a big load (V2's memory side).

Shrinking runs on a worker while other threads may be reading with their own
connections: a read in progress must lose nothing, and every reader keeps working.
"""

from __future__ import annotations

import threading
from pathlib import Path

from explorer.store import Store
from tests.helpers import chat_turn


def test_shrinking_the_readers_mid_read_loses_no_row(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("long")
        store.append_turn(conv, [m for n in range(400) for m in chat_turn(n)])
        expected = [r[0] for r in store.reader.execute(
            "SELECT id FROM messages WHERE conversation_id = ? ORDER BY id", (conv,))]
        got: list[int] = []
        halfway, resume = threading.Event(), threading.Event()

        def read() -> None:
            cur = store.reader.execute(
                "SELECT id FROM messages WHERE conversation_id = ? ORDER BY id", (conv,))
            got.extend(r[0] for r in cur.fetchmany(300))
            halfway.set()
            resume.wait(10)
            got.extend(r[0] for r in cur.fetchall())

        worker = threading.Thread(target=read)
        worker.start()
        assert halfway.wait(10)
        store.shrink_readers()  # the worker's connection too, with its cursor open
        resume.set()
        worker.join(10)
        assert not worker.is_alive()
        assert got == expected and len(got) == 800
        assert len(store.path_ids(expected[-1])) == 800  # the main thread's reader still reads
