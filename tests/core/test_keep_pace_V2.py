"""A big view of a conversation that keeps changing is kept once in a while, not at
every change (a followed session would write tens of megabytes a minute)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.kept import pace as keep_pace
from explorer.app.kept import turns as kept_turns


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    keep_pace.forget()
    yield
    keep_pace.forget()


def test_V2_a_view_is_kept_again_only_after_the_pace() -> None:
    assert keep_pace.take("a.db", 1, "graph", clock=100.0)
    assert not keep_pace.take("a.db", 1, "graph", clock=100.0 + keep_pace.PACE_S - 1)
    assert keep_pace.take("a.db", 1, "graph", clock=100.0 + keep_pace.PACE_S)


def test_V2_each_file_conversation_and_view_has_its_own_pace() -> None:
    assert keep_pace.take("a.db", 1, "graph", clock=0.0)
    assert keep_pace.take("a.db", 2, "graph", clock=0.0)
    assert keep_pace.take("a.db", 1, "path", clock=0.0)
    assert keep_pace.take("b.db", 1, "graph", clock=0.0)


def test_V2_the_graph_child_is_asked_to_keep_only_when_due(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.store import Store
    from tests.helpers import settled_conversation

    asked: list[int | None] = []
    monkeypatch.setattr(kept_turns, "packed_in_child",
                        lambda *a, keep_at=None: asked.append(keep_at))
    with Store(tmp_path / "p.db") as store:
        conv = settled_conversation(store, 3, "paced")
        at = store.revision(conv)
        kept_turns.kept_or_built(store, conv)
        store.rename(conv, "changed")
        kept_turns.kept_or_built(store, conv)
    assert asked == [at, None]
