"""P2 under SIGKILL: a real writer process is killed at random moments, 30 times."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import explorer
from explorer.store import Store
from explorer.tree.turns import boundary_flags

HERE = Path(__file__).parent
KILLS = 30


def _spawn(db: Path, conv: int, first: int) -> subprocess.Popen[str]:
    # The explorer under test first: not another checkout an installed link points to.
    root = Path(explorer.__file__).parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(HERE.parents[1]),
                                                         str(HERE)])}
    return subprocess.Popen(
        [sys.executable, str(HERE / "crash_writer.py"), str(db), str(conv), str(first)],
        stdout=subprocess.PIPE, text=True, env=env,
    )


def _check(db: Path, conv: int, reported: int) -> int:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with Store(db) as s:
        assert s.conversation(conv).message_count % 4 == 0, "a half turn was written"
        leaves = [n.id for n in s.skeleton(conv) if not s.children(n.id)]
        for leaf in leaves:
            assert boundary_flags(s.path(conv, leaf))[-1], "a path ends inside a turn"
        turns = s.conversation(conv).message_count // 4
        prompts = [m.text for m in s.path(conv) if m.is_prompt]
    assert prompts == [f"prompt {i}" for i in range(turns)]
    assert turns >= reported, "a turn reported as committed was lost"
    return turns


@pytest.mark.slow
def test_P2_sigkill_at_random_moments_never_leaves_half_a_turn(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    with Store(db) as s:
        conv = s.create_conversation("crash")
    rng = random.Random(20261130)
    turns = 0
    for _ in range(KILLS):
        proc = _spawn(db, conv, turns)
        assert proc.stdout is not None
        try:
            first_line = proc.stdout.readline()  # the writer is running and has committed once
            assert first_line.strip() == str(turns)
            time.sleep(rng.uniform(0.0, 0.15))
        finally:  # a failed check leaves no writer running into the next tests
            proc.send_signal(signal.SIGKILL)
            rest, _ = proc.communicate()
        reported = [int(x) for x in (first_line + rest).split()]
        turns = _check(db, conv, reported[-1] + 1)
    assert turns >= KILLS
