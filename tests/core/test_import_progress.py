"""An import's progress while one big file is stored, not only while it is read (V2).

A large Claude Code session is read twice: its tree first, its content again as each
chunk of messages is written. The bar goes through the file once per pass, so it keeps
moving (with a message count for messages/s and the time left) while the write runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app.importing.run import ImportProgress, import_paths
from explorer.formats.claude_code import reader
from explorer.store import Store
from explorer.tree import imported


def test_V2_a_file_read_twice_moves_the_bar_through_both_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 900, seed=9)
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)  # read light, as a huge session is
    monkeypatch.setattr(imported, "CONTENT_CHUNK", 100)
    size = session.stat().st_size
    seen: list[ImportProgress] = []
    store = Store(tmp_path / "x.db")
    try:
        report = import_paths(store, [session], progress=seen.append)
    finally:
        store.close()
    assert report.errors == [] and report.added_messages == 900
    reading = [p for p in seen if p.messages_done == 0 and p.bytes_done > 0]
    writing = [p for p in seen if p.conversations_done == 0 and p.messages_done > 0]
    assert len(reading) >= 3 and max(p.bytes_done for p in reading) <= size // 2
    assert len(writing) >= 5, "each written chunk is reported before the file is stored"
    assert all(size // 2 <= p.bytes_done <= size for p in writing)
    assert len({p.bytes_done for p in writing}) >= 5, "the bar moves while the file is written"
    counts = [p.messages_done for p in writing]
    assert counts == sorted(counts) and counts[-1] == report.added_messages
    done = [p.bytes_done for p in seen]
    assert done == sorted(done) and done[-1] == size


def test_V2_a_file_read_once_is_counted_once(tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 300, seed=10)
    assert not reader.reads_twice(session)
    seen: list[ImportProgress] = []
    store = Store(tmp_path / "x.db")
    try:
        import_paths(store, [session], progress=seen.append)
    finally:
        store.close()
    assert max(p.bytes_done for p in seen if p.conversations_done == 0) > 0
    assert seen[-1].bytes_done == session.stat().st_size
