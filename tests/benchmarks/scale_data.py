"""Data sets for the GUI-at-scale benchmark: one huge session, a bushy tree, a 1M-message file.

``one_session`` writes a single Claude Code session file (mostly linear, with
rewinds: the "deep" shape a person's long-running session has) through the
same writer the import benchmarks use. ``bushy_store`` builds a tree where
every few messages branch, straight into a database (no importer needed).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from explorer.store import Store
from explorer.tree.model import text_message

from .generate_transcripts import (
    START_TIME,
    TextPool,
    _Budget,
    _ClaudeSession,
    plan_turn,
)


def one_session(out: Path, messages: int, seed: int = 0, rewind_rate: float = 0.05) -> Path:
    """One session file of exactly ``messages`` messages; returns its path."""
    rng = random.Random(seed)
    pool = TextPool(rng)
    budget = _Budget(None, messages)
    folder = out / "projects" / "-home-dev-api-server"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"big-session-{messages}.jsonl"
    with path.open("wb") as fp:
        s = _ClaudeSession(fp, rng, pool, f"big-{seed}-{messages}", "api-server", START_TIME)
        s.start()
        spent = 0
        while not budget.done():
            steps = plan_turn(rng, budget.messages_left)
            s.turn(steps, None, s.can_rewind and rng.random() < rewind_rate)
            budget.spend(0, s.tree.messages - spent)
            spent = s.tree.messages
    return path


def bushy_store(path: Path, messages: int, seed: int = 0, fanout: float = 0.35) -> int:
    """A conversation where about ``fanout`` of the turns start from an earlier message."""
    rng = random.Random(seed)
    with Store(path) as store:
        conv = store.create_conversation("Bushy tree", created_at=time.time())
        parents: list[int] = []
        made = 0
        while made < messages:
            parent = rng.choice(parents) if parents and rng.random() < fanout else None
            turn = [text_message("user", f"question {made} " + "word " * rng.randint(3, 40)),
                    text_message("assistant", f"answer {made} " + "text " * rng.randint(5, 200))]
            ids = store.append_turn(conv, turn, parent_id=parent)
            parents.extend(ids)
            made += len(ids)
        return conv
