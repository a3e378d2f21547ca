"""Sync: 1 MB appended to a 100 MB Claude Code session, and to a 100 MB pi session.

Claude Code writes one response over several lines (a text line, then one line per
tool call, results and progress records between); pi writes entries that name their
parents. Both are generated in a temporary fake home (deleted after the run). The
append is read from the offset the last sync stopped at (``read_tail``), so its cost
follows the appended megabyte, not the 100 MB before it.

    python -m tests.benchmarks sync
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.store import Store
from tests.benchmarks.harness import Result, timed

AREA = "sync"
BIG_MB = 100
APPEND_MB = 1
MB = 1 << 20
FILLER = "x" * 1800


def _cpu_ms(fn: Callable[[], object]) -> float:
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1000


def _claude_turn(n: int) -> Iterator[dict[str, object]]:
    def line(kind: str, uuid: str, parent: str | None, **extra: object) -> dict[str, object]:
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "big",
                "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work/app", **extra}

    def said(uuid: str, parent: str, block: dict[str, object]) -> dict[str, object]:
        return line("assistant", uuid, parent, message={
            "id": f"msg{n}", "role": "assistant", "model": "claude-x", "content": [block]})

    yield line("user", f"p{n}", f"d{n - 1}" if n else None, message={
        "role": "user", "content": f"step {n}: check the parser again"})
    yield said(f"a{n}", f"p{n}", {"type": "text", "text": "Let me look."})
    yield said(f"b{n}", f"a{n}", {"type": "tool_use", "id": f"c{n}", "name": "Bash",
                                  "input": {"command": f"grep -n item{n} src"}})
    yield line("progress", f"g{n}", f"b{n}", data={"type": "hook_progress"})
    yield line("user", f"r{n}", f"b{n}", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"c{n}", "content": f"{n}: {FILLER}"}]})
    yield line("assistant", f"d{n}", f"r{n}", message={
        "id": f"end{n}", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": f"Turn {n} done; the parser is fine."}]})


def _pi_turn(n: int) -> Iterator[dict[str, object]]:
    yield {"type": "message", "id": f"u{n}", "parentId": f"a{n - 1}" if n else None,
           "timestamp": "2026-01-01T00:00:00Z",
           "message": {"role": "user", "content": f"step {n}: check the parser again"}}
    if n % 10 == 0:
        yield {"type": "model_change", "id": f"m{n}", "parentId": f"u{n}",
               "provider": "acme", "modelId": "alpha"}
    yield {"type": "message", "id": f"a{n}", "parentId": f"m{n}" if n % 10 == 0 else f"u{n}",
           "timestamp": "2026-01-01T00:00:01Z", "message": {
               "role": "assistant", "model": "alpha",
               "content": [{"type": "text", "text": f"Turn {n}: {FILLER}"}]}}


def _text(turn: Callable[[int], Iterator[dict[str, object]]], n: int) -> str:
    return "".join(json.dumps(v) + "\n" for v in turn(n))


def _measure(label: str, target: Path, head: str,
             turn: Callable[[int], Iterator[dict[str, object]]], only: str,
             root: Path) -> list[Result]:
    """``target`` lies in the fake home ``root / "home"``."""
    per_turn = len(_text(turn, 1))
    turns = BIG_MB * MB // per_turn
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w") as f:
        f.write(head)
        for n in range(turns):
            f.write(_text(turn, n))
    env = Environment(root / "home")
    extra = APPEND_MB * MB // per_turn

    def append(start: int) -> None:
        with target.open("a") as f:
            for n in range(start, start + extra):
                f.write(_text(turn, n))

    with Store(root / f"{only}.db") as store:
        first = timed(lambda: sync_sources(store, env, {only}))
        append(turns)
        assert sync_sources(store, env, {only}).appended == 1  # warm, like a real poll
        append(turns + extra)
        wall = timed(lambda: sync_sources(store, env, {only}))
        append(turns + 2 * extra)
        cpu = _cpu_ms(lambda: sync_sources(store, env, {only}))
        report = sync_sources(store, env, {only})
        assert report.unchanged == 1
    size = target.stat().st_size / MB
    return [
        Result(AREA, f"first sync, one {size:.0f} MB {label} session", first / 1000, "s"),
        Result(AREA, f"{APPEND_MB} MB appended to a {BIG_MB} MB {label} session", wall, "ms",
               "well under 1 s", wall < 500),
        Result(AREA, f"{APPEND_MB} MB appended to a {BIG_MB} MB {label} session (CPU)", cpu,
               "ms", "well under 1 s", cpu < 500),
    ]


def run() -> list[Result]:
    root = Path(tempfile.mkdtemp(prefix="bench-sync-tail-"))
    try:
        claude = root / "home" / ".claude" / "projects" / "-work-app" / "big.jsonl"
        pi = root / "home" / ".pi" / "agent" / "sessions" / "--work-app--" / "big.jsonl"
        pi_head = json.dumps({"type": "session", "version": 3, "id": "big",
                              "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work/app"}) + "\n"
        return (_measure("Claude Code", claude, "", _claude_turn, "claude-code", root)
                + _measure("pi", pi, pi_head, _pi_turn, "pi", root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    for r in run():
        print(r.row())
