"""Full-text search over a whole archive: the first page of each kind of query a person types.

Each query runs as ``convo search`` runs it (``reads.search_page``, 50 hits), on a fresh
read connection of its own (the page cache starts empty, the file is in the OS's cache: a
search just after opening the window), best of three. The queries cover a rare word, common
words (matching hundreds of thousands of parts), a phrase, a prefix, each filter with a
common word and a filter alone; the project filter is tried with the busiest and with a
rare project folder of the store.

    python -m tests.benchmarks.archive_search /tmp/archive.db
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from explorer.store import reads
from explorer.store.connection import open_read_only
from explorer.store.read_only import read_only_uri
from tests.benchmarks.harness import Result

AREA = "archive"
TARGET_MS = 100.0
PAGE = 50
RUNS = 3
WORD = "the"  # the commonest word: the hardest partner for every filter


def measure(db: Path) -> list[Result]:
    """One row per query (its first page's best-of-three time), then the index's size."""
    rare, busy, quiet = _store_words(db)
    queries = [
        (f"rare word ({rare})", rare),
        *((f"common word ({w})", w) for w in ("the", "function", "error")),
        ("phrase (\"return value\")", '"return value"'),
        ("prefix (pars*)", "pars*"),
        (f"role:user {WORD}", f"role:user {WORD}"),
        (f"tool:Bash {WORD}", f"tool:Bash {WORD}"),
        (f"project:<busiest> {WORD}", f"project:{busy} {WORD}"),
        (f"project:<rare> {WORD}", f"project:{quiet} {WORD}"),
        (f"after:2025-06-01 {WORD}", f"after:2025-06-01 {WORD}"),
        (f"before:2025-06-01 {WORD}", f"before:2025-06-01 {WORD}"),
        ("role:user alone", "role:user"),
    ]
    results = []
    for name, text in queries:
        ms, count, note = _best(db, text)
        results.append(Result(AREA, f"search, first page: {name} — {count} hits{note}", ms, "ms",
                              f"< {TARGET_MS:.0f}", ms < TARGET_MS))
    results.append(Result(AREA, "search index (FTS5) size", _index_mb(db), "MB"))
    return results


def _connect(db: Path) -> sqlite3.Connection:
    return open_read_only(read_only_uri(db))


def _best(db: Path, text: str) -> tuple[float, int, str]:
    best, count, note = float("inf"), 0, ""
    for _ in range(RUNS):
        t0 = time.perf_counter()
        conn = _connect(db)
        try:
            page = reads.search_page(conn, text, PAGE)
        finally:
            conn.close()
        best = min(best, (time.perf_counter() - t0) * 1000)
        count = len(page.hits)
        note = "" if page.ranked else ", newest first"
    return best, count, note


def _store_words(db: Path) -> tuple[str, str, str]:
    """A rare word of the store (in 5 to 50 parts), its busiest and a rare project folder."""
    conn = _connect(db)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, parts_fts, 'row')")
        rare = conn.execute("SELECT term FROM temp.words WHERE doc BETWEEN 5 AND 50 AND "
                            "length(term) >= 6 AND term GLOB '[a-z]*' AND term NOT GLOB "
                            "'*[0-9_]*' ORDER BY doc, term LIMIT 1").fetchone()[0]
        folders = conn.execute(
            "SELECT json_extract(meta, '$.cwd') AS cwd, count(*) AS n FROM conversations "
            "WHERE cwd IS NOT NULL GROUP BY cwd ORDER BY n DESC, cwd").fetchall()
    finally:
        conn.close()
    names = [Path(str(cwd)).name for cwd, _ in folders]
    return str(rare), names[0], names[-1] if len(names) > 1 else names[0]


def _index_mb(db: Path) -> float:
    conn = _connect(db)
    try:
        pages = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'parts_fts%'"
                             ).fetchone()[0]
    except sqlite3.OperationalError:  # a SQLite built without dbstat
        pages = None
    finally:
        conn.close()
    return (pages or 0) / (1 << 20)


if __name__ == "__main__":
    from tests.benchmarks.harness import HEADER

    rows = measure(Path(sys.argv[1]))
    print("\n".join([HEADER, *(r.row() for r in rows)]))
