"""A person's whole archive: the first sync of 25,000 sessions, re-syncs, search and the list.

Generates the archive (``archive_data.archive``: Claude Code sessions over 120 project
folders, about 1.2 M messages) in a temporary folder, then measures, each in a fresh child
process so its peak resident size (``os.wait4``) is its own:

* the floor: every line of every file parsed with ``json.loads`` (and with ``msgspec``);
* the first ``convo sync`` (wall, CPU of it and its reading processes, peak RSS);
* ``convo sync`` again with nothing new, and after one session grew by a turn;
* search over the synced store (``archive_search.measure``) and the window's conversation
  list on it (``archive_list.measure``).

    python -m tests.benchmarks archive
    BENCH_ARCHIVE_SESSIONS=2000 python -m tests.benchmarks archive   (a quick run)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from tests.benchmarks.bench_disk_speed import MB, _child, _floor
from tests.benchmarks.harness import Result

AREA = "archive"
SESSIONS = int(os.environ.get("BENCH_ARCHIVE_SESSIONS", "25000"))
FIRST_SYNC_S = 180.0
AGAIN_S = 1.0
APPENDED_S = 0.5


def _sync(db: Path, home: Path) -> tuple[float, float, float]:
    wall, cpu, peak, _ = _child(["-m", "explorer.cli.main", "--db", str(db), "sync", "--tool",
                                 "claude-code"], home)
    return wall, cpu, peak


def _grow(path: Path) -> None:
    """One more turn at the end of a session: the person's prompt and the answer."""
    last = json.loads(path.read_bytes().splitlines()[-1])
    keep = {k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version",
                                 "gitBranch") if k in last}
    prompt, answer = str(uuid.uuid4()), str(uuid.uuid4())
    lines = [
        {**keep, "parentUuid": last["uuid"], "type": "user", "uuid": prompt,
         "timestamp": "2026-01-01T00:00:00.000Z",
         "message": {"role": "user", "content": "one more question about the parser"}},
        {**keep, "parentUuid": prompt, "type": "assistant", "uuid": answer,
         "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"id": "msg_grown", "type": "message", "role": "assistant",
                     "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                     "content": [{"type": "text", "text": "It reads one line at a time."}],
                     "usage": {"input_tokens": 5, "output_tokens": 7}}},
    ]
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))


def _syncs(root: Path) -> tuple[list[Result], Path]:
    from tests.benchmarks.archive_data import archive

    print(f"  generating {SESSIONS:,} sessions …", file=sys.stderr, flush=True)
    home = root / "home"
    files = archive(home, SESSIONS)
    size = sum(f.stat().st_size for f in files) / MB
    print("  parsing them (the floor) …", file=sys.stderr, flush=True)
    floor, fast = _floor(files, "json"), _floor(files, "msgspec")
    db = root / "archive.db"
    print("  first sync …", file=sys.stderr, flush=True)
    wall, cpu, peak = _sync(db, home)
    again, *_ = _sync(db, home)
    _grow(files[len(files) // 2])
    grown, *_ = _sync(db, home)
    what = f"{SESSIONS:,} sessions ({size:,.0f} MB)"
    return [
        Result(AREA, f"{what}: floor, json.loads of every line", floor, "s"),
        Result(AREA, f"{what}: floor, msgspec of every line", fast, "s"),
        Result(AREA, f"{what}: first convo sync, wall", wall, "s", f"< {FIRST_SYNC_S:.0f}",
               wall < FIRST_SYNC_S),
        Result(AREA, f"{what}: first convo sync, CPU (with its readers)", cpu, "s"),
        Result(AREA, f"{what}: first convo sync / json floor", wall / floor, "x"),
        Result(AREA, f"{what}: first convo sync, peak RSS", peak, "MB"),
        Result(AREA, f"{what}: convo sync again, nothing new (wall, with start-up)", again,
               "s", f"< {AGAIN_S:g}", again < AGAIN_S),
        Result(AREA, f"{what}: convo sync after one session grew a turn (wall, with "
                     "start-up)", grown, "s", f"< {APPENDED_S:g}", grown < APPENDED_S),
    ], db


def run() -> list[Result]:
    from tests.benchmarks import archive_list, archive_search

    with tempfile.TemporaryDirectory(prefix="bench_archive_") as d:
        results, db = _syncs(Path(d))
        print("  search …", file=sys.stderr, flush=True)
        results += archive_search.measure(db)
        print("  the conversation list …", file=sys.stderr, flush=True)
        results += archive_list.measure(db)
        return results


if __name__ == "__main__":
    from tests.benchmarks.harness import HEADER

    print("\n".join([HEADER, *(r.row() for r in run())]))
