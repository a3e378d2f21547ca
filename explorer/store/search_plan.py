"""How a search finds its page in milliseconds on a whole archive (a million messages and more).

Two ways to a page, chosen per query:

* **Ranked**: every match scored by bm25 (FTS5's ``rank``), the best first. Scoring costs about
  a microsecond a matching part, and joining a match to its message (for the filters and the
  one-hit-per-message rule) two more, so a query is ranked whole when it matches at most
  ``RANK_ALL`` parts, which takes at most about 50 ms; counting that far is a millisecond.
  A query whose filters leave at most ``RANK_SESSIONS`` sessions (``project:``, ``conv:``,
  ``source:``, dates) is ranked whole too, over those sessions' matches.
* **Newest first**: a common word ("the" is in 270,000 of 1.6 M parts) would take a third of
  a second to score, for an order that mostly rewards short parts. Its page comes from the
  newest sessions instead (by when they started), each session's matching messages newest
  first. The index is asked one session at a time, over the range of part ids the session's
  parts span (one run, or a few when later syncs appended to it), so a page costs a few
  sessions' work however many parts match. The page says so: ``ranked`` is False and ``note``
  is the sentence to show beside it.

A message is one hit, at its best matching part. Filters alone (no words) list the messages
they allow in the same newest-sessions order. Snippets are cut for the page's hits only.
The walk visits sessions until the page is full, so a filter that almost no message passes
(a tool called twice in the archive) combined with a common word visits many sessions: such a
search is slower (still interruptible: ``check`` is called between sessions).
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from explorer.store.search_query import Query, parse

RANK_ALL = 15_000
RANK_SESSIONS = 100
SPAN_SLACK = 512  # ids a session's span may hold beyond its own parts before it is cut in runs
PREFIX_WORDS = 64  # a prefix standing for more words stays a prefix
FIRST_SESSIONS = 16  # sessions asked for at first; each further batch is four times bigger
_TOKEN = re.compile(r"[^\W_]+")  # one token of the index's tokenizer
_SNIPPET = "snippet(parts_fts, 0, '[', ']', '…', 12)"


@dataclass(frozen=True)
class SearchHit:
    conversation_id: int
    message_id: int
    snippet: str
    part: int | None = field(default=None, compare=False)  # the matching part's index


@dataclass
class SearchPage:
    hits: list[SearchHit]
    ranked: bool = True
    more: bool = False  # a next page exists
    note: str = ""  # how the hits are ordered, when not by relevance


@dataclass
class _Match:
    conversation_id: int
    message_id: int
    part: int | None
    rowid: int | None  # the part's id: where its snippet is cut
    rank: float
    created_at: float
    preview: str = ""


def _nothing() -> None:
    pass


def search_page(conn: sqlite3.Connection, query: str | Query, limit: int = 50, offset: int = 0,
                check: Callable[[], None] = _nothing) -> SearchPage:
    """The hits from ``offset`` on (at most ``limit``); ``check`` is called between steps and
    may raise to stop a search nobody waits for any more."""
    q = parse(query) if isinstance(query, str) else query
    if not q.terms and not q.where:
        return SearchPage([])
    q = _spelled_out(conn, q)
    want = offset + limit + 1
    if q.terms and _count(conn, q.match, RANK_ALL + 1) <= RANK_ALL:
        found, ranked = _ranked(conn, q, limit + 1, offset), True
    else:
        check()
        found, ranked = _walk(conn, q, want, check)[offset:], False
    hits = _with_snippets(conn, q, found[:limit])
    note = "" if ranked else ("too many to rank by relevance: newest sessions first"
                              if q.terms else "newest sessions first")
    return SearchPage(hits, ranked, len(found) > limit, note)


def _spelled_out(conn: sqlite3.Connection, q: Query) -> Query:
    """Prefixes as the words of the index they stand for, when there are few (``pars*`` is
    ``parse OR parser OR parsed``). Without a prefix index FTS5 merges every such word's
    whole list for each statement, however few rows it asks for (ten milliseconds for a
    common prefix, for each session a search walks and each snippet); named words are read
    only where asked."""
    terms = []
    for term in q.terms:
        stem = _fold(term[1:-2].replace('""', '"')) if term.endswith('"*') else ""
        words = _words_from(conn, stem) if _TOKEN.fullmatch(stem) else []
        if 0 < len(words) <= PREFIX_WORDS:
            term = "(" + " OR ".join('"' + w.replace('"', '""') + '"' for w in words) + ")"
        terms.append(term)
    return replace(q, terms=terms)


def _words_from(conn: sqlite3.Connection, stem: str) -> list[str]:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.parts_fts_words "
                 "USING fts5vocab(main, parts_fts, 'row')")
    return [r[0] for r in conn.execute(
        "SELECT term FROM temp.parts_fts_words WHERE term >= ? AND term <= ? LIMIT ?",
        (stem, stem + "\U0010ffff", PREFIX_WORDS + 1))]


def _fold(text: str) -> str:
    """Case and accents folded as the index folds them (unicode61)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _count(conn: sqlite3.Connection, match: str, most: int) -> int:
    """Parts that match, counted up to ``most`` (no scoring: a millisecond for 15,000)."""
    return int(conn.execute("SELECT count(*) FROM (SELECT rowid FROM parts_fts WHERE "
                            "parts_fts MATCH ? LIMIT ?)", (match, most)).fetchone()[0])


def _joins(q: Query) -> str:
    needs_c = any("c." in w for w in q.where)
    return ("JOIN parts p ON p.id = f.rowid JOIN messages m ON m.id = p.message_id"
            + (" JOIN conversations c ON c.id = m.conversation_id" if needs_c else ""))


