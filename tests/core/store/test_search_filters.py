"""Search reads what a person types: words, "phrases", prefixes*, and filters by role, tool,
source, project, date and conversation; anything else is text, never FTS syntax."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing.demo import load_demo
from explorer.store import Store, StoreError
from explorer.store.search_query import parse


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "s.db") as s:
        load_demo(s)
        yield s


def _ids(store: Store, query: str) -> set[int]:
    return {h.message_id for h in store.search(query, 200)}


def test_words_phrases_and_prefixes(store: Store) -> None:
    words = _ids(store, "fall back")
    phrase = _ids(store, '"fall back"')
    assert phrase and phrase <= words
    assert _ids(store, "sniff*") >= _ids(store, "sniff_encoding")
    for text in ('NEAR( "unbalanced', 'a " b ( c NEAR OR', "AND*"):  # never FTS syntax
        assert isinstance(store.search(text), list)


def test_filters_narrow_by_role_tool_source_and_conversation(store: Store) -> None:
    every = _ids(store, "chardet")
    called = _ids(store, "tool:bash chardet")
    assert called and called < every
    assert all(any(p.kind == "tool_use" and (p.tool_name or "").lower() == "bash"
                   for p in store.message(m).parts) for m in called)
    assistant = _ids(store, "role:assistant chardet")
    assert assistant and all(store.message(m).role == "assistant" for m in assistant)
    assert _ids(store, "source:demo chardet") == every
    assert _ids(store, "source:codex chardet") == set()
    conv = store.message_conversation(next(iter(every)))
    assert _ids(store, f"conv:{conv} chardet") == {
        m for m in every if store.message_conversation(m) == conv}


def test_dates_and_filters_alone(store: Store) -> None:
    assert _ids(store, "after:2030-01-01 chardet") == set()
    assert _ids(store, "before:2030-01-01 chardet") == _ids(store, "chardet")
    newest = store.search("role:user", 3)
    assert len(newest) == 3  # filters alone list the newest messages they allow
    stamps = [store.message(h.message_id).created_at or 0 for h in newest]
    assert stamps == sorted(stamps, reverse=True)


def test_a_filter_that_cannot_mean_anything_is_one_line() -> None:
    with pytest.raises(StoreError, match="is not a date"):
        parse("after:yesterday")
    with pytest.raises(StoreError, match="not a conversation id"):
        parse("conv:x")
    q = parse('role:user "two words" pre* project:"my shop" plain')
    assert q.terms == ['"two words"', '"pre"*', '"plain"']
    assert q.params == ["user", "%my shop%", "%my shop%"]
