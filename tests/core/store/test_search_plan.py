"""Search on a big archive: ranked by relevance when the matches are few enough to score, else
newest sessions first, with every filter still exact and every hit holding the words."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import chat_turn, tool_turn

from explorer.store import Store, search_plan
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, applied
from explorer.store.search_plan import search_page
from explorer.tree.model import Message, Part

DAY = 86400.0
START = 1_760_000_000.0  # 2025-10-09


def _msg(role: str, text: str, at: float) -> Message:
    return Message(id=None, parent_id=None, role=role, parts=[Part("text", text)], created_at=at)


def _session(s: Store, n: int, folder: str) -> int:
    """Session ``n`` of a fake archive, started ``n`` days after START in ``folder``."""
    at = START + n * DAY
    conv = s.create_conversation(f"session {n}", created_at=at, meta={"cwd": f"/home/{folder}"})
    turn = [_msg("user", f"please fix the parser, session {n}", at),
            _msg("assistant", f"the parser now reads the file (session {n})", at + 60),
            *tool_turn(n)]
    for i, m in enumerate(turn[2:]):
        m.created_at = at + 120 + i
    s.append_turn(conv, turn)
    return conv


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "s.db") as s:
        for n in range(12):
            _session(s, n, "shop" if n % 3 == 0 else "api")
        yield s


def _texts(s: Store, mid: int) -> str:
    return " ".join(p.text or "" for p in s.message(mid).parts).lower()


def _unranked(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on an archive where these words match too many parts to score."""
    monkeypatch.setattr(search_plan, "RANK_ALL", 2)
    monkeypatch.setattr(search_plan, "FIRST_SESSIONS", 2)  # the walk reads sessions in batches


def _all(s: Store, query: str) -> list[int]:
    return [h.message_id for h in search_page(s.reader, query, 1000).hits]


def test_ranking_puts_the_best_match_first(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as s:
        conv = s.create_conversation("ranked")
        ids = s.append_turn(conv, [
            _msg("user", "a long question about many things, with kestrel said once " * 4, 1.0),
            _msg("assistant", "kestrel kestrel kestrel", 2.0),
            _msg("user", "and kestrel once more in the middle of other words here", 3.0)])
        page = search_page(s.reader, "kestrel")
        assert page.ranked and page.note == ""
        assert next(h.message_id for h in page.hits) == ids[1]
        assert {h.message_id for h in page.hits} == set(ids)
        assert "[kestrel]" in page.hits[0].snippet


def test_a_big_match_set_lists_newest_sessions_first_every_hit_holding_the_words(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranked = set(_all(store, "parser the"))
    _unranked(monkeypatch)
    page = search_page(store.reader, "parser the", 5)
    assert not page.ranked and "newest sessions first" in page.note and page.more
    every = _all(store, "parser the")
    assert set(every) == ranked and len(every) == len(ranked) == 24  # nothing lost, no twice
    for mid in every:
        assert "parser" in _texts(store, mid) and "the" in _texts(store, mid).split()
    started = [store.conversation(store.message_conversation(m)).created_at for m in every]
    assert started == sorted(started, reverse=True)  # newest session first …
    for a, b in itertools.pairwise(every):  # … and newest message first within it
        if store.message_conversation(a) == store.message_conversation(b):
            assert (store.message(a).created_at or 0) >= (store.message(b).created_at or 0)
    pages = [h.message_id for off in range(0, 30, 5)
             for h in search_page(store.reader, "parser the", 5, off).hits]
    assert pages == every  # pages follow one another
    assert all("[parser]" in h.snippet.lower() for h in page.hits)


@pytest.mark.parametrize("unranked", [False, True])
def test_filters_narrow_the_same_way_ranked_or_not(
    store: Store, monkeypatch: pytest.MonkeyPatch, unranked: bool
) -> None:
    if unranked:
        _unranked(monkeypatch)
    convs = {c.id: c for c in store.conversations()}
    shop = {cid for cid, c in convs.items() if c.meta.get("cwd") == "/home/shop"}

    def conv_of(query: str) -> set[int]:
        return {store.message_conversation(m) for m in _all(store, query)}

    assert conv_of("project:shop parser") == shop
    assert all(store.message(m).role == "user" for m in _all(store, "role:user parser"))
    assert len(_all(store, "role:user parser")) == 12
    bash = _all(store, "tool:bash run")
    assert len(bash) == 12 and all(store.message(m).parts[0].tool_name == "Bash" for m in bash)
    cut = START + 6 * DAY
    assert conv_of("after:2025-10-15 parser") == {
        cid for cid, c in convs.items() if (c.created_at or 0) >= cut}
    assert conv_of("before:2025-10-15 parser") == {
        cid for cid, c in convs.items() if (c.created_at or 0) < cut}
    one = min(shop)
    assert conv_of(f"conv:{one} parser the") == {one}
    assert _all(store, "after:2030-01-01 parser") == []


def test_filters_alone_list_newest_sessions_first(store: Store) -> None:
    page = search_page(store.reader, "role:user", 4)
    assert not page.ranked and page.more and len(page.hits) == 4
    newest = max(c.id for c in store.conversations())
    assert {store.message_conversation(h.message_id) for h in page.hits[:2]} == {newest}


def test_a_prefix_finds_what_the_index_holds_under_it(store: Store) -> None:
    conn = store.reader
    q = search_plan.parse("pars*")
    assert search_plan._spelled_out(conn, q).terms == ['("parser")']
    assert _all(store, "PARS*") == _all(store, "parser") != []
    raw = [h.message_id for h in search_plan.search_page(conn, replace(q), 100).hits]
    assert sorted(raw) == sorted(_all(store, "pars*"))
    assert _all(store, "zzq*") == []


def test_the_migration_indexes_an_existing_store(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Store(db) as s:
        _session(s, 1, "shop")
    conn = open_connection(db)  # the store as the version before this migration left it
    conn.execute("DELETE FROM _migrations WHERE name >= '0019_search_sessions'")
    conn.execute("DROP INDEX conversations_started")
    conn.execute("DROP INDEX messages_conversation_time")
    conn.close()
    assert "0019_search_sessions" in [name for name, _ in MIGRATIONS]
    with Store(db) as s:
        assert "0019_search_sessions" in applied(s.reader)
        assert applied(s.reader)[-1] == MIGRATIONS[-1][0]
        names = {r[0] for r in s.reader.execute("SELECT name FROM sqlite_master "
                                                "WHERE type = 'index'")}
        assert {"conversations_started", "messages_conversation_time"} <= names
        plan = " ".join(r[3] for r in s.reader.execute(
            "EXPLAIN QUERY PLAN SELECT max(created_at) FROM messages WHERE conversation_id = 1"))
        assert "messages_conversation_time" in plan
        assert len(_all(s, "after:2025-01-01 parser")) == 2


def test_a_stopped_search_stops(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _unranked(monkeypatch)
    calls: list[int] = []

    def check() -> None:
        calls.append(1)
        if len(calls) > 2:
            raise sqlite3.OperationalError("interrupted")

    with pytest.raises(sqlite3.OperationalError):
        search_page(store.reader, "parser", 1000, check=check)
    assert len(calls) == 3


def test_chat_turns_still_match(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.create_conversation("chat")
        s.append_turn(conv, chat_turn(1))
        assert len(_all(s, "prompt")) == 1
