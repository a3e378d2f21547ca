"""Data sets for the GUI-at-scale benchmark: one huge session, a bushy tree, a 1M-message file.

``one_session`` writes a single Claude Code session file (mostly linear, with
rewinds: the "deep" shape a person's long-running session has) through the
same writer the import benchmarks use. ``bushy_store`` builds a tree where
every few messages branch, straight into a database (no importer needed).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from explorer.store import Store
from explorer.store.ids import next_ids

from .generate_transcripts import (
    SIZES,
    START_TIME,
    Sizes,
    TextPool,
    _Budget,
    _ClaudeSession,
    plan_turn,
)


def one_session(out: Path, messages: int, seed: int = 0, rewind_rate: float = 0.05,
                mb: float | None = None, sizes: str = "realistic") -> Path:
    """One session file of exactly ``messages`` messages (or about ``mb`` MiB); its path.

    ``sizes`` names the generator's text sizes ("heavy": about twice the real ones)."""
    rng = random.Random(seed)
    pool = TextPool(rng)
    budget = _Budget(mb, messages or None)
    folder = out / "projects" / "-home-dev-api-server"
    folder.mkdir(parents=True, exist_ok=True)
    suffix = "" if sizes == "realistic" else f"-{sizes}"
    path = folder / f"big-session-{messages or mb}{suffix}.jsonl"
    with path.open("wb") as fp:
        s = _ClaudeSession(fp, rng, pool, f"big-{seed}-{messages}", "api-server", START_TIME,
                           SIZES[sizes])
        s.start()
        spent = (0, 0)
        while not budget.done():
            steps = plan_turn(rng, budget.messages_left)
            s.turn(steps, None, s.can_rewind and rng.random() < rewind_rate)
            budget.spend(s.bytes - spent[0], s.tree.messages - spent[1])
            spent = (s.bytes, s.tree.messages)
    return path


def many_sessions(folder: Path, count: int, messages: int, seed: int = 0) -> list[Path]:
    """``count`` session files of ``messages`` messages each in ``folder``, as ``one_session``
    writes one (the text pool is made once: making it per session cost seconds each)."""
    rng = random.Random(seed)
    pool = TextPool(rng)
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(count):
        path = folder / f"session-{seed}-{i:05d}.jsonl"
        write_session(path, rng, pool, f"many-{seed}-{i}", "api-server", START_TIME,
                      SIZES["realistic"], messages)
        made.append(path)
    return made


def write_session(path: Path, rng: random.Random, pool: TextPool, sid: str, project: str,
                  start: float, sizes: Sizes, messages: int) -> float:
    """One session of ``messages`` messages at ``path``, with rewinds now and then; the
    time of its last line."""
    budget = _Budget(None, messages)
    with path.open("wb") as fp:
        s = _ClaudeSession(fp, rng, pool, sid, project, start, sizes)
        s.start()
        spent = (0, 0)
        while not budget.done():
            steps = plan_turn(rng, budget.messages_left)
            s.turn(steps, None, s.can_rewind and rng.random() < 0.05)
            budget.spend(s.bytes - spent[0], s.tree.messages - spent[1])
            spent = (s.bytes, s.tree.messages)
    return s.clock


def bushy_tree(store: Store, n: int, seed: int = 0, branch: float = 0.35) -> int:
    """A conversation of ``n`` messages where about ``branch`` of them start a new branch.

    Written as rows in one transaction (with a text part each), so 100,000 take seconds.
    """
    cid = store.create_conversation(f"bushy {n}")

    def write(conn: sqlite3.Connection) -> None:
        first = next_ids(conn, "messages", n).start
        first_part = next_ids(conn, "parts", n).start
        rnd = random.Random(seed)
        messages, parts = [], []
        for i in range(n):
            parent = None if i == 0 else (i - 1 if rnd.random() >= branch else rnd.randrange(i))
            role = "user" if i % 2 == 0 else "assistant"
            text = f"{role} {i}: " + " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(5, 80)))
            messages.append((first + i, cid, None if parent is None else first + parent, role,
                             float(i), text[:160]))
            parts.append((first_part + i, first + i, 0, "text", text))
        conn.executemany("INSERT INTO messages (id, conversation_id, parent_id, role, created_at, "
                         "preview) VALUES (?, ?, ?, ?, ?, ?)", messages)
        conn.executemany("INSERT INTO parts (id, message_id, idx, kind, text) "
                         "VALUES (?, ?, ?, ?, ?)", parts)
        conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (first + n - 1, cid))

    store._writer.call(write)
    return cid


_WORDS = ("the", "value", "returns", "an", "error", "when", "file", "is", "missing", "so",
          "we", "retry", "request", "with", "longer", "timeout", "and", "log", "response")


def add_turn_raw(store: Store, conv: int, turn: list[tuple[str, str]]) -> list[int]:
    """Text messages appended at the tip as bare rows, in one write (no turn checks needed:
    the generated trees end on a clean boundary)."""

    def write(conn: sqlite3.Connection) -> list[int]:
        parent = conn.execute("SELECT tip_id FROM conversations WHERE id = ?",
                              (conv,)).fetchone()[0]
        ids = list(next_ids(conn, "messages", len(turn)))
        part_ids = list(next_ids(conn, "parts", len(turn)))
        for mid, pid, (role, text) in zip(ids, part_ids, turn, strict=True):
            conn.execute("INSERT INTO messages (id, conversation_id, parent_id, role, created_at, "
                         "preview) VALUES (?, ?, ?, ?, ?, ?)",
                         (mid, conv, parent, role, float(mid), " ".join(text[:300].split())))
            conn.execute("INSERT INTO parts (id, message_id, idx, kind, text) "
                         "VALUES (?, ?, 0, 'text', ?)", (pid, mid, text))
            parent = mid
        conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (parent, conv))
        return ids

    return store._writer.call(write)
