"""The context panel's figure on an imported agent session: first, refreshed, grown.

A generated Claude Code session is imported into a temporary store (deleted after the
run); the figure is computed as the panel computes it (``ContextFigure``), then again
with nothing changed, then after a turn is appended, and the plan's own usage
(``planner.usage`` on the whole active context, what the panel did before) is timed
for comparison. CPU time of this process, since the machine may be shared.

    python -m tests.benchmarks context
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app.context import compacting
from explorer.app.context.figure import ContextFigure
from explorer.app.importing.run import import_paths
from explorer.app.targets import build_target
from explorer.compaction import planner
from explorer.store import Store
from tests.benchmarks.harness import Result
from tests.benchmarks.scale_data import one_session
from tests.helpers import chat_turn

AREA = "context"
MESSAGES = int(os.environ.get("BENCH_CONTEXT_MESSAGES", "5000"))


def _cpu_s(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def run() -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="bench_context_") as d:
        session = one_session(Path(d) / "home", MESSAGES, seed=5)
        with Store(Path(d) / "x.db") as store:
            (conv,) = [c.conversation_id for c in import_paths(store, [session]).conversations]
            target = build_target()
            figure = ContextFigure(store)
            length = len(figure.context_ids(conv))
            first, _ = _cpu_s(lambda: figure.usage(conv, target))
            again, _ = _cpu_s(lambda: figure.usage(conv, target))
            store.append_turn(conv, chat_turn(1))
            grown, _ = _cpu_s(lambda: figure.usage(conv, target))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            whole, _ = _cpu_s(lambda: planner.usage(compacting.active_context(store, conv),
                                                    target))
    name = f"{length:,}-message active context ({MESSAGES:,}-message session)"
    return [
        Result(AREA, f"figure, first computation, {name} (CPU)", first, "s"),
        Result(AREA, "figure refreshed with nothing new (CPU)", again * 1000, "ms"),
        Result(AREA, "figure after a turn was appended (CPU; only the new messages costed)",
               grown * 1000, "ms"),
        Result(AREA, "peak RSS of the process after the figure", rss, "MB"),
        Result(AREA, "the plan's own usage on the whole context, as before (CPU)", whole, "s"),
    ]


if __name__ == "__main__":
    from tests.benchmarks.harness import HEADER

    print("\n".join([HEADER, *(r.row() for r in run())]))
