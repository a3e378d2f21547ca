"""``convo mcp``'s tools on a 100,000-message archive, called in process as the server calls
them (A1): ``search`` must answer in under 200 ms, ``get_branch`` of a 5,000-message path in
under a second.

The archive is realistic Claude Code data (``generate_transcripts``): 95,000 messages over
many sessions and projects, and one 5,000-message session with no rewinds, so its tip's path
is all 5,000 messages. It is imported as ``convo import`` does, then read through a store
opened read-only, as the server opens it. Each figure is the median of several calls.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.app.archive import catalog
from explorer.app.archive.session import Archive
from explorer.app.importing.run import import_paths
from explorer.store import Store
from tests.benchmarks.generate_transcripts import _COMMON, generate
from tests.benchmarks.harness import Result, timed
from tests.benchmarks.scale_data import one_session

AREA = "mcp"
ARCHIVE, PATH = 95_000, 5_000
REPEAT = 7
COMMON = set(_COMMON)


def _build(folder: Path) -> tuple[Path, float]:
    """The archive's database and how long making it took (seconds)."""
    t0 = time.perf_counter()
    many = generate("claude-code", folder / "many", messages=ARCHIVE, seed=11).path
    long = one_session(folder / "long", PATH, seed=12, rewind_rate=0.0)
    db = folder / "archive.db"
    with Store(db) as store:
        import_paths(store, [many, long])
    return db, time.perf_counter() - t0


def _rare_word(archive: Archive, tip: int) -> str:
    """A word of the generator's own (not one of its common ones) from the long session."""
    words = archive.store.message(tip).text.replace("`", " ").replace(".", " ").split()
    return next(w for w in words if w.isalpha() and w.lower() not in COMMON)


def _call(archive: Archive, tool: str, **args: Any) -> Callable[[], dict[str, Any]]:
    return lambda: catalog.call(archive, tool, args)


def run() -> list[Result]:
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as d:
        db, built = _build(Path(d))
        with Store(db, only_reads="the benchmark only reads") as store:
            archive = Archive(store)
            convs = store.conversations()
            total = sum(c.message_count for c in convs)
            long = next(c for c in convs if "big-session" in (c.source_path or ""))
            tip = long.tip_id
            assert tip is not None
            path = len(store.path_ids(tip))
            print(f"  {total:,} messages in {len(convs)} conversations, built in "
                  f"{built:.0f} s; the long path: {path:,} messages", file=sys.stderr)
            results.append(Result(AREA, f"archive: messages ({len(convs)} conversations)",
                                  total, "msgs", "100,000"))
            results.append(Result(AREA, "the long session's path", path, "msgs", "5,000"))
            rare = _rare_word(archive, tip)
            searches = [("search, one common word", {"query": "the"}),
                        ("search, two common words", {"query": "retry timeout"}),
                        (f"search, a rarer word ({rare!r})", {"query": rare}),
                        ("search, page 5 of a common word", {"query": "error", "offset": 80}),
                        ("search, in one conversation", {"query": "file",
                                                         "conversation": long.id})]
            for name, args in searches:
                assert catalog.call(archive, "search", args)["results"], name
            for name, args in searches:
                ms = timed(_call(archive, "search", **args), REPEAT)
                results.append(Result(AREA, name, ms, "ms", "< 200 ms", ms < 200))
            branches = [("get_branch, 5,000-message path (its end)", {}),
                        ("get_branch, from turn 1", {"start_turn": 1}),
                        ("get_branch, max_chars 100,000", {"max_chars": 100_000})]
            for name, args in branches:
                ms = timed(_call(archive, "get_branch", message=tip, **args), REPEAT)
                results.append(Result(AREA, name, ms, "ms", "< 1,000 ms", ms < 1000))
            for name, tool, args in (
                    ("list_conversations (50 of them)", "list_conversations", {}),
                    ("list_branches of the long session", "list_branches",
                     {"conversation": long.id}),
                    ("checkpoints of the long session", "checkpoints",
                     {"conversation": long.id})):
                results.append(Result(AREA, name, timed(_call(archive, tool, **args), REPEAT),
                                      "ms"))
    return results
