"""The scale benchmark's real-shaped case: a 100,000-message Claude Code session, generated
as a session file and imported with ``convo import``, as a person's archive arrives.

The deep and bushy trees are written straight into the store with short texts; a real
session carries ~565 bytes of metadata per record, long tool outputs and attachments
(127,498 stored messages, a 240 MB file). Reads that were cheap on the generated trees
were not on it, so it is measured the same way: a screenshot against the demo's, and
an open in a child process of its own.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

SESSION_MESSAGES = 100_000
ROOT = Path(__file__).resolve().parents[2]


def imported_session(folder: Path) -> tuple[Path, int]:
    """The session's database and conversation id, generated and imported once per folder
    (``session.json`` marks it done and records how long the import took)."""
    db, done = folder / "session.db", folder / "session.json"
    if done.exists():
        return db, int(json.loads(done.read_text())["conversation"])
    from tests.benchmarks.scale_data import one_session

    print("  generating and importing the 100k Claude Code session", file=sys.stderr,
          flush=True)
    source = one_session(folder / "session100k", SESSION_MESSAGES, seed=3)
    for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        stale.unlink(missing_ok=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), "import",
                    str(source)], check=True, cwd=ROOT, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - started
    with sqlite3.connect(db) as conn:
        conv, count = conn.execute("SELECT id, message_count FROM conversations "
                                   "ORDER BY message_count DESC LIMIT 1").fetchone()
    done.write_text(json.dumps({"conversation": conv, "messages": count,
                                "import_s": seconds, "source": str(source)}))
    return db, int(conv)
