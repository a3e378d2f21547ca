"""V2: an imported conversation is freed as soon as it is written, by reference counting.

A window's import pauses the collector; a conversation kept alive by a reference cycle
stayed, with all its messages, until the import ended, and the first collection after
walked all of it while holding the GIL (2.4 s after a 100 MB session)."""

from __future__ import annotations

import gc
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.store import Store
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message


def test_V2_nothing_of_an_imported_conversation_waits_for_the_collector(
        tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 300, seed=21)
    with Store(tmp_path / "x.db") as store:
        gc.collect()
        gc.disable()
        try:
            before = {id(o) for o in _imported_kinds()}  # what other tests left
            report = import_paths(store, [session])
            left = [o for o in _imported_kinds() if id(o) not in before]
        finally:
            gc.enable()
        assert not report.errors and report.added_messages >= 300
    assert left == []


def _imported_kinds() -> list[object]:
    return [o for o in gc.get_objects() if isinstance(o, ImportedConversation | Message)]
