"""The transcript opens a big conversation on the path skeleton ``convo import`` kept (V2):
no message or part of the path is read for it, and the rows are the ones a read makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app import kept_paths
from explorer.store import Store
from explorer.ui.transcript.loading import read_skeleton
from tests.helpers import settled_conversation, statements_run


def test_V2_the_transcript_reads_a_kept_path_and_never_keeps_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    with Store(tmp_path / "t.db") as store:
        conv = settled_conversation(store, 6, "kept path")
        read = read_skeleton(store, conv)
        store.writes_done()
        assert not store.reader.execute("SELECT 1 FROM view_cache").fetchall()  # not kept
        tip = store.conversation(conv).tip_id
        assert tip is not None
        kept_paths.path_columns(store, conv, tip, keep=True)  # as convo import does
        store.writes_done()
        with statements_run(store.reader) as seen:
            kept = read_skeleton(store, conv)
        assert not [s for s in seen if "JOIN parts p" in s or "JOIN messages m" in s]
        assert list(kept.entries) == list(read.entries)