def _where(q: Query) -> str:
    return "".join(f" AND {w}" for w in q.where)


def _ranked(conn: sqlite3.Connection, q: Query, limit: int, offset: int) -> list[_Match]:
    """Every match scored, one per message at its best part (bare columns of ``min``)."""
    rows = conn.execute(
        "SELECT m.conversation_id, p.message_id, p.idx, f.rowid, min(f.rank) AS r, 0 "
        f"FROM parts_fts f {_joins(q)} WHERE parts_fts MATCH ?{_where(q)} "
        "GROUP BY p.message_id ORDER BY r, p.message_id LIMIT ? OFFSET ?",
        (q.match, *q.params, limit, offset)).fetchall()
    return [_Match(*r) for r in rows]


def _sessions(conn: sqlite3.Connection, q: Query) -> Iterator[list[int]]:
    """Ids of the sessions the filters leave, newest first, in growing batches.

    Sessions are read newest first along ``conversations_started`` while a date filter
    is asked of each (one index step); a folder or format filter reads every session's
    row once instead, which is quicker than visiting them in date order."""
    scope = "".join(f" AND {s}" for s in q.scope)
    walk = q.by_date or not q.scope
    sql = (f"SELECT c.id FROM conversations c WHERE 1{scope} ORDER BY "
           f"{'' if walk else '+'}c.created_at DESC, c.id DESC LIMIT ? OFFSET ?")
    start, size = 0, FIRST_SESSIONS
    while True:
        ids = [r[0] for r in conn.execute(sql, (*q.scope_params, size, start))]
        if ids:
            yield ids
        if len(ids) < size:
            return
        start, size = start + size, size * 4


def _walk(conn: sqlite3.Connection, q: Query, want: int,
          check: Callable[[], None]) -> list[_Match]:
    """Sessions newest first, each one's hits newest first, until ``want`` hits."""
    found: list[_Match] = []
    for batch in _sessions(conn, q):
        for cid in batch:
            check()
            in_session = (_session_matches(conn, q, cid, check) if q.terms
                          else _session_messages(conn, q, cid))
            found += sorted(in_session, key=lambda m: (-m.created_at, -m.message_id))
            if len(found) >= want:
                return found
    return found


def _session_matches(conn: sqlite3.Connection, q: Query, cid: int,
                     check: Callable[[], None]) -> list[_Match]:
    """One session's matching messages."""
    seen: dict[int, _Match] = {}
    # no rank here: bm25 counts every match of each phrase once per statement (milliseconds
    # for a common word), so a rank per session would cost more than the whole walk
    sql = ("SELECT m.conversation_id, p.message_id, p.idx, f.rowid, 0, "
           f"coalesce(m.created_at, 0) FROM parts_fts f {_joins(q)} WHERE parts_fts MATCH ? "
           f"AND f.rowid BETWEEN ? AND ? AND m.conversation_id = ?{_where(q)}")
    for lo, hi in _runs(conn, cid):
        check()
        for row in conn.execute(sql, (q.match, lo, hi, cid, *q.params)):
            m = _Match(*row)
            seen.setdefault(m.message_id, m)  # a message is one hit, at its first part found
    return list(seen.values())


def _runs(conn: sqlite3.Connection, cid: int) -> list[tuple[int, int]]:
    """The ranges of part ids a session's parts lie in: one for a session imported at once;
    a session that later syncs appended to is cut where others' parts lie between."""
    lo, hi, count = conn.execute(
        "SELECT min(p.id), max(p.id), count(*) FROM messages m JOIN parts p "
        "ON p.message_id = m.id WHERE m.conversation_id = ?", (cid,)).fetchone()
    if not count:
        return []
    if hi - lo < 2 * count + SPAN_SLACK:
        return [(lo, hi)]
    ids = sorted(r[0] for r in conn.execute(
        "SELECT p.id FROM messages m JOIN parts p ON p.message_id = m.id "
        "WHERE m.conversation_id = ?", (cid,)))
    runs = [[ids[0], ids[0]]]
    for i in ids[1:]:
        if i - runs[-1][1] > SPAN_SLACK:
            runs.append([i, i])
        else:
            runs[-1][1] = i
    return [(a, b) for a, b in runs]


def _session_messages(conn: sqlite3.Connection, q: Query, cid: int) -> list[_Match]:
    """Filters alone: the messages of one session they allow."""
    needs_c = any("c." in w for w in q.where)
    rows = conn.execute(
        "SELECT m.conversation_id, m.id, NULL, NULL, 0, coalesce(m.created_at, 0), "
        "coalesce(m.preview, '') FROM messages m"
        + (" JOIN conversations c ON c.id = m.conversation_id" if needs_c else "")
        + f" WHERE m.conversation_id = ?{_where(q)}", (cid, *q.params)).fetchall()
    return [_Match(*r) for r in rows]


def _with_snippets(conn: sqlite3.Connection, q: Query, found: list[_Match]) -> list[SearchHit]:
    rowids = [m.rowid for m in found if m.rowid is not None]
    cut: dict[int, str] = {}
    if rowids and q.terms:
        cut = dict(conn.execute(
            f"SELECT rowid, {_SNIPPET} FROM parts_fts WHERE parts_fts MATCH ? AND rowid IN "
            "(SELECT value FROM json_each(?))", (q.match, json.dumps(rowids))).fetchall())
    return [SearchHit(m.conversation_id, m.message_id,
                      cut.get(m.rowid, "") if m.rowid is not None else m.preview, m.part)
            for m in found]
