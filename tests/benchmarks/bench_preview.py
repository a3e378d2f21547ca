"""The compaction preview on a generated 200,000-token, tool-heavy conversation.

Measures the time from a request (the window asking for a plan) to the pages
being ready on screen: planning and rendering on the worker, decoding the pages
and filling the window on the main thread.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from explorer.app.context import compacting
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.model import Message, Part, Usage
from explorer.ui.preview.window import CompactionPreview
from tests.benchmarks.harness import Result, timed

AREA = "preview"
TARGET_TOKENS = 200_000
WORDS = (
    "the", "import", "job", "reads", "each", "row", "from", "warehouse", "file", "and", "writes",
    "orders", "into", "database", "when", "a", "value", "cannot", "be", "parsed", "it", "logs",
    "line", "number", "skips", "so", "one", "bad", "never", "stops", "whole", "night", "we",
    "keep", "schema", "stable", "migrations", "small", "retry", "failed", "uploads", "with",
    "backoff", "check", "encoding", "before", "parsing", "report", "which", "customer", "record",
    "needed", "fallback", "because", "accents", "in", "names", "are", "common", "this", "data",
    "set",
)
FILES = ["jobs/import_orders.py", "jobs/export_invoices.py", "shop/models/order.py",
         "shop/api/views.py", "tests/test_import.py", "shop/settings.py", "README.md"]


def _sentence(rnd: random.Random, n: int) -> str:
    words = [rnd.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def _code(rnd: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        name, note = rnd.choice(WORDS), rnd.choice(WORDS)
        out.append(f"{i + 1:>4}  def {name}_{i}(row: dict[str, str]) -> int:  # {note}")
    return "\n".join(out)


def _log(rnd: random.Random, lines: int) -> str:
    return "\n".join(
        f"2026-11-0{rnd.randint(1, 9)}T02:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}Z "
        f"{rnd.choice(['INFO', 'INFO', 'WARNING', 'ERROR'])} row {rnd.randint(1, 99_999)}: "
        + _sentence(rnd, 8) for _ in range(lines))


def _turn(rnd: random.Random, t: int) -> list[Message]:
    """A prompt, three tool calls with sizeable results, and an answer."""
    msgs = [Message(None, None, "user", [Part("text", _sentence(rnd, 40))])]
    for k in range(3):
        tid = f"toolu_{t}_{k}"
        path = rnd.choice(FILES)
        tool, args, result = rnd.choice([
            ("Read", {"file_path": path}, _code(rnd, 60)),
            ("Bash", {"command": f"python -m pytest {path} -q"}, _log(rnd, 40)),
            ("Grep", {"pattern": rnd.choice(WORDS), "path": path}, _log(rnd, 25)),
        ])
        msgs.append(Message(None, None, "assistant", [
            Part("text", _sentence(rnd, 25)),
            Part("tool_use", json.dumps(args), tool_name=tool, tool_use_id=tid)]))
        msgs.append(Message(None, None, "user", [
            Part("tool_result", result, tool_use_id=tid, is_error=rnd.random() < 0.05)]))
    msgs.append(Message(None, None, "assistant", [Part("text", _sentence(rnd, 120))],
                        usage=Usage(input_tokens=1000 * t, output_tokens=300)))
    return msgs


def generated_conversation(store: Store, tokens: int = TARGET_TOKENS, seed: int = 3) -> int:
    """Append tool-heavy turns until the estimate for the active path reaches ``tokens``."""
    rnd = random.Random(seed)
    cid = store.create_conversation("generated 200k tokens")
    system = Message(None, None, "system", [Part("text", "You work in shop-backend. " * 20)])
    store.append_turn(cid, [system])
    t = 0
    while compacting.usage(store, cid, Target.default()).estimated_total < tokens:
        for _ in range(10):
            t += 1
            store.append_turn(cid, _turn(rnd, t))
    return cid


def _request_to_pages(app: QApplication, window: CompactionPreview) -> float:
    t0 = time.perf_counter()
    window.replan()
    while window.busy:
        app.processEvents()
        time.sleep(0.0005)
    ms = (time.perf_counter() - t0) * 1000
    assert window.result is not None, window.error
    return ms


def run() -> list[Result]:
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        try:
            cid = generated_conversation(store)
            est = compacting.usage(store, cid, Target.default()).estimated_total
            results = [Result(AREA, "generated conversation (estimate)", est, "tokens")]
            plan_ms = timed(lambda: compacting.plan(store, cid, Target.default(), "snapshot"),
                            repeat=3)
            results.append(Result(AREA, "plan, forced snapshot (no UI)", plan_ms, "ms"))
            window = CompactionPreview(store, cid)
            window.show()
            while window.busy:
                app.processEvents()
            cases = (("auto ladder, 200k window", "auto", 200_000),
                     ("auto ladder, 60k window", "auto", 60_000),
                     ("forced snapshot, 200k window", "snapshot", 200_000))
            for label, rung, size in cases:
                window.set_options(rung=rung, window=size)
                samples = [_request_to_pages(app, window) for _ in range(3)]
                ms = statistics.median(samples)
                assert window.result is not None
                pages = len(window.result.plan.pages)
                results.append(Result(
                    AREA, f"request → {pages} pages ready, {label}", ms, "ms",
                    "< 1 s", ms < 1000))
            window.close()
        finally:
            store.close()
    return results
