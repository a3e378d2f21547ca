"""Sync: nothing new over 5,000 session files, and 1 MB appended to a 100 MB session.

Both use generated Codex rollouts in a temporary fake home (deleted after the
run). The first sync of each set is reported too, since it reads everything.

    python -m tests.benchmarks sync
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.store import Store
from tests.benchmarks.harness import Result, timed

AREA = "sync"
FILES = 5_000
BIG_MB = 100
APPEND_MB = 1
MB = 1 << 20


def _cpu_ms(fn: Callable[[], object]) -> float:
    """CPU time of ``fn`` in this process (every thread, the store's writer too): on a
    shared machine the wall time also counts the time other processes held the CPU."""
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1000


def _line(kind: str, payload: dict[str, object], n: int) -> str:
    stamp = f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n"


def _turn(n: int, filler: str) -> str:
    call = f"call_{n}"
    return "".join([
        _line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"step {n}: check the parser again"}]}, n),
        _line("response_item", {"type": "function_call", "name": "exec_command",
                                "arguments": json.dumps({"cmd": f"grep -n item{n} src"}),
                                "call_id": call}, n),
        _line("response_item", {"type": "function_call_output", "call_id": call,
                                "output": f"{n}: {filler}"}, n),
        _line("response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": f"Turn {n} done; the parser is fine."}]}, n),
    ])


def _rollout(path: Path, sid: str, turns: range, filler: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        f.write(_line("session_meta", {"id": sid, "cwd": "/work/app", "cli_version": "0.125.0"},
                      0))
        for n in turns:
            f.write(_turn(n, filler))


def _sessions(home: Path) -> Path:
    return home / ".codex" / "sessions" / "2026" / "01"


def _many(root: Path) -> list[Result]:
    home = root / "many"
    for i in range(FILES):
        _rollout(_sessions(home) / f"{i % 28 + 1:02d}" / f"rollout-2026-01-01T00-00-00-{i}.jsonl",
                 f"session-{i}", range(2), "ok")
    env = Environment(home)
    with Store(root / "many.db") as store:
        first = timed(lambda: sync_sources(store, env, {"codex"}))
        again = timed(lambda: sync_sources(store, env, {"codex"}), repeat=3)
        again_cpu = _cpu_ms(lambda: sync_sources(store, env, {"codex"}))
        assert sync_sources(store, env, {"codex"}).unchanged == FILES
    return [
        Result(AREA, f"first sync, {FILES:,} session files", first / 1000, "s"),
        Result(AREA, f"sync with nothing new, {FILES:,} session files", again / 1000, "s",
               "< 1 s", again < 1000),
        Result(AREA, f"sync with nothing new, {FILES:,} session files (CPU)", again_cpu / 1000,
               "s", "< 1 s", again_cpu < 1000),
    ]


def _big(root: Path) -> list[Result]:
    home = root / "big"
    filler = "x" * 1900
    per_turn = len(_turn(0, filler))
    turns = BIG_MB * MB // per_turn
    target = _sessions(home) / "01" / "rollout-2026-01-01T00-00-00-big.jsonl"
    _rollout(target, "big-session", range(turns), filler)
    env = Environment(home)
    with Store(root / "big.db") as store:
        first = timed(lambda: sync_sources(store, env, {"codex"}))
        extra = APPEND_MB * MB // per_turn
        with target.open("a") as f:
            for n in range(turns, turns + extra):
                f.write(_turn(n, filler))
        report = sync_sources(store, env, {"codex"})  # warm the stat cache like a real poll
        assert report.appended == 1
        with target.open("a") as f:
            for n in range(turns + extra, turns + 2 * extra):
                f.write(_turn(n, filler))
        append = timed(lambda: sync_sources(store, env, {"codex"}))
        with target.open("a") as f:
            for n in range(turns + 2 * extra, turns + 3 * extra):
                f.write(_turn(n, filler))
        append_cpu = _cpu_ms(lambda: sync_sources(store, env, {"codex"}))
    size = target.stat().st_size / MB
    return [
        Result(AREA, f"first sync, one {size:.0f} MB session", first / 1000, "s"),
        Result(AREA, f"{APPEND_MB} MB appended to a {BIG_MB} MB session", append, "ms",
               "well under 1 s", append < 500),
        Result(AREA, f"{APPEND_MB} MB appended to a {BIG_MB} MB session (CPU)", append_cpu, "ms",
               "well under 1 s", append_cpu < 500),
    ]


def run() -> list[Result]:
    root = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    try:
        return _many(root) + _big(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    for r in run():
        print(r.row())
