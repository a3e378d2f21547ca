"""Secret redaction (R1) over a long session, and the context at a node (X1).

Every request, page and shared export passes through the redactor, so its cost per
megabyte of text matters on a long path. CPU time is reported beside wall time, since wall
time on a shared machine mostly measures the neighbours.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app.context_at import context_at
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.tree.secrets import SecretRedactor, redact_messages
from tests.benchmarks.harness import Result

AREA = "what the model saw"
MESSAGES = 2_000
LINE = ("def load(path: str) -> list[Row]:  # reads src/jobs/import_orders.py, token count 1204 "
        "and the commit 3f9a1c2e; max_tokens=4096 password: str\n")
SECRET = "export OPENAI_API_KEY=sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ\n"


def _messages() -> list[Message]:
    out = []
    for i in range(MESSAGES):
        text = LINE * 16 + (SECRET if i % 100 == 7 else "")
        out.append(Message(i, i - 1 if i else None, "user" if i % 2 == 0 else "assistant",
                           [Part("text", text)]))
    return out


def _measure(fn: Callable[[], object]) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000


def run() -> list[Result]:
    messages = _messages()
    megabytes = sum(len(p.text) for m in messages for p in m.parts) / 1e6
    found: list[int] = []
    wall, cpu = _measure(lambda: found.append(len(redact_messages(messages)[1])))
    results = [
        Result(AREA, f"redact {MESSAGES:,} messages ({megabytes:.1f} MB), CPU", cpu, "ms"),
        Result(AREA, f"redact {MESSAGES:,} messages, wall (loaded machine)", wall, "ms"),
        Result(AREA, "redaction throughput (CPU)", megabytes / (cpu / 1000), "MB/s", "≥ 5 MB/s",
               megabytes / (cpu / 1000) >= 5),
        Result(AREA, "planted secrets found", float(found[0]), "", f"= {MESSAGES // 100}",
               found[0] == MESSAGES // 100),
    ]
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.db") as s:
        conv = s.create_conversation("bench")
        for _ in range(200):
            s.append_turn(conv, [Message(None, None, "user", [Part("text", LINE * 8)]),
                                 Message(None, None, "assistant", [Part("text", LINE * 8)])])
        tip = s.conversation(conv).tip_id or 0
        target = Target.default("anthropic", window=60_000, output_reserve=2000,
                                redactor=SecretRedactor())
        wall, cpu = _measure(lambda: context_at(s, conv, tip, target))
        results.append(Result(AREA, "context at the tip of 400 messages, pages drawn (CPU)",
                              cpu, "ms"))
        results.append(Result(AREA, "context at the tip of 400 messages, wall", wall, "ms"))
    return results
