"""The transcript's rows come from the store's kept path (V2): opening a long conversation
walks its path once for every view."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import chat_turn

from explorer.store import Store, reads
from explorer.store import reads_path as rp
from explorer.ui.transcript.loading import read_skeleton


def _store(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "x.db")
    conv = store.create_conversation("paths")
    for n in range(5):
        store.append_turn(conv, chat_turn(n))
    return store, conv


def test_V2_the_transcript_skeleton_and_the_other_views_share_the_stores_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The transcript's rows come from the store's kept path, not a walk of their own."""
    store, conv = _store(tmp_path)
    walks: list[int] = []
    walk = reads.path_ids

    def counted(conn: object, tip: int) -> list[int]:
        walks.append(tip)
        return walk(conn, tip)  # type: ignore[arg-type]

    monkeypatch.setattr(reads, "path_ids", counted)
    monkeypatch.setattr(rp, "path_ids", counted)  # the transcript's own walk, if it had one
    tip = store.conversation(conv).tip_id
    assert tip is not None
    ids = store.path_ids(tip)
    skeleton = read_skeleton(store, conv)
    assert list(skeleton.entries.ids) == ids
    assert walks == [tip], "one walk for the views and the transcript"
    store.close()
